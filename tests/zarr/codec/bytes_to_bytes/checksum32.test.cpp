// The numcodecs checksums (crc32, adler32, fletcher32, jenkins_lookup3, crc32c): numcodecs 0.11's
// layouts and the locations of later versions. Encodings made by numcodecs 0.11 where it has the codec.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.codec.checksum32;
import zarr.metadata;
import zarr.metadata.v2;

namespace json = boost::json;
using zarr_test::bytes_chain;
using zarr_test::chain;
using zarr_test::hex;
using zarr_test::octets;
using zarr_test::spec;

BOOST_AUTO_TEST_SUITE(numcodecs_checksums)

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

BOOST_AUTO_TEST_SUITE_END()
