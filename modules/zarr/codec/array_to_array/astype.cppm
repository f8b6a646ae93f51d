// zarr.codec.astype: numcodecs' `astype` array -> array codec: the chunk converted to
// `encode_dtype` as NumPy's ndarray.astype does, and back to `decode_dtype` (numcodecs
// documentation, "AsType"). Also NumPy's cast and the dtype members for the other numcodecs
// array codecs (delta, quantize).
// Configuration: v2 {"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}, v3
// {"name": "numcodecs.astype", "configuration": {...the same...}} (decode_dtype absent or null:
// the array's own type).
module;
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
export module zarr.codec.astype;

export import zarr.codec;

export namespace zarr {

// The NumPy type string `key` of a numcodecs configuration (ctx.configuration); `fallback` when
// absent or null, an error naming `<ctx.where>.configuration.<key>` when it is required.
[[nodiscard]] numpy_dtype numcodecs_dtype(const codec_context& ctx, const boost::json::object& config,
                                          std::string_view key, std::optional<data_type> fallback);
// Checks that a numcodecs codec's decoded `dtype` is the type it receives (ctx.decoded.type).
void check_numcodecs_dtype(const codec_context& ctx, std::string_view key, data_type dtype);

// NumPy 1.24's ndarray.astype between the integer, float and bool types, element by element
// (in-memory layout): integers wrap, floats round to nearest even (overflow gives an
// infinity), float to integer truncates; a float NaN, infinity or out-of-range value into an
// integer, where NumPy is undefined, is an error (invalid_value) naming `where`, the element and
// the value.
void numpy_astype(data_type from, std::span<const std::byte> in, data_type to, std::span<std::byte> out,
                  std::string_view where);

class astype_codec final : public array_to_array_codec {
 public:
  astype_codec(data_type encode_type, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.astype"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }

 protected:
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  chunk_spec decoded_;
  chunk_spec encoded_;
};

[[nodiscard]] std::unique_ptr<array_to_array_codec> make_astype_codec(const codec_context& ctx);

}  // namespace zarr
