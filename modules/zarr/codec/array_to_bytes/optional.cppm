// zarr.codec.optional: the `optional` array -> bytes codec (zarr-extensions proposal
// codecs/optional, README "Encoded format"): an optional array (proposal data-types/optional) as
// a validity mask and the values of its elements that have one, each through a chain of its own.
// Encoded: the mask's encoded length and the values' (uint64 little-endian each), the encoded
// mask, the encoded values. The mask chain receives a bool array of the chunk's shape; the data
// chain a one-dimensional array of the present values, in C order, of the wrapped type (no bytes
// at all when no element has a value: docs/decisions.md 71). An optional type of variable-length
// elements (an optional string) takes its elements as strings, each the wrapped element then its
// validity byte.
// Configuration: {"name": "optional", "configuration": {"mask_codecs": [{"name": "packbits"}],
//   "data_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip"}]}}
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec.optional;

export import zarr.codec;

export namespace zarr {

class optional_codec final : public array_to_bytes_codec {
 public:
  // `document` is the zarr.json text the configuration comes from (or empty), kept so that the
  // data chain, built for each chunk's count of values, reads scalars in it exactly. Throws
  // zarr::error naming `<where>.configuration...` for a data type that is not optional or a
  // chain that does not take the mask or the values.
  optional_codec(const boost::json::value& mask_codecs, const boost::json::value& data_codecs, const chunk_spec& decoded,
                 std::string where, std::string_view document = {});

  [[nodiscard]] std::string_view name() const noexcept override { return "optional"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override;
  [[nodiscard]] bool variable_length() const noexcept override { return variable_; }
  // errc::invalid_value for an element that does not end in a validity byte 0 or 1, or is null
  // with more than that byte.
  void encode_elements(std::span<const std::string> elements, bytes& out) const override;
  void decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const override;
  void check_elements(std::span<const std::string> elements) const override;

 protected:
  // errc::invalid_value for an element whose validity byte is neither 0 nor 1.
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  // errc::corrupt_chunk for lengths that do not add up to the stored bytes, or a mask of other
  // than bools; what the two chains throw for their parts.
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
  chunk_spec values_;  // the data chain's decoded representation, for every element present
  boost::json::value data_codecs_;
  std::string document_;
  std::unique_ptr<codec_chain> mask_;
  std::unique_ptr<codec_chain> data_;  // for values_: checks the configuration, and serves a chunk of no null
  bool variable_ = false;              // the wrapped elements differ in length

  // The two lengths and the encoded mask and data, into `out`.
  void assemble(const bytes& encoded_mask, const bytes& encoded_data, bytes& out) const;
  // The encoded mask decoded and checked (corrupt_chunk), and the encoded data after it.
  [[nodiscard]] std::pair<bytes, std::span<const std::byte>> split(std::span<const std::byte> encoded) const;
  // The values of the present elements of a variable-length type (their validity bytes
  // checked), and the mask of all.
  [[nodiscard]] std::vector<std::string> present_elements(std::span<const std::string> elements, bytes* mask) const;
  // Whether element `i` (its bytes, or a string) holds a value: zarr.sized's optional_has_value,
  // its error naming this codec and the element.
  template <class Element>
  [[nodiscard]] bool has_value(const Element& element, std::size_t i) const;

  // The data chain for `count` values (count >= 1).
  [[nodiscard]] std::unique_ptr<codec_chain> data_chain(std::uint64_t count) const;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_optional_codec(const codec_context& ctx);

}  // namespace zarr
