// zarr.codec.quantize: numcodecs' `quantize` array -> array codec: floats rounded to a
// multiple of 2^-bits so that `digits` decimal digits survive, stored as `astype` (numcodecs
// documentation, "Quantize": encode np.around(scale * x) / scale, decode a cast to dtype).
// Configuration: v2 {"id": "quantize", "digits": 3, "dtype": "<f8", "astype": "<f4"}, v3
// {"name": "numcodecs.quantize", "configuration": {...the same...}} (astype absent or null: dtype).
module;
#include <memory>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.quantize;

export import zarr.codec;

export namespace zarr {

class quantize_codec final : public array_to_array_codec {
 public:
  quantize_codec(int digits, data_type astype, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.quantize"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }
  // numcodecs' scale, 2^bits with bits = ceil(log2(10^-floor(log10(10^-digits)))).
  [[nodiscard]] double scale() const noexcept { return scale_; }

 protected:
  // Bit for bit numcodecs 0.11 with NumPy 1.24 for float16, float32 and float64: each step in
  // the type NumPy computes it in (float16 rounded after each operation; docs/decisions.md 53).
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  int digits_;
  double scale_;
  chunk_spec decoded_;
  chunk_spec encoded_;
};

[[nodiscard]] std::unique_ptr<array_to_array_codec> make_quantize_codec(const codec_context& ctx);

}  // namespace zarr
