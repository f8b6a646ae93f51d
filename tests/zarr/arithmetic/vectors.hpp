// Reading the reference vectors (tests/data/README.md) for the arithmetic tests: whole files split in
// place, hex and hex-float fields, and the row count every file must have (so a truncated or
// skipped file fails).
#pragma once
#include <boost/test/unit_test.hpp>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>
#include "../../support.hpp"
import zarr.dtype;
import zarr.arithmetic;

namespace zarr_test {

// Data rows (without the header) of each vector file, from `wc -l` of the files in tests/data/vectors.tar.xz.
inline const std::map<std::string, std::size_t, std::less<>>& expected_rows() {
  static const std::map<std::string, std::size_t, std::less<>> rows{
      {"fp/arith_bfloat16.csv", 20000}, {"fp/arith_float16.csv", 20000}, {"fp/arith_float4_e2m1fn.csv", 256},
      {"fp/arith_float6_e2m3fn.csv", 4096}, {"fp/arith_float6_e3m2fn.csv", 4096}, {"fp/arith_float8_e3m4.csv", 65536},
      {"fp/arith_float8_e4m3.csv", 65536}, {"fp/arith_float8_e4m3b11fnuz.csv", 65536},
      {"fp/arith_float8_e4m3fnuz.csv", 65536}, {"fp/arith_float8_e5m2.csv", 65536},
      {"fp/arith_float8_e5m2fnuz.csv", 65536}, {"fp/arith_float8_e8m0fnu.csv", 65536},
      {"fp/decode_bfloat16.csv", 65536}, {"fp/decode_float16.csv", 65536}, {"fp/decode_float4_e2m1fn.csv", 16},
      {"fp/decode_float6_e2m3fn.csv", 64}, {"fp/decode_float6_e3m2fn.csv", 64}, {"fp/decode_float8_e3m4.csv", 256},
      {"fp/decode_float8_e4m3.csv", 256}, {"fp/decode_float8_e4m3b11fnuz.csv", 256},
      {"fp/decode_float8_e4m3fnuz.csv", 256}, {"fp/decode_float8_e5m2.csv", 256},
      {"fp/decode_float8_e5m2fnuz.csv", 256}, {"fp/decode_float8_e8m0fnu.csv", 256},
      {"fp/round_bfloat16.csv", 4493}, {"fp/round_float16.csv", 3245}, {"fp/round_float4_e2m1fn.csv", 2000},
      {"fp/round_float6_e2m3fn.csv", 2000}, {"fp/round_float6_e3m2fn.csv", 2000}, {"fp/round_float8_e3m4.csv", 2000},
      {"fp/round_float8_e4m3.csv", 2000}, {"fp/round_float8_e4m3b11fnuz.csv", 2093},
      {"fp/round_float8_e4m3fnuz.csv", 2093}, {"fp/round_float8_e5m2.csv", 2029},
      {"fp/round_float8_e5m2fnuz.csv", 2093}, {"fp/round_float8_e8m0fnu.csv", 2577},
      {"int/arith_int2.csv", 16}, {"int/arith_int4.csv", 256}, {"int/arith_uint2.csv", 16},
      {"int/arith_uint4.csv", 256}, {"int/decode_int2.csv", 4}, {"int/decode_int4.csv", 16},
      {"int/decode_uint2.csv", 4}, {"int/decode_uint4.csv", 16}, {"int/round_int2.csv", 400},
      {"int/round_int4.csv", 400}, {"int/round_uint2.csv", 400}, {"int/round_uint4.csv", 400},
      {"cast/bfloat16.csv", 10703}, {"cast/float16.csv", 7361}, {"cast/float32.csv", 10363},
      {"cast/float4_e2m1fn.csv", 7100}, {"cast/float64.csv", 4522}, {"cast/float6_e2m3fn.csv", 7048},
      {"cast/float6_e3m2fn.csv", 7083}, {"cast/float8_e3m4.csv", 6858}, {"cast/float8_e4m3.csv", 7123},
      {"cast/float8_e4m3b11fnuz.csv", 6979}, {"cast/float8_e4m3fnuz.csv", 7219}, {"cast/float8_e5m2.csv", 7382},
      {"cast/float8_e5m2fnuz.csv", 7445}, {"cast/float8_e8m0fnu.csv", 7798}, {"cast/int16.csv", 4981},
      {"cast/int2.csv", 5511}, {"cast/int32.csv", 4985}, {"cast/int4.csv", 5528}, {"cast/int64.csv", 4928},
      {"cast/int8.csv", 6184}, {"cast/uint16.csv", 4985}, {"cast/uint2.csv", 5517}, {"cast/uint32.csv", 4986},
      {"cast/uint4.csv", 5530}, {"cast/uint64.csv", 4927}, {"cast/uint8.csv", 6177},
  };
  return rows;
}

// A vector file read whole; rows and fields are views into `text`.
struct table {
  std::string text;
  std::vector<std::string_view> header;
  std::vector<std::vector<std::string_view>> rows;
};

inline std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  for (;;) {
    const auto comma = line.find(',');
    fields.push_back(line.substr(0, comma));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

// Reads vectors/<name> of the test data and requires its expected row count and a consistent width.
inline table read_vectors(const std::string& name) {
  table t;
  const auto path = data_dir() / "vectors" / name;
  std::ifstream in(path, std::ios::binary);
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << path);
  std::ostringstream ss;
  ss << in.rdbuf();
  t.text = ss.str();
  std::string_view rest(t.text);
  bool first = true;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const auto line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (line.empty()) continue;
    if (first) {
      t.header = split(line);
      first = false;
    } else {
      t.rows.push_back(split(line));
      if (t.rows.back().size() != t.header.size()) BOOST_FAIL(name << ": ragged line " << line);
    }
  }
  const auto expected = expected_rows().find(name);
  BOOST_TEST_REQUIRE((expected != expected_rows().end()), "no expected row count for " << name);
  BOOST_TEST_REQUIRE(t.rows.size() == expected->second, name << " has " << t.rows.size() << " rows");
  return t;
}

inline std::uint64_t hex_bits(std::string_view s) {
  std::uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) BOOST_FAIL("bad hex field " << s);
  return v;
}

// C99 %a (shortest form), nan, -nan, inf, -inf.
inline double hex_double(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  double v = 0;
  if (s == "nan") {
    v = std::nan("");
  } else if (s == "inf") {
    v = INFINITY;
  } else {
    if (s.substr(0, 2) != "0x") BOOST_FAIL("bad hex float " << s);
    s.remove_prefix(2);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::hex);
    if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) BOOST_FAIL("bad hex float " << s);
  }
  return negative ? -v : v;
}
inline std::uint64_t double_bits(double d) { return std::bit_cast<std::uint64_t>(d); }

template <class T>
T decimal(std::string_view s) {
  T v{};
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) BOOST_FAIL("bad integer " << s);
  return v;
}

// Does `r` match an expected cell: hex bits, NaN, OUT_OF_RANGE, INVALID (or U, any error)?
inline bool matches(zarr::data_type t, const zarr::numeric_result& r, std::string_view cell) {
  if (cell == "NaN") return r.ok() && zarr::decode(t, r.bits).kind == zarr::value_class::nan;
  if (cell == "OUT_OF_RANGE") return zarr::is_out_of_range(r.error);
  if (cell == "INVALID") return r.error == zarr::numeric_errc::invalid;
  if (cell == "U") return !r.ok();
  return r.ok() && r.bits == hex_bits(cell);
}

inline const char* vector_types_fp[] = {"float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
                                        "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2",
                                        "float8_e5m2fnuz", "float8_e8m0fnu", "bfloat16", "float16"};
inline const char* vector_types_int[] = {"int2", "int4", "uint2", "uint4"};

}  // namespace zarr_test

namespace zarr {
inline std::ostream& operator<<(std::ostream& os, numeric_errc c) { return os << to_string(c); }
}  // namespace zarr
