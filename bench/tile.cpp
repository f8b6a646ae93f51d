// This library's reader for bench/tile (bench/README.md "Tile server"): 256 x 256 windows of a
// uint16 array read one after another over HTTP, as a tile server would, then every value
// checked against the workload's formula, (x + floor(y * y / 32)) mod 65536 at [y][x].
// Usage: zarr.bench.tile read URL WINDOWS_FILE CACHE_BYTES [KEEP [READ_AHEAD]]
//          opens the array at URL (an http_store; with CACHE_BYTES > 0 a cache of that many
//          bytes, of shard indexes only when KEEP is "indexes", of decoded chunks too when it is
//          "chunks" (the default), then also fetching READ_AHEAD chunks around each window with
//          its missing ones: array_options::read_ahead_chunks), reads each window "y x" of WINDOWS_FILE and
//          prints {"seconds": s, "mismatches": m}: seconds from before the open to the last
//          window, the check not included.
//        zarr.bench.tile shard V2_DIR V3_DIR
//          writes a Zarr v3 copy of the array at V2_DIR into V3_DIR: shards of 1024 x 1024,
//          inner chunks of 256 x 256 (bytes, zstd level 1) in Morton order, index with crc32c.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
import zarr;

namespace {

constexpr std::uint64_t edge = 256;

int read_windows(const std::string& url, const std::string& windows_file, std::size_t cache_bytes, bool keep_chunks,
                 std::uint64_t read_ahead) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
  std::ifstream in(windows_file);
  for (std::uint64_t y = 0, x = 0; in >> y >> x;) windows.emplace_back(y, x);
  if (windows.empty()) throw std::runtime_error(windows_file + ": expected lines \"y x\", got none");

  std::vector<std::vector<std::uint16_t>> got(windows.size());
  const auto start = std::chrono::steady_clock::now();
  zarr::array_options options;
  if (cache_bytes > 0) {
    options.cache = std::make_shared<zarr::cache>(cache_bytes);
    options.cache_chunks = keep_chunks;
    options.read_ahead_chunks = read_ahead;
  }
  const auto a = zarr::array::open(std::make_shared<zarr::http_store>(url), "", options);
  for (std::size_t w = 0; w < windows.size(); ++w) {
    const auto [y, x] = windows[w];
    got[w] = a.read<std::uint16_t>({{y, x}, {y + edge, x + edge}});
  }
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;

  std::uint64_t mismatches = 0;
  for (std::size_t w = 0; w < windows.size(); ++w) {
    const auto [y0, x0] = windows[w];
    for (std::uint64_t i = 0; i < edge * edge; ++i) {
      const auto y = y0 + i / edge, x = x0 + i % edge;
      mismatches += got[w][i] != static_cast<std::uint16_t>((x + y * y / 32) % 65536);
    }
  }
  std::printf("{\"seconds\": %.6f, \"mismatches\": %llu}\n", seconds.count(), static_cast<unsigned long long>(mismatches));
  return mismatches == 0 ? 0 : 1;
}

void shard(const std::string& v2_dir, const std::string& v3_dir) {
  const auto source = zarr::array::open(std::make_shared<zarr::filesystem_store>(v2_dir, false), "");
  const auto& shape = source.shape();
  const auto metadata = zarr::array_metadata::parse(zarr::parse_json(
      R"({"zarr_format": 3, "node_type": "array", "shape": [)" + std::to_string(shape[0]) + ", " +
      std::to_string(shape[1]) + R"(], "data_type": "uint16",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1024, 1024]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
      "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [256, 256],
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, "crc32c"], "index_location": "end"}}]})"));
  auto copy = zarr::array::create(std::make_shared<zarr::filesystem_store>(v3_dir), "", metadata, true,
                                  {.inner_chunk_order = zarr::chunk_order::morton});
  const zarr::region all{{0, 0}, {shape[0], shape[1]}};
  const auto values = source.read<std::uint16_t>(all);
  copy.write<std::uint16_t>(all, values);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string op = argc > 1 ? argv[1] : "";
    const std::string keep = argc > 5 ? argv[5] : "chunks";
    if (op == "read" && argc >= 5 && argc <= 7 && (keep == "chunks" || keep == "indexes"))
      return read_windows(argv[2], argv[3], std::stoull(argv[4]), keep == "chunks", argc == 7 ? std::stoull(argv[6]) : 0);
    if (op == "shard" && argc == 4) {
      shard(argv[2], argv[3]);
      return 0;
    }
    std::fprintf(stderr, "usage: zarr.bench.tile read URL WINDOWS_FILE CACHE_BYTES [indexes|chunks [READ_AHEAD]] | shard V2_DIR V3_DIR\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zarr.bench.tile: %s\n", e.what());
    return 1;
  }
}
