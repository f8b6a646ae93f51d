// bitround and numcodecs.bitround: numcodecs' rounding of the mantissa, bit for bit.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr;

namespace json = boost::json;
using zarr_test::bytes_chain;
using zarr_test::chain;
using zarr_test::hex;
using zarr_test::octets;
using zarr_test::spec;

BOOST_AUTO_TEST_SUITE(bitround)

BOOST_AUTO_TEST_CASE(bitround_rounds_as_numcodecs) {
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

BOOST_AUTO_TEST_SUITE_END()
