// Consolidated metadata: a hierarchy of 100 arrays opens and lists with one read, in both
// versions (zarr-python's .zmetadata for Zarr v2, consolidated_metadata in the group's zarr.json
// for Zarr v3), and a metadata write through the library removes what it would make stale;
// zarr-python 2 reads ours and we read its (tests/interop/zarr_python2_consolidated.py), with
// only .zmetadata left to read the documents from; every refusal of the parser.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.store;
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

// What zarr_python2_consolidated.py prints for `verb` (write, read) on `dir`; nothing when it is
// missing (a skip) or refused (a failure).
std::optional<json::object> zarr_python2(const std::string& verb, const fs::path& dir) {
  const char* python = std::getenv("ZARR_PYTHON2");
  const char* script = std::getenv("ZARR_CONSOLIDATED_SCRIPT");
  BOOST_TEST_REQUIRE((python != nullptr && script != nullptr), "ZARR_PYTHON2 and ZARR_CONSOLIDATED_SCRIPT are set by CTest");
  const auto out = zarr_test::run_peer(std::string(python) + " " + script + " " + verb + " '" + dir.string() + "'",
                                       "zarr-python 2 (consolidated metadata, " + verb + ")");
  if (!out) return std::nullopt;
  return json::parse(*out).as_object();
}

// Removes every metadata document below `dir` but .zmetadata: a reader then has only the
// consolidated metadata to go by.
void keep_only_zmetadata(const fs::path& dir) {
  std::vector<fs::path> documents;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto name = entry.path().filename();
    if (name == ".zarray" || name == ".zgroup" || name == ".zattrs") documents.push_back(entry.path());
  }
  BOOST_TEST_REQUIRE(!documents.empty());
  for (const auto& p : documents) fs::remove(p);
}

template <class T>
std::string le_hex(const std::vector<T>& values) {  // the values' little-endian bytes (this machine's), in hex
  std::string out;
  const auto* p = reinterpret_cast<const unsigned char*>(values.data());
  for (std::size_t i = 0; i < values.size() * sizeof(T); ++i) {
    static constexpr char digits[] = "0123456789abcdef";
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

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
  // Read-modify-writes (metadata updates) go to the memory store uncounted.
  void update(std::string_view key, const zarr::update_function& modify, bool single_writer,
              const zarr::update_policy& policy) override {
    inner.update(key, modify, single_writer, policy);
  }
  bool atomic_updates() const override { return inner.atomic_updates(); }
  std::vector<std::string> list(std::string_view prefix) const override {
    ++lists;
    return inner.list(prefix);
  }
  std::vector<std::string> list_dir(std::string_view prefix) const override {
    ++lists;
    return inner.list_dir(prefix);
  }
};

// A memory store on which another writer sets the root group's attributes just before the
// first write of its zarr.json once `armed`, as another process could between a read and a
// write of it.
class interrupted_store final : public zarr::store {
 public:
  std::shared_ptr<zarr::memory_store> inner = std::make_shared<zarr::memory_store>();
  bool armed = false;

  std::optional<zarr::bytes> get(std::string_view key) const override { return inner->get(key); }
  std::optional<zarr::bytes> get(std::string_view key, zarr::byte_range range) const override { return inner->get(key, range); }
  std::optional<std::uint64_t> size(std::string_view key) const override { return inner->size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override {
    interrupt(key);
    inner->set(key, value);
  }
  void erase(std::string_view key) override { inner->erase(key); }
  std::vector<std::string> list(std::string_view prefix) const override { return inner->list(prefix); }
  zarr::versioned_value get_versioned(std::string_view key) const override { return inner->get_versioned(key); }
  bool set_if(std::string_view key, std::span<const std::byte> value, const zarr::value_version& expected) override {
    interrupt(key);
    return inner->set_if(key, value, expected);
  }
  bool erase_if(std::string_view key, const zarr::value_version& expected) override { return inner->erase_if(key, expected); }
  bool atomic_updates() const override { return true; }

 private:
  void interrupt(std::string_view key) {
    if (!armed || key != "zarr.json") return;
    armed = false;
    zarr::group::open(inner, "").set_attributes({{"title", "changed meanwhile"}});
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

BOOST_AUTO_TEST_CASE(consolidating_keeps_what_another_writer_changed_in_the_group_meanwhile) {
  const auto s = std::make_shared<interrupted_store>();
  zarr::group::create(s, "", {{"title", "before"}});
  zarr::array_builder({4}, zarr::data_type::int32).chunk_shape({2}).create(s, "a");
  s->armed = true;
  BOOST_TEST(zarr::consolidate_metadata(s) == 1u);
  BOOST_TEST(!s->armed);  // the other writer came in between the read and the write
  const auto consolidated = zarr::open_consolidated(s);  // (throws without consolidated metadata)
  BOOST_TEST(zarr::group::open(consolidated, "").metadata().attributes.at("title") == "changed meanwhile");
  BOOST_TEST(zarr::group::open(s, "").metadata().attributes.at("title") == "changed meanwhile");
  BOOST_TEST(zarr::group::open(consolidated, "").children() == std::vector<std::string>{"a"}, boost::test_tools::per_element());
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

BOOST_AUTO_TEST_CASE(zarr_python_2_reads_our_consolidated_metadata_with_only_zmetadata_left) {
  const auto dir = zarr_test::scratch_dir() / "ours.zarr";
  auto s = std::make_shared<zarr::filesystem_store>(dir);
  zarr::group::create(s, "", {{"title", "ours"}}, false, 2);
  zarr::group::create(s, "g", {{"level", 2}}, false, 2);
  auto a = zarr::array::create(s, "g/a", zarr::array_metadata::parse_v2(R"({"zarr_format": 2, "shape": [5, 4], "chunks": [2, 3],
      "dtype": "<i4", "fill_value": -1, "order": "C", "filters": null, "compressor": {"id": "zlib", "level": 1}})",
                                                                     {{"units", "km"}}));
  std::vector<std::int32_t> av(20);
  for (int i = 0; i < 20; ++i) av[static_cast<std::size_t>(i)] = i * 5 - 11;
  a.write(zarr::region::all(a.shape()), std::span<const std::int32_t>(av));
  auto b = zarr::array::create(s, "g/b", zarr::array_metadata::parse_v2(R"({"zarr_format": 2, "shape": [3], "chunks": [2],
      "dtype": ">f8", "fill_value": 0.5, "order": "C", "filters": null, "compressor": null})"));
  const std::vector<double> bv{0.25, -1.5};
  b.write(zarr::region{{0}, {2}}, std::span<const double>(bv));  // the last chunk missing: the fill value
  auto c = zarr::array::create(s, "deep/er/c", zarr::array_metadata::parse_v2(R"({"zarr_format": 2, "shape": [4], "chunks": [4],
      "dtype": "|u1", "fill_value": 0, "order": "C", "filters": null, "compressor": null})"));
  const std::vector<std::uint8_t> cv{1, 2, 3, 250};
  c.write(zarr::region::all(c.shape()), std::span<const std::uint8_t>(cv));
  BOOST_TEST(zarr::consolidate_metadata(s) == 6u);  // g, g/a, g/b, deep, deep/er, deep/er/c
  keep_only_zmetadata(dir);

  const auto theirs = zarr_python2("read", dir);
  if (!theirs) return;
  BOOST_TEST(theirs->at("attributes") == json::parse(R"({"title": "ours"})"));
  BOOST_TEST(theirs->at("groups") == json::parse(R"(["deep", "deep/er", "g"])"));
  const auto& arrays = theirs->at("arrays").as_object();
  BOOST_TEST(arrays.size() == 3u);
  BOOST_TEST(arrays.at("g/a").at("dtype") == "<i4");
  BOOST_TEST(arrays.at("g/a").at("shape") == json::parse("[5, 4]"));
  BOOST_TEST(arrays.at("g/a").at("attributes") == json::parse(R"({"units": "km"})"));
  BOOST_TEST(arrays.at("g/a").at("bytes").as_string() == le_hex(av));
  BOOST_TEST(arrays.at("g/b").at("dtype") == ">f8");
  BOOST_TEST(arrays.at("g/b").at("bytes").as_string() == le_hex(std::vector<double>{0.25, -1.5, 0.5}));
  BOOST_TEST(arrays.at("deep/er/c").at("bytes").as_string() == "010203fa");
}

BOOST_AUTO_TEST_CASE(reads_zarr_python_2s_consolidated_metadata_with_only_zmetadata_left) {
  const auto dir = zarr_test::scratch_dir() / "theirs.zarr";
  const auto theirs = zarr_python2("write", dir);
  if (!theirs) return;
  keep_only_zmetadata(dir);
  const auto s = std::make_shared<zarr::filesystem_store>(dir);
  ZARR_CHECK_ERROR(zarr::array::open(s, "g/a"), zarr::errc::not_found, "expected a zarr.json");  // the documents are gone
  const auto c = zarr::open_consolidated(s);
  BOOST_TEST(json::value(zarr::group::open(c, "").metadata().attributes) == theirs->at("attributes"));
  std::vector<std::string> groups;
  const auto visit = [&](auto&& self, const std::string& path) -> void {
    for (const auto& child : zarr::group::open(c, path).children()) {
      const auto p = path.empty() ? child : path + "/" + child;
      if (std::holds_alternative<zarr::group_metadata>(zarr::read_node_metadata(*c, p))) {
        groups.push_back(p);
        self(self, p);
      }
    }
  };
  visit(visit, "");
  std::sort(groups.begin(), groups.end());
  BOOST_TEST(json::value_from(groups) == theirs->at("groups"));
  const auto& arrays = theirs->at("arrays").as_object();
  BOOST_TEST(arrays.size() == 3u);
  for (const auto& [path, expected] : arrays) {
    BOOST_TEST_CONTEXT(std::string(path)) {
      const auto a = zarr::array::open(c, path);
      BOOST_TEST(json::value_from(a.shape()) == expected.at("shape"));
      BOOST_TEST(json::value(a.metadata().attributes) == expected.at("attributes"));
      std::vector<unsigned char> raw(static_cast<std::size_t>(zarr::region::all(a.shape()).num_elements() * a.metadata().element_size()));
      a.read(zarr::region::all(a.shape()), std::as_writable_bytes(std::span(raw)));
      BOOST_TEST(le_hex(raw) == expected.at("bytes").as_string());
    }
  }
}

// Every refusal of the consolidated metadata parser: its error code and message.
BOOST_AUTO_TEST_CASE(refuses_malformed_consolidated_metadata_naming_what_is_wrong) {
  struct refusal {
    const char* key;
    std::string text;
    zarr::errc code;
    const char* message;
  };
  const std::string group = R"({"zarr_format": 3, "node_type": "group")";
  const std::string node = R"({"zarr_format": 3, "node_type": "group"})";
  const std::string zarray = R"({"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "|u1", "fill_value": 0,
      "order": "C", "filters": null, "compressor": null})";
  const auto inline_metadata = [&](const std::string& metadata) {
    return group + R"(, "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": )" + metadata + "}}";
  };
  const auto zmetadata = [&](const std::string& metadata) {
    return R"({"zarr_consolidated_format": 1, "metadata": )" + metadata + "}";
  };
  const std::vector<refusal> cases{
      {"zarr.json", group + "}", zarr::errc::not_found, R"(group "/": expected consolidated metadata, got none in its zarr.json)"},
      {"zarr.json", group + R"(, "consolidated_metadata": null})", zarr::errc::not_found, "got none in its zarr.json"},
      {"zarr.json", group + R"(, "consolidated_metadata": 5})", zarr::errc::invalid_metadata,
       "zarr.json: consolidated_metadata: expected an object, got 5"},
      {"zarr.json", group + R"(, "consolidated_metadata": {"metadata": {}}})", zarr::errc::unsupported,
       R"(zarr.json: consolidated_metadata.kind: expected "inline", got nothing)"},
      {"zarr.json", group + R"(, "consolidated_metadata": {"kind": "file", "metadata": {}}})", zarr::errc::unsupported,
       R"(zarr.json: consolidated_metadata.kind: expected "inline", got "file")"},
      {"zarr.json", group + R"(, "consolidated_metadata": {"kind": "inline"}})", zarr::errc::invalid_metadata,
       "zarr.json: consolidated_metadata.metadata: expected an object, got nothing"},
      {"zarr.json", inline_metadata("[]"), zarr::errc::invalid_metadata,
       "zarr.json: consolidated_metadata.metadata: expected an object, got []"},
      {"zarr.json", inline_metadata(R"({"../x": )" + node + "}"), zarr::errc::invalid_key,
       R"(node name "..": expected a name that is not only periods)"},
      {"zarr.json", inline_metadata(R"({"a/__b": )" + node + "}"), zarr::errc::invalid_key,
       R"(node name "__b": expected a name that does not start with "__")"},
      {"zarr.json", inline_metadata(R"({"a//b": )" + node + "}"), zarr::errc::invalid_key,
       R"(node name "": expected a name that is not empty)"},
      {"zarr.json", inline_metadata(R"({"": )" + node + "}"), zarr::errc::invalid_key,
       R"(zarr.json: consolidated_metadata.metadata: expected node paths below the group, got "")"},
      {"zarr.json", inline_metadata(R"({"x": 3})"), zarr::errc::invalid_metadata,
       "zarr.json: consolidated_metadata.metadata.x: expected an object, got 3"},
      {"zarr.json", "{not json", zarr::errc::invalid_metadata, "zarr.json"},
      {".zmetadata", "[]", zarr::errc::invalid_metadata, ".zmetadata: expected an object, got []"},
      {".zmetadata", R"({"metadata": {}})", zarr::errc::unsupported, ".zmetadata: zarr_consolidated_format: expected 1, got nothing"},
      {".zmetadata", R"({"zarr_consolidated_format": 2, "metadata": {}})", zarr::errc::unsupported,
       ".zmetadata: zarr_consolidated_format: expected 1, got 2"},
      {".zmetadata", R"({"zarr_consolidated_format": "1", "metadata": {}})", zarr::errc::unsupported,
       R"(.zmetadata: zarr_consolidated_format: expected 1, got "1")"},
      {".zmetadata", R"({"zarr_consolidated_format": 1})", zarr::errc::invalid_metadata,
       ".zmetadata: metadata: expected an object, got nothing"},
      {".zmetadata", zmetadata("[]"), zarr::errc::invalid_metadata, ".zmetadata: metadata: expected an object, got []"},
      {".zmetadata", zmetadata(R"({"a/0.0": {}})"), zarr::errc::invalid_metadata,
       R"(.zmetadata: metadata: expected document keys, got "a/0.0")"},
      {".zmetadata", zmetadata(R"({"a/.zarray": 1})"), zarr::errc::invalid_metadata,
       ".zmetadata: metadata.a/.zarray: expected an object, got 1"},
      {".zmetadata", zmetadata(R"({"../a/.zarray": )" + zarray + "}"), zarr::errc::invalid_key,
       R"(store key "../a/.zarray": expected a relative key without '.' or '..' segments)"},
      {".zmetadata", zmetadata(R"({"/a/.zarray": )" + zarray + "}"), zarr::errc::invalid_key,
       R"(store key "/a/.zarray": expected a relative key without a leading '/')"},
      {".zmetadata", zmetadata(R"({"a//.zarray": )" + zarray + "}"), zarr::errc::invalid_key,
       R"(store key "a//.zarray": expected a relative key without empty segments)"},
      {".zmetadata", R"({"zarr_consolidated_format": 1, "metadata": {"a\\b/.zarray": {}}})", zarr::errc::invalid_key,
       "expected a relative key without backslashes"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.key << ": " << c.text) {
      auto s = std::make_shared<zarr::memory_store>();
      s->set(c.key, std::as_bytes(std::span(c.text)));
      ZARR_CHECK_ERROR(zarr::open_consolidated(s), c.code, c.message);
    }
  }
  // Below a group: a key that climbs out of it is refused too, named in full.
  auto s = std::make_shared<zarr::memory_store>();
  const auto text = zmetadata(R"({"../x/.zarray": )" + zarray + "}");
  s->set("sub/.zmetadata", std::as_bytes(std::span(text)));
  ZARR_CHECK_ERROR(zarr::open_consolidated(s, "sub"), zarr::errc::invalid_key, R"(store key "sub/../x/.zarray")");
  // Nothing to read.
  ZARR_CHECK_ERROR(zarr::open_consolidated(std::make_shared<zarr::memory_store>()), zarr::errc::not_found,
                   R"(group "/": expected consolidated metadata, got no zarr.json or .zmetadata)");
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
