// libFuzzer target: the gzip codec's decoder (zarr.codec.gzip) on any bytes. It decodes or
// refuses with corrupt_chunk; what it decodes survives encode + decode unchanged. The output
// is capped at 1 MiB here (the default limit is 4 GiB).
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const zarr::gzip_codec codec({1}, "fuzz");
  constexpr std::uint64_t limit = std::uint64_t{1} << 20;
  const zarr_fuzz::input in(data, size);
  zarr::bytes decoded;
  try {
    decoded = codec.decode(in.rest(), limit);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr_fuzz::expect(zarr_fuzz::same_bytes(codec.decode(codec.encode(decoded), limit), decoded), "gzip round trip differs");
  return 0;
}
