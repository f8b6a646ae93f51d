// The crc32c codec: the checksum against published check values, both implementations,
// appending and verifying, corrupt inputs, configuration errors.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec.crc32c;
import zarr.builder;
import zarr.bytes;

using namespace zarr_test;
using zarr::crc32c_method;
using zarr::data_type;
using zarr::errc;

namespace {

std::vector<crc32c_method> methods() {
  std::vector<crc32c_method> m{crc32c_method::table, crc32c_method::automatic};
  if (zarr::crc32c_has_sse42()) m.push_back(crc32c_method::sse42);
  return m;
}

constexpr auto int32_crc = R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}])";

}  // namespace

BOOST_AUTO_TEST_SUITE(crc32c_codec)

BOOST_AUTO_TEST_CASE(computes_the_check_value) {
  for (auto m : methods()) BOOST_TEST(zarr::crc32c(octets("123456789"), m) == 0xE3069283u);
}

BOOST_AUTO_TEST_CASE(computes_the_rfc_3720_test_vectors) {
  // RFC 3720 B.4 (the CRC bytes there are the little-endian encoding of these values).
  zarr::bytes zeros(32, std::byte{0});
  zarr::bytes ones(32, std::byte{0xFF});
  zarr::bytes up(32);
  zarr::bytes down(32);
  for (std::size_t i = 0; i < 32; ++i) {
    up[i] = static_cast<std::byte>(i);
    down[i] = static_cast<std::byte>(31 - i);
  }
  for (auto m : methods()) {
    BOOST_TEST(zarr::crc32c(zeros, m) == 0x8A9136AAu);
    BOOST_TEST(zarr::crc32c(ones, m) == 0x62A8AB43u);
    BOOST_TEST(zarr::crc32c(up, m) == 0x46DD794Eu);
    BOOST_TEST(zarr::crc32c(down, m) == 0x113FDB5Cu);
    BOOST_TEST(zarr::crc32c({}, m) == 0u);
  }
}

BOOST_AUTO_TEST_CASE(table_and_sse42_agree_on_every_length_and_alignment) {
  if (!zarr::crc32c_has_sse42()) {
    BOOST_TEST_MESSAGE("no SSE4.2 on this CPU: only the table is tested");
    ZARR_CHECK_ERROR(zarr::crc32c(octets("x"), crc32c_method::sse42), errc::unsupported, "SSE4.2");
    return;
  }
  const auto data = random_bytes(4096 + 64, 11);
  for (std::size_t offset = 0; offset < 9; ++offset)
    for (std::size_t n : {0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 1000, 4096}) {
      const std::span<const std::byte> s(data.data() + offset, n);
      BOOST_TEST_REQUIRE(zarr::crc32c(s, crc32c_method::table) == zarr::crc32c(s, crc32c_method::sse42));
    }
}

BOOST_AUTO_TEST_CASE(appends_the_checksum_little_endian) {
  const auto c = chain(R"([{"name":"bytes"},{"name":"crc32c"}])", spec({9}, data_type::uint8));
  const auto out = c.encode(octets("123456789"));
  BOOST_TEST(same(out, octets({'1', '2', '3', '4', '5', '6', '7', '8', '9', 0x83, 0x92, 0x06, 0xE3})));
  BOOST_TEST(same(c.decode(out), octets("123456789")));
}

BOOST_AUTO_TEST_CASE(has_a_fixed_encoded_size) {
  const auto c = chain(int32_crc, spec({10}, data_type::int32));
  BOOST_TEST((c.encoded_size() == std::optional<std::uint64_t>(44)));
  BOOST_TEST(c.encode(random_bytes(40, 1)).size() == 44u);
  BOOST_TEST(boost::json::serialize(c.to_json()) ==
             R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c","configuration":{}}])");
}

BOOST_AUTO_TEST_CASE(round_trips_an_empty_chunk) {
  const auto c = chain(int32_crc, spec({0}, data_type::int32));
  const auto out = c.encode(zarr::bytes{});
  BOOST_TEST(same(out, octets({0, 0, 0, 0})));
  BOOST_TEST(c.decode(out).empty());
}

BOOST_AUTO_TEST_CASE(rejects_a_flipped_bit_anywhere) {
  const auto c = chain(int32_crc, spec({4}, data_type::int32));
  const auto good = c.encode(to_bytes<std::int32_t>({1, 2, 3, 4}));
  for (std::size_t i = 0; i < good.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = good;
      bad[i] ^= static_cast<std::byte>(1 << bit);
      ZARR_CHECK_ERROR(c.decode(bad), errc::corrupt_chunk, "codecs[1] (crc32c): expected checksum 0x");
    }
}

BOOST_AUTO_TEST_CASE(names_both_checksums) {
  const auto c = chain(R"([{"name":"bytes"},{"name":"crc32c"}])", spec({9}, data_type::uint8));
  auto bad = octets({'1', '2', '3', '4', '5', '6', '7', '8', '9', 0x01, 0x02, 0x03, 0x04});
  ZARR_CHECK_ERROR(c.decode(bad), errc::corrupt_chunk,
                   "expected checksum 0xE3069283 (computed from the data), got 0x04030201 (stored)");
}

BOOST_AUTO_TEST_CASE(rejects_input_shorter_than_the_checksum) {
  const auto c = chain(R"([{"name":"bytes"},{"name":"crc32c"}])", spec({0}, data_type::uint8));
  for (std::size_t n = 0; n < 4; ++n)
    ZARR_CHECK_ERROR(c.decode(zarr::bytes(n)), errc::corrupt_chunk,
                     "codecs[1] (crc32c): expected at least 4 bytes (the checksum), got " + std::to_string(n));
}

BOOST_AUTO_TEST_CASE(accepts_an_empty_configuration_and_rejects_any_key) {
  BOOST_CHECK_NO_THROW(chain(R"([{"name":"bytes"},{"name":"crc32c","configuration":{}}])", spec({1}, data_type::uint8)));
  BOOST_CHECK_NO_THROW(chain(R"([{"name":"bytes"},"crc32c"])", spec({1}, data_type::uint8)));
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes"},{"name":"crc32c","configuration":{"seed":0}}])", spec({1}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[1].configuration.seed: expected no such key");
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes"},{"name":"crc32c","configuration":[]}])", spec({1}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[1].configuration: expected an object");
}

BOOST_AUTO_TEST_SUITE_END()
