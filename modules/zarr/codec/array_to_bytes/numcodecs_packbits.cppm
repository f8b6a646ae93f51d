// zarr.codec.numcodecs_packbits: numcodecs' `packbits` codec for bool chunks: one byte with the
// number of padding bits, then the flags eight to a byte, most significant bit first, as
// np.packbits (numcodecs documentation, "PackBits"). Not the registry's `packbits` codec
// (zarr-extensions codecs/packbits), whose layout differs. It changes the chunk's size, so it is
// the array -> bytes codec of a chain.
// Configuration: v2 {"id": "packbits"}, v3 {"name": "numcodecs.packbits"} (no keys).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.numcodecs_packbits;

export import zarr.codec;

export namespace zarr {

class numcodecs_packbits_codec final : public array_to_bytes_codec {
 public:
  // `decoded.type` must be bool.
  numcodecs_packbits_codec(const chunk_spec& decoded, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.packbits"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  // 1 + ceil(n / 8) bytes for n flags.
  [[nodiscard]] std::optional<std::uint64_t> encoded_size() const noexcept override {
    return 1 + (decoded_.num_elements() + 7) / 8;
  }

 protected:
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  // errc::corrupt_chunk for the wrong size or padding count; any nonzero padding is kept as NumPy does (ignored).
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
};

[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_numcodecs_packbits_codec(const codec_context& ctx);

}  // namespace zarr
