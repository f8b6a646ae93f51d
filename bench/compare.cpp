// One measured operation of the side-by-side benchmark (bench/compare runs it, once per
// process, and reads its peak RSS): this library's write/read paths on a uint16 cube, and
// the floors they are judged against: plain pread + libzstd into one buffer (all chunks on
// THREADS threads, or chunk by chunk on the calling thread), write + ZSTD.
// Usage: zarr.bench.compare OP LAYOUT THREADS SIZE STORE_DIR   (bench/README.md)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <algorithm>
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
#include "workload.hpp"
import zarr;

namespace {


// The string rows: a cube of half the edge holding each value's decimal text, through
// vlen-utf8 and zstd (layout zstd), or those in shards of inner chunks (layout sharded).
std::string strings_metadata_json(layout l, const geometry& g) {
  const auto n = std::to_string(g.size), c = std::to_string(g.chunk), i = std::to_string(g.inner);
  const std::string codecs = R"([{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}])";
  const std::string chain =
      l != layout::sharded ? codecs
                           : R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [)" + i + ", " + i + ", " + i +
                                 R"(], "codecs": )" + codecs +
                                 R"(, "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}], "index_location": "end"}}])";
  return R"({"zarr_format": 3, "node_type": "array", "shape": [)" + n + ", " + n + ", " + n +
         R"(], "data_type": "string", "fill_value": "", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [)" +
         c + ", " + c + ", " + c + R"(]}}, "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}, "codecs": )" +
         chain + "}";
}

geometry geometry_of(std::uint64_t size) {
  const std::uint64_t chunk = size >= 256 ? 128 : size / 2;
  if (size < 8 || chunk % 4 != 0 || size % chunk != 0)
    throw std::runtime_error("size: expected a multiple of 128 (>= 256) or 8..128 with size/2 divisible by 4, got " +
                             std::to_string(size));
  return {size, chunk, chunk / 4};
}

// --- the floor: POSIX files and libzstd, nothing else ------------------------------------

std::string chunk_path(const std::string& dir, std::uint64_t z, std::uint64_t y, std::uint64_t x) {
  return dir + "/c/" + std::to_string(z) + "/" + std::to_string(y) + "/" + std::to_string(x);
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
    if (l == layout::uncompressed) {
      write_file(path, src, chunk_elements * 2);
    } else {
      const auto n = encode_chunk(l, g, src, cctx[t].get(), scratch[t]);
      write_file(path, scratch[t].data(), n);
    }
  });
}

int usage() {
  std::fputs(
      "usage: zarr.bench.compare OP LAYOUT THREADS SIZE STORE_DIR\n"
      "  OP: write | write_durable | write_partial | read | read_chunks | read_inner | floor_write | floor_read | floor_read_chunks |\n"
      "      floor_read_inner | write_strings | read_strings | read_strings_inner (write_durable: the store's durable option,\n"
      "      every chunk flushed to the disk; write_partial: into the array at STORE_DIR, boxes of the chunk edge shifted by\n"
      "      half a chunk; *_strings: a string array of half the edge, each value's decimal text, vlen-utf8 and zstd)\n"
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
    timing took;
    std::uint64_t bad = 0;
    const auto timed = [&](const std::function<void()>& f) { took = time_it(f); };
    // Region reads of every box of a tiling, in its order, each into its own slot of `out`.
    const auto read_boxes = [&](const tiling& tiles, std::uint16_t* out) {
      const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "");
      for_each_box(g, tiles, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e, std::uint64_t pos) {
        const zarr::region r{{z0, y0, x0}, {z0 + e, y0 + e, x0 + e}};
        a.read(r, std::as_writable_bytes(std::span(out + pos, e * e * e)));
      });
    };
    const tiling chunk_major = l == layout::sharded ? tiling{g.chunk, g.inner} : tiling{g.chunk};
    if (op == "write" || op == "write_durable") {
      buffer in(total);
      fill(g, {}, in.data.get());
      const auto meta = zarr::array_metadata::parse(zarr::parse_json(metadata_json(l, g)));
      const zarr::filesystem_options options{.create = true, .durable = op == "write_durable"};
      timed([&] {
        auto a = zarr::array::create(std::make_shared<zarr::filesystem_store>(dir, options), "", meta, true);
        a.write(zarr::region::all(shape), std::as_bytes(std::span(in.data.get(), total)));
      });
    } else if (op == "write_partial") {
      // Into the array already at STORE_DIR, boxes of the chunk edge shifted by half a chunk
      // in every dimension (clipped at the cube's faces), each its own write: every write
      // covers up to 8 chunks in part, so each chunk is read, modified and written again
      // (store::update) once per box that touches it. The cube's values are unchanged.
      const auto half = g.chunk / 2;
      std::vector<std::uint64_t> starts{0};
      for (std::uint64_t s = half; s < g.size; s += g.chunk) starts.push_back(s);
      const auto end_of = [&](std::uint64_t s) { return std::min(s == 0 ? half : s + g.chunk, g.size); };
      std::vector<std::uint16_t> box;
      timed([&] {
        auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "");
        for (const auto z0 : starts)
          for (const auto y0 : starts)
            for (const auto x0 : starts) {
              const auto z1 = end_of(z0), y1 = end_of(y0), x1 = end_of(x0);
              box.clear();
              for (auto z = z0; z < z1; ++z)
                for (auto y = y0; y < y1; ++y)
                  for (auto x = x0; x < x1; ++x) box.push_back(value_at(z, y, x));
              a.write(zarr::region{{z0, y0, x0}, {z1, y1, x1}}, std::as_bytes(std::span(box)));
            }
      });
      buffer out(total);
      zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "").read(zarr::region::all(shape), out.bytes());
      bad = mismatches(g, {}, out.data.get());
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
    } else if (op == "write_strings" || op == "read_strings" || op == "read_strings_inner") {
      const auto gs = geometry_of(g.size / 2);
      const std::vector<std::uint64_t> edge(3, gs.size);
      std::vector<std::string> values;  // C order
      values.reserve(static_cast<std::size_t>(gs.elements()));
      for (std::uint64_t z = 0; z < gs.size; ++z)
        for (std::uint64_t y = 0; y < gs.size; ++y)
          for (std::uint64_t x = 0; x < gs.size; ++x) values.push_back(std::to_string(value_at(z, y, x)));
      std::vector<std::string> out;
      if (op == "write_strings") {
        const auto meta = zarr::array_metadata::parse(zarr::parse_json(strings_metadata_json(l, gs)));
        timed([&] {
          auto a = zarr::array::create(std::make_shared<zarr::filesystem_store>(dir, zarr::filesystem_options{.create = true}),
                                       "", meta, true);
          a.write_strings(zarr::region::all(edge), values);
        });
        out = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "").read_strings(zarr::region::all(edge));
      } else if (op == "read_strings") {
        timed([&] {
          const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "");
          out = a.read_strings(zarr::region::all(edge));
        });
      } else {  // inner chunk by inner chunk, each box into its place in C order
        out.resize(values.size());
        timed([&] {
          const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "");
          for_each_box(gs, {gs.chunk, gs.inner}, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e, std::uint64_t) {
            const auto box = a.read_strings(zarr::region{{z0, y0, x0}, {z0 + e, y0 + e, x0 + e}});
            std::size_t k = 0;
            for (auto z = z0; z < z0 + e; ++z)
              for (auto y = y0; y < y0 + e; ++y)
                for (auto x = x0; x < x0 + e; ++x) out[static_cast<std::size_t>((z * gs.size + y) * gs.size + x)] = box[k++];
          });
        });
      }
      if (out.size() != values.size()) bad = values.size();
      else
        for (std::size_t k = 0; k < values.size(); ++k) bad += out[k] != values[k];
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
    print_result(op, argv[2], threads, g.size, took, bad);
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zarr.bench.compare: %s\n", e.what());
    return 1;
  }
}
