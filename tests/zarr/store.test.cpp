#include <boost/test/unit_test.hpp>
#include <string>
#include "../support.hpp"
import zarr.error;
import zarr.store;
import zarr.bytes;

BOOST_AUTO_TEST_SUITE(store_keys)

BOOST_AUTO_TEST_CASE(accepts_ordinary_keys) {
  for (const char* key : {"zarr.json", "a/b/zarr.json", "c/0/1", "c.0.1", ".hidden/x", "a..b"})
    BOOST_CHECK_NO_THROW(zarr::validate_key(key));
}

BOOST_AUTO_TEST_CASE(rejects_keys_that_could_escape_the_root) {
  using zarr::errc;
  ZARR_CHECK_ERROR(zarr::validate_key(""), errc::invalid_key, "being empty");
  ZARR_CHECK_ERROR(zarr::validate_key("/etc/passwd"), errc::invalid_key, "absolute");
  ZARR_CHECK_ERROR(zarr::validate_key("a/../../x"), errc::invalid_key, "'..'");
  ZARR_CHECK_ERROR(zarr::validate_key(".."), errc::invalid_key, "'..'");
  ZARR_CHECK_ERROR(zarr::validate_key("a/./b"), errc::invalid_key, "'.'");
  ZARR_CHECK_ERROR(zarr::validate_key("a//b"), errc::invalid_key, "empty segments");
  ZARR_CHECK_ERROR(zarr::validate_key("a/"), errc::invalid_key, "empty segments");
  ZARR_CHECK_ERROR(zarr::validate_key("a\\b"), errc::invalid_key, "backslashes");
  ZARR_CHECK_ERROR(zarr::validate_key(std::string("a\0b", 3)), errc::invalid_key, "NUL");
}

BOOST_AUTO_TEST_CASE(resolves_byte_ranges_and_rejects_ranges_past_the_end) {
  BOOST_TEST(zarr::resolve_range("k", {2, 3}, 10).first == 2u);
  BOOST_TEST(zarr::resolve_range("k", zarr::byte_range::last(4), 10).first == 6u);
  BOOST_TEST(zarr::resolve_range("k", {10, 0}, 10).second == 0u);
  ZARR_CHECK_ERROR((zarr::resolve_range("c/0", {8, 3}, 10)), zarr::errc::corrupt_chunk, "c/0");
  ZARR_CHECK_ERROR((zarr::resolve_range("c/0", zarr::byte_range::last(11), 10)), zarr::errc::corrupt_chunk, "last 11");
  ZARR_CHECK_ERROR((zarr::resolve_range("c/0", {UINT64_MAX, 2}, 10)), zarr::errc::corrupt_chunk, "c/0");
}

BOOST_AUTO_TEST_SUITE_END()
