// libFuzzer target: the readers of numcodecs' object codecs, which parse a whole stored chunk
// into elements: numcodecs.pickle (an interpreter of the pickle opcodes that builds values and
// calls nothing), numcodecs.json2 and numcodecs.msgpack2. Input: a byte whose bits 5 and 6 pick
// the codec (0: pickle, 1: json2, 2: msgpack2, 3: msgpack2 without use_bin_type), bit 0 the data
// type (0: string, 1: bytes; json2 holds only strings) and bits 1 to 4 the pickle protocol to
// write back in (0 to 5), a byte giving the chunk's element count, then the stored chunk.
// Decoding succeeds or refuses with corrupt_chunk; what it decodes, written again, reads back
// the same (a chunk has many forms, so only the values are compared). Seeds: seeds/objects,
// Python's own pickles and numcodecs' MessagePack and JSON chunks.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <boost/json.hpp>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.codec.json2;
import zarr.codec.msgpack2;
import zarr.codec.pickle;
import zarr.builder;
import zarr.bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto pick = in.byte();
  const std::uint64_t n = in.byte();
  const auto stored = in.rest();
  const auto which = (pick >> 5) & 3;
  const auto type = (pick & 1) != 0 && which != 1 ? zarr::data_type::bytes : zarr::data_type::string;
  const zarr::chunk_spec spec{{n}, type, zarr::scalar{type, {}}};
  std::unique_ptr<zarr::array_to_bytes_codec> codec;
  if (which == 0) codec = std::make_unique<zarr::pickle_codec>(spec, static_cast<int>((pick >> 1) % 6), "fuzz");
  if (which == 1) codec = std::make_unique<zarr::json2_codec>(spec, boost::json::object{}, "fuzz");
  if (which >= 2) codec = std::make_unique<zarr::msgpack2_codec>(spec, boost::json::object{{"use_bin_type", which == 2}}, "fuzz");
  std::vector<std::string> values(n);
  try {
    codec->decode_elements(stored, values);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr::bytes again;
  codec->encode_elements(values, again);
  std::vector<std::string> back(n);
  codec->decode_elements(again, back);
  zarr_fuzz::expect(back == values, "a chunk written again decodes to other values");
  return 0;
}
