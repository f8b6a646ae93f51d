// zarr.element: the C++ types of array elements (bool, the integers, float, double,
// std::complex, and zarr.arithmetic's value types: zarr::bfloat16, zarr::float8_e4m3, zarr::int4,
// ...) and exact conversions between data types, for typed reads and writes and typed fill
// values. A value that has no exact counterpart in the target type is an error, never rounded.
module;
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
export module zarr.element;

export import zarr.arithmetic;
export import zarr.dtype;
export import zarr.error;

export namespace zarr {

// A complex value whose parts are small floats (zarr::bfloat16, zarr::float16,
// zarr::float8_e4m3, ...): the element type of complex_bfloat16, complex_float16,
// complex_float8_e4m3, ... (std::complex is for float, double and long double only).
template <class T>
struct complex_value {
  T real{};
  T imag{};
  friend constexpr bool operator==(const complex_value&, const complex_value&) = default;
};

namespace element_detail {
template <class T>
struct traits {
  static constexpr bool known = false;
};
template <class T, data_type D>
struct is {
  static constexpr bool known = true;
  static constexpr data_type type = D;
};
template <class T>
inline constexpr bool is_character = std::is_same_v<T, char> || std::is_same_v<T, wchar_t> ||
                                     std::is_same_v<T, char8_t> || std::is_same_v<T, char16_t> ||
                                     std::is_same_v<T, char32_t>;
template <std::size_t Size, bool Signed>
consteval data_type integer_type() {
  if constexpr (Size == 1) return Signed ? data_type::int8 : data_type::uint8;
  else if constexpr (Size == 2) return Signed ? data_type::int16 : data_type::uint16;
  else if constexpr (Size == 4) return Signed ? data_type::int32 : data_type::uint32;
  else return Signed ? data_type::int64 : data_type::uint64;
}
template <>
struct traits<bool> : is<bool, data_type::bool_> {};
template <std::integral T>
  requires(!std::is_same_v<T, bool> && !is_character<T> && sizeof(T) <= 8)
struct traits<T> : is<T, integer_type<sizeof(T), std::is_signed_v<T>>()> {};
template <>
struct traits<float> : is<float, data_type::float32> {};
template <>
struct traits<double> : is<double, data_type::float64> {};
template <>
struct traits<std::complex<float>> : is<std::complex<float>, data_type::complex64> {};
template <>
struct traits<std::complex<double>> : is<std::complex<double>, data_type::complex128> {};
template <float_format F>
struct traits<small_float<F>> : is<small_float<F>, small_float<F>::type> {};
template <int Bits, bool Signed>
struct traits<small_int<Bits, Signed>> : is<small_int<Bits, Signed>, small_int<Bits, Signed>::type> {};
template <float_format F>
  requires(F.bits() <= 16)
struct traits<complex_value<small_float<F>>>
    : is<complex_value<small_float<F>>, *type_with_format(dtype_kind::complex, F)> {};
template <>
struct traits<datetime64> : is<datetime64, data_type::numpy_datetime64> {};
template <>
struct traits<timedelta64> : is<timedelta64, data_type::numpy_timedelta64> {};
}  // namespace element_detail

// A C++ type that stands for one data type: its object representation is that type's
// in-memory layout (see zarr::scalar), so a buffer of them is a chunk buffer as it is.
// Integers map by size and signedness (long long and long are both int64 on LP64); the
// character types are not numbers here.
template <class T>
concept element = element_detail::traits<T>::known;

template <element T>
inline constexpr data_type data_type_of = element_detail::traits<T>::type;

// The value types' layout is checked once here, not trusted.
template <element T>
inline constexpr bool has_element_layout =
    std::is_trivially_copyable_v<T> && sizeof(T) == static_cast<std::size_t>(info(data_type_of<T>).size);

// The first element a conversion could not make exact, and why.
struct conversion_failure {
  std::uint64_t index = 0;
  numeric_errc reason = numeric_errc::none;  // none: representable range, but not exactly (3.5 into int8)
};

// Converts the values of `in` (type `from`, in-memory layout) to `to` into `out` (same number
// of elements), exactly: NaN stays NaN (its payload is not kept), -0 becomes 0 in types
// without it, anything else must have the same value in `to`. Any two of the 29 numeric types
// and bool: bool is 0 or 1; a real value is a complex one with imaginary part +0, and a complex
// value is real when its imaginary part is zero. A time type (numpy.datetime64,
// numpy.timedelta64) converts only to itself: its counts have no meaning without the array's
// resolution (zarr.time converts between resolutions); any other pair fails at element 0.
// Stops at the first element that cannot be converted and reports it; nothing when all were.
// The buffers must be of matching sizes (checked by the throwing form).
[[nodiscard]] std::optional<conversion_failure> convert_elements(data_type from, std::span<const std::byte> in,
                                                                 data_type to, std::span<std::byte> out) noexcept;

// The throwing form: zarr::error naming `where`, the element index and value:
// `array "/t", element 3: expected a value that int8 holds exactly, got 3.5 (float64)` —
// out_of_range beyond the range of `to`, invalid_value otherwise; invalid_argument when the
// buffer sizes do not match; unsupported between a time type and another type.
void convert_elements(data_type from, std::span<const std::byte> in, data_type to, std::span<std::byte> out,
                      std::string_view where);

// One value converted exactly to `to`; errors as above, without an element index.
[[nodiscard]] scalar convert_value(const scalar& value, data_type to, std::string_view where);

// A C++ value as a scalar of its own data type.
template <element T>
  requires has_element_layout<T>
[[nodiscard]] scalar to_scalar(T value) noexcept {
  return scalar::of(data_type_of<T>, value);
}

// A number given as a C++ value (3, 0.5f, zarr::bfloat16(1.5), std::complex<double>{1, 2}) or
// as a zarr::scalar, for fill values and codec scalars. It keeps its own data type; where it is
// used it is converted exactly to the type there (zarr::convert_value), never rounded.
class typed_value {
 public:
  template <element T>
    requires has_element_layout<T>
  typed_value(T v) noexcept : value_(to_scalar(v)) {}  // NOLINT: implicit, like a literal
  typed_value(const scalar& s) noexcept : value_(s) {}  // NOLINT

  [[nodiscard]] const scalar& value() const noexcept { return value_; }

 private:
  scalar value_;
};

}  // namespace zarr
