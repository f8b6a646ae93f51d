// libFuzzer target: the crc32c codec's decoder (zarr.codec.crc32c) on any bytes. It strips a
// matching checksum or refuses with corrupt_chunk; encoding what it accepted gives the input back,
// and the SSE4.2 and table methods agree.
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"
import zarr.error;
import zarr.codec.crc32c;
import zarr.builder;
import zarr.bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const zarr::crc32c_codec codec("fuzz");
  const zarr_fuzz::input in(data, size);
  if (zarr::crc32c_has_sse42())
    zarr_fuzz::expect(zarr::crc32c(in.rest(), zarr::crc32c_method::sse42) ==
                          zarr::crc32c(in.rest(), zarr::crc32c_method::table),
                      "the SSE4.2 and table CRC32C differ");
  zarr::bytes decoded;
  try {
    decoded = codec.decode(in.rest());
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr_fuzz::expect(zarr_fuzz::same_bytes(codec.encode(decoded), in.rest()), "crc32c encode(decode(x)) != x");
  return 0;
}
