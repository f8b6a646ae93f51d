// numcodecs.lz4: numcodecs' LZ4 with its 4-byte size header, bit for bit.
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

namespace json = boost::json;
using zarr_test::bytes_chain;
using zarr_test::chain;
using zarr_test::hex;
using zarr_test::octets;
using zarr_test::spec;

BOOST_AUTO_TEST_SUITE(numcodecs_lz4)

BOOST_AUTO_TEST_CASE(encodes_bit_for_bit_as_numcodecs_and_decodes_its_output) {
  const auto text = octets(zarr_test::numcodecs_text());
  const auto c = bytes_chain(R"({"name": "numcodecs.lz4", "configuration": {"acceleration": 1}})", text.size());
  const auto expected = hex("3c000000af6e756d636f64656373200a001a506465637320");
  BOOST_TEST(zarr_test::same(c.encode(std::span<const std::byte>(text)), expected));
  BOOST_TEST(zarr_test::same(c.decode(expected), text));
}

BOOST_AUTO_TEST_CASE(refuses_bombs_before_allocating_and_names_corrupt_input) {
  zarr_test::check_bomb_refused(R"({"name": "numcodecs.lz4"})");
  // The header declares the size: refused from the header alone.
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.lz4"})", 16).decode(octets({0xff, 0xff, 0xff, 0x7f, 0})),
                   zarr::errc::corrupt_chunk, "got a header declaring 2147483647");
}

BOOST_AUTO_TEST_SUITE_END()
