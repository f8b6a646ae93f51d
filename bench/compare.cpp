// One measured operation of the side-by-side benchmark (bench/compare runs it, once per
// process, and reads its peak RSS): this library's write/read paths on a uint16 cube, and
// the floors they are judged against: plain pread + libzstd into one buffer (all chunks on
// THREADS threads, or chunk by chunk on the calling thread), write + ZSTD.
// Usage: zarr.bench.compare OP LAYOUT THREADS SIZE STORE_DIR   (bench/README.md)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include "split.hpp"
import zarr;

namespace {

using clock_type = std::chrono::steady_clock;

// The workload (after zarr_benchmarks): value at [z][y][x] (x fastest) is
// (x + floor(y*y / 32) + z*z*z) mod 65536, in unsigned 64-bit integer arithmetic.
std::uint16_t value_at(std::uint64_t z, std::uint64_t y, std::uint64_t x) {
  return static_cast<std::uint16_t>((x + y * y / 32 + z * z * z) & 0xFFFF);
}

enum class layout { uncompressed, zstd, sharded };

struct geometry {
  std::uint64_t size;   // the cube's edge
  std::uint64_t chunk;  // chunk (or shard) edge: 128, or size/2 for sizes below 256
  std::uint64_t inner;  // inner-chunk edge of the sharded layout: chunk/4
  [[nodiscard]] std::uint64_t elements() const { return size * size * size; }
  [[nodiscard]] std::uint64_t chunks_per_side() const { return size / chunk; }
};

geometry geometry_of(std::uint64_t size) {
  const std::uint64_t chunk = size >= 256 ? 128 : size / 2;
  if (size < 8 || chunk % 4 != 0 || size % chunk != 0)
    throw std::runtime_error("size: expected a multiple of 128 (>= 256) or 8..128 with size/2 divisible by 4, got " +
                             std::to_string(size));
  return {size, chunk, chunk / 4};
}

layout layout_of(std::string_view name) {
  if (name == "uncompressed") return layout::uncompressed;
  if (name == "zstd") return layout::zstd;
  if (name == "sharded") return layout::sharded;
  throw std::runtime_error("layout: expected uncompressed, zstd or sharded, got " + std::string(name));
}

std::string metadata_json(layout l, const geometry& g) {
  const auto n = std::to_string(g.size), c = std::to_string(g.chunk), i = std::to_string(g.inner);
  const std::string bytes = R"({"name": "bytes", "configuration": {"endian": "little"}})";
  const std::string zstd = R"({"name": "zstd", "configuration": {"level": 0, "checksum": false}})";
  std::string codecs;
  switch (l) {
    case layout::uncompressed: codecs = "[" + bytes + "]"; break;
    case layout::zstd: codecs = "[" + bytes + ", " + zstd + "]"; break;
    case layout::sharded:
      codecs = R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [)" + i + ", " + i + ", " + i +
               R"(], "codecs": [)" + bytes + ", " + zstd + R"(], "index_codecs": [)" + bytes +
               R"(, {"name": "crc32c"}], "index_location": "end"}}])";
      break;
  }
  return R"({"zarr_format": 3, "node_type": "array", "shape": [)" + n + ", " + n + ", " + n +
         R"(], "data_type": "uint16", "fill_value": 0, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [)" +
         c + ", " + c + ", " + c + R"(]}}, "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}, "codecs": )" +
         codecs + "}";
}

// A buffer of uint16 that is never zero-filled (pages are first touched by whoever writes
// it, as with a caller's own output buffer), aligned to 2 MiB and advised to use huge pages
// as numpy does for large arrays, so that ours, the floor and zarr-python fill the same kind
// of memory.
struct buffer {
  struct release {
    void operator()(std::uint16_t* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<std::uint16_t[], release> data;
  std::size_t count;
  explicit buffer(std::size_t n) : count(n) {
    constexpr std::size_t huge = std::size_t{2} << 20;
    const std::size_t bytes = (n * sizeof(std::uint16_t) + huge - 1) / huge * huge;
    data.reset(static_cast<std::uint16_t*>(std::aligned_alloc(huge, bytes)));
    if (!data) throw std::bad_alloc();
    ::madvise(data.get(), bytes, MADV_HUGEPAGE);
    // For comparing changes to the library: the first-touch page faults (the same for ours
    // and the floor, and noisy on a virtual machine) taken out of the timed part.
    if (std::getenv("ZARR_BENCH_PREFAULT") != nullptr) std::memset(data.get(), 0xA5, bytes);
  }
  [[nodiscard]] std::span<std::byte> bytes() { return std::as_writable_bytes(std::span(data.get(), count)); }
};

// The order in which buffers other than plain C order hold the cube: boxes of edge
// `tiles[0]` in C order of their grid, each holding boxes of edge `tiles[1]` (if given) in
// C order, ..., each holding its elements in C order.
using tiling = std::vector<std::uint64_t>;

// Calls f(z0, y0, x0, edge, position) for every innermost box, in buffer order.
void for_each_box(const geometry& g, const tiling& tiles, const std::function<void(std::uint64_t, std::uint64_t, std::uint64_t,
                                                                                     std::uint64_t, std::uint64_t)>& f) {
  std::uint64_t position = 0;
  const std::function<void(std::size_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t)> walk =
      [&](std::size_t level, std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t edge) {
        if (level == tiles.size()) {
          f(z0, y0, x0, edge, position);
          position += edge * edge * edge;
          return;
        }
        const auto t = tiles[level];
        for (std::uint64_t z = 0; z < edge; z += t)
          for (std::uint64_t y = 0; y < edge; y += t)
            for (std::uint64_t x = 0; x < edge; x += t) walk(level + 1, z0 + z, y0 + y, x0 + x, t);
      };
  walk(0, 0, 0, 0, g.size);
}

void fill(const geometry& g, const tiling& tiles, std::uint16_t* out) {
  for_each_box(g, tiles, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e, std::uint64_t pos) {
    auto* p = out + pos;
    for (std::uint64_t z = z0; z < z0 + e; ++z)
      for (std::uint64_t y = y0; y < y0 + e; ++y)
        for (std::uint64_t x = x0; x < x0 + e; ++x) *p++ = value_at(z, y, x);
  });
}

// The number of elements that differ from the workload.
std::uint64_t mismatches(const geometry& g, const tiling& tiles, const std::uint16_t* in) {
  std::uint64_t bad = 0;
  for_each_box(g, tiles, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e, std::uint64_t pos) {
    const auto* p = in + pos;
    for (std::uint64_t z = z0; z < z0 + e; ++z)
      for (std::uint64_t y = y0; y < y0 + e; ++y)
        for (std::uint64_t x = x0; x < x0 + e; ++x) bad += *p++ != value_at(z, y, x);
  });
  return bad;
}

// --- the floor: POSIX files and libzstd, nothing else ------------------------------------

std::string chunk_path(const std::string& dir, std::uint64_t z, std::uint64_t y, std::uint64_t x) {
  return dir + "/c/" + std::to_string(z) + "/" + std::to_string(y) + "/" + std::to_string(x);
}


void check_zstd(std::size_t r, const char* what) {
  if (ZSTD_isError(r)) throw std::runtime_error(std::string(what) + ": " + ZSTD_getErrorName(r));
}

// Reads the whole file into `scratch` (grown as needed); returns its size.
std::size_t read_file(const std::string& path, std::vector<std::byte>& scratch) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  struct stat st {};
  ::fstat(fd, &st);
  const auto size = static_cast<std::size_t>(st.st_size);
  if (scratch.size() < size) scratch.resize(size);
  std::size_t done = 0;
  while (done < size) {
    const auto n = ::pread(fd, scratch.data() + done, size - done, static_cast<off_t>(done));
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error("cannot read " + path);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return size;
}

void write_file(const std::string& path, const void* data, std::size_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const auto n = ::write(fd, p, size);
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error("cannot write " + path);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  ::close(fd);
}

// CRC-32C (Castagnoli, reflected 0x82F63B78), bytewise: only the 1 KiB shard indexes use it.
std::uint32_t crc32c(const std::byte* p, std::size_t n) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0u);
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) c = table[(c ^ static_cast<std::uint8_t>(p[i])) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

// One stored chunk (shard) file of n bytes at src, decoded into dst: a memcpy, one
// decompress, or one per inner chunk in inner-chunk order (index at the end: (offset, nbytes)
// uint64 pairs, then a crc32c, not checked).
void decode_chunk_file(layout l, const geometry& g, const std::byte* src, std::size_t n, ZSTD_DCtx* dctx,
                       std::uint16_t* dst) {
  const auto chunk_elements = g.chunk * g.chunk * g.chunk;
  const auto inner_elements = g.inner * g.inner * g.inner;
  const auto inner_count = chunk_elements / inner_elements;
  if (l == layout::uncompressed) {
    if (n != chunk_elements * 2) throw std::runtime_error("unexpected chunk size");
    std::memcpy(dst, src, n);
  } else if (l == layout::zstd) {
    const auto r = ZSTD_decompressDCtx(dctx, dst, chunk_elements * 2, src, n);
    check_zstd(r, "decompress");
    if (r != chunk_elements * 2) throw std::runtime_error("unexpected chunk size");
  } else {
    const auto* index = src + n - 4 - 16 * inner_count;
    for (std::uint64_t k = 0; k < inner_count; ++k) {
      std::uint64_t entry[2];
      std::memcpy(entry, index + 16 * k, 16);
      const auto r = ZSTD_decompressDCtx(dctx, dst + k * inner_elements, inner_elements * 2, src + entry[0], entry[1]);
      check_zstd(r, "decompress");
      if (r != inner_elements * 2) throw std::runtime_error("unexpected inner chunk size");
    }
  }
}

// Every chunk (shard) file, decoded into `out` in chunk-major (shard, inner-chunk) order.
void floor_read(layout l, const geometry& g, std::size_t threads, const std::string& dir, std::uint16_t* out) {
  const auto per_side = g.chunks_per_side();
  const auto chunk_elements = g.chunk * g.chunk * g.chunk;
  std::vector<std::vector<std::byte>> scratch(threads);
  std::vector<std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)>> dctx;
  for (std::size_t t = 0; t < threads; ++t) dctx.emplace_back(ZSTD_createDCtx(), ZSTD_freeDCtx);
  split(threads, per_side * per_side * per_side, [&](std::size_t c, std::size_t t) {
    const auto z = c / (per_side * per_side), y = c / per_side % per_side, x = c % per_side;
    const auto n = read_file(chunk_path(dir, z, y, x), scratch[t]);
    decode_chunk_file(l, g, scratch[t].data(), n, dctx[t].get(), out + c * chunk_elements);
  });
}

// The floor of "read chunk by chunk": each chunk (shard) file in C order of the chunk grid,
// one after another on the calling thread (the same for any THREADS), read whole with one
// pread and decoded into its own slot of `out`: one decompress (uncompressed: a memcpy; a
// shard: one per inner chunk, in inner-chunk order, not rearranged into C order).
void floor_read_chunks(layout l, const geometry& g, const std::string& dir, std::uint16_t* out) {
  std::vector<std::byte> scratch;
  const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  for_each_box(g, {g.chunk}, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t, std::uint64_t pos) {
    const auto n = read_file(chunk_path(dir, z0 / g.chunk, y0 / g.chunk, x0 / g.chunk), scratch);
    decode_chunk_file(l, g, scratch.data(), n, dctx.get(), out + pos);
  });
}

// The floor of "read inner chunk by inner chunk" (sharded layout): shard by shard, the
// index read once (one pread from the end; crc not checked), then each inner chunk in C
// order of the shard's inner grid read with one pread and decompressed into its own slot
// of `out`, one after another on the calling thread.
void floor_read_inner(layout l, const geometry& g, const std::string& dir, std::uint16_t* out) {
  if (l != layout::sharded) throw std::runtime_error("floor_read_inner: expected the sharded layout");
  const auto chunk_elements = g.chunk * g.chunk * g.chunk;
  const auto inner_elements = g.inner * g.inner * g.inner;
  const auto inner_count = chunk_elements / inner_elements;
  std::vector<std::byte> scratch;
  std::vector<std::uint64_t> index(2 * inner_count + 1);
  const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  const auto pread_exact = [](int fd, void* to, std::size_t size, std::uint64_t at, const std::string& path) {
    auto* p = static_cast<std::byte*>(to);
    while (size > 0) {
      const auto n = ::pread(fd, p, size, static_cast<off_t>(at));
      if (n <= 0) throw std::runtime_error("cannot read " + path);
      p += n;
      at += static_cast<std::uint64_t>(n);
      size -= static_cast<std::size_t>(n);
    }
  };
  for_each_box(g, {g.chunk}, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t, std::uint64_t pos) {
    const auto path = chunk_path(dir, z0 / g.chunk, y0 / g.chunk, x0 / g.chunk);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    const std::unique_ptr<const int, void (*)(const int*)> closer(&fd, [](const int* f) { ::close(*f); });
    struct stat st {};
    ::fstat(fd, &st);
    const auto index_bytes = 16 * inner_count + 4;
    pread_exact(fd, index.data(), index_bytes, static_cast<std::uint64_t>(st.st_size) - index_bytes, path);
    for (std::uint64_t k = 0; k < inner_count; ++k) {
      const auto offset = index[2 * k], nbytes = index[2 * k + 1];
      if (scratch.size() < nbytes) scratch.resize(nbytes);
      pread_exact(fd, scratch.data(), nbytes, offset, path);
      const auto r = ZSTD_decompressDCtx(dctx.get(), out + pos + k * inner_elements, inner_elements * 2, scratch.data(), nbytes);
      check_zstd(r, "decompress");
      if (r != inner_elements * 2) throw std::runtime_error("unexpected inner chunk size");
    }
  });
}

// The chunk (shard) files from `in` (chunk-major, as floor_read leaves them): compress,
// assemble shards, write each file with open/write/close. Directories are made first.
void floor_write(layout l, const geometry& g, std::size_t threads, const std::string& dir, const std::uint16_t* in) {
  const auto per_side = g.chunks_per_side();
  const auto chunk_elements = g.chunk * g.chunk * g.chunk;
  const auto inner_elements = g.inner * g.inner * g.inner;
  const auto inner_count = chunk_elements / inner_elements;
  for (std::uint64_t z = 0; z < per_side; ++z)
    for (std::uint64_t y = 0; y < per_side; ++y)
      std::filesystem::create_directories(dir + "/c/" + std::to_string(z) + "/" + std::to_string(y));
  std::vector<std::vector<std::byte>> scratch(threads);
  std::vector<std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)>> cctx;
  for (std::size_t t = 0; t < threads; ++t) cctx.emplace_back(ZSTD_createCCtx(), ZSTD_freeCCtx);
  split(threads, per_side * per_side * per_side, [&](std::size_t c, std::size_t t) {
    const auto z = c / (per_side * per_side), y = c / per_side % per_side, x = c % per_side;
    const auto path = chunk_path(dir, z, y, x);
    const auto* src = in + c * chunk_elements;
    auto& buf = scratch[t];
    if (l == layout::uncompressed) {
      write_file(path, src, chunk_elements * 2);
    } else if (l == layout::zstd) {
      buf.resize(ZSTD_compressBound(chunk_elements * 2));
      const auto n = ZSTD_compressCCtx(cctx[t].get(), buf.data(), buf.size(), src, chunk_elements * 2, 0);
      check_zstd(n, "compress");
      write_file(path, buf.data(), n);
    } else {
      const auto bound = ZSTD_compressBound(inner_elements * 2);
      buf.resize(inner_count * bound + 16 * inner_count + 4);
      std::vector<std::uint64_t> index(2 * inner_count);
      std::size_t at = 0;
      for (std::uint64_t k = 0; k < inner_count; ++k) {
        const auto n = ZSTD_compressCCtx(cctx[t].get(), buf.data() + at, bound, src + k * inner_elements, inner_elements * 2, 0);
        check_zstd(n, "compress");
        index[2 * k] = at;
        index[2 * k + 1] = n;
        at += n;
      }
      std::memcpy(buf.data() + at, index.data(), 16 * inner_count);
      const auto crc = crc32c(buf.data() + at, 16 * inner_count);
      at += 16 * inner_count;
      std::memcpy(buf.data() + at, &crc, 4);
      write_file(path, buf.data(), at + 4);
    }
  });
}

int usage() {
  std::fputs(
      "usage: zarr.bench.compare OP LAYOUT THREADS SIZE STORE_DIR\n"
      "  OP: write | read | read_chunks | read_inner | floor_write | floor_read | floor_read_chunks | floor_read_inner\n"
      "  LAYOUT: uncompressed | zstd | sharded; THREADS: zarr::set_concurrency (floor: std::threads)\n"
      "  SIZE: the cube's edge (512 by default in bench/compare); STORE_DIR: the array's store root\n"
      "Prints one JSON line: {\"op\", \"layout\", \"threads\", \"size\", \"seconds\", \"cpu_seconds\", \"mismatches\"}.\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) return usage();
  try {
    const std::string op = argv[1];
    const auto l = layout_of(argv[2]);
    const auto threads = static_cast<std::size_t>(std::stoul(argv[3]));
    const auto g = geometry_of(std::stoull(argv[4]));
    const std::string dir = argv[5];
    if (threads < 1) throw std::runtime_error("threads: expected at least 1");
    zarr::set_concurrency(threads);
    const std::vector<std::uint64_t> shape(3, g.size);
    const auto total = static_cast<std::size_t>(g.elements());
    double seconds = 0, cpu_seconds = 0;
    std::uint64_t bad = 0;
    // Wall time, and the CPU time (user + system, all threads) of the operation: the
    // latter is the steadier number on a shared machine.
    const auto cpu_now = [] {
      rusage u{};
      ::getrusage(RUSAGE_SELF, &u);
      const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
      return s(u.ru_utime) + s(u.ru_stime);
    };
    const auto timed = [&](const std::function<void()>& f) {
      const auto c0 = cpu_now();
      const auto t0 = clock_type::now();
      f();
      seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
      cpu_seconds = cpu_now() - c0;
    };
    // Region reads of every box of a tiling, in its order, each into its own slot of `out`.
    const auto read_boxes = [&](const tiling& tiles, std::uint16_t* out) {
      const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "");
      for_each_box(g, tiles, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e, std::uint64_t pos) {
        const zarr::region r{{z0, y0, x0}, {z0 + e, y0 + e, x0 + e}};
        a.read(r, std::as_writable_bytes(std::span(out + pos, e * e * e)));
      });
    };
    const tiling chunk_major = l == layout::sharded ? tiling{g.chunk, g.inner} : tiling{g.chunk};
    if (op == "write") {
      buffer in(total);
      fill(g, {}, in.data.get());
      const auto meta = zarr::array_metadata::parse(zarr::parse_json(metadata_json(l, g)));
      timed([&] {
        auto a = zarr::array::create(std::make_shared<zarr::filesystem_store>(dir), "", meta, true);
        a.write(zarr::region::all(shape), std::as_bytes(std::span(in.data.get(), total)));
      });
    } else if (op == "read") {
      buffer out(total);
      timed([&] {
        const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "");
        a.read(zarr::region::all(shape), out.bytes());
      });
      bad = mismatches(g, {}, out.data.get());
    } else if (op == "read_chunks") {
      buffer out(total);
      timed([&] { read_boxes({g.chunk}, out.data.get()); });
      bad = mismatches(g, {g.chunk}, out.data.get());
    } else if (op == "read_inner") {
      buffer out(total);
      timed([&] { read_boxes({g.chunk, g.inner}, out.data.get()); });
      bad = mismatches(g, {g.chunk, g.inner}, out.data.get());
    } else if (op == "floor_read") {
      buffer out(total);
      timed([&] { floor_read(l, g, threads, dir, out.data.get()); });
      bad = mismatches(g, chunk_major, out.data.get());
    } else if (op == "floor_read_chunks") {
      buffer out(total);
      timed([&] { floor_read_chunks(l, g, dir, out.data.get()); });
      bad = mismatches(g, chunk_major, out.data.get());
    } else if (op == "floor_read_inner") {
      buffer out(total);
      timed([&] { floor_read_inner(l, g, dir, out.data.get()); });
      bad = mismatches(g, chunk_major, out.data.get());
    } else if (op == "floor_write") {
      buffer in(total);
      fill(g, chunk_major, in.data.get());
      timed([&] { floor_write(l, g, threads, dir, in.data.get()); });
    } else {
      return usage();
    }
    std::printf(
        "{\"op\": \"%s\", \"layout\": \"%s\", \"threads\": %zu, \"size\": %llu, \"seconds\": %.6f, \"cpu_seconds\": %.6f, "
        "\"mismatches\": %llu}\n",
        op.c_str(), argv[2], threads, static_cast<unsigned long long>(g.size), seconds, cpu_seconds,
        static_cast<unsigned long long>(bad));
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zarr.bench.compare: %s\n", e.what());
    return 1;
  }
}
