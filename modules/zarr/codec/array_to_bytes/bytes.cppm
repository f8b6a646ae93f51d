// zarr.codec.bytes: the `bytes` array -> bytes codec: elements in C order, each in the
// chosen byte order (Zarr v3 codecs/bytes; sub-byte and 8-bit types: zarr-extensions data-types/* "bytes").
// Configuration: {"name": "bytes", "configuration": {"endian": "little"}}
// (`endian` is required for types of more than 8 bits, and ignored for the others).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <boost/json/value.hpp>
export module zarr.codec.bytes;

export import zarr.codec;

export namespace zarr {

// The JSON configuration: {"endian": "little" | "big"}, or nothing (Zarr v3 codecs/bytes: required
// for types of more than one byte). The default is little-endian; parse() gives nothing for an
// absent `endian`.
struct bytes_configuration {
  std::optional<zarr::endian> endian = zarr::endian::little;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static bytes_configuration parse(const codec_context& ctx);
  // {"name": "bytes", "configuration": {"endian": ...}} (an empty configuration without a byte
  // order): the one serialisation, the codec's and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

class bytes_codec final : public array_to_bytes_codec {
 public:
  // Throws zarr::error (invalid_metadata) when `decoded.type` has more than 8 bits and
  // `config` has no byte order. `where` names the codec in messages ("codecs[0]").
  bytes_codec(const bytes_configuration& config, const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "bytes"; }
  // {"name": "bytes", "configuration": {"endian": ...}}; the configuration is empty for
  // types of at most 8 bits (the byte order does not apply to them).
  [[nodiscard]] boost::json::value to_json() const override;
  // Native byte order and types whose memory form is their stored byte: nothing to do.
  [[nodiscard]] bool as_is() const noexcept override;
  [[nodiscard]] std::optional<std::uint64_t> encoded_size() const noexcept override { return decoded_.byte_size(); }

  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  // The byte order used; nothing for types of at most 8 bits.
  [[nodiscard]] std::optional<endian> byte_order() const noexcept override { return endian_; }
  // Reads the rows of the stored array a box spans (byte ranges of `source`), not the whole.
  [[nodiscard]] std::unique_ptr<array_reader> reader(const chunk_reader& source) const override;

  // Decodes stored elements into `out` (as many, in the in-memory layout); the first element
  // that holds no value of the type (its index in `encoded`, and what was expected), if any.
  [[nodiscard]] std::optional<std::pair<std::uint64_t, std::string>> decode_values(std::span<const std::byte> encoded,
                                                                                     std::span<std::byte> out) const;
  // The error for element `element` of a chunk that holds no value of the type.
  [[nodiscard]] error bad_element(std::uint64_t element, const std::string& expected) const;

 protected:
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  // errc::corrupt_chunk when `encoded` is not exactly the expected size, or holds a bool
  // other than 0 or 1.
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
  std::optional<endian> endian_;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_bytes_codec(const codec_context& ctx);

}  // namespace zarr
