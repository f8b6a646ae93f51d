// The floor of bench/compare's whole-process rows: what `zarr3 write --format raw` and
// `zarr3 read --format raw --output` do, done with POSIX files and libzstd and nothing else,
// as a whole process (bench/README.md). Also writes the raw input cube.
// Usage: zarr.bench.floor_process make|write|read SIZE CHUNK THREADS RAW_FILE CHUNK_DIR
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include "split.hpp"

namespace {

// The workload of bench/compare.cpp: value at [z][y][x] (x fastest).
std::uint16_t value_at(std::uint64_t z, std::uint64_t y, std::uint64_t x) {
  return static_cast<std::uint16_t>((x + y * y / 32 + z * z * z) & 0xFFFF);
}

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

// A file mapped whole; unmapped at the end.
struct mapping {
  void* data = MAP_FAILED;
  std::size_t size = 0;
  ~mapping() {
    if (data != MAP_FAILED) ::munmap(data, size);
  }
};


struct cube {
  std::uint64_t size, chunk;
  [[nodiscard]] std::uint64_t per_side() const { return size / chunk; }
  [[nodiscard]] std::uint64_t chunks() const { return per_side() * per_side() * per_side(); }
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(size * size * size * 2); }
  [[nodiscard]] std::size_t chunk_bytes() const { return static_cast<std::size_t>(chunk * chunk * chunk * 2); }
  // The byte offset in the C-order cube of row (z, y) of chunk c, and the chunk's path.
  [[nodiscard]] std::size_t row_offset(std::uint64_t c, std::uint64_t z, std::uint64_t y) const {
    const auto n = per_side();
    const auto cz = c / (n * n), cy = c / n % n, cx = c % n;
    return static_cast<std::size_t>((((cz * chunk + z) * size + cy * chunk + y) * size + cx * chunk) * 2);
  }
  [[nodiscard]] std::string path(const std::string& dir, std::uint64_t c) const {
    const auto n = per_side();
    return dir + "/c/" + std::to_string(c / (n * n)) + "/" + std::to_string(c / n % n) + "/" + std::to_string(c % n);
  }
};

void write_all(int fd, const void* data, std::size_t size, const std::string& what) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const auto n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write " + what);
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void make(const cube& g, const std::string& raw) {
  std::vector<std::uint16_t> row(g.size);
  const fd_closer f{::open(raw.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (f.fd < 0) fail("cannot create " + raw);
  for (std::uint64_t z = 0; z < g.size; ++z)
    for (std::uint64_t y = 0; y < g.size; ++y) {
      for (std::uint64_t x = 0; x < g.size; ++x) row[x] = value_at(z, y, x);
      write_all(f.fd, row.data(), row.size() * 2, raw);
    }
}

// The raw file mapped (read-only, populated), each chunk gathered from it, compressed
// (level 0, no checksum) and written to its own file with open/write/close.
void write(const cube& g, std::size_t threads, const std::string& raw, const std::string& dir) {
  const fd_closer in{::open(raw.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) fail("cannot open " + raw);
  mapping m;
  m.size = g.bytes();
  m.data = ::mmap(nullptr, m.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, in.fd, 0);
  if (m.data == MAP_FAILED) fail("cannot map " + raw);
  const auto* src = static_cast<const std::byte*>(m.data);
  const auto n = g.per_side();
  for (std::uint64_t z = 0; z < n; ++z)
    for (std::uint64_t y = 0; y < n; ++y) std::filesystem::create_directories(dir + "/c/" + std::to_string(z) + "/" + std::to_string(y));
  std::vector<std::vector<std::byte>> chunk(threads), out(threads);
  std::vector<std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)>> cctx;
  for (std::size_t t = 0; t < threads; ++t) cctx.emplace_back(ZSTD_createCCtx(), ZSTD_freeCCtx);
  const auto row = static_cast<std::size_t>(g.chunk * 2);
  split(threads, g.chunks(), [&](std::size_t c, std::size_t t) {
    chunk[t].resize(g.chunk_bytes());
    out[t].resize(ZSTD_compressBound(g.chunk_bytes()));
    auto* p = chunk[t].data();
    for (std::uint64_t z = 0; z < g.chunk; ++z)
      for (std::uint64_t y = 0; y < g.chunk; ++y, p += row) std::memcpy(p, src + g.row_offset(c, z, y), row);
    const auto size = ZSTD_compressCCtx(cctx[t].get(), out[t].data(), out[t].size(), chunk[t].data(), chunk[t].size(), 0);
    if (ZSTD_isError(size)) throw std::runtime_error(std::string("compress: ") + ZSTD_getErrorName(size));
    const auto path = g.path(dir, c);
    const fd_closer f{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (f.fd < 0) fail("cannot create " + path);
    write_all(f.fd, out[t].data(), size, path);
  });
}

// Every chunk file read with open/pread/close and decompressed into the thread's buffer,
// its rows copied into place in the raw output file, created at its size (ftruncate), mapped
// and populated writable.
void read(const cube& g, std::size_t threads, const std::string& raw, const std::string& dir) {
  const fd_closer out{::open(raw.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (out.fd < 0) fail("cannot create " + raw);
  if (::ftruncate(out.fd, static_cast<off_t>(g.bytes())) != 0) fail("cannot size " + raw);
  mapping m;
  m.size = g.bytes();
  m.data = ::mmap(nullptr, m.size, PROT_READ | PROT_WRITE, MAP_SHARED, out.fd, 0);
  if (m.data == MAP_FAILED) fail("cannot map " + raw);
  // Every page in place and writable at once: the rows below land all over the file, and a
  // fault per 4 KiB page of a hole costs more than the whole decompression.
  ::madvise(m.data, m.size, MADV_POPULATE_WRITE);
  auto* dst = static_cast<std::byte*>(m.data);
  std::vector<std::vector<std::byte>> stored(threads), chunk(threads);
  std::vector<std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)>> dctx;
  for (std::size_t t = 0; t < threads; ++t) dctx.emplace_back(ZSTD_createDCtx(), ZSTD_freeDCtx);
  const auto row = static_cast<std::size_t>(g.chunk * 2);
  split(threads, g.chunks(), [&](std::size_t c, std::size_t t) {
    const auto path = g.path(dir, c);
    const fd_closer f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) fail("cannot open " + path);
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) fail("cannot stat " + path);
    auto& s = stored[t];
    s.resize(static_cast<std::size_t>(st.st_size));
    for (std::size_t done = 0; done < s.size();) {
      const auto n = ::pread(f.fd, s.data() + done, s.size() - done, static_cast<off_t>(done));
      if (n <= 0) fail("cannot read " + path);
      done += static_cast<std::size_t>(n);
    }
    chunk[t].resize(g.chunk_bytes());
    const auto r = ZSTD_decompressDCtx(dctx[t].get(), chunk[t].data(), chunk[t].size(), s.data(), s.size());
    if (ZSTD_isError(r) || r != chunk[t].size()) throw std::runtime_error("decompress " + path);
    const auto* p = chunk[t].data();
    for (std::uint64_t z = 0; z < g.chunk; ++z)
      for (std::uint64_t y = 0; y < g.chunk; ++y, p += row) std::memcpy(dst + g.row_offset(c, z, y), p, row);
  });
  if (::munmap(m.data, m.size) != 0) fail("cannot unmap " + raw);
  m.data = MAP_FAILED;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fputs(
        "usage: zarr.bench.floor_process make|write|read SIZE CHUNK THREADS RAW_FILE CHUNK_DIR\n"
        "  make: writes the uint16 cube of edge SIZE to RAW_FILE (C order, little endian)\n"
        "  write: RAW_FILE -> one zstd file per CHUNK^3 chunk under CHUNK_DIR/c/z/y/x\n"
        "  read: the chunk files under CHUNK_DIR -> RAW_FILE\n",
        stderr);
    return 2;
  }
  try {
    const std::string op = argv[1];
    const cube g{std::stoull(argv[2]), std::stoull(argv[3])};
    const auto threads = static_cast<std::size_t>(std::stoul(argv[4]));
    if (g.chunk == 0 || g.size % g.chunk != 0 || threads == 0) throw std::runtime_error("expected SIZE a multiple of CHUNK, THREADS >= 1");
    if (op == "make") make(g, argv[5]);
    else if (op == "write") write(g, threads, argv[5], argv[6]);
    else if (op == "read") read(g, threads, argv[5], argv[6]);
    else throw std::runtime_error("unknown operation " + op);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zarr.bench.floor_process: %s\n", e.what());
    return 1;
  }
}
