// string and bytes with Debian's zarr-python 2 and numcodecs, both ways
// (tests/interop/numcodecs_strings.py, run here with ZARR_PYTHON, which CTest sets to /usr/bin/python3).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.text;
import zarr.codec;
import zarr.metadata;
import zarr.array;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

using strings = std::vector<std::string>;

// The script's output for `args` (its stdout), or nothing when it could not run.
std::optional<std::string> run_script(const std::string& args) {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_STRINGS_SCRIPT");
  BOOST_TEST_REQUIRE((python != nullptr && script != nullptr), "ZARR_PYTHON and ZARR_STRINGS_SCRIPT are set by CTest");
  return zarr_test::run_peer(std::string(python) + " " + script + " " + args, "zarr-python 2 (" + args.substr(0, args.find(' ')) + ")");
}

// The values of a manifest entry as this library holds them: strings, bytes from base64, and
// zarr-python 2's integer fill 0 of object arrays as the empty string (docs/decisions.md 61).
strings expected_values(const json::array& values) {
  strings out;
  for (const auto& v : values) {
    if (v.is_string()) out.emplace_back(v.as_string());
    else if (const auto* b64 = v.as_object().if_contains("b64")) out.push_back(*zarr::base64_decode(b64->as_string()));
    else {
      BOOST_TEST(v.as_object().at("other") == "0");
      out.emplace_back();
    }
  }
  return out;
}

std::vector<std::uint64_t> shape_of(const json::value& v) {
  std::vector<std::uint64_t> shape;
  for (const auto& d : v.as_array()) shape.push_back(d.to_number<std::uint64_t>());
  return shape;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(strings_interop)

BOOST_AUTO_TEST_CASE(what_zarr_python_2_and_numcodecs_write_reads_exactly) {
  const auto dir = zarr_test::scratch_dir();
  if (!run_script("write " + dir.string())) return;  // missing: skipped; refused: failed (run_peer)
  const auto manifest = json::parse(zarr_test::file_text(dir / "manifest.json")).as_object();
  std::size_t v2 = 0, v3 = 0;
  for (const auto& c : manifest.at("cases").as_array()) {
    const auto& o = c.as_object();
    const std::string path(o.at("path").as_string());
    BOOST_TEST_CONTEXT(path) {
      const bool is_v2 = o.at("version") == 2;
      auto store = std::make_shared<zarr::filesystem_store>(dir / (is_v2 ? "v2.zarr" : "v3.zarr"), false);
      const auto a = zarr::array::open(store, path);
      BOOST_TEST(a.metadata().zarr_format == (is_v2 ? 2 : 3));
      BOOST_TEST(a.shape() == shape_of(o.at("shape")), boost::test_tools::per_element());
      BOOST_TEST(a.read_strings(zarr::region::all(a.shape())) == expected_values(o.at("values").as_array()),
                 boost::test_tools::per_element());
      ++(is_v2 ? v2 : v3);
    }
  }
  BOOST_TEST(v2 == 22u);
  BOOST_TEST(v3 == 13u);
  // transpose, reshape and sharding over vlen: what we write from the same documents is the
  // script's chunks, byte for byte.
  for (const char* path : {"transpose_utf8", "reshape_bytes", "sharded_utf8"}) {
    BOOST_TEST_CONTEXT(path) {
      const auto theirs = std::make_shared<zarr::filesystem_store>(dir / "v3.zarr", false);
      const auto source = zarr::array::open(theirs, path);
      auto ours = std::make_shared<zarr::memory_store>();
      auto copy = zarr::array::create(ours, path, source.metadata());
      copy.write_strings(zarr::region::all(source.shape()), source.read_strings(zarr::region::all(source.shape())));
      std::size_t keys = 0;
      for (const auto& entry : fs::recursive_directory_iterator(dir / "v3.zarr" / path / "c")) {
        if (!entry.is_regular_file()) continue;
        const auto key = std::string(path) + "/" + fs::relative(entry.path(), dir / "v3.zarr" / path).generic_string();
        const auto stored = ours->get(key);
        BOOST_TEST_REQUIRE(stored.has_value(), key);
        BOOST_TEST(std::string(reinterpret_cast<const char*>(stored->data()), stored->size()) ==
                       zarr_test::file_text(entry.path()), key);
        ++keys;
      }
      BOOST_TEST(keys > 0u);
    }
  }
  // numcodecs' own encoding of whole chunks is ours, byte for byte.
  const auto chunks = json::parse(zarr_test::file_text(dir / "chunks.json")).as_object();
  const auto text = expected_values(manifest.at("text").as_array());
  const auto bytes = expected_values(manifest.at("bytes").as_array());
  const auto encode = [](zarr::data_type t, const strings& values) {
    const zarr::chunk_spec spec{{values.size()}, t, zarr::scalar{t, {}}};
    const auto codecs = json::parse(t == zarr::data_type::string ? R"([{"name": "vlen-utf8"}])" : R"([{"name": "vlen-bytes"}])");
    const auto out = zarr::codec_chain(codecs, spec).encode_elements(values);
    return zarr::base64_encode(std::string(reinterpret_cast<const char*>(out.data()), out.size()));
  };
  BOOST_TEST(encode(zarr::data_type::string, strings{"a", ""}) == chunks.at("utf8_spec").as_string());
  BOOST_TEST(encode(zarr::data_type::string, text) == chunks.at("utf8_text").as_string());
  BOOST_TEST(encode(zarr::data_type::bytes, bytes) == chunks.at("bytes").as_string());
}

// We write Zarr v2 object arrays; zarr-python 2 reads the same values.
BOOST_AUTO_TEST_CASE(zarr_python_2_reads_what_we_write_as_v2) {
  const auto dir = zarr_test::scratch_dir();
  auto store = std::make_shared<zarr::filesystem_store>(dir / "ours.zarr", true);
  const strings text{"", "\u00e9t\u00e9", "\U0001F600", std::string(300, 'x'), "last"};
  const strings raw{std::string("\0\xff", 2), "", "bytes"};
  const auto v2_text = [](const char* dtype_filter, const char* fill, const char* compressor) {
    return std::string(R"({"zarr_format": 2, "shape": [5], "chunks": [2], "dtype": "|O", "order": "C", "fill_value": )") +
           fill + R"(, "filters": [{"id": ")" + dtype_filter + R"("}], "compressor": )" + compressor + "}";
  };
  auto s = zarr::array::create(store, "text", zarr::array_metadata::parse_v2(v2_text("vlen-utf8", R"("")", R"({"id": "zlib", "level": 1})")));
  s.write_strings(zarr::region{{0}, {5}}, text);
  auto b = zarr::array::create(store, "raw", zarr::array_metadata::parse_v2(v2_text("vlen-bytes", "0", "null")));
  b.write_strings(zarr::region{{0}, {3}}, raw);  // the last chunk stays missing: zarr-python 2 reads its fill, 0
  const auto read = [&](const char* path) -> std::optional<json::object> {
    const auto out = run_script("read " + (dir / "ours.zarr").string() + " " + path);
    if (!out) return std::nullopt;
    return json::parse(*out).as_object();
  };
  const auto t = read("text");
  if (!t) return;  // refused: failed (run_peer)
  BOOST_TEST(t->at("dtype") == "object");
  BOOST_TEST(expected_values(t->at("values").as_array()) == text, boost::test_tools::per_element());
  const auto r = read("raw");
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(expected_values(r->at("values").as_array()) == (strings{raw[0], raw[1], raw[2], "", ""}),
             boost::test_tools::per_element());
  // The metadata is zarr-python 2's own form.
  const auto zarray = json::parse(zarr_test::file_text(dir / "ours.zarr" / "raw" / ".zarray")).as_object();
  BOOST_TEST(zarray.at("dtype") == "|O");
  BOOST_TEST(zarray.at("fill_value") == 0);
  BOOST_TEST(json::serialize(zarray.at("filters")) == R"([{"id":"vlen-bytes"}])");
  // numcodecs.categorize (docs/decisions.md 62): the labels' numbers in two bytes, big-endian.
  auto c = zarr::array::create(store, "categories", zarr::array_metadata::parse_v2(
      R"({"zarr_format": 2, "shape": [5], "chunks": [2], "dtype": "|O", "order": "C", "fill_value": 0, "filters":
          [{"id": "categorize", "labels": ["été", "hiver"], "dtype": "|O", "astype": ">u2"}],
          "compressor": {"id": "zstd", "level": 2}})"));
  const strings seasons{"hiver", "", "été", "hiver"};
  c.write_strings(zarr::region{{0}, {4}}, seasons);
  const auto k = read("categories");
  BOOST_TEST_REQUIRE(k.has_value());
  BOOST_TEST(expected_values(k->at("values").as_array()) == (strings{seasons[0], seasons[1], seasons[2], seasons[3], ""}),
             boost::test_tools::per_element());
  // Order "F": each chunk's elements in Fortran order (a reversing transpose before the object codec).
  for (const char* filters : {R"([{"id": "vlen-utf8"}])", R"([{"id": "categorize", "labels": ["a", "bb", "été"], "dtype": "|O"}])",
                              R"([{"id": "pickle", "protocol": 5}])",
                              R"([{"id": "json2", "encoding": "utf-8", "ensure_ascii": false, "separators": [",", ":"]}])",
                              R"([{"id": "msgpack2", "raw": false, "use_bin_type": true, "use_single_float": false}])"}) {
    BOOST_TEST_CONTEXT(filters) {
      auto f = zarr::array::create(store, "order_f", zarr::array_metadata::parse_v2(
          std::string(R"({"zarr_format": 2, "shape": [3, 4], "chunks": [2, 3], "dtype": "|O", "order": "F", "fill_value": 0,
                           "filters": )") + filters + R"(, "compressor": {"id": "zlib", "level": 1}})"), true);
      const strings grid{"a", "bb", "été", "", "bb", "a", "a", "été", "", "", "bb", "a"};
      f.write_strings(zarr::region::all(f.shape()), grid);
      const auto back = read("order_f");
      BOOST_TEST_REQUIRE(back.has_value());
      BOOST_TEST(expected_values(back->at("values").as_array()) == grid, boost::test_tools::per_element());
      BOOST_TEST(json::parse(zarr_test::file_text(dir / "ours.zarr" / "order_f" / ".zarray")).at("order") == "F");
    }
  }
}

// numcodecs.pickle (docs/decisions.md 73): zarr-python 2 reads the v2 arrays we pickle in
// protocols 0, 2 and 5, and numcodecs' Pickle decodes our chunks of bytes in each protocol.
BOOST_AUTO_TEST_CASE(zarr_python_2_and_numcodecs_read_what_we_pickle) {
  const auto dir = zarr_test::scratch_dir();
  auto store = std::make_shared<zarr::filesystem_store>(dir / "ours.zarr", true);
  const strings text{"", "back\\slash\nnew line", "\u00e9t\u00e9 \u20ac", "\U0001F600", std::string("nul\0inside", 10), "x"};
  for (const char* protocol : {"0", "2", "5"}) {
    BOOST_TEST_CONTEXT("protocol " << protocol) {
      const std::string path = std::string("pickle_") + protocol;
      auto a = zarr::array::create(store, path, zarr::array_metadata::parse_v2(
          std::string(R"({"zarr_format": 2, "shape": [2, 4], "chunks": [2, 3], "dtype": "|O", "order": "C", "fill_value": 0,
                           "filters": [{"id": "pickle", "protocol": )") + protocol + R"(}], "compressor": null})"));
      a.write_strings(zarr::region{{0, 0}, {2, 3}}, text);  // the second chunk stays missing
      const auto out = run_script("read " + (dir / "ours.zarr").string() + " " + path);
      if (!out) return;  // missing: skipped; refused: failed (run_peer)
      const auto got = json::parse(*out).as_object();
      BOOST_TEST(got.at("dtype") == "object");
      BOOST_TEST(expected_values(got.at("values").as_array()) ==
                     (strings{text[0], text[1], text[2], "", text[3], text[4], text[5], ""}),
                 boost::test_tools::per_element());
      BOOST_TEST(json::serialize(json::parse(zarr_test::file_text(dir / "ours.zarr" / path / ".zarray")).at("filters")) ==
                 std::string(R"([{"id":"pickle","protocol":)") + protocol + "}]");
    }
  }
  const strings raw{std::string("\0\xff", 2), "", "bytes\n", std::string(300, '\x80')};
  std::string files;
  for (const int protocol : {0, 1, 2, 3, 4, 5}) {
    const zarr::chunk_spec spec{{2, 2}, zarr::data_type::bytes, zarr::scalar{zarr::data_type::bytes, {}}};
    const auto codecs = json::parse(R"([{"name": "numcodecs.pickle", "configuration": {"protocol": )" + std::to_string(protocol) + "}}]");
    const auto encoded = zarr::codec_chain(codecs, spec).encode_elements(raw);
    const auto file = dir / ("bytes_" + std::to_string(protocol) + ".pickle");
    std::FILE* f = std::fopen(file.c_str(), "wb");
    BOOST_TEST_REQUIRE(f != nullptr);
    BOOST_TEST_REQUIRE(std::fwrite(encoded.data(), 1, encoded.size(), f) == encoded.size());
    std::fclose(f);
    files += " " + file.string();
  }
  const auto out = run_script("decode pickle" + files);
  BOOST_TEST_REQUIRE(out.has_value());
  const auto decoded = json::parse(*out).as_array();
  BOOST_TEST_REQUIRE(decoded.size() == 6u);
  for (std::size_t p = 0; p < decoded.size(); ++p) {
    BOOST_TEST_CONTEXT("protocol " << p) {
      BOOST_TEST(decoded[p].at("dtype") == "object");
      BOOST_TEST(json::serialize(decoded[p].at("shape")) == "[2,2]");
      BOOST_TEST(expected_values(decoded[p].at("values").as_array()) == raw, boost::test_tools::per_element());
    }
  }
}

// numcodecs.msgpack2 (docs/decisions.md 75): numcodecs' MsgPack decodes what we pack, strings
// with and without use_bin_type, bytes as bin.
BOOST_AUTO_TEST_CASE(numcodecs_reads_what_we_pack) {
  const auto dir = zarr_test::scratch_dir();
  const strings text{"", "x", "\u00e9t\u00e9 \u20ac", std::string(40, 'y'), std::string(300, 'z'), "\U0001F600"};
  const strings raw{std::string("\0\xff", 2), "", std::string(40, '\x80'), std::string(70000, 'b'), "b", "bytes\n"};
  struct packed { const strings& values; zarr::data_type type; const char* bin_type; };
  const std::vector<packed> cases{{text, zarr::data_type::string, "true"}, {text, zarr::data_type::string, "false"},
                                  {raw, zarr::data_type::bytes, "true"}};
  std::string files;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const zarr::chunk_spec spec{{3, 2}, cases[k].type, zarr::scalar{cases[k].type, {}}};
    const auto codecs = json::parse(std::string(R"([{"name": "numcodecs.msgpack2", "configuration": {"use_bin_type": )") +
                                    cases[k].bin_type + "}}]");
    const auto encoded = zarr::codec_chain(codecs, spec).encode_elements(cases[k].values);
    const auto file = dir / ("chunk_" + std::to_string(k) + ".msgpack");
    std::FILE* f = std::fopen(file.c_str(), "wb");
    BOOST_TEST_REQUIRE(f != nullptr);
    BOOST_TEST_REQUIRE(std::fwrite(encoded.data(), 1, encoded.size(), f) == encoded.size());
    std::fclose(f);
    files += " " + file.string();
  }
  const auto out = run_script("decode msgpack2" + files);
  BOOST_TEST_REQUIRE(out.has_value());
  const auto decoded = json::parse(*out).as_array();
  BOOST_TEST_REQUIRE(decoded.size() == cases.size());
  for (std::size_t k = 0; k < decoded.size(); ++k) {
    BOOST_TEST_CONTEXT("case " << k) {
      BOOST_TEST(decoded[k].at("dtype") == "object");
      BOOST_TEST(json::serialize(decoded[k].at("shape")) == "[3,2]");
      BOOST_TEST(expected_values(decoded[k].at("values").as_array()) == cases[k].values, boost::test_tools::per_element());
    }
  }
}

// docs/decisions.md 61: a Zarr v2 bytes fill value other than empty has no form, and object
// arrays of other codecs are not read.
BOOST_AUTO_TEST_CASE(object_arrays_we_cannot_hold_are_refused) {
  const auto text = [](const char* fill, const char* filters) {
    return std::string(R"({"zarr_format": 2, "shape": [5], "chunks": [2], "dtype": "|O", "order": "C", "fill_value": )") +
           fill + R"(, "filters": )" + filters + R"(, "compressor": null})";
  };
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(text("0", R"([{"id": "vlen-array"}])")), zarr::errc::unsupported, "dtype");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(text("0", "null")), zarr::errc::unsupported, "dtype");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(text(R"("abc")", R"([{"id": "vlen-bytes"}])")), zarr::errc::invalid_value,
                   "fill_value: expected null or 0 for vlen-bytes byte strings, got \"abc\"");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(text("1", R"([{"id": "vlen-utf8"}])")), zarr::errc::invalid_value,
                   "fill_value: expected null, 0 or a string for vlen-utf8 strings, got 1");
  auto m = zarr::array_metadata::parse_v2(text("0", R"([{"id": "vlen-bytes"}])"));
  m.fill_string = "x";
  ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "b", m), zarr::errc::unsupported,
                   "expected an empty byte string");
}

BOOST_AUTO_TEST_SUITE_END()
