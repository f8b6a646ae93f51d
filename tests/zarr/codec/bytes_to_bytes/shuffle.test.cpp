// numcodecs.shuffle: bytes regrouped by their position in the element, as numcodecs does.
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

BOOST_AUTO_TEST_SUITE(numcodecs_shuffle)

BOOST_AUTO_TEST_CASE(shuffles_bytes_by_position) {
  // numcodecs.Shuffle(4).encode(np.arange(3, dtype="<u4"))
  const auto c = chain(R"([{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}}])",
                       spec({3}, zarr::data_type::uint32));
  const std::vector<std::uint32_t> v{0, 1, 2};
  const auto encoded = c.encode(std::span<const std::byte>(zarr_test::to_bytes(v)));
  BOOST_TEST(zarr_test::same(encoded, hex("000102000000000000000000")));
  BOOST_TEST(zarr_test::from_bytes<std::uint32_t>(c.decode(encoded)) == v, boost::test_tools::per_element());
  ZARR_CHECK_ERROR(bytes_chain(R"({"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}})", 6)
                       .encode(std::span<const std::byte>(octets("abcdef"))),
                   zarr::errc::invalid_argument, "expected a multiple of elementsize 4 bytes, got 6");
}

BOOST_AUTO_TEST_SUITE_END()
