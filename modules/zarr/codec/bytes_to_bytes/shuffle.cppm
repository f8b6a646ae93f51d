// zarr.codec.shuffle: numcodecs' `shuffle` bytes -> bytes codec: the bytes of n elements of
// `elementsize` bytes regrouped by position, byte 0 of every element first (numcodecs
// documentation, "Shuffle").
// Configuration: v2 {"id": "shuffle", "elementsize": 4}, v3 {"name": "numcodecs.shuffle",
// "configuration": {"elementsize": 4}} (numcodecs' default 4; 0 or 1: bytes unchanged).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.shuffle;

export import zarr.codec;

export namespace zarr {

struct shuffle_configuration {
  std::uint64_t elementsize = 4;

  [[nodiscard]] static shuffle_configuration parse(const codec_context& ctx);
};

class shuffle_codec final : public bytes_to_bytes_codec {
 public:
  shuffle_codec(const shuffle_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.shuffle"; }
  [[nodiscard]] boost::json::value to_json() const override;
  // errc::invalid_argument when the size is not a multiple of elementsize (numcodecs' ValueError).
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  [[nodiscard]] std::optional<std::uint64_t> encoded_size(std::uint64_t decoded_size) const noexcept override {
    return decoded_size;
  }

 private:
  shuffle_configuration config_;
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
  // Moves byte j of element i from i * size + j to j * count + i (encoding), or back.
  void permute(std::span<const std::byte> in, std::span<std::byte> out, bool encoding) const;
};

[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_shuffle_codec(const codec_context& ctx);

}  // namespace zarr
