// zarr.dtype: every data type of the Zarr v3 core spec and the zarr-extensions data types,
// by name, with size, kind, limits and bit layout (Zarr v3 core spec "Data types";
// zarr-extensions data-types/*; the time types: datatype-numpy.datetime64.md and
// datatype-numpy.timedelta64.md; the complex small floats: datatype-complex_bfloat16.md,
// datatype-complex_float16.md, datatype-complex_float8_e4m3.md and the same pattern for the
// others). Sub-byte types occupy one byte per element in memory (each complex component one).
module;
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
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
  numpy_datetime64, numpy_timedelta64,
  complex_bfloat16, complex_float16, complex_float4_e2m1fn, complex_float6_e2m3fn, complex_float6_e3m2fn,
  complex_float8_e3m4, complex_float8_e4m3, complex_float8_e4m3b11fnuz, complex_float8_e4m3fnuz,
  complex_float8_e5m2, complex_float8_e5m2fnuz, complex_float8_e8m0fnu,
  float8_e4m3fn,  // TensorStore's (unregistered): OCP E4M3, not the registry's float8_e4m3
  string, bytes,  // variable length: UTF-8 text and byte strings (zarr-extensions data-types/string, bytes)
  // Sized by their configuration (data_type_spec::layout): raw bits r8, r16, ... (Zarr v3 core
  // spec "Data types"), fixed_length_utf32 and struct (zarr-extensions data-types/*; zarr.sized),
  // and optional, a value of another type or none (zarr-extensions proposal data-types/optional).
  raw_bits, fixed_length_utf32, struct_, optional,
};
inline constexpr std::size_t data_type_count = 50;

// `time`: numpy.datetime64 and numpy.timedelta64, an int64 count of a time_resolution
// (zarr-extensions data-types/numpy.datetime64, numpy.timedelta64); not numbers to arithmetic.
// `variable`: string and bytes, whose elements differ in length: they have no fixed in-memory
// layout and go through their own path (zarr::array::read_strings, write_strings) and codecs
// (vlen-utf8, vlen-bytes); `size` is 0.
// `sized`: raw bits, fixed_length_utf32, struct and optional, whose element size comes from their
// configuration (data_type_spec::layout, element_size()), not from the registry (`size` is 0).
enum class dtype_kind : std::uint8_t { boolean, signed_integer, unsigned_integer, floating, complex, time, variable, sized };

// How a binary floating-point format spends its special encodings.
enum class float_specials : std::uint8_t {
  ieee,  // exponent all ones: infinity (mantissa 0) or NaN; signed zero
  fn,    // finite: no infinity, no NaN, signed zero
  fnuz,  // finite, unsigned zero: the negative-zero pattern is the only NaN
  e8m0,  // no sign, no mantissa: 2^(E-bias), all ones is the only NaN, no zero
  fn_nan,  // finite: no infinity, the all-ones magnitude is NaN (either sign), signed zero (OCP E4M3)
};

// A binary floating-point format: sign (unless e8m0), exponent bits, mantissa bits.
// Value of S E M: E == 0 ? (-1)^S 2^(1-bias) M/2^m : (-1)^S 2^(E-bias) (1 + M/2^m);
// e8m0: 2^(E-bias).
struct float_format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  float_specials specials;

  friend constexpr bool operator==(const float_format&, const float_format&) = default;

  [[nodiscard]] constexpr int bits() const noexcept {
    return (specials == float_specials::e8m0 ? 0 : 1) + exponent_bits + mantissa_bits;
  }
  [[nodiscard]] constexpr bool has_infinity() const noexcept { return specials == float_specials::ieee; }
  [[nodiscard]] constexpr bool has_nan() const noexcept { return specials != float_specials::fn; }
  [[nodiscard]] constexpr bool has_negative_zero() const noexcept {
    return specials == float_specials::ieee || specials == float_specials::fn || specials == float_specials::fn_nan;
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
      case float_specials::fn_nan: return sign_mask() - 1;
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
      case float_specials::e8m0:
      case float_specials::fn_nan: return all - 1;
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
// A complex type of two values of the float format `f` (real, then imaginary), each as the
// float type lays it out (zarr-extensions data-types/complex_<float>: "2 consecutive ... values").
constexpr dtype_info complex_of(data_type t, std::string_view n, float_format f) {
  const dtype_info part = floating(t, n, f);
  return {t, n, dtype_kind::complex, 2 * part.bits, 2 * part.size, f, 0, 0};
}
inline constexpr float_format bfloat16_f{8, 7, 127, float_specials::ieee}, float16_f{5, 10, 15, float_specials::ieee},
    e2m1fn_f{2, 1, 1, float_specials::fn}, e2m3fn_f{2, 3, 1, float_specials::fn}, e3m2fn_f{3, 2, 3, float_specials::fn},
    e3m4_f{3, 4, 3, float_specials::ieee}, e4m3_f{4, 3, 7, float_specials::ieee},
    e4m3b11fnuz_f{4, 3, 11, float_specials::fnuz}, e4m3fnuz_f{4, 3, 8, float_specials::fnuz},
    e5m2_f{5, 2, 15, float_specials::ieee}, e5m2fnuz_f{5, 2, 16, float_specials::fnuz},
    e8m0fnu_f{8, 0, 127, float_specials::e8m0};
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
    detail::floating(data_type::float4_e2m1fn, "float4_e2m1fn", detail::e2m1fn_f),
    detail::floating(data_type::float6_e2m3fn, "float6_e2m3fn", detail::e2m3fn_f),
    detail::floating(data_type::float6_e3m2fn, "float6_e3m2fn", detail::e3m2fn_f),
    detail::floating(data_type::float8_e3m4, "float8_e3m4", detail::e3m4_f),
    detail::floating(data_type::float8_e4m3, "float8_e4m3", detail::e4m3_f),
    detail::floating(data_type::float8_e4m3b11fnuz, "float8_e4m3b11fnuz", detail::e4m3b11fnuz_f),
    detail::floating(data_type::float8_e4m3fnuz, "float8_e4m3fnuz", detail::e4m3fnuz_f),
    detail::floating(data_type::float8_e5m2, "float8_e5m2", detail::e5m2_f),
    detail::floating(data_type::float8_e5m2fnuz, "float8_e5m2fnuz", detail::e5m2fnuz_f),
    detail::floating(data_type::float8_e8m0fnu, "float8_e8m0fnu", detail::e8m0fnu_f),
    detail::floating(data_type::bfloat16, "bfloat16", detail::bfloat16_f),
    detail::floating(data_type::float16, "float16", detail::float16_f),
    detail::floating(data_type::float32, "float32", {8, 23, 127, float_specials::ieee}),
    detail::floating(data_type::float64, "float64", {11, 52, 1023, float_specials::ieee}),
    {data_type::complex64, "complex64", dtype_kind::complex, 64, 8, {8, 23, 127, float_specials::ieee}, 0, 0},
    {data_type::complex128, "complex128", dtype_kind::complex, 128, 16, {11, 52, 1023, float_specials::ieee}, 0, 0},
    {data_type::numpy_datetime64, "numpy.datetime64", dtype_kind::time, 64, 8, detail::no_format, INT64_MIN, INT64_MAX},
    {data_type::numpy_timedelta64, "numpy.timedelta64", dtype_kind::time, 64, 8, detail::no_format, INT64_MIN, INT64_MAX},
    detail::complex_of(data_type::complex_bfloat16, "complex_bfloat16", detail::bfloat16_f),
    detail::complex_of(data_type::complex_float16, "complex_float16", detail::float16_f),
    detail::complex_of(data_type::complex_float4_e2m1fn, "complex_float4_e2m1fn", detail::e2m1fn_f),
    detail::complex_of(data_type::complex_float6_e2m3fn, "complex_float6_e2m3fn", detail::e2m3fn_f),
    detail::complex_of(data_type::complex_float6_e3m2fn, "complex_float6_e3m2fn", detail::e3m2fn_f),
    detail::complex_of(data_type::complex_float8_e3m4, "complex_float8_e3m4", detail::e3m4_f),
    detail::complex_of(data_type::complex_float8_e4m3, "complex_float8_e4m3", detail::e4m3_f),
    detail::complex_of(data_type::complex_float8_e4m3b11fnuz, "complex_float8_e4m3b11fnuz", detail::e4m3b11fnuz_f),
    detail::complex_of(data_type::complex_float8_e4m3fnuz, "complex_float8_e4m3fnuz", detail::e4m3fnuz_f),
    detail::complex_of(data_type::complex_float8_e5m2, "complex_float8_e5m2", detail::e5m2_f),
    detail::complex_of(data_type::complex_float8_e5m2fnuz, "complex_float8_e5m2fnuz", detail::e5m2fnuz_f),
    detail::complex_of(data_type::complex_float8_e8m0fnu, "complex_float8_e8m0fnu", detail::e8m0fnu_f),
    detail::floating(data_type::float8_e4m3fn, "float8_e4m3fn", {4, 3, 7, float_specials::fn_nan}),
    {data_type::string, "string", dtype_kind::variable, 0, 0, detail::no_format, 0, 0},
    {data_type::bytes, "bytes", dtype_kind::variable, 0, 0, detail::no_format, 0, 0},
    {data_type::raw_bits, "r*", dtype_kind::sized, 0, 0, detail::no_format, 0, 0},
    {data_type::fixed_length_utf32, "fixed_length_utf32", dtype_kind::sized, 0, 0, detail::no_format, 0, 0},
    {data_type::struct_, "struct", dtype_kind::sized, 0, 0, detail::no_format, 0, 0},
    {data_type::optional, "optional", dtype_kind::sized, 0, 0, detail::no_format, 0, 0},
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
[[nodiscard]] constexpr bool is_time(data_type t) noexcept { return info(t).kind == dtype_kind::time; }
[[nodiscard]] constexpr bool is_variable_length(data_type t) noexcept { return info(t).kind == dtype_kind::variable; }
[[nodiscard]] constexpr bool is_sized(data_type t) noexcept { return info(t).kind == dtype_kind::sized; }
// The registry's type of kind `kind` (floating or complex) made of the float format `f`.
[[nodiscard]] constexpr std::optional<data_type> type_with_format(dtype_kind kind, const float_format& f) noexcept {
  for (const auto& row : data_types)
    if (row.kind == kind && row.format == f) return row.type;
  return std::nullopt;
}
// The float type of each component of a complex type (complex64: float32, complex_float8_e4m3:
// float8_e4m3); the type itself for any other.
[[nodiscard]] constexpr data_type complex_component(data_type t) noexcept {
  if (info(t).kind != dtype_kind::complex) return t;
  return type_with_format(dtype_kind::floating, info(t).format).value_or(t);
}

// The unit and scale factor of numpy.datetime64 and numpy.timedelta64 (their READMEs,
// "Configuration"): a count c means c * scale_factor units (after the Unix epoch, for
// datetime64). `generic` is NumPy's unit-less type, which holds NaT and nothing else that
// converts. The count INT64_MIN is NaT ("Not a Time").
enum class time_unit : std::uint8_t { generic, Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as };
inline constexpr std::int64_t not_a_time = INT64_MIN;
struct time_resolution {
  time_unit unit = time_unit::generic;
  std::uint32_t scale_factor = 1;  // 1 to 2^31 - 1
  friend bool operator==(const time_resolution&, const time_resolution&) = default;
};
// "Y", "M", ..., "us" (never "μs"), "generic".
[[nodiscard]] std::string_view time_unit_name(time_unit u) noexcept;
// A unit by name ("μs" is "us"); nothing for any other text.
[[nodiscard]] std::optional<time_unit> time_unit_from_name(std::string_view name) noexcept;

// The C++ element types of the two time types: the int64 count, in the array's resolution.
struct datetime64 {
  std::int64_t count = 0;
  friend bool operator==(const datetime64&, const datetime64&) = default;
};
struct timedelta64 {
  std::int64_t count = 0;
  friend bool operator==(const timedelta64&, const timedelta64&) = default;
};

// The bytes of one element of a sized type (raw bits, fixed_length_utf32, struct, optional), from
// its configuration; for a struct, its fields in declaration order, packed (zarr-extensions
// data-types/struct "Bytes codec encoding": no padding); for an optional type, one field (the
// value, of the type it wraps) then one validity byte, 1 for a value and 0 for none
// (docs/decisions.md 71). `size` is 0 for every other type.
struct struct_field;
struct element_layout {
  std::uint64_t size = 0;
  std::shared_ptr<const std::vector<struct_field>> fields;  // struct and optional (shared: chunk specs copy layouts)
  bool legacy_structured = false;    // read as "structured" (written as "struct")
  friend bool operator==(const element_layout& a, const element_layout& b) noexcept;
};

// A data type with its parameters: what a zarr.json `data_type` member says in full.
struct data_type_spec {
  data_type type = data_type::bool_;
  time_resolution time;  // numpy.datetime64 and numpy.timedelta64 only
  element_layout layout{};  // the sized types only
  friend bool operator==(const data_type_spec&, const data_type_spec&) = default;
  // Bytes per element in memory (and under the `bytes` codec): the layout's for a sized type.
  [[nodiscard]] std::uint64_t element_size() const noexcept {
    return is_sized(type) ? layout.size : static_cast<std::uint64_t>(info(type).size);
  }
};

// One field of a struct: its name, its type (any fixed-size type, a struct too) and where its
// bytes start within the element.
struct struct_field {
  std::string name;
  data_type_spec type;
  std::uint64_t offset = 0;
  friend bool operator==(const struct_field&, const struct_field&) = default;
};

// Whether the elements of `t` with `layout` differ in length: string, bytes, and an optional type
// that wraps one (at any depth). They travel as std::string (array::read_strings, write_strings).
[[nodiscard]] inline bool has_variable_elements(data_type t, const element_layout& layout) noexcept {
  if (t == data_type::optional && layout.fields && layout.fields->size() == 1)
    return has_variable_elements(layout.fields->front().type.type, layout.fields->front().type.layout);
  return is_variable_length(t);
}

// Bytes per element of `t` with `layout` (the layout counts for the sized types only).
[[nodiscard]] inline std::uint64_t element_size(data_type t, const element_layout& layout) noexcept {
  return is_sized(t) ? layout.size : static_cast<std::uint64_t>(info(t).size);
}

// One value of a data type in its in-memory layout, which is also the layout of chunk
// buffers handed to and from codecs: native-endian; bool as one byte 0/1; int2/int4 as one
// sign-extended byte, uint2/uint4 as one byte; the small floats (4 to 8 bits) as their bits
// in the low bits of one byte; bfloat16 and float16 as their 16 bits; float32/float64 as
// float/double; complex as two values of its component type (real, imaginary), each laid out
// as that float type is; the time types as their int64 count.
// A value of a sized type (raw bits, fixed_length_utf32, struct) can be wider than 16 bytes:
// its bytes are in `wide` (element_size() of them), `bits` is unused.
struct scalar {
  data_type type = data_type::bool_;
  std::array<std::byte, 16> bits{};
  std::vector<std::byte> wide{};

  // The value's bytes: info(type).size of them, or `wide` for a sized type.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    if (is_sized(type)) return wide;
    return {bits.data(), static_cast<std::size_t>(info(type).size)};
  }
  [[nodiscard]] std::span<std::byte> bytes() noexcept {
    if (is_sized(type)) return wide;
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
    if (is_sized(a.type)) return a.type == b.type && a.wide == b.wide;
    return a.type == b.type && std::memcmp(a.bits.data(), b.bits.data(), static_cast<std::size_t>(info(a.type).size)) == 0;
  }
};

// Looks a data type up by its Zarr name ("complex_float32"/"complex_float64" are accepted
// as aliases of complex64/complex128). Throws zarr::error (unsupported) for unknown names.
[[nodiscard]] data_type data_type_from_name(std::string_view name);

// Parses the `data_type` member of zarr.json: a name, or {"name": ..., "configuration": {...}}.
// `where` names the field in error messages ("data_type", "codecs[1].configuration.data_type").
// The time types require their configuration ({"unit": "ns", "scale_factor": 1}); every other
// type takes none (an empty object at most).
[[nodiscard]] data_type_spec parse_data_type_spec(const boost::json::value& json, std::string_view where = "data_type");
// The same, without the parameters.
[[nodiscard]] data_type parse_data_type(const boost::json::value& json, std::string_view where = "data_type");

// The canonical JSON form: the plain name; for the time types the object with the configuration.
[[nodiscard]] boost::json::value to_json(data_type t);
[[nodiscard]] boost::json::value to_json(const data_type_spec& t);

// A NumPy type string of Zarr v2 (Zarr storage specification version 2, "Data type encoding"):
// the type and its byte order, '<' little, '>' big, '|' not relevant (one byte).
struct numpy_dtype {
  data_type type = data_type::bool_;
  char byte_order = '|';
  time_resolution time;  // "<M8[10us]", "<m8[s]"; "<M8" is the generic unit
};
// Parses "<i4", ">f8", "|u1", "|b1", "<c16", "<M8[ns]", ">m8[10s]" (byte order, kind, size or
// unit), or a plain NumPy name ("float32", "uint8", "bool"; native order); nothing for any
// other text (or a type this library lacks: strings, structured types).
[[nodiscard]] std::optional<numpy_dtype> parse_numpy_dtype(std::string_view text) noexcept;
// The type string of `t` in `byte_order` ('|' for one-byte types whatever is asked; `time`
// for the time types); nothing for a type NumPy does not have (int4, bfloat16, the small floats).
[[nodiscard]] std::optional<std::string> numpy_dtype_string(data_type t, char byte_order, time_resolution time = {});

}  // namespace zarr
