// libFuzzer target: the blosc codec's decoder (zarr.codec.blosc) on any bytes. It decodes or
// refuses with corrupt_chunk; what it decodes survives encode + decode unchanged. Inputs whose
// header claims more than 1 MiB are skipped: the decoder allocates what the header claims (up
// to 2 GiB from a few bytes), to be bounded by the chunk's expected size that the codec
// interfaces are about to pass down the chain (the zstd and gzip targets cap at 1 MiB too).
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const zarr::blosc_codec codec({"lz4", 5, zarr::blosc_shuffle::shuffle, 4, 0}, "fuzz");
  const zarr_fuzz::input in(data, size);
  if (size >= 8 && (std::uint32_t{data[4]} | std::uint32_t{data[5]} << 8 | std::uint32_t{data[6]} << 16 |
                    std::uint32_t{data[7]} << 24) > (1u << 20))
    return 0;
  zarr::bytes decoded;
  try {
    decoded = codec.decode(in.rest());
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr_fuzz::expect(zarr_fuzz::same_bytes(codec.decode(codec.encode(decoded)), decoded), "blosc round trip differs");
  return 0;
}
