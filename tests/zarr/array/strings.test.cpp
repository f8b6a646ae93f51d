// The variable-length data types string and bytes (zarr-extensions data-types/string,
// data-types/bytes) with the vlen-utf8 and vlen-bytes codecs (codecs/vlen-utf8, vlen-bytes):
// the spec's examples, UTF-8 and base64 by their RFCs, hostile chunks, the array against a plain
// model, and both directions with Debian's zarr-python 2 / numcodecs, whose side
// tests/interop/numcodecs_strings.py writes at test time (docs/decisions.md 60-62).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.text;
import zarr.store;
import zarr.codec;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.bytes;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

using strings = std::vector<std::string>;

zarr::array_metadata string_array(std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks,
                                  const char* type = "string", const char* fill = R"("")",
                                  const char* codecs = R"([{"name": "vlen-utf8"}])") {
  json::array s, c;
  for (auto d : shape) s.push_back(d);
  for (auto d : chunks) c.push_back(d);
  const auto text = json::serialize(json::object{
                        {"zarr_format", 3},
                        {"node_type", "array"},
                        {"shape", s},
                        {"data_type", type},
                        {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", c}}}}},
                        {"chunk_key_encoding", {{"name", "default"}}},
                        {"fill_value", json::parse(fill)},
                        {"codecs", json::parse(codecs)},
                    });
  return zarr::array_metadata::parse(json::parse(text), text);
}

std::string bytes_of(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s += static_cast<char>(v);
  return s;
}

std::span<const std::byte> as_bytes(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::string from_bytes(const zarr::bytes& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// The chain of `m`'s chunks.
zarr::codec_chain chain_of(const zarr::array_metadata& m) {
  return zarr::codec_chain(m.codecs, zarr::chunk_spec{m.chunk_shape, m.type, m.fill_value});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(strings_text)

// RFC 3629 section 4's syntax: the boundaries of each sequence length, and what it excludes.
BOOST_AUTO_TEST_CASE(utf8_is_checked_as_rfc_3629_defines_it) {
  for (const auto& ok : {std::string(""), std::string("ascii"), bytes_of({0xC2, 0x80}), bytes_of({0xDF, 0xBF}),
                         bytes_of({0xE0, 0xA0, 0x80}), bytes_of({0xED, 0x9F, 0xBF}), bytes_of({0xEE, 0x80, 0x80}),
                         bytes_of({0xF0, 0x90, 0x80, 0x80}), bytes_of({0xF4, 0x8F, 0xBF, 0xBF}), std::string("\0", 1)})
    BOOST_TEST(!zarr::invalid_utf8_at(ok).has_value());
  const std::pair<std::string, std::size_t> bad[] = {
      {bytes_of({0x80}), 0},                          // a continuation byte alone
      {bytes_of({0xC0, 0x80}), 0},                    // overlong NUL
      {bytes_of({0xC1, 0xBF}), 0},                    // overlong
      {bytes_of({0xE0, 0x9F, 0xBF}), 0},              // overlong three-byte form
      {bytes_of({0xED, 0xA0, 0x80}), 0},              // a surrogate, U+D800
      {bytes_of({0xF0, 0x8F, 0xBF, 0xBF}), 0},        // overlong four-byte form
      {bytes_of({0xF4, 0x90, 0x80, 0x80}), 0},        // U+110000
      {bytes_of({0xF5, 0x80, 0x80, 0x80}), 0},        // past U+10FFFF
      {bytes_of({0xFF}), 0},
      {"ab" + bytes_of({0xE2, 0x82}), 2},             // cut short at the end
      {"a" + bytes_of({0xE2, 0x28, 0xA1}), 1},        // a bad continuation
  };
  for (const auto& [text, at] : bad) {
    BOOST_TEST(zarr::invalid_utf8_at(text).value_or(99) == at);
    BOOST_TEST(zarr::utf8_problem(text).has_value());
  }
}

// RFC 4648 section 10's test vectors, both ways; every other form is refused.
BOOST_AUTO_TEST_CASE(base64_has_the_rfc_4648_vectors_and_one_form_per_value) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},  {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    BOOST_TEST(zarr::base64_encode(plain) == encoded);
    BOOST_TEST(zarr::base64_decode(encoded).value_or("(refused)") == plain);
  }
  for (const char* bad : {"Zg=", "Zg", "Zh==", "Zm9=", "Z===", "Zm9v!A==", "=Zm9", "Zg==Zg==", "Zm 9v"})
    BOOST_TEST(!zarr::base64_decode(bad).has_value(), bad);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(strings_metadata)

// data-types/string and data-types/bytes, "Example(s)": the documents' fill values.
BOOST_AUTO_TEST_CASE(the_specs_examples_give_their_fill_values) {
  const auto s = string_array({3}, {2}, "string", R"("foo")");
  BOOST_TEST(s.type == zarr::data_type::string);
  BOOST_TEST(s.fill_string == "foo");
  const auto b1 = string_array({3}, {2}, "bytes", "[1, 2, 3]", R"([{"name": "vlen-bytes"}])");
  const auto b2 = string_array({3}, {2}, "bytes", R"("AQID")", R"([{"name": "vlen-bytes"}])");
  BOOST_TEST(b1.fill_string == bytes_of({1, 2, 3}));
  BOOST_TEST(b2.fill_string == b1.fill_string);
  // Written in the shorter form, base64, and read back the same.
  BOOST_TEST(json::serialize(b1.to_json().at("fill_value")) == R"("AQID")");
  BOOST_TEST(zarr::array_metadata::parse(json::parse(b1.to_text())).fill_string == b1.fill_string);
  BOOST_TEST(json::serialize(s.to_json().at("fill_value")) == R"("foo")");
  BOOST_TEST(zarr::name(zarr::data_type::string) == "string");
  BOOST_TEST(zarr::data_type_from_name("bytes") == zarr::data_type::bytes);
}

BOOST_AUTO_TEST_CASE(fill_values_that_are_not_of_the_type_are_refused) {
  ZARR_CHECK_ERROR(string_array({3}, {2}, "string", "5"), zarr::errc::invalid_value, "fill_value: expected a string for string, got 5");
  ZARR_CHECK_ERROR(string_array({3}, {2}, "string", "null"), zarr::errc::invalid_value, "expected a string");
  const auto vlen_bytes = R"([{"name": "vlen-bytes"}])";
  ZARR_CHECK_ERROR(string_array({3}, {2}, "bytes", "[1, 256]", vlen_bytes), zarr::errc::invalid_value,
                   "fill_value[1]: expected an integer from 0 to 255, got 256");
  ZARR_CHECK_ERROR(string_array({3}, {2}, "bytes", "[-1]", vlen_bytes), zarr::errc::invalid_value, "fill_value[0]");
  ZARR_CHECK_ERROR(string_array({3}, {2}, "bytes", "[1.5]", vlen_bytes), zarr::errc::invalid_value, "fill_value[0]");
  ZARR_CHECK_ERROR(string_array({3}, {2}, "bytes", R"("AQI")", vlen_bytes), zarr::errc::invalid_value, "expected base64");
  ZARR_CHECK_ERROR(string_array({3}, {2}, "bytes", "{}", vlen_bytes), zarr::errc::invalid_value, "or a base64 string");
}

// docs/decisions.md 60: only vlen-utf8 for string and vlen-bytes for bytes, no array -> array codec.
BOOST_AUTO_TEST_CASE(codecs_that_do_not_fit_the_type_are_refused_when_opened) {
  const auto open = [](const char* type, const char* codecs) {
    return zarr::array::create(std::make_shared<zarr::memory_store>(), "a", string_array({4}, {2}, type, R"("")", codecs));
  };
  ZARR_CHECK_ERROR(open("string", R"([{"name": "bytes"}])"), zarr::errc::invalid_metadata,
                   "codecs[0] (bytes): expected a codec of variable-length elements (vlen-utf8) for data type string");
  ZARR_CHECK_ERROR(open("string", R"([{"name": "vlen-bytes"}])"), zarr::errc::invalid_metadata,
                   "codecs[0] (vlen-bytes): expected data type bytes, got string");
  ZARR_CHECK_ERROR(open("string", R"([{"name": "scale_offset", "configuration": {"offset": 1}}, {"name": "vlen-utf8"}])"),
                   zarr::errc::invalid_metadata, "codecs[0] (scale_offset): expected an integer or floating-point data type, got string");
  ZARR_CHECK_ERROR(open("string", R"([{"name": "transpose", "configuration": {"order": [0]}}, {"name": "bytes"}])"),
                   zarr::errc::invalid_metadata, "codecs[1] (bytes): expected a codec of variable-length elements (vlen-utf8)");
  ZARR_CHECK_ERROR(open("string", R"([{"name": "vlen-utf8", "configuration": {"x": 1}}])"), zarr::errc::invalid_metadata,
                   "codecs[0].configuration");
  ZARR_CHECK_ERROR(open("string", R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [1],
                       "codecs": [{"name": "bytes"}], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])"),
                   zarr::errc::invalid_metadata,
                   "codecs[0].configuration.codecs[0] (bytes): expected a codec of variable-length elements (vlen-utf8)");
  // And the other way: vlen-utf8 on a fixed-size type.
  const auto text = R"({"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "float32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}, "chunk_key_encoding": {"name": "default"},
    "fill_value": 0, "codecs": [{"name": "vlen-utf8"}]})";
  const auto m = zarr::array_metadata::parse(json::parse(text), text);
  ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "f", m), zarr::errc::invalid_metadata,
                   "codecs[0] (vlen-utf8): expected data type string, got float32");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(vlen_codecs)

// codecs/vlen-utf8 "Format and algorithm", worked by hand: a u32le count, then each element as a
// u32le length and its bytes.
BOOST_AUTO_TEST_CASE(the_layout_is_the_specs) {
  const auto chain = chain_of(string_array({2}, {2}));
  const strings values{"a", ""};
  const auto encoded = from_bytes(chain.encode_elements(values));
  BOOST_TEST(encoded == bytes_of({2, 0, 0, 0, 1, 0, 0, 0, 'a', 0, 0, 0, 0}));
  strings back(2);
  chain.decode_elements(as_bytes(encoded), back);
  BOOST_TEST(back == values, boost::test_tools::per_element());
}

// Every chunk that is not exactly the chunk's elements is corrupt, named by element; nothing is
// allocated for a length before it is known to fit in what remains.
BOOST_AUTO_TEST_CASE(hostile_chunks_are_refused_naming_the_element) {
  const auto chain = chain_of(string_array({2}, {2}));
  strings out(2);
  const auto decode = [&](const std::string& chunk) { chain.decode_elements(as_bytes(chunk), out); };
  ZARR_CHECK_ERROR(decode(bytes_of({2, 0})), zarr::errc::corrupt_chunk, "expected a 4-byte count of elements, got 2 bytes");
  ZARR_CHECK_ERROR(decode(bytes_of({3, 0, 0, 0})), zarr::errc::corrupt_chunk, "expected 2 elements, got a count of 3");
  ZARR_CHECK_ERROR(decode(bytes_of({0xFF, 0xFF, 0xFF, 0xFF})), zarr::errc::corrupt_chunk, "got a count of 4294967295");
  ZARR_CHECK_ERROR(decode(bytes_of({2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 'a'})), zarr::errc::corrupt_chunk,
                   "element 0: expected at most the 1 bytes that remain, got a length of 4294967295");
  ZARR_CHECK_ERROR(decode(bytes_of({2, 0, 0, 0, 1, 0, 0, 0, 'a', 1, 0})), zarr::errc::corrupt_chunk,
                   "element 1: expected a 4-byte length at offset 9, got the end of the chunk");
  ZARR_CHECK_ERROR(decode(bytes_of({2, 0, 0, 0, 1, 0, 0, 0, 'a', 1, 0, 0, 0, 0xC0})), zarr::errc::corrupt_chunk,
                   "element 1: expected UTF-8, got the byte 0xc0 at offset 0");
  ZARR_CHECK_ERROR(decode(bytes_of({2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'x'})), zarr::errc::corrupt_chunk,
                   "expected the chunk to end after its 2 elements, got 1 more bytes");
  // vlen-bytes takes any bytes.
  const auto bytes_chain = chain_of(string_array({1}, {1}, "bytes", "[]", R"([{"name": "vlen-bytes"}])"));
  strings one(1);
  bytes_chain.decode_elements(as_bytes(bytes_of({1, 0, 0, 0, 1, 0, 0, 0, 0xC0})), one);
  BOOST_TEST(one[0] == bytes_of({0xC0}));
  // Encoding text that is not UTF-8 is an error too.
  ZARR_CHECK_ERROR(chain.encode_elements(strings{"ok", bytes_of({0xED, 0xA0, 0x80})}), zarr::errc::invalid_argument,
                   "element 1: expected UTF-8, got the byte 0xed at offset 0");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(string_arrays)

// Random regions written and read against a plain model (a vector of strings), in 1 to 3
// dimensions, with and without a compressor, through the memory and the filesystem store.
BOOST_AUTO_TEST_CASE(random_region_writes_and_reads_match_a_plain_model) {
  std::mt19937_64 rng(20261202);
  const auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); };
  const strings alphabet{"", "a", "\u00e9", "\u20ac\u20ac", "\U0001F600", "long string of text", std::string("\0z", 2)};
  // The chains: plain, compressed, and the element-moving codecs (transpose, reshape, sharding
  // with its inner chunks transposed) over vlen-utf8.
  const auto codec_list = [](int kind, const std::vector<std::uint64_t>& chunks) {
    json::array reversed, inner;
    for (std::size_t i = chunks.size(); i-- > 0;) reversed.push_back(i);
    for (std::size_t i = 0; i < chunks.size(); ++i) inner.push_back(i + 1 == chunks.size() ? chunks[i] : 1);
    const auto transpose = R"({"name": "transpose", "configuration": {"order": )" + json::serialize(reversed) + "}}";
    switch (kind) {
      case 0: return std::string(R"([{"name": "vlen-utf8"}])");
      case 1: return std::string(R"([{"name": "vlen-utf8"}, {"name": "gzip", "configuration": {"level": 1}}])");
      case 2: return std::string(R"([{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 1}}, {"name": "crc32c"}])");
      case 3: return "[" + transpose + R"(, {"name": "vlen-utf8"}])";
      case 4: return std::string(R"([{"name": "reshape", "configuration": {"shape": [-1]}}, {"name": "vlen-utf8"},
                                      {"name": "gzip", "configuration": {"level": 1}}])");
      default:
        return R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": )" + json::serialize(inner) +
               R"(, "index_location": "start", "codecs": [)" + transpose +
               R"(, {"name": "vlen-utf8"}], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])";
    }
  };
  for (int round = 0; round < 24; ++round) {
    const std::size_t rank = pick(1, 3);
    std::vector<std::uint64_t> shape(rank), chunks(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      shape[i] = pick(1, 7);
      chunks[i] = pick(1, 4);
    }
    const auto codecs = codec_list(round % 6, chunks);
    const std::string fill = alphabet[pick(0, alphabet.size() - 1)];
    std::shared_ptr<zarr::store> store = std::make_shared<zarr::memory_store>();
    if (round % 2 == 1) store = std::make_shared<zarr::filesystem_store>(zarr_test::scratch_dir() / std::to_string(round), true);
    auto a = zarr::array::create(store, "s",
                                 string_array(shape, chunks, "string", json::serialize(json::value(fill)).c_str(),
                                              codecs.c_str()));
    const auto all = zarr::region::all(shape);
    strings model(all.num_elements(), fill);
    BOOST_TEST_CONTEXT("round " << round) {
      for (int step = 0; step < 6; ++step) {
        zarr::region r{std::vector<std::uint64_t>(rank), std::vector<std::uint64_t>(rank)};
        for (std::size_t i = 0; i < rank; ++i) {
          r.start[i] = pick(0, shape[i]);
          r.stop[i] = pick(r.start[i], shape[i]);
        }
        strings values(r.num_elements());
        for (auto& v : values) v = alphabet[pick(0, alphabet.size() - 1)] + std::to_string(pick(0, 3));
        a.write_strings(r, values);
        // The model: element by element, C order within r.
        std::size_t k = 0;
        std::vector<std::uint64_t> at = r.start;
        if (!values.empty())
          for (;;) {
            std::uint64_t index = 0;
            for (std::size_t i = 0; i < rank; ++i) index = index * shape[i] + at[i];
            model[index] = values[k++];
            std::size_t i = rank;
            while (i-- > 0 && ++at[i] == r.stop[i]) at[i] = r.start[i];
            if (i == static_cast<std::size_t>(-1)) break;
          }
        BOOST_TEST(a.read_strings(all) == model, boost::test_tools::per_element());
      }
      // Read again through a fresh open; a window of it as well.
      const auto again = zarr::array::open(store, "s");
      BOOST_TEST(again.read_strings(all) == model, boost::test_tools::per_element());
    }
  }
}

// docs/decisions.md 25 for strings: a chunk that holds only the fill value is erased.
BOOST_AUTO_TEST_CASE(chunks_of_only_the_fill_value_are_not_stored) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "s", string_array({4}, {2}, "string", R"("f")"));
  a.write_strings(zarr::region{{0}, {4}}, strings{"x", "y", "f", "f"});
  BOOST_TEST(store->get("s/c/0").has_value());
  BOOST_TEST(!store->get("s/c/1").has_value());
  a.write_strings(zarr::region{{0}, {2}}, strings{"f", "f"});
  BOOST_TEST(!store->get("s/c/0").has_value());
  BOOST_TEST(a.read_strings(zarr::region{{0}, {4}}) == (strings{"f", "f", "f", "f"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_wrong_path_and_bad_values_are_errors_and_store_nothing) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "s", string_array({3}, {2}));
  std::vector<std::byte> raw(3);
  ZARR_CHECK_ERROR(a.read(zarr::region{{0}, {3}}, raw), zarr::errc::invalid_argument,
                   "array \"/s\": read: expected an array of fixed-size elements, got data type string (use read_strings");
  ZARR_CHECK_ERROR(a.write(zarr::region{{0}, {3}}, std::span<const std::byte>(raw)), zarr::errc::invalid_argument,
                   "write: expected an array of fixed-size elements");
  ZARR_CHECK_ERROR(a.read_chunk(std::vector<std::uint64_t>{0}), zarr::errc::invalid_argument, "read_chunk");
  ZARR_CHECK_ERROR(a.write_strings(zarr::region{{0}, {3}}, strings{"a", "b"}), zarr::errc::invalid_argument,
                   "region: expected 3 elements, got 2");
  ZARR_CHECK_ERROR(a.write_strings(zarr::region{{0}, {3}}, strings{"a", "b", bytes_of({'c', 0xFF})}),
                   zarr::errc::invalid_argument, "array \"/s\": element 2: expected UTF-8, got the byte 0xff at offset 1");
  BOOST_TEST(store->list("s/c").empty());  // nothing was stored
  const auto text = R"({"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "uint8",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}, "chunk_key_encoding": {"name": "default"},
    "fill_value": 0, "codecs": [{"name": "bytes"}]})";
  const auto u = zarr::array::create(store, "u", zarr::array_metadata::parse(json::parse(text), text));
  ZARR_CHECK_ERROR(u.read_strings(zarr::region{{0}, {2}}), zarr::errc::invalid_argument,
                   "array \"/u\": read_strings: expected data type string or bytes (or an optional one), got uint8");
  // A corrupt chunk names the array, the chunk and the element.
  store->set("s/c/1", as_bytes(bytes_of({2, 0, 0, 0, 1, 0, 0, 0, 'a', 0, 0, 0, 0})));  // 2 elements, the border chunk
  BOOST_TEST(a.read_strings(zarr::region{{2}, {3}}) == strings{"a"}, boost::test_tools::per_element());
  store->set("s/c/1", as_bytes(bytes_of({1, 0, 0, 0, 1, 0, 0, 0, 'a'})));
  ZARR_CHECK_ERROR(a.read_strings(zarr::region{{0}, {3}}), zarr::errc::corrupt_chunk,
                   "array \"/s\", chunk \"s/c/1\": codecs[0] (vlen-utf8): expected 2 elements, got a count of 1");
}

// Resizing keeps what stays inside and resets the rest of a border chunk to the fill value, as
// for every other type.
BOOST_AUTO_TEST_CASE(resize_resets_what_falls_outside) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "s", string_array({5}, {3}, "bytes", "[7]", R"([{"name": "vlen-bytes"}])"));
  a.write_strings(zarr::region{{0}, {5}}, strings{"a", "b", "c", "d", "e"});
  a.resize(std::vector<std::uint64_t>{2});
  a.resize(std::vector<std::uint64_t>{5});
  const std::string seven(1, '\7');
  BOOST_TEST(a.read_strings(zarr::region{{0}, {5}}) == (strings{"a", "b", seven, seven, seven}), boost::test_tools::per_element());
  BOOST_TEST(!store->get("s/c/1").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

// numcodecs.categorize (docs/decisions.md 62): strings stored as their labels' numbers, with the
// example of numcodecs' documentation (Categorize(labels=['female', 'male'], dtype=object)
// encodes ['male', 'female', 'female', 'male'] as [2, 1, 1, 2]).
BOOST_AUTO_TEST_SUITE(categorize)

constexpr const char* categorize_codecs =
    R"([{"name": "numcodecs.categorize", "configuration": {"labels": ["female", "male"], "dtype": "|O"}}, {"name": "bytes"}])";

BOOST_AUTO_TEST_CASE(stores_the_label_numbers_numcodecs_documents) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "a", string_array({6}, {6}, "string", R"("")", categorize_codecs));
  a.write_strings(zarr::region{{0}, {6}}, strings{"male", "female", "female", "male", "", "male"});
  BOOST_TEST(from_bytes(*store->get("a/c/0")) == bytes_of({2, 1, 1, 2, 0, 2}));
  BOOST_TEST(a.read_strings(zarr::region{{1}, {5}}) == (strings{"female", "female", "male", ""}),
             boost::test_tools::per_element());
  // The resolved configuration names the default astype.
  BOOST_TEST(json::serialize(chain_of(a.metadata()).to_json().as_array()[0]) ==
             R"({"name":"numcodecs.categorize","configuration":{"labels":["female","male"],"dtype":"|O","astype":"|u1"}})");
}

BOOST_AUTO_TEST_CASE(a_string_that_is_no_label_is_refused_before_any_chunk_is_stored) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "a", string_array({6}, {2}, "string", R"("")", categorize_codecs));
  // numcodecs would store 0 and read "" back. The error names the element of the region; the
  // chunks before and after it, all labels, are not stored either.
  ZARR_CHECK_ERROR(a.write_strings(zarr::region{{0}, {6}}, strings{"male", "female", "", "unexpected", "male", "female"}),
                   zarr::errc::invalid_value,
                   "array \"/a\": codecs[0] (numcodecs.categorize), element 3: expected one of the labels or the empty string, "
                   "got \"unexpected\"");
  for (const char* key : {"a/c/0", "a/c/1", "a/c/2"}) BOOST_TEST(!store->get(key).has_value(), key);
  // Inside a shard alike.
  auto s = zarr::array::create(store, "s", string_array({4}, {4}, "string", R"("")",
      R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2], "codecs": [{"name": "numcodecs.categorize",
           "configuration": {"labels": ["female", "male"], "dtype": "|O"}}, {"name": "bytes"}],
           "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])"));
  ZARR_CHECK_ERROR(s.write_strings(zarr::region{{0}, {4}}, strings{"male", "female", "male", "other"}), zarr::errc::invalid_value,
                   "element 3: expected one of the labels");
  BOOST_TEST(!store->get("s/c/0").has_value());
}

BOOST_AUTO_TEST_CASE(numbers_past_the_labels_are_corrupt_and_sharding_and_wider_types_work) {
  const auto m = string_array({3}, {3}, "string", R"("")", categorize_codecs);
  const auto c = chain_of(m);
  strings out(3);
  ZARR_CHECK_ERROR(c.decode_elements(as_bytes(bytes_of({1, 3, 0})), out), zarr::errc::corrupt_chunk,
                   "element 1: expected a label number from 0 to 2, got 3");
  ZARR_CHECK_ERROR(c.decode_elements(as_bytes(bytes_of({1, 2})), out), zarr::errc::corrupt_chunk, "expected 3 bytes, got 2");
  // A signed big-endian astype: -1 is no label's number.
  const auto wide = chain_of(string_array({2}, {2}, "string", R"("")",
      R"([{"name": "numcodecs.categorize", "configuration": {"labels": ["a", "b", "c"], "dtype": "|O", "astype": ">i2"}},
          {"name": "bytes", "configuration": {"endian": "big"}}])"));
  BOOST_TEST(from_bytes(wide.encode_elements(strings{"c", "a"})) == bytes_of({0, 3, 0, 1}));
  strings two(2);
  ZARR_CHECK_ERROR(wide.decode_elements(as_bytes(bytes_of({0xff, 0xff, 0, 1})), two), zarr::errc::corrupt_chunk, "got -1");
  // Inside a shard: the inner chunks hold numbers, an inner chunk of only "" is not stored.
  auto store = std::make_shared<zarr::memory_store>();
  auto s = zarr::array::create(store, "s", string_array({8}, {8}, "string", R"("male")",
      R"([{"name": "numcodecs.categorize", "configuration": {"labels": ["female", "male"], "dtype": "|O"}},
          {"name": "sharding_indexed", "configuration": {"chunk_shape": [2], "codecs": [{"name": "bytes"}],
           "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])"));
  const strings values{"male", "female", "", "", "female", "female", "male", ""};
  s.write_strings(zarr::region{{0}, {8}}, values);
  BOOST_TEST(s.read_strings(zarr::region{{0}, {8}}) == values, boost::test_tools::per_element());
  BOOST_TEST(store->get("s/c/0")->size() == 3 * 2 + 4 * 16);  // three inner chunks of two numbers, the index
}

BOOST_AUTO_TEST_CASE(configurations_it_cannot_hold_are_refused_naming_the_field) {
  const auto open = [](const char* type, const std::string& config) {
    return zarr::array::create(std::make_shared<zarr::memory_store>(), "a",
                               string_array({4}, {2}, type, type == std::string("string") ? R"("")" : "0",
                                            (R"([{"name": "numcodecs.categorize", "configuration": )" + config +
                                             R"(}, {"name": "bytes", "configuration": {"endian": "little"}}])").c_str()));
  };
  ZARR_CHECK_ERROR(open("string", R"({"labels": ["a"], "dtype": "<U5"})"), zarr::errc::unsupported,
                   "codecs[0].configuration.dtype: expected \"|O\"");
  ZARR_CHECK_ERROR(open("string", R"({"labels": ["a"]})"), zarr::errc::invalid_metadata, "codecs[0].configuration.dtype");
  ZARR_CHECK_ERROR(open("string", R"({"labels": ["a", 1], "dtype": "|O"})"), zarr::errc::invalid_metadata,
                   "codecs[0].configuration.labels[1]: expected a string, got 1");
  ZARR_CHECK_ERROR(open("string", R"({"labels": ["a"], "dtype": "|O", "astype": "<f4"})"), zarr::errc::unsupported,
                   "codecs[0].configuration.astype: expected a NumPy integer type");
  json::array many;
  for (int i = 0; i < 256; ++i) many.emplace_back(std::to_string(i));
  ZARR_CHECK_ERROR(open("string", R"({"labels": )" + json::serialize(many) + R"(, "dtype": "|O"})"), zarr::errc::invalid_metadata,
                   "codecs[0].configuration.labels: expected at most 255 labels for uint8, got 256");
  BOOST_CHECK_NO_THROW(open("string", R"({"labels": )" + json::serialize(many) + R"(, "dtype": "|O", "astype": "<u2"})"));
  ZARR_CHECK_ERROR(open("int32", R"({"labels": ["a"], "dtype": "|O"})"), zarr::errc::unsupported,
                   "codecs[0] (numcodecs.categorize): expected an array of data type string or fixed_length_utf32, got int32");
  ZARR_CHECK_ERROR(open("string", R"({"labels": ["a"], "dtype": "|O", "x": 1})"), zarr::errc::invalid_metadata,
                   "codecs[0].configuration");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(string_builder)

// An array of strings from C++ values: the vlen codec of the type by default.
BOOST_AUTO_TEST_CASE(the_builder_makes_string_and_bytes_arrays_without_json) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({3}, zarr::data_type::string)
               .chunk_shape({2})
               .fill_string("none")
               .codecs({zarr::codecs::zstd{.level = 3}})
               .create(store, "names");
  const auto& chain = a.metadata().codecs.as_array();
  BOOST_TEST(chain.size() == 2u);
  BOOST_TEST(chain.at(0).at("name") == "vlen-utf8");
  BOOST_TEST(chain.at(1).at("name") == "zstd");
  a.write_strings(zarr::region{{0}, {1}}, strings{"Ada"});
  BOOST_TEST(a.read_strings(zarr::region{{0}, {3}}) == (strings{"Ada", "none", "none"}), boost::test_tools::per_element());
  const auto b = zarr::array_builder({2}, zarr::data_type::bytes).metadata();
  BOOST_TEST(json::serialize(b.codecs) == R"([{"name":"vlen-bytes","configuration":{}}])");
  BOOST_TEST(b.fill_string.empty());
  ZARR_CHECK_ERROR(zarr::array_builder({2}, zarr::data_type::string).fill_value(1).metadata(), zarr::errc::invalid_value,
                   "array_builder: fill_value: expected a string for string, got a number");
  ZARR_CHECK_ERROR(zarr::array_builder({2}, zarr::data_type::uint8).fill_string("x").metadata(), zarr::errc::invalid_value,
                   "expected a number for uint8");
}

BOOST_AUTO_TEST_SUITE_END()
