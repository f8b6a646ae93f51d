// zarr.arithmetic: the throwing layer over the noexcept core (every message reads
// "<where>: expected <what>, got <actual>"), and the names of cast_value's rounding and
// out_of_range options (zarr-extensions codecs/cast_value "rounding", "out_of_range").
module;
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
module zarr.arithmetic;

namespace zarr {

rounding_mode parse_rounding_mode(std::string_view name, std::string_view where) {
  if (const auto m = rounding_mode_from_name(name)) return *m;
  throw error(errc::invalid_metadata,
              std::string(where) +
                  ": expected one of \"nearest-even\", \"towards-zero\", \"towards-positive\", \"towards-negative\", "
                  "\"nearest-away\", got \"" + std::string(name) + "\"");
}

out_of_range_mode parse_out_of_range_mode(std::string_view name, std::string_view where) {
  if (const auto m = out_of_range_mode_from_name(name)) return *m;
  throw error(errc::invalid_metadata,
              std::string(where) + ": expected \"clamp\" or \"wrap\", got \"" + std::string(name) + "\"");
}

std::string format_value(data_type t, std::uint64_t bits) {
  const auto& i = info(t);
  if (i.kind == dtype_kind::signed_integer) return std::to_string(sign_extend(bits, i.bits));
  if (i.kind == dtype_kind::unsigned_integer) return std::to_string(bits & arith_detail::low_mask(i.bits));
  if (!is_float(t)) return "0x" + std::to_string(bits);
  const exact_value v = decode(t, bits);
  if (v.kind == value_class::nan) return "NaN";
  if (v.kind == value_class::infinite) return v.negative ? "-Infinity" : "Infinity";
  char buf[64];
  // float32 prints its own shortest form; every smaller format's values print exactly.
  const auto r = t == data_type::float32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(to_double(v)))
                                         : std::to_chars(buf, buf + sizeof buf, to_double(v));
  return std::string(buf, r.ptr);
}

namespace {
std::string expectation(data_type t, numeric_errc c) {
  switch (c) {
    case numeric_errc::positive_overflow:
    case numeric_errc::negative_overflow: return "a result within the range of " + std::string(name(t));
    case numeric_errc::underflow: return "a result of at least 2^-127 (the smallest float8_e8m0fnu)";
    case numeric_errc::nonpositive: return "a positive result (float8_e8m0fnu has no zero and no sign)";
    case numeric_errc::invalid: return "a number";
    case numeric_errc::division_by_zero: return "a non-zero divisor";
    case numeric_errc::inexact_division: return "an exact quotient";
    case numeric_errc::none: break;
  }
  return "a value";
}
}  // namespace

void throw_arithmetic_error(data_type t, arith_op op, std::uint64_t a, std::uint64_t b, const numeric_result& r) {
  std::string got(to_string(r.error));
  if (r.error == numeric_errc::inexact_division) {
    const auto rem = arithmetic(t, arith_op::subtract, a, arithmetic(t, arith_op::multiply, r.bits, b).bits);
    got = format_value(t, r.bits) + " remainder " + format_value(t, rem.bits);
  } else if (r.error == numeric_errc::invalid) {
    got = "NaN (invalid operation)";
  }
  throw error(to_errc(r.error), std::string(name(t)) + " " + format_value(t, a) + " " + std::string(symbol(op)) + " " +
                                    format_value(t, b) + ": expected " + expectation(t, r.error) + ", got " + got);
}

std::uint64_t checked_arithmetic(data_type t, arith_op op, std::uint64_t a, std::uint64_t b) {
  const auto r = arithmetic(t, op, a, b);
  if (!r.ok()) throw_arithmetic_error(t, op, a, b, r);
  return r.bits;
}

void throw_cast_error(data_type from, std::uint64_t bits, data_type to, const numeric_result& r, std::string_view where) {
  const std::string value = format_value(from, bits) + " (" + std::string(name(from)) + ")";
  std::string what;
  switch (r.error) {
    case numeric_errc::invalid:
      what = "a finite number representable in " + std::string(name(to));
      break;
    case numeric_errc::nonpositive:
    case numeric_errc::underflow:
      what = "a value within the range of float8_e8m0fnu [2^-127, 2^127]";
      break;
    default:
      what = "a value within the range of " + std::string(name(to));
  }
  throw error(to_errc(r.error), std::string(where) + ": expected " + what + ", got " + value + ": " +
                                    std::string(to_string(r.error)));
}

std::uint64_t checked_cast(data_type from, std::uint64_t bits, data_type to, rounding_mode mode,
                           out_of_range_mode oor, std::string_view where) {
  const auto r = cast(from, bits, to, mode, oor);
  if (!r.ok()) throw_cast_error(from, bits, to, r, where);
  return r.bits;
}

double numpy_half_to_double(std::uint16_t h) noexcept {
  const std::uint64_t sign = static_cast<std::uint64_t>(h & 0x8000u) << 48;
  const unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return std::bit_cast<double>(sign | 0x7ff0000000000000ull | (static_cast<std::uint64_t>(m) << 42));
  if (e == 0) return (sign != 0 ? -1.0 : 1.0) * std::ldexp(static_cast<double>(m), -24);  // exact
  return std::bit_cast<double>(sign | (static_cast<std::uint64_t>(e - 15 + 1023) << 52) | (static_cast<std::uint64_t>(m) << 42));
}

std::uint16_t numpy_double_to_half(double x) noexcept {
  const auto d = std::bit_cast<std::uint64_t>(x);
  const auto sign = static_cast<std::uint16_t>((d >> 48) & 0x8000u);
  const std::uint64_t a = d & 0x7fffffffffffffffull;
  if (a > 0x7ff0000000000000ull) {
    auto m = static_cast<std::uint16_t>(0x7c00u | ((a & 0x000fffffffffffffull) >> 42));
    if (m == 0x7c00u) m = 0x7c01u;
    return static_cast<std::uint16_t>(sign | m);
  }
  if (a >= 0x40effe0000000000ull) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: infinity
  if (a <= 0x3e60000000000000ull) return sign;                                        // <= 2^-25: zero
  const int e = static_cast<int>(a >> 52) - 1023;
  const std::uint64_t m = (a & 0x000fffffffffffffull) | (std::uint64_t{1} << 52);
  // The half's bits before rounding, and the number of the double's significand bits dropped.
  int shift = 42;
  std::uint64_t h = (static_cast<std::uint64_t>(e + 15) << 10) + ((m >> 42) & 0x3ffu);
  if (e < -14) {  // subnormal: units of 2^-24
    shift = 28 - e;
    h = m >> shift;
  }
  const std::uint64_t rest = m & ((std::uint64_t{1} << shift) - 1), tie = std::uint64_t{1} << (shift - 1);
  if (rest > tie || (rest == tie && (h & 1) != 0)) ++h;  // a carry moves into the exponent
  return static_cast<std::uint16_t>(sign | h);
}

}  // namespace zarr
