// zarr.arithmetic: the throwing layer over the noexcept core (every message reads
// "<where>: expected <what>, got <actual>"), and the names of cast_value's rounding and
// out_of_range options (zarr-extensions codecs/cast_value "rounding", "out_of_range").
module;
#include <charconv>
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

}  // namespace zarr
