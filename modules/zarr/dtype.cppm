// zarr.dtype: every data type of the Zarr v3 core spec and the zarr-extensions data types,
// by name, with size, kind, limits and bit layout (Zarr v3 core spec "Data types";
// zarr-extensions data-types/*). Sub-byte types occupy one byte per element in memory.
module;
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.dtype;

export namespace zarr {

enum class data_type : std::uint8_t {
  bool_,
  int2, int4, int8, int16, int32, int64,
  uint2, uint4, uint8, uint16, uint32, uint64,
  float4_e2m1fn, float6_e2m3fn, float6_e3m2fn,
  float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float8_e4m3fnuz,
  float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu,
  bfloat16, float16, float32, float64,
  complex64, complex128,
};
inline constexpr std::size_t data_type_count = 29;

enum class dtype_kind : std::uint8_t { boolean, signed_integer, unsigned_integer, floating, complex };

// How a binary floating-point format spends its special encodings.
enum class float_specials : std::uint8_t {
  ieee,  // exponent all ones: infinity (mantissa 0) or NaN; signed zero
  fn,    // finite: no infinity, no NaN, signed zero
  fnuz,  // finite, unsigned zero: the negative-zero pattern is the only NaN
  e8m0,  // no sign, no mantissa: 2^(E-bias), all ones is the only NaN, no zero
};

// A binary floating-point format: sign (unless e8m0), exponent bits, mantissa bits.
// Value of S E M: E == 0 ? (-1)^S 2^(1-bias) M/2^m : (-1)^S 2^(E-bias) (1 + M/2^m);
// e8m0: 2^(E-bias).
struct float_format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  float_specials specials;

  [[nodiscard]] constexpr int bits() const noexcept {
    return (specials == float_specials::e8m0 ? 0 : 1) + exponent_bits + mantissa_bits;
  }
  [[nodiscard]] constexpr bool has_infinity() const noexcept { return specials == float_specials::ieee; }
  [[nodiscard]] constexpr bool has_nan() const noexcept { return specials != float_specials::fn; }
  [[nodiscard]] constexpr bool has_negative_zero() const noexcept {
    return specials == float_specials::ieee || specials == float_specials::fn;
  }
  [[nodiscard]] constexpr bool has_sign() const noexcept { return specials != float_specials::e8m0; }
  [[nodiscard]] constexpr std::uint64_t sign_mask() const noexcept {
    return has_sign() ? std::uint64_t{1} << (bits() - 1) : 0;
  }
  // The bits of the fill value "NaN" (sign 0, mantissa MSB 1), or of the only NaN.
  [[nodiscard]] constexpr std::uint64_t canonical_nan() const noexcept {
    const std::uint64_t exp_all = ((std::uint64_t{1} << exponent_bits) - 1) << mantissa_bits;
    switch (specials) {
      case float_specials::ieee: return exp_all | (std::uint64_t{1} << (mantissa_bits - 1));
      case float_specials::fnuz: return sign_mask();
      case float_specials::e8m0: return exp_all;
      case float_specials::fn: return 0;
    }
    return 0;
  }
  // Positive infinity's bits (ieee only).
  [[nodiscard]] constexpr std::uint64_t infinity() const noexcept {
    return ((std::uint64_t{1} << exponent_bits) - 1) << mantissa_bits;
  }
  // The largest finite value's bits.
  [[nodiscard]] constexpr std::uint64_t max_finite() const noexcept {
    const std::uint64_t all = (std::uint64_t{1} << (bits() - (has_sign() ? 1 : 0))) - 1;
    switch (specials) {
      case float_specials::ieee: return infinity() - 1;
      case float_specials::e8m0: return all - 1;
      default: return all;
    }
  }
};

struct dtype_info {
  data_type type;
  std::string_view name;
  dtype_kind kind;
  int bits;            // bits of one value (per component for complex: the total)
  int size;            // bytes per element in memory (and under the `bytes` codec)
  float_format format; // floating and complex (per component); zero otherwise
  std::int64_t min;    // integer types: smallest value
  std::uint64_t max;   // integer types: largest value
};

namespace detail {
inline constexpr float_format no_format{0, 0, 0, float_specials::ieee};
constexpr dtype_info integer(data_type t, std::string_view n, bool is_signed, int bits) {
  const int size = bits <= 8 ? 1 : bits / 8;
  const std::uint64_t max = bits == 64 ? (is_signed ? std::uint64_t{INT64_MAX} : UINT64_MAX)
                                       : (std::uint64_t{1} << (bits - (is_signed ? 1 : 0))) - 1;
  const std::int64_t min = !is_signed ? 0 : bits == 64 ? INT64_MIN : -(std::int64_t{1} << (bits - 1));
  return {t, n, is_signed ? dtype_kind::signed_integer : dtype_kind::unsigned_integer,
          bits, size, no_format, min, max};
}
constexpr dtype_info floating(data_type t, std::string_view n, float_format f) {
  const int bits = f.bits();
  return {t, n, dtype_kind::floating, bits, bits <= 8 ? 1 : bits / 8, f, 0, 0};
}
}  // namespace detail

// The registry: one row per data type, in the order of the enumeration.
inline constexpr std::array<dtype_info, data_type_count> data_types{{
    {data_type::bool_, "bool", dtype_kind::boolean, 1, 1, detail::no_format, 0, 1},
    detail::integer(data_type::int2, "int2", true, 2),
    detail::integer(data_type::int4, "int4", true, 4),
    detail::integer(data_type::int8, "int8", true, 8),
    detail::integer(data_type::int16, "int16", true, 16),
    detail::integer(data_type::int32, "int32", true, 32),
    detail::integer(data_type::int64, "int64", true, 64),
    detail::integer(data_type::uint2, "uint2", false, 2),
    detail::integer(data_type::uint4, "uint4", false, 4),
    detail::integer(data_type::uint8, "uint8", false, 8),
    detail::integer(data_type::uint16, "uint16", false, 16),
    detail::integer(data_type::uint32, "uint32", false, 32),
    detail::integer(data_type::uint64, "uint64", false, 64),
    detail::floating(data_type::float4_e2m1fn, "float4_e2m1fn", {2, 1, 1, float_specials::fn}),
    detail::floating(data_type::float6_e2m3fn, "float6_e2m3fn", {2, 3, 1, float_specials::fn}),
    detail::floating(data_type::float6_e3m2fn, "float6_e3m2fn", {3, 2, 3, float_specials::fn}),
    detail::floating(data_type::float8_e3m4, "float8_e3m4", {3, 4, 3, float_specials::ieee}),
    detail::floating(data_type::float8_e4m3, "float8_e4m3", {4, 3, 7, float_specials::ieee}),
    detail::floating(data_type::float8_e4m3b11fnuz, "float8_e4m3b11fnuz", {4, 3, 11, float_specials::fnuz}),
    detail::floating(data_type::float8_e4m3fnuz, "float8_e4m3fnuz", {4, 3, 8, float_specials::fnuz}),
    detail::floating(data_type::float8_e5m2, "float8_e5m2", {5, 2, 15, float_specials::ieee}),
    detail::floating(data_type::float8_e5m2fnuz, "float8_e5m2fnuz", {5, 2, 16, float_specials::fnuz}),
    detail::floating(data_type::float8_e8m0fnu, "float8_e8m0fnu", {8, 0, 127, float_specials::e8m0}),
    detail::floating(data_type::bfloat16, "bfloat16", {8, 7, 127, float_specials::ieee}),
    detail::floating(data_type::float16, "float16", {5, 10, 15, float_specials::ieee}),
    detail::floating(data_type::float32, "float32", {8, 23, 127, float_specials::ieee}),
    detail::floating(data_type::float64, "float64", {11, 52, 1023, float_specials::ieee}),
    {data_type::complex64, "complex64", dtype_kind::complex, 64, 8, {8, 23, 127, float_specials::ieee}, 0, 0},
    {data_type::complex128, "complex128", dtype_kind::complex, 128, 16, {11, 52, 1023, float_specials::ieee}, 0, 0},
}};

[[nodiscard]] constexpr const dtype_info& info(data_type t) noexcept {
  return data_types[static_cast<std::size_t>(t)];
}
[[nodiscard]] constexpr std::string_view name(data_type t) noexcept { return info(t).name; }
[[nodiscard]] constexpr bool is_integer(data_type t) noexcept {
  const auto k = info(t).kind;
  return k == dtype_kind::signed_integer || k == dtype_kind::unsigned_integer;
}
[[nodiscard]] constexpr bool is_float(data_type t) noexcept { return info(t).kind == dtype_kind::floating; }

// One value of a data type in its in-memory layout, which is also the layout of chunk
// buffers handed to and from codecs: native-endian; bool as one byte 0/1; int2/int4 as one
// sign-extended byte, uint2/uint4 as one byte; the small floats (4 to 8 bits) as their bits
// in the low bits of one byte; bfloat16 and float16 as their 16 bits; float32/float64 as
// float/double; complex as two floats or doubles (real, imaginary).
struct scalar {
  data_type type = data_type::bool_;
  std::array<std::byte, 16> bits{};

  // The value's bytes: info(type).size of them.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {bits.data(), static_cast<std::size_t>(info(type).size)};
  }
  [[nodiscard]] std::span<std::byte> bytes() noexcept {
    return {bits.data(), static_cast<std::size_t>(info(type).size)};
  }
  template <class T>
  [[nodiscard]] T as() const noexcept {
    static_assert(sizeof(T) <= 16);
    T v;
    std::memcpy(&v, bits.data(), sizeof(T));
    return v;
  }
  template <class T>
  [[nodiscard]] static scalar of(data_type t, T v) noexcept {
    static_assert(sizeof(T) <= 16);
    scalar s{t, {}};
    std::memcpy(s.bits.data(), &v, sizeof(T));
    return s;
  }
  // The raw bits of a type of at most 64 bits (for sub-byte types: the low bits of the byte,
  // masked to the type's width).
  [[nodiscard]] std::uint64_t raw() const noexcept {
    std::uint64_t v = 0;
    std::memcpy(&v, bits.data(), std::min<std::size_t>(8, static_cast<std::size_t>(info(type).size)));
    const int b = info(type).bits;
    return b >= 64 ? v : v & ((std::uint64_t{1} << b) - 1);
  }
  friend bool operator==(const scalar& a, const scalar& b) noexcept {
    return a.type == b.type && std::memcmp(a.bits.data(), b.bits.data(), static_cast<std::size_t>(info(a.type).size)) == 0;
  }
};

// Looks a data type up by its Zarr name ("complex_float32"/"complex_float64" are accepted
// as aliases of complex64/complex128). Throws zarr::error (unsupported) for unknown names.
[[nodiscard]] data_type data_type_from_name(std::string_view name);

// Parses the `data_type` member of zarr.json: a name, or {"name": ..., "configuration": {}}.
// `where` names the field in error messages ("data_type", "codecs[1].configuration.data_type").
[[nodiscard]] data_type parse_data_type(const boost::json::value& json, std::string_view where = "data_type");

// The canonical JSON form: the plain name.
[[nodiscard]] boost::json::value to_json(data_type t);

// A NumPy type string of Zarr v2 (Zarr storage specification version 2, "Data type encoding"):
// the type and its byte order, '<' little, '>' big, '|' not relevant (one byte).
struct numpy_dtype {
  data_type type = data_type::bool_;
  char byte_order = '|';
};
// Parses "<i4", ">f8", "|u1", "|b1", "<c16" (byte order, kind, size), or a plain NumPy name
// ("float32", "uint8", "bool"; native order); nothing for any other text (or a type this library
// lacks: strings, dates, structured types).
[[nodiscard]] std::optional<numpy_dtype> parse_numpy_dtype(std::string_view text) noexcept;
// The type string of `t` in `byte_order` ('|' for one-byte types whatever is asked);
// nothing for a type NumPy does not have (int4, bfloat16, the small floats).
[[nodiscard]] std::optional<std::string> numpy_dtype_string(data_type t, char byte_order);

}  // namespace zarr
