// zarr.codec.quantize: numcodecs' Quantize with its scale computed by the same libm calls as
// Python's math.log (numcodecs documentation, "Quantize"), encoding in the types and with the
// roundings NumPy 1.24 uses for each step (docs/decisions.md 28, 53).
module;
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.quantize;

import zarr.codec.astype;

namespace zarr {
namespace json = boost::json;

namespace {

// numcodecs: precision = 10. ** -digits; exp = math.log(precision, 10) rounded away from zero to
// an integer; bits = math.ceil(math.log(10. ** -exp, 2)); scale = 2. ** bits.
double numcodecs_scale(int digits) {
  const double precision = std::pow(10.0, -digits);
  const double e = std::log(precision) / std::log(10.0);
  const double exp = e < 0 ? std::floor(e) : std::ceil(e);
  const double bits = std::ceil(std::log(std::pow(10.0, -exp)) / std::log(2.0));
  return std::pow(2.0, bits);
}

// ---------------------------------------------------------------- the float types as NumPy has them
//
// Every value travels as a double, which holds each float16, float32 and float64 value exactly
// (NaN payloads in the top bits of the significand, as NumPy's conversions keep them). An
// operation in a narrower type is the exact double result rounded once to that type: NumPy
// computes a float16 operation in float32 and rounds that to float16, and both the product of a
// value with a power of two and its quotient by one are exact in float32 and in double.

struct half {  // a float16 element, as its bits
  std::uint16_t bits;
};

template <class T>
double load(const std::byte* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  if constexpr (std::is_same_v<T, half>) return numpy_half_to_double(x.bits);
  else return static_cast<double>(x);
}

template <class T>
void store(std::byte* p, double v) {
  T x;
  if constexpr (std::is_same_v<T, half>) x.bits = numpy_double_to_half(v);
  else x = static_cast<T>(v);
  std::memcpy(p, &x, sizeof(T));
}

// v rounded to the float type of `Bits` bits.
template <int Bits>
double in_type(double v) {
  if constexpr (Bits == 16) return numpy_half_to_double(numpy_double_to_half(v));
  else if constexpr (Bits == 32) return static_cast<double>(static_cast<float>(v));
  else return v;
}

// The bits of the float type NumPy 1.24 computes `array * scale` in: the array's, unless the
// Python float is beyond the narrower type's thresholds (np.min_scalar_type: float16 within
// +-65000, float32 within +-3.4e38; value-based casting).
int numpy_bits(data_type array, double scale) {
  const int scalar = scale > -65000 && scale < 65000 ? 16 : scale > -3.4e38 && scale < 3.4e38 ? 32 : 64;
  return std::max(static_cast<int>(info(array).bits), scalar);
}

// enc = np.around(scale * arr) / scale; enc.astype(astype): each operation in the type of
// `Bits` bits, np.around half to even (exact: the integer nearest a value of a type is a value
// of it), then converted to Out.
template <class In, int Bits, class Out>
void quantize(const std::byte* in, std::byte* out, std::size_t n, double scale) {
  const double s = in_type<Bits>(scale);  // the Python float converted to the arithmetic's type
  for (std::size_t i = 0; i < n; ++i) {
    const double x = load<In>(in + i * sizeof(In));
    const double r = std::nearbyint(in_type<Bits>(x * s));
    store<Out>(out + i * sizeof(Out), in_type<Bits>(r / s));
  }
}

using quantize_loop = void (*)(const std::byte*, std::byte*, std::size_t, double);

template <class In, class Out>
quantize_loop pick(int bits) {
  if (bits == 16) return &quantize<In, 16, Out>;
  if (bits == 32) return &quantize<In, 32, Out>;
  return &quantize<In, 64, Out>;
}

template <class In>
quantize_loop pick(int bits, data_type out) {
  if (out == data_type::float16) return pick<In, half>(bits);
  if (out == data_type::float32) return pick<In, float>(bits);
  return pick<In, double>(bits);
}

quantize_loop pick(data_type in, int bits, data_type out) {
  if (in == data_type::float16) return pick<half>(bits, out);
  if (in == data_type::float32) return pick<float>(bits, out);
  return pick<double>(bits, out);
}

}  // namespace

quantize_codec::quantize_codec(int digits, data_type astype, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), digits_(digits), scale_(numcodecs_scale(digits)), decoded_(decoded),
      encoded_(decoded) {
  if (!is_float(decoded_.type) || !is_float(astype) || !numpy_dtype_string(decoded_.type, '<') ||
      !numpy_dtype_string(astype, '<'))
    throw error(errc::invalid_metadata, label() + ": expected float16, float32 or float64 dtype and astype, got " +
                                            std::string(zarr::name(decoded_.type)) + " and " + std::string(zarr::name(astype)));
  encoded_.type = astype;
  encoded_.fill = scalar{astype, {}};
  numpy_astype(decoded_.type, decoded_.fill.bytes(), astype, encoded_.fill.bytes(), label() + ": the fill value");
}

json::value quantize_codec::to_json() const {
  return json::object{{"name", name()},
                      {"configuration", json::object{{"digits", digits_},
                                                     {"dtype", *numpy_dtype_string(decoded_.type, '<')},
                                                     {"astype", *numpy_dtype_string(encoded_.type, '<')}}}};
}

bytes quantize_codec::do_encode(bytes in) const {
  const auto n = static_cast<std::size_t>(decoded_.num_elements());
  bytes out(static_cast<std::size_t>(encoded_.byte_size()));
  pick(decoded_.type, numpy_bits(decoded_.type, scale_), encoded_.type)(in.data(), out.data(), n, scale_);
  return out;
}

bytes quantize_codec::do_decode(bytes in) const {
  bytes out(static_cast<std::size_t>(decoded_.byte_size()));
  numpy_astype(encoded_.type, in, decoded_.type, out, label());
  return out;
}

std::unique_ptr<array_to_array_codec> make_quantize_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"digits", "dtype", "astype"});
  const auto digits = static_cast<int>(integer_member(config, "digits", -300, 300, std::nullopt, ctx.where));
  const auto dtype = numcodecs_dtype(ctx, config, "dtype", std::nullopt).type;
  check_numcodecs_dtype(ctx, "dtype", dtype);
  const auto astype = numcodecs_dtype(ctx, config, "astype", dtype).type;
  return std::make_unique<quantize_codec>(digits, astype, ctx.decoded, ctx.where);
}

}  // namespace zarr
