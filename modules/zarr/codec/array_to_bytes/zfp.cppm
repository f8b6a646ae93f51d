// zarr.codec.zfp: the `zfp` array -> bytes codec (zarr-extensions codecs/zfp): a chunk of 1 to 4
// dimensions compressed by the zfp library (Debian libzfp 1.0), no zfp header.
// Configuration: {"name": "zfp", "configuration": {"mode": "fixed_accuracy", "tolerance": 0.05}}
// Modes: "reversible"; "fixed_rate" {rate}; "fixed_precision" {precision}; "fixed_accuracy"
// {tolerance}; "expert" {minbits, maxbits, maxprec, minexp}.
// Types: int32, int64, float32, float64 as they are; int8, int16, uint8, uint16 promoted to
// int32 by the spec's shifts; uint32 and uint64 offset by 2^31 and 2^63 into int32 and int64
// (docs/decisions.md 33); numpy.datetime64 and numpy.timedelta64 as the int64 they are.
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
export module zarr.codec.zfp;

export import zarr.codec;

export namespace zarr {

enum class zfp_mode : std::uint8_t { reversible, fixed_rate, fixed_precision, fixed_accuracy, expert };

struct zfp_configuration {
  zfp_mode mode = zfp_mode::reversible;
  double rate = 0;             // fixed_rate: compressed bits per value
  std::uint64_t precision = 0;  // fixed_precision: uncompressed bits per value kept
  double tolerance = 0;        // fixed_accuracy: largest absolute error
  std::uint64_t minbits = 0, maxbits = 0, maxprec = 0;  // expert
  std::int64_t minexp = 0;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static zfp_configuration parse(const codec_context& ctx);
  [[nodiscard]] boost::json::value to_json() const;
};

class zfp_codec : public array_to_bytes_codec {
 public:
  // Throws zarr::error (unsupported) for a data type or a rank zfp cannot take.
  zfp_codec(const zfp_configuration& config, const chunk_spec& decoded, std::string where)
      : zfp_codec(config, decoded, std::move(where), false) {}

  [[nodiscard]] std::string_view name() const noexcept override { return "zfp"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override { return max_size_; }

 protected:
  // Floats that are not finite are refused (errc::out_of_range, naming the element) in
  // every mode but reversible: zfp's lossy modes do not keep them.
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  // errc::corrupt_chunk when the stream is longer than zfp's bound or ends before the data.
  // With the header, the mode is the header's and its field must be the chunk's.
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

  // `header`: zfp's full header (magic, field, mode: zfp_write_header, ZFP_HEADER_FULL) before
  // the stream, as zfpy writes it (zarr.codec.numcodecs_zfpy).
  zfp_codec(const zfp_configuration& config, const chunk_spec& decoded, std::string where, bool header);
  [[nodiscard]] const zfp_configuration& configuration() const noexcept { return config_; }

 private:
  bool header_ = false;
  zfp_configuration config_;
  chunk_spec decoded_;
  std::uint64_t max_size_ = 0;
};

// The registry's factory.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_zfp_codec(const codec_context& ctx);

}  // namespace zarr
