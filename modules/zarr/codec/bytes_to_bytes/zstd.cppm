// zarr.codec.zstd: the `zstd` bytes -> bytes codec: Zstandard frames, RFC 8878
// (zarr-extensions codecs/zstd).
// Configuration: {"name": "zstd", "configuration": {"level": 3, "checksum": true}}
// (level -131072 to 22, required, 0 = zstd's default; checksum optional, default false).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.zstd;

export import zarr.codec;

export namespace zarr {

// The JSON configuration: {"level": -131072..22, "checksum": bool}.
struct zstd_configuration {
  int level = 0;
  bool checksum = false;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static zstd_configuration parse(const codec_context& ctx);
  // "checksum" is written only when true (zarr-extensions codecs/zstd: "Should be omitted if false").
  [[nodiscard]] boost::json::value to_json() const;
};

class zstd_codec final : public bytes_to_bytes_codec {
 public:
  // `config` as parse() checked it. `where` names the codec in messages ("codecs[1]").
  zstd_codec(const zstd_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "zstd"; }
  [[nodiscard]] boost::json::value to_json() const override { return config_.to_json(); }
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  void encode_into(std::span<const std::byte> in, bytes& out) const override;
  // Straight into `out`; a frame declaring another content size is refused unread.
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;

  [[nodiscard]] const zstd_configuration& configuration() const noexcept { return config_; }

 private:
  zstd_configuration config_;

  // One or more frames; errc::corrupt_chunk for invalid or truncated data, a wrong
  // checksum, or more than `limit` bytes of output: a frame declaring a larger content size
  // is refused before anything is allocated; one without is decoded into a growing buffer.
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_zstd_codec(const codec_context& ctx);
// numcodecs' Zstd configuration as `zstd`'s: numcodecs 0.11's defaults (level 1, no checksum)
// when absent.
[[nodiscard]] boost::json::object zstd_from_numcodecs(boost::json::object configuration);

}  // namespace zarr
