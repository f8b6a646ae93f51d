// The workload of bench/compare (bench/README.md), shared by its measuring programs
// (zarr.bench.compare on a directory, zarr.bench.s3 on S3): the uint16 cube, its layouts and
// metadata, buffers, box orders, and the floor's decoding and encoding of one chunk with libzstd.
#pragma once
#include <sys/mman.h>
#include <sys/resource.h>
#include <zstd.h>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// The workload (after zarr_benchmarks): value at [z][y][x] (x fastest) is
// (x + floor(y*y / 32) + z*z*z) mod 65536, in unsigned 64-bit integer arithmetic.
inline std::uint16_t value_at(std::uint64_t z, std::uint64_t y, std::uint64_t x) {
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

inline layout layout_of(std::string_view name) {
  if (name == "uncompressed") return layout::uncompressed;
  if (name == "zstd") return layout::zstd;
  if (name == "sharded") return layout::sharded;
  throw std::runtime_error("layout: expected uncompressed, zstd or sharded, got " + std::string(name));
}

inline std::string metadata_json(layout l, const geometry& g) {
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
inline void for_each_box(const geometry& g, const tiling& tiles, const std::function<void(std::uint64_t, std::uint64_t, std::uint64_t,
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

inline void fill(const geometry& g, const tiling& tiles, std::uint16_t* out) {
  for_each_box(g, tiles, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e, std::uint64_t pos) {
    auto* p = out + pos;
    for (std::uint64_t z = z0; z < z0 + e; ++z)
      for (std::uint64_t y = y0; y < y0 + e; ++y)
        for (std::uint64_t x = x0; x < x0 + e; ++x) *p++ = value_at(z, y, x);
  });
}

// The number of elements that differ from the workload.
inline std::uint64_t mismatches(const geometry& g, const tiling& tiles, const std::uint16_t* in) {
  std::uint64_t bad = 0;
  for_each_box(g, tiles, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e, std::uint64_t pos) {
    const auto* p = in + pos;
    for (std::uint64_t z = z0; z < z0 + e; ++z)
      for (std::uint64_t y = y0; y < y0 + e; ++y)
        for (std::uint64_t x = x0; x < x0 + e; ++x) bad += *p++ != value_at(z, y, x);
  });
  return bad;
}

inline void check_zstd(std::size_t r, const char* what) {
  if (ZSTD_isError(r)) throw std::runtime_error(std::string(what) + ": " + ZSTD_getErrorName(r));
}

// CRC-32C (Castagnoli, reflected 0x82F63B78), bytewise: only the 1 KiB shard indexes use it.
inline std::uint32_t crc32c(const std::byte* p, std::size_t n) {
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
inline void decode_chunk_file(layout l, const geometry& g, const std::byte* src, std::size_t n, ZSTD_DCtx* dctx,
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


// One chunk (shard) of `src` (chunk-major, as floor_read leaves them) encoded into `buf`
// (grown as needed): its bytes, one zstd frame, or a shard (each inner chunk a zstd frame,
// then the index of (offset, nbytes) uint64 pairs and its crc32c). Returns the size.
inline std::size_t encode_chunk(layout l, const geometry& g, const std::uint16_t* src, ZSTD_CCtx* cctx,
                                std::vector<std::byte>& buf) {
  const auto chunk_elements = g.chunk * g.chunk * g.chunk;
  const auto inner_elements = g.inner * g.inner * g.inner;
  const auto inner_count = chunk_elements / inner_elements;
  if (l == layout::uncompressed) {
    buf.resize(chunk_elements * 2);
    std::memcpy(buf.data(), src, chunk_elements * 2);
    return buf.size();
  }
  if (l == layout::zstd) {
    buf.resize(ZSTD_compressBound(chunk_elements * 2));
    const auto n = ZSTD_compressCCtx(cctx, buf.data(), buf.size(), src, chunk_elements * 2, 0);
    check_zstd(n, "compress");
    return n;
  }
  const auto bound = ZSTD_compressBound(inner_elements * 2);
  buf.resize(inner_count * bound + 16 * inner_count + 4);
  std::vector<std::uint64_t> index(2 * inner_count);
  std::size_t at = 0;
  for (std::uint64_t k = 0; k < inner_count; ++k) {
    const auto n = ZSTD_compressCCtx(cctx, buf.data() + at, bound, src + k * inner_elements, inner_elements * 2, 0);
    check_zstd(n, "compress");
    index[2 * k] = at;
    index[2 * k + 1] = n;
    at += n;
  }
  std::memcpy(buf.data() + at, index.data(), 16 * inner_count);
  const auto crc = crc32c(buf.data() + at, 16 * inner_count);
  at += 16 * inner_count;
  std::memcpy(buf.data() + at, &crc, 4);
  return at + 4;
}

// The wall time and the CPU time (user + system, all threads) of one measured operation: the
// latter is the steadier number on a shared machine.
struct timing {
  double seconds = 0;
  double cpu_seconds = 0;
};
inline timing time_it(const std::function<void()>& f) {
  const auto cpu_now = [] {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return s(u.ru_utime) + s(u.ru_stime);
  };
  const auto c0 = cpu_now();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), cpu_now() - c0};
}

// The one JSON line a measuring program prints (bench/compare reads it).
inline void print_result(const std::string& op, const char* layout_name, std::size_t threads, std::uint64_t size,
                         const timing& t, std::uint64_t bad) {
  std::printf(
      "{\"op\": \"%s\", \"layout\": \"%s\", \"threads\": %zu, \"size\": %llu, \"seconds\": %.6f, \"cpu_seconds\": %.6f, "
      "\"mismatches\": %llu}\n",
      op.c_str(), layout_name, threads, static_cast<unsigned long long>(size), t.seconds, t.cpu_seconds,
      static_cast<unsigned long long>(bad));
}
