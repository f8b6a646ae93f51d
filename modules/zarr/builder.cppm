// zarr.builder: creating an array from C++ values instead of a zarr.json string (Zarr v3 core spec
// "Array metadata"; each codec's spec for its configuration): typed codec configurations in
// zarr::codecs, typed fill values, and zarr::array_builder, which gives the same validated
// array_metadata that parsing the equivalent document gives, or a zarr::error.
module;
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
#include <boost/json/object.hpp>
export module zarr.builder;

export import zarr.arithmetic;
export import zarr.array;
export import zarr.codec.blosc;
export import zarr.codec.bytes;
export import zarr.codec.cast_value;
export import zarr.codec.crc32c;
export import zarr.codec.gzip;
export import zarr.codec.packbits;
export import zarr.codec.reshape;
export import zarr.codec.scale_offset;
export import zarr.codec.transpose;
export import zarr.codec.zstd;
export import zarr.dtype;
export import zarr.element;
export import zarr.error;
export import zarr.metadata;
export import zarr.store;

export namespace zarr {

namespace codecs {

// Each codec's configuration type, as its codec parses and serialises it (every member has a
// default, so designated initializers may leave any out, also under
// -Wmissing-designated-field-initializers).
using bytes = bytes_configuration;                // Zarr v3 codecs/bytes (default little-endian)
using transpose = transpose_configuration;        // Zarr v3 codecs/transpose
using crc32c = crc32c_configuration;              // Zarr v3 codecs/crc32c
using gzip = gzip_configuration;                  // Zarr v3 codecs/gzip
using zstd = zstd_configuration;                  // zarr-extensions codecs/zstd
using blosc = blosc_configuration;                // Zarr v3 codecs/blosc (typesize: the element size when absent)
using blosc_cname = zarr::blosc_cname;
using scale_offset = scale_offset_configuration;  // zarr-extensions codecs/scale_offset
using cast_value = cast_value_configuration;      // zarr-extensions codecs/cast_value
using reshape = reshape_configuration;            // zarr-extensions codecs/reshape
using packbits = packbits_configuration;          // zarr-extensions codecs/packbits
enum class index_location : std::uint8_t { start, end };
struct sharding_indexed;
// zarr-extensions codecs/vlen-utf8 (for string) or codecs/vlen-bytes (for bytes), whichever
// the data type takes: no configuration.
struct vlen {};

// One codec of a chain.
using any = std::variant<bytes, transpose, crc32c, gzip, zstd, blosc, scale_offset, cast_value, reshape, packbits,
                         sharding_indexed, vlen>;

// Zarr v3 codecs/sharding_indexed. Empty `codecs` is [bytes{}]; empty `index_codecs` is
// [bytes{}, crc32c{}].
struct sharding_indexed {
  std::vector<std::uint64_t> chunk_shape = {};
  std::vector<any> codecs = {};
  std::vector<any> index_codecs = {};
  index_location location = index_location::end;
};

// The codec's metadata object {"name": ..., "configuration": {...}} for the data type it
// receives (`type`: typed scalars are converted to it exactly); `where` ("codecs[1]") names it
// in errors.
[[nodiscard]] boost::json::value to_json(const any& codec, data_type type, std::string_view where = "codec");

}  // namespace codecs

// Builds an array's metadata from C++ values. Setters chain; metadata() and create() validate
// everything (the document round-trips through its text and the codec chain is resolved, as
// array::create does), so a builder never yields a document the parser would reject.
//
//   auto a = zarr::array_builder({1000, 1000}, zarr::data_type::float32)
//                .chunk_shape({100, 100})
//                .fill_value(std::numeric_limits<float>::quiet_NaN())
//                .codecs({zarr::codecs::zstd{.level = 3}})
//                .create(store, "temperature");
class array_builder {
 public:
  array_builder(std::vector<std::uint64_t> shape, data_type type);
  // A type with its configuration, as zarr::parse_data_type_spec gives it: the sized types
  // (raw bits, fixed_length_utf32, struct: parse_data_type_spec(parse_json(R"("r24")"))), or a
  // time type with its resolution.
  array_builder(std::vector<std::uint64_t> shape, const data_type_spec& type);

  // The regular chunk grid (default: one chunk for the whole array); drops shards().
  array_builder& chunk_shape(std::vector<std::uint64_t> shape);
  // Chunks of `shard_shape` stored as shards of `inner_chunk_shape` inner chunks: the chain
  // becomes [sharding_indexed{inner_chunk_shape, <codecs()>}], so codecs() then applies to the
  // inner chunks.
  array_builder& shards(std::vector<std::uint64_t> shard_shape, std::vector<std::uint64_t> inner_chunk_shape,
                        codecs::index_location location = codecs::index_location::end);
  // Converted exactly to the data type (an error at metadata() otherwise). Default: zero
  // (false; 1 for float8_e8m0fnu, which has no zero).
  array_builder& fill_value(typed_value value);
  // The fill value of string (UTF-8 text) and bytes arrays (default: empty); an error at
  // metadata() for any other type.
  array_builder& fill_string(std::string value);
  // The fill value of a sized type in its JSON form (raw bits: an array of byte values;
  // fixed_length_utf32: a string; struct: an object with every field), checked at metadata().
  // Default: zeros (a struct's fields their defaults). An error at metadata() for other types.
  array_builder& fill_json(boost::json::value value);
  // The unit and scale factor of numpy.datetime64 and numpy.timedelta64, which need one
  // ({zarr::time_unit::ns}; an error at metadata() for any other type, and without it).
  array_builder& resolution(time_resolution r);
  // The chain in order. When it holds no array -> bytes codec (bytes, packbits,
  // sharding_indexed, vlen), bytes{} goes after the array -> array ones (vlen{} for string and
  // bytes). Default: [bytes{}] ([vlen{}]).
  array_builder& codecs(std::vector<codecs::any> chain);
  array_builder& attributes(boost::json::object attributes);
  array_builder& dimension_names(std::vector<std::optional<std::string>> names);
  // Default: {"name": "default", "separator": "/"}.
  array_builder& chunk_key_encoding(zarr::chunk_key_encoding encoding);

  // The metadata, validated; zarr::error (the code of the first problem) with a message that
  // starts "array_builder: " and names the field ("fill_value", "codecs[0].configuration.scale").
  [[nodiscard]] array_metadata metadata() const;
  // The zarr.json document, validated.
  [[nodiscard]] std::string to_text() const { return metadata().to_text(); }
  // array::create with metadata().
  array create(std::shared_ptr<store> s, std::string_view path, bool overwrite = false) const;

 private:
  std::vector<std::uint64_t> shape_;
  data_type type_;
  element_layout layout_{};  // the sized types
  std::optional<std::vector<std::uint64_t>> chunk_shape_;
  std::optional<codecs::sharding_indexed> shards_;
  std::optional<typed_value> fill_;
  std::optional<std::string> string_fill_;
  std::optional<boost::json::value> json_fill_;
  std::optional<time_resolution> resolution_;
  std::vector<codecs::any> codecs_;
  boost::json::object attributes_;
  std::optional<std::vector<std::optional<std::string>>> dimension_names_;
  zarr::chunk_key_encoding key_encoding_;
};

}  // namespace zarr
