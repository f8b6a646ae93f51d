#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <string>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.builder;

namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(dtype)

BOOST_AUTO_TEST_CASE(every_name_round_trips) {
  for (const auto& row : zarr::data_types) {
    if (zarr::is_sized(row.type)) {  // their size is in their name or configuration (sized.test.cpp)
      const auto text = row.type == zarr::data_type::raw_bits ? std::string(R"("r24")")
                        : row.type == zarr::data_type::fixed_length_utf32
                            ? std::string(R"({"name":"fixed_length_utf32","configuration":{"length_bytes":8}})")
                        : row.type == zarr::data_type::optional
                            ? std::string(R"({"name":"optional","configuration":{"name":"int8"}})")
                            : std::string(R"({"name":"struct","configuration":{"fields":[{"name":"a","data_type":"int8"}]}})");
      const auto spec = zarr::parse_data_type_spec(json::parse(text));
      BOOST_TEST((spec.type == row.type));
      BOOST_TEST(json::serialize(zarr::to_json(spec)) == text);
      BOOST_CHECK_THROW(static_cast<void>(zarr::data_type_from_name(row.name)), zarr::error);
      continue;
    }
    BOOST_TEST(zarr::name(zarr::data_type_from_name(row.name)) == row.name);
    if (zarr::is_time(row.type)) {  // these need their configuration (time.test.cpp)
      const zarr::data_type_spec spec{row.type, {zarr::time_unit::ns, 1}};
      BOOST_TEST((zarr::parse_data_type_spec(zarr::to_json(spec)) == spec));
      continue;
    }
    BOOST_TEST(zarr::parse_data_type(zarr::to_json(row.type)) == row.type);
    BOOST_TEST(zarr::parse_data_type(json::parse(R"({"name": ")" + std::string(row.name) + R"(", "configuration": {}})")) == row.type);
  }
}

BOOST_AUTO_TEST_CASE(accepts_complex_aliases) {
  BOOST_TEST(zarr::data_type_from_name("complex_float32") == zarr::data_type::complex64);
  BOOST_TEST(zarr::data_type_from_name("complex_float64") == zarr::data_type::complex128);
}

BOOST_AUTO_TEST_CASE(sizes_and_limits_follow_the_specs) {
  using zarr::data_type;
  BOOST_TEST(zarr::info(data_type::int2).min == -2);
  BOOST_TEST(zarr::info(data_type::int2).max == 1u);
  BOOST_TEST(zarr::info(data_type::uint4).max == 15u);
  BOOST_TEST(zarr::info(data_type::int64).min == INT64_MIN);
  BOOST_TEST(zarr::info(data_type::uint64).max == UINT64_MAX);
  BOOST_TEST(zarr::info(data_type::float4_e2m1fn).bits == 4);
  BOOST_TEST(zarr::info(data_type::float6_e3m2fn).bits == 6);
  BOOST_TEST(zarr::info(data_type::float8_e8m0fnu).bits == 8);
  BOOST_TEST(zarr::info(data_type::bfloat16).size == 2);
  BOOST_TEST(zarr::info(data_type::complex128).size == 16);
  BOOST_TEST(zarr::info(data_type::uint2).size == 1);
}

BOOST_AUTO_TEST_CASE(float_formats_give_the_special_encodings_of_the_specs) {
  // The NaN bit pattern and largest finite value of each type (zarr-extensions data-types/<type>).
  struct row { zarr::data_type t; std::uint64_t nan, max; };
  using zarr::data_type;
  for (const auto& r : {row{data_type::float8_e3m4, 0x78, 0x6f}, row{data_type::float8_e4m3, 0x7c, 0x77},
                        row{data_type::float8_e4m3b11fnuz, 0x80, 0x7f}, row{data_type::float8_e4m3fnuz, 0x80, 0x7f},
                        row{data_type::float8_e5m2, 0x7e, 0x7b}, row{data_type::float8_e5m2fnuz, 0x80, 0x7f},
                        row{data_type::float8_e8m0fnu, 0xff, 0xfe}, row{data_type::bfloat16, 0x7fc0, 0x7f7f},
                        row{data_type::float16, 0x7e00, 0x7bff}, row{data_type::float32, 0x7fc00000, 0x7f7fffff},
                        row{data_type::float4_e2m1fn, 0, 0x7}, row{data_type::float6_e2m3fn, 0, 0x1f},
                        row{data_type::float6_e3m2fn, 0, 0x1f}}) {
    const auto& f = zarr::info(r.t).format;
    BOOST_TEST_CONTEXT(zarr::name(r.t)) {
      BOOST_TEST(f.max_finite() == r.max);
      if (f.has_nan()) BOOST_TEST(f.canonical_nan() == r.nan);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_unknown_names) {
  ZARR_CHECK_ERROR(zarr::data_type_from_name("float128"), zarr::errc::unsupported, "float128");
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse(R"("q8")")), zarr::errc::unsupported, "\"q8\"");
  // The type is named, not its configuration's first key (r8 and fixed_length_utf32: sized.test.cpp).
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse(R"({"name": "fixed_length_ucs2", "configuration": {"length_bytes": 4}})")),
                   zarr::errc::unsupported, "data_type.name: expected a supported data type, got \"fixed_length_ucs2\"");
}

BOOST_AUTO_TEST_CASE(rejects_malformed_objects) {
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse("3")), zarr::errc::invalid_metadata, "data_type: expected");
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse(R"({"configuration": {}})")), zarr::errc::invalid_metadata,
                   "data_type.name");
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse(R"({"name": "int4", "configuration": {"x": 1}})")),
                   zarr::errc::invalid_metadata, "data_type.configuration: expected no keys, got \"x\"");
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse(R"({"name": "int4", "extra": 1})")),
                   zarr::errc::invalid_metadata, "\"extra\"");
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse(R"({"name": "int4", "must_understand": false})")),
                   zarr::errc::invalid_metadata, "must_understand");
  ZARR_CHECK_ERROR(zarr::parse_data_type(json::parse(R"({"name": "int4", "configuration": []})"), "codecs[0].configuration.data_type"),
                   zarr::errc::invalid_metadata, "codecs[0].configuration.data_type.configuration");
}

BOOST_AUTO_TEST_SUITE_END()
