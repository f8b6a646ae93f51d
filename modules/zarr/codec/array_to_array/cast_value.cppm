// zarr.codec.cast_value: the `cast_value` array -> array codec, which converts the numerical
// value of every element to another data type (zarr-extensions codecs/cast_value; docs/decisions.md 7-13).
// Configuration: {"name": "cast_value", "configuration": {"data_type": "uint8",
//   "rounding": "towards-zero", "out_of_range": "clamp",
//   "scalar_map": {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}}}
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec.cast_value;

export import zarr.codec;
export import zarr.arithmetic;
export import zarr.element;

export namespace zarr {

// One [input, output] pair of a scalar_map direction, as given (duplicates included). Given as
// C++ values (array_builder), each is converted exactly to its direction's type.
struct scalar_map_entry {
  typed_value in;
  typed_value out;
};

// The JSON configuration. Both types are among the 26 numeric types, `wrap` only comes with
// an integer `type`, and every scalar_map entry holds values of its types: parse checks all
// of it against the array type at the codec's position (ctx.decoded.type).
struct cast_value_configuration {
  zarr::data_type data_type = zarr::data_type::float64;  // the encoded type
  rounding_mode rounding = rounding_mode::nearest_even;
  out_of_range_mode out_of_range = out_of_range_mode::error;  // error = the absent key
  std::vector<scalar_map_entry> encode_map = {};  // array type -> `data_type`
  std::vector<scalar_map_entry> decode_map = {};  // `data_type` -> array type

  // Parses ctx.configuration; errors (invalid_metadata) name `<ctx.where>.configuration.<key>`,
  // down to "codecs[0].configuration.scalar_map.encode[1][0]".
  [[nodiscard]] static cast_value_configuration parse(const codec_context& ctx);
  // {"name": "cast_value", "configuration": {...}} for a codec that receives `type`: the
  // scalar_map values converted exactly to their types (zarr::convert_value; errors name
  // `<where>.configuration.scalar_map.encode[i][k]`). The one serialisation, the codec's and
  // array_builder's.
  [[nodiscard]] boost::json::value to_json(zarr::data_type type, std::string_view where) const;
};

// scalar_map of one direction, ready for lookups: keys match by value (every NaN matches a
// NaN key; 0 and -0 differ), the first occurrence of a key wins.
class scalar_lookup {
 public:
  scalar_lookup() = default;
  scalar_lookup(data_type from, const std::vector<scalar_map_entry>& entries);

  [[nodiscard]] bool empty() const noexcept { return !nan_key_ && keys_.empty(); }
  [[nodiscard]] bool has_nan_key() const noexcept { return nan_key_; }
  // Raw bits of the non-NaN keys (first occurrences only) and of their outputs; the output
  // of the NaN key.
  [[nodiscard]] const std::vector<std::uint64_t>& keys() const noexcept { return keys_; }
  [[nodiscard]] const std::vector<std::uint64_t>& outputs() const noexcept { return outs_; }
  [[nodiscard]] std::uint64_t nan_output() const noexcept { return nan_out_; }
  // The output raw bits for input raw bits `raw`, if a key matches.
  [[nodiscard]] std::optional<std::uint64_t> find(std::uint64_t raw) const noexcept;

 private:
  data_type from_ = data_type::float64;
  bool nan_key_ = false;
  std::uint64_t nan_out_ = 0;
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint64_t> outs_;
};

class cast_value_codec final : public array_to_array_codec {
 public:
  // Casts the fill value of `decoded` to `config.data_type` (with scalar_map.encode) and checks
  // that it casts back to itself (docs/decisions.md 13): zarr::error (invalid_metadata) naming
  // `where` ("codecs[0]") and the fill value otherwise; what zarr::convert_value throws for a
  // scalar_map value that is no value of its type.
  cast_value_codec(const cast_value_configuration& config, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "cast_value"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }
  // Elementwise in each direction without a scalar_map.
  [[nodiscard]] std::optional<element_step> step(bool encoding) const override;
  [[noreturn]] void throw_step_error(const kernel_result& r, bool encoding) const override;

  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] const cast_value_configuration& configuration() const noexcept { return config_; }

 protected:
  // Throw one zarr::error (out_of_range, invalid_value) for the first element that neither
  // scalar_map nor the cast can convert, naming the codec, the element index and its value.
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  // One direction of the codec: source and target types, its scalar_map, and for 8-bit
  // sources a table of all 256 results with the map applied.
  struct direction {
    data_type from = data_type::float64;
    data_type to = data_type::float64;
    rounding_mode rounding = rounding_mode::nearest_even;
    out_of_range_mode out_of_range = out_of_range_mode::error;
    scalar_lookup map;
    std::uint64_t one = 0;  // the raw bits of 1 in `from`: casts exactly to every type
    std::optional<byte_table> table;  // one-byte sources: each byte's result, the map folded in
    const char* verb = "encoding";
  };

  [[nodiscard]] bytes run(const direction& d, bytes in) const;

  cast_value_configuration config_;
  chunk_spec decoded_;
  chunk_spec encoded_;
  direction encode_;
  direction decode_;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_array_codec> make_cast_value_codec(const codec_context& ctx);

}  // namespace zarr
