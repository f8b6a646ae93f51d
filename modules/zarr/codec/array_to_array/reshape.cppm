// zarr.codec.reshape: the `reshape` array -> array codec, which gives a chunk a new shape
// with the same elements in the same C order (zarr-extensions codecs/reshape; docs/decisions.md 21).
// Configuration: {"name": "reshape", "configuration": {"shape": [[0, 1], [2], 3]}}
// (each entry a size, a list of input dimensions whose product it is, or -1 at most once).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec.reshape;

export import zarr.codec;

export namespace zarr {

// One entry of `shape`: an explicit size, the product of some input dimensions (an empty
// list is 1), or -1 (inferred).
struct reshape_dimension {
  enum class kind : std::uint8_t { size, input_dims, inferred };
  kind form = kind::size;
  std::uint64_t size = 0;                // form == size: positive
  std::vector<std::size_t> input_dims;   // form == input_dims

  reshape_dimension() = default;
  // A positive size, or -1; zarr::error (invalid_argument) for any other number.
  reshape_dimension(std::int64_t n);  // NOLINT: implicit, as the JSON writes it: {2, -1}
  // The product of these input dimensions.
  reshape_dimension(std::vector<std::size_t> dims) : form(kind::input_dims), input_dims(std::move(dims)) {}  // NOLINT

  friend bool operator==(const reshape_dimension&, const reshape_dimension&) = default;
};

// The JSON configuration: {"shape": [...]}. Parsing checks everything that does not depend on
// the decoded shape: a non-empty list, sizes positive or -1, at most one -1, and the
// flattened input dimensions strictly increasing.
struct reshape_configuration {
  std::vector<reshape_dimension> shape = {};

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.shape[j]`.
  [[nodiscard]] static reshape_configuration parse(const codec_context& ctx);
  // {"name": "reshape", "configuration": {"shape": [...]}}: the one serialisation, the codec's
  // and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

class reshape_codec final : public array_to_array_codec {
 public:
  // Resolves the encoded shape for `decoded`. Throws zarr::error (invalid_metadata) naming
  // `<where>.configuration.shape[j]` (or `.shape` for the whole list) when an input dimension
  // is out of range, -1 cannot be inferred exactly, the element counts differ, or an
  // input_dims entry breaks the prefix/suffix product rules.
  reshape_codec(reshape_configuration config, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "reshape"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& encoded() const noexcept override { return encoded_; }

  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] const reshape_configuration& configuration() const noexcept { return config_; }
  // Strings and byte strings keep their C order, as any element.
  [[nodiscard]] bool moves_elements() const noexcept override { return true; }
  [[nodiscard]] std::vector<std::uint64_t> element_sources(bool encoding) const override;

 protected:
  // Both directions return `in` itself (moved, never copied): a C-order buffer of A is
  // already the C-order buffer of B. Only the size is checked (errc::invalid_argument).
  [[nodiscard]] bytes do_encode(bytes in) const override;
  [[nodiscard]] bytes do_decode(bytes in) const override;

 private:
  reshape_configuration config_;
  chunk_spec decoded_;
  chunk_spec encoded_;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_array_codec> make_reshape_codec(const codec_context& ctx);

}  // namespace zarr
