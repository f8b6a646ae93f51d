// zarr.codec.numcodecs_packbits: numcodecs' PackBits (numcodecs documentation, "PackBits";
// np.packbits and np.unpackbits, bit order "big").
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.numcodecs_packbits;

namespace zarr {
namespace json = boost::json;

numcodecs_packbits_codec::numcodecs_packbits_codec(const chunk_spec& decoded, std::string where)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded) {
  if (decoded_.type != data_type::bool_)
    throw error(errc::invalid_metadata, label() + ": expected bool data, got " + std::string(zarr::name(decoded_.type)));
}

json::value numcodecs_packbits_codec::to_json() const { return json::object{{"name", name()}, {"configuration", json::object{}}}; }

void numcodecs_packbits_codec::do_encode_into(std::span<const std::byte> array, bytes& out) const {
  const std::size_t n = array.size();
  out.assign(1 + (n + 7) / 8, std::byte{0});
  out[0] = static_cast<std::byte>((8 - n % 8) % 8);
  for (std::size_t i = 0; i < n; ++i)
    if (array[i] != std::byte{0}) out[1 + i / 8] |= static_cast<std::byte>(0x80u >> (i % 8));
}

void numcodecs_packbits_codec::do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const {
  const std::size_t n = out.size();
  const auto expected = 1 + (n + 7) / 8;
  if (encoded.size() != expected || std::to_integer<std::size_t>(encoded[0]) != (8 - n % 8) % 8)
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(expected) + " bytes with " +
                                         std::to_string((8 - n % 8) % 8) + " padding bits for " + std::to_string(n) +
                                         " flags, got " + std::to_string(encoded.size()) + " bytes" +
                                         (encoded.empty() ? std::string() : " with " + std::to_string(std::to_integer<int>(encoded[0])) + " padding bits"));
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::byte>((std::to_integer<unsigned>(encoded[1 + i / 8]) >> (7 - i % 8)) & 1u);
}

std::unique_ptr<array_to_bytes_codec> make_numcodecs_packbits_codec(const codec_context& ctx) {
  static_cast<void>(configuration_object(ctx, {}));
  return std::make_unique<numcodecs_packbits_codec>(ctx.decoded, ctx.where);
}

}  // namespace zarr
