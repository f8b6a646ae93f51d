// zarr.codec.packbits: the `packbits` array -> bytes codec, which stores bits first_bit..last_bit
// of every component back to back, least significant bit first (zarr-extensions codecs/packbits;
// docs/decisions.md 22). Configuration:
//   {"name": "packbits", "configuration": {"padding_encoding": "none", "first_bit": 0, "last_bit": 3}}
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec.packbits;

export import zarr.codec;

export namespace zarr {

// Where the count of padding bits (0..7) is stored: nowhere, in a byte before the packed
// bits, or in a byte after them.
enum class packbits_padding : std::uint8_t { none, first_byte, last_byte };

// The JSON configuration, with the README's key names (docs/decisions.md 22). schema.json's
// start_bit / end_bit / start_byte / end_byte are rejected with a message naming the
// README's name. A bit left out (or null) takes its default when the codec is built.
struct packbits_configuration {
  packbits_padding padding_encoding = packbits_padding::none;
  std::optional<std::uint64_t> first_bit = {};
  std::optional<std::uint64_t> last_bit = {};

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static packbits_configuration parse(const codec_context& ctx);
  // {"name": "packbits", "configuration": {...}}, first_bit and last_bit when given: the one
  // serialisation, the codec's and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

// How packbits sees a data type: `components` values (2 for complex) of `bits` bits each (N),
// each stored in memory in `component_size` bytes. Nothing for a type packbits does not take
// (the variable-length and sized types, float8_e4m3fn).
struct packbits_layout {
  int components;
  int bits;
  int component_size;
};
[[nodiscard]] std::optional<packbits_layout> packbits_layout_of(data_type type) noexcept;

class packbits_codec final : public array_to_bytes_codec {
 public:
  // Throws zarr::error (invalid_metadata) naming `<where>` or `<where>.configuration.<key>`
  // for an unsupported data type, first_bit >= N, last_bit >= N, or last_bit < first_bit;
  // for an integer fill value that the chosen bits cannot hold.
  packbits_codec(const packbits_configuration& config, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "packbits"; }
  // Every member written out, the defaults resolved.
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] std::optional<std::uint64_t> encoded_size() const noexcept override { return size_; }
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }

  [[nodiscard]] packbits_padding padding() const noexcept { return padding_; }
  [[nodiscard]] int first_bit() const noexcept { return first_; }
  [[nodiscard]] int last_bit() const noexcept { return last_; }
  // k: the bits of one element (components * (last_bit - first_bit + 1)).
  [[nodiscard]] int bits_per_element() const noexcept { return layout_.components * (last_ - first_ + 1); }

 protected:
  // For an integer type whose bits are limited by first_bit/last_bit, an element that would
  // not decode to itself is errc::out_of_range naming the element and value (never wrapped).
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  // errc::corrupt_chunk when `encoded` is not exactly encoded_size() bytes or its padding
  // byte is not the number of padding bits.
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  void check_representable(std::span<const std::byte> array) const;

  chunk_spec decoded_;
  packbits_layout layout_{};
  packbits_padding padding_ = packbits_padding::none;
  int first_ = 0;
  int last_ = 0;
  bool is_signed_ = false;
  std::uint64_t packed_bytes_ = 0;  // without the padding byte
  int padding_bits_ = 0;
  std::uint64_t size_ = 0;          // with it
  std::vector<std::uint8_t> unpack_table_;  // 1-, 2- and 4-bit one-byte types: 256 rows of 8 decoded bytes
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_packbits_codec(const codec_context& ctx);

}  // namespace zarr
