// Consolidated metadata: a hierarchy of 100 arrays opens and lists with one read, in both
// versions (zarr-python's .zmetadata for Zarr v2, consolidated_metadata in the group's zarr.json
// for Zarr v3), and a metadata write through the library removes what it would make stale.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr;

namespace json = boost::json;

namespace {

// A memory store that counts the requests that reach it.
class counting_store final : public zarr::store {
 public:
  mutable std::atomic<int> reads{0}, lists{0};
  zarr::memory_store inner;

  std::optional<zarr::bytes> get(std::string_view key) const override {
    ++reads;
    return inner.get(key);
  }
  std::optional<zarr::bytes> get(std::string_view key, zarr::byte_range range) const override {
    ++reads;
    return inner.get(key, range);
  }
  std::optional<std::uint64_t> size(std::string_view key) const override {
    ++reads;
    return inner.size(key);
  }
  void set(std::string_view key, std::span<const std::byte> value) override { inner.set(key, value); }
  void erase(std::string_view key) override { inner.erase(key); }
  std::vector<std::string> list(std::string_view prefix) const override {
    ++lists;
    return inner.list(prefix);
  }
  std::vector<std::string> list_dir(std::string_view prefix) const override {
    ++lists;
    return inner.list_dir(prefix);
  }
};

// 100 arrays in 10 groups below the root, each with an attribute; chunk (0, 0) written.
void make_hierarchy(const std::shared_ptr<zarr::store>& s, int format) {
  zarr::group::create(s, "", {{"title", "consolidated"}}, false, format);
  for (int g = 0; g < 10; ++g) {
    zarr::group::create(s, "g" + std::to_string(g), {}, false, format);
    for (int a = 0; a < 10; ++a) {
      const auto path = "g" + std::to_string(g) + "/a" + std::to_string(a);
      auto arr = format == 2
                     ? zarr::array::create(s, path, zarr::array_metadata::parse_v2(
                                                         R"({"chunks": [2, 2], "compressor": {"id": "zlib", "level": 1},
                                                             "dtype": "<i4", "fill_value": 0, "filters": null, "order": "C",
                                                             "shape": [4, 4], "zarr_format": 2})"))
                     : zarr::array_builder({4, 4}, zarr::data_type::int32).chunk_shape({2, 2}).create(s, path);
      arr.set_attributes({{"index", g * 10 + a}});
      arr.write<std::int32_t>({{0, 0}, {2, 2}}, std::vector<std::int32_t>{g, a, g * a, g + a});
    }
  }
}

// Opens and lists the whole hierarchy through `s`, checking what it reads; returns the arrays.
int open_everything(const std::shared_ptr<zarr::store>& s) {
  int arrays = 0;
  const auto root = zarr::group::open(s, "");
  BOOST_TEST(root.metadata().attributes.at("title") == "consolidated");
  for (const auto& g : root.children()) {
    for (const auto& name : zarr::group::open(s, g).children()) {
      const auto a = zarr::array::open(s, g + "/" + name);
      BOOST_TEST(a.metadata().attributes.at("index").to_number<int>() == std::stoi(g.substr(1)) * 10 + std::stoi(name.substr(1)));
      ++arrays;
    }
  }
  return arrays;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(consolidated_metadata)

BOOST_AUTO_TEST_CASE(opening_and_listing_a_100_array_hierarchy_reads_one_key) {
  for (const int format : {3, 2}) {
    BOOST_TEST_CONTEXT("Zarr v" << format) {
      auto counting = std::make_shared<counting_store>();
      make_hierarchy(counting, format);
      zarr::consolidate_metadata(counting);
      counting->reads = 0;
      counting->lists = 0;
      const auto s = zarr::open_consolidated(counting);
      // One get: zarr.json (v3); v2 has none, so a second one reads .zmetadata.
      BOOST_TEST(counting->reads.load() == (format == 3 ? 1 : 2));
      BOOST_TEST(open_everything(s) == 100);
      BOOST_TEST(counting->reads.load() == (format == 3 ? 1 : 2));
      BOOST_TEST(counting->lists.load() == 0);
      // Chunks still come from the store.
      BOOST_TEST(zarr::array::open(s, "g3/a4").read<std::int32_t>({{0, 0}, {2, 2}}) == (std::vector<std::int32_t>{3, 4, 12, 7}),
                 boost::test_tools::per_element());
      // Without consolidated metadata the same walk reads every node's documents.
      counting->reads = 0;
      BOOST_TEST(open_everything(counting) == 100);
      BOOST_TEST(counting->reads.load() > 200);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_metadata_write_through_the_library_never_leaves_it_stale) {
  for (const int format : {3, 2}) {
    BOOST_TEST_CONTEXT("Zarr v" << format) {
      auto s = std::make_shared<zarr::memory_store>();
      make_hierarchy(s, format);
      zarr::consolidate_metadata(s);
      BOOST_TEST_REQUIRE(zarr::open_consolidated(s) != nullptr);
      // Through a consolidated store: what it answers follows the write.
      const auto c = zarr::open_consolidated(s);
      auto a = zarr::array::open(c, "g1/a1");
      a.set_attributes({{"index", 999}});
      BOOST_TEST(zarr::array::open(c, "g1/a1").metadata().attributes.at("index") == 999);
      // The stored consolidated metadata is gone from every group above the array...
      ZARR_CHECK_ERROR(zarr::open_consolidated(s), zarr::errc::not_found, "group \"/\": expected consolidated metadata");
      // ...and consolidating again gives the new attributes.
      zarr::consolidate_metadata(s);
      BOOST_TEST(zarr::array::open(zarr::open_consolidated(s), "g1/a1").metadata().attributes.at("index") == 999);
      zarr::group::create(s, "g1/new", {}, false, format);
      ZARR_CHECK_ERROR(zarr::open_consolidated(s), zarr::errc::not_found, "expected consolidated metadata");
    }
  }
}

BOOST_AUTO_TEST_CASE(reads_the_forms_zarr_python_writes) {
  // zarr-python 3's form (consolidated_metadata with kind "inline"), written by hand here.
  auto s = std::make_shared<zarr::memory_store>();
  const std::string root = R"({"zarr_format": 3, "node_type": "group", "attributes": {},
    "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {
      "x": {"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "uint8",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 7, "codecs": [{"name": "bytes"}], "attributes": {"from": "consolidated"}}}}})";
  s->set("zarr.json", std::as_bytes(std::span(root)));
  const auto c = zarr::open_consolidated(s);
  BOOST_TEST(zarr::group::open(c, "").children() == std::vector<std::string>{"x"}, boost::test_tools::per_element());
  BOOST_TEST(zarr::array::open(c, "x").read<std::uint8_t>({{0}, {2}}) == (std::vector<std::uint8_t>{7, 7}),
             boost::test_tools::per_element());
  const std::string bad = R"({"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "file", "metadata": {}}})";
  s->set("zarr.json", std::as_bytes(std::span(bad)));
  ZARR_CHECK_ERROR(zarr::open_consolidated(s), zarr::errc::unsupported, "zarr.json: consolidated_metadata.kind: expected \"inline\"");
  // The Zarr v2 form, a .zmetadata beside .zgroup.
  auto v2 = std::make_shared<zarr::memory_store>();
  const std::string zmetadata = R"({"zarr_consolidated_format": 1, "metadata": {".zgroup": {"zarr_format": 2},
    "y/.zarray": {"chunks": [2], "compressor": null, "dtype": "|u1", "fill_value": 3, "filters": null, "order": "C",
                  "shape": [2], "zarr_format": 2}, "y/.zattrs": {"a": 1}}})";
  v2->set(".zmetadata", std::as_bytes(std::span(zmetadata)));
  const auto c2 = zarr::open_consolidated(v2);
  BOOST_TEST(zarr::array::open(c2, "y").metadata().attributes.at("a") == 1);
  BOOST_TEST(zarr::array::open(c2, "y").read<std::uint8_t>({{0}, {2}}) == (std::vector<std::uint8_t>{3, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(v2_attributes_and_consolidated_metadata_are_written_in_ascii_that_zarr_python_2_reads) {
  const auto dir = zarr_test::scratch_dir();
  auto s = std::make_shared<zarr::filesystem_store>(dir / "v2.zarr");
  const std::string title = "temp\u00e9rature \U0001F321";  // é and a character past U+FFFF
  zarr::group::create(s, "", {{"title", title}}, false, 2);
  zarr::array::create(s, "t", zarr::array_metadata::parse_v2(R"({"chunks": [2], "compressor": null, "dtype": "<u1",
      "fill_value": 0, "filters": null, "order": "C", "shape": [2], "zarr_format": 2})", {{"units", "\u00b0C"}}));
  BOOST_TEST(zarr::consolidate_metadata(s) == 1u);
  for (const auto* key : {".zattrs", "t/.zattrs", ".zmetadata", "t/.zarray", ".zgroup"}) {
    const auto text = zarr_test::file_text(dir / "v2.zarr" / key);
    BOOST_TEST(std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }), key << ": " << text);
  }
  BOOST_TEST(zarr_test::file_text(dir / "v2.zarr" / ".zattrs").find(R"(temp\u00e9rature \ud83c\udf21)") != std::string::npos);
  BOOST_TEST(std::string(zarr::group::open(s, "").metadata().attributes.at("title").as_string()) == title);
  // zarr-python 2 reads both, its consolidated metadata too.
  const char* python = std::getenv("ZARR_PYTHON2");
  if (python == nullptr) return zarr_test::peer_missing("ZARR_PYTHON2 unset");
  const std::string code = "import sys, zarr; g = zarr.open_consolidated(sys.argv[1], mode='r'); "
                           "print(ascii([g.attrs['title'], g['t'].attrs['units'], zarr.open_group(sys.argv[1], mode='r').attrs['title']]))";
  FILE* pipe = popen((std::string(python) + " -c \"" + code + "\" '" + (dir / "v2.zarr").string() + "'").c_str(), "r");
  BOOST_TEST_REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::string out;
  while (const auto n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  BOOST_TEST_REQUIRE(pclose(pipe) == 0);
  BOOST_TEST(out == "['temp\\xe9rature \\U0001f321', '\\xb0C', 'temp\\xe9rature \\U0001f321']\n");
}

BOOST_AUTO_TEST_SUITE_END()
