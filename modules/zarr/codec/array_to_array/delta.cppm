// zarr.codec.delta: numcodecs' `delta` array -> array codec: the first element, then the
// differences of neighbours in memory order, stored as `astype` (numcodecs documentation,
// "Delta": encode enc[0] = x[0], enc[i] = x[i] - x[i-1]; decode np.cumsum).
// Configuration: v2 {"id": "delta", "dtype": "<i4", "astype": "<i2"}, v3 {"name": "numcodecs.delta",
// "configuration": {...the same...}} (astype absent or null: dtype). Integers wrap as NumPy's do;
// a float dtype needs astype = dtype (float16 is not supported: NumPy rounds its sums through float32).
module;
#include <memory>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.delta;

export import zarr.codec;

export namespace zarr {

class delta_codec final : public array_to_array_codec {
 public:
  // `decoded.type` is numcodecs' dtype; `astype` the encoded type.
  delta_codec(data_type astype, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.delta"; }
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

[[nodiscard]] std::unique_ptr<array_to_array_codec> make_delta_codec(const codec_context& ctx);

}  // namespace zarr
