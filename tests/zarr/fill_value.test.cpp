// Tests of zarr.fill_value against vectors/fill/*.csv of tests/data (Zarr v3 core spec "Permitted
// fill values", zarr-extensions data-types/* "Fill value representation", docs/decisions.md 1-6), plus writing,
// complex values, errors and the JSON source-text helper.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>
#include <string>
#include <string_view>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.sized;
import zarr.fill_value;

namespace json = boost::json;
using zarr::data_type;

namespace {

// Rows per file (without the header), written here so that a truncated file fails.
const std::map<std::string, std::size_t> rows_per_file = {
    {"bfloat16", 904},          {"bool", 17},
    {"float16", 876},           {"float32", 907},
    {"float4_e2m1fn", 274},     {"float64", 915},
    {"float6_e2m3fn", 658},     {"float6_e3m2fn", 660},
    {"float8_e3m4", 1999},      {"float8_e4m3", 2106},
    {"float8_e4m3b11fnuz", 2266}, {"float8_e4m3fnuz", 2238},
    {"float8_e5m2", 2201},      {"float8_e5m2fnuz", 2256},
    {"float8_e8m0fnu", 2287},   {"int16", 86},
    {"int2", 43},               {"int32", 86},
    {"int4", 63},               {"int64", 97},
    {"int8", 80},               {"uint16", 83},
    {"uint2", 48},              {"uint32", 83},
    {"uint4", 58},              {"uint64", 97},
    {"uint8", 82},
};

struct vector_row {
  std::string json;
  std::string result;  // fixed-width hex bits, or ERROR
  bool trap = false;
};

std::vector<vector_row> read_vectors(const std::string& type) {
  std::vector<vector_row> rows;
  for (const auto& fields : zarr_test::read_csv(zarr_test::data_dir() / "vectors" / "fill" / (type + ".csv"))) {
    BOOST_TEST_REQUIRE(fields.size() == 3u, type << ": a row without 3 fields");
    rows.push_back({fields[0], fields[1], fields[2] == "double-rounding-trap"});
  }
  BOOST_TEST_REQUIRE(rows.size() == rows_per_file.at(type), type << ".csv: row count");
  return rows;
}

// The bits of a value as the vectors write them: fixed width, one hex digit per 4 bits.
std::string hex_of(const zarr::scalar& s) {
  const auto& t = zarr::info(s.type);
  std::uint64_t v = 0;
  switch (t.size) {
    case 1: v = s.as<std::uint8_t>(); break;
    case 2: v = s.as<std::uint16_t>(); break;
    case 4: v = s.as<std::uint32_t>(); break;
    default: v = s.as<std::uint64_t>(); break;
  }
  if (t.bits < 64) v &= (std::uint64_t{1} << t.bits) - 1;
  const int width = s.type == data_type::bool_ ? 2 : (t.bits + 3) / 4;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%0*llx", width, static_cast<unsigned long long>(v));
  return buffer;
}

}  // namespace

namespace zarr {
// Boost.Test prints values in failure messages: the type and the bits.
inline std::ostream& operator<<(std::ostream& os, const scalar& s) { return os << name(s.type) << " 0x" << hex_of(s); }
}  // namespace zarr

namespace {

// What parse_fill_value_text gives for a row: the hex bits, or ERROR for an invalid_value error.
std::string outcome(std::string_view text, data_type t) {
  try {
    return hex_of(zarr::parse_fill_value_text(text, t));
  } catch (const zarr::error& e) {
    if (e.code() != zarr::errc::invalid_value) return std::string("wrong error code: ") + e.what();
    return "ERROR";
  }
}

std::string outcome_of_value(const json::value& v, data_type t) {
  try {
    return hex_of(zarr::parse_fill_value(v, t));
  } catch (const zarr::error& e) {
    if (e.code() != zarr::errc::invalid_value) return std::string("wrong error code: ") + e.what();
    return "ERROR";
  }
}

bool is_number(std::string_view text) { return !text.empty() && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9')); }

std::size_t significant_digits(std::string_view number) {
  std::string digits;
  for (const char c : number.substr(0, number.find_first_of("eE")))
    if (c >= '0' && c <= '9') digits.push_back(c);
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  return digits.find_last_not_of('0') - first + 1;
}

// A value of a float type from its bits.
zarr::scalar from_bits(data_type t, std::uint64_t bits) {
  switch (zarr::info(t).size) {
    case 1: return zarr::scalar::of(t, static_cast<std::uint8_t>(bits));
    case 2: return zarr::scalar::of(t, static_cast<std::uint16_t>(bits));
    case 4: return zarr::scalar::of(t, static_cast<std::uint32_t>(bits));
    default: return zarr::scalar::of(t, bits);
  }
}

// What a reader that goes through a correctly rounded double first would make of a number:
// strtod, then the exact value of that double rounded once to the type.
std::string through_double(const std::string& text, data_type t) {
  const double d = std::strtod(text.c_str(), nullptr);
  if (d == HUGE_VAL || d == -HUGE_VAL) return "ERROR";
  char buffer[900];
  std::snprintf(buffer, sizeof buffer, "%.800e", d);
  const auto r = zarr::round_json_number(buffer, zarr::info(t).format);
  if (r.status != zarr::rounding_status::ok) return "ERROR";
  return hex_of(from_bits(t, r.bits));
}

const std::vector<data_type> narrow_float_types = {
    data_type::float4_e2m1fn, data_type::float6_e2m3fn, data_type::float6_e3m2fn, data_type::float8_e3m4,
    data_type::float8_e4m3, data_type::float8_e4m3b11fnuz, data_type::float8_e4m3fnuz, data_type::float8_e5m2,
    data_type::float8_e5m2fnuz, data_type::float8_e8m0fnu, data_type::bfloat16, data_type::float16,
    data_type::float32,
};

zarr::scalar float32(float f) { return zarr::scalar::of(data_type::float32, f); }

}  // namespace

BOOST_AUTO_TEST_SUITE(fill_value)

BOOST_AUTO_TEST_CASE(every_vector_row_parses_to_its_bits_or_an_error) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(zarr_test::data_dir() / "vectors" / "fill"))
    if (entry.path().extension() == ".csv") ++files;
  BOOST_TEST(files == rows_per_file.size());
  BOOST_TEST(rows_per_file.size() == 27u);

  std::size_t rows = 0;
  std::size_t mismatches = 0;
  for (const auto& [name, count] : rows_per_file) {
    const auto t = zarr::data_type_from_name(name);
    for (const auto& row : read_vectors(name)) {
      ++rows;
      const auto got = outcome(row.json, t);
      if (got != row.result && ++mismatches <= 20)
        BOOST_ERROR(name << " " << row.json.substr(0, 60) << ": expected " << row.result << ", got " << got);
    }
  }
  BOOST_TEST(rows == 21470u);
  BOOST_TEST(mismatches == 0u);
}

BOOST_AUTO_TEST_CASE(boost_json_values_agree_with_the_text_when_the_number_is_short) {
  // A double from Boost.JSON is read as its shortest decimal. That is right for every row
  // that is not a number, and for numbers of at most 15 significant digits that are not
  // traps, except where Boost.JSON 1.81 itself is off: it does not round every float64
  // correctly (4.84612888275684e+173 comes out one ulp low), and it reads -0 as the integer 0.
  std::size_t compared = 0;
  std::size_t mismatches = 0;
  for (const auto& [name, count] : rows_per_file) {
    const auto t = zarr::data_type_from_name(name);
    for (const auto& row : read_vectors(name)) {
      if (is_number(row.json) &&
          (row.trap || significant_digits(row.json) > 15 || t == data_type::float64 || row.json == "-0"))
        continue;
      ++compared;
      std::error_code ec;
      const json::value v = json::parse(row.json, ec);
      const auto got = ec ? std::string("ERROR") : outcome_of_value(v, t);  // 00e-1 is not JSON
      if (got != row.result && ++mismatches <= 20)
        BOOST_ERROR(name << " " << row.json.substr(0, 60) << ": expected " << row.result << ", got " << got);
    }
  }
  BOOST_TEST(compared > 10000u);
  BOOST_TEST(mismatches == 0u);
  // The float64 rows that Boost.JSON reads one ulp off, to show why the text route exists.
  BOOST_TEST(outcome("4.84612888275684e+173", data_type::float64) == "63ff59991a7f005a");
  BOOST_TEST(outcome_of_value(json::parse("4.84612888275684e+173"), data_type::float64) == "63ff59991a7f0059");
}

BOOST_AUTO_TEST_CASE(writes_every_value_of_the_vectors_shortest_and_reads_it_back) {
  std::size_t values = 0;
  for (const auto& [name, count] : rows_per_file) {
    const auto t = zarr::data_type_from_name(name);
    std::map<std::string, std::string> any_text;      // bits -> a row's JSON
    std::map<std::string, std::size_t> shortest;      // bits -> the shortest number row
    for (const auto& row : read_vectors(name)) {
      if (row.result == "ERROR") continue;
      any_text.emplace(row.result, row.json);
      if (!is_number(row.json)) continue;
      const auto [it, fresh] = shortest.emplace(row.result, row.json.size());
      if (!fresh) it->second = std::min(it->second, row.json.size());
    }
    for (const auto& [bits, text] : any_text) {
      ++values;
      const auto value = zarr::parse_fill_value_text(text, t);
      const std::string written = zarr::fill_value_to_json_text(value);
      BOOST_TEST(hex_of(zarr::parse_fill_value_text(written, t)) == bits, name << " " << bits << " written " << written);
      // -0 is written -0.0, longer than the vectors' -0 on purpose: Boost.JSON (like many
      // readers) takes -0 for the integer 0 and loses the sign.
      if (const auto s = shortest.find(bits); s != shortest.end() && written != "-0.0")
        BOOST_TEST(written.size() <= s->second, name << " " << bits << " written " << written);
      // The Boost.JSON value, directly and through its own serialization.
      const json::value v = zarr::fill_value_to_json(value);
      BOOST_TEST(hex_of(zarr::parse_fill_value(v, t)) == bits, name << " " << bits << " " << json::serialize(v));
      BOOST_TEST(hex_of(zarr::parse_fill_value_text(json::serialize(v), t)) == bits,
                 name << " " << bits << " " << json::serialize(v));
    }
  }
  BOOST_TEST(values > 3000u);
}

BOOST_AUTO_TEST_CASE(writes_every_bit_pattern_of_the_small_types_so_that_it_reads_back) {
  // Every pattern of the types of at most 8 bits; of the 16-bit types every 11th (floats) or
  // 257th (integers) one, to keep the sanitizer build quick.
  std::size_t patterns = 0;
  for (const auto& row : zarr::data_types) {
    if (row.bits > 16 || row.kind == zarr::dtype_kind::boolean || row.kind == zarr::dtype_kind::complex ||
        row.kind == zarr::dtype_kind::variable || row.kind == zarr::dtype_kind::sized)  // sized: sized.test.cpp
      continue;
    const std::uint64_t step = row.bits < 16 ? 1 : row.kind == zarr::dtype_kind::floating ? 11 : 257;
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << row.bits); b += step) {
      ++patterns;
      zarr::scalar v = from_bits(row.type, b);
      if (row.kind == zarr::dtype_kind::signed_integer && row.bits < 8 && (b >> (row.bits - 1)) != 0)
        v = from_bits(row.type, b | (~std::uint64_t{0} << row.bits));  // int2/int4 are sign-extended bytes
      const std::string text = zarr::fill_value_to_json_text(v);
      BOOST_TEST(zarr::parse_fill_value_text(text, row.type) == v, text);
      BOOST_TEST(zarr::parse_fill_value(zarr::fill_value_to_json(v), row.type) == v, text);
    }
  }
  BOOST_TEST(patterns == 16u + 2 * 64 + 7 * 256 + 2 * 5958 + 2 * 4 + 2 * 16 + 2 * 256 + 2 * 256 + 256);  // + float8_e4m3fn
}

BOOST_AUTO_TEST_CASE(writes_float32_and_float64_as_short_as_to_chars_and_as_strtod_reads_them) {
  // An independent check: std::to_chars gives the shortest round-trip digits of a float or
  // double, and std::from_chars reads a decimal correctly rounded.
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t b64 = next();
    const double d = std::bit_cast<double>(b64);
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(b64 >> 32));
    const auto v64 = zarr::scalar::of(data_type::float64, d);
    const auto v32 = zarr::scalar::of(data_type::float32, f);
    const std::string t64 = zarr::fill_value_to_json_text(v64);
    const std::string t32 = zarr::fill_value_to_json_text(v32);
    BOOST_TEST(zarr::parse_fill_value_text(t64, data_type::float64) == v64, t64);
    BOOST_TEST(zarr::parse_fill_value_text(t32, data_type::float32) == v32, t32);
    if (std::isfinite(d)) {
      double back = 0;
      std::from_chars(t64.data(), t64.data() + t64.size(), back);
      BOOST_TEST(std::bit_cast<std::uint64_t>(back) == b64, t64);
      char buffer[64];
      const auto end = std::to_chars(buffer, buffer + sizeof buffer, d).ptr;
      BOOST_TEST(t64.size() <= static_cast<std::size_t>(end - buffer) + (d == 0 && std::signbit(d) ? 2 : 0), t64);
    }
    if (std::isfinite(f)) {
      float back = 0;
      std::from_chars(t32.data(), t32.data() + t32.size(), back);
      BOOST_TEST(std::bit_cast<std::uint32_t>(back) == static_cast<std::uint32_t>(b64 >> 32), t32);
      char buffer[64];
      const auto end = std::to_chars(buffer, buffer + sizeof buffer, f).ptr;
      BOOST_TEST(t32.size() <= static_cast<std::size_t>(end - buffer) + (f == 0 && std::signbit(f) ? 2 : 0), t32);
    }
  }
}

BOOST_AUTO_TEST_CASE(rounds_double_rounding_traps_once) {
  for (const auto t : narrow_float_types) {
    std::size_t traps = 0;
    for (const auto& row : read_vectors(std::string(zarr::name(t)))) {
      if (!row.trap) continue;
      ++traps;
      BOOST_TEST(outcome(row.json, t) == row.result, zarr::name(t) << " " << row.json);
      // A real trap: the route through a double gets it wrong.
      BOOST_TEST(through_double(row.json, t) != row.result, zarr::name(t) << " " << row.json);
    }
    BOOST_TEST(traps >= 20u, zarr::name(t) << " has " << traps << " trap rows");
  }
  for (const auto t : {data_type::int64, data_type::uint64}) {
    std::size_t traps = 0;
    for (const auto& row : read_vectors(std::string(zarr::name(t))))
      if (row.trap) {
        ++traps;
        BOOST_TEST(outcome(row.json, t) == row.result, zarr::name(t) << " " << row.json);
      }
    BOOST_TEST(traps >= 20u);
  }
}

BOOST_AUTO_TEST_CASE(rounds_hand_picked_traps_once) {
  // Just below float32 max + half an ulp: a double rounds it onto the tie, which overflows.
  BOOST_TEST(outcome("3.4028235677973366e38", data_type::float32) == "7f7fffff");
  BOOST_TEST(outcome("340282356779733661637539395458142568448", data_type::float32) == "ERROR");
  // 1 + 2^-24 (the float32 tie above 1) plus 10^-30: a double drops the 10^-30, then the tie goes to even.
  BOOST_TEST(outcome("1.000000059604644775390625000000000001", data_type::float32) == "3f800001");
  BOOST_TEST(outcome("1.000000059604644775390625", data_type::float32) == "3f800000");
  // float8_e4m3: 0x1.0000000000001p-10 lies just above the tie between 0 and 2^-9.
  BOOST_TEST(outcome("0.0009765625000000001", data_type::float8_e4m3) == "01");
  BOOST_TEST(outcome("0.0009765625", data_type::float8_e4m3) == "00");
  BOOST_TEST(outcome("-0.0009765625", data_type::float8_e4m3) == "80");
  BOOST_TEST(outcome("247.99999999999999999999", data_type::float8_e4m3) == "77");
  BOOST_TEST(outcome("248", data_type::float8_e4m3) == "ERROR");
  // float8_e8m0fnu: ties go up; 1.5 * 2^-128 is the smallest value that reaches 2^-127.
  BOOST_TEST(outcome("1.5", data_type::float8_e8m0fnu) == "80");
  BOOST_TEST(outcome("3", data_type::float8_e8m0fnu) == "81");
  const std::string tie = "4.408103815583578154882762014583421291819995837895328205657818898544064722955226898193359375e-39";
  BOOST_TEST(outcome(tie, data_type::float8_e8m0fnu) == "00");  // 1.5 * 2^-128 exactly
  BOOST_TEST(outcome(tie.substr(0, 17) + "e-39", data_type::float8_e8m0fnu) == "ERROR");  // just below it
  BOOST_TEST(outcome("4.408103815583579e-39", data_type::float8_e8m0fnu) == "00");
  BOOST_TEST(outcome("2.938735877055719e-39", data_type::float8_e8m0fnu) == "ERROR");  // about 2^-128
}

// How long this takes is a benchmark's business, not a test's: a slow (digit by digit) parse
// shows as a time-out of the whole executable, never as a flaky assertion.
BOOST_AUTO_TEST_CASE(handles_huge_exponents_and_long_mantissas) {
  BOOST_TEST(outcome("1e99999", data_type::float64) == "ERROR");
  BOOST_TEST(outcome("1e-99999", data_type::float64) == "0000000000000000");
  BOOST_TEST(outcome("-1e-99999", data_type::float16) == "8000");
  BOOST_TEST(outcome("-1e-99999", data_type::float8_e4m3fnuz) == "00");
  BOOST_TEST(outcome("1e-99999", data_type::float8_e8m0fnu) == "ERROR");
  BOOST_TEST(outcome("1e999999999999999999999999999999", data_type::float32) == "ERROR");
  BOOST_TEST(outcome("0e999999999999999999999999999999", data_type::float32) == "00000000");
  BOOST_TEST(outcome("1e-999999999999999999999999999999", data_type::bfloat16) == "0000");
  // 200000 digits: only the first ones and whether the rest are zero matter.
  BOOST_TEST(outcome("1." + std::string(200000, '0') + "1", data_type::float64) == "3ff0000000000000");
  BOOST_TEST(outcome("0." + std::string(200000, '0') + "1e200001", data_type::float64) == "3ff0000000000000");
  BOOST_TEST(outcome("1.5" + std::string(200000, '0'), data_type::float4_e2m1fn) == "3");
  // The tie between float64 1 and its successor, exactly and with a 1 far beyond it.
  BOOST_TEST(outcome("1.00000000000000011102230246251565404236316680908203125", data_type::float64) == "3ff0000000000000");
  BOOST_TEST(outcome("1.00000000000000011102230246251565404236316680908203125" + std::string(3000, '0') + "1",
                     data_type::float64) == "3ff0000000000001");
}

BOOST_AUTO_TEST_CASE(negative_zero_keeps_its_sign_where_the_type_has_one) {
  BOOST_TEST(outcome("-0", data_type::float32) == "80000000");
  BOOST_TEST(outcome("-0.0", data_type::float64) == "8000000000000000");
  BOOST_TEST(outcome("-0.0", data_type::float8_e5m2fnuz) == "00");
  BOOST_TEST(outcome("-0.0", data_type::float8_e8m0fnu) == "ERROR");
  BOOST_TEST(outcome("-1e-30", data_type::float8_e5m2) == "80");
  BOOST_TEST(outcome("-0", data_type::int8) == "00");
  BOOST_TEST(zarr::fill_value_to_json_text(float32(-0.0f)) == "-0.0");
  BOOST_TEST(zarr::fill_value_to_json_text(float32(0.0f)) == "0");
  const json::value v = zarr::fill_value_to_json(float32(-0.0f));
  BOOST_TEST(v.is_double());
  BOOST_TEST(std::signbit(v.as_double()));
}

BOOST_AUTO_TEST_CASE(writes_canonical_forms) {
  BOOST_TEST(zarr::fill_value_to_json_text(float32(0.1f)) == "0.1");
  BOOST_TEST(zarr::fill_value_to_json_text(float32(1.0f)) == "1");
  BOOST_TEST(zarr::fill_value_to_json_text(float32(1e-7f)) == "1e-7");
  BOOST_TEST(zarr::fill_value_to_json_text(float32(3.4028234663852886e38f)) == "3.4028235e38");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float64, 5e-324)) == "5e-324");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float64, 1e22)) == "1e22");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float64, 0.3)) == "0.3");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float16, std::uint16_t{0x7bff})) == "65500");  // as short as 65504, fewer digits
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float16, std::uint16_t{0x7e00})) == "\"NaN\"");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float16, std::uint16_t{0x7e01})) == "\"0x7e01\"");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float16, std::uint16_t{0xfc00})) == "\"-Infinity\"");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float8_e4m3fnuz, std::uint8_t{0x80})) == "\"NaN\"");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float8_e8m0fnu, std::uint8_t{0xfe})) == "2e38");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float8_e8m0fnu, std::uint8_t{0x7f})) == "1");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float4_e2m1fn, std::uint8_t{0xf})) == "-6");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::int4, std::int8_t{-8})) == "-8");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::int64, INT64_MIN)) == "-9223372036854775808");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::uint64, UINT64_MAX)) == "18446744073709551615");
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::scalar::of(data_type::bool_, std::uint8_t{1})) == "true");
  BOOST_TEST(zarr::fill_value_to_json(zarr::scalar::of(data_type::uint64, UINT64_MAX)) == json::value(UINT64_MAX));
  BOOST_TEST(zarr::fill_value_to_json(zarr::scalar::of(data_type::int8, std::int8_t{-5})) == json::value(-5));
  BOOST_TEST(zarr::fill_value_to_json(zarr::scalar::of(data_type::bool_, std::uint8_t{0})) == json::value(false));
  BOOST_TEST(zarr::fill_value_to_json(float32(0.1f)) == json::value(0.1));
  BOOST_TEST(zarr::fill_value_to_json(float32(2.0f)) == json::value(2));
}

BOOST_AUTO_TEST_CASE(parses_and_writes_complex_values) {
  struct c64 { float re, im; };
  const auto v = zarr::parse_fill_value_text(R"([ 0.1 , "-Infinity" ])", data_type::complex64);
  BOOST_TEST(v.as<c64>().re == 0.1f);
  BOOST_TEST(v.as<c64>().im == -INFINITY);
  BOOST_TEST(zarr::fill_value_to_json_text(v) == R"([0.1,"-Infinity"])");
  BOOST_TEST(zarr::parse_fill_value(zarr::fill_value_to_json(v), data_type::complex64) == v);
  // A float32 trap in the imaginary part: read from the text, not from Boost.JSON's double.
  BOOST_TEST(zarr::parse_fill_value_text("[0, 3.4028235677973366e38]", data_type::complex64).as<c64>().im ==
             3.4028234663852886e38f);
  struct c128 { double re, im; };
  const auto w = zarr::parse_fill_value_text(R"(["0x7ff8000000000001", -0.0])", data_type::complex128);
  BOOST_TEST(w.as<c128>().im == 0.0);
  BOOST_TEST(std::signbit(w.as<c128>().im));
  BOOST_TEST(zarr::fill_value_to_json_text(w) == R"(["0x7ff8000000000001",-0.0])");
  BOOST_TEST(zarr::parse_fill_value(zarr::fill_value_to_json(w), data_type::complex128) == w);
  BOOST_TEST(zarr::fill_value_to_json(w) == json::parse(R"(["0x7ff8000000000001", -0.0])"));
  BOOST_TEST(zarr::fill_value_to_json_text(zarr::parse_fill_value(json::parse("[1, 2]"), data_type::complex128)) == "[1,2]");
}

BOOST_AUTO_TEST_CASE(rejects_bad_values_naming_where_and_the_json) {
  using zarr::errc;
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("1e3", data_type::int8, "codecs[0].configuration.offset"),
                   errc::invalid_value, "codecs[0].configuration.offset: expected an integer");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("1e3", data_type::int8), errc::invalid_value, "got 1e3");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("128", data_type::int8), errc::invalid_value, "from -128 to 127");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("128", data_type::int8), errc::invalid_value, "got 128");
  ZARR_CHECK_ERROR(zarr::parse_fill_value(json::value(-1), data_type::uint4, "fill_value"), errc::invalid_value,
                   "fill_value: expected an integer (no fraction, no exponent) from 0 to 15 for uint4, got -1");
  ZARR_CHECK_ERROR(zarr::parse_fill_value(json::value(1), data_type::bool_), errc::invalid_value,
                   "fill_value: expected true or false, got 1");
  ZARR_CHECK_ERROR(zarr::parse_fill_value(json::value("NaN"), data_type::float4_e2m1fn, "fill_value"),
                   errc::invalid_value, "it has no NaN and no infinity), got \"NaN\"");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text(R"("Infinity")", data_type::float8_e4m3fnuz, "x.scale"),
                   errc::invalid_value, "x.scale: expected a number, \"NaN\", or \"0x\"");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text(R"("Infinity")", data_type::float8_e4m3fnuz, "x.scale"),
                   errc::invalid_value, "got \"Infinity\"");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("1e400", data_type::float64), errc::invalid_value,
                   "fill_value: expected a number whose magnitude rounds to at most 1.7976931348623157e308, the "
                   "largest finite float64 (write \"Infinity\" or \"-Infinity\" for infinity), got 1e400");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("248", data_type::float8_e4m3), errc::invalid_value, "at most 240");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("31", data_type::float8_e4m3b11fnuz), errc::invalid_value,
                   "at most 30, the largest finite float8_e4m3b11fnuz, got 31");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("0", data_type::float8_e8m0fnu), errc::invalid_value,
                   "fill_value: expected a positive number that rounds to at least 2^-127 for float8_e8m0fnu, which has no zero, got 0");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text(R"("0x100")", data_type::float8_e5m2), errc::invalid_value,
                   "below 2^8 for float8_e5m2, got \"0x100\"");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("[1]", data_type::complex64, "fill_value"), errc::invalid_value,
                   "fill_value: expected [real, imaginary] for complex64, got [1]");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text(R"([1, "nan"])", data_type::complex64), errc::invalid_value,
                   "fill_value[1]: expected a number");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text(R"([1, "nan"])", data_type::complex64), errc::invalid_value,
                   "for float32, got \"nan\"");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("[1e39, 0]", data_type::complex64), errc::invalid_value,
                   "fill_value[0]: expected a number whose magnitude rounds to at most 3.4028235e38");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("1.", data_type::float32, "attributes.x"), errc::invalid_value,
                   "attributes.x: expected JSON, got 1.");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text(std::string(500, '7') + ".5", data_type::int64), errc::invalid_value,
                   "got " + std::string(77, '7') + "...");
}

BOOST_AUTO_TEST_CASE(default_fill_values_are_zero_or_one_for_e8m0) {
  for (const auto& row : zarr::data_types) {
    if (zarr::is_variable_length(row.type)) continue;  // no scalar: the empty string (strings.test.cpp)
    if (zarr::is_sized(row.type)) {  // zeros of the layout's size (sized.test.cpp checks structs field by field)
      const zarr::data_type_spec spec{row.type, {}, {4, nullptr, false}};
      if (row.type == data_type::struct_ || row.type == data_type::optional) continue;  // need fields (sized.test.cpp, optional.test.cpp)
      BOOST_TEST(zarr::sized_value_to_json_text(zarr::default_sized_fill_value(spec).bytes(), spec) ==
                 (row.type == data_type::raw_bits ? "[0,0,0,0]" : "\"\""));
      continue;
    }
    const auto v = zarr::default_fill_value(row.type);
    BOOST_TEST(v.type == row.type);
    const std::string expected = row.type == data_type::float8_e8m0fnu           ? "1"
                                 : row.type == data_type::complex_float8_e8m0fnu ? "[1,1]"
                                 : row.type == data_type::bool_                  ? "false"
                                 : row.kind == zarr::dtype_kind::complex         ? "[0,0]"
                                                                                 : "0";
    BOOST_TEST(zarr::fill_value_to_json_text(v) == expected, row.name);
  }
  BOOST_TEST(hex_of(zarr::default_fill_value(data_type::float8_e8m0fnu)) == "7f");
}

BOOST_AUTO_TEST_CASE(round_json_number_reports_why_a_number_does_not_fit) {
  const auto& e4m3 = zarr::info(data_type::float8_e4m3).format;
  const auto& e8m0 = zarr::info(data_type::float8_e8m0fnu).format;
  BOOST_TEST(zarr::round_json_number("-1.75", e4m3).bits == 0xbeu);
  BOOST_TEST((zarr::round_json_number("-1.75", e4m3).status == zarr::rounding_status::ok));
  BOOST_TEST((zarr::round_json_number("1e9", e4m3).status == zarr::rounding_status::overflow));
  BOOST_TEST((zarr::round_json_number("-2", e8m0).status == zarr::rounding_status::out_of_range));
  BOOST_TEST((zarr::round_json_number("1e-40", e8m0).status == zarr::rounding_status::out_of_range));
  for (const auto* bad : {"", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "1 ", "NaN", "--1", "1.5.5"})
    BOOST_TEST((zarr::round_json_number(bad, e4m3).status == zarr::rounding_status::not_a_number), bad);
}

BOOST_AUTO_TEST_CASE(json_source_text_cuts_values_out_of_a_document) {
  const std::string doc = R"( {"zarr_format": 3, "fill_value": 3.4028235677973366e38,
    "codecs": [{"name": "bytes"}, {"name": "scale_offset", "configuration": {"scale": 0.1, "offset": [1,  "NaN"]}}],
    "a/b": {"m~n": "x\"y"}, "s": "}]"} )";
  BOOST_TEST(zarr::json_source_text(doc, "/fill_value").value() == "3.4028235677973366e38");
  BOOST_TEST(zarr::json_source_text(doc, "/zarr_format").value() == "3");
  BOOST_TEST(zarr::json_source_text(doc, "/codecs/1/configuration/scale").value() == "0.1");
  BOOST_TEST(zarr::json_source_text(doc, "/codecs/1/configuration/offset").value() == R"([1,  "NaN"])");
  BOOST_TEST(zarr::json_source_text(doc, "/codecs/1/configuration/offset/1").value() == R"("NaN")");
  BOOST_TEST(zarr::json_source_text(doc, "/codecs/0").value() == R"({"name": "bytes"})");
  BOOST_TEST(zarr::json_source_text(doc, "/a~1b/m~0n").value() == R"("x\"y")");
  BOOST_TEST(zarr::json_source_text(doc, "/s").value() == R"("}]")");
  BOOST_TEST(zarr::json_source_text(doc, "").value() == zarr::json_source_text(doc, "").value());
  BOOST_TEST(zarr::json_source_text(doc, "").value().front() == '{');
  BOOST_TEST(!zarr::json_source_text(doc, "/codecs/2"));
  BOOST_TEST(!zarr::json_source_text(doc, "/codecs/01"));
  BOOST_TEST(!zarr::json_source_text(doc, "/missing"));
  BOOST_TEST(!zarr::json_source_text(doc, "/fill_value/0"));
  BOOST_TEST(!zarr::json_source_text(doc, "fill_value"));
  BOOST_TEST(!zarr::json_source_text("{\"a\": ", "/a"));
  // The exact route for a metadata reader.
  const auto v = zarr::parse_fill_value_text(*zarr::json_source_text(doc, "/fill_value"), data_type::float32);
  BOOST_TEST(hex_of(v) == "7f7fffff");
  // The text of a key with escapes is compared decoded.
  BOOST_TEST(zarr::json_source_text(R"({"\u0061": 1})", "/a").value() == "1");
}

BOOST_AUTO_TEST_SUITE_END()
