// zarr.codec.gzip: the `gzip` bytes -> bytes codec: DEFLATE in the gzip format, RFC 1952
// (Zarr v3 codecs/gzip).
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

// The JSON configuration: {"level": 0..9}.
struct gzip_configuration {
  int level = 6;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static gzip_configuration parse(const codec_context& ctx);
  // {"name": ..., "configuration": {...}}: the one serialisation, the codec's and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

class gzip_codec final : public bytes_to_bytes_codec {
 public:
  // `config` as parse() checked it. `where` names the codec in messages ("codecs[1]").
  gzip_codec(const gzip_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "gzip"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  // Straight into `out`, stopping at its end.
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;

  [[nodiscard]] const gzip_configuration& configuration() const noexcept { return config_; }

 private:
  gzip_configuration config_;

  // Accepts one or more concatenated gzip members (and zlib streams); errc::corrupt_chunk for
  // anything else, for truncated data, and beyond `limit` bytes of output (a "gzip bomb"):
  // the output grows with the data actually produced, never from a size read in the input.
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
};

// zlib's DEFLATE, shared with numcodecs.zlib: `in` compressed at `level` in the format of
// `window_bits` (15: zlib, RFC 1950; 15 + 16: gzip, RFC 1952); and the inverse, which reads one or
// more zlib or gzip streams (bombs refused as gzip_codec::decode_bytes says). `label` names the
// codec in errors ("codecs[1] (gzip)"), `format` the stream expected ("gzip").
[[nodiscard]] bytes deflate_bytes(std::span<const std::byte> in, int level, int window_bits, const std::string& label);
[[nodiscard]] bytes inflate_bytes(std::span<const std::byte> in, std::uint64_t limit, const std::string& label,
                                  std::string_view format);
void inflate_bytes_into(std::span<const std::byte> in, std::span<std::byte> out, const std::string& label,
                        std::string_view format);

// The registry's factory.
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_gzip_codec(const codec_context& ctx);
// numcodecs' GZip configuration as `gzip`'s: numcodecs 0.11's default level 1 when absent.
[[nodiscard]] boost::json::object gzip_from_numcodecs(boost::json::object configuration);

}  // namespace zarr
