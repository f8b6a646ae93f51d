// numcodecs.msgpack2: a chunk as numcodecs' MsgPack writes it (the nested arrays of the
// elements, the type "|O" and the shape in MessagePack; numcodecs documentation, "MsgPack";
// MessagePack's spec.md), written byte for byte as Python's msgpack packs it, and what is not
// such a chunk refused (docs/decisions.md 75).
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.builder;
import zarr.bytes;

using zarr_test::chain;
using zarr_test::from_hex;
using zarr_test::spec;

namespace {

using strings = std::vector<std::string>;

zarr::codec_chain msgpack2(std::vector<std::uint64_t> shape, zarr::data_type type = zarr::data_type::string,
                           const char* config = "{}") {
  return chain(std::string(R"([{"name": "numcodecs.msgpack2", "configuration": )") + config + "}]", spec(std::move(shape), type));
}

strings decode(const zarr::codec_chain& c, const zarr::bytes& in, std::size_t n) {
  strings out(n);
  c.decode_elements(in, out);
  return out;
}

std::string repeat(std::string_view hex, std::size_t n) {
  std::string out;
  for (std::size_t k = 0; k < n; ++k) out += hex;
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(msgpack2_codec)

// The hex is what numcodecs 0.11 with Python's msgpack 1.0.3 encodes, e.g.
// numcodecs.MsgPack().encode(numpy.array([["a", "\u00e9"], ["\U0001F600", "x" * 40]], dtype=object)).
BOOST_AUTO_TEST_CASE(writes_what_numcodecs_writes_and_reads_it) {
  using zarr::data_type;
  const auto same = [](const zarr::bytes& a, const zarr::bytes& b) { return zarr_test::same(a, b); };
  // fixarray, fixstr, str 8 (use_bin_type) or str 16 (without it: MessagePack's old raw), fixint.
  const strings text{"a", "\u00e9", "\U0001F600", std::string(40, 'x')};
  const auto bin = from_hex("9492a161a2c3a992a4f09f9880d928" + repeat("78", 40) + "a27c4f920202");
  const auto raw = from_hex("9492a161a2c3a992a4f09f9880da0028" + repeat("78", 40) + "a27c4f920202");
  BOOST_TEST(same(msgpack2({2, 2}).encode_elements(text), bin));
  BOOST_TEST(same(msgpack2({2, 2}, data_type::string, R"({"use_bin_type": false})").encode_elements(text), raw));
  BOOST_TEST(decode(msgpack2({2, 2}), bin, 4) == text, boost::test_tools::per_element());
  BOOST_TEST(decode(msgpack2({2, 2}), raw, 4) == text, boost::test_tools::per_element());
  // Byte strings: bin 8, or the old raw's fixstr without use_bin_type.
  const strings octets{"ab", "", "\xff\xff\xff"};
  const auto bytes_bin = from_hex("95c4026162c400c403ffffffa27c4f9103");
  const auto bytes_raw = from_hex("95a26162a0a3ffffffa27c4f9103");
  BOOST_TEST(same(msgpack2({3}, data_type::bytes).encode_elements(octets), bytes_bin));
  BOOST_TEST(same(msgpack2({3}, data_type::bytes, R"({"use_bin_type": false})").encode_elements(octets), bytes_raw));
  BOOST_TEST(decode(msgpack2({3}, data_type::bytes), bytes_raw, 3) == octets, boost::test_tools::per_element());
  // array 16 for the 22 items of a (20, 1) chunk; zarr-python 2's fill 0 is the empty string.
  const strings column(20, "a");
  const auto tall = from_hex("dc0016" + repeat("91a161", 20) + "a27c4f921401");
  BOOST_TEST(same(msgpack2({20, 1}).encode_elements(column), tall));
  BOOST_TEST(decode(msgpack2({20, 1}), tall, 20) == column, boost::test_tools::per_element());
  BOOST_TEST(decode(msgpack2({3}), from_hex("95a3666f6fa362617200a27c4f9103"), 3) == (strings{"foo", "bar", ""}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(refuses_what_is_no_chunk_of_strings) {
  using zarr::errc;
  const auto c = msgpack2({2});
  // ["a", 1.5, "|O", [2]], ["a", nil, ...], ["a", b"b", ...] in a string array
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161cb3ff8000000000000a27c4f9102"), 2), errc::corrupt_chunk,
                   "byte 3: element 1: expected a str, got a float");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161c0a27c4f9102"), 2), errc::corrupt_chunk, "element 1: expected a str, got nil");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161c40162a27c4f9102"), 2), errc::corrupt_chunk, "element 1: expected a str, got a bin");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161a1ffa27c4f9102"), 2), errc::corrupt_chunk, "element 1: expected UTF-8");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161a162a33c5531"  "9102"), 2), errc::corrupt_chunk, "expected the type \"|O\", got \"<U1\"");
  ZARR_CHECK_ERROR(decode(c, from_hex("95a161a162a163a27c4f9103"), 2), errc::corrupt_chunk, "expected a shape of 2 elements");
  ZARR_CHECK_ERROR(decode(c, from_hex(""), 2), errc::corrupt_chunk, "byte 0: expected a MessagePack value, got the end");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161a162a27c4f91"), 2), errc::corrupt_chunk, "byte 8: expected 1 values, got 0 bytes left");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161a162a27c4fcd00"), 2), errc::corrupt_chunk, "expected 2 bytes of a length or number");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161a162a27c4f910200"), 2), errc::corrupt_chunk, "expected the end of the chunk after one value");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161c1a27c4f9102"), 2), errc::corrupt_chunk, "byte 3: expected a MessagePack value, got 0xc1");
  ZARR_CHECK_ERROR(decode(c, from_hex("94a161db7fffffff"), 2), errc::corrupt_chunk, "expected 2147483647 bytes, got 0");
  ZARR_CHECK_ERROR(decode(c, from_hex("dd7fffffff"), 2), errc::corrupt_chunk, "expected 2147483647 values, got 0 bytes left");
  ZARR_CHECK_ERROR(decode(c, from_hex(repeat("91", 100)), 2), errc::corrupt_chunk, "nested at most 64 deep");
  ZARR_CHECK_ERROR(decode(msgpack2({2, 2}), from_hex("9492a161a16291a163a27c4f920202"), 4), errc::corrupt_chunk,
                   "expected arrays nested as the shape, 2 values along axis 1, got 1 values");
  ZARR_CHECK_ERROR(msgpack2({1}, zarr::data_type::string, R"({"raw": 1})"), errc::invalid_metadata, "raw: expected true or false");
  ZARR_CHECK_ERROR(msgpack2({1}, zarr::data_type::int8), errc::unsupported, "expected an array of data type string or bytes, got int8");
  ZARR_CHECK_ERROR(static_cast<void>(c.encode_elements(strings{"a", "\xff"})), zarr::errc::invalid_argument, "element 1");
}

BOOST_AUTO_TEST_SUITE_END()
