// zarr.codec.zlib: numcodecs' `zlib` bytes -> bytes codec, DEFLATE in the zlib format, RFC 1950
// (numcodecs documentation, "Zlib"; Python's zlib.compress and zlib.decompress).
// Configuration: v2 {"id": "zlib", "level": 1}, v3 {"name": "numcodecs.zlib", "configuration": {"level": 1}}
// (level 0 to 9; numcodecs' default 1).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.zlib;

export import zarr.codec;

export namespace zarr {

struct zlib_configuration {
  int level = 1;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static zlib_configuration parse(const codec_context& ctx);
};

class zlib_codec final : public bytes_to_bytes_codec {
 public:
  zlib_codec(const zlib_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.zlib"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;

 private:
  zlib_configuration config_;
  // Growing with the output actually produced, never beyond `limit` (bombs refused).
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
};

[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_zlib_codec(const codec_context& ctx);

}  // namespace zarr
