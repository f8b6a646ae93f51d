// libFuzzer target: numcodecs.pickle's reader (zarr.codec.pickle), an interpreter of the pickle
// opcodes that builds values and calls nothing. Input: a byte whose low bit picks the data type
// (0: string, 1: bytes) and whose next bits the protocol to write back in (0 to 5), a byte
// giving the chunk's element count, then the stored chunk. Decoding succeeds or refuses with
// corrupt_chunk; what it decodes, written in any protocol, reads back the same (a pickle has
// many forms, so only the values are compared). Seeds: seeds/pickle, Python's own pickles.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include <boost/json.hpp>
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto pick = in.byte();
  const std::uint64_t n = in.byte();
  const auto stored = in.rest();
  const auto type = (pick & 1) != 0 ? zarr::data_type::bytes : zarr::data_type::string;
  const auto protocol = static_cast<int>((pick >> 1) % 6);
  const zarr::pickle_codec codec({{n}, type, zarr::scalar{type, {}}}, protocol, "fuzz");
  std::vector<std::string> values(n);
  try {
    codec.decode_elements(stored, values);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr::bytes again;
  codec.encode_elements(values, again);
  std::vector<std::string> back(n);
  codec.decode_elements(again, back);
  zarr_fuzz::expect(back == values, "a re-pickled chunk decodes to other values");
  return 0;
}
