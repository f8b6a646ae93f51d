// numcodecs.delta: differences wrapped into astype as numcodecs computes them.
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

BOOST_AUTO_TEST_SUITE(numcodecs_delta)

BOOST_AUTO_TEST_CASE(delta_wraps_into_astype_as_numcodecs) {
  // numcodecs.Delta("<i2", "|i1").encode(np.array([100, 102, 98, -28, 127], "<i2")).tobytes().hex()
  const auto c = chain(R"([{"name": "numcodecs.delta", "configuration": {"dtype": "<i2", "astype": "|i1"}}, {"name": "bytes"}])",
                       spec({5}, zarr::data_type::int16));
  const std::vector<std::int16_t> v{100, 102, 98, -28, 127};
  const auto encoded = c.encode(std::span<const std::byte>(zarr_test::to_bytes(v)));
  BOOST_TEST(zarr_test::same(encoded, hex("6402fc829b")));
  // 127 - -28 = 155 does not fit int8: numcodecs' own decode gives -129 back, and so do we.
  BOOST_TEST(zarr_test::from_bytes<std::int16_t>(c.decode(encoded)) == (std::vector<std::int16_t>{100, 102, 98, -28, -129}),
             boost::test_tools::per_element());
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}, {"name": "bytes"}])",
                         spec({5}, zarr::data_type::int16)),
                   zarr::errc::invalid_metadata, "codecs[0].configuration.dtype: expected the type the codec receives (int16), got int32");
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.delta", "configuration": {"dtype": "<f8", "astype": "<f4"}}, {"name": "bytes"}])",
                         spec({5}, zarr::data_type::float64)),
                   zarr::errc::unsupported, "codecs[0] (numcodecs.delta): expected integer dtype and astype");
}

BOOST_AUTO_TEST_SUITE_END()
