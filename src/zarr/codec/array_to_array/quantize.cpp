// zarr.codec.quantize: numcodecs' Quantize with its scale computed by the same libm calls as
// Python's math.log (numcodecs documentation, "Quantize").
module;
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
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

template <class F>
void quantize(const std::byte* in, std::byte* out, std::size_t n, double scale) {
  const auto s = static_cast<F>(scale);  // a Python float meets a NumPy F array: F arithmetic
  for (std::size_t i = 0; i < n; ++i) {
    F x;
    std::memcpy(&x, in + i * sizeof(F), sizeof(F));
    const F y = static_cast<F>(std::nearbyint(static_cast<F>(s * x)) / s);  // np.around: half to even
    std::memcpy(out + i * sizeof(F), &y, sizeof(F));
  }
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
  bytes rounded(in.size());
  if (decoded_.type == data_type::float32) quantize<float>(in.data(), rounded.data(), n, scale_);
  else if (decoded_.type == data_type::float64) quantize<double>(in.data(), rounded.data(), n, scale_);
  else throw error(errc::unsupported, label() + ": expected float32 or float64 data to encode, got float16 (read only)");
  bytes out(static_cast<std::size_t>(encoded_.byte_size()));
  numpy_astype(decoded_.type, rounded, encoded_.type, out, label());
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
