// zarr.codec.bitround: the `bitround` array -> array codec (zarr-extensions codecs/bitround) and
// numcodecs' `bitround` (numcodecs documentation, "BitRound"): float mantissas rounded to
// `keepbits` bits, half to even on the bit pattern, integers from their most significant set bit;
// decoding is the identity.
// Configuration: {"name": "bitround", "configuration": {"keepbits": 10}}, v2 {"id": "bitround",
// "keepbits": 10}, v3 {"name": "numcodecs.bitround", "configuration": {"keepbits": 10}}
// (0 <= keepbits <= the mantissa bits of a float type: 10 float16, 7 bfloat16, 23 float32, 52 float64;
// the bits of an integer type: 8 to 64; the spec: 1 <= keepbits).
module;
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.bitround;

export import zarr.codec;

export namespace zarr {

class bitround_codec final : public array_to_array_codec {
 public:
  // `registry_name` is "bitround" or "numcodecs.bitround".
  bitround_codec(std::string_view registry_name, int keepbits, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return spec_; }
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return spec_; }

 protected:
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override { return in; }

 private:
  std::string_view name_;
  int keepbits_;
  chunk_spec spec_;
};

[[nodiscard]] std::unique_ptr<array_to_array_codec> make_bitround_codec(const codec_context& ctx);
[[nodiscard]] std::unique_ptr<array_to_array_codec> make_numcodecs_bitround_codec(const codec_context& ctx);

}  // namespace zarr
