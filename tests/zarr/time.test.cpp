// numpy.datetime64 and numpy.timedelta64 (zarr-extensions datatype-numpy.datetime64.md,
// datatype-numpy.timedelta64.md; docs/decisions.md 45-46): the data type metadata, fill values,
// conversions between resolutions, ISO 8601 text, typed access, and values NumPy wrote.
// Expected values come from the specs' examples, are worked by hand here (the day counts are
// in the comments), or are NumPy's own (tests/interop/numpy_datetime.py, run by the test).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.fill_value;
import zarr.time;
import zarr.codec;
import zarr.codec.bytes;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.bytes;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;
using zarr::data_type;
using zarr::errc;
using zarr::time_unit;

namespace {

constexpr std::int64_t nat = std::numeric_limits<std::int64_t>::min();

std::string array_document(std::string_view data_type_json, std::string_view fill, std::string_view endian = "little") {
  return R"({"zarr_format": 3, "node_type": "array", "shape": [6], "data_type": )" + std::string(data_type_json) +
         R"(, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
         "chunk_key_encoding": {"name": "default"}, "fill_value": )" + std::string(fill) +
         R"(, "codecs": [{"name": "bytes", "configuration": {"endian": ")" + std::string(endian) + R"("}}]})";
}

zarr::array_metadata parse(const std::string& text) { return zarr::array_metadata::parse(zarr::parse_json(text), text); }

// NumPy's files (tests/interop/numpy_datetime.py), written into a scratch folder; nothing (a loud
// skip, a failure under CI) without /usr/bin/python3 and NumPy.
std::optional<fs::path> numpy_files() {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_NUMPY_DATETIME_SCRIPT");
  BOOST_TEST_REQUIRE(script != nullptr, "ZARR_NUMPY_DATETIME_SCRIPT is set by CTest");
  const auto out = zarr_test::scratch_dir() / "numpy";
  BOOST_TEST_REQUIRE(python != nullptr, "ZARR_PYTHON is set by CTest");
  const std::string command = std::string(python) + " " + script + " " + out.string() + " 2>&1";
  if (!zarr_test::peer_ran(std::system(command.c_str()), "NumPy writing the datetime files")) return std::nullopt;
  BOOST_TEST_REQUIRE(fs::exists(out / "cases.json"));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(time_data_type)

BOOST_AUTO_TEST_CASE(reads_and_writes_the_spec_examples) {
  // Both READMEs, "Examples": datetime64[10us] and timedelta64[10us].
  for (const auto* name : {"numpy.datetime64", "numpy.timedelta64"}) {
    const std::string example = R"({"name": ")" + std::string(name) + R"(", "configuration": {"unit": "us", "scale_factor": 10}})";
    const auto spec = zarr::parse_data_type_spec(json::parse(example));
    BOOST_TEST(zarr::name(spec.type) == name);
    BOOST_TEST((spec.time == zarr::time_resolution{time_unit::us, 10}));
    BOOST_TEST(zarr::to_json(spec) == json::parse(example));
    const auto m = parse(array_document(example, "0"));
    BOOST_TEST(m.type == spec.type);
    BOOST_TEST(zarr::parse_json(m.to_text()).at("data_type") == json::parse(example));
  }
}

BOOST_AUTO_TEST_CASE(takes_every_unit_of_the_spec_and_reads_micro_as_us) {
  for (const auto* unit : {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic"}) {
    const std::string text = R"({"name": "numpy.timedelta64", "configuration": {"unit": ")" + std::string(unit) +
                             R"(", "scale_factor": 2147483647}})";
    const auto spec = zarr::parse_data_type_spec(json::parse(text));
    BOOST_TEST(zarr::time_unit_name(spec.time.unit) == unit);
    BOOST_TEST(spec.time.scale_factor == 2147483647u);
    BOOST_TEST(zarr::to_json(spec) == json::parse(text));
  }
  // "us" and "μs" are equivalent (both READMEs, "Unit"); we write "us".
  const auto micro = zarr::parse_data_type_spec(
      json::parse("{\"name\": \"numpy.datetime64\", \"configuration\": {\"unit\": \"\xce\xbcs\", \"scale_factor\": 1}}"));
  BOOST_TEST((micro.time == zarr::time_resolution{time_unit::us, 1}));
  BOOST_TEST(zarr::to_json(micro).at("configuration").at("unit") == json::value("us"));
}

BOOST_AUTO_TEST_CASE(refuses_configurations_the_spec_does_not_allow) {
  const auto bad = [](const std::string& config) {
    return zarr::parse_data_type_spec(json::parse(R"({"name": "numpy.datetime64", "configuration": )" + config + "}"));
  };
  ZARR_CHECK_ERROR(zarr::parse_data_type_spec(json::parse(R"("numpy.datetime64")")), errc::invalid_metadata,
                   "data_type.configuration: expected {\"unit\": ..., \"scale_factor\": ...} for numpy.datetime64, got nothing");
  ZARR_CHECK_ERROR(zarr::parse_data_type_spec(json::parse(R"({"name": "numpy.timedelta64"})")), errc::invalid_metadata,
                   "for numpy.timedelta64, got nothing");
  ZARR_CHECK_ERROR(bad("[]"), errc::invalid_metadata, "for numpy.datetime64, got []");
  ZARR_CHECK_ERROR(bad(R"({"scale_factor": 1})"), errc::invalid_metadata, "data_type.configuration.unit: expected one of");
  ZARR_CHECK_ERROR(bad(R"({"unit": "sec", "scale_factor": 1})"), errc::invalid_metadata, "got \"sec\"");
  ZARR_CHECK_ERROR(bad(R"({"unit": "s"})"), errc::invalid_metadata,
                   "data_type.configuration.scale_factor: expected an integer from 1 to 2147483647, got nothing");
  for (const auto* scale : {"0", "-1", "2147483648", "1.5", "\"1\"", "18446744073709551615"})
    ZARR_CHECK_ERROR(bad(R"({"unit": "s", "scale_factor": )" + std::string(scale) + "}"), errc::invalid_metadata,
                     "scale_factor: expected an integer from 1 to 2147483647, got " + std::string(scale));
  // "No additional fields are permitted in the configuration."
  ZARR_CHECK_ERROR(bad(R"({"unit": "s", "scale_factor": 1, "endian": "little"})"), errc::invalid_metadata,
                   "data_type.configuration: expected only unit and scale_factor, got \"endian\"");
  // Other types still take no configuration.
  ZARR_CHECK_ERROR(zarr::parse_data_type_spec(json::parse(R"({"name": "int64", "configuration": {"unit": "s"}})")),
                   errc::invalid_metadata, "data_type.configuration: expected no keys, got \"unit\"");
}

BOOST_AUTO_TEST_CASE(reads_each_fill_value_form) {
  // "fill_value": "NaT" and -9223372036854775808 are the same scalar; any other int64 is a count.
  const std::string type = R"({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}})";
  for (const auto* fill : {"\"NaT\"", "-9223372036854775808"}) {
    const auto m = parse(array_document(type, fill));
    BOOST_TEST(m.fill_value.as<std::int64_t>() == nat);
    BOOST_TEST(zarr::fill_value_to_json_text(m.fill_value) == "\"NaT\"");
    BOOST_TEST(zarr::parse_json(m.to_text()).at("fill_value") == json::value("NaT"));
  }
  for (const std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{978307200}, nat + 1,
                               std::numeric_limits<std::int64_t>::max()}) {
    const auto m = parse(array_document(type, std::to_string(v)));
    BOOST_TEST(m.fill_value.as<std::int64_t>() == v);
    BOOST_TEST(zarr::fill_value_to_json_text(m.fill_value) == std::to_string(v));
    BOOST_TEST((parse(m.to_text()).fill_value == m.fill_value));
  }
  for (const auto* fill : {"1.0", "1e3", "\"nat\"", "\"NaN\"", "9223372036854775808", "true", "\"2001-01-01\""})
    ZARR_CHECK_ERROR(parse(array_document(type, fill)), errc::invalid_value,
                     "fill_value: expected an integer (no fraction, no exponent) from -9223372036854775808 to "
                     "9223372036854775807, or \"NaT\", for numpy.datetime64, got " + std::string(fill));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(time_conversion)

BOOST_AUTO_TEST_CASE(converts_exactly_between_units_of_fixed_length) {
  const auto convert = [](std::int64_t v, zarr::time_resolution from, zarr::time_resolution to) {
    return zarr::convert_time_count(data_type::numpy_timedelta64, v, from, to, "t");
  };
  BOOST_TEST(convert(1, {time_unit::s, 1}, {time_unit::ms, 1}) == 1000);
  BOOST_TEST(convert(-3, {time_unit::s, 1}, {time_unit::ms, 1}) == -3000);
  BOOST_TEST(convert(100, {time_unit::us, 10}, {time_unit::ms, 1}) == 1);  // 100 x 10 us = 1 ms
  BOOST_TEST(convert(1, {time_unit::W, 1}, {time_unit::D, 1}) == 7);
  BOOST_TEST(convert(-1, {time_unit::D, 1}, {time_unit::h, 1}) == -24);
  BOOST_TEST(convert(3, {time_unit::h, 1}, {time_unit::m, 20}) == 9);  // 180 minutes = 9 x 20 minutes
  BOOST_TEST(convert(2, {time_unit::Y, 1}, {time_unit::M, 1}) == 24);
  BOOST_TEST(convert(1, {time_unit::as, 1000}, {time_unit::fs, 1}) == 1);
  BOOST_TEST(convert(nat, {time_unit::s, 1}, {time_unit::Y, 7}) == nat);
  BOOST_TEST(convert(nat, {time_unit::generic, 1}, {time_unit::ns, 1}) == nat);
}

BOOST_AUTO_TEST_CASE(converts_years_and_months_of_datetime64_by_the_calendar) {
  const auto convert = [](std::int64_t v, zarr::time_resolution from, zarr::time_resolution to) {
    return zarr::convert_time_count(data_type::numpy_datetime64, v, from, to, "t");
  };
  // 2000-01-01 is 30 years of 365 days and 7 leap days (1972, ..., 1996) after 1970: 10957.
  BOOST_TEST(convert(30, {time_unit::Y, 1}, {time_unit::D, 1}) == 10957);
  BOOST_TEST(convert(10957, {time_unit::D, 1}, {time_unit::Y, 1}) == 30);
  BOOST_TEST(convert(10957 * 24, {time_unit::h, 1}, {time_unit::Y, 10}) == 3);
  // 1970-02-01 is day 31, 1969-12-01 day -31, 1970-03-01 day 31 + 28 = 59.
  BOOST_TEST(convert(1, {time_unit::M, 1}, {time_unit::D, 1}) == 31);
  BOOST_TEST(convert(-1, {time_unit::M, 1}, {time_unit::D, 1}) == -31);
  BOOST_TEST(convert(59, {time_unit::D, 1}, {time_unit::M, 1}) == 2);
  BOOST_TEST(convert(59 * 86400, {time_unit::s, 1}, {time_unit::M, 2}) == 1);
  ZARR_CHECK_ERROR(convert(10958, {time_unit::D, 1}, {time_unit::Y, 1}), errc::invalid_value,
                   "t: expected a value that [Y] holds exactly, got 10958 [D]");
  ZARR_CHECK_ERROR(convert(59, {time_unit::D, 1}, {time_unit::M, 3}), errc::invalid_value,
                   "t: expected a value that [3M] holds exactly, got 59 [D]");
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_exact_naming_the_element_and_value) {
  const std::vector<std::int64_t> in{2000, 1500, 0};
  std::vector<std::int64_t> out(3);
  ZARR_CHECK_ERROR(zarr::convert_time_counts(data_type::numpy_timedelta64, in, {time_unit::ms, 1}, out,
                                             {time_unit::s, 1}, "array \"/t\""),
                   errc::invalid_value, "array \"/t\", element 1: expected a value that [s] holds exactly, got 1500 [ms]");
  const auto one = [](std::int64_t v, zarr::time_resolution from, zarr::time_resolution to, data_type t) {
    return zarr::convert_time_count(t, v, from, to, "t");
  };
  // A timedelta in years or months has no length in days (NumPy's astype makes 1 year 365 days).
  ZARR_CHECK_ERROR(one(1, {time_unit::Y, 1}, {time_unit::D, 1}, data_type::numpy_timedelta64), errc::invalid_value,
                   "t: expected a value that [D] holds exactly, got 1 [Y]");
  ZARR_CHECK_ERROR(one(13, {time_unit::M, 1}, {time_unit::Y, 1}, data_type::numpy_timedelta64), errc::invalid_value,
                   "got 13 [M]");
  // Beyond int64, and onto NaT: 2^62 x [2ns] is -2^63 ns.
  ZARR_CHECK_ERROR(one(std::numeric_limits<std::int64_t>::max(), {time_unit::s, 1}, {time_unit::ns, 1},
                       data_type::numpy_datetime64),
                   errc::out_of_range, "t: expected a value within the range of [ns], got 9223372036854775807 [s]");
  ZARR_CHECK_ERROR(one(10, {time_unit::s, 1}, {time_unit::as, 1}, data_type::numpy_timedelta64), errc::out_of_range,
                   "got 10 [s]");
  ZARR_CHECK_ERROR(one(-4611686018427387904, {time_unit::ns, 2}, {time_unit::ns, 1}, data_type::numpy_timedelta64),
                   errc::out_of_range, "within the range of [ns], got -4611686018427387904 [2ns]");
  // The generic unit holds NaT only.
  ZARR_CHECK_ERROR(one(5, {time_unit::generic, 1}, {time_unit::s, 1}, data_type::numpy_timedelta64), errc::invalid_value,
                   "got 5 [generic]");
  ZARR_CHECK_ERROR(zarr::convert_time_counts(data_type::int64, in, {}, out, {}, "t"), errc::invalid_argument, "int64");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(time_iso8601)

BOOST_AUTO_TEST_CASE(writes_the_spec_example_and_hand_worked_values) {
  // Both READMEs, "Background": with unit seconds and scale 10, the value 1 is 00:00:10 UTC on
  // 1 January 1970.
  BOOST_TEST(zarr::datetime_iso8601(1, {time_unit::s, 10}) == "1970-01-01T00:00:10");
  BOOST_TEST(zarr::datetime_iso8601(nat, {time_unit::ns, 1}) == "NaT");
  BOOST_TEST(zarr::datetime_iso8601(10957, {time_unit::D, 1}) == "2000-01-01");
  BOOST_TEST(zarr::datetime_iso8601(-1, {time_unit::ms, 1}) == "1969-12-31T23:59:59.999");
  BOOST_TEST(zarr::datetime_iso8601(1, {time_unit::W, 1}) == "1970-01-08");
  BOOST_TEST(zarr::datetime_iso8601(-1971, {time_unit::Y, 1}) == "-001");  // NumPy's year: printf("%04d")
  BOOST_TEST(zarr::datetime_iso8601(59, {time_unit::D, 1}) == "1970-03-01");
  // The largest count in years: 2^63 - 1 + 1970 (NumPy wraps it round to a negative year).
  BOOST_TEST(zarr::datetime_iso8601(std::numeric_limits<std::int64_t>::max(), {time_unit::Y, 1}) == "9223372036854777777");
  ZARR_CHECK_ERROR(zarr::datetime_iso8601(5, {time_unit::generic, 1}, "element 2"), errc::invalid_value,
                   "element 2: expected NaT for the generic unit, got 5");
}

BOOST_AUTO_TEST_CASE(writes_every_unit_and_scale_as_numpy_does) {
  const auto dir = numpy_files();
  if (!dir) return;
  std::size_t checked = 0;
  const auto rows = zarr::parse_json(zarr_test::file_text(*dir / "iso.json"), "iso.json");
  for (const auto& row : rows.as_array()) {
    const auto unit = zarr::time_unit_from_name(row.at("unit").as_string());
    BOOST_TEST_REQUIRE(unit.has_value());
    const zarr::time_resolution r{*unit, static_cast<std::uint32_t>(row.at("scale_factor").to_number<std::int64_t>())};
    const auto& counts = row.at("counts").as_array();
    const auto& iso = row.at("iso").as_array();
    for (std::size_t i = 0; i < counts.size(); ++i, ++checked)
      BOOST_TEST(zarr::datetime_iso8601(counts[i].to_number<std::int64_t>(), r) == iso[i].as_string(),
                 zarr::resolution_text(r) << " " << counts[i]);
  }
  BOOST_TEST(checked == 13u * 3u * 10u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(time_arrays)

BOOST_AUTO_TEST_CASE(reads_what_numpy_wrote_exactly_in_either_byte_order) {
  const auto dir = numpy_files();
  if (!dir) return;
  std::size_t cases = 0;
  const auto all = zarr::parse_json(zarr_test::file_text(*dir / "cases.json"), "cases.json");
  for (const auto& c : all.as_array()) {
    const std::string dtype(c.at("dtype").as_string());
    BOOST_TEST_CONTEXT(dtype) {
      const auto numpy = zarr::parse_numpy_dtype(dtype);
      BOOST_TEST_REQUIRE(numpy.has_value());
      const auto& counts = c.at("counts").as_array();
      const std::string type = json::serialize(zarr::to_json(zarr::data_type_spec{numpy->type, numpy->time}));
      const std::string doc = R"({"zarr_format": 3, "node_type": "array", "shape": [)" + std::to_string(counts.size()) +
                              R"(], "data_type": )" + type + R"(, "chunk_grid": {"name": "regular", "configuration":
          {"chunk_shape": [)" + std::to_string(counts.size()) + R"(]}}, "chunk_key_encoding": {"name": "default"},
          "fill_value": "NaT", "codecs": [{"name": "bytes", "configuration": {"endian": ")" +
                              (numpy->byte_order == '>' ? "big" : "little") + R"("}}]})";
      auto store = std::make_shared<zarr::memory_store>();
      const auto a = zarr::array::create(store, "t", parse(doc));
      const auto raw = zarr_test::file_text(*dir / (std::to_string(cases) + ".bin"));
      store->set("t/c/0", std::as_bytes(std::span(raw)));
      const auto region = zarr::region::all(a.shape());
      if (numpy->type == data_type::numpy_datetime64) {
        const auto got = a.read<zarr::datetime64>(region);
        const auto& iso = c.at("iso").as_array();
        for (std::size_t i = 0; i < counts.size(); ++i) {
          BOOST_TEST(got[i].count == counts[i].to_number<std::int64_t>());
          BOOST_TEST(zarr::datetime_iso8601(got[i].count, a.metadata().time) == iso[i].as_string());
        }
      } else {
        const auto got = a.read<zarr::timedelta64>(region);
        for (std::size_t i = 0; i < counts.size(); ++i) BOOST_TEST(got[i].count == counts[i].to_number<std::int64_t>());
      }
    }
    ++cases;
  }
  BOOST_TEST(cases == 11u);
}

BOOST_AUTO_TEST_CASE(typed_access_keeps_counts_and_refuses_other_types) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({5}, data_type::numpy_datetime64)
               .resolution({time_unit::ms, 1})
               .chunk_shape({2})
               .fill_value(zarr::datetime64{nat})
               .codecs({zarr::codecs::bytes{zarr::endian::big}})
               .create(store, "t");
  BOOST_TEST(zarr::parse_json(a.metadata().to_text()).at("fill_value") == json::value("NaT"));
  const std::vector<zarr::datetime64> values{{978307200000}, {-1}, {nat + 1}};
  a.write<zarr::datetime64>({{0}, {3}}, values);
  const auto back = a.read<zarr::datetime64>(zarr::region::all(a.shape()));
  BOOST_TEST(back[0].count == 978307200000);
  BOOST_TEST(back[1].count == -1);
  BOOST_TEST(back[2].count == nat + 1);
  BOOST_TEST(back[3].count == nat);  // never written: the fill value
  // The stored chunk is big-endian int64 (the bytes codec, as for int64): -1 is eight 0xff.
  const auto chunk = store->get("t/c/0");
  BOOST_TEST_REQUIRE(chunk.has_value());
  BOOST_TEST(chunk->size() == 16u);
  const unsigned expected[16] = {0x00, 0x00, 0x00, 0xe3, 0xc7, 0xa7, 0x34, 0x00,  // 978307200000 = 0xe3c7a73400
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  for (std::size_t i = 0; i < 16; ++i) BOOST_TEST(std::to_integer<unsigned>((*chunk)[i]) == expected[i], "byte " << i);
  ZARR_CHECK_ERROR(a.read<std::int64_t>(zarr::region::all(a.shape())), errc::unsupported,
                   "array \"/t\", element 0: expected int64 values, got numpy.datetime64 (a time type converts only to itself");
  ZARR_CHECK_ERROR(a.write<double>({{0}, {1}}, std::vector<double>{1.0}), errc::unsupported,
                   "expected numpy.datetime64 values, got float64");
  ZARR_CHECK_ERROR(a.write<zarr::timedelta64>({{0}, {1}}, std::vector<zarr::timedelta64>{{1}}), errc::unsupported,
                   "expected numpy.datetime64 values, got numpy.timedelta64");
  ZARR_CHECK_ERROR(zarr::array_builder({5}, data_type::numpy_timedelta64).metadata(), errc::invalid_metadata,
                   "array_builder: data_type: expected a resolution for numpy.timedelta64");
  ZARR_CHECK_ERROR(zarr::array_builder({5}, data_type::int8).resolution({time_unit::s, 1}).metadata(),
                   errc::invalid_metadata, "array_builder: data_type: expected no resolution for int8, got s");
  ZARR_CHECK_ERROR(zarr::array_builder({5}, data_type::numpy_timedelta64).resolution({time_unit::s, 0}).metadata(),
                   errc::invalid_metadata, "scale_factor: expected an integer from 1 to 2147483647, got 0");
  ZARR_CHECK_ERROR(zarr::array_builder({5}, data_type::numpy_timedelta64).resolution({time_unit::s, 1}).fill_value(7).metadata(),
                   errc::unsupported, "fill_value: expected numpy.timedelta64 values, got int32");
}

BOOST_AUTO_TEST_CASE(codecs_that_do_arithmetic_refuse_the_time_types) {
  // docs/decisions.md 45: "compatible with any codec that supports arrays of signed 64-bit
  // integers" is read as the layout codecs; arithmetic on counts would change NaT.
  const std::string type = R"({"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 1}})";
  const auto with_codecs = [&](const std::string& codecs) {
    auto text = array_document(type, "0");
    text.replace(text.find(R"("codecs": [)") + 11, 0, codecs + ", ");
    const auto m = parse(text);
    return zarr::codec_chain(m.codecs, zarr::chunk_spec{m.chunk_shape, m.type, m.fill_value}, "codecs", m.source);
  };
  ZARR_CHECK_ERROR(with_codecs(R"({"name": "scale_offset", "configuration": {"offset": 1}})"), errc::invalid_metadata,
                   "(scale_offset): expected an integer or floating-point data type, got numpy.timedelta64");
  ZARR_CHECK_ERROR(with_codecs(R"({"name": "cast_value", "configuration": {"data_type": "int64"}})"), errc::invalid_metadata,
                   "(cast_value): expected an input of an integer or floating-point data type");
  // The codecs that move bytes take them: transpose, then bytes and a compressor.
  const auto chain = with_codecs(R"({"name": "transpose", "configuration": {"order": [0]}})");
  const std::vector<std::int64_t> counts{nat, -1, 5, 7};
  const auto encoded = chain.encode(std::as_bytes(std::span(counts)));
  const auto decoded = chain.decode(encoded);
  BOOST_TEST(std::ranges::equal(decoded, std::as_bytes(std::span(counts))));
}

BOOST_AUTO_TEST_SUITE_END()
