// The blosc codec: every compressor and shuffle, the typesize rules, the header, corrupt
// inputs, configuration errors. (Buffers written by zarrita.js are read in codec.test.cpp.)
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.codec.blosc;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

std::string blosc_chain(std::string_view configuration, std::string_view endian = "little") {
  return R"([{"name":"bytes","configuration":{"endian":")" + std::string(endian) +
         R"("}},{"name":"blosc","configuration":)" + std::string(configuration) + "}]";
}

std::uint32_t le32(std::span<const std::byte> b, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(b[at + i]) << (8 * i);
  return v;
}

const boost::json::value& blosc_json(const zarr::codec_chain& c) {
  static boost::json::value v;
  v = c.to_json().as_array().back().as_object().at("configuration");
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(blosc_codec)

BOOST_AUTO_TEST_CASE(lists_every_compressor_of_the_spec) {
  const std::string list(zarr::blosc_compressors());
  for (auto name : {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"})
    BOOST_TEST((list.find(name) != std::string::npos), name << " in " << list);
}

BOOST_AUTO_TEST_CASE(round_trips_every_compressor_and_shuffle) {
  const auto s = spec({40, 25}, data_type::int32);
  const auto data = compressible_bytes(s.byte_size(), 12);
  for (auto cname : {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"})
    for (auto shuffle : {"noshuffle", "shuffle", "bitshuffle"})
      for (int clevel : {0, 1, 5, 9}) {
        const auto c = chain(blosc_chain(std::string(R"({"cname":")") + cname + R"(","clevel":)" + std::to_string(clevel) +
                                         R"(,"shuffle":")" + shuffle + R"(","typesize":4,"blocksize":0})"),
                             s);
        const auto encoded = c.encode(data);
        if (clevel >= 5) BOOST_TEST(encoded.size() < data.size(), cname << " " << shuffle << " " << clevel);
        BOOST_TEST(same(c.decode(encoded), data), cname << " " << shuffle << " " << clevel);
      }
}

BOOST_AUTO_TEST_CASE(writes_the_blosc_header) {
  // c-blosc README_CHUNK_FORMAT: version, versionlz, flags, typesize, nbytes, blocksize, cbytes.
  const auto s = spec({1000}, data_type::int32);
  const auto data = compressible_bytes(s.byte_size(), 2);
  const auto out = chain(blosc_chain(R"({"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4})"), s).encode(data);
  BOOST_TEST_REQUIRE(out.size() >= 16u);
  BOOST_TEST(static_cast<unsigned>(out[0]) == 2u);
  BOOST_TEST((static_cast<unsigned>(out[2]) & 0x1u) == 0x1u);  // byte shuffle
  BOOST_TEST(static_cast<unsigned>(out[3]) == 4u);
  BOOST_TEST(le32(out, 4) == 4000u);
  BOOST_TEST(le32(out, 12) == out.size());
  const auto bit = chain(blosc_chain(R"({"cname":"lz4","clevel":5,"shuffle":"bitshuffle","typesize":4})"), s).encode(data);
  BOOST_TEST((static_cast<unsigned>(bit[2]) & 0x4u) == 0x4u);  // bit shuffle
}

BOOST_AUTO_TEST_CASE(chooses_and_records_the_typesize_of_the_data_type) {
  for (auto [type, size] : std::vector<std::pair<data_type, int>>{
           {data_type::int32, 4}, {data_type::float64, 8}, {data_type::uint16, 2}, {data_type::complex128, 16}, {data_type::int4, 1}}) {
    const auto s = spec({64}, type);
    const auto c = chain(blosc_chain(R"({"cname":"zstd","clevel":3,"shuffle":"shuffle"})"), s);
    BOOST_TEST(blosc_json(c).at("typesize").to_number<int>() == size);
    const auto out = c.encode(compressible_bytes(s.byte_size(), 1));
    BOOST_TEST(static_cast<int>(out[3]) == size);
  }
  // After a transpose the type is the same; the typesize follows it.
  const auto t = chain(R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}},
                          {"name":"blosc","configuration":{"cname":"lz4","clevel":1,"shuffle":"bitshuffle"}}])",
                       spec({4, 4}, data_type::float32));
  BOOST_TEST(blosc_json(t).at("typesize").to_number<int>() == 4);
}

BOOST_AUTO_TEST_CASE(records_every_member) {
  const auto c = chain(blosc_chain(R"({"cname":"lz4","clevel":1,"shuffle":"noshuffle"})"), spec({8}, data_type::int64));
  BOOST_TEST(boost::json::serialize(blosc_json(c)) ==
             R"({"cname":"lz4","clevel":1,"shuffle":"noshuffle","typesize":8,"blocksize":0})");
  const auto d = chain(blosc_chain(R"({"blocksize":4096,"typesize":2,"shuffle":"shuffle","clevel":9,"cname":"zlib"})"),
                       spec({8}, data_type::int64));
  BOOST_TEST(boost::json::serialize(blosc_json(d)) ==
             R"({"cname":"zlib","clevel":9,"shuffle":"shuffle","typesize":2,"blocksize":4096})");
}

BOOST_AUTO_TEST_CASE(round_trips_empty_and_incompressible_input) {
  const auto codec = zarr::blosc_codec(zarr::blosc_configuration{zarr::blosc_cname::lz4, 5, zarr::blosc_shuffle::shuffle, 4, 0}, "codecs[1]");
  BOOST_TEST(codec.decode(codec.encode({})).empty());
  const auto noise = random_bytes(100003, 6);
  BOOST_TEST(same(codec.decode(codec.encode(noise)), noise));
}

BOOST_AUTO_TEST_CASE(rejects_truncated_and_garbage_input) {
  const auto codec = zarr::blosc_codec(zarr::blosc_configuration{zarr::blosc_cname::zstd, 5, zarr::blosc_shuffle::bitshuffle, 8, 0}, "codecs[1]");
  const auto good = codec.encode(compressible_bytes(5000, 3));
  for (std::size_t n = 0; n < good.size(); n += (n < 40 ? 1 : 37))
    ZARR_CHECK_ERROR(codec.decode(std::span(good).first(n)), errc::corrupt_chunk, "codecs[1] (blosc): expected");
  ZARR_CHECK_ERROR(codec.decode(random_bytes(3000, 5)), errc::corrupt_chunk, "codecs[1] (blosc): expected");
  // A header that claims 2 GiB of output from 16 bytes.
  const auto liar = octets({2, 1, 0x21, 4, 0, 0, 0, 0x80, 0, 0, 1, 0, 16, 0, 0, 0});
  ZARR_CHECK_ERROR(codec.decode(liar), errc::corrupt_chunk, "invalid header");
}

BOOST_AUTO_TEST_CASE(survives_flipped_bytes) {
  // blosc has no checksum: a flipped byte may decode to other data of the same size, but
  // must never crash or read out of bounds.
  const auto codec = zarr::blosc_codec(zarr::blosc_configuration{zarr::blosc_cname::lz4, 5, zarr::blosc_shuffle::shuffle, 4, 0}, "codecs[1]");
  const auto data = compressible_bytes(6000, 4);
  const auto good = codec.encode(data);
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto bad = good;
    bad[i] ^= std::byte{0xA5};
    try {
      BOOST_TEST(codec.decode(bad).size() <= (std::size_t{1} << 31));
    } catch (const zarr::error& e) {
      BOOST_TEST(e.code() == errc::corrupt_chunk);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_missing_required_members) {
  ZARR_CHECK_ERROR(chain(blosc_chain(R"({"clevel":5,"shuffle":"noshuffle"})"), spec({4}, data_type::int32)),
                   errc::invalid_metadata, "codecs[1].configuration.cname: expected one of");
  ZARR_CHECK_ERROR(chain(blosc_chain(R"({"cname":"lz4","shuffle":"noshuffle"})"), spec({4}, data_type::int32)),
                   errc::invalid_metadata, "codecs[1].configuration.clevel: expected an integer, got nothing");
  ZARR_CHECK_ERROR(chain(blosc_chain(R"({"cname":"lz4","clevel":5})"), spec({4}, data_type::int32)), errc::invalid_metadata,
                   "codecs[1].configuration.shuffle: expected one of \"noshuffle\", \"shuffle\", \"bitshuffle\", got nothing");
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes"},"blosc"])", spec({4}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.cname");
}

BOOST_AUTO_TEST_CASE(rejects_an_unknown_compressor) {
  ZARR_CHECK_ERROR(chain(blosc_chain(R"({"cname":"lz5","clevel":5,"shuffle":"noshuffle"})"), spec({4}, data_type::int32)),
                   errc::invalid_metadata, "codecs[1].configuration.cname: expected one of \"blosclz\", \"lz4\", \"lz4hc\", \"snappy\", \"zlib\", \"zstd\", got \"lz5\"");
  ZARR_CHECK_ERROR(chain(blosc_chain(R"({"cname":1,"clevel":5,"shuffle":"noshuffle"})"), spec({4}, data_type::int32)),
                   errc::invalid_metadata, "codecs[1].configuration.cname: expected one of");
}

BOOST_AUTO_TEST_CASE(rejects_a_bad_clevel) {
  for (auto bad : {"10", "-1", "\"5\"", "2.5"})
    ZARR_CHECK_ERROR(chain(blosc_chain(std::string(R"({"cname":"lz4","shuffle":"noshuffle","clevel":)") + bad + "}"),
                           spec({4}, data_type::int32)),
                     errc::invalid_metadata, "codecs[1].configuration.clevel: expected an integer from 0 to 9, got");
}

BOOST_AUTO_TEST_CASE(rejects_a_bad_shuffle) {
  for (auto bad : {R"("auto")", "1", "-1", "null"})
    ZARR_CHECK_ERROR(chain(blosc_chain(std::string(R"({"cname":"lz4","clevel":5,"shuffle":)") + bad + "}"),
                           spec({4}, data_type::int32)),
                     errc::invalid_metadata, "codecs[1].configuration.shuffle: expected one of");
}

BOOST_AUTO_TEST_CASE(rejects_a_bad_typesize) {
  for (auto bad : {"0", "-4", "\"4\"", "4.0", "null"})
    ZARR_CHECK_ERROR(chain(blosc_chain(std::string(R"({"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":)") + bad + "}"),
                           spec({4}, data_type::int32)),
                     errc::invalid_metadata, "codecs[1].configuration.typesize: expected an integer from 1 to");
}

BOOST_AUTO_TEST_CASE(rejects_a_bad_blocksize) {
  for (auto bad : {"-1", "\"0\"", "1.5"})
    ZARR_CHECK_ERROR(chain(blosc_chain(std::string(R"({"cname":"lz4","clevel":5,"shuffle":"shuffle","blocksize":)") + bad + "}"),
                           spec({4}, data_type::int32)),
                     errc::invalid_metadata, "codecs[1].configuration.blocksize: expected an integer from 0 to");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(chain(blosc_chain(R"({"cname":"lz4","clevel":5,"shuffle":"shuffle","nthreads":4})"), spec({4}, data_type::int32)),
                   errc::invalid_metadata, "codecs[1].configuration.nthreads: expected no such key");
}

BOOST_AUTO_TEST_CASE(read_numcodecs_blosc_configurations_as_the_blosc_codec) {
  // numcodecs' AUTOSHUFFLE (-1): bit shuffle for one-byte items, byte shuffle otherwise.
  const auto one = chain(R"([{"name": "bytes"}, {"name": "numcodecs.blosc", "configuration": {"cname": "zstd", "clevel": 1, "shuffle": -1}}])",
                         spec({4}, zarr::data_type::uint8));
  BOOST_TEST(one.bytes_to_bytes()[0]->to_json().at("configuration").at("shuffle") == "bitshuffle");
  const auto four = chain(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "numcodecs.blosc"}])",
                          spec({4}, zarr::data_type::int32));
  BOOST_TEST(four.bytes_to_bytes()[0]->to_json() == boost::json::parse(R"({"name": "blosc", "configuration": {"cname": "lz4",
      "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}})"));
}

BOOST_AUTO_TEST_CASE(rejects_a_numcodecs_shuffle_it_does_not_know_naming_the_key) {
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.blosc", "configuration": {"shuffle": 3}}])",
                         spec({4}, zarr::data_type::uint8)),
                   zarr::errc::invalid_metadata, "codecs[1].configuration.shuffle: expected -1, 0, 1 or 2 (numcodecs), got 3");
}

BOOST_AUTO_TEST_SUITE_END()
