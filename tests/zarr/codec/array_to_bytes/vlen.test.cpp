// vlen-utf8 and vlen-bytes (zarr-extensions codecs/vlen-utf8, codecs/vlen-bytes): a u32le count,
// then each element as a u32le length and its bytes. Expected bytes are made from that text.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr;

using zarr_test::chain;
using zarr_test::hex;
using zarr_test::spec;

BOOST_AUTO_TEST_SUITE(vlen)

BOOST_AUTO_TEST_CASE(encodes_a_count_then_each_element_with_its_length_as_the_spec_lays_out) {
  const auto c = chain(R"([{"name": "vlen-utf8"}])", spec({3}, zarr::data_type::string));
  const std::vector<std::string> elements{"ab", "", "\xc3\xa9"};  // "é": two UTF-8 bytes
  const auto expected = hex("03000000" "02000000" "6162" "00000000" "02000000" "c3a9");
  BOOST_TEST(zarr_test::same(c.encode_elements(elements), expected));
  std::vector<std::string> back(3);
  c.decode_elements(expected, back);
  BOOST_TEST(back == elements, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(vlen_bytes_takes_any_bytes) {
  const auto c = chain(R"([{"name": "vlen-bytes"}])", spec({2}, zarr::data_type::bytes));
  const std::vector<std::string> elements{std::string("\x00\xff", 2), "z"};
  const auto expected = hex("02000000" "02000000" "00ff" "01000000" "7a");
  BOOST_TEST(zarr_test::same(c.encode_elements(elements), expected));
  std::vector<std::string> back(2);
  c.decode_elements(expected, back);
  BOOST_TEST(back == elements, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(refuses_chunks_that_are_not_exactly_the_elements) {
  const auto c = chain(R"([{"name": "vlen-utf8"}])", spec({2}, zarr::data_type::string));
  std::vector<std::string> out(2);
  BOOST_CHECK_THROW(c.decode_elements(hex("03000000" "00000000" "00000000" "00000000"), out), zarr::error);  // 3 of 2
  BOOST_CHECK_THROW(c.decode_elements(hex("02000000" "05000000" "6162"), out), zarr::error);  // cut short
  BOOST_CHECK_THROW(c.decode_elements(hex("02000000" "01000000" "ff" "00000000"), out), zarr::error);  // no UTF-8
  try {
    c.decode_elements(hex("02000000" "05000000" "6162"), out);
  } catch (const zarr::error& e) {
    BOOST_TEST((e.code() == zarr::errc::corrupt_chunk));
  }
}

BOOST_AUTO_TEST_SUITE_END()
