// libFuzzer target: the `n5_default` codec's decoder (zarr.codec.n5_default): an N5 block header,
// then the nested chain's bytes. Input: the data type (one of the ten N5 has), the rank (1-3), a
// byte per dimension (1-8 elements), whether the nested chain ends in gzip, then the block.
// Decoding succeeds, refuses N5's varlength and object blocks with unsupported and anything else
// with corrupt_chunk, never reads past the block nor allocates more than the chunk; what it
// decodes encodes and decodes back to itself.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "fuzz.hpp"
import zarr.error;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = zarr_fuzz::zfp_types[in.byte() % std::size(zarr_fuzz::zfp_types)];
  std::vector<std::uint64_t> shape(in.byte() % 3 + 1);
  for (auto& d : shape) d = in.byte() % 8 + 1;
  const bool gzip = (in.byte() & 1) != 0;
  const auto codec = zarr_fuzz::n5_default_codec_of(type, shape, gzip);
  const auto block = in.rest();
  // N5's varlength (1) and object (2) blocks: refused as unsupported, whatever follows.
  if (block.size() >= 2 && block[0] == std::byte{0} && (block[1] == std::byte{1} || block[1] == std::byte{2})) {
    try {
      static_cast<void>(codec.decode(block));
      zarr_fuzz::expect(false, "decoded a block of mode", std::to_string(static_cast<int>(block[1])));
    } catch (const zarr::error& e) {  // (corrupt_chunk when even the header is cut short)
      zarr_fuzz::expect(e.code() == zarr::errc::unsupported || e.code() == zarr::errc::corrupt_chunk,
                        "unexpected error code:", e.what());
    }
    return 0;
  }
  zarr_fuzz::check_array_decoder(codec, block);
  return 0;
}
