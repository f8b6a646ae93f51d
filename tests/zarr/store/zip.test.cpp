// zarr.store.zip against Python's zipfile and zarr-python 2's ZipStore (Debian's /usr/bin/python3,
// ZARR_PYTHON), and a zip in the RADOS Gateway read by ranges (the CTest fixture rgw).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <variant>
#include <vector>
#include "../../support.hpp"
#include "contract.hpp"
#include "servers.hpp"
import zarr.error;
import zarr.dtype;
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.store.s3;
import zarr.store.zip;
import zarr.bytes;
import zarr.nd;

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// What /usr/bin/python3 prints for `code` (run with `args`), or nothing when there is no such python.
// (The script is written into `dir`.)
std::optional<std::string> python(const fs::path& dir, const std::string& code, const std::string& args = "") {
  const char* py = std::getenv("ZARR_PYTHON");
  if (py == nullptr || !fs::exists(py)) return std::nullopt;
  const auto script = dir / "script.py";
  std::ofstream(script) << code;
  FILE* pipe = popen((std::string(py) + " '" + script.string() + "' " + args).c_str(), "r");
  BOOST_TEST_REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  while (const auto n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  BOOST_TEST_REQUIRE(pclose(pipe) == 0, "python failed on:\n" << code);
  return out;
}

// Zips the folder argv[1] into argv[2] with Python's zipfile, members stored (as zarr-python's
// ZipStore writes them), keys relative to the folder.
const std::string zip_folder = R"(
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
    for folder, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            path = os.path.join(folder, f)
            info = zipfile.ZipInfo(os.path.relpath(path, root), date_time=(2026, 1, 1, 0, 0, 0))  # the files say 1970
            info.compress_type = zipfile.ZIP_STORED
            with open(path, "rb") as data:
                z.writestr(info, data.read())
)";

// Both stores hold the same keys with the same bytes, and every array reads the same from both.
void check_same(const std::shared_ptr<zarr::store>& dir, const std::shared_ptr<zarr::store>& zip) {
  const auto keys = dir->list("");
  BOOST_TEST(zip->list("") == keys, boost::test_tools::per_element());
  for (const auto& key : keys) BOOST_TEST((*zip->get(key) == *dir->get(key)), key);
  std::size_t arrays = 0;
  for (const auto& key : keys) {
    if (!key.ends_with("zarr.json")) continue;
    const auto path = key == "zarr.json" ? std::string() : key.substr(0, key.size() - 10);
    if (!std::holds_alternative<zarr::array_metadata>(zarr::read_node_metadata(*dir, path))) continue;
    const auto d = zarr::array::open(dir, path);
    const auto z = zarr::array::open(zip, path);
    const auto all = zarr::region::all(d.shape());
    BOOST_TEST_CONTEXT(path) {
      if (zarr::is_variable_length(d.type())) {
        BOOST_TEST(z.read_strings(all) == d.read_strings(all), boost::test_tools::per_element());
      } else {
        std::vector<std::byte> a(all.num_elements() * d.metadata().element_size()), b(a.size());
        d.read(all, a);
        z.read(all, b);
        BOOST_TEST(a == b);
      }
    }
    ++arrays;
  }
  BOOST_TEST(arrays > 10u);
}

// A store over another that counts the bytes read from it (ranges and whole values).
class counting_store final : public zarr::store {
 public:
  explicit counting_store(std::shared_ptr<zarr::store> s) : s_(std::move(s)) {}
  std::optional<zarr::bytes> get(std::string_view key) const override { return counted(s_->get(key)); }
  std::optional<zarr::bytes> get(std::string_view key, zarr::byte_range r) const override { return counted(s_->get(key, r)); }
  std::unique_ptr<const zarr::stored_value> snapshot(std::string_view key) const override {
    auto v = s_->snapshot(key);
    return v ? std::make_unique<counted_value>(std::move(v), bytes_read) : nullptr;
  }
  std::unique_ptr<const zarr::stored_value> snapshot_and_read(std::string_view key, zarr::byte_range first,
                                                              zarr::bytes& part) const override {
    auto v = s_->snapshot_and_read(key, first, part);
    bytes_read += part.size();
    return v ? std::make_unique<counted_value>(std::move(v), bytes_read) : nullptr;
  }
  std::optional<std::uint64_t> size(std::string_view key) const override { return s_->size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override { s_->set(key, value); }
  void erase(std::string_view key) override { s_->erase(key); }
  std::vector<std::string> list(std::string_view prefix) const override { return s_->list(prefix); }

  mutable std::atomic<std::uint64_t> bytes_read{0};

 private:
  struct counted_value final : zarr::stored_value {
    counted_value(std::unique_ptr<const zarr::stored_value> v, std::atomic<std::uint64_t>& n) : v_(std::move(v)), n_(n) {}
    zarr::bytes get(std::optional<zarr::byte_range> r) const override {
      auto b = v_->get(r);
      n_ += b.size();
      return b;
    }
    std::unique_ptr<const zarr::stored_value> v_;
    std::atomic<std::uint64_t>& n_;
  };
  std::optional<zarr::bytes> counted(std::optional<zarr::bytes> b) const {
    if (b) bytes_read += b->size();
    return b;
  }
  std::shared_ptr<zarr::store> s_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(zip_store)

BOOST_AUTO_TEST_CASE(the_interop_corpus_zipped_by_python_reads_equal_to_the_directory) {
  const auto dir = zarr_test::scratch_dir();
  const auto corpus = zarr_test::data_dir() / "interop" / "corpus-seed1" / "store";
  const auto zip = dir / "corpus.zarr.zip";
  if (!python(dir, zip_folder, "'" + corpus.string() + "' '" + zip.string() + "'"))
    return zarr_test::peer_missing("/usr/bin/python3 (zipfile)");
  const auto d = std::make_shared<zarr::filesystem_store>(corpus, false);
  const auto z = std::make_shared<zarr::zip_store>(zip);
  check_same(d, z);
  for (const auto& e : z->entries()) BOOST_TEST(e.method == 0);
  // The same archive deflated (zipfile.ZIP_DEFLATED) reads the same too.
  std::string deflated = zip_folder;
  for (auto at = deflated.find("ZIP_STORED"); at != std::string::npos; at = deflated.find("ZIP_STORED"))
    deflated.replace(at, 10, "ZIP_DEFLATED");
  const auto zip8 = dir / "deflated.zip";
  BOOST_TEST_REQUIRE(python(dir, deflated, "'" + corpus.string() + "' '" + zip8.string() + "'").has_value());
  const auto z8 = std::make_shared<zarr::zip_store>(zip8);
  BOOST_TEST(std::ranges::count_if(z8->entries(), [](const auto& e) { return e.method == 8; }) > 10);
  check_same(d, z8);
  BOOST_TEST((*z8->get("zarr.json", zarr::byte_range{2, 5}) == *d->get("zarr.json", zarr::byte_range{2, 5})));
}

BOOST_AUTO_TEST_CASE(reads_pythons_zip64_deflated_and_commented_archives) {
  // The zip_directory fuzz target's seeds, written by Python's zipfile (force_zip64, a comment).
  const char* seeds = std::getenv("ZARR_ZIP_SEEDS");
  BOOST_TEST_REQUIRE(seeds != nullptr);
  std::vector<std::byte> ramp(40);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<std::byte>(i);
  const std::string group = R"({"zarr_format": 3, "node_type": "group"})";
  for (const char* name : {"stored.zip", "deflated.zip", "zip64.zip"}) {
    BOOST_TEST_CONTEXT(name) {
      const zarr::zip_store z(fs::path(seeds) / name);
      BOOST_TEST(z.list("") == (std::vector<std::string>{"a/c/0", "zarr.json"}), boost::test_tools::per_element());  // "a/" is a folder
      const auto c = *z.get("a/c/0");
      BOOST_TEST(std::vector<std::byte>(c.begin(), c.end()) == ramp);
      const auto j = *z.get("zarr.json");
      BOOST_TEST(std::string(reinterpret_cast<const char*>(j.data()), j.size()) == group);
      const auto part = *z.get("a/c/0", zarr::byte_range{5, 3});
      BOOST_TEST(std::to_integer<int>(part.at(0)) == 5);
      BOOST_TEST(std::to_integer<int>(part.at(2)) == 7);
      ZARR_CHECK_ERROR(z.get("a/c/0", zarr::byte_range{38, 3}), zarr::errc::corrupt_chunk, "expected a byte range within 40 bytes");
    }
  }
}

BOOST_AUTO_TEST_CASE(keeps_the_store_contract_and_commits_on_flush) {
  const auto dir = zarr_test::scratch_dir();
  zarr::zip_store s(dir / "contract.zip", true);
  zarr_test::check_store_contract(s);
  s.flush();
  zarr::zip_store again(dir / "contract.zip");
  BOOST_TEST(again.list("") == s.list(""), boost::test_tools::per_element());
  for (const auto& key : s.list("")) BOOST_TEST(*again.get(key) == *s.get(key));
}

// The zip store is its file's one writer (docs/decisions.md 67): its updates need no
// single_writer and lose nothing between threads; a read-only zip refuses them.
BOOST_AUTO_TEST_CASE(updates_are_the_stores_own_and_lose_nothing_between_threads) {
  const auto dir = zarr_test::scratch_dir();
  const auto s = std::make_shared<zarr::zip_store>(dir / "updates.zip", true);
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&] {
      for (int i = 0; i < 25; ++i)
        s->update("counter", [](const zarr::bytes* current, zarr::bytes& out) {
          out = current != nullptr ? *current : zarr::bytes{};
          out.push_back(std::byte{1});  // one byte more per update
          return false;
        });
    });
  for (auto& t : pool) t.join();
  BOOST_TEST(s->get("counter")->size() == 200u);
  s->update("counter", [](const zarr::bytes*, zarr::bytes&) { return true; });  // erased
  BOOST_TEST(!s->get("counter").has_value());

  // A partial write of a chunk through the library, without single_writer.
  auto a = zarr::array_builder({4, 4}, zarr::data_type::int32).chunk_shape({4, 4}).create(s, "a");
  a.write<std::int32_t>({{1, 1}, {2, 3}}, std::vector<std::int32_t>{5, 6});
  a.write<std::int32_t>({{3, 0}, {4, 1}}, std::vector<std::int32_t>{7});
  s->flush();
  const auto read = zarr::array::open(std::make_shared<zarr::zip_store>(dir / "updates.zip"), "a");
  std::vector<std::int32_t> expected(16, 0);
  expected[5] = 5, expected[6] = 6, expected[12] = 7;
  BOOST_TEST(read.read<std::int32_t>({{0, 0}, {4, 4}}) == expected, boost::test_tools::per_element());

  zarr::zip_store read_only(dir / "updates.zip");
  ZARR_CHECK_ERROR(read_only.update("a/c/0/0", [](const zarr::bytes*, zarr::bytes&) { return false; }),
                   zarr::errc::unsupported, "expected a zip file opened writable");
}

BOOST_AUTO_TEST_CASE(a_zip_we_write_holds_exactly_the_store_keys_for_python_and_zarr_python_2) {
  const auto dir = zarr_test::scratch_dir();
  const auto file = dir / "data.zarr.zip";
  std::vector<std::string> keys;
  {
    auto s = std::make_shared<zarr::zip_store>(file, true);
    zarr::group::create(s, "", {{"title", "zipped"}}, false, 2);
    auto a = zarr::array::create(s, "g/t", zarr::array_metadata::parse_v2(
        R"({"chunks": [2, 3], "compressor": {"id": "zlib", "level": 1}, "dtype": "<i4", "fill_value": -1,
            "filters": null, "order": "C", "shape": [5, 4], "zarr_format": 2})"));
    std::vector<std::int32_t> v(20);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * i) - 50;
    a.write<std::int32_t>(zarr::region::all(a.shape()), v);
    a.write<std::int32_t>({{4, 3}, {5, 4}}, std::vector<std::int32_t>{77});  // rewritten before the commit
    auto b = zarr::array_builder({6}, zarr::data_type::float64).chunk_shape({4}).create(s, "v3");
    b.write<double>({{0}, {6}}, std::vector<double>{0.5, -1, 2, 3, 4, 1e300});
    keys = s->list("");
    s->flush();
  }
  BOOST_TEST(keys.size() == 13u);  // .zgroup, .zattrs, g/.zgroup, g/t/.zarray, its 6 chunks, v3/zarr.json, its 2 chunks
  const auto out = python(dir, R"(
import json, sys, zipfile
import zarr
with zipfile.ZipFile(sys.argv[1]) as z:
    infos = z.infolist()
    assert z.testzip() is None
store = zarr.ZipStore(sys.argv[1], mode="r")
t = zarr.open_array(store, path="g/t", mode="r")
print(json.dumps({"names": sorted(i.filename for i in infos), "methods": sorted({i.compress_type for i in infos}),
                  "values": t[:].ravel().tolist(), "title": zarr.open_group(store, mode="r").attrs["title"]}))
store.close()
)", "'" + file.string() + "'");
  if (!out) return zarr_test::peer_missing("/usr/bin/python3 with zarr-python 2");
  const auto got = json::parse(*out).as_object();
  std::vector<std::string> names;
  for (const auto& n : got.at("names").as_array()) names.emplace_back(n.as_string());
  BOOST_TEST(names == keys, boost::test_tools::per_element());
  BOOST_TEST(got.at("methods") == json::parse("[0]"));  // ZIP_STORED only
  std::vector<std::int64_t> values;
  for (const auto& v : got.at("values").as_array()) values.push_back(v.as_int64());
  std::vector<std::int64_t> expected(20);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<std::int64_t>(i * i) - 50;
  expected[19] = 77;
  BOOST_TEST(values == expected, boost::test_tools::per_element());
  BOOST_TEST(got.at("title") == "zipped");
}

BOOST_AUTO_TEST_CASE(corrupt_archives_and_writes_to_a_read_only_zip_are_errors_naming_the_file) {
  const auto dir = zarr_test::scratch_dir();
  std::ofstream(dir / "not.zip") << "this is no zip file at all, just text long enough";
  ZARR_CHECK_ERROR(zarr::zip_store(dir / "not.zip"), zarr::errc::corrupt_chunk,
                   "not.zip\": expected an end of central directory record (signature 0x6054b50) in the last");
  ZARR_CHECK_ERROR(zarr::zip_store(dir / "absent.zip"), zarr::errc::not_found, "absent.zip\": expected a zip file, got none");
  {
    zarr::zip_store w(dir / "one.zip", true);
    w.set("k", std::vector<std::byte>(10, std::byte{7}));
  }  // committed by the destructor
  zarr::zip_store r(dir / "one.zip");
  BOOST_TEST(r.get("k")->size() == 10u);
  ZARR_CHECK_ERROR(r.set("k", std::vector<std::byte>{}), zarr::errc::unsupported,
                   "one.zip\", key \"k\": expected a zip file opened writable, got one read only");
  // A member whose bytes were damaged fails its CRC-32 on a whole read.
  auto raw = zarr_test::file_text(dir / "one.zip");
  const auto data = 30 + static_cast<std::size_t>(raw[26]) + static_cast<std::size_t>(raw[28]);  // name and extra lengths
  raw[data + 3] = 'x';
  std::ofstream(dir / "bad.zip", std::ios::binary) << raw;
  ZARR_CHECK_ERROR(zarr::zip_store(dir / "bad.zip").get("k"), zarr::errc::corrupt_chunk,
                   "bad.zip\": member \"k\": expected CRC-32 0x");
  // A directory that claims a member past its own start.
  const auto cd = raw.rfind("PK\x01\x02");
  raw[cd + 42] = '\x40';  // the local header offset
  std::ofstream(dir / "past.zip", std::ios::binary) << raw;
  ZARR_CHECK_ERROR(zarr::zip_store(dir / "past.zip"), zarr::errc::corrupt_chunk,
                   "central directory entry 0 (at " + std::to_string(cd) + ") \"k\": expected its 10 bytes at 64 before the central directory, got past it");
}

BOOST_AUTO_TEST_CASE(a_zip_in_the_gateway_is_read_by_ranges_without_a_whole_download) {
  const auto o = zarr_test::fresh_bucket("zips");
  if (!o) return;
  // A zip of 8 MB: one array of 64 chunks of 128 KiB (random-looking, so zstd keeps them big).
  const auto dir = zarr_test::scratch_dir();
  const auto file = dir / "big.zarr.zip";
  std::vector<std::uint64_t> values(1024 * 1024);
  std::uint64_t x = 88172645463325252ull;
  for (auto& v : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = x;
  }
  {
    auto w = std::make_shared<zarr::zip_store>(file, true);
    auto a = zarr::array_builder({1024, 1024}, zarr::data_type::uint64).chunk_shape({128, 128}).create(w, "a");
    a.write<std::uint64_t>(zarr::region::all(a.shape()), values);
    w->flush();
  }
  const auto bytes = zarr_test::file_text(file);
  BOOST_TEST(bytes.size() > 8'000'000u);
  auto s3 = std::make_shared<zarr::s3_store>(*o);
  s3->set("big.zarr.zip", std::as_bytes(std::span(bytes.data(), bytes.size())));
  s3->reset_requests();
  const auto counting = std::make_shared<counting_store>(s3);
  const auto zip = std::make_shared<zarr::zip_store>(counting, "big.zarr.zip");
  const auto a = zarr::array::open(zip, "a");
  const auto got = a.read<std::uint64_t>({{130, 260}, {132, 263}});  // within chunk (1, 2)
  BOOST_TEST(got == (std::vector<std::uint64_t>{values[130 * 1024 + 260], values[130 * 1024 + 261], values[130 * 1024 + 262],
                                                values[131 * 1024 + 260], values[131 * 1024 + 261], values[131 * 1024 + 262]}),
             boost::test_tools::per_element());
  const auto requests = s3->requests();
  // The directory (the file's last 64 KiB with its size first), zarr.json (its local header, its
  // data), the chunk's local header, then only the two rows of the box (the chunk is `bytes`
  // alone, so the chunk's reader reads the ranges it needs, docs/decisions.md 63): one HEAD and
  // five GETs, under 70 KB of 8 MB, less than the one chunk of 128 KiB.
  BOOST_TEST_MESSAGE("zip in S3: " << counting->bytes_read.load() << " bytes read of " << bytes.size() << " in "
                                   << requests.get << " GETs and " << requests.head << " HEADs");
  BOOST_TEST(requests.get <= 5u);
  BOOST_TEST(counting->bytes_read.load() < 70'000u);
  BOOST_TEST(counting->bytes_read.load() < 128 * 128 * 8u);
}

BOOST_AUTO_TEST_SUITE_END()
