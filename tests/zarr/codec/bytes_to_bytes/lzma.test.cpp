// numcodecs.lzma: numcodecs' LZMA (.xz and .lzma formats), bit for bit.
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

BOOST_AUTO_TEST_SUITE(numcodecs_lzma)

BOOST_AUTO_TEST_CASE(encodes_bit_for_bit_as_numcodecs_and_decodes_its_output) {
  const auto text = octets(zarr_test::numcodecs_text());
  const auto c = bytes_chain(R"({"name": "numcodecs.lzma", "configuration": {"preset": 1}})", text.size());
  const auto expected = hex("fd377a585a000004e6d6b4460200210110000000a8708e86e0003b00115d00371d49dda8291f5f3c3a5b43da86e2000000000000505cac2aef"
                             "60200700012d3c4393c32f1fb6f37d010000000004595a");
  BOOST_TEST(zarr_test::same(c.encode(std::span<const std::byte>(text)), expected));
  BOOST_TEST(zarr_test::same(c.decode(expected), text));
  const auto c2 = bytes_chain(R"({"name": "numcodecs.lzma", "configuration": {"format": 2, "preset": 1}})", text.size());
  const auto expected2 = hex("5d00001000ffffffffffffffff00371d49dda8291f5f3c3a5b43da9fd843fffff443c000");
  BOOST_TEST(zarr_test::same(c2.encode(std::span<const std::byte>(text)), expected2));
  BOOST_TEST(zarr_test::same(c2.decode(expected2), text));
}

BOOST_AUTO_TEST_CASE(refuses_bombs_before_allocating_and_names_corrupt_input) {
  zarr_test::check_bomb_refused(R"({"name": "numcodecs.lzma"})");
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.lzma"})", 16).decode(octets("this is no xz stream at all")),
                   zarr::errc::corrupt_chunk, "codecs[1] (numcodecs.lzma): expected an .xz stream, got invalid data");
}

BOOST_AUTO_TEST_CASE(rejects_formats_and_filters_it_cannot_write_naming_the_key) {
  const auto decoded = spec({4}, zarr::data_type::uint8);
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.lzma", "configuration": {"format": 3}}])", decoded),
                   zarr::errc::unsupported, "codecs[1].configuration.format: expected 1 (.xz) or 2 (.lzma), got 3");
  ZARR_CHECK_ERROR(chain(R"([{"name": "bytes"}, {"name": "numcodecs.lzma", "configuration": {"filters": [{"id": 33}]}}])", decoded),
                   zarr::errc::unsupported, "codecs[1].configuration.filters: expected null");
}

BOOST_AUTO_TEST_SUITE_END()
