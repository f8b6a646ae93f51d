// The optional data type and codec (zarr-extensions proposals data-types/optional, codecs/optional):
// the example arrays zarrs wrote for the proposal read as their own description says, and our
// chunks of the same values are byte for byte zarrs'; arrays laid out from the spec alone by
// interop/optional_from_spec.py (run at test time) read exactly, and that script decodes ours to
// the same values; optional under transpose and sharding; every error of the type and the codec.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.sized;
import zarr.codec;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.bytes;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;
using zarr::data_type;
using zarr::errc;
using zarr_test::octets;
using zarr_test::same;

namespace {

zarr::bytes file_bytes(const fs::path& p) { return octets(zarr_test::file_text(p)); }

zarr::array open(const fs::path& dir) { return zarr::array::open(std::make_shared<zarr::filesystem_store>(dir), ""); }

zarr::bytes read_all(const zarr::array& a) {
  const auto all = zarr::region::all(a.metadata().shape);
  zarr::bytes out(static_cast<std::size_t>(a.metadata().type_spec().element_size() * all.num_elements()));
  a.read(all, out);
  return out;
}

// The chunk keys under `dir`/c and their bytes (no hidden file).
std::vector<std::pair<std::string, zarr::bytes>> chunks_of(const fs::path& dir) {
  std::vector<std::pair<std::string, zarr::bytes>> out;
  if (!fs::exists(dir / "c")) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir / "c"))
    if (e.is_regular_file() && e.path().filename().string()[0] != '.')  // not the writers' lock files
      out.emplace_back(fs::relative(e.path(), dir).generic_string(), file_bytes(e.path()));
  std::sort(out.begin(), out.end());
  return out;
}

// A copy of the array at `from` with its zarr.json only (no chunk), at `to`.
void copy_metadata(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  fs::copy_file(from / "zarr.json", to / "zarr.json");
}

// The table in the `description` attribute zarrs gave its example arrays (after the line that
// ends in ':'): "N" null, "SN" a value that is null (Some(None)), a number a value (nested as deep
// as the type), as elements in memory (docs/decisions.md 71: the value's bytes, then the validity
// byte; an optional optional uint8 is the uint8, the inner validity, the outer validity).
zarr::bytes expected_from_description(const zarr::array& a, int depth) {
  const auto text = std::string(a.metadata().attributes.at("description").as_string());
  std::istringstream table(text.substr(text.rfind(":\n") + 2));
  zarr::bytes out;
  std::string token;
  while (table >> token) {
    if (token == "N") {
      out.insert(out.end(), static_cast<std::size_t>(1 + depth), std::byte{0});
    } else if (token == "SN") {
      BOOST_TEST_REQUIRE(depth == 2);
      out.insert(out.end(), {std::byte{0}, std::byte{0}, std::byte{1}});
    } else {
      out.push_back(static_cast<std::byte>(std::stoi(token)));
      out.insert(out.end(), static_cast<std::size_t>(depth), std::byte{1});
    }
  }
  return out;
}

// The elements of `box` out of `all`, the C-order elements of `shape`.
std::vector<std::string> window(const std::vector<std::string>& all, const std::vector<std::uint64_t>& shape,
                                const zarr::region& box) {
  std::vector<std::string> out;
  std::vector<std::uint64_t> at = box.start;
  for (std::uint64_t n = 0; n < box.num_elements(); ++n) {
    std::uint64_t flat = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + at[d];
    out.push_back(all[flat]);
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++at[d] < box.stop[d]) break;
      at[d] = box.start[d];
    }
  }
  return out;
}

// The elements the spec script wrote to expected.bin: for strings each after its uint32
// little-endian length, else element_size() bytes each.
std::vector<std::string> elements_of(const std::string& file, bool strings, const zarr::array& a) {
  std::vector<std::string> out;
  if (strings) {
    for (std::size_t at = 0; at + 4 <= file.size();) {
      std::uint32_t n = 0;
      for (int i = 3; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[at + static_cast<std::size_t>(i)]);
      out.push_back(file.substr(at + 4, n));
      at += 4 + n;
    }
    return out;
  }
  const auto size = static_cast<std::size_t>(a.metadata().type_spec().element_size());
  for (std::size_t at = 0; at + size <= file.size(); at += size) out.push_back(file.substr(at, size));
  return out;
}

// The elements of `box` of `a`, each as a string of its bytes in memory.
std::vector<std::string> read_elements(const zarr::array& a, const zarr::region& box, bool strings) {
  if (strings) return a.read_strings(box);
  const auto size = static_cast<std::size_t>(a.metadata().type_spec().element_size());
  zarr::bytes all(static_cast<std::size_t>(box.num_elements()) * size);
  a.read(box, all);
  std::vector<std::string> out;
  for (std::size_t at = 0; at < all.size(); at += size) out.emplace_back(reinterpret_cast<const char*>(all.data() + at), size);
  return out;
}

std::optional<std::string> spec_script(const std::string& args) {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_OPTIONAL_SCRIPT");
  BOOST_TEST_REQUIRE(python != nullptr, "ZARR_PYTHON is set by CTest");
  BOOST_TEST_REQUIRE(script != nullptr, "ZARR_OPTIONAL_SCRIPT is set by CTest");
  return zarr_test::run_peer(std::string(python) + " " + script + " " + args, "the optional spec script");
}

zarr::chunk_spec optional_spec(std::vector<std::uint64_t> shape, std::string_view type_json) {
  const auto t = zarr::parse_data_type_spec(json::parse(type_json));
  return zarr::chunk_spec{std::move(shape), t.type, zarr::default_sized_fill_value(t), t.layout};
}

constexpr std::string_view optional_u8 = R"({"name": "optional", "configuration": {"name": "uint8"}})";
constexpr std::string_view plain_codecs = R"([{"name": "optional", "configuration": {"mask_codecs": [{"name": "bytes"}],
    "data_codecs": [{"name": "bytes"}]}}])";

}  // namespace

BOOST_AUTO_TEST_SUITE(optional_codec)

BOOST_AUTO_TEST_CASE(reads_the_example_arrays_zarrs_wrote_and_writes_their_chunks_byte_for_byte) {
  const auto examples = zarr_test::data_dir() / "interop" / "zarrs-optional";
  const auto dir = zarr_test::scratch_dir();
  for (const auto& [name, depth] : {std::pair{"array_optional.zarr", 1}, std::pair{"array_optional_nested.zarr", 2}}) {
    BOOST_TEST_CONTEXT(name) {
      const auto source = examples / name / "array";
      const auto a = open(source);
      const auto expected = expected_from_description(a, depth);
      BOOST_TEST_REQUIRE(expected.size() == 16u * static_cast<std::size_t>(1 + depth));
      BOOST_TEST(same(read_all(a), expected));
      // The same values written by us: the same chunks, and only those (a chunk of the fill
      // value alone, [null] in the nested array, is not stored).
      const auto ours = dir / name;
      copy_metadata(source, ours);
      auto b = open(ours);
      b.write(zarr::region::all(b.metadata().shape), expected);
      const auto theirs = chunks_of(source), mine = chunks_of(ours);
      BOOST_TEST_REQUIRE(mine.size() == theirs.size());
      for (std::size_t i = 0; i < mine.size(); ++i) {
        BOOST_TEST(mine[i].first == theirs[i].first);
        BOOST_TEST(same(mine[i].second, theirs[i].second), mine[i].first);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reads_arrays_laid_out_from_the_spec_and_the_spec_reads_ours) {
  const auto dir = zarr_test::scratch_dir();
  if (!spec_script("write '" + (dir / "spec").string() + "'")) return;
  const auto cases = json::parse(zarr_test::file_text(dir / "spec" / "cases.json")).as_array();
  BOOST_TEST_REQUIRE(cases.size() == 6u);
  for (const auto& c : cases) {
    const std::string name(c.at("name").as_string());
    const bool strings = c.at("strings").as_bool();
    BOOST_TEST_CONTEXT(name) {
      const auto source = dir / "spec" / name;
      const auto a = open(source);
      const auto expected = elements_of(zarr_test::file_text(source / "expected.bin"), strings, a);
      BOOST_TEST_REQUIRE(expected.size() == zarr::region::all(a.metadata().shape).num_elements());
      const auto& shape = a.metadata().shape;
      BOOST_TEST(read_elements(a, zarr::region::all(shape), strings) == expected);
      // A region across chunk edges reads the same elements.
      const zarr::region box{std::vector<std::uint64_t>(shape.size(), 1), shape};
      BOOST_TEST(read_elements(a, box, strings) == window(expected, shape, box));
      // Ours, from the same values: the script decodes them by the spec; where no compressor
      // is involved, the chunks are the script's byte for byte.
      const auto ours = dir / "ours" / name;
      copy_metadata(source, ours);
      auto b = open(ours);
      if (strings) {
        b.write_strings(zarr::region::all(shape), expected);
      } else {
        std::string all;
        for (const auto& e : expected) all += e;
        b.write(zarr::region::all(shape), octets(all));
      }
      if (name.find("gzip") == std::string::npos) {
        const auto theirs = chunks_of(source), mine = chunks_of(ours);
        BOOST_TEST_REQUIRE(mine.size() == theirs.size());
        for (std::size_t i = 0; i < mine.size(); ++i) BOOST_TEST(same(mine[i].second, theirs[i].second), mine[i].first);
      }
    }
  }
  spec_script("check '" + (dir / "ours").string() + "'");
}

BOOST_AUTO_TEST_CASE(lays_out_a_chunk_as_the_spec_says) {
  // optional uint8 [4]: 7, null, 9, null. Mask (bytes) 1 0 1 0; data (bytes) 7 9.
  const auto c = zarr_test::chain(plain_codecs, optional_spec({4}, optional_u8));
  const auto chunk = octets({7, 1, 0, 0, 9, 1, 0, 0});
  const auto stored = octets({4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 7, 9});
  BOOST_TEST(same(c.encode(chunk), stored));
  BOOST_TEST(same(c.decode(stored), chunk));
  // Every element null: no data at all; a null element's value bytes are ignored on write.
  const auto none = octets({4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  BOOST_TEST(same(c.encode(octets({5, 0, 6, 0, 0, 0, 0, 0})), none));
  BOOST_TEST(same(c.decode(none), octets({0, 0, 0, 0, 0, 0, 0, 0})));
}

BOOST_AUTO_TEST_CASE(round_trips_under_transpose_reshape_and_sharding) {
  const auto dir = zarr_test::scratch_dir();
  const std::string inner = R"({"name": "optional", "configuration": {"mask_codecs": [{"name": "packbits"}],
      "data_codecs": [{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "zstd", "configuration": {"level": 1}}]}})";
  const std::string type = R"({"name": "optional", "configuration": {"name": "int16"}})";
  for (const auto& [name, codecs] :
       {std::pair{std::string("transposed"), R"([{"name": "transpose", "configuration": {"order": [1, 0]}}, )" + inner + "]"},
        std::pair{std::string("reshaped"), R"([{"name": "reshape", "configuration": {"shape": [24]}}, )" + inner + "]"},
        std::pair{std::string("sharded"), R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3],
            "codecs": [)" + inner + R"(], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])"}}) {
    BOOST_TEST_CONTEXT(name) {
      fs::create_directories(dir / name);
      std::ofstream(dir / name / "zarr.json") << R"({"zarr_format": 3, "node_type": "array", "shape": [7, 9],
          "data_type": )" << type << R"(, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}},
          "chunk_key_encoding": {"name": "default"}, "fill_value": [-1], "codecs": )" << codecs << "}";
      auto a = open(dir / name);
      zarr::bytes values(63 * 3);
      for (std::size_t i = 0; i < 63; ++i) {
        const auto v = static_cast<std::int16_t>(i * 1000 - 30000);
        const bool present = i % 4 != 1;
        std::memcpy(values.data() + 3 * i, &v, 2);
        if (!present) values[3 * i] = values[3 * i + 1] = std::byte{0};
        values[3 * i + 2] = std::byte{present ? std::uint8_t{1} : std::uint8_t{0}};
      }
      a.write(zarr::region::all(a.metadata().shape), values);
      BOOST_TEST(same(read_all(open(dir / name)), values));
      // The fill value [-1]: the value, then 1.
      const auto back = open(dir / name);
      BOOST_TEST(same(back.metadata().fill_value.bytes(), octets({0xFF, 0xFF, 1})));
    }
  }
}

BOOST_AUTO_TEST_CASE(optional_strings_are_the_text_then_the_validity_byte_and_are_checked_before_anything_is_stored) {
  const auto dir = zarr_test::scratch_dir();
  std::ofstream(dir / "zarr.json") << R"({"zarr_format": 3, "node_type": "array", "shape": [4],
      "data_type": {"name": "optional", "configuration": {"name": "string"}}, "chunk_grid": {"name": "regular",
      "configuration": {"chunk_shape": [2]}}, "chunk_key_encoding": {"name": "default"}, "fill_value": ["zz"],
      "codecs": [{"name": "optional", "configuration": {"mask_codecs": [{"name": "bytes"}],
      "data_codecs": [{"name": "vlen-utf8"}]}}]})";
  auto a = open(dir);
  const auto all = zarr::region::all(a.metadata().shape);
  BOOST_TEST(a.metadata().fill_string == std::string("zz\x01"));
  BOOST_TEST(a.read_strings(all) == (std::vector<std::string>{"zz\x01", "zz\x01", "zz\x01", "zz\x01"}));
  const std::vector<std::string> values{std::string("\0", 1), std::string("\x01"), "\xc3\xa9t\xc3\xa9\x01", "zz\x01"};
  a.write_strings(all, values);
  BOOST_TEST(a.read_strings(all) == values);
  // Refused, nothing stored: a last byte other than 0 or 1, a null with more, text that is no UTF-8.
  for (const auto& bad : {std::string("ab\x02"), std::string("ab\x00", 3), std::string(), std::string("\xff\x01")})
    ZARR_CHECK_ERROR(a.write_strings(all, std::vector<std::string>{values[0], values[1], bad, values[3]}),
                     errc::invalid_argument, "element 2");
  BOOST_TEST(a.read_strings(all) == values);
  ZARR_CHECK_ERROR(a.read_chunk(std::vector<std::uint64_t>{0}).size() + read_all(a).size(), errc::invalid_argument,
                   "use read_strings and write_strings");
  // The fill value's JSON form and the elements': null, or an array of one.
  const auto spec = a.metadata().type_spec();
  BOOST_TEST(json::serialize(zarr::variable_value_to_json(values[2], spec)) == "[\"\xc3\xa9t\xc3\xa9\"]");
  BOOST_TEST(json::serialize(zarr::variable_value_to_json(values[0], spec)) == "null");
  BOOST_TEST(zarr::parse_variable_value(json::parse("[\"x\"]"), spec, "v") == "x\x01");
  ZARR_CHECK_ERROR(zarr::parse_variable_value(json::parse("\"x\""), spec, "v"), errc::invalid_value, "null or an array of one value");
}

BOOST_AUTO_TEST_CASE(refuses_what_the_type_and_the_codec_do_not_allow) {
  using zarr::parse_data_type_spec;
  // The type: the wrapped type is required, of fixed size, and nests 16 deep at most.
  ZARR_CHECK_ERROR(parse_data_type_spec(json::parse(R"("optional")")), errc::invalid_metadata, "data_type");
  ZARR_CHECK_ERROR(parse_data_type_spec(json::parse(R"({"name": "optional"})")), errc::invalid_metadata,
                   "data_type.configuration: expected a data type object");
  ZARR_CHECK_ERROR(parse_data_type_spec(json::parse(R"({"name": "optional", "configuration": {"name": "uint8", "x": 1}})")),
                   errc::invalid_metadata, "expected only name and configuration, got \"x\"");
  ZARR_CHECK_ERROR(parse_data_type_spec(json::parse(R"({"name": "optional", "configuration": {"name": "uint9"}})")),
                   errc::unsupported, "data_type.configuration");
  std::string deep(optional_u8);
  for (int i = 0; i < 16; ++i) deep = R"({"name": "optional", "configuration": )" + deep + "}";
  ZARR_CHECK_ERROR(parse_data_type_spec(json::parse(deep)), errc::invalid_metadata, "nested at most 16 deep");
  ZARR_CHECK_ERROR(parse_data_type_spec(json::parse(R"({"name": "struct", "configuration": {"fields": [
      {"name": "a", "data_type": {"name": "optional", "configuration": {"name": "uint8"}}}]}})")),
                   errc::unsupported, "fields[0].data_type: expected a data type the bytes codec encodes, got optional uint8");
  // Fill values: null or a one-element array of the wrapped type's.
  const auto t = parse_data_type_spec(json::parse(optional_u8));
  BOOST_TEST(t.element_size() == 2u);
  BOOST_TEST(zarr::sized_value_to_json_text(zarr::parse_sized_fill_value(json::parse("[255]"), t).bytes(), t) == "[255]");
  BOOST_TEST(zarr::sized_value_to_json_text(zarr::parse_sized_fill_value(json::parse("null"), t).bytes(), t) == "null");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse("7"), t), errc::invalid_value, "null or an array of one value");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse("[1, 2]"), t), errc::invalid_value, "null or an array of one value");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse("[256]"), t), errc::invalid_value, "fill_value[0]");
  ZARR_CHECK_ERROR(static_cast<void>(zarr::sized_value_to_json_text(octets({1, 2}), t)), errc::invalid_value,
                   "a validity byte of 0 (no value) or 1 (a value), got 2");

  // The codecs: bytes does not encode an optional type, nor do codecs that compute with
  // elements; optional takes nothing else.
  const auto s = optional_spec({4}, optional_u8);
  ZARR_CHECK_ERROR(zarr_test::chain(R"([{"name": "bytes"}])", s), errc::unsupported,
                   "codecs[0] (bytes): expected a data type the bytes codec encodes, got optional uint8 (encoded by the optional codec)");
  ZARR_CHECK_ERROR(zarr_test::chain(R"([{"name": "scale_offset", "configuration": {"scale": 2}}, {"name": "bytes"}])", s),
                   errc::unsupported, "(bytes, numcodecs.categorize, optional, reshape, sharding_indexed, transpose)");
  ZARR_CHECK_ERROR(zarr_test::chain(plain_codecs, zarr_test::spec({4}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[0] (optional): expected the optional data type, got uint8");
  ZARR_CHECK_ERROR(zarr_test::chain(R"([{"name": "optional", "configuration": {"mask_codecs": [{"name": "bytes"}]}}])", s),
                   errc::invalid_metadata, "codecs[0].configuration.data_codecs");
  ZARR_CHECK_ERROR(zarr_test::chain(R"([{"name": "optional", "configuration": {"mask_codecs": [{"name": "bytes"}],
      "data_codecs": [{"name": "bytes"}], "level": 1}}])", s), errc::invalid_metadata, "level");
  // A data chain for the wrapped type: an optional optional needs an optional codec inside.
  ZARR_CHECK_ERROR(zarr_test::chain(plain_codecs, optional_spec({4}, R"({"name": "optional", "configuration": )" +
                                                                          std::string(optional_u8) + "}")),
                   errc::unsupported, "codecs[0].configuration.data_codecs[0] (bytes)");

  // Encoding: a validity byte other than 0 or 1 names the element.
  const auto c = zarr_test::chain(plain_codecs, s);
  ZARR_CHECK_ERROR(c.encode(octets({7, 1, 0, 0, 9, 2, 0, 0})), errc::invalid_value,
                   "codecs[0] (optional): element 2: expected a validity byte of 0 (no value) or 1 (a value), got 2");
  // Decoding: a header cut short, lengths that do not add up, a mask of other than bools, data
  // of the wrong size.
  ZARR_CHECK_ERROR(c.decode(octets({4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0})), errc::corrupt_chunk, "expected a header of 16 bytes");
  ZARR_CHECK_ERROR(c.decode(octets({4, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 7, 9})), errc::corrupt_chunk,
                   "expected a mask of 4 bytes and data of 3 bytes after the header, got 6 bytes");
  ZARR_CHECK_ERROR(c.decode(octets({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0})),
                   errc::corrupt_chunk, "expected a mask of 18446744073709551615 bytes");
  ZARR_CHECK_ERROR(c.decode(octets({4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 7, 9})), errc::corrupt_chunk,
                   "element 2: expected a bool (0 or 1), got 2");
  ZARR_CHECK_ERROR(c.decode(octets({4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 7})), errc::corrupt_chunk,
                   "codecs[0].configuration.data_codecs[0] (bytes): expected 2 bytes, got 1");
}

BOOST_AUTO_TEST_SUITE_END()
