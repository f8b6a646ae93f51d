// zarr.codec.bz2: numcodecs' `bz2` bytes -> bytes codec, a bzip2 stream (numcodecs
// documentation, "BZ2"; Python's bz2.compress and bz2.decompress, libbz2).
// Configuration: v2 {"id": "bz2", "level": 1}, v3 {"name": "numcodecs.bz2", "configuration": {"level": 1}}
// (level 1 to 9, the block size in 100 kB; numcodecs' default 1).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.bz2;

export import zarr.codec;

export namespace zarr {

struct bz2_configuration {
  int level = 1;

  [[nodiscard]] static bz2_configuration parse(const codec_context& ctx);
};

class bz2_codec final : public bytes_to_bytes_codec {
 public:
  bz2_codec(const bz2_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.bz2"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;

 private:
  bz2_configuration config_;
  // One or more concatenated bzip2 streams (as Python's bz2.decompress reads them); the
  // output grows with the data produced, never past `limit` (bombs refused).
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
};

[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_bz2_codec(const codec_context& ctx);

}  // namespace zarr
