// The gzip codec: streams from Python's gzip module, RFC 1952 framing of our output,
// round trips, corrupt and oversized inputs, configuration errors.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec.gzip;
import zarr.builder;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

std::string gzip_chain(std::string_view level) {
  return R"([{"name":"bytes"},{"name":"gzip","configuration":{"level":)" + std::string(level) + "}}]";
}

zarr::gzip_codec gzip(int level) {
  return zarr::gzip_codec(zarr::gzip_configuration{level}, "codecs[1]");
}

// /usr/bin/python3: gzip.compress(b"Zarr v3 gzip test vector: " + bytes(range(16))*4, compresslevel=6, mtime=0)
const auto python_gzip = octets({
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x8b, 0x4a, 0x2c, 0x2a, 0x52, 0x28, 0x33, 0x56, 0x48, 0xaf,
    0xca, 0x2c, 0x50, 0x28, 0x49, 0x2d, 0x2e, 0x51, 0x28, 0x4b, 0x4d, 0x2e, 0xc9, 0x2f, 0xb2, 0x52, 0x60, 0x60, 0x64, 0x62,
    0x66, 0x61, 0x65, 0x63, 0xe7, 0xe0, 0xe4, 0xe2, 0xe6, 0xe1, 0xe5, 0xe3, 0x27, 0x95, 0x0f, 0x00, 0x89, 0x2d, 0xf5, 0x74,
    0x5a, 0x00, 0x00, 0x00});

zarr::bytes python_plain() {
  auto out = octets("Zarr v3 gzip test vector: ");
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 16; ++i) out.push_back(static_cast<std::byte>(i));
  return out;
}

// gzip.compress(b"hello ", mtime=0) + gzip.compress(b"world", mtime=0): two members.
const auto python_two_members = octets({
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0x00, 0x00, 0xf6, 0xf9,
    0x81, 0xed, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x2b, 0xcf, 0x2f, 0xca,
    0x49, 0x01, 0x00, 0x43, 0x11, 0x77, 0x3a, 0x05, 0x00, 0x00, 0x00});

}  // namespace

BOOST_AUTO_TEST_SUITE(gzip_codec)

BOOST_AUTO_TEST_CASE(decodes_a_stream_written_by_python) {
  BOOST_TEST(same(gzip(6).decode(python_gzip), python_plain()));
}

BOOST_AUTO_TEST_CASE(decodes_concatenated_members) {
  BOOST_TEST(same(gzip(6).decode(python_two_members), octets("hello world")));
}

BOOST_AUTO_TEST_CASE(writes_the_rfc_1952_format) {
  const auto out = gzip(9).encode(octets("123456789"));
  BOOST_TEST_REQUIRE(out.size() > 18u);
  // ID1 ID2 CM=8 (deflate) ... then CRC-32 and ISIZE, little endian. CRC-32("123456789") = 0xCBF43926.
  BOOST_TEST(same(std::span(out).first(3), octets({0x1f, 0x8b, 0x08})));
  BOOST_TEST(same(std::span(out).last(8), octets({0x26, 0x39, 0xF4, 0xCB, 9, 0, 0, 0})));
  BOOST_TEST(same(gzip(9).decode(out), octets("123456789")));
}

BOOST_AUTO_TEST_CASE(round_trips_at_every_level) {
  const auto s = spec({64, 33}, data_type::int32);
  const auto data = compressible_bytes(s.byte_size(), 3);
  for (int level = 0; level <= 9; ++level) {
    const auto c = chain(R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":)" +
                             std::to_string(level) + "}}]",
                         s);
    const auto encoded = c.encode(data);
    if (level == 0) BOOST_TEST(encoded.size() > data.size());  // stored blocks
    else BOOST_TEST(encoded.size() < data.size() / 2);
    BOOST_TEST(same(c.decode(encoded), data));
    BOOST_TEST(!c.encoded_size());
  }
}

BOOST_AUTO_TEST_CASE(round_trips_empty_and_incompressible_input) {
  BOOST_TEST(gzip(5).decode(gzip(5).encode({})).empty());
  const auto noise = random_bytes(100000, 4);
  BOOST_TEST(same(gzip(1).decode(gzip(1).encode(noise)), noise));
}

BOOST_AUTO_TEST_CASE(records_the_level) {
  BOOST_TEST(boost::json::serialize(chain(gzip_chain("7"), spec({1}, data_type::uint8)).to_json()) ==
             R"([{"name":"bytes","configuration":{}},{"name":"gzip","configuration":{"level":7}}])");
}

BOOST_AUTO_TEST_CASE(rejects_truncated_streams) {
  for (std::size_t n = 0; n < python_gzip.size(); ++n)
    ZARR_CHECK_ERROR(gzip(6).decode(std::span(python_gzip).first(n)), errc::corrupt_chunk, "codecs[1] (gzip): expected a gzip stream");
}

BOOST_AUTO_TEST_CASE(rejects_flipped_bytes_or_decodes_them_identically) {
  // A flip in an ignored header field (MTIME, XFL, OS) leaves a valid stream; anywhere else
  // the deflate data or the CRC-32 catch it. Never a crash, never other data.
  std::size_t rejected = 0;
  for (std::size_t i = 0; i < python_gzip.size(); ++i) {
    auto bad = python_gzip;
    bad[i] ^= std::byte{0x5A};
    try {
      BOOST_TEST(same(gzip(6).decode(bad), python_plain()), "byte " << i);
    } catch (const zarr::error& e) {
      BOOST_TEST(e.code() == errc::corrupt_chunk);
      ++rejected;
    }
  }
  BOOST_TEST(rejected >= python_gzip.size() - 6);
}

BOOST_AUTO_TEST_CASE(rejects_garbage_and_trailing_garbage) {
  ZARR_CHECK_ERROR(gzip(6).decode(random_bytes(1000, 8)), errc::corrupt_chunk, "expected a gzip stream, got invalid data");
  ZARR_CHECK_ERROR(gzip(6).decode(octets("not gzip at all")), errc::corrupt_chunk, "expected a gzip stream");
  auto trailing = python_gzip;
  for (auto b : octets("junk")) trailing.push_back(b);
  ZARR_CHECK_ERROR(gzip(6).decode(trailing), errc::corrupt_chunk, "expected a gzip stream");
}

BOOST_AUTO_TEST_CASE(stops_a_bomb_at_the_decoding_limit) {
  const zarr::bytes zeros(std::size_t{1} << 21, std::byte{0});
  const auto bomb = gzip(9).encode(zeros);
  BOOST_TEST(bomb.size() < 4096u);
  ZARR_CHECK_ERROR(gzip(9).decode(bomb, std::uint64_t{1} << 20), errc::corrupt_chunk,
                   "more than 1048576 bytes of output (the decoding limit)");
  BOOST_TEST(gzip(9).decode(bomb, zeros.size()).size() == zeros.size());
}

BOOST_AUTO_TEST_CASE(requires_a_level) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes"},{"name":"gzip"}])", spec({1}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.level: expected an integer, got nothing");
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes"},"gzip"])", spec({1}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.level: expected an integer, got nothing");
}

BOOST_AUTO_TEST_CASE(rejects_a_level_out_of_range_or_of_the_wrong_type) {
  for (auto bad : {"10", "-1", "\"5\"", "5.0", "true", "null", "[5]"})
    ZARR_CHECK_ERROR(chain(gzip_chain(bad), spec({1}, data_type::uint8)), errc::invalid_metadata,
                     "codecs[1].configuration.level: expected an integer from 0 to 9, got");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes"},{"name":"gzip","configuration":{"level":1,"mtime":0}}])", spec({1}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[1].configuration.mtime: expected no such key");
}

BOOST_AUTO_TEST_SUITE_END()
