// zarr.codec.checksum32: numcodecs' 32-bit checksum bytes -> bytes codecs `crc32` (ISO-HDLC
// CRC-32, zlib's crc32) and `adler32` (RFC 1950), which put the checksum of the data as 4 bytes
// little-endian *before* it (numcodecs 0.11 documentation, "Checksum codecs"; numcodecs/
// checksum32.py, where both are one class, Checksum32, as here).
// Configuration: v2 {"id": "crc32"} or {"id": "adler32"}; v3 {"name": "numcodecs.crc32"},
// {"name": "numcodecs.adler32"} (no configuration keys).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.checksum32;

export import zarr.codec;

export namespace zarr {

enum class checksum32_kind : std::uint8_t { crc32, adler32 };

// The checksum of `data` (crc32("123456789") == 0xCBF43926, adler32("Wikipedia") == 0x11E60398).
[[nodiscard]] std::uint32_t checksum32(checksum32_kind kind, std::span<const std::byte> data) noexcept;

class checksum32_codec final : public bytes_to_bytes_codec {
 public:
  checksum32_codec(checksum32_kind kind, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override;
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  // Verifies the checksum and copies the rest into `out`.
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  [[nodiscard]] std::optional<std::uint64_t> encoded_size(std::uint64_t decoded_size) const noexcept override {
    return decoded_size + 4;
  }

 private:
  checksum32_kind kind_;
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
  // The data after the checksum, once checked (errc::corrupt_chunk otherwise).
  [[nodiscard]] std::span<const std::byte> checked_body(std::span<const std::byte> in) const;
};

[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_crc32_codec(const codec_context& ctx);
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_adler32_codec(const codec_context& ctx);

}  // namespace zarr
