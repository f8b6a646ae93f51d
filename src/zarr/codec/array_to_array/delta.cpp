// zarr.codec.delta: numcodecs' Delta. Integers: differences and sums modulo 2^bits of the
// type they are computed in (dtype), converted between dtype and astype by truncation or sign
// extension, as NumPy's wrapping casts do. Floats: the same type both ways, NumPy's sequential
// cumsum (numcodecs documentation, "Delta").
module;
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.delta;

import zarr.codec.astype;

namespace zarr {
namespace json = boost::json;

namespace {

// An integer element as a 64-bit two's complement value (sign- or zero-extended).
std::uint64_t load_integer(const std::byte* p, data_type t) {
  const auto size = static_cast<std::size_t>(info(t).size);
  std::uint64_t v = 0;
  std::memcpy(&v, p, size);
  if (info(t).kind == dtype_kind::signed_integer && size < 8 && (v >> (8 * size - 1)) != 0) v |= ~std::uint64_t{0} << (8 * size);
  return v;
}

void store_integer(std::byte* p, data_type t, std::uint64_t v) { std::memcpy(p, &v, static_cast<std::size_t>(info(t).size)); }

// The integer value of `v` as a value of type t (truncated to its width, extended back).
std::uint64_t in_type(std::uint64_t v, data_type t) {
  std::byte b[8];
  store_integer(b, t, v);
  return load_integer(b, t);
}

template <class F>
void float_delta(const std::byte* in, std::byte* out, std::size_t n, bool encoding) {
  F previous = 0, sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    F x;
    std::memcpy(&x, in + i * sizeof(F), sizeof(F));
    F y;
    if (encoding) {
      y = i == 0 ? x : static_cast<F>(x - previous);
      previous = x;
    } else {
      sum = i == 0 ? x : static_cast<F>(sum + x);
      y = sum;
    }
    std::memcpy(out + i * sizeof(F), &y, sizeof(F));
  }
}

}  // namespace

delta_codec::delta_codec(data_type astype, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), decoded_(decoded), encoded_(decoded) {
  const auto t = decoded_.type;
  const bool integers = is_integer(t) && is_integer(astype);
  if (!integers && !(is_float(t) && astype == t && t != data_type::float16 && t != data_type::bfloat16 &&
                     info(t).size >= 4))
    throw error(errc::unsupported, label() + ": expected integer dtype and astype, or float32/float64 with astype equal to "
                                             "dtype, got " + std::string(zarr::name(t)) + " and " + std::string(zarr::name(astype)));
  encoded_.type = astype;
  encoded_.fill = scalar{astype, {}};
}

json::value delta_codec::to_json() const {
  return json::object{{"name", name()},
                      {"configuration", json::object{{"dtype", *numpy_dtype_string(decoded_.type, '<')},
                                                     {"astype", *numpy_dtype_string(encoded_.type, '<')}}}};
}

bytes delta_codec::do_encode(bytes in) const {
  const auto n = static_cast<std::size_t>(decoded_.num_elements());
  bytes out(static_cast<std::size_t>(encoded_.byte_size()));
  if (is_float(decoded_.type)) {
    if (decoded_.type == data_type::float32) float_delta<float>(in.data(), out.data(), n, true);
    else float_delta<double>(in.data(), out.data(), n, true);
    return out;
  }
  const auto d = decoded_.type, a = encoded_.type;
  const auto din = static_cast<std::size_t>(info(d).size), aout = static_cast<std::size_t>(info(a).size);
  std::uint64_t previous = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = load_integer(in.data() + i * din, d);
    // x[i] - x[i-1] in dtype (wrapping), then cast to astype.
    store_integer(out.data() + i * aout, a, i == 0 ? x : in_type(x - previous, d));
    previous = x;
  }
  return out;
}

bytes delta_codec::do_decode(bytes in) const {
  const auto n = static_cast<std::size_t>(decoded_.num_elements());
  bytes out(static_cast<std::size_t>(decoded_.byte_size()));
  if (is_float(decoded_.type)) {
    if (decoded_.type == data_type::float32) float_delta<float>(in.data(), out.data(), n, false);
    else float_delta<double>(in.data(), out.data(), n, false);
    return out;
  }
  const auto d = decoded_.type, a = encoded_.type;
  const auto dout = static_cast<std::size_t>(info(d).size), ain = static_cast<std::size_t>(info(a).size);
  std::uint64_t sum = 0;  // modulo 2^64, truncated to dtype on the way out: NumPy's cumsum in dtype
  for (std::size_t i = 0; i < n; ++i) {
    sum += load_integer(in.data() + i * ain, a);
    store_integer(out.data() + i * dout, d, sum);
  }
  return out;
}

std::unique_ptr<array_to_array_codec> make_delta_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"dtype", "astype"});
  const auto dtype = numcodecs_dtype(ctx, config, "dtype", std::nullopt).type;
  check_numcodecs_dtype(ctx, "dtype", dtype);
  const auto astype = numcodecs_dtype(ctx, config, "astype", dtype).type;
  return std::make_unique<delta_codec>(astype, ctx.decoded, ctx.where);
}

}  // namespace zarr
