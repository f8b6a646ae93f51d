// numcodecs.categorize: each string as its label's number (1 for the first, 0 for the empty
// string), numcodecs' documented layout; a string that is no label refused (docs/decisions.md 62).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr;

using zarr_test::chain;
using zarr_test::spec;

BOOST_AUTO_TEST_SUITE(categorize)

BOOST_AUTO_TEST_CASE(stores_label_numbers_in_astype) {
  const auto c = chain(R"([{"name": "numcodecs.categorize", "configuration": {"labels": ["female", "male"],
                              "dtype": "|O", "astype": "|u1"}}, {"name": "bytes"}])",
                       spec({4}, zarr::data_type::string));
  const std::vector<std::string> elements{"male", "female", "", "male"};
  const auto stored = c.encode_elements(elements);
  BOOST_TEST(zarr_test::from_bytes<std::uint8_t>(stored) == (std::vector<std::uint8_t>{2, 1, 0, 2}),
             boost::test_tools::per_element());
  std::vector<std::string> back(4);
  c.decode_elements(stored, back);
  BOOST_TEST(back == elements, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(refuses_a_string_that_is_no_label_and_a_number_past_the_labels) {
  const auto c = chain(R"([{"name": "numcodecs.categorize", "configuration": {"labels": ["a"], "dtype": "|O"}},
                           {"name": "bytes"}])", spec({2}, zarr::data_type::string));
  ZARR_CHECK_ERROR(static_cast<void>(c.encode_elements(std::vector<std::string>{"a", "b"})), zarr::errc::invalid_value, "\"b\"");
  std::vector<std::string> out(2);
  ZARR_CHECK_ERROR(c.decode_elements(zarr_test::octets({1, 2}), out), zarr::errc::corrupt_chunk, "element 1");
}

BOOST_AUTO_TEST_SUITE_END()
