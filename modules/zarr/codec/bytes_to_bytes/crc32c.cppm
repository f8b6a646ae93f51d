// zarr.codec.crc32c: the `crc32c` bytes -> bytes codec, which appends the CRC32C
// (Castagnoli, RFC 3720) of its input as 4 bytes little-endian (Zarr v3 codecs/crc32c).
// Configuration: {"name": "crc32c"} (no configuration keys).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.crc32c;

export import zarr.codec;

export namespace zarr {

enum class crc32c_method : std::uint8_t {
  automatic,  // the SSE4.2 instruction when the CPU has it, else the table
  table,      // portable, table driven (slicing by 8)
  sse42,      // the SSE4.2 crc32 instruction (errc::unsupported without it)
};

// True when this CPU can use crc32c_method::sse42.
[[nodiscard]] bool crc32c_has_sse42() noexcept;

// The CRC32C of `data` (crc32c("123456789") == 0xE3069283).
[[nodiscard]] std::uint32_t crc32c(std::span<const std::byte> data, crc32c_method method = crc32c_method::automatic);

// The configuration: an empty object (every key is an error).
struct crc32c_configuration {
  [[nodiscard]] static crc32c_configuration parse(const codec_context& ctx);
  // {"name": ..., "configuration": {...}}: the one serialisation, the codec's and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

class crc32c_codec final : public bytes_to_bytes_codec {
 public:
  // `where` names the codec in messages ("codecs[2]").
  explicit crc32c_codec(std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "crc32c"; }
  // {"name": "crc32c", "configuration": {}}
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  // Verifies the checksum and copies the rest into `out`.
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;
  [[nodiscard]] std::optional<std::uint64_t> encoded_size(std::uint64_t decoded_size) const noexcept override {
    return decoded_size + 4;
  }

 private:

  // Verifies and strips the checksum; errc::corrupt_chunk when it does not match or the
  // input is shorter than 4 bytes (or longer than `limit` + 4).
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
  // The body after checking its checksum.
  [[nodiscard]] std::span<const std::byte> checked_body(std::span<const std::byte> in) const;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_crc32c_codec(const codec_context& ctx);

}  // namespace zarr
