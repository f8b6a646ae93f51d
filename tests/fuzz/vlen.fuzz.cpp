// libFuzzer target: the vlen-utf8 and vlen-bytes decoders (zarr.codec.vlen), numcodecs.categorize's
// (zarr.codec.categorize), and the element-moving codecs over vlen. Input: a byte whose low bits
// pick the decoder (0: vlen-utf8, 1: vlen-bytes, 2: categorize into |u1, 3: categorize into <i2,
// 4: transpose then vlen-utf8, 5-7: a shard of inner chunks of one string), a byte giving the
// chunk's element count, then the stored chunk. Decoding succeeds or refuses with corrupt_chunk;
// what it decodes encodes back to exactly the stored bytes (each layout has one form per chunk;
// a shard's layout is free, so a shard is only decoded).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include <boost/json.hpp>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.codec.vlen;
import zarr.builder;
import zarr.bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto pick = in.byte() & 7;
  const std::uint64_t n = in.byte();
  const auto stored = in.rest();
  std::vector<std::string> values(n);
  zarr::bytes again;
  try {
    if (pick < 2) {
      const auto type = pick == 1 ? zarr::data_type::bytes : zarr::data_type::string;
      const zarr::vlen_codec codec({{n}, type, zarr::scalar{type, {}}}, "fuzz");
      codec.decode_elements(stored, values);
      codec.encode_elements(values, again);
    } else if (pick >= 4) {
      static const auto transposed = boost::json::parse(R"([{"name": "transpose", "configuration": {"order": [1, 0]}},
          {"name": "vlen-utf8"}])");
      static const auto sharded = boost::json::parse(R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1],
          "codecs": [{"name": "vlen-utf8"}], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])");
      const zarr::codec_chain chain(pick == 4 ? transposed : sharded,
                                    {{n, 1}, zarr::data_type::string, zarr::scalar{zarr::data_type::string, {}}});
      chain.decode_elements(stored, values);
      again = chain.encode_elements(values);
      if (pick > 4) {  // the shard we write decodes to the same strings
        std::vector<std::string> back(n);
        chain.decode_elements(again, back);
        zarr_fuzz::expect(back == values, "a re-encoded shard decodes to other strings");
        return 0;
      }
    } else {
      // Distinct labels, none empty: every number decodes to one string that encodes to it.
      static const auto u1 = boost::json::parse(R"([{"name": "numcodecs.categorize", "configuration":
          {"labels": ["a", "b\u00e9ta", "x", "\u4e2d"], "dtype": "|O"}}, {"name": "bytes"}])");
      static const auto i2 = boost::json::parse(R"([{"name": "numcodecs.categorize", "configuration":
          {"labels": ["a", "b\u00e9ta", "x", "\u4e2d"], "dtype": "|O", "astype": "<i2"}},
          {"name": "bytes", "configuration": {"endian": "little"}}])");
      const zarr::codec_chain chain(pick == 2 ? u1 : i2, {{n}, zarr::data_type::string, zarr::scalar{zarr::data_type::string, {}}});
      chain.decode_elements(stored, values);
      again = chain.encode_elements(values);
    }
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    return 0;
  }
  zarr_fuzz::expect(zarr_fuzz::same_bytes(again, stored), "a decoded chunk encodes to other bytes");
  return 0;
}
