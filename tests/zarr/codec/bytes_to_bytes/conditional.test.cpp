// The conditional codec: chunks laid out by hand (header byte, then the nested codecs' output)
// decode; the writer keeps a codec only where it makes the bytes smaller; reserved header
// bits, short streams and bad configurations are refused.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec.crc32c;
import zarr.codec.gzip;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

const char* gzip_then_crc = R"([{"name":"bytes","configuration":{"endian":"little"}},
  {"name":"conditional","configuration":{"codecs":[{"name":"gzip","configuration":{"level":5}},{"name":"crc32c"}]}}])";

zarr::bytes concat(std::initializer_list<std::span<const std::byte>> parts) {
  zarr::bytes out;
  for (auto p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(conditional_codec)

// Every form a writer may produce: header bit i says codec i was applied (in list order).
BOOST_AUTO_TEST_CASE(reads_every_combination_of_applied_codecs) {
  const auto c = chain(gzip_then_crc, spec({500}, data_type::uint16));
  const auto raw = compressible_bytes(1000, 3);
  const zarr::gzip_codec gzip(zarr::gzip_configuration{5}, "g");
  const zarr::crc32c_codec crc("c");
  const auto zipped = gzip.encode(raw);
  BOOST_TEST(same(c.decode(concat({octets({0x00}), raw})), raw));
  BOOST_TEST(same(c.decode(concat({octets({0x01}), zipped})), raw));
  BOOST_TEST(same(c.decode(concat({octets({0x02}), crc.encode(raw)})), raw));
  BOOST_TEST(same(c.decode(concat({octets({0x03}), crc.encode(zipped)})), raw));
  // the crc is checked where its bit says it was applied
  auto damaged = concat({octets({0x03}), crc.encode(zipped)});
  damaged.back() ^= std::byte{1};
  ZARR_CHECK_ERROR(c.decode(damaged), errc::corrupt_chunk, "crc32c");
}

// The writer's rule: a codec is applied only when its output is smaller than its input.
BOOST_AUTO_TEST_CASE(writes_a_codec_only_where_it_makes_the_chunk_smaller) {
  const auto c = chain(gzip_then_crc, spec({500}, data_type::uint16));
  const auto compressible = compressible_bytes(1000, 4);
  const auto encoded = c.encode(compressible);
  BOOST_TEST(static_cast<unsigned>(encoded[0]) == 0x01u);  // gzip kept, crc32c (4 bytes more) skipped
  BOOST_TEST(encoded.size() < compressible.size() / 2);
  BOOST_TEST(same(c.decode(encoded), compressible));
  const auto noise = random_bytes(1000, 5);
  const auto stored = c.encode(noise);
  BOOST_TEST(static_cast<unsigned>(stored[0]) == 0x00u);  // gzip would grow random bytes
  BOOST_TEST(same(std::span(stored).subspan(1), noise));
}

BOOST_AUTO_TEST_CASE(header_bits_reserve_room_for_later_codecs) {
  const auto c = chain(R"([{"name":"bytes","configuration":{"endian":"little"}},
    {"name":"conditional","configuration":{"codecs":[{"name":"zstd","configuration":{"level":1}}],"header_bits":16}}])",
                       spec({64}, data_type::uint32));
  const auto raw = random_bytes(256, 6);
  BOOST_TEST(same(c.decode(concat({octets({0x00, 0x00}), raw})), raw));
  ZARR_CHECK_ERROR(c.decode(concat({octets({0x00, 0x80}), raw})), errc::corrupt_chunk,
                   "codecs[1] (conditional): header bit 15 is set, but there are only 1 codecs (expected the reserved bits 0)");
  ZARR_CHECK_ERROR(c.decode(octets({0x00})), errc::corrupt_chunk, "expected a header of 2 bytes, got 1 bytes in all");
  BOOST_TEST(boost::json::serialize(c.to_json().as_array()[1]) ==
             R"({"name":"conditional","configuration":{"codecs":[{"name":"zstd","configuration":{"level":1}}],"header_bits":16}})");
}

BOOST_AUTO_TEST_CASE(through_an_array) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "c", zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3,
      "node_type": "array", "shape": [40], "data_type": "int32", "fill_value": 0,
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [20]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                 {"name": "conditional", "configuration": {"codecs": [{"name": "zstd", "configuration": {"level": 3}}]}}]})")));
  std::vector<std::int32_t> values(40);
  for (std::size_t i = 0; i < 40; ++i) values[i] = i < 20 ? 7 : static_cast<std::int32_t>(i * 2654435761u);
  a.write<std::int32_t>({{0}, {40}}, values);
  BOOST_TEST((a.read<std::int32_t>({{0}, {40}}) == values));
  BOOST_TEST(static_cast<unsigned>((*store->get("c/c/0"))[0]) == 0x01u);  // a run of 7s compresses
}

BOOST_AUTO_TEST_CASE(refuses_bad_configurations) {
  const auto bad = [](std::string_view config, errc code, std::string_view message) {
    ZARR_CHECK_ERROR(chain(std::string(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"conditional","configuration":)") +
                               std::string(config) + "}]",
                           spec({4}, data_type::uint16)),
                     code, message);
  };
  bad("{}", errc::invalid_metadata, "codecs[1].configuration.codecs: expected an array of bytes -> bytes codecs, got nothing");
  bad(R"({"codecs":{}})", errc::invalid_metadata, "codecs[1].configuration.codecs: expected an array");
  bad(R"({"codecs":[{"name":"transpose","configuration":{"order":[0]}}]})", errc::invalid_metadata,
      "codecs[1].configuration.codecs[0] (transpose): expected a bytes -> bytes codec");
  bad(R"({"codecs":[{"name":"lz77","must_understand":false}]})", errc::unsupported,
      "codecs[1].configuration.codecs[0].name: expected a supported codec, got \"lz77\"");
  bad(R"({"codecs":[{"name":"crc32c"}],"header_bits":12})", errc::invalid_metadata,
      "codecs[1].configuration.header_bits: expected a multiple of 8 from 1 (the number of codecs) to 8192, got 12");
  bad(R"({"codecs":[{"name":"crc32c"}],"header_bits":0})", errc::invalid_metadata, "header_bits: expected a multiple of 8 from 1");
  bad(R"({"codecs":[],"mask":1})", errc::invalid_metadata, "codecs[1].configuration.mask");
  bad(R"({"codecs":[{"name":"gzip","configuration":{"level":10}}]})", errc::invalid_metadata,
      "codecs[1].configuration.codecs[0].configuration.level");
}

BOOST_AUTO_TEST_SUITE_END()
