// libFuzzer target: the conditional codec's decoder (zarr.codec.conditional), nesting gzip
// then crc32c under a 16-bit header, on any bytes. It decodes or refuses with corrupt_chunk;
// what it decodes survives encode + decode unchanged. The output is capped at 1 MiB here.
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::check_decoder(zarr_fuzz::conditional_gzip_crc32c(), zarr_fuzz::input(data, size).rest());
  return 0;
}
