// numcodecs.zlib: numcodecs' Zlib, bit for bit.
// Expected encodings were made by numcodecs 0.11 itself (Debian python3-numcodecs), e.g.
//   numcodecs.Zlib(1).encode(b"numcodecs " * 6).hex()
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;

namespace json = boost::json;
using zarr_test::bytes_chain;
using zarr_test::chain;
using zarr_test::hex;
using zarr_test::octets;
using zarr_test::spec;

BOOST_AUTO_TEST_SUITE(numcodecs_zlib)

BOOST_AUTO_TEST_CASE(encodes_bit_for_bit_as_numcodecs_and_decodes_its_output) {
  const auto text = octets(zarr_test::numcodecs_text());
  const auto c = bytes_chain(R"({"name": "numcodecs.zlib", "configuration": {"level": 1}})", text.size());
  const auto expected = hex("7801cb2bcd4dce4f494d2e56c823990500cf3a1747");
  BOOST_TEST(zarr_test::same(c.encode(std::span<const std::byte>(text)), expected));
  BOOST_TEST(zarr_test::same(c.decode(expected), text));
}

BOOST_AUTO_TEST_CASE(refuses_bombs_before_allocating_and_names_corrupt_input) {
  zarr_test::check_bomb_refused(R"({"name": "numcodecs.zlib"})");
}

BOOST_AUTO_TEST_CASE(rejects_a_level_out_of_range_naming_the_key) {
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.zlib", "configuration": {"level": 10}}])",
                         spec({4}, zarr::data_type::uint8)),
                   zarr::errc::invalid_metadata, "codecs[1].configuration.level");
}

BOOST_AUTO_TEST_SUITE_END()
