// zarr.codec.blosc: the `blosc` bytes -> bytes codec: the c-blosc 1 container format
// (Zarr v3 codecs/blosc).
// Configuration: {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
//   "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.blosc;

export import zarr.codec;

export namespace zarr {

enum class blosc_shuffle : std::uint8_t { noshuffle, shuffle, bitshuffle };
enum class blosc_cname : std::uint8_t { blosclz, lz4, lz4hc, snappy, zlib, zstd };

// The JSON configuration. `cname` is one of lz4, lz4hc, blosclz, zstd, snappy, zlib (a name
// the linked c-blosc lacks is errc::unsupported); `clevel` 0..9; `typesize` 1 or more:
// required by the spec unless `shuffle` is "noshuffle", but when absent this library takes
// the element size of the chunk's data type and records it (Zarr v3 codecs/blosc allows that);
// `blocksize` 0 (automatic) or more.
struct blosc_configuration {
  blosc_cname cname = blosc_cname::lz4;
  int clevel = 5;
  blosc_shuffle shuffle = blosc_shuffle::shuffle;
  std::optional<std::uint64_t> typesize = {};  // parse() gives the element size when absent; the codec 1
  std::uint64_t blocksize = 0;                 // automatic

  // Parses ctx.configuration (ctx.decoded gives the automatic typesize); errors name
  // `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static blosc_configuration parse(const codec_context& ctx);
  // {"name": "blosc", "configuration": {...}}, typesize when given: the one serialisation, the
  // codec's and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

class blosc_codec final : public bytes_to_bytes_codec {
 public:
  // `config` as parse() checked it. `where` names the codec in messages ("codecs[1]").
  blosc_codec(const blosc_configuration& config, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "blosc"; }
  // Every member, typesize included (also when it was chosen automatically).
  [[nodiscard]] boost::json::value to_json() const override { return config_.to_json(); }
  // errc::invalid_argument for inputs over c-blosc's limit (2^31 - 1 - 16 bytes).
  [[nodiscard]] bytes encode(std::span<const std::byte> in) const override;
  // Straight into `out` when the header declares its size.
  void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const override;

  [[nodiscard]] const blosc_configuration& configuration() const noexcept { return config_; }

 private:
  blosc_configuration config_;

  // Validates the blosc header against the input and `limit` before allocating;
  // errc::corrupt_chunk for anything c-blosc cannot decode.
  [[nodiscard]] bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const override;
  // The decoded size the header declares, after validating it.
  [[nodiscard]] std::size_t declared_size(std::span<const std::byte> in, std::uint64_t limit) const;
};

// The compressor names the linked c-blosc supports, comma separated ("blosclz,lz4,...").
[[nodiscard]] std::string_view blosc_compressors() noexcept;

// The registry's factory.
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_blosc_codec(const codec_context& ctx);
// `numcodecs.blosc` (and Zarr v2 "blosc"): numcodecs' configuration, shuffle as -1, 0, 1 or 2.
[[nodiscard]] std::unique_ptr<bytes_to_bytes_codec> make_numcodecs_blosc_codec(const codec_context& ctx);
// The resolved `blosc` configuration as numcodecs' keys: the shuffle as a number, no typesize
// (numcodecs takes it from the data it is given).
[[nodiscard]] boost::json::object blosc_to_numcodecs(const boost::json::object& configuration);

}  // namespace zarr
