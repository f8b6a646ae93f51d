// numcodecs.packbits: numcodecs' padding byte, most significant bit first.
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

BOOST_AUTO_TEST_SUITE(numcodecs_packbits)

BOOST_AUTO_TEST_CASE(packbits_packs_most_significant_bit_first_after_the_padding_count) {
  // numcodecs.PackBits().encode(np.array([1,0,1,1,0,0,0,0,1,1], bool)).hex() == "06b0c0"
  const auto c = chain(R"([{"name": "numcodecs.packbits"}])", spec({10}, zarr::data_type::bool_));
  const auto flags = octets({1, 0, 1, 1, 0, 0, 0, 0, 1, 1});
  BOOST_TEST(zarr_test::same(c.encode(std::span<const std::byte>(flags)), hex("06b0c0")));
  BOOST_TEST(zarr_test::same(c.decode(hex("06b0c0")), flags));
  ZARR_CHECK_ERROR(c.decode(hex("05b0c0")), zarr::errc::corrupt_chunk, "expected 3 bytes with 6 padding bits for 10 flags");
}

BOOST_AUTO_TEST_SUITE_END()
