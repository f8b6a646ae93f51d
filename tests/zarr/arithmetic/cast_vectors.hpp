// The cast tables of vectors/cast/ (tests/data/README.md): the 26 targets, the
// (rounding, out_of_range) column of each result cell, and the sources a row stands for.
// Shared by the cast engine test (arithmetic/cast.test.cpp) and the cast_value codec test.
#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>
#include "vectors.hpp"
import zarr.dtype;
import zarr.arithmetic;

namespace zarr_test {

inline const char* cast_targets[] = {
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "bfloat16", "float16",
    "int2", "int4", "uint2", "uint4", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64"};

inline const zarr::data_type integer_types[] = {
    zarr::data_type::int2,  zarr::data_type::int4,  zarr::data_type::int8,   zarr::data_type::int16,
    zarr::data_type::int32, zarr::data_type::int64, zarr::data_type::uint2,  zarr::data_type::uint4,
    zarr::data_type::uint8, zarr::data_type::uint16, zarr::data_type::uint32, zarr::data_type::uint64};

// One (mode, out_of_range) column of a cast table.
struct cast_column {
  zarr::rounding_mode mode;
  zarr::out_of_range_mode oor;
  std::size_t index;
};

inline std::vector<cast_column> cast_columns(const table& t) {
  std::vector<cast_column> columns;
  for (std::size_t i = 2; i + 1 < t.header.size(); ++i) {
    std::string_view h = t.header[i];
    auto oor = zarr::out_of_range_mode::error;
    if (h.ends_with("_clamp")) {
      oor = zarr::out_of_range_mode::clamp;
      h.remove_suffix(6);
    } else if (h.ends_with("_wrap")) {
      oor = zarr::out_of_range_mode::wrap;
      h.remove_suffix(5);
    }
    const auto mode = zarr::rounding_mode_from_name(h);
    BOOST_TEST_REQUIRE(mode.has_value(), "unknown column " << t.header[i]);
    columns.push_back({*mode, oor, i});
  }
  return columns;
}

// The sources a row stands for: (type, raw bits). int64/uint64 rows apply to every integer
// type whose range holds the value.
inline std::vector<std::pair<zarr::data_type, std::uint64_t>> cast_sources(std::string_view type, std::string_view input) {
  if (type == "float64") return {{zarr::data_type::float64, double_bits(hex_double(input))}};
  if (type == "int64" || type == "uint64") {
    const bool negative = input.starts_with('-');
    const auto magnitude = decimal<std::uint64_t>(negative ? input.substr(1) : input);
    std::vector<std::pair<zarr::data_type, std::uint64_t>> out;
    for (auto t : integer_types) {
      const auto& i = zarr::info(t);
      const bool fits = negative ? i.kind == zarr::dtype_kind::signed_integer &&
                                       magnitude <= static_cast<std::uint64_t>(-(i.min + 1)) + 1
                                 : magnitude <= i.max;
      if (!fits) continue;
      const std::uint64_t raw = (negative ? 0 - magnitude : magnitude) &
                                (i.bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << i.bits) - 1);
      out.emplace_back(t, raw);
    }
    return out;
  }
  return {{zarr::data_type_from_name(type), hex_bits(input)}};
}

}  // namespace zarr_test
