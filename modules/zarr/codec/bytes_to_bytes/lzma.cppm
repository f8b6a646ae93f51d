// zarr.codec.lzma: numcodecs' `lzma` bytes -> bytes codec, an .xz stream or a legacy .lzma
// one (numcodecs documentation, "LZMA"; Python's lzma.compress and lzma.decompress, liblzma).
// Configuration: v2 {"id": "lzma", "format": 1, "check": -1, "preset": null, "filters": null},
// v3 {"name": "numcodecs.lzma", "configuration": {...the same...}} (format 1 .xz or 2 .lzma;
// check -1 default, 0 none, 1 CRC32, 4 CRC64, 10 SHA-256; preset 0 to 9 or null = 6; custom
// filter chains and raw streams are not supported).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.lzma;

export import zarr.codec;

export namespace zarr {

struct lzma_configuration {
  int format = 1;  // Python's lzma.FORMAT_XZ (1) or FORMAT_ALONE (2)
  int check = -1;  // -1: the format's default (CRC64 for .xz)
  int preset = 6;  // the compression preset when none is given
  bool preset_given = false;

  [[nodiscard]] static lzma_configuration parse(const codec_context& ctx);
};

class lzma_codec final : public bytes_to_bytes_codec {
 public:
  lzma_codec(const lzma_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.lzma"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;

 private:
  lzma_configuration config_;
  // Concatenated streams of the configured format; a stream asking for more than 1 GiB of
  // decoder memory, or output beyond `limit`, is refused before the memory is taken.
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
};

[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_lzma_codec(const codec_context& ctx);

}  // namespace zarr
