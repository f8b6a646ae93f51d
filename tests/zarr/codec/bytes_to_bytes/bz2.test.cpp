// numcodecs.bz2: numcodecs' BZ2, bit for bit.
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

BOOST_AUTO_TEST_SUITE(numcodecs_bz2)

BOOST_AUTO_TEST_CASE(encodes_bit_for_bit_as_numcodecs_and_decodes_its_output) {
  const auto text = octets(zarr_test::numcodecs_text());
  const auto c = bytes_chain(R"({"name": "numcodecs.bz2", "configuration": {"level": 1}})", text.size());
  const auto expected = hex("425a6831314159265359651e8322000014918040000e038a00200031064c408a8634906c6c60e0e8e0c0747e2ee48a70a120ca3d0644");
  BOOST_TEST(zarr_test::same(c.encode(std::span<const std::byte>(text)), expected));
  BOOST_TEST(zarr_test::same(c.decode(expected), text));
}

BOOST_AUTO_TEST_CASE(refuses_bombs_before_allocating_and_names_corrupt_input) {
  zarr_test::check_bomb_refused(R"({"name": "numcodecs.bz2"})");
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.bz2"})", 16).decode(octets("BZh9garbage")), zarr::errc::corrupt_chunk,
                   "codecs[1] (numcodecs.bz2): expected a bzip2 stream, got invalid data");
}

BOOST_AUTO_TEST_SUITE_END()
