// zarr.codec.lz4: numcodecs' `lz4` bytes -> bytes codec: the decoded size as 4 bytes
// little-endian, then one LZ4 block (numcodecs documentation, "LZ4"; numcodecs/lz4.pyx;
// the LZ4 block format of liblz4).
// Configuration: v2 {"id": "lz4", "acceleration": 1}, v3 {"name": "numcodecs.lz4",
// "configuration": {"acceleration": 1}} (acceleration >= 1; numcodecs' default 1).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.lz4;

export import zarr.codec;

export namespace zarr {

struct lz4_configuration {
  int acceleration = 1;

  [[nodiscard]] static lz4_configuration parse(const codec_context& ctx);
};

class lz4_codec final : public bytes_to_bytes_codec {
 public:
  lz4_codec(const lz4_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.lz4"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;

 private:
  lz4_configuration config_;
  // A header declaring more than `limit` bytes is refused before anything is allocated.
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
  // The declared size, checked against the input and `limit`.
  [[nodiscard]] std::uint32_t declared_size(std::span<const std::byte> in, std::uint64_t limit) const;
};

[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_lz4_codec(const codec_context& ctx);

}  // namespace zarr
