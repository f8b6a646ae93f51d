// The zstd codec: frames written by the zstd command-line tool, checksums, round trips,
// corrupt and oversized inputs, configuration errors.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec.zstd;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

zarr::zstd_codec zstd(int level, bool checksum = false) {
  return zarr::zstd_codec(zarr::zstd_configuration{level, checksum}, "codecs[1]");
}

std::string zstd_chain(std::string_view configuration) {
  return R"([{"name":"bytes"},{"name":"zstd","configuration":)" + std::string(configuration) + "}]";
}

const auto plain = octets("Zarr v3 zstd test vector: 0123456789abcdef0123456789abcdef");

// zstd 1.5.4: `zstd -q -3 --no-check -c file`: the frame declares its content size (58).
const auto cli_sized = octets({
    0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x3a, 0x95, 0x01, 0x00, 0xa4, 0x02, 0x5a, 0x61, 0x72, 0x72, 0x20, 0x76, 0x33, 0x20, 0x7a,
    0x73, 0x74, 0x64, 0x20, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x3a, 0x20, 0x30, 0x31, 0x32,
    0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x01, 0x00, 0x1a, 0x64, 0x96, 0x01});

// `cat file | zstd -q -3 -C -c`: from a pipe, no content size; with a content checksum.
const auto cli_streamed_checksum = octets({
    0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x95, 0x01, 0x00, 0xa4, 0x02, 0x5a, 0x61, 0x72, 0x72, 0x20, 0x76, 0x33, 0x20, 0x7a,
    0x73, 0x74, 0x64, 0x20, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x3a, 0x20, 0x30, 0x31, 0x32,
    0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x01, 0x00, 0x1a, 0x64, 0x96, 0x01, 0x05,
    0x24, 0x3d, 0x33});

}  // namespace

BOOST_AUTO_TEST_SUITE(zstd_codec)

BOOST_AUTO_TEST_CASE(decodes_frames_written_by_the_zstd_tool) {
  BOOST_TEST(same(zstd(3).decode(cli_sized), plain));
  BOOST_TEST(same(zstd(3).decode(cli_streamed_checksum), plain));
}

BOOST_AUTO_TEST_CASE(decodes_concatenated_frames) {
  auto two = cli_sized;
  for (auto b : cli_streamed_checksum) two.push_back(b);
  auto expected = plain;
  for (auto b : plain) expected.push_back(b);
  BOOST_TEST(same(zstd(3).decode(two), expected));
}

BOOST_AUTO_TEST_CASE(writes_a_checksum_only_when_asked) {
  // Frame_Header_Descriptor (RFC 8878 3.1.1.1.1): bit 2 is Content_Checksum_Flag.
  const auto with = zstd(3, true).encode(plain);
  const auto without = zstd(3, false).encode(plain);
  BOOST_TEST(same(std::span(with).first(4), octets({0x28, 0xb5, 0x2f, 0xfd})));
  BOOST_TEST((static_cast<unsigned>(with[4]) & 4u) == 4u);
  BOOST_TEST((static_cast<unsigned>(without[4]) & 4u) == 0u);
  BOOST_TEST(with.size() == without.size() + 4);
  BOOST_TEST(same(zstd(3).decode(with), plain));
}

BOOST_AUTO_TEST_CASE(detects_a_wrong_content_checksum) {
  auto bad = cli_streamed_checksum;
  bad[bad.size() - 1] ^= std::byte{1};
  ZARR_CHECK_ERROR(zstd(3).decode(bad), errc::corrupt_chunk, "codecs[1] (zstd): expected a zstd frame, got invalid data");
}

BOOST_AUTO_TEST_CASE(round_trips_at_several_levels) {
  const auto s = spec({50, 40}, data_type::float64);
  const auto data = compressible_bytes(s.byte_size(), 5);
  for (auto level : {"-131072", "-5", "0", "1", "3", "19"})
    for (auto checksum : {false, true}) {
      const auto c = chain(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":)" +
                               std::string(level) + (checksum ? R"(,"checksum":true)" : "") + "}}]",
                           s);
      const auto encoded = c.encode(data);
      if (std::stoi(level) >= 1) BOOST_TEST(encoded.size() < data.size() / 2);  // negative levels trade ratio for speed
      BOOST_TEST(same(c.decode(encoded), data));
    }
  BOOST_TEST(zstd(1).decode(zstd(1).encode({})).empty());
  const auto noise = random_bytes(100000, 6);
  BOOST_TEST(same(zstd(1).decode(zstd(1).encode(noise)), noise));
}

BOOST_AUTO_TEST_CASE(omits_checksum_from_json_when_false) {
  BOOST_TEST(boost::json::serialize(chain(zstd_chain(R"({"level":3,"checksum":false})"), spec({1}, data_type::uint8)).to_json()) ==
             R"([{"name":"bytes","configuration":{}},{"name":"zstd","configuration":{"level":3}}])");
  BOOST_TEST(boost::json::serialize(chain(zstd_chain(R"({"level":-2,"checksum":true})"), spec({1}, data_type::uint8)).to_json()) ==
             R"([{"name":"bytes","configuration":{}},{"name":"zstd","configuration":{"level":-2,"checksum":true}}])");
}

BOOST_AUTO_TEST_CASE(rejects_truncated_frames) {
  for (const auto& frame : {cli_sized, cli_streamed_checksum})
    for (std::size_t n = 0; n < frame.size(); ++n)
      ZARR_CHECK_ERROR(zstd(3).decode(std::span(frame).first(n)), errc::corrupt_chunk, "codecs[1] (zstd): expected a zstd frame");
}

BOOST_AUTO_TEST_CASE(rejects_flipped_bytes_or_decodes_them_identically) {
  // Without a checksum a flipped literal byte decodes to other data: that is what the
  // checksum flag (or crc32c) is for, so this uses the frame with the checksum.
  for (std::size_t i = 0; i < cli_streamed_checksum.size(); ++i) {
    auto bad = cli_streamed_checksum;
    bad[i] ^= std::byte{0x21};
    try {
      BOOST_TEST(same(zstd(3).decode(bad), plain), "byte " << i);
    } catch (const zarr::error& e) {
      BOOST_TEST(e.code() == errc::corrupt_chunk);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_garbage) {
  ZARR_CHECK_ERROR(zstd(3).decode(random_bytes(1000, 9)), errc::corrupt_chunk, "do not start with a zstd frame header");
  ZARR_CHECK_ERROR(zstd(3).decode({}), errc::corrupt_chunk, "expected a zstd frame");
  auto trailing = cli_sized;
  for (auto b : octets("junk!")) trailing.push_back(b);
  ZARR_CHECK_ERROR(zstd(3).decode(trailing), errc::corrupt_chunk, "expected a zstd frame");
}

BOOST_AUTO_TEST_CASE(checks_a_declared_size_against_the_limit_before_allocating) {
  ZARR_CHECK_ERROR(zstd(3).decode(cli_sized, 16), errc::corrupt_chunk,
                   "a frame declaring 58 bytes, more than the decoding limit of 16");
  BOOST_TEST(same(zstd(3).decode(cli_sized, 58), plain));
  // A frame header claiming 2^40 bytes (Frame_Content_Size 8 bytes), and nothing else.
  const auto liar = octets({0x28, 0xb5, 0x2f, 0xfd, 0xE0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00});
  ZARR_CHECK_ERROR(zstd(3).decode(liar), errc::corrupt_chunk, "more than the decoding limit");
}

BOOST_AUTO_TEST_CASE(stops_an_unsized_stream_at_the_limit) {
  ZARR_CHECK_ERROR(zstd(3).decode(cli_streamed_checksum, 40), errc::corrupt_chunk,
                   "more than 40 bytes of output (the decoding limit)");
}

BOOST_AUTO_TEST_CASE(requires_a_level) {
  ZARR_CHECK_ERROR(chain(zstd_chain("{}"), spec({1}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.level: expected an integer, got nothing");
  ZARR_CHECK_ERROR(chain(zstd_chain(R"({"checksum":true})"), spec({1}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.level: expected an integer, got nothing");
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes"},"zstd"])", spec({1}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.level");
}

BOOST_AUTO_TEST_CASE(rejects_a_level_out_of_range_or_of_the_wrong_type) {
  for (auto bad : {"23", "-131073", "\"3\"", "3.5", "null"})
    ZARR_CHECK_ERROR(chain(zstd_chain(std::string(R"({"level":)") + bad + "}"), spec({1}, data_type::uint8)),
                     errc::invalid_metadata, "codecs[1].configuration.level: expected an integer from -131072 to 22, got");
}

BOOST_AUTO_TEST_CASE(rejects_a_checksum_that_is_not_a_boolean) {
  ZARR_CHECK_ERROR(chain(zstd_chain(R"({"level":3,"checksum":1})"), spec({1}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.checksum: expected a boolean, got 1");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(chain(zstd_chain(R"({"level":3,"window_log":20})"), spec({1}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1].configuration.window_log: expected no such key");
}

BOOST_AUTO_TEST_SUITE_END()
