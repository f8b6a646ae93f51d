#include <boost/test/unit_test.hpp>
#include <string>
#include "../support.hpp"
import zarr.error;
import zarr.arithmetic;

BOOST_AUTO_TEST_SUITE(error)

BOOST_AUTO_TEST_CASE(carries_code_and_message) {
  const zarr::error e(zarr::errc::invalid_metadata, "shape: expected an array, got 3");
  BOOST_TEST(static_cast<int>(e.code()) == static_cast<int>(zarr::errc::invalid_metadata));
  BOOST_TEST(std::string(e.what()) == "shape: expected an array, got 3");
}

BOOST_AUTO_TEST_CASE(names_every_code) {
  for (auto c : {zarr::errc::invalid_metadata, zarr::errc::unsupported, zarr::errc::invalid_value,
                 zarr::errc::out_of_range, zarr::errc::invalid_key, zarr::errc::not_found,
                 zarr::errc::already_exists, zarr::errc::corrupt_chunk, zarr::errc::invalid_argument,
                 zarr::errc::io})
    BOOST_TEST(zarr::to_string(c) != "unknown error");
}

BOOST_AUTO_TEST_SUITE_END()
