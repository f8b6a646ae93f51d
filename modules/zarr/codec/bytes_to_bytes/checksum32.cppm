// zarr.codec.checksum32: numcodecs' 32-bit checksum bytes -> bytes codecs, one class as in
// numcodecs/checksum32.py: `crc32` (ISO-HDLC CRC-32, zlib's crc32) and `adler32` (RFC 1950) put
// the checksum as 4 bytes little-endian *before* the data (numcodecs 0.11); `fletcher32` (HDF5's
// H5_checksum_fletcher32, numcodecs/fletcher32.pyx) and `jenkins_lookup3` (Bob Jenkins' lookup3
// hashlittle, HDF5's H5_checksum_lookup3; numcodecs >= 0.12) put it *after* the data, and so does
// `crc32c` (the Castagnoli CRC of the crc32c codec; numcodecs >= 0.13, zarr-extensions
// codecs/numcodecs.crc32c). crc32, adler32 and crc32c take numcodecs 0.13's "location": "start"
// or "end". Configuration: v2 {"id": "crc32"}, {"id": "adler32", "location": "end"},
// {"id": "fletcher32"}, {"id": "crc32c"}, {"id": "jenkins_lookup3", "initval": 0, "prefix": null};
// v3 {"name": "numcodecs.crc32"}, ..., {"name": "numcodecs.jenkins_lookup3", "configuration":
// {"initval": 0}}. A non-null `prefix` (bytes hashed before the data, which numcodecs cannot
// write to JSON) is refused.
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

enum class checksum32_kind : std::uint8_t { crc32, adler32, fletcher32, jenkins_lookup3, crc32c };

// The checksum of `data` (crc32("123456789") == 0xCBF43926, adler32("Wikipedia") == 0x11E60398,
// jenkins_lookup3("Four score and seven years ago", 0) == 0x17770551); `initval` seeds
// jenkins_lookup3 only.
[[nodiscard]] std::uint32_t checksum32(checksum32_kind kind, std::span<const std::byte> data,
                                       std::uint32_t initval = 0) noexcept;

class checksum32_codec final : public bytes_to_bytes_codec {
 public:
  // `at_end`: where the checksum goes; nothing for the kind's own place (crc32 and adler32
  // first, the others last).
  checksum32_codec(checksum32_kind kind, std::string where, std::uint32_t initval = 0,
                   std::optional<bool> at_end = std::nullopt);

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
  std::uint32_t initval_;
  bool at_end_;  // the checksum after the data, else before it
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
  // The data beside the checksum, once checked (errc::corrupt_chunk otherwise).
  [[nodiscard]] std::span<const std::byte> checked_body(std::span<const std::byte> in) const;
};

[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_crc32_codec(const codec_context& ctx);
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_adler32_codec(const codec_context& ctx);
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_fletcher32_codec(const codec_context& ctx);
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_jenkins_lookup3_codec(const codec_context& ctx);
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_numcodecs_crc32c_codec(const codec_context& ctx);

}  // namespace zarr
