// libFuzzer target: the vlen-utf8 and vlen-bytes decoders (zarr.codec.vlen). Input: a byte whose
// low bit picks the type (0: string, 1: bytes), a byte giving the chunk's element count, then the
// stored chunk. Decoding succeeds or refuses with corrupt_chunk; what it decodes encodes back to
// exactly the stored bytes (the layout has one form per chunk).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = (in.byte() & 1) != 0 ? zarr::data_type::bytes : zarr::data_type::string;
  const std::uint64_t n = in.byte();
  const auto stored = in.rest();
  const zarr::vlen_codec codec({{n}, type, zarr::scalar{type, {}}}, "fuzz");
  std::vector<std::string> values(n);
  try {
    codec.decode_elements(stored, values);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr::bytes again;
  codec.encode_elements(values, again);
  zarr_fuzz::expect(zarr_fuzz::same_bytes(again, stored), "a decoded chunk encodes to other bytes");
  return 0;
}
