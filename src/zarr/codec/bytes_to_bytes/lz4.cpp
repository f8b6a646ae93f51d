// zarr.codec.lz4: liblz4's block functions in numcodecs' framing, a 4-byte little-endian
// decoded size before the block (numcodecs documentation, "LZ4").
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
#include <lz4.h>
module zarr.codec.lz4;

namespace zarr {
namespace json = boost::json;

lz4_configuration lz4_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"acceleration"});
  return {static_cast<int>(integer_member(config, "acceleration", 1, std::numeric_limits<int>::max(), 1, ctx.where))};
}

lz4_codec::lz4_codec(const lz4_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {}

json::value lz4_codec::to_json() const {
  return json::object{{"name", name()}, {"configuration", json::object{{"acceleration", config_.acceleration}}}};
}

bytes lz4_codec::encode(std::span<const std::byte> in) const {
  if (in.size() > LZ4_MAX_INPUT_SIZE)
    throw error(errc::invalid_argument, label() + ": expected at most " + std::to_string(LZ4_MAX_INPUT_SIZE) +
                                            " bytes (LZ4's largest block), got " + std::to_string(in.size()));
  const int n = static_cast<int>(in.size());
  bytes out(4 + static_cast<std::size_t>(LZ4_compressBound(n)));
  for (std::size_t i = 0; i < 4; ++i) out[i] = static_cast<std::byte>(static_cast<std::uint32_t>(n) >> (8 * i));
  const int written = LZ4_compress_fast(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data() + 4), n,
                                        static_cast<int>(out.size() - 4), config_.acceleration);
  if (written <= 0 && n > 0) throw error(errc::io, label() + ": expected LZ4 to compress, got an error");
  out.resize(4 + static_cast<std::size_t>(written));
  return out;
}

std::uint32_t lz4_codec::declared_size(std::span<const std::byte> in, std::uint64_t limit) const {
  if (in.size() < 4)
    throw error(errc::corrupt_chunk, label() + ": expected at least 4 bytes (the decoded size), got " + std::to_string(in.size()));
  std::uint32_t size = 0;
  for (std::size_t i = 0; i < 4; ++i) size |= static_cast<std::uint32_t>(in[i]) << (8 * i);
  if (size > limit || size > LZ4_MAX_INPUT_SIZE)
    throw error(errc::corrupt_chunk, label() + ": expected a decoded size of at most " +
                                         std::to_string(std::min<std::uint64_t>(limit, LZ4_MAX_INPUT_SIZE)) +
                                         " bytes (the decoding limit), got a header declaring " + std::to_string(size));
  return size;
}

void lz4_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto size = declared_size(in, out.size());
  if (size != out.size())
    throw error(errc::corrupt_chunk, label() + ": expected a decoded size of " + std::to_string(out.size()) +
                                         " bytes, got a header declaring " + std::to_string(size));
  const auto block = in.subspan(4);
  if (block.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw error(errc::corrupt_chunk, label() + ": expected an LZ4 block of at most 2^31 - 1 bytes, got " +
                                         std::to_string(block.size()));
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()), reinterpret_cast<char*>(out.data()),
                                    static_cast<int>(block.size()), static_cast<int>(size));
  if (n < 0 || static_cast<std::uint32_t>(n) != size)
    throw error(errc::corrupt_chunk, label() + ": expected an LZ4 block of " + std::to_string(size) + " bytes, got " +
                                         (n < 0 ? std::string("invalid data") : std::to_string(n) + " bytes"));
}

bytes lz4_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  bytes out(declared_size(in, limit));
  decode_into(in, out);
  return out;
}

std::unique_ptr<bytes_to_bytes_codec> make_lz4_codec(const codec_context& ctx) {
  return std::make_unique<lz4_codec>(lz4_configuration::parse(ctx), ctx.where);
}

}  // namespace zarr
