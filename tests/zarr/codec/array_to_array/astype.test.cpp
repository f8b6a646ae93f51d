// numcodecs.astype: NumPy's casts, and what NumPy leaves undefined refused.
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

BOOST_AUTO_TEST_SUITE(numcodecs_astype)

BOOST_AUTO_TEST_CASE(astype_casts_as_numpy_and_refuses_what_numpy_leaves_undefined) {
  // numcodecs.AsType("<i1", "<i4").encode(np.array([1, 200, -129], "<i4")) == [1, -56, 127]
  const auto c = chain(R"([{"name": "numcodecs.astype", "configuration": {"encode_dtype": "|i1", "decode_dtype": null}},
                           {"name": "bytes"}])", spec({3}, zarr::data_type::int32));
  const auto encoded = c.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<std::int32_t>{1, 200, -129})));
  BOOST_TEST(zarr_test::from_bytes<std::int8_t>(encoded) == (std::vector<std::int8_t>{1, -56, 127}), boost::test_tools::per_element());
  const auto f = chain(R"([{"name": "numcodecs.astype", "configuration": {"encode_dtype": "<i2", "decode_dtype": "<f8"}},
                           {"name": "bytes", "configuration": {"endian": "little"}}])", spec({2}, zarr::data_type::float64));
  ZARR_CHECK_ERROR(f.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<double>{1.5, 1e9}))),
                   zarr::errc::out_of_range, "codecs[0] (numcodecs.astype), element 1");
}

BOOST_AUTO_TEST_SUITE_END()
