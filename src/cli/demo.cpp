// zarr3 demo: writes a float64 array with bytes + zstd through zarr::array, reads it back
// and prints what it did.
#include <boost/json.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include "cli.hpp"

namespace zarr_cli {

int run_demo(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("demo", argv, {{}, {}, 0, 1});
  const std::filesystem::path dir = args.positionals.empty() ? std::string("zarr3-demo.zarr") : args.positionals[0];
  current_target() = dir.string();
  std::filesystem::remove_all(dir);
  constexpr std::uint64_t n = 256, c = 64;
  const std::string text = R"({
  "zarr_format": 3, "node_type": "array", "shape": [256, 256], "data_type": "float64",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [64, 64]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": 0,
  "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
             {"name": "zstd", "configuration": {"level": 3, "checksum": false}}],
  "attributes": {"description": "zarr3 demo: round(1000 sin(x/20) cos(y/30)) / 8"}
})";
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(text), text);
  auto a = zarr::array::create(std::make_shared<zarr::filesystem_store>(dir), "", meta);

  std::vector<double> values(n * n);
  for (std::uint64_t y = 0; y < n; ++y)
    for (std::uint64_t x = 0; x < n; ++x)
      values[y * n + x] = std::round(1000 * std::sin(static_cast<double>(x) / 20) * std::cos(static_cast<double>(y) / 30)) / 8;
  const auto all = zarr::region::all(a.shape());
  a.write<double>(all, values);

  std::uint64_t stored = 0;
  const auto keys = stored_chunk_keys(a);
  for (const auto& key : keys) stored += a.storage().size(key).value_or(0);
  const auto logical = n * n * sizeof(double);
  std::cout << "wrote " << dir.string() << ": float64 array " << n << "x" << n << " in " << c << "x" << c
            << " chunks (bytes + zstd), " << keys.size() << " chunks, " << logical << " bytes of values, " << stored
            << " bytes stored, compression ratio " << std::fixed << std::setprecision(2)
            << static_cast<double>(logical) / static_cast<double>(stored) << "\n";

  const auto back = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "").read<double>(all);
  std::uint64_t different = 0;
  for (std::size_t i = 0; i < values.size(); ++i) different += std::memcmp(&values[i], &back[i], sizeof(double)) != 0;
  std::cout << "read back float64 values: " << (different == 0 ? "all equal" : "MISMATCH") << " (" << values.size()
            << " values, " << different << " different)\n";
  return different == 0 ? exit_ok : exit_error;
}

}  // namespace zarr_cli
