// zarr.codec.transpose: the `transpose` array -> array codec, which permutes the dimensions
// of a chunk (Zarr v3 codecs/transpose and its JSON schema).
// Configuration: {"name": "transpose", "configuration": {"order": [2, 0, 1]}}
// (encoded shape B_shape[i] = A_shape[order[i]]; the fill value passes unchanged).
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
export module zarr.codec.transpose;

export import zarr.codec;

export namespace zarr {

// The JSON configuration: {"order": [...]}, distinct non-negative integers. That it is a
// permutation of the decoded rank is checked when the codec is built.
struct transpose_configuration {
  std::vector<std::size_t> order = {};

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static transpose_configuration parse(const codec_context& ctx);
  // {"name": ..., "configuration": {...}}: the one serialisation, the codec's and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

class transpose_codec final : public array_to_array_codec {
 public:
  // Throws zarr::error (invalid_metadata) unless `config.order` is a permutation of
  // 0 .. rank-1 of `decoded`. `where` names the codec in messages ("codecs[0]").
  transpose_codec(const transpose_configuration& config, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "transpose"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }

  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] std::span<const std::size_t> order() const noexcept { return order_; }
  // Reads the permuted box below, straight into a permuted view of the output.
  [[nodiscard]] std::unique_ptr<array_reader> reader(std::unique_ptr<array_reader> below) const override;
  // Strings and byte strings are moved as any element.
  [[nodiscard]] bool moves_elements() const noexcept override { return true; }
  [[nodiscard]] std::vector<std::uint64_t> element_sources(bool encoding) const override;

 protected:
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  chunk_spec decoded_;
  chunk_spec encoded_;
  std::vector<std::size_t> order_;

  // The shape of the output of a direction and the strides, in elements, that walk it in the input.
  [[nodiscard]] std::pair<const std::vector<std::uint64_t>&, std::vector<std::uint64_t>> walk(bool encoding) const;
};

// Copies the elements of `in` (element size `element_size` bytes) into `out`, which is
// C-contiguous with shape `shape`: element (i_0, ..., i_n-1) of `out` is the element of
// `in` at offset sum(i_k * in_strides[k]) elements. Used for both directions of the codec;
// exported for tests and benchmarks.
void permute_elements(std::byte* out, const std::byte* in, std::size_t element_size,
                      std::span<const std::uint64_t> shape, std::span<const std::uint64_t> in_strides);

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_array_codec> make_transpose_codec(const codec_context& ctx);

}  // namespace zarr
