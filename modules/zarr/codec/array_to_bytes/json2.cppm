// zarr.codec.json2: numcodecs' `json2` object codec (numcodecs documentation, "JSON"), the
// array -> bytes codec of a `string` array: a chunk is the JSON text of the chunk's elements as
// nested lists (NumPy's tolist, C order), then NumPy's type string and the shape:
// [["a", "b"], ["c", "d"], "|O", [2, 2]]. Configuration: v2 {"id": "json2", "encoding": "utf-8",
// "ensure_ascii": true, "separators": [",", ":"], ...}, v3 {"name": "numcodecs.json2",
// "configuration": {...the same...}}; every key numcodecs writes is taken, and written back
// (docs/decisions.md 74).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.json2;

export import zarr.codec;

export namespace zarr {

class json2_codec final : public array_to_bytes_codec {
 public:
  // `decoded.type` is string; `configuration` numcodecs' (checked by make_json2_codec).
  json2_codec(const chunk_spec& decoded, boost::json::object configuration, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.json2"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] bool variable_length() const noexcept override { return true; }
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override { return default_decode_limit; }

  // The JSON numcodecs writes (ASCII with \u escapes when ensure_ascii, its item separator);
  // errc::invalid_argument naming an element that is not UTF-8.
  void encode_elements(std::span<const std::string> elements, bytes& out) const override;
  // errc::corrupt_chunk for text that is not JSON, a shape other than the chunk's, lists that do
  // not nest as the shape says, and an element that is not a string (the integer 0,
  // zarr-python 2's fill of object arrays, is the empty string), naming the element.
  void decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const override;

 protected:
  // The fixed-size paths: errc::invalid_argument (elements go through the two above).
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
  boost::json::object configuration_;
  bool ascii_;
  std::string separator_;
};

[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_json2_codec(const codec_context& ctx);

}  // namespace zarr
