// Uses the installed library through its module, as the README's usage section does: builds an
// array with zarr::array_builder (no JSON), writes and reads it with typed access.
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>
import zarr;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto store = std::make_shared<zarr::filesystem_store>(argv[1]);  // a directory, created if absent
  auto a = zarr::array_builder({100, 100}, zarr::data_type::float32)
               .chunk_shape({32, 32})
               .fill_value(std::numeric_limits<float>::quiet_NaN())
               .codecs({zarr::codecs::zstd{.level = 3}})
               .dimension_names({"y", "x"})
               .create(store, "temperature");                    // validated before anything is written
  a.write<float>({{10, 10}, {12, 13}}, std::vector<float>(6, 21.5f));   // any region, not aligned to chunks
  const auto back = zarr::array::open(store, "temperature").read<double>({{0, 0}, {20, 20}});  // converted exactly
  if (back[10 * 20 + 10] != 21.5 || !std::isnan(back[0])) return 1;  // NaN where never written

  // Small floats: typed values and exact conversions (0.1 is no float8_e4m3: an error, not rounded).
  auto f8 = zarr::array_builder({4}, zarr::data_type::float8_e4m3).create(store, "f8");
  f8.write<zarr::float8_e4m3>({{0}, {2}}, std::vector{zarr::float8_e4m3(0.5), zarr::float8_e4m3(-3.75)});
  if (f8.read<double>({{0}, {2}}) != std::vector<double>{0.5, -3.75}) return 1;
  try {
    f8.write<double>({{2}, {3}}, std::vector<double>{0.1});
    return 1;
  } catch (const zarr::error& e) {
    std::printf("consumer: %s\n", e.what());
  }
  return 0;
}
