// The numcodecs codecs (zlib, bz2, lzma, lz4, shuffle, crc32, adler32, fletcher32,
// jenkins_lookup3, delta, astype, quantize, bitround, packbits, blosc under its numcodecs
// configuration). Every expected encoding but fletcher32's and jenkins_lookup3's (numcodecs 0.11
// lacks them; see their tests) was made by numcodecs 0.11 itself (Debian python3-numcodecs), e.g.
//   numcodecs.Zlib(1).encode(b"numcodecs " * 6).hex()
// and is given next to its test; the fixture test (zarr.tests.v2) reads hundreds more.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include "codec_test.hpp"
import zarr;

namespace json = boost::json;
using zarr_test::chain;
using zarr_test::octets;
using zarr_test::spec;

namespace {

zarr::bytes hex(std::string_view text) { return zarr_test::from_hex(text); }

std::string repeated() {
  std::string s;
  for (int i = 0; i < 6; ++i) s += "numcodecs ";
  return s;
}

// A bytes -> bytes codec alone in a chain of uint8 chunks of `n` bytes.
zarr::codec_chain bytes_chain(std::string_view codec, std::size_t n) {
  return chain(R"([{"name": "bytes"}, )" + std::string(codec) + "]", spec({n}, zarr::data_type::uint8));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(numcodecs_compressors)

BOOST_AUTO_TEST_CASE(encode_bit_for_bit_as_numcodecs_and_decode_its_output) {
  const auto text = octets(repeated());
  struct row {
    std::string_view codec, numcodecs;
  };
  const row rows[] = {
      // numcodecs.Zlib(1), BZ2(1), LZMA(preset=1), LZMA(format=2, preset=1), LZ4()
      {R"({"name": "numcodecs.zlib", "configuration": {"level": 1}})", "7801cb2bcd4dce4f494d2e56c823990500cf3a1747"},
      {R"({"name": "numcodecs.bz2", "configuration": {"level": 1}})",
       "425a6831314159265359651e8322000014918040000e038a00200031064c408a8634906c6c60e0e8e0c0747e2ee48a70a120ca3d0644"},
      {R"({"name": "numcodecs.lzma", "configuration": {"preset": 1}})",
       "fd377a585a000004e6d6b4460200210110000000a8708e86e0003b00115d00371d49dda8291f5f3c3a5b43da86e2000000000000505cac2aef"
       "60200700012d3c4393c32f1fb6f37d010000000004595a"},
      {R"({"name": "numcodecs.lzma", "configuration": {"format": 2, "preset": 1}})",
       "5d00001000ffffffffffffffff00371d49dda8291f5f3c3a5b43da9fd843fffff443c000"},
      {R"({"name": "numcodecs.lz4", "configuration": {"acceleration": 1}})", "3c000000af6e756d636f64656373200a001a506465637320"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.codec) {
      const auto c = bytes_chain(r.codec, text.size());
      const auto expected = hex(r.numcodecs);
      BOOST_TEST(zarr_test::same(c.encode(std::span<const std::byte>(text)), expected));
      BOOST_TEST(zarr_test::same(c.decode(expected), text));
    }
  }
}

BOOST_AUTO_TEST_CASE(refuse_bombs_before_allocating_and_name_corrupt_input) {
  // 1 MiB of zeros claims far more than a 16-byte chunk may hold.
  const zarr::bytes zeros(1 << 20, std::byte{0});
  for (std::string_view codec : {R"({"name": "numcodecs.zlib"})", R"({"name": "numcodecs.bz2"})",
                                 R"({"name": "numcodecs.lzma"})", R"({"name": "numcodecs.lz4"})"}) {
    BOOST_TEST_CONTEXT(codec) {
      const auto big = bytes_chain(codec, zeros.size()).encode(std::span<const std::byte>(zeros));
      ZARR_CHECK_ERROR(bytes_chain(codec, 16).decode(big), zarr::errc::corrupt_chunk, "(the decoding limit)");
      auto cut = big;
      cut.resize(cut.size() / 2);
      BOOST_CHECK_THROW(static_cast<void>(bytes_chain(codec, zeros.size()).decode(cut)), zarr::error);
    }
  }
  // numcodecs' LZ4 header declares the size: refused from the header alone.
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.lz4"})", 16).decode(octets({0xff, 0xff, 0xff, 0x7f, 0})),
                   zarr::errc::corrupt_chunk, "got a header declaring 2147483647");
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.bz2"})", 16).decode(octets("BZh9garbage")), zarr::errc::corrupt_chunk,
                   "codecs[1] (numcodecs.bz2): expected a bzip2 stream, got invalid data");
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.lzma"})", 16).decode(octets("this is no xz stream at all")),
                   zarr::errc::corrupt_chunk,
                   "codecs[1] (numcodecs.lzma): expected an .xz stream, got invalid data");
}

BOOST_AUTO_TEST_CASE(reject_bad_configurations_naming_the_key) {
  const auto decoded = spec({4}, zarr::data_type::uint8);
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.zlib", "configuration": {"level": 10}}])", decoded),
                   zarr::errc::invalid_metadata, "codecs[1].configuration.level");
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.lzma", "configuration": {"format": 3}}])", decoded),
                   zarr::errc::unsupported, "codecs[1].configuration.format: expected 1 (.xz) or 2 (.lzma), got 3");
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.lzma", "configuration": {"filters": [{"id": 33}]}}])", decoded),
                   zarr::errc::unsupported, "codecs[1].configuration.filters: expected null");
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.blosc", "configuration": {"shuffle": 3}}])", decoded),
                   zarr::errc::invalid_metadata, "codecs[1].configuration.shuffle: expected -1, 0, 1 or 2 (numcodecs), got 3");
}

BOOST_AUTO_TEST_CASE(read_numcodecs_blosc_configurations_as_the_blosc_codec) {
  // numcodecs' AUTOSHUFFLE (-1): bit shuffle for one-byte items, byte shuffle otherwise.
  const auto one = chain(R"([{"name": "bytes"}, {"name": "numcodecs.blosc", "configuration": {"cname": "zstd", "clevel": 1, "shuffle": -1}}])",
                         spec({4}, zarr::data_type::uint8));
  BOOST_TEST(one.bytes_to_bytes()[0]->to_json().at("configuration").at("shuffle") == "bitshuffle");
  const auto four = chain(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "numcodecs.blosc"}])",
                          spec({4}, zarr::data_type::int32));
  BOOST_TEST(four.bytes_to_bytes()[0]->to_json() == json::parse(R"({"name": "blosc", "configuration": {"cname": "lz4",
      "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}})"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(numcodecs_byte_filters)

BOOST_AUTO_TEST_CASE(put_the_checksum_first_as_numcodecs_0_11_does) {
  // numcodecs.CRC32().encode(b"123456789"), numcodecs.Adler32().encode(b"Wikipedia")
  const auto crc = bytes_chain(R"({"name": "numcodecs.crc32"})", 9);
  BOOST_TEST(zarr_test::same(crc.encode(std::span<const std::byte>(octets("123456789"))), hex("2639f4cb313233343536373839")));
  const auto adler = bytes_chain(R"({"name": "numcodecs.adler32"})", 9);
  BOOST_TEST(zarr_test::same(adler.decode(hex("9803e61157696b697065646961")), octets("Wikipedia")));
  ZARR_CHECK_ERROR(crc.decode(hex("2639f4cc313233343536373839")), zarr::errc::corrupt_chunk,
                   "codecs[1] (numcodecs.crc32): expected checksum 0xCBF43926 (computed from the data), got 0xCCF43926 (stored)");
  ZARR_CHECK_ERROR(crc.decode(octets({1, 2})), zarr::errc::corrupt_chunk, "expected at least 4 bytes");
}

BOOST_AUTO_TEST_CASE(compute_fletcher32_and_jenkins_lookup3_from_their_definitions) {
  // numcodecs 0.11 has neither: the checksums come from tools/numcodecs_checksums.py (the
  // algorithms in plain Python), and these from the authors: lookup3.c's own driver prints
  // hashlittle("", 0xdeadbeef) = bd5b7dde and of "Four score and seven years ago" 17770551
  // (initval 0) and cd628161 (initval 1).
  using zarr::checksum32_kind;
  std::string bytes_256x3;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 256; ++i) bytes_256x3 += static_cast<char>(i);
  bytes_256x3 += '\xff';  // 769 bytes: odd, and more than one block of 360 words
  const std::string four = "Four score and seven years ago";
  struct row {
    checksum32_kind kind;
    std::string data;
    std::uint32_t initval, sum;
  };
  const row rows[] = {
      {checksum32_kind::fletcher32, "", 0, 0x00000000},         {checksum32_kind::fletcher32, "a", 0, 0x61006100},
      {checksum32_kind::fletcher32, "abcdef", 0, 0x50562A2D},   {checksum32_kind::fletcher32, "abcdefg", 0, 0xE183912D},
      {checksum32_kind::fletcher32, four, 0, 0x4D63AC65},       {checksum32_kind::fletcher32, bytes_256x3, 0, 0x9FC03FC0},
      {checksum32_kind::jenkins_lookup3, "", 0, 0xDEADBEEF},    {checksum32_kind::jenkins_lookup3, "", 0xDEADBEEF, 0xBD5B7DDE},
      {checksum32_kind::jenkins_lookup3, "a", 0, 0x58D68708},   {checksum32_kind::jenkins_lookup3, "abcdef", 0x12345678, 0x5E6FE393},
      {checksum32_kind::jenkins_lookup3, "abcdefg", 1, 0x68A4CD79}, {checksum32_kind::jenkins_lookup3, four, 0, 0x17770551},
      {checksum32_kind::jenkins_lookup3, four, 1, 0xCD628161},  {checksum32_kind::jenkins_lookup3, four, 0x12345678, 0xE5959756},
      {checksum32_kind::jenkins_lookup3, bytes_256x3, 0, 0x6EB19B19},
      {checksum32_kind::jenkins_lookup3, bytes_256x3, 0x12345678, 0x34A99980},
  };
  for (const auto& r : rows)
    BOOST_TEST(zarr::checksum32(r.kind, octets(r.data), r.initval) == r.sum,
               (r.kind == checksum32_kind::fletcher32 ? "fletcher32 " : "jenkins_lookup3 ") << r.data.size() << " bytes");
}

BOOST_AUTO_TEST_CASE(put_the_fletcher32_and_jenkins_lookup3_checksums_last) {
  const auto fletcher = bytes_chain(R"({"name": "numcodecs.fletcher32"})", 6);
  BOOST_TEST(zarr_test::same(fletcher.encode(std::span<const std::byte>(octets("abcdef"))), hex("6162636465662d2a5650")));
  BOOST_TEST(zarr_test::same(fletcher.decode(hex("6162636465662d2a5650")), octets("abcdef")));
  ZARR_CHECK_ERROR(fletcher.decode(hex("6162636465672d2a5650")), zarr::errc::corrupt_chunk,
                   "codecs[1] (numcodecs.fletcher32): expected checksum 0x");
  // numcodecs' own test of Fletcher32 (test_fletcher32.py, test_known): ten <i8 values.
  const auto known = hex("770700000000000085f6ffffffffffff690700000000000094f6ffffffffffff8809000000000000"
                         "690300000000000093fdffffffffffffc3fcffffffffffff2702000000000000baf7ffffffffffff");
  auto stored = known;
  for (const auto b : hex("fd258664")) stored.push_back(b);
  BOOST_TEST(zarr_test::same(bytes_chain(R"({"name": "numcodecs.fletcher32"})", 80).decode(stored), known));
  // numcodecs' test_jenkins.py: JenkinsLookup3().encode(b"Four score and seven years ago")[-4:] == 51057717.
  const auto jenkins = bytes_chain(R"({"name": "numcodecs.jenkins_lookup3", "configuration": {"initval": 0, "prefix": null}})", 30);
  auto four = octets("Four score and seven years ago");
  const auto encoded = jenkins.encode(std::span<const std::byte>(four));
  for (const auto b : hex("51057717")) four.push_back(b);
  BOOST_TEST(zarr_test::same(encoded, four));
  BOOST_TEST(json::value(jenkins.to_json()).as_array()[1] == zarr::parse_json(R"({"name": "numcodecs.jenkins_lookup3", "configuration": {"initval": 0}})"));
  const auto seeded = bytes_chain(R"({"name": "numcodecs.jenkins_lookup3", "configuration": {"initval": 1}})", 30);
  ZARR_CHECK_ERROR(seeded.decode(encoded), zarr::errc::corrupt_chunk,
                   "expected checksum 0xCD628161 (computed from the data), got 0x17770551 (stored)");
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.jenkins_lookup3", "configuration": {"prefix": "AAE="}})", 4),
                   zarr::errc::unsupported, "codecs[1].configuration.prefix: expected null");
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.jenkins_lookup3", "configuration": {"initval": -1}})", 4),
                   zarr::errc::invalid_metadata, "codecs[1].configuration.initval");
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.fletcher32", "configuration": {"location": "end"}})", 4),
                   zarr::errc::invalid_metadata, "codecs[1].configuration.location");
}

// numcodecs.crc32c (zarr-extensions codecs/numcodecs.crc32c, numcodecs >= 0.13's CRC32C): the
// crc32c codec's checksum, last by default; "location" moves it, for crc32 and adler32 too.
BOOST_AUTO_TEST_CASE(numcodecs_crc32c_and_the_location_of_a_checksum) {
  const auto data = octets("123456789");
  const auto end = bytes_chain(R"({"name": "numcodecs.crc32c"})", 9);
  auto appended = data;
  for (const auto b : hex("839206e3")) appended.push_back(b);  // CRC-32C("123456789") = 0xE3069283, RFC 3720
  BOOST_TEST(zarr_test::same(end.encode(std::span<const std::byte>(data)), appended));
  BOOST_TEST(zarr_test::same(end.decode(appended), data));
  BOOST_TEST(json::value(end.to_json()).as_array()[1] ==
             zarr::parse_json(R"({"name": "numcodecs.crc32c", "configuration": {"location": "end"}})"));
  auto first = hex("839206e3");
  for (const auto b : data) first.push_back(b);
  const auto start = bytes_chain(R"({"name": "numcodecs.crc32c", "configuration": {"location": "start"}})", 9);
  BOOST_TEST(zarr_test::same(start.encode(std::span<const std::byte>(data)), first));
  ZARR_CHECK_ERROR(start.decode(appended), zarr::errc::corrupt_chunk, "codecs[1] (numcodecs.crc32c): expected checksum 0x");
  // crc32 at the end: zlib's CRC-32("123456789") = 0xCBF43926 after the data, the place written.
  const auto crc32_end = bytes_chain(R"({"name": "numcodecs.crc32", "configuration": {"location": "end"}})", 9);
  auto crc32_appended = data;
  for (const auto b : hex("2639f4cb")) crc32_appended.push_back(b);
  BOOST_TEST(zarr_test::same(crc32_end.encode(std::span<const std::byte>(data)), crc32_appended));
  BOOST_TEST(json::value(crc32_end.to_json()).as_array()[1] ==
             zarr::parse_json(R"({"name": "numcodecs.crc32", "configuration": {"location": "end"}})"));
  // At its numcodecs 0.11 place, nothing is written: numcodecs 0.11 takes no "location".
  BOOST_TEST(json::value(bytes_chain(R"({"name": "numcodecs.adler32", "configuration": {"location": "start"}})", 9).to_json())
                 .as_array()[1] == zarr::parse_json(R"({"name": "numcodecs.adler32", "configuration": {}})"));
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.crc32c", "configuration": {"location": "middle"}})", 9),
                   zarr::errc::invalid_metadata, "codecs[1].configuration.location: expected \"start\" or \"end\", got \"middle\"");
  // Zarr v2's id.
  const auto m = zarr::array_metadata::parse_v2(R"({"zarr_format": 2, "shape": [9], "chunks": [9], "dtype": "|u1",
      "order": "C", "fill_value": 0, "filters": [{"id": "crc32c", "location": "start"}], "compressor": null})");
  BOOST_TEST(json::serialize(zarr::v2_codecs(m)).find(R"({"name":"numcodecs.crc32c","configuration":{"location":"start"}})") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(shuffles_bytes_by_position) {
  // numcodecs.Shuffle(4).encode(np.arange(3, dtype="<u4"))
  const auto c = chain(R"([{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}}])",
                       spec({3}, zarr::data_type::uint32));
  const std::vector<std::uint32_t> v{0, 1, 2};
  const auto encoded = c.encode(std::span<const std::byte>(zarr_test::to_bytes(v)));
  BOOST_TEST(zarr_test::same(encoded, hex("000102000000000000000000")));
  BOOST_TEST(zarr_test::from_bytes<std::uint32_t>(c.decode(encoded)) == v, boost::test_tools::per_element());
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}})", 6)
                       .encode(std::span<const std::byte>(octets("abcdef"))),
                   zarr::errc::invalid_argument, "expected a multiple of elementsize 4 bytes, got 6");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(numcodecs_array_filters)

BOOST_AUTO_TEST_CASE(delta_wraps_into_astype_as_numcodecs) {
  // numcodecs.Delta("<i2", "|i1").encode(np.array([100, 102, 98, -28, 127], "<i2")).tobytes().hex()
  const auto c = chain(R"([{"name": "numcodecs.delta", "configuration": {"dtype": "<i2", "astype": "|i1"}}, {"name": "bytes"}])",
                       spec({5}, zarr::data_type::int16));
  const std::vector<std::int16_t> v{100, 102, 98, -28, 127};
  const auto encoded = c.encode(std::span<const std::byte>(zarr_test::to_bytes(v)));
  BOOST_TEST(zarr_test::same(encoded, hex("6402fc829b")));
  // 127 - -28 = 155 does not fit int8: numcodecs' own decode gives -129 back, and so do we.
  BOOST_TEST(zarr_test::from_bytes<std::int16_t>(c.decode(encoded)) == (std::vector<std::int16_t>{100, 102, 98, -28, -129}),
             boost::test_tools::per_element());
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}, {"name": "bytes"}])",
                         spec({5}, zarr::data_type::int16)),
                   zarr::errc::invalid_metadata, "codecs[0].configuration.dtype: expected the type the codec receives (int16), got int32");
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.delta", "configuration": {"dtype": "<f8", "astype": "<f4"}}, {"name": "bytes"}])",
                         spec({5}, zarr::data_type::float64)),
                   zarr::errc::unsupported, "codecs[0] (numcodecs.delta): expected integer dtype and astype");
}

BOOST_AUTO_TEST_CASE(astype_casts_as_numpy_and_refuses_what_numpy_leaves_undefined) {
  // numcodecs.AsType("<i1", "<i4").encode(np.array([1, 200, -129], "<i4")) == [1, -56, 127]
  const auto c = chain(R"([{"name": "numcodecs.astype", "configuration": {"encode_dtype": "|i1", "decode_dtype": null}},
                           {"name": "bytes"}])", spec({3}, zarr::data_type::int32));
  const auto encoded = c.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<std::int32_t>{1, 200, -129})));
  BOOST_TEST(zarr_test::from_bytes<std::int8_t>(encoded) == (std::vector<std::int8_t>{1, -56, 127}), boost::test_tools::per_element());
  const auto f = chain(R"([{"name": "numcodecs.astype", "configuration": {"encode_dtype": "<i2", "decode_dtype": "<f8"}},
                           {"name": "bytes", "configuration": {"endian": "little"}}])", spec({2}, zarr::data_type::float64));
  ZARR_CHECK_ERROR(f.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<double>{1.5, 1e9}))),
                   zarr::errc::out_of_range, "codecs[0] (numcodecs.astype), element 1");
}

BOOST_AUTO_TEST_CASE(quantize_and_bitround_round_as_numcodecs) {
  // numcodecs.Quantize(1, "<f8").encode([0.123456, 3.14159]) == [0.125, 3.125]
  const auto q = chain(R"([{"name": "numcodecs.quantize", "configuration": {"digits": 1, "dtype": "<f8"}},
                           {"name": "bytes", "configuration": {"endian": "little"}}])", spec({2}, zarr::data_type::float64));
  const auto qe = q.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<double>{0.123456, 3.14159})));
  BOOST_TEST(zarr_test::from_bytes<double>(qe) == (std::vector<double>{0.125, 3.125}), boost::test_tools::per_element());
  // numcodecs.BitRound(3).encode(np.array([1.1, 0.15625, -3.3], "<f4")).view("<u4")
  for (std::string_view name : {"bitround", "numcodecs.bitround"}) {
    const auto b = chain(R"([{"name": ")" + std::string(name) + R"(", "configuration": {"keepbits": 3}},
                             {"name": "bytes", "configuration": {"endian": "little"}}])", spec({3}, zarr::data_type::float32));
    const auto be = b.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<float>{1.1f, 0.15625f, -3.3f})));
    BOOST_TEST(zarr_test::from_bytes<std::uint32_t>(be) == (std::vector<std::uint32_t>{1066401792u, 1042284544u, 3226468352u}),
               boost::test_tools::per_element());
    BOOST_TEST(zarr_test::same(b.decode(be), be));  // decoding is the identity
  }
  ZARR_CHECK_ERROR(chain(R"([{"name": "bitround", "configuration": {"keepbits": 24}}, {"name": "bytes", "configuration": {"endian": "little"}}])",
                         spec({3}, zarr::data_type::float32)),
                   zarr::errc::invalid_metadata, "codecs[0].configuration.keepbits: expected at most 23");
}

BOOST_AUTO_TEST_CASE(packbits_packs_most_significant_bit_first_after_the_padding_count) {
  // numcodecs.PackBits().encode(np.array([1,0,1,1,0,0,0,0,1,1], bool)).hex() == "06b0c0"
  const auto c = chain(R"([{"name": "numcodecs.packbits"}])", spec({10}, zarr::data_type::bool_));
  const auto flags = octets({1, 0, 1, 1, 0, 0, 0, 0, 1, 1});
  BOOST_TEST(zarr_test::same(c.encode(std::span<const std::byte>(flags)), hex("06b0c0")));
  BOOST_TEST(zarr_test::same(c.decode(hex("06b0c0")), flags));
  ZARR_CHECK_ERROR(c.decode(hex("05b0c0")), zarr::errc::corrupt_chunk, "expected 3 bytes with 6 padding bits for 10 flags");
}

BOOST_AUTO_TEST_SUITE_END()
