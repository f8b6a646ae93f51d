// zarr.codec.shuffle: numcodecs' byte shuffle (numcodecs documentation, "Shuffle";
// numcodecs/_shuffle.pyx: out[j * count + i] = in[i * elementsize + j]).
module;
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.shuffle;

namespace zarr {
namespace json = boost::json;

shuffle_configuration shuffle_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"elementsize"});
  return {static_cast<std::uint64_t>(integer_member(config, "elementsize", 0, std::int64_t{1} << 32, 4, ctx.where))};
}

shuffle_codec::shuffle_codec(const shuffle_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {}

json::value shuffle_codec::to_json() const {
  return json::object{{"name", name()}, {"configuration", json::object{{"elementsize", config_.elementsize}}}};
}

void shuffle_codec::permute(std::span<const std::byte> in, std::span<std::byte> out, bool encoding) const {
  const auto size = config_.elementsize;
  if (size <= 1) {
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    return;
  }
  if (in.size() % size != 0)
    throw error(encoding ? errc::invalid_argument : errc::corrupt_chunk,
                label() + ": expected a multiple of elementsize " + std::to_string(size) + " bytes, got " +
                    std::to_string(in.size()));
  const std::size_t count = in.size() / size;
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t j = 0; j < size; ++j) {
      if (encoding) out[j * count + i] = in[i * size + j];
      else out[i * size + j] = in[j * count + i];
    }
}

bytes shuffle_codec::encode(std::span<const std::byte> in) const {
  bytes out(in.size());
  permute(in, out, true);
  return out;
}

bytes shuffle_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  if (in.size() > limit)
    throw error(errc::corrupt_chunk, label() + ": expected at most " + std::to_string(limit) + " bytes, got " +
                                         std::to_string(in.size()));
  bytes out(in.size());
  permute(in, out, false);
  return out;
}

void shuffle_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  if (in.size() != out.size())
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(out.size()) + " bytes, got " +
                                         std::to_string(in.size()));
  permute(in, out, false);
}

std::unique_ptr<bytes_to_bytes_codec> make_shuffle_codec(const codec_context& ctx) {
  return std::make_unique<shuffle_codec>(shuffle_configuration::parse(ctx), ctx.where);
}

}  // namespace zarr
