// numcodecs.pickle: chunks that Python 3.11 and NumPy 1.24 pickled (pickle.dumps of an object
// array, the bytes below copied from their output) read exactly; what no NumPy object array of
// strings or bytes holds is refused, and nothing in a stream is ever run (docs/decisions.md 73).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;

using zarr_test::chain;
using zarr_test::spec;

namespace {

using strings = std::vector<std::string>;

strings decode(const std::string& hex, zarr::data_type type, std::uint64_t n, const char* protocol = "5") {
  const auto c = chain(std::string(R"([{"name": "numcodecs.pickle", "configuration": {"protocol": )") + protocol + "}}]",
                       spec({n}, type));
  strings out(n);
  c.decode_elements(zarr_test::from_hex(hex), out);
  return out;
}

// pickle.dumps(numpy.array(["a", "\u00e9"], dtype=object), protocol=0): text opcodes, the
// str as raw-unicode-escape, b'b' as _codecs.encode('b', 'latin1').
const std::string text_p0 =
    "636e756d70792e636f72652e6d756c746961727261790a5f7265636f6e7374727563740a70300a28636e756d70790a6e6461727261790a70310a"
    "2849300a7470320a635f636f646563730a656e636f64650a70330a2856620a70340a566c6174696e310a70350a7470360a5270370a7470380a52"
    "70390a2849310a2849320a747031300a636e756d70790a64747970650a7031310a28564f380a7031320a4930300a4930310a747031330a527031"
    "340a2849330a567c0a7031350a4e4e4e492d310a492d310a4936330a747031360a624930300a286c7031370a56610a7031380a6156e90a703139"
    "0a61747032300a622e";
// x = "abc"; pickle.dumps(numpy.array([x, x, 0], dtype=object), protocol=5): framed, the
// second x a memo reference, 0 zarr-python 2's fill.
const std::string text_p5_shared =
    "80059593000000000000008c156e756d70792e636f72652e6d756c74696172726179948c0c5f7265636f6e7374727563749493948c056e756d70"
    "79948c076e6461727261799493944b0085944301629487945294284b014b03859468038c0564747970659493948c024f3894898887945294284b"
    "038c017c944e4e4e4affffffff4affffffff4b3f749462895d94288c036162639468134b00657494622e";
// pickle.dumps(numpy.array([b"x\xff", b""], dtype=object), protocol=2): bytes as
// _codecs.encode("x\xff", "latin1"), the empty one as __builtin__.bytes().
const std::string bytes_p2 =
    "8002636e756d70792e636f72652e6d756c746961727261790a5f7265636f6e7374727563740a7100636e756d70790a6e6461727261790a71014b"
    "00857102635f636f646563730a656e636f64650a7103580100000062710458060000006c6174696e317105867106527107877108527109284b01"
    "4b0285710a636e756d70790a64747970650a710b58020000004f38710c898887710d52710e284b0358010000007c710f4e4e4e4affffffff4aff"
    "ffffff4b3f74711062895d7111286803580300000078c3bf71126805867113527114635f5f6275696c74696e5f5f0a62797465730a7115295271"
    "1665747117622e";
// The same in protocol 3: BINBYTES.
const std::string bytes_p3 =
    "8003636e756d70792e636f72652e6d756c746961727261790a5f7265636f6e7374727563740a7100636e756d70790a6e6461727261790a71014b"
    "008571024301627103877104527105284b014b02857106636e756d70790a64747970650a710758020000004f387108898887710952710a284b03"
    "58010000007c710b4e4e4e4affffffff4affffffff4b3f74710c62895d710d28430278ff710e4300710f65747110622e";
// pickle.dumps(numpy.array([1.5, None], dtype=object), protocol=5): no strings.
const std::string floats_p5 =
    "80059593000000000000008c156e756d70792e636f72652e6d756c74696172726179948c0c5f7265636f6e7374727563749493948c056e756d70"
    "79948c076e6461727261799493944b0085944301629487945294284b014b02859468038c0564747970659493948c024f3894898887945294284b"
    "038c017c944e4e4e4affffffff4affffffff4b3f749462895d9428473ff80000000000004e657494622e";

std::string hex_of(std::string_view text) {
  std::string out;
  for (const unsigned char c : text) {
    out += "0123456789abcdef"[c >> 4];
    out += "0123456789abcdef"[c & 15];
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pickle_codec)

BOOST_AUTO_TEST_CASE(reads_what_python_pickles_in_each_form) {
  BOOST_TEST(decode(text_p0, zarr::data_type::string, 2, "0") == (strings{"a", "\u00e9"}), boost::test_tools::per_element());
  BOOST_TEST(decode(text_p5_shared, zarr::data_type::string, 3) == (strings{"abc", "abc", ""}), boost::test_tools::per_element());
  BOOST_TEST(decode(bytes_p2, zarr::data_type::bytes, 2, "2") == (strings{"x\xff", ""}), boost::test_tools::per_element());
  BOOST_TEST(decode(bytes_p3, zarr::data_type::bytes, 2, "3") == (strings{"x\xff", ""}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(round_trips_in_every_protocol) {
  const strings text{"", "back\\slash\nnew line", "\u00e9t\u00e9 \u20ac \U0001F600", std::string("nul\0in", 6)};
  const strings raw{"", std::string("\0\xff\x80", 3), "b", std::string(300, 'z')};
  for (const char* protocol : {"0", "1", "2", "3", "4", "5"}) {
    BOOST_TEST_CONTEXT("protocol " << protocol) {
      for (const auto type : {zarr::data_type::string, zarr::data_type::bytes}) {
        const auto& values = type == zarr::data_type::string ? text : raw;
        const auto c = chain(std::string(R"([{"name": "numcodecs.pickle", "configuration": {"protocol": )") + protocol + "}}]",
                             spec({2, 2}, type));
        strings back(4);
        c.decode_elements(c.encode_elements(values), back);
        BOOST_TEST(back == values, boost::test_tools::per_element());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(runs_nothing_and_refuses_what_is_no_object_array_of_the_type) {
  using zarr::errc;
  // os.system("echo hi"): recorded as a call, never made, and refused.
  ZARR_CHECK_ERROR(decode(hex_of("cos\nsystem\n(Vecho hi\ntR."), zarr::data_type::string, 1), errc::corrupt_chunk,
                   "expected NumPy's pickle of an object array, got an object of os system where _reconstruct(...) belongs");
  ZARR_CHECK_ERROR(decode(floats_p5, zarr::data_type::string, 2), errc::corrupt_chunk, "element 0: expected a str, got a float");
  ZARR_CHECK_ERROR(decode(text_p0, zarr::data_type::bytes, 2), errc::corrupt_chunk, "element 0: expected bytes, got a str");
  ZARR_CHECK_ERROR(decode(bytes_p3, zarr::data_type::string, 2), errc::corrupt_chunk, "element 0: expected a str, got bytes");
  ZARR_CHECK_ERROR(decode(text_p0, zarr::data_type::string, 3), errc::corrupt_chunk,
                   "expected 3 elements, got a shape of 2 and 2 elements");
  ZARR_CHECK_ERROR(decode(text_p0.substr(0, text_p0.size() - 2), zarr::data_type::string, 2), errc::corrupt_chunk,
                   "expected 1 more bytes, got the end of the chunk");
  ZARR_CHECK_ERROR(decode(text_p0 + "00", zarr::data_type::string, 2), errc::corrupt_chunk,
                   "expected the chunk to end after STOP, got 1 more bytes");
  ZARR_CHECK_ERROR(decode("8006", zarr::data_type::string, 1), errc::corrupt_chunk, "byte 0: expected pickle protocol 0 to 5, got 6");
  ZARR_CHECK_ERROR(decode(hex_of("}."), zarr::data_type::string, 1), errc::corrupt_chunk,
                   "expected NumPy's pickle of an object array, got a dict where _reconstruct(...) belongs");
  ZARR_CHECK_ERROR(decode("81", zarr::data_type::string, 1), errc::corrupt_chunk,
                   "expected an opcode of NumPy's pickle of an object array, got 0x81");
  ZARR_CHECK_ERROR(decode(hex_of("a."), zarr::data_type::string, 1), errc::corrupt_chunk, "expected a value on the stack, got none");
  ZARR_CHECK_ERROR(decode(hex_of("h\x07."), zarr::data_type::string, 1), errc::corrupt_chunk, "expected a memo entry 7, got none");
  // What an element may not be, on write.
  const auto c = chain(R"([{"name": "numcodecs.pickle"}])", spec({1}, zarr::data_type::string));
  ZARR_CHECK_ERROR(static_cast<void>(c.encode_elements(strings{"\xff"})), errc::invalid_argument, "element 0");
  BOOST_TEST(c.to_json() == boost::json::parse(R"([{"name": "numcodecs.pickle", "configuration": {"protocol": 5}}])"));
}

BOOST_AUTO_TEST_CASE(refuses_configurations_it_cannot_hold) {
  using zarr::errc;
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.pickle", "configuration": {"protocol": 6}}])", spec({1}, zarr::data_type::string)),
                   errc::invalid_metadata, "configuration.protocol: expected a pickle protocol from 0 to 5, got 6");
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.pickle"}])", spec({1}, zarr::data_type::int32)), errc::unsupported,
                   "expected an array of data type string or bytes, got int32");
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.pickle", "configuration": {"level": 1}}])", spec({1}, zarr::data_type::string)),
                   errc::invalid_metadata, "level");
}

BOOST_AUTO_TEST_SUITE_END()
