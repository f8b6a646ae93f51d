// libFuzzer target: the `optional` codec's decoder (zarr.codec.optional): two lengths, an encoded
// mask, encoded values. Input: a selector of the type and chains (zarr_fuzz::optional_codec_of),
// the rank (1-2), a byte per dimension (1-8 elements), then the stored chunk. Decoding succeeds or
// refuses with corrupt_chunk, never reads past the chunk nor allocates more than its chains
// allow; what it decodes encodes and decodes back to itself (null elements as all zero bytes).
#include <cstddef>
#include <cstdint>
#include <vector>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto selector = in.byte();
  std::vector<std::uint64_t> shape(in.byte() % 2 + 1);
  for (auto& d : shape) d = in.byte() % 8 + 1;
  zarr_fuzz::check_array_decoder(zarr_fuzz::optional_codec_of(selector, shape), in.rest());
  return 0;
}
