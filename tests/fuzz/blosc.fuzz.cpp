// libFuzzer target: the blosc codec's decoder (zarr.codec.blosc) on any bytes. It decodes or
// refuses with corrupt_chunk; what it decodes survives encode + decode unchanged. The output
// is capped at 1 MiB, as a chain caps it at what the next codec takes: a header claiming more
// (up to 2 GiB from a few bytes) is refused before anything is allocated.
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"
import zarr.codec.blosc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const zarr::blosc_codec codec({zarr::blosc_cname::lz4, 5, zarr::blosc_shuffle::shuffle, 4, 0}, "fuzz");
  zarr_fuzz::check_decoder(codec, zarr_fuzz::input(data, size).rest());
  return 0;
}
