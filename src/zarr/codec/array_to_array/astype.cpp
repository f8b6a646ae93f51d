// zarr.codec.astype: NumPy's astype per element through zarr.arithmetic's exact cast
// (numcodecs documentation, "AsType"; NumPy's casting rules for ndarray.astype).
module;
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.astype;

import zarr.arithmetic;
import zarr.fill_value;

namespace zarr {
namespace json = boost::json;

numpy_dtype numcodecs_dtype(const codec_context& ctx, const json::object& config, std::string_view key,
                            std::optional<data_type> fallback) {
  const auto at = ctx.where + ".configuration." + std::string(key);
  const auto* v = config.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (fallback) return {*fallback, info(*fallback).size == 1 ? '|' : '<', {}};
    throw error(errc::invalid_metadata, at + ": expected a NumPy type string (\"<f8\", \"|u1\", ...), got nothing");
  }
  const auto* s = v->if_string();
  const auto t = s ? parse_numpy_dtype(*s) : std::nullopt;
  if (!t || info(t->type).kind == dtype_kind::complex || is_time(t->type))
    throw error(errc::invalid_metadata, at + ": expected a NumPy bool, integer or float type string (\"<f8\", \"|u1\", ...), got " +
                                            json::serialize(*v));
  return *t;
}

void check_numcodecs_dtype(const codec_context& ctx, std::string_view key, data_type dtype) {
  if (dtype != ctx.decoded.type)
    throw error(errc::invalid_metadata, ctx.where + ".configuration." + std::string(key) + ": expected the type the codec receives (" +
                                            std::string(name(ctx.decoded.type)) + "), got " + std::string(name(dtype)));
}

namespace {

std::uint64_t load_bits(const std::byte* p, std::size_t size) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, size);  // little-endian hosts: the low bytes
  return v;
}

}  // namespace

void numpy_astype(data_type from, std::span<const std::byte> in, data_type to, std::span<std::byte> out,
                  std::string_view where) {
  const auto in_size = static_cast<std::size_t>(info(from).size), out_size = static_cast<std::size_t>(info(to).size);
  if (from == to) {
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    return;
  }
  const std::size_t n = in.size() / in_size;
  const bool to_integer = is_integer(to) || to == data_type::bool_;
  for (std::size_t i = 0; i < n; ++i) {
    const auto bits = load_bits(in.data() + i * in_size, in_size);
    std::uint64_t result = 0;
    if (to == data_type::bool_) {
      result = decode(from, bits).is_zero() ? 0 : 1;  // NumPy: x != 0 (NaN is true)
    } else {
      const auto mode = is_float(from) && to_integer ? rounding_mode::towards_zero : rounding_mode::nearest_even;
      const auto r = cast(from, bits, to, mode, is_integer(from) || from == data_type::bool_ ? out_of_range_mode::wrap
                                                                                             : out_of_range_mode::error);
      if (r.ok()) {
        result = r.bits;
      } else if (!to_integer && (r.error == numeric_errc::positive_overflow || r.error == numeric_errc::negative_overflow)) {
        const auto& f = info(to).format;  // NumPy: an overflow to a float is an infinity
        result = f.infinity() | (r.error == numeric_errc::negative_overflow ? f.sign_mask() : 0);
      } else {
        throw_cast_error(from, bits, to, r, std::string(where) + ", element " + std::to_string(i));
      }
    }
    std::memcpy(out.data() + i * out_size, &result, out_size);
  }
}

astype_codec::astype_codec(data_type encode_type, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), decoded_(decoded), encoded_(decoded) {
  encoded_.type = encode_type;
  encoded_.fill = scalar{encode_type, {}};
  numpy_astype(decoded_.type, decoded_.fill.bytes(), encode_type, encoded_.fill.bytes(), label() + ": the fill value");
}

json::value astype_codec::to_json() const {
  return json::object{{"name", name()},
                      {"configuration", json::object{{"encode_dtype", *numpy_dtype_string(encoded_.type, '<')},
                                                     {"decode_dtype", *numpy_dtype_string(decoded_.type, '<')}}}};
}

bytes astype_codec::do_encode(bytes in) const {
  bytes out(static_cast<std::size_t>(encoded_.byte_size()));
  numpy_astype(decoded_.type, in, encoded_.type, out, label());
  return out;
}

bytes astype_codec::do_decode(bytes in) const {
  bytes out(static_cast<std::size_t>(decoded_.byte_size()));
  numpy_astype(encoded_.type, in, decoded_.type, out, label());
  return out;
}

std::unique_ptr<array_to_array_codec> make_astype_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"encode_dtype", "decode_dtype"});
  const auto decode_type = numcodecs_dtype(ctx, config, "decode_dtype", ctx.decoded.type).type;
  check_numcodecs_dtype(ctx, "decode_dtype", decode_type);
  const auto encode_type = numcodecs_dtype(ctx, config, "encode_dtype", std::nullopt).type;
  return std::make_unique<astype_codec>(encode_type, ctx.decoded, ctx.where);
}

}  // namespace zarr
