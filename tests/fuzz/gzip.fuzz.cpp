// libFuzzer target: the gzip codec's decoder (zarr.codec.gzip) on any bytes. It decodes or
// refuses with corrupt_chunk; what it decodes survives encode + decode unchanged. The output
// is capped at 1 MiB here (the default limit is 4 GiB).
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"
import zarr.codec.gzip;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const zarr::gzip_codec codec({1}, "fuzz");
  zarr_fuzz::check_decoder(codec, zarr_fuzz::input(data, size).rest());
  return 0;
}
