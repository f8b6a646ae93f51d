// zarr.arithmetic: exact values of every numeric data type, rounding them once to any numeric
// type under cast_value's five rounding modes and out_of_range options (zarr-extensions codecs/cast_value;
// docs/decisions.md 7-12, 14-17), the small-float and sub-byte
// integer value types, and checked + - * / in every numeric type.
module;
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
export module zarr.arithmetic;

export import zarr.dtype;
export import zarr.error;

export namespace zarr {

// ---------------------------------------------------------------- modes and results

// cast_value's `rounding` (JSON names "nearest-even", "towards-zero", ...).
enum class rounding_mode : std::uint8_t { nearest_even, towards_zero, towards_positive, towards_negative, nearest_away };
// cast_value's `out_of_range`: absent (error), "clamp" or "wrap" (integer targets only).
enum class out_of_range_mode : std::uint8_t { error, clamp, wrap };

[[nodiscard]] constexpr std::string_view to_string(rounding_mode m) noexcept {
  switch (m) {
    case rounding_mode::nearest_even: return "nearest-even";
    case rounding_mode::towards_zero: return "towards-zero";
    case rounding_mode::towards_positive: return "towards-positive";
    case rounding_mode::towards_negative: return "towards-negative";
    case rounding_mode::nearest_away: return "nearest-away";
  }
  return "?";
}
// "error" stands for the absent JSON key.
[[nodiscard]] constexpr std::string_view to_string(out_of_range_mode m) noexcept {
  switch (m) {
    case out_of_range_mode::error: return "error";
    case out_of_range_mode::clamp: return "clamp";
    case out_of_range_mode::wrap: return "wrap";
  }
  return "?";
}
// The JSON names; std::nullopt for anything else (names are case-sensitive).
[[nodiscard]] constexpr std::optional<rounding_mode> rounding_mode_from_name(std::string_view name) noexcept {
  for (auto m : {rounding_mode::nearest_even, rounding_mode::towards_zero, rounding_mode::towards_positive,
                 rounding_mode::towards_negative, rounding_mode::nearest_away})
    if (to_string(m) == name) return m;
  return std::nullopt;
}
// "clamp" or "wrap" (the absent key is out_of_range_mode::error and has no name).
[[nodiscard]] constexpr std::optional<out_of_range_mode> out_of_range_mode_from_name(std::string_view name) noexcept {
  if (name == "clamp") return out_of_range_mode::clamp;
  if (name == "wrap") return out_of_range_mode::wrap;
  return std::nullopt;
}
// Throwing forms for metadata: zarr::error (invalid_metadata) naming `where` and the text.
[[nodiscard]] rounding_mode parse_rounding_mode(std::string_view name, std::string_view where = "rounding");
[[nodiscard]] out_of_range_mode parse_out_of_range_mode(std::string_view name, std::string_view where = "out_of_range");

// Why a value could not be produced. Casts give the first five; arithmetic all of them.
enum class numeric_errc : std::uint8_t {
  none,
  positive_overflow,  // above the target's largest finite value (integers: above max)
  negative_overflow,  // below the most negative finite value (integers: below min)
  underflow,          // float8_e8m0fnu: a positive value that rounds below 2^-127
  nonpositive,        // float8_e8m0fnu: zero or a negative value
  invalid,            // NaN or infinity into a type without them; NaN from non-NaN operands
  division_by_zero,   // x / 0, also 0/0 and Inf/0
  inexact_division,   // integer division with a remainder (bits hold the truncated quotient)
};

[[nodiscard]] constexpr std::string_view to_string(numeric_errc c) noexcept {
  switch (c) {
    case numeric_errc::none: return "no error";
    case numeric_errc::positive_overflow: return "positive overflow";
    case numeric_errc::negative_overflow: return "negative overflow";
    case numeric_errc::underflow: return "underflow below 2^-127";
    case numeric_errc::nonpositive: return "a value <= 0";
    case numeric_errc::invalid: return "invalid operation";
    case numeric_errc::division_by_zero: return "division by zero";
    case numeric_errc::inexact_division: return "inexact division";
  }
  return "?";
}
// Out of range: what clamp and wrap can rescue.
[[nodiscard]] constexpr bool is_out_of_range(numeric_errc c) noexcept {
  return c == numeric_errc::positive_overflow || c == numeric_errc::negative_overflow ||
         c == numeric_errc::underflow || c == numeric_errc::nonpositive;
}
// The zarr::errc the throwing layer uses: out_of_range for range errors, else invalid_value.
[[nodiscard]] constexpr errc to_errc(numeric_errc c) noexcept {
  return is_out_of_range(c) ? errc::out_of_range : errc::invalid_value;
}

// The raw bits of a value of the target type (masked to its width; two's complement for
// signed integers), or why there is none. `inexact`: rounding changed the value.
struct numeric_result {
  std::uint64_t bits = 0;
  numeric_errc error = numeric_errc::none;
  bool inexact = false;
  [[nodiscard]] constexpr bool ok() const noexcept { return error == numeric_errc::none; }
  friend constexpr bool operator==(const numeric_result&, const numeric_result&) = default;
};

// ---------------------------------------------------------------- exact values

enum class value_class : std::uint8_t { finite, infinite, nan };

// (-1)^negative * magnitude * 2^exponent, exactly: holds every value of every numeric data
// type (every double, every int64 and uint64). `sticky` says the true magnitude is a little
// above (strictly between magnitude and magnitude + 1, times 2^exponent); a caller that sets
// it must give at least two more significant bits than the target keeps (64 bits always do,
// for targets other than 64-bit integers).
struct exact_value {
  value_class kind = value_class::finite;
  bool negative = false;
  std::uint64_t magnitude = 0;
  int exponent = 0;
  bool sticky = false;

  [[nodiscard]] static constexpr exact_value nan(bool negative = false) noexcept {
    return {value_class::nan, negative, 0, 0, false};
  }
  [[nodiscard]] static constexpr exact_value infinity(bool negative = false) noexcept {
    return {value_class::infinite, negative, 0, 0, false};
  }
  [[nodiscard]] static constexpr exact_value from_uint(std::uint64_t v) noexcept { return {value_class::finite, false, v, 0, false}; }
  [[nodiscard]] static constexpr exact_value from_int(std::int64_t v) noexcept {
    return {value_class::finite, v < 0, v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v), 0, false};
  }
  [[nodiscard]] static constexpr exact_value from_double(double v) noexcept;
  [[nodiscard]] constexpr bool is_zero() const noexcept { return kind == value_class::finite && magnitude == 0 && !sticky; }
};

// ---------------------------------------------------------------- the rounding core

namespace arith_detail {
constexpr std::uint64_t low_mask(int bits) noexcept {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}
struct rounded {
  std::uint64_t q;
  bool inexact;
};
// magnitude * 2^-shift rounded to an integer under `mode` (the sign picks directed modes).
constexpr rounded shift_round(std::uint64_t m, int shift, bool sticky, bool negative, rounding_mode mode) noexcept {
  std::uint64_t q = 0;
  bool half = false, rest = sticky;
  if (shift <= 0) {
    q = m << -shift;  // exact (callers keep it in range)
  } else if (shift > 64) {
    rest = rest || m != 0;
  } else if (shift == 64) {
    half = (m >> 63) != 0;
    rest = rest || (m << 1) != 0;
  } else {
    q = m >> shift;
    half = ((m >> (shift - 1)) & 1) != 0;
    rest = rest || (m & low_mask(shift - 1)) != 0;
  }
  bool up = false;
  switch (mode) {
    case rounding_mode::nearest_even: up = half && (rest || (q & 1) != 0); break;
    case rounding_mode::nearest_away: up = half; break;
    case rounding_mode::towards_zero: up = false; break;
    case rounding_mode::towards_positive: up = !negative && (half || rest); break;
    case rounding_mode::towards_negative: up = negative && (half || rest); break;
  }
  return {q + (up ? 1 : 0), half || rest};
}
constexpr numeric_result fail(numeric_errc code, out_of_range_mode oor, std::uint64_t clamp_bits, bool inexact) noexcept {
  if (oor == out_of_range_mode::clamp) return {clamp_bits, numeric_errc::none, true};
  return {0, code, inexact};
}
constexpr float_format float64_format{11, 52, 1023, float_specials::ieee};
}  // namespace arith_detail

// The value of bits `bits` in format `f` (upper bits beyond the format's width are ignored).
[[nodiscard]] constexpr exact_value decode_float(const float_format& f, std::uint64_t bits) noexcept {
  bits &= arith_detail::low_mask(f.bits());
  const int m_bits = f.mantissa_bits;
  const std::uint64_t sign = f.sign_mask();
  const bool negative = (bits & sign) != 0;
  const std::uint64_t magnitude = bits & ~sign;
  const std::uint64_t e_field = magnitude >> m_bits;
  const std::uint64_t mantissa = magnitude & arith_detail::low_mask(m_bits);
  const std::uint64_t e_all = arith_detail::low_mask(f.exponent_bits);
  switch (f.specials) {
    case float_specials::ieee:
      if (e_field == e_all) return mantissa == 0 ? exact_value::infinity(negative) : exact_value::nan(negative);
      break;
    case float_specials::fnuz:
      if (bits == sign) return exact_value::nan();
      break;
    case float_specials::e8m0:
      if (e_field == e_all) return exact_value::nan();
      return {value_class::finite, false, 1, static_cast<int>(e_field) - f.bias, false};
    case float_specials::fn_nan:
      if (magnitude == f.canonical_nan()) return exact_value::nan(negative);
      break;
    case float_specials::fn: break;
  }
  if (e_field == 0) return {value_class::finite, negative, mantissa, 1 - f.bias - m_bits, false};
  return {value_class::finite, negative, mantissa | (std::uint64_t{1} << m_bits),
          static_cast<int>(e_field) - f.bias - m_bits, false};
}

constexpr exact_value exact_value::from_double(double v) noexcept {
  return decode_float(arith_detail::float64_format, std::bit_cast<std::uint64_t>(v));
}

// Rounds `v` once to format `f`, on the grid unbounded above with gradual underflow below
// (float8_e8m0fnu: unbounded below too), then applies the range rules. `wrap` counts as
// `error` here (docs/decisions.md 7 rejects it for float targets at metadata time).
[[nodiscard]] constexpr numeric_result round_to_float(const float_format& f, const exact_value& v,
                                                      rounding_mode mode = rounding_mode::nearest_even,
                                                      out_of_range_mode oor = out_of_range_mode::error) noexcept {
  using namespace arith_detail;
  const bool e8m0 = f.specials == float_specials::e8m0;
  const bool fnuz = f.specials == float_specials::fnuz;
  const std::uint64_t sign = v.negative ? f.sign_mask() : 0;
  if (oor == out_of_range_mode::wrap) oor = out_of_range_mode::error;
  if (v.kind == value_class::nan) {
    if (!f.has_nan()) return {0, numeric_errc::invalid, false};
    const bool signed_nan = f.specials == float_specials::ieee || f.specials == float_specials::fn_nan;
    return {f.canonical_nan() | (signed_nan ? sign : 0), numeric_errc::none, false};
  }
  if (v.kind == value_class::infinite) {
    if (!f.has_infinity()) return {0, numeric_errc::invalid, false};
    return {f.infinity() | sign, numeric_errc::none, false};
  }
  if (e8m0 && (v.negative || v.is_zero())) return fail(numeric_errc::nonpositive, oor, 0, true);
  const std::uint64_t overflow_clamp = (f.has_infinity() ? f.infinity() : f.max_finite()) | sign;
  const numeric_errc overflow = v.negative ? numeric_errc::negative_overflow : numeric_errc::positive_overflow;
  if (v.magnitude == 0 && !v.sticky) return {fnuz ? 0 : sign, numeric_errc::none, false};
  if (v.magnitude == 0) {  // only sticky bits: a positive amount below every grid step
    exact_value tiny = v;
    tiny.magnitude = 1;
    tiny.exponent = -100000;
    return round_to_float(f, tiny, mode, oor);
  }
  const int m_bits = f.mantissa_bits;
  const int k = static_cast<int>(std::bit_width(v.magnitude)) - 1 + v.exponent;  // v in [2^k, 2^(k+1))
  const int emin = 1 - f.bias;
  const int quantum = e8m0 ? k : (k > emin ? k : emin) - m_bits;
  auto [q, inexact] = shift_round(v.magnitude, quantum - v.exponent, v.sticky, v.negative, mode);
  int exp = quantum;
  if (q == 0) return {fnuz ? 0 : sign, numeric_errc::none, inexact};
  if ((q >> (m_bits + 1)) != 0) {  // the rounding carried into the next binade
    q >>= 1;
    ++exp;
  }
  std::uint64_t magnitude_bits = 0;
  if (e8m0) {
    const int e = exp + f.bias;
    if (e < 0) return fail(numeric_errc::underflow, oor, 0, inexact);
    if (e > 254) return fail(overflow, oor, f.max_finite(), inexact);
    magnitude_bits = static_cast<std::uint64_t>(e);
  } else if ((q >> m_bits) == 0) {
    magnitude_bits = q;  // subnormal: exp == emin - m_bits
  } else {
    const long e = static_cast<long>(exp) + m_bits + f.bias;
    if (e > static_cast<long>(low_mask(f.exponent_bits))) return fail(overflow, oor, overflow_clamp, inexact);
    magnitude_bits = (static_cast<std::uint64_t>(e) << m_bits) | (q & low_mask(m_bits));
    if (magnitude_bits > f.max_finite()) return fail(overflow, oor, overflow_clamp, inexact);
  }
  return {magnitude_bits | sign, numeric_errc::none, inexact};
}

// Rounds `v` to an integer of `bits` bits (2 to 64), then applies the range rules; `wrap`
// reduces the rounded integer modulo 2^bits.
[[nodiscard]] constexpr numeric_result round_to_integer(int bits, bool is_signed, const exact_value& v,
                                                        rounding_mode mode = rounding_mode::nearest_even,
                                                        out_of_range_mode oor = out_of_range_mode::error) noexcept {
  using namespace arith_detail;
  if (v.kind != value_class::finite) return {0, numeric_errc::invalid, false};
  std::uint64_t q = 0;  // the rounded magnitude, modulo 2^64 when `huge`
  bool huge = false, inexact = false;
  if (v.magnitude == 0) {
    const auto r = shift_round(0, 1, v.sticky, v.negative, mode);
    q = r.q;
    inexact = r.inexact;
  } else if (v.exponent >= 0) {
    huge = v.exponent >= 64 || (v.exponent > 0 && (v.magnitude >> (64 - v.exponent)) != 0);
    q = v.exponent >= 64 ? 0 : v.magnitude << v.exponent;
  } else {
    const auto r = shift_round(v.magnitude, -v.exponent, v.sticky, v.negative, mode);
    q = r.q;
    inexact = r.inexact;
  }
  const std::uint64_t mask = low_mask(bits);
  const std::uint64_t wrapped = (v.negative ? 0 - q : q) & mask;
  const std::uint64_t max = is_signed ? low_mask(bits - 1) : mask;
  bool above = false, below = false;
  if (!v.negative || (q == 0 && !huge)) {
    above = huge || q > max;
  } else {
    below = huge || (is_signed ? q > max + 1 : true);
  }
  if (!above && !below) return {wrapped, numeric_errc::none, inexact};
  if (oor == out_of_range_mode::wrap) return {wrapped, numeric_errc::none, true};
  const std::uint64_t min_bits = is_signed ? (max + 1) & mask : 0;
  return fail(above ? numeric_errc::positive_overflow : numeric_errc::negative_overflow, oor,
              above ? max : min_bits, inexact);
}

// The cast_value types: the integers and floats of the registry (not bool, not complex).
[[nodiscard]] constexpr bool is_numeric(data_type t) noexcept { return is_integer(t) || is_float(t); }

// Rounds `v` once to `target` (any numeric type). bool and complex targets give `invalid`.
[[nodiscard]] constexpr numeric_result round_to(data_type target, const exact_value& v,
                                                rounding_mode mode = rounding_mode::nearest_even,
                                                out_of_range_mode oor = out_of_range_mode::error) noexcept {
  const auto& i = info(target);
  if (is_integer(target)) return round_to_integer(i.bits, i.kind == dtype_kind::signed_integer, v, mode, oor);
  if (is_float(target)) return round_to_float(i.format, v, mode, oor);
  return {0, numeric_errc::invalid, false};
}

// The exact value of raw bits of a numeric type (integers: two's complement of `bits` bits).
[[nodiscard]] constexpr exact_value decode(data_type t, std::uint64_t bits) noexcept {
  const auto& i = info(t);
  if (is_float(t)) return decode_float(i.format, bits);
  bits &= arith_detail::low_mask(i.bits);
  if (i.kind == dtype_kind::signed_integer && i.bits < 64 && ((bits >> (i.bits - 1)) & 1) != 0)
    return {value_class::finite, true, (0 - bits) & arith_detail::low_mask(i.bits), 0, false};
  if (i.kind == dtype_kind::signed_integer && i.bits == 64) return exact_value::from_int(static_cast<std::int64_t>(bits));
  return exact_value::from_uint(bits);
}

// The value as a double: exact for every type but int64/uint64 beyond 2^53 (rounded to nearest-even).
[[nodiscard]] constexpr double to_double(const exact_value& v) noexcept {
  return std::bit_cast<double>(round_to_float(arith_detail::float64_format, v).bits);
}
[[nodiscard]] constexpr double to_double(data_type t, std::uint64_t bits) noexcept { return to_double(decode(t, bits)); }

// cast_value without scalar_map: the raw bits of `from` converted to `to` (both numeric).
[[nodiscard]] constexpr numeric_result cast(data_type from, std::uint64_t bits, data_type to,
                                            rounding_mode mode = rounding_mode::nearest_even,
                                            out_of_range_mode oor = out_of_range_mode::error) noexcept {
  return round_to(to, decode(from, bits), mode, oor);
}

// Signed integer raw bits (masked to `bits`) sign-extended to int64.
[[nodiscard]] constexpr std::int64_t sign_extend(std::uint64_t raw, int bits) noexcept {
  if (bits >= 64) return static_cast<std::int64_t>(raw);
  const std::uint64_t m = std::uint64_t{1} << (bits - 1);
  raw &= arith_detail::low_mask(bits);
  return static_cast<std::int64_t>((raw ^ m) - m);
}

// ---------------------------------------------------------------- checked arithmetic

enum class arith_op : std::uint8_t { add, subtract, multiply, divide };
[[nodiscard]] constexpr std::string_view symbol(arith_op op) noexcept {
  switch (op) {
    case arith_op::add: return "+";
    case arith_op::subtract: return "-";
    case arith_op::multiply: return "*";
    case arith_op::divide: return "/";
  }
  return "?";
}

namespace arith_detail {
constexpr double apply(arith_op op, double a, double b) noexcept {
  switch (op) {
    case arith_op::add: return a + b;
    case arith_op::subtract: return a - b;
    case arith_op::multiply: return a * b;
    case arith_op::divide: return a / b;
  }
  return 0;
}
constexpr bool is_nan(double x) noexcept { return x != x; }
constexpr bool is_inf(double x) noexcept { return (std::bit_cast<std::uint64_t>(x) & ~(std::uint64_t{1} << 63)) == 0x7ff0000000000000; }

// Formats of at most 32 bits: double holds 2p+2 bits of each, so computing in double and
// rounding once more gives the exactly rounded result.
constexpr numeric_result narrow_float_arith(const float_format& f, arith_op op, std::uint64_t a, std::uint64_t b) noexcept {
  const exact_value x = decode_float(f, a), y = decode_float(f, b);
  if (x.kind == value_class::nan || y.kind == value_class::nan) return {f.canonical_nan(), numeric_errc::none, false};
  const double dx = to_double(x), dy = to_double(y);
  if (op == arith_op::divide && dy == 0) return {0, numeric_errc::division_by_zero, false};
  const double r = apply(op, dx, dy);
  if (is_nan(r)) return {0, numeric_errc::invalid, false};
  if (f.specials == float_specials::e8m0 && !(r > 0)) return {0, numeric_errc::nonpositive, false};
  return round_to_float(f, exact_value::from_double(r));
}

constexpr numeric_result float64_arith(arith_op op, std::uint64_t a, std::uint64_t b) noexcept {
  const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
  if (is_nan(x) || is_nan(y)) return {float64_format.canonical_nan(), numeric_errc::none, false};
  if (op == arith_op::divide && y == 0) return {0, numeric_errc::division_by_zero, false};
  const double r = apply(op, x, y);
  if (is_nan(r)) return {0, numeric_errc::invalid, false};
  if (is_inf(r) && !is_inf(x) && !is_inf(y))
    return {0, r > 0 ? numeric_errc::positive_overflow : numeric_errc::negative_overflow, true};
  return {std::bit_cast<std::uint64_t>(r), numeric_errc::none, false};
}

constexpr numeric_result range_checked(std::int64_t r, std::int64_t min, std::int64_t max, int bits) noexcept {
  if (r > max) return {0, numeric_errc::positive_overflow, false};
  if (r < min) return {0, numeric_errc::negative_overflow, false};
  return {static_cast<std::uint64_t>(r) & low_mask(bits), numeric_errc::none, false};
}

// Signed integers of any width and unsigned ones below 64 bits, computed in int64.
constexpr numeric_result int64_arith(arith_op op, std::int64_t a, std::int64_t b, std::int64_t min, std::int64_t max,
                                     int bits) noexcept {
  std::int64_t r = 0;
  switch (op) {
    case arith_op::add:
      if (__builtin_add_overflow(a, b, &r))
        return {0, b > 0 ? numeric_errc::positive_overflow : numeric_errc::negative_overflow, false};
      break;
    case arith_op::subtract:
      if (__builtin_sub_overflow(a, b, &r))
        return {0, b < 0 ? numeric_errc::positive_overflow : numeric_errc::negative_overflow, false};
      break;
    case arith_op::multiply:
      if (__builtin_mul_overflow(a, b, &r))
        return {0, (a < 0) != (b < 0) ? numeric_errc::negative_overflow : numeric_errc::positive_overflow, false};
      break;
    case arith_op::divide:
      if (b == 0) return {0, numeric_errc::division_by_zero, false};
      if (b == -1 && a == INT64_MIN) return {0, numeric_errc::positive_overflow, false};
      r = a / b;
      if (a % b != 0) {
        auto q = range_checked(r, min, max, bits);
        if (q.ok()) q.error = numeric_errc::inexact_division;
        q.inexact = true;
        return q;
      }
      break;
  }
  return range_checked(r, min, max, bits);
}

constexpr numeric_result uint64_arith(arith_op op, std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t r = 0;
  switch (op) {
    case arith_op::add:
      if (__builtin_add_overflow(a, b, &r)) return {0, numeric_errc::positive_overflow, false};
      break;
    case arith_op::subtract:
      if (a < b) return {0, numeric_errc::negative_overflow, false};
      r = a - b;
      break;
    case arith_op::multiply:
      if (__builtin_mul_overflow(a, b, &r)) return {0, numeric_errc::positive_overflow, false};
      break;
    case arith_op::divide:
      if (b == 0) return {0, numeric_errc::division_by_zero, false};
      r = a / b;
      if (a % b != 0) return {r, numeric_errc::inexact_division, true};
      break;
  }
  return {r, numeric_errc::none, false};
}
}  // namespace arith_detail

// a op b in type `t` on raw bits, the exact result rounded once (nearest-even) to `t`.
// NaN operands give the type's NaN (not an error); Inf operands give exact Inf results.
// Errors: overflow (by sign), invalid (NaN from non-NaN operands), division_by_zero,
// inexact_division (bits hold the quotient truncated toward zero), and for float8_e8m0fnu
// nonpositive and underflow. bool and complex give `invalid`.
[[nodiscard]] constexpr numeric_result arithmetic(data_type t, arith_op op, std::uint64_t a, std::uint64_t b) noexcept {
  const auto& i = info(t);
  if (t == data_type::float64) return arith_detail::float64_arith(op, a, b);
  if (is_float(t)) return arith_detail::narrow_float_arith(i.format, op, a, b);
  if (t == data_type::uint64) return arith_detail::uint64_arith(op, a, b);
  if (i.kind == dtype_kind::signed_integer)
    return arith_detail::int64_arith(op, sign_extend(a, i.bits), sign_extend(b, i.bits), i.min,
                                     static_cast<std::int64_t>(i.max), i.bits);
  if (i.kind == dtype_kind::unsigned_integer) {
    const auto mask = arith_detail::low_mask(i.bits);
    return arith_detail::int64_arith(op, static_cast<std::int64_t>(a & mask), static_cast<std::int64_t>(b & mask), 0,
                                     static_cast<std::int64_t>(i.max), i.bits);
  }
  return {0, numeric_errc::invalid, false};
}

// The value of raw bits as text for messages: an integer, the shortest round-trip decimal,
// "NaN", "Infinity", "-Infinity".
[[nodiscard]] std::string format_value(data_type t, std::uint64_t bits);

// The thin throwing layer: the result bits, or zarr::error (out_of_range for overflow,
// underflow and nonpositive results; invalid_value otherwise) naming the type, the operation
// and its operands: "float8_e4m3 240 + 16: expected a result within the range of
// float8_e4m3, got positive overflow".
[[nodiscard]] std::uint64_t checked_arithmetic(data_type t, arith_op op, std::uint64_t a, std::uint64_t b);
// Throws the error checked_arithmetic would throw for `r`.
[[noreturn]] void throw_arithmetic_error(data_type t, arith_op op, std::uint64_t a, std::uint64_t b,
                                         const numeric_result& r);
// cast with the errors thrown: "<where>: expected a value within the range of <to>, got <v>".
[[nodiscard]] std::uint64_t checked_cast(data_type from, std::uint64_t bits, data_type to, rounding_mode mode,
                                         out_of_range_mode oor, std::string_view where = "cast_value");
[[noreturn]] void throw_cast_error(data_type from, std::uint64_t bits, data_type to, const numeric_result& r,
                                   std::string_view where);

// ---------------------------------------------------------------- value types

// The registry's float type with format `f`.
[[nodiscard]] consteval data_type float_type_of(float_format f) {
  if (const auto t = type_with_format(dtype_kind::floating, f)) return *t;
  throw "not a registered float format";
}

// A value of a small binary floating-point format (4 to 16 bits), held as its raw bits.
// Conversions are explicit; arithmetic is checked (throws zarr::error) and rounds once.
template <float_format F>
class small_float {
 public:
  static constexpr float_format format = F;
  static constexpr data_type type = float_type_of(F);
  using storage_type = std::conditional_t<(F.bits() <= 8), std::uint8_t, std::uint16_t>;

  constexpr small_float() noexcept = default;
  // Rounds `v` once under `mode`; throws zarr::error if it is out of range or NaN/Inf the
  // format lacks.
  constexpr explicit small_float(double v, rounding_mode mode = rounding_mode::nearest_even) {
    const auto r = round(v, mode);
    if (!r.ok()) throw_cast_error(data_type::float64, std::bit_cast<std::uint64_t>(v), type, r, name(type));
    bits_ = static_cast<storage_type>(r.bits);
  }
  [[nodiscard]] static constexpr numeric_result round(double v, rounding_mode mode = rounding_mode::nearest_even,
                                                      out_of_range_mode oor = out_of_range_mode::error) noexcept {
    return round_to_float(F, exact_value::from_double(v), mode, oor);
  }
  // Bits beyond the format's width are ignored.
  [[nodiscard]] static constexpr small_float from_bits(std::uint64_t bits) noexcept {
    small_float r;
    r.bits_ = static_cast<storage_type>(bits & arith_detail::low_mask(F.bits()));
    return r;
  }
  [[nodiscard]] constexpr storage_type bits() const noexcept { return bits_; }
  [[nodiscard]] constexpr exact_value exact() const noexcept { return decode_float(F, bits_); }
  // Exact: every value of these formats is a double.
  [[nodiscard]] constexpr double to_double() const noexcept { return zarr::to_double(exact()); }
  [[nodiscard]] constexpr explicit operator double() const noexcept { return to_double(); }
  [[nodiscard]] constexpr bool is_nan() const noexcept { return exact().kind == value_class::nan; }
  [[nodiscard]] constexpr bool is_inf() const noexcept { return exact().kind == value_class::infinite; }

  // Numeric comparison: NaN is unequal to everything, -0 equals +0.
  [[nodiscard]] friend constexpr bool operator==(small_float a, small_float b) noexcept {
    return a.to_double() == b.to_double();
  }
  [[nodiscard]] friend constexpr auto operator<=>(small_float a, small_float b) noexcept {
    return a.to_double() <=> b.to_double();
  }
  [[nodiscard]] friend small_float operator+(small_float a, small_float b) { return op(arith_op::add, a, b); }
  [[nodiscard]] friend small_float operator-(small_float a, small_float b) { return op(arith_op::subtract, a, b); }
  [[nodiscard]] friend small_float operator*(small_float a, small_float b) { return op(arith_op::multiply, a, b); }
  [[nodiscard]] friend small_float operator/(small_float a, small_float b) { return op(arith_op::divide, a, b); }

 private:
  static small_float op(arith_op o, small_float a, small_float b) { return from_bits(checked_arithmetic(type, o, a.bits_, b.bits_)); }
  storage_type bits_ = 0;
};

using float4_e2m1fn = small_float<info(data_type::float4_e2m1fn).format>;
using float6_e2m3fn = small_float<info(data_type::float6_e2m3fn).format>;
using float6_e3m2fn = small_float<info(data_type::float6_e3m2fn).format>;
using float8_e3m4 = small_float<info(data_type::float8_e3m4).format>;
using float8_e4m3 = small_float<info(data_type::float8_e4m3).format>;
using float8_e4m3b11fnuz = small_float<info(data_type::float8_e4m3b11fnuz).format>;
using float8_e4m3fnuz = small_float<info(data_type::float8_e4m3fnuz).format>;
using float8_e5m2 = small_float<info(data_type::float8_e5m2).format>;
using float8_e5m2fnuz = small_float<info(data_type::float8_e5m2fnuz).format>;
using float8_e8m0fnu = small_float<info(data_type::float8_e8m0fnu).format>;
using bfloat16 = small_float<info(data_type::bfloat16).format>;
using float16 = small_float<info(data_type::float16).format>;
using float8_e4m3fn = small_float<info(data_type::float8_e4m3fn).format>;  // TensorStore's OCP E4M3

// float16 bits to and from a double as NumPy converts them (npy_halfbits_to_doublebits,
// npy_doublebits_to_halfbits), for the numcodecs codecs that must match it bit for bit: to a
// double exactly, a NaN's payload moved to the top of the double's; from a double rounded once
// to nearest even, an overflow an infinity, a NaN keeping the top 10 bits of its payload (at
// least one set).
[[nodiscard]] double numpy_half_to_double(std::uint16_t h) noexcept;
[[nodiscard]] std::uint16_t numpy_double_to_half(double x) noexcept;

// A two's complement (Signed) or unsigned integer of 2 or 4 bits, held in one byte like its
// in-memory layout (sign-extended for signed). Arithmetic is checked (throws zarr::error).
template <int Bits, bool Signed>
class small_int {
 public:
  static_assert(Bits == 2 || Bits == 4);
  static constexpr data_type type = Signed ? (Bits == 2 ? data_type::int2 : data_type::int4)
                                           : (Bits == 2 ? data_type::uint2 : data_type::uint4);
  using value_type = std::conditional_t<Signed, std::int8_t, std::uint8_t>;
  static constexpr int min = Signed ? -(1 << (Bits - 1)) : 0;
  static constexpr int max = Signed ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1;

  constexpr small_int() noexcept = default;
  // Throws zarr::error (out_of_range) outside [min, max].
  constexpr explicit small_int(int v) {
    if (v < min || v > max) {
      const numeric_result r{0, v < min ? numeric_errc::negative_overflow : numeric_errc::positive_overflow, false};
      throw_cast_error(data_type::int64, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)), type, r, name(type));
    }
    value_ = static_cast<value_type>(v);
  }
  // The low Bits bits (sign-extended for signed types); upper bits are ignored.
  [[nodiscard]] static constexpr small_int from_bits(std::uint64_t bits) noexcept {
    small_int r;
    r.value_ = static_cast<value_type>(Signed ? sign_extend(bits, Bits) : static_cast<std::int64_t>(bits & ((1u << Bits) - 1)));
    return r;
  }
  [[nodiscard]] constexpr std::uint8_t bits() const noexcept {
    return static_cast<std::uint8_t>(static_cast<std::uint8_t>(value_) & ((1u << Bits) - 1));
  }
  [[nodiscard]] constexpr value_type value() const noexcept { return value_; }
  [[nodiscard]] constexpr explicit operator int() const noexcept { return value_; }

  [[nodiscard]] friend constexpr bool operator==(small_int, small_int) noexcept = default;
  [[nodiscard]] friend constexpr auto operator<=>(small_int, small_int) noexcept = default;
  [[nodiscard]] friend small_int operator+(small_int a, small_int b) { return op(arith_op::add, a, b); }
  [[nodiscard]] friend small_int operator-(small_int a, small_int b) { return op(arith_op::subtract, a, b); }
  [[nodiscard]] friend small_int operator*(small_int a, small_int b) { return op(arith_op::multiply, a, b); }
  // Throws on a remainder as well (integer division must be exact, docs/decisions.md 15).
  [[nodiscard]] friend small_int operator/(small_int a, small_int b) { return op(arith_op::divide, a, b); }

 private:
  static small_int op(arith_op o, small_int a, small_int b) { return from_bits(checked_arithmetic(type, o, a.bits(), b.bits())); }
  value_type value_ = 0;
};

using int2 = small_int<2, true>;
using int4 = small_int<4, true>;
using uint2 = small_int<2, false>;
using uint4 = small_int<4, false>;

}  // namespace zarr
