// zarr.codec.n5_default: the `n5_default` array -> bytes codec (zarr-extensions codecs/n5_default):
// an N5 "default" block, a header (mode 0, number of dimensions: uint16 big-endian; each
// dimension: uint32 big-endian) and the chunk encoded by a nested chain of a full transpose, a
// big-endian bytes codec and at most one bytes -> bytes codec. A block smaller or larger than the
// chunk is padded with the fill value or truncated; blocks are written whole (docs/decisions.md 68).
// Configuration: {"name": "n5_default", "configuration": {"codecs": [
//   {"name": "transpose", "configuration": {"order": [1, 0]}},
//   {"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip", "configuration": {"level": 5}}]}}
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.n5_default;

export import zarr.codec;

export namespace zarr {

class n5_default_codec final : public array_to_bytes_codec {
 public:
  // Throws zarr::error naming `<where>.configuration.codecs...` for a nested chain the spec does
  // not allow, and (unsupported) for a data type N5 lacks or a chunk shape its header cannot hold.
  n5_default_codec(const boost::json::value& codecs, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "n5_default"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override;

 protected:
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  // errc::corrupt_chunk for a header cut short, of another rank, or of a block of more
  // elements than the chunk; errc::unsupported for a block mode other than default (0).
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
  boost::json::value codecs_;
  std::unique_ptr<codec_chain> inner_;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_n5_default_codec(const codec_context& ctx);

}  // namespace zarr
