// zarr3 demo: the point of it all. A float64 array stored as one byte per value through
// scale_offset -> cast_value -> bytes -> zstd, read back, with the compression ratio and
// the largest error printed.
#include <boost/json.hpp>
#include <algorithm>
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
  // Temperatures in degrees, kept to a quarter degree in one byte each: scale_offset maps
  // [-20, 43.75] onto [0, 255], cast_value rounds to uint8 and keeps NaN (missing readings)
  // as the byte 255 through scalar_map; anything out of range is an error, never clamped.
  constexpr std::uint64_t n = 256, c = 64;
  const std::string text = R"({
  "zarr_format": 3, "node_type": "array", "shape": [256, 256], "data_type": "float64",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [64, 64]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "NaN",
  "codecs": [{"name": "scale_offset", "configuration": {"offset": -20, "scale": 4}},
             {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even",
                 "scalar_map": {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}}},
             {"name": "bytes"},
             {"name": "zstd", "configuration": {"level": 3}}],
  "attributes": {"description": "zarr3 demo: temperatures to a quarter degree, NaN where missing"}
})";
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(text), text);
  auto a = zarr::array::create(std::make_shared<zarr::filesystem_store>(dir), "", meta);

  std::vector<double> values(n * n);
  std::uint64_t missing = 0;
  for (std::uint64_t y = 0; y < n; ++y)
    for (std::uint64_t x = 0; x < n; ++x) {
      const auto t = 12 + 20 * std::sin(static_cast<double>(x) / 40) * std::cos(static_cast<double>(y) / 50) +
                     0.37 * std::sin(static_cast<double>(x * y) / 7);
      const bool gap = (x * 7 + y * 13) % 97 == 0;
      missing += gap;
      values[y * n + x] = gap ? std::nan("") : t;
    }
  const auto all = zarr::region::all(a.shape());
  a.write<double>(all, values);

  std::uint64_t stored = 0;
  const auto keys = stored_chunk_keys(a);
  for (const auto& key : keys) stored += a.storage().size(key).value_or(0);
  const auto logical = n * n * sizeof(double);
  std::cout << "wrote " << dir.string() << ": float64 array " << n << "x" << n << " in " << c << "x" << c
            << " chunks through scale_offset -> cast_value (uint8) -> bytes -> zstd\n"
            << "  " << keys.size() << " chunks, " << logical << " bytes of values, " << stored
            << " bytes stored, compression ratio " << std::fixed << std::setprecision(2)
            << static_cast<double>(logical) / static_cast<double>(stored) << "\n";

  const auto back = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir, false), "").read<double>(all);
  double largest = 0;
  std::uint64_t nan_kept = 0, wrong = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      nan_kept += std::isnan(back[i]);
      wrong += !std::isnan(back[i]);
    } else {
      largest = std::max(largest, std::abs(back[i] - values[i]));
      wrong += std::isnan(back[i]);
    }
  }
  const bool ok = wrong == 0 && largest <= 0.125;
  std::cout << "read back " << values.size() << " values: largest error " << std::setprecision(4) << largest
            << " degrees (at most 1/8 expected), " << nan_kept << " of " << missing << " NaN kept, "
            << (ok ? "all as expected" : "MISMATCH") << "\n";
  return ok ? exit_ok : exit_error;
}

}  // namespace zarr_cli
