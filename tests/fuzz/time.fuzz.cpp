// libFuzzer target: numpy.datetime64 / numpy.timedelta64 counts (zarr.time); their fill values
// are in fill_value.fuzz.cpp. Input: a byte choosing the type (even: datetime64), two
// resolutions (a unit byte and a 4-byte scale factor each), an 8-byte count. Properties: a
// conversion either succeeds or refuses with invalid_value or out_of_range, and what converts
// from A to B converts back from B to A to the same count; the ISO 8601 text of any datetime64
// count is made without error for a unit.
#include <cstddef>
#include <cstdint>
#include <string>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.time;

namespace {

zarr::time_resolution resolution(zarr_fuzz::input& in) {
  const auto unit = static_cast<zarr::time_unit>(in.byte() % 14);
  std::uint32_t scale = 0;
  for (int i = 0; i < 4; ++i) scale |= std::uint32_t{in.byte()} << (8 * i);
  return {unit, scale % 2147483647u + 1};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = in.byte() % 2 == 0 ? zarr::data_type::numpy_datetime64 : zarr::data_type::numpy_timedelta64;
  const auto from = resolution(in), to = resolution(in);
  const auto count = static_cast<std::int64_t>(in.u64());
  try {
    const auto there = zarr::convert_time_count(type, count, from, to, "fuzz");
    const auto back = zarr::convert_time_count(type, there, to, from, "fuzz");
    zarr_fuzz::expect(back == count, "a conversion does not convert back:", std::to_string(count));
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(e.code() == zarr::errc::invalid_value || e.code() == zarr::errc::out_of_range,
                      "unexpected error code:", e.what());
  }
  if (type == zarr::data_type::numpy_datetime64 && from.unit != zarr::time_unit::generic) {
    const auto text = zarr::datetime_iso8601(count, from);
    zarr_fuzz::expect(!text.empty(), "empty ISO 8601 text");
  }
  return 0;
}
