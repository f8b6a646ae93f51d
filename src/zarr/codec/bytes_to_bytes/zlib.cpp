// zarr.codec.zlib: zlib's deflate with the zlib wrapper (windowBits 15), decoded by the inflate
// that gzip shares (numcodecs documentation, "Zlib"; RFC 1950).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <boost/json.hpp>
module zarr.codec.zlib;

import zarr.codec.gzip;

namespace zarr {
namespace json = boost::json;

zlib_configuration zlib_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"level"});
  return {static_cast<int>(integer_member(config, "level", 0, 9, 1, ctx.where))};
}

zlib_codec::zlib_codec(const zlib_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {}

json::value zlib_codec::to_json() const {
  return json::object{{"name", name()}, {"configuration", json::object{{"level", config_.level}}}};
}

bytes zlib_codec::encode(std::span<const std::byte> in) const {
  return deflate_bytes(in, config_.level, 15, label());
}

bytes zlib_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  return inflate_bytes(in, limit, label(), "zlib");
}

void zlib_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  inflate_bytes_into(in, out, label(), "zlib");
}

std::unique_ptr<bytes_to_bytes_codec> make_zlib_codec(const codec_context& ctx) {
  return std::make_unique<zlib_codec>(zlib_configuration::parse(ctx), ctx.where);
}

}  // namespace zarr
