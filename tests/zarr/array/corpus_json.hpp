// The JSON form of array elements used by the interop corpus (tests/data/README.md
// "The JSON form"), for comparing what we read with what another implementation wrote.
#pragma once
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
import zarr.dtype;

namespace zarr_test {
namespace json = boost::json;

// An independent decoding of IEEE half precision, for the comparison only.
inline double half_to_double(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1f) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

// The corpus' JSON form of one element (tests/data/README.md "The JSON form").
inline json::value element_json(zarr::data_type t, const std::byte* p) {
  using zarr::data_type;
  const auto load = [&]<class T>(T) { T v; std::memcpy(&v, p, sizeof v); return v; };
  const auto real = [](double d) -> json::value {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    if (d == 0 && std::signbit(d)) return "-0.0";
    return d;
  };
  switch (t) {
    case data_type::bool_: return load(std::uint8_t{}) != 0;
    case data_type::int8: return load(std::int8_t{});
    case data_type::int16: return load(std::int16_t{});
    case data_type::int32: return load(std::int32_t{});
    case data_type::int64: return json::string(std::to_string(load(std::int64_t{})));
    case data_type::uint8: return load(std::uint8_t{});
    case data_type::uint16: return load(std::uint16_t{});
    case data_type::uint32: return load(std::uint32_t{});
    case data_type::uint64: return json::string(std::to_string(load(std::uint64_t{})));
    case data_type::float16: return real(half_to_double(load(std::uint16_t{})));
    case data_type::float32: return real(load(float{}));
    case data_type::float64: return real(load(double{}));
    default: BOOST_FAIL("the corpus has no " << zarr::name(t)); return nullptr;
  }
}

inline bool same(const json::value& expected, const json::value& got) {
  if (expected.is_number() && got.is_number()) return expected.to_number<double>() == got.to_number<double>();
  return expected == got;
}

}  // namespace zarr_test
