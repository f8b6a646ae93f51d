// numcodecs.categorize: each string as its label's number (1 for the first, 0 for the empty
// string), numcodecs' documented layout; a string that is no label refused (docs/decisions.md 62).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.metadata;
import zarr.array;
import zarr.store.memory;
import zarr.nd;

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

namespace {

// A Zarr v2 "<U2" array (fixed_length_utf32 of 8 bytes) of 4 elements in chunks of 2, stored
// as categorize's numbers with `labels` (a JSON array) and no compressor.
zarr::array utf32_array(const std::shared_ptr<zarr::memory_store>& store, const std::string& labels,
                        const std::string& dtype = "<U2") {
  return zarr::array::create(store, "a", zarr::array_metadata::parse_v2(
      R"({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<U2", "order": "C", "fill_value": "",
          "filters": [{"id": "categorize", "labels": )" + labels + R"(, "dtype": ")" + dtype + R"(", "astype": "|u1"}],
          "compressor": null})"));
}

// Elements of two code points, as fixed_length_utf32 holds them (native order, zero padded).
std::vector<std::uint32_t> units(std::initializer_list<std::u32string> texts) {
  std::vector<std::uint32_t> out;
  for (const auto& t : texts) {
    out.push_back(t.size() > 0 ? t[0] : 0);
    out.push_back(t.size() > 1 ? t[1] : 0);
  }
  return out;
}

}  // namespace

// docs/decisions.md 72: numcodecs' Categorize over NumPy's "<U n": the element's code points
// compared with each label (padding ignored), stored as the label's number.
BOOST_AUTO_TEST_CASE(fixed_length_utf32_elements_are_stored_as_label_numbers) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = utf32_array(store, R"(["\u00e9t", "x", "too long"])");
  const auto values = units({U"x", U"", U"\u00e9t", U"x"});
  a.write(zarr::region::all(a.shape()), std::as_bytes(std::span(values)));
  BOOST_TEST(zarr_test::from_bytes<std::uint8_t>(*store->get("a/0")) == (std::vector<std::uint8_t>{2, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(zarr_test::from_bytes<std::uint8_t>(*store->get("a/1")) == (std::vector<std::uint8_t>{1, 2}),
             boost::test_tools::per_element());
  std::vector<std::uint32_t> back(values.size());
  a.read(zarr::region::all(a.shape()), std::as_writable_bytes(std::span(back)));
  BOOST_TEST(back == values, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(fixed_length_utf32_refusals_name_the_element) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = utf32_array(store, R"(["ab", "longer"])");
  const auto other = units({U"ab", U"zz", U"", U""});
  ZARR_CHECK_ERROR(a.write(zarr::region::all(a.shape()), std::as_bytes(std::span(other))), zarr::errc::invalid_value,
                   "element 1: expected one of the labels or the empty string, got \"zz\"");
  std::vector<std::uint32_t> back(8);
  store->set("a/0", zarr_test::octets({1, 3}));  // past the two labels
  ZARR_CHECK_ERROR(a.read(zarr::region::all(a.shape()), std::as_writable_bytes(std::span(back))), zarr::errc::corrupt_chunk,
                   "element 1: expected a label number from 0 to 2, got 3");
  store->set("a/0", zarr_test::octets({2, 1}));  // "longer" fits no element: numcodecs never stores its number
  ZARR_CHECK_ERROR(a.read(zarr::region::all(a.shape()), std::as_writable_bytes(std::span(back))), zarr::errc::corrupt_chunk,
                   "element 0: expected the number of a label of at most 2 code points, got 2");
  ZARR_CHECK_ERROR(utf32_array(store, R"(["ab"])", "<U3"), zarr::errc::unsupported,
                   "dtype: expected \"<U2\" (NumPy's type of the array's 2 code points), got \"<U3\"");
}

BOOST_AUTO_TEST_SUITE_END()
