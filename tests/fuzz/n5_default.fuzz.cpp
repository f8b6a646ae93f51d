// libFuzzer target: the `n5_default` codec's decoder (zarr.codec.n5_default): an N5 block header,
// then the nested chain's bytes. Input: the data type (one of the ten N5 has), the rank (1-3), a
// byte per dimension (1-8 elements), whether the nested chain ends in gzip, then the block.
// Decoding succeeds, refuses a block mode other than default with unsupported or anything else
// with corrupt_chunk, never reads past the block nor allocates more than the chunk; what it
// decodes encodes and decodes back to itself.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = zarr_fuzz::zfp_types[in.byte() % std::size(zarr_fuzz::zfp_types)];
  std::vector<std::uint64_t> shape(in.byte() % 3 + 1);
  for (auto& d : shape) d = in.byte() % 8 + 1;
  const bool gzip = (in.byte() & 1) != 0;
  const auto codec = zarr_fuzz::n5_default_codec_of(type, shape, gzip);
  try {
    zarr_fuzz::check_array_decoder(codec, in.rest());
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::unsupported);  // a varlength or object block
  }
  return 0;
}
