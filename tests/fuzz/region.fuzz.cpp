// libFuzzer target: the zarr3 tool's --region parser (src/cli/common.cpp, parse_region).
// Input: the rank (one byte), each dimension (one byte, or 0x80 and eight bytes), then the
// region text. A region that parses lies inside the shape; anything else is a usage error or
// zarr::error (invalid_argument).
#include <cstddef>
#include <cstdint>
#include <vector>
#include "../../src/cli/cli.hpp"
#include "fuzz.hpp"
import zarr.error;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  std::vector<std::uint64_t> shape(in.byte() % 5);
  for (auto& d : shape) d = in.dimension();
  try {
    const auto r = zarr_cli::parse_region(in.text(), shape);
    zarr_fuzz::expect(r.start.size() == shape.size() && r.stop.size() == shape.size(), "region of the wrong rank");
    for (std::size_t i = 0; i < shape.size(); ++i)
      zarr_fuzz::expect(r.start[i] <= r.stop[i] && r.stop[i] <= shape[i], "region outside the shape");
  } catch (const zarr_cli::usage_error&) {
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::invalid_argument);
  }
  return 0;
}
