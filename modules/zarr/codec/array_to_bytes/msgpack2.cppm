// zarr.codec.msgpack2: numcodecs' `msgpack2` object codec (numcodecs documentation, "MsgPack"),
// the array -> bytes codec of a `string` or `bytes` array: a chunk is the MessagePack encoding
// (github.com/msgpack/msgpack, spec.md) of one array holding the chunk's elements as nested
// arrays (NumPy's tolist, C order), then NumPy's type string "|O" and the shape:
// [["a", "b"], ["c", "d"], "|O", [2, 2]]. Configuration: v2 {"id": "msgpack2", "raw": false,
// "use_bin_type": true, "use_single_float": false}, v3 {"name": "numcodecs.msgpack2",
// "configuration": {...the same...}}, taken and written back (docs/decisions.md 75).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.msgpack2;

export import zarr.codec;

export namespace zarr {

class msgpack2_codec final : public array_to_bytes_codec {
 public:
  // `decoded.type` is string or bytes; `configuration` numcodecs' (checked by make_msgpack2_codec).
  msgpack2_codec(const chunk_spec& decoded, boost::json::object configuration, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.msgpack2"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] bool variable_length() const noexcept override { return true; }
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override { return default_decode_limit; }

  // What Python's msgpack packs (the smallest form of each length and integer): strings as str,
  // byte strings as bin when use_bin_type, else as str without str 8 (MessagePack's old raw);
  // errc::invalid_argument naming an element that is not UTF-8 (string) or of 4 GiB or more.
  void encode_elements(std::span<const std::string> elements, bytes& out) const override;
  // errc::corrupt_chunk naming the byte for a stream that is not MessagePack, and for a type
  // other than "|O", a shape of another element count, arrays that do not nest as the shape
  // says, or an element of another kind than the array's (string: str, UTF-8; bytes: bin or str;
  // the integer 0, zarr-python 2's fill of object arrays, is the empty value), naming the element.
  void decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const override;

 protected:
  // The fixed-size paths: errc::invalid_argument (elements go through the two above).
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
  boost::json::object configuration_;
  bool bin_type_;
};

[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_msgpack2_codec(const codec_context& ctx);

}  // namespace zarr
