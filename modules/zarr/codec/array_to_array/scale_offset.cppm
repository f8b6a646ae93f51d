// zarr.codec.scale_offset: the `scale_offset` array -> array codec, encode (x - offset) * scale,
// decode x / scale + offset, each operation exact and rounded once in the array's own data
// type (zarr-extensions codecs/scale_offset; docs/decisions.md 14-17).
// Configuration: {"name": "scale_offset", "configuration": {"offset": 5, "scale": 0.1}}
// (both optional: offset 0, scale 1; the fill value is transformed like the elements).
module;
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.scale_offset;

export import zarr.codec;
export import zarr.element;
import zarr.arithmetic.kernels;

export namespace zarr {

// The JSON configuration, parsed for the data type the codec receives: `offset` finite,
// `scale` finite and non-zero, each a value of that type (fill-value JSON rules). Given as C++
// values (array_builder), they are converted exactly to that type.
struct scale_offset_configuration {
  std::optional<typed_value> offset = {};  // absent: the additive identity
  std::optional<typed_value> scale = {};   // absent: the multiplicative identity

  // Parses ctx.configuration for values of ctx.decoded.type; errors name
  // `<ctx.where>.configuration.<key>` (invalid_metadata; invalid_value when a scalar is
  // not a value of the type).
  [[nodiscard]] static scale_offset_configuration parse(const codec_context& ctx);
  // {"name": "scale_offset", "configuration": {...}} for a codec that receives `type`: each
  // scalar converted exactly to it (zarr::convert_value; errors name
  // `<where>.configuration.<key>`). The one serialisation, the codec's and array_builder's.
  [[nodiscard]] boost::json::value to_json(data_type type, std::string_view where) const;
};

// True for the types the codec is defined for: every integer and float type (not bool, not
// complex).
[[nodiscard]] bool scale_offset_supports(data_type t) noexcept;

class scale_offset_codec final : public array_to_array_codec {
 public:
  // Throws zarr::error (invalid_metadata) for an unsupported data type or a fill value that
  // cannot be encoded (uint16 fill 0 with offset 1000), and what zarr::convert_value throws for
  // a scalar that is no value of `decoded.type`. `where` names the codec ("codecs[0]").
  scale_offset_codec(const scale_offset_configuration& config, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "scale_offset"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }
  // Elementwise, except for the identity and float8_e8m0fnu without an offset.
  [[nodiscard]] std::optional<element_step> step(bool encoding) const override;
  [[noreturn]] void throw_step_error(const kernel_result& r, bool encoding) const override;

  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] const scale_offset_configuration& configuration() const noexcept { return config_; }

 protected:
  // In place over the whole buffer. An element that cannot be represented throws
  // zarr::error naming the codec, the element index and its value.
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  // In place; never throws per element: reports the first failing one.
  [[nodiscard]] kernel_result transform(std::span<std::byte> buffer, bool encoding) const;

  scale_offset_configuration config_;
  chunk_spec decoded_;
  chunk_spec encoded_;
  // The raw bits handed to the kernels; identities where the configuration gives nothing.
  std::uint64_t encode_offset_ = 0;  // +0 (x - +0 == x)
  std::uint64_t decode_offset_ = 0;  // -0 where the type has it (x + -0 == x, also for -0)
  std::uint64_t scale_ = 0;
  bool identity_ = false;     // neither offset nor scale given
  bool scale_only_ = false;  // float8_e8m0fnu without an offset: no zero to add, see transform()
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_array_codec> make_scale_offset_codec(const codec_context& ctx);

}  // namespace zarr
