// libFuzzer target: the `packbits` codec's decoder (zarr.codec.packbits). Input: the data type,
// the padding encoding, first_bit and last_bit (0xff: left out), flags (bit 0: one byte too
// many), then the stored bytes. A configuration the codec accepts gets a chunk of as many
// elements as the bytes hold; decoding succeeds or refuses with corrupt_chunk, and what it
// decodes encodes and decodes back to itself.
#include <cstddef>
#include <cstdint>
#include <optional>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.fill_value;
import zarr.codec.packbits;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = static_cast<zarr::data_type>(in.byte() % zarr::data_type_count);
  if (zarr::is_sized(type)) return 0;  // refused by the chain before packbits sees them
  zarr::packbits_configuration config;
  config.padding_encoding = static_cast<zarr::packbits_padding>(in.byte() % 3);
  const auto bit = [](std::uint8_t b) { return b == 0xff ? std::nullopt : std::optional<std::uint64_t>(b % 130); };
  config.first_bit = bit(in.byte());
  config.last_bit = bit(in.byte());
  const auto flags = in.byte();
  const auto stored = in.rest();
  const auto fill = zarr::default_fill_value(type);
  int k = 0;
  try {
    k = zarr::packbits_codec(config, {{0}, type, fill}, "fuzz").bits_per_element();
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::invalid_metadata);
    return 0;
  }
  const std::uint64_t padding = config.padding_encoding == zarr::packbits_padding::none ? 0 : 1;
  const std::uint64_t n = stored.size() > padding ? (stored.size() - padding) * 8 / static_cast<std::uint64_t>(k) : 0;
  const zarr::packbits_codec codec(config, {{n}, type, fill}, "fuzz");
  const auto encoded = stored.first(std::min<std::size_t>(stored.size(), *codec.encoded_size() + ((flags & 1) ? 1 : 0)));
  zarr_fuzz::check_array_decoder(codec, encoded);
  return 0;
}
