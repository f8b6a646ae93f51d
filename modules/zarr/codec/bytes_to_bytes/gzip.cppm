// zarr.codec.gzip: the `gzip` bytes -> bytes codec: DEFLATE in the gzip format, RFC 1952
// (spec/codec-gzip.md).
// Configuration: {"name": "gzip", "configuration": {"level": 5}} (level 0 to 9, required).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.gzip;

export import zarr.codec;

export namespace zarr {

// Decoding stops with errc::corrupt_chunk once the output would exceed this many bytes (4 GiB),
// so that a small "gzip bomb" cannot make the decoder allocate without bound. The output grows
// progressively: memory follows the data actually produced, never a size read from the input.
inline constexpr std::uint64_t gzip_max_decoded_size = std::uint64_t{1} << 32;

// The JSON configuration: {"level": 0..9}.
struct gzip_configuration {
  int level = 6;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static gzip_configuration parse(const codec_context& ctx);
};

class gzip_codec final : public bytes_to_bytes_codec {
 public:
  // errc::invalid_argument when the level is outside 0..9. `where` names the codec in
  // messages ("codecs[1]"); `max_decoded_size` bounds the output of decode().
  gzip_codec(const gzip_configuration& config, std::string where,
             std::uint64_t max_decoded_size = gzip_max_decoded_size);

  [[nodiscard]] std::string_view name() const noexcept override { return "gzip"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  // Accepts one or more concatenated gzip members (and zlib streams); errc::corrupt_chunk for
  // anything else, for truncated data, and beyond max_decoded_size.
  [[nodiscard]] bytes decode(std::span<const std::byte> in) const override;

  [[nodiscard]] const gzip_configuration& configuration() const noexcept { return config_; }

 private:
  gzip_configuration config_;
  std::string where_;
  std::uint64_t max_decoded_size_;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_gzip_codec(const codec_context& ctx);

}  // namespace zarr
