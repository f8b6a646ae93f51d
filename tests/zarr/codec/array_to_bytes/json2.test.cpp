// numcodecs.json2: a chunk as numcodecs' JSON writes it (the nested lists of the elements, the
// type "|O" and the shape; numcodecs documentation, "JSON"), written byte for byte as Python's
// JSON encoder writes it, and what is not such a chunk refused (docs/decisions.md 74).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.builder;
import zarr.bytes;

using zarr_test::chain;
using zarr_test::spec;

namespace {

using strings = std::vector<std::string>;

zarr::codec_chain json2(std::vector<std::uint64_t> shape, const char* config = "{}") {
  return chain(std::string(R"([{"name": "numcodecs.json2", "configuration": )") + config + "}]",
               spec(std::move(shape), zarr::data_type::string));
}

std::string text_of(const zarr::bytes& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

strings decode(const zarr::codec_chain& c, std::string_view text, std::size_t n) {
  strings out(n);
  c.decode_elements(zarr_test::octets(text), out);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json2_codec)

// numcodecs.JSON().encode(numpy.array([["a", "\u00e9"], ["\U0001F600", 'q"\\\n']], dtype=object)),
// and with ensure_ascii=False.
BOOST_AUTO_TEST_CASE(writes_what_numcodecs_writes_and_reads_it) {
  const strings values{"a", "\u00e9", "\U0001F600", "q\"\\\n"};
  const auto ascii = json2({2, 2});
  const std::string expected = R"([["a","\u00e9"],["\ud83d\ude00","q\"\\\n"],"|O",[2,2]])";
  BOOST_TEST(text_of(ascii.encode_elements(values)) == expected);
  BOOST_TEST(decode(ascii, expected, 4) == values, boost::test_tools::per_element());
  const auto utf8 = json2({2, 2}, R"({"ensure_ascii": false, "separators": [", ", ": "]})");
  BOOST_TEST(text_of(utf8.encode_elements(values)) == "[[\"a\", \"\u00e9\"], [\"\U0001F600\", \"q\\\"\\\\\\n\"], \"|O\", [2, 2]]");
  // The documentation's example; zarr-python 2's fill 0 is the empty string.
  BOOST_TEST(decode(json2({3}), R"(["foo","bar",0,"|O",[3]])", 3) == (strings{"foo", "bar", ""}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(refuses_what_is_no_chunk_of_strings) {
  using zarr::errc;
  const auto c = json2({2});
  strings out(2);
  ZARR_CHECK_ERROR(decode(c, R"(["a", 1.5, "|O", [2]])", 2), errc::corrupt_chunk, "element 1: expected a string, got 1.5");
  ZARR_CHECK_ERROR(decode(c, R"(["a", null, "|O", [2]])", 2), errc::corrupt_chunk, "element 1: expected a string, got null");
  ZARR_CHECK_ERROR(decode(c, R"(["a", "b", "<U1", [2]])", 2), errc::corrupt_chunk, "expected the type \"|O\", got \"<U1\"");
  ZARR_CHECK_ERROR(decode(c, R"(["a", "b", "c", "|O", [3]])", 2), errc::corrupt_chunk, "expected a shape of 2 elements, got [3]");
  ZARR_CHECK_ERROR(decode(c, R"(["a", "b", "|O", [2])", 2), errc::corrupt_chunk, "expected JSON text");
  ZARR_CHECK_ERROR(decode(json2({2, 2}), R"([["a", "b"], ["c"], "|O", [2, 2]])", 4), errc::corrupt_chunk,
                   "expected lists nested as the shape [2,2]");
  ZARR_CHECK_ERROR(json2({1}, R"({"encoding": "latin-1"})"), errc::unsupported, "encoding: expected \"utf-8\"");
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.json2"}])", spec({1}, zarr::data_type::bytes)), errc::unsupported,
                   "expected an array of data type string, got bytes");
  ZARR_CHECK_ERROR(static_cast<void>(c.encode_elements(strings{"a", "\xff"})), errc::invalid_argument, "element 1");
}

BOOST_AUTO_TEST_SUITE_END()
