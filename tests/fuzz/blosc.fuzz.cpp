// libFuzzer target: the blosc codec's decoder (zarr.codec.blosc) on any bytes. It decodes or
// refuses with corrupt_chunk; what it decodes survives encode + decode unchanged. The output
// is capped at 1 MiB, as a chain caps it at what the next codec takes: a header claiming more
// (up to 2 GiB from a few bytes) is refused before anything is allocated.
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const zarr::blosc_codec codec({"lz4", 5, zarr::blosc_shuffle::shuffle, 4, 0}, "fuzz");
  const zarr_fuzz::input in(data, size);
  constexpr std::uint64_t limit = std::uint64_t{1} << 20;
  zarr::bytes decoded;
  try {
    decoded = codec.decode(in.rest(), limit);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr_fuzz::expect(zarr_fuzz::same_bytes(codec.decode(codec.encode(decoded), limit), decoded), "blosc round trip differs");
  return 0;
}
