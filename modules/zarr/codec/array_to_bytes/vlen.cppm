// zarr.codec.vlen: the `vlen-utf8` and `vlen-bytes` array -> bytes codecs of the variable-length
// data types `string` and `bytes` (zarr-extensions codecs/vlen-utf8 and codecs/vlen-bytes;
// the layout is numcodecs' VLenUTF8 and VLenBytes): a chunk is a u32le count of elements, then
// each element in C order as a u32le length and that many bytes (UTF-8 for vlen-utf8).
// Configuration: none ({"name": "vlen-utf8"}).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.vlen;

export import zarr.codec;

export namespace zarr {

class vlen_codec final : public array_to_bytes_codec {
 public:
  // `decoded.type` is string (vlen-utf8) or bytes (vlen-bytes).
  vlen_codec(const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override;
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] bool variable_length() const noexcept override { return true; }
  // No bound follows from the chunk's shape: a decoder before this one stops at the default limit.
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override { return default_decode_limit; }

  // errc::invalid_argument for an element longer than 2^32 - 1 bytes, or, for vlen-utf8, one
  // that is not UTF-8 (naming the element).
  void encode_elements(std::span<const std::string> elements, bytes& out) const override;
  // errc::corrupt_chunk for a count other than the chunk's, a length past the end, bytes after
  // the last element, or (vlen-utf8) an element that is not UTF-8, naming the element.
  void decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const override;

 protected:
  // The fixed-size paths: errc::invalid_argument (strings go through the two above).
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
};

// The registry's factories: each takes only its own data type, and no configuration.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_vlen_utf8_codec(const codec_context& ctx);
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_vlen_bytes_codec(const codec_context& ctx);

}  // namespace zarr
