// Uses the installed library through its module: writes a value to a store and reads it back.
#include <cstddef>
#include <cstdio>
#include <string>
import zarr;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  zarr::filesystem_store store(argv[1]);
  const std::byte value[] = {std::byte{1}, std::byte{2}, std::byte{3}};
  store.set("c/0", value);
  const auto back = store.get("c/0");
  if (!back || back->size() != 3 || (*back)[2] != std::byte{3}) return 1;
  std::printf("consumer: %s has %zu bits\n", std::string(zarr::name(zarr::data_type::float8_e4m3)).c_str(),
              static_cast<std::size_t>(zarr::info(zarr::data_type::float8_e4m3).bits));
  return 0;
}
