// zarr.codec.categorize: numcodecs' `categorize` array -> array codec (numcodecs documentation,
// "Categorize"): each string of a `string` array becomes its label's number, 1 for the first
// label, and 0 for the empty string when no label is empty; decoding gives the labels back, 0
// the empty string. A fixed_length_utf32 array (NumPy's "<U5") is categorized the same way,
// element by element (its "dtype" is "<U5"; docs/decisions.md 72). Configuration: v2 {"id": "categorize", "labels": ["female", "male"],
// "dtype": "|O", "astype": "|u1"}, v3 {"name": "numcodecs.categorize", "configuration": {...the
// same...}} (astype absent: "|u1"). docs/decisions.md 62: a string that is no label, which
// numcodecs stores as 0 and reads back as "", is an error; so is a stored number past the labels.
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec.categorize;

export import zarr.codec;

export namespace zarr {

class categorize_codec final : public array_to_array_codec {
 public:
  // `decoded.type` is string or fixed_length_utf32, `dtype` numcodecs' name of it ("|O", "<U5");
  // `encode_type` an integer type with room for labels.size().
  categorize_codec(std::vector<std::string> labels, data_type encode_type, const chunk_spec& decoded, std::string dtype,
                   std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.categorize"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }
  [[nodiscard]] const std::vector<std::string>& labels() const noexcept { return labels_; }

  [[nodiscard]] bool takes_elements() const noexcept override { return decoded_.type == data_type::string; }
  // errc::invalid_value naming the element for a string that is neither a label nor empty.
  [[nodiscard]] bytes encode_elements(std::span<const std::string> elements) const override;
  void check_elements(std::span<const std::string> elements) const override;
  // errc::corrupt_chunk naming the element for a number that is no label's (negative, or past
  // the last label).
  void decode_elements(std::span<const std::byte> in, std::span<std::string> out) const override;

 protected:
  // The buffer paths, for fixed_length_utf32: as for strings, an element that is no label (nor
  // empty) is errc::invalid_value, a number past the labels errc::corrupt_chunk, naming the
  // element; so is the number of a label longer than the element. For strings:
  // errc::invalid_argument (they go through the two above).
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  std::vector<std::string> labels_;
  std::string dtype_;
  std::vector<std::string> label_units_;  // fixed_length_utf32: each label's padded code units, empty when too long
  std::unordered_map<std::string, std::uint64_t> numbers_;  // label (or its units) -> its number (the last, as numcodecs)
  chunk_spec decoded_;
  chunk_spec encoded_;
  std::size_t width_;        // bytes per decoded element (fixed_length_utf32's code units)
  std::size_t number_size_;  // bytes per stored number

  // The number of `element` (element `i`): errc::invalid_value unless a label or empty.
  [[nodiscard]] std::uint64_t number_of(const std::string& element, std::size_t i) const;
  // The number stored as element `i` of `in`: errc::corrupt_chunk past the labels.
  [[nodiscard]] std::uint64_t number_at(std::span<const std::byte> in, std::size_t i) const;
};

[[nodiscard]] std::unique_ptr<array_to_array_codec> make_categorize_codec(const codec_context& ctx);

}  // namespace zarr
