// zarr.codec.fixedscaleoffset: the legacy `numcodecs.fixedscaleoffset` array -> array codec,
// decoding and encoding bit for bit as numcodecs 0.11 with NumPy 1.24 does
// (zarr-extensions codecs/scale_offset "Legacy numcodecs.fixedscaleoffset codec",
// zarr-extensions codecs/numcodecs.fixedscaleoffset (numcodecs branch); docs/decisions.md 18-20, 54).
// Configuration: {"name": "numcodecs.fixedscaleoffset",
//                 "configuration": {"offset": 1000, "scale": 10.0, "dtype": "<f8", "astype": "|u1"}}
module;
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
export module zarr.codec.fixedscaleoffset;

export import zarr.codec;

export namespace zarr {

// A Zarr V2 (NumPy) data type string of the types numcodecs handles here: "<f8", "|u1", ">i2",
// "f4", or a plain NumPy name ("float32", "uint8"). Byte order is irrelevant in Zarr v3 (the
// `bytes` codec owns it). Throws zarr::error (invalid_metadata) naming `where`.
[[nodiscard]] data_type parse_v2_data_type(std::string_view text, std::string_view where);

// A JSON number of the configuration as numcodecs receives it: a Python int (a JSON integer
// literal) or a Python float. NumPy 1.24's value-based promotion treats the two differently.
struct python_number {
  boost::json::value json;  // as given
  double value = 0;         // floats: rounded once from the JSON text; ints: exact up to 2^53
  bool is_integer = false;
};

// The JSON configuration. scale must be non-zero; both must be finite.
struct fixedscaleoffset_configuration {
  python_number offset;
  python_number scale;
  data_type dtype = data_type::float64;   // the decoded (input) type
  data_type astype = data_type::float64;  // the encoded type; `dtype` when absent
  boost::json::value dtype_json;          // as given
  boost::json::value astype_json;         // as given; null when absent
  // offset and scale as values of `dtype` (what a scale_offset codec would hold), or nothing
  // with the reason when they are not values of it (int32 with scale 0.5).
  std::optional<scalar> offset_in_dtype, scale_in_dtype;
  std::string not_in_dtype;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`. Does not look at
  // ctx.decoded (the codec checks dtype against it).
  [[nodiscard]] static fixedscaleoffset_configuration parse(const codec_context& ctx);
};

// The NumPy 1.24 types of numcodecs' encode, `np.around((arr - offset) * scale)`: `dtype` promoted
// by value with offset, that with scale (float32 - 10 stays float32; int16 - 0.5 is float64).
struct fixedscaleoffset_encode_types {
  data_type subtract;  // the type of arr - offset
  data_type multiply;  // the type of (...) * scale, rounded and converted to astype afterwards
};
[[nodiscard]] fixedscaleoffset_encode_types numpy_encode_types(const fixedscaleoffset_configuration& config);

// The NumPy 1.24 types of numcodecs' decode, `(encoded / scale) + offset`: float64 for an
// integer `astype`; for a float `astype` its own type promoted by value with each scalar
// (float32 / 10.0 stays float32; + 1e40 promotes to float64).
struct fixedscaleoffset_decode_types {
  data_type divide;  // the type of encoded / scale
  data_type add;     // the type of (...) + offset, converted to dtype afterwards
};
[[nodiscard]] fixedscaleoffset_decode_types numpy_decode_types(const fixedscaleoffset_configuration& config);

class fixedscaleoffset_codec final : public array_to_array_codec {
 public:
  // Throws zarr::error (invalid_metadata) when `decoded.type` is not `config.dtype`, or when the
  // fill value cannot be encoded (see the source for the rule). `where` names the codec.
  fixedscaleoffset_codec(const fixedscaleoffset_configuration& config, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.fixedscaleoffset"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }

  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] const fixedscaleoffset_configuration& configuration() const noexcept { return config_; }
  // [scale_offset, cast_value]: fixedscaleoffset_to_scale_offset below.
  [[nodiscard]] std::optional<boost::json::array> replacement(std::string_view where) const override;

 protected:
  // As numcodecs: np.around((x - offset) * scale) in the NumPy types, then to astype. Where
  // NumPy's cast is undefined (NaN, infinity or out of range into an integer) or a float astype
  // overflows to infinity, throws zarr::error naming the element and its value.
  [[nodiscard]] bytes do_encode(bytes in) const override;
  // As numcodecs: (encoded / scale) + offset in the NumPy types, then to dtype (nearest-even
  // for floats, truncation for integers). A value dtype cannot hold (overflow, NaN or
  // infinity into an integer) throws zarr::error naming the element and its value.
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  fixedscaleoffset_configuration config_;
  fixedscaleoffset_decode_types types_;
  chunk_spec decoded_;
  chunk_spec encoded_;
};

// The codecs that replace `config` when migrating an array (docs/decisions.md 18):
// [{"name": "scale_offset", "configuration": {"scale": s, "offset": o}},
//  {"name": "cast_value", "configuration": {"data_type": astype, "rounding": "nearest-even",
//   "out_of_range": "wrap"}}] (no out_of_range for a float astype, which wrap does not allow; no
// cast_value when astype is dtype). Throws zarr::error (unsupported) naming `where` when
// scale_offset cannot express scale or offset in dtype (int32 with scale 0.5).
[[nodiscard]] boost::json::array fixedscaleoffset_to_scale_offset(const fixedscaleoffset_configuration& config,
                                                                  std::string_view where = "numcodecs.fixedscaleoffset");

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_array_codec> make_fixedscaleoffset_codec(const codec_context& ctx);

}  // namespace zarr
