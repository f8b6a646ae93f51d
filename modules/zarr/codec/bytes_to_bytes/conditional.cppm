// zarr.codec.conditional: the `conditional` bytes -> bytes codec (zarr-extensions
// codecs/conditional): nested bytes -> bytes codecs, each applied or skipped chunk by chunk,
// with a bitmask header in front saying which (bit i, least significant first: codec i).
// Configuration: {"name": "conditional", "configuration": {"codecs": [{"name": "zstd",
// "configuration": {"level": 3}}], "header_bits": 8}} (header_bits optional: a multiple of 8,
// at least the number of codecs; by default the smallest such).
// Writing applies a codec only when its output is smaller than its input (the README's
// "compress_if_smaller"); reading follows the header.
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec.conditional;

export import zarr.codec;

export namespace zarr {

class conditional_codec final : public bytes_to_bytes_codec {
 public:
  // Builds the nested codecs of ctx.configuration; errors name
  // `<ctx.where>.configuration.codecs[i]` and `<ctx.where>.configuration.header_bits`.
  explicit conditional_codec(const codec_context& ctx);

  [[nodiscard]] std::string_view name() const noexcept override { return "conditional"; }
  [[nodiscard]] boost::json::value to_json() const override;
  // Each nested codec in order, kept where it makes the bytes smaller; the header first.
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  [[nodiscard]] std::uint64_t max_encoded_size(std::uint64_t decoded_size) const noexcept override;
  [[nodiscard]] const std::vector<std::unique_ptr<bytes_to_bytes_codec>>& codecs() const noexcept { return codecs_; }

 private:
  // errc::corrupt_chunk for a stream shorter than the header, or a header with a bit set
  // past the nested codecs.
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;

  std::vector<std::unique_ptr<bytes_to_bytes_codec>> codecs_;
  std::uint64_t header_bytes_ = 0;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_conditional_codec(const codec_context& ctx);

}  // namespace zarr
