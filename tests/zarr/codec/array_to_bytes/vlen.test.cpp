// vlen-utf8 and vlen-bytes (zarr-extensions codecs/vlen-utf8, codecs/vlen-bytes): a u32le count,
// then each element as a u32le length and its bytes. Expected bytes are made from that text.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.store.memory;
import zarr.nd;

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

// zarr-python 3.1 names the bytes data type "variable_length_bytes" (its VariableLengthBytes,
// with the vlen-bytes codec): such an array reads and takes writes as `bytes` does; the chunk
// is the vlen-bytes layout above, made here from the spec's text.
BOOST_AUTO_TEST_CASE(reads_and_writes_arrays_of_zarr_python_3s_variable_length_bytes) {
  auto store = std::make_shared<zarr::memory_store>();
  const std::string meta = R"({"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": "variable_length_bytes",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
    "fill_value": "", "codecs": [{"name": "vlen-bytes", "configuration": {}}], "attributes": {}})";
  store->set("v/zarr.json", std::as_bytes(std::span(meta)));
  store->set("v/c/0", hex("03000000" "02000000" "00ff" "00000000" "01000000" "7a"));
  auto a = zarr::array::open(store, "v");
  BOOST_TEST((a.metadata().type == zarr::data_type::bytes));
  const std::vector<std::string> stored{std::string("\x00\xff", 2), "", "z"};
  BOOST_TEST(a.read_strings(zarr::region{{0}, {3}}) == stored, boost::test_tools::per_element());
  a.write_strings(zarr::region{{1}, {2}}, std::vector<std::string>{"ab"});
  BOOST_TEST(zarr_test::same(*store->get("v/c/0"), hex("03000000" "02000000" "00ff" "02000000" "6162" "01000000" "7a")));
  BOOST_TEST(zarr::array::open(store, "v").read_strings(zarr::region{{1}, {2}}) == std::vector<std::string>{"ab"},
             boost::test_tools::per_element());
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
