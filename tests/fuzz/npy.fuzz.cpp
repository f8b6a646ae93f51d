// libFuzzer target: the .npy header reader of zarr3 (src/cli/formats.hpp, read_npy_header),
// which `zarr3 write --format npy` runs on its input file. Input: the data type (one byte),
// the rank (one byte), each dimension (zarr_fuzz::input::dimension), then the file. The
// header is accepted or refused with zarr::error or a usage error; the header this library
// writes for the same type and shape reads back, without a byte swap.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>
#include "../../src/cli/cli.hpp"
#include "../../src/cli/formats.hpp"
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = static_cast<zarr::data_type>(in.byte() % zarr::data_type_count);
  std::vector<std::uint64_t> shape(in.byte() % 5);
  for (auto& d : shape) d = in.dimension();
  try {
    std::istringstream file{std::string(in.text())};
    static_cast<void>(zarr_cli::read_npy_header(file, type, {}, shape, "fuzz.npy"));
  } catch (const zarr_cli::usage_error&) {
  } catch (const zarr::error&) {
  }
  std::string ours;
  try {
    ours = zarr_cli::npy_header(type, {}, shape);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::unsupported);
    return 0;
  }
  std::istringstream back(ours);
  zarr_fuzz::expect(!zarr_cli::read_npy_header(back, type, {}, shape, "ours.npy"), "our own header needs a byte swap");
  return 0;
}
