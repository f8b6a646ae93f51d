// libFuzzer target: fill values (zarr.fill_value). Input: one byte choosing the data type,
// then JSON text. A value that parses must print as canonical text that reads back to the
// same bits, both from text and from its Boost.JSON form (string and bytes: the same bytes).
#include <cstddef>
#include <cstdint>
#include <string>
#include <boost/json.hpp>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.fill_value;
import zarr.metadata;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = static_cast<zarr::data_type>(in.byte() % zarr::data_type_count);
  if (zarr::is_sized(type)) return 0;  // their values need a configuration: sized_value.fuzz.cpp
  if (zarr::is_variable_length(type)) {  // string and bytes: the value's bytes
    boost::json::value json;
    try {
      json = zarr::parse_json(in.text(), "fuzz");
    } catch (const zarr::error& e) {
      zarr_fuzz::expect_code(e, zarr::errc::invalid_metadata);  // not JSON
      return 0;
    }
    std::string value;
    try {
      value = zarr::parse_variable_fill_value(json, type);
    } catch (const zarr::error& e) {
      zarr_fuzz::expect_code(e, zarr::errc::invalid_value);
      return 0;
    }
    zarr_fuzz::expect(zarr::parse_variable_fill_value(zarr::variable_fill_value_to_json(value, type), type) == value,
                      "the canonical form of a string or bytes fill value reads back to another value");
    return 0;
  }
  zarr::scalar value;
  try {
    value = zarr::parse_fill_value_text(in.text(), type);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::invalid_value);
    return 0;
  }
  const auto canonical = zarr::fill_value_to_json_text(value);
  try {
    zarr_fuzz::expect(zarr::parse_fill_value_text(canonical, type) == value, "canonical text reads back to other bits:",
                      canonical);
    zarr_fuzz::expect(zarr::parse_fill_value(zarr::fill_value_to_json(value), type) == value,
                      "the JSON form reads back to other bits:", canonical);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(false, "a canonical fill value does not parse:", e.what());
  }
  return 0;
}
