// Every row and column of shared/vectors/cast/<target>.csv through zarr::cast: five rounding
// modes × (error, clamp, wrap), float64, integer and small-type sources (DECISIONS.md 7-12).
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>
#include "vectors.hpp"
import zarr;

using zarr::data_type;
using namespace zarr_test;

namespace zarr_test {

inline const char* cast_targets[] = {
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "bfloat16", "float16",
    "int2", "int4", "uint2", "uint4", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64"};

inline const data_type integer_types[] = {data_type::int2,  data_type::int4,  data_type::int8,   data_type::int16,
                                          data_type::int32, data_type::int64, data_type::uint2,  data_type::uint4,
                                          data_type::uint8, data_type::uint16, data_type::uint32, data_type::uint64};

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
inline std::vector<std::pair<data_type, std::uint64_t>> cast_sources(std::string_view type, std::string_view input) {
  if (type == "float64") return {{data_type::float64, double_bits(hex_double(input))}};
  if (type == "int64" || type == "uint64") {
    const bool negative = input.starts_with('-');
    const auto magnitude = decimal<std::uint64_t>(negative ? input.substr(1) : input);
    std::vector<std::pair<data_type, std::uint64_t>> out;
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

BOOST_AUTO_TEST_SUITE(cast_vectors)

BOOST_AUTO_TEST_CASE(casts_every_row_of_every_cast_table_in_every_mode) {
  std::size_t checked = 0;
  for (const char* name : cast_targets) {
    const auto to = zarr::data_type_from_name(name);
    const auto table = read_vectors(std::string("cast/") + name + ".csv");
    const auto columns = cast_columns(table);
    BOOST_TEST(columns.size() == (zarr::is_integer(to) ? 15u : 10u));
    int bad = 0, integer_sources = 0;
    for (const auto& row : table.rows) {
      const auto sources = cast_sources(row[0], row[1]);
      if (row[0] == "int64" || row[0] == "uint64") {
        BOOST_TEST_REQUIRE(!sources.empty(), name << ": no source type holds " << row[1]);
        integer_sources += static_cast<int>(sources.size());
      }
      for (const auto& [from, bits] : sources) {
        for (const auto& c : columns) {
          const auto r = zarr::cast(from, bits, to, c.mode, c.oor);
          ++checked;
          if (!matches(to, r, row[c.index]) && ++bad <= 10)
            BOOST_ERROR(name << " from " << zarr::name(from) << " " << row[1] << " " << table.header[c.index] << ": got "
                             << r.bits << " " << zarr::to_string(r.error) << ", expected " << row[c.index]);
        }
      }
    }
    BOOST_TEST(bad == 0, name << ": " << bad << " mismatches");
    BOOST_TEST(integer_sources > 0);
  }
  BOOST_TEST_MESSAGE("cast cells checked: " << checked);
  BOOST_TEST(checked > 2'000'000u);
}

BOOST_AUTO_TEST_SUITE_END()
