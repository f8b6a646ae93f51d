// libFuzzer target: the numcodecs bytes -> bytes decoders on any bytes; the first byte picks
// the codec (zlib, bz2, lzma .xz, lzma .lzma, lz4, crc32, adler32, shuffle, fletcher32,
// jenkins_lookup3, crc32c with the checksum first). Each decodes or refuses with corrupt_chunk, never beyond 1 MiB (bombs
// refused); what it decodes survives encode + decode unchanged.
#include <cstddef>
#include <cstdint>
#include <memory>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto codecs = zarr_fuzz::numcodecs_decoders();
  zarr_fuzz::input in(data, size);
  const auto& codec = *codecs[in.byte() % codecs.size()];
  zarr_fuzz::check_decoder(codec, in.rest());
  return 0;
}
