// The filesystem store: the store contract, files below the root, and hostile keys and
// symbolic links that try to reach outside the root (refused, the outside left untouched).
#include <boost/test/unit_test.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "contract.hpp"
import zarr.error;
import zarr.store;
import zarr.cache;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.bytes;

namespace fs = std::filesystem;

namespace {

// Every file below `dir` (links not followed) with its content, but the store's lock files
// (docs/decisions.md 64): a snapshot to compare.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const auto rel = it->path().lexically_relative(dir).generic_string();
    if (it->path().filename() == ".zarr-lock") continue;
    if (it->is_symlink()) {
      out[rel] = "-> " + fs::read_symlink(it->path()).string();
    } else if (it->is_regular_file()) {
      std::ifstream in(it->path(), std::ios::binary);
      out[rel] = std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
      out[rel] = "(folder)";
    }
  }
  return out;
}

// Every store operation on `key` is refused with invalid_key and a message containing `why`.
void check_refused(zarr::filesystem_store& s, const std::string& key, const char* why) {
  BOOST_TEST_CONTEXT("key \"" << key << "\"") {
    ZARR_CHECK_ERROR(s.get(key), zarr::errc::invalid_key, why);
    ZARR_CHECK_ERROR(s.get(key, {0, 1}), zarr::errc::invalid_key, why);
    ZARR_CHECK_ERROR(s.get(key, zarr::byte_range::last(1)), zarr::errc::invalid_key, why);
    ZARR_CHECK_ERROR(s.size(key), zarr::errc::invalid_key, why);
    ZARR_CHECK_ERROR(s.set(key, zarr_test::some_bytes(3)), zarr::errc::invalid_key, why);
    ZARR_CHECK_ERROR(s.erase(key), zarr::errc::invalid_key, why);
  }
}

const char* array_json = R"({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
    "codecs": [{"name": "bytes"}]})";

// The entries of a folder but its lock file.
std::ptrdiff_t entries(const fs::path& dir) {
  return std::count_if(fs::directory_iterator(dir), fs::directory_iterator(),
                       [](const fs::directory_entry& e) { return e.path().filename() != ".zarr-lock"; });
}

void write_file(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(filesystem_store)

BOOST_AUTO_TEST_CASE(keeps_the_store_contract) {
  zarr::filesystem_store s(zarr_test::scratch_dir() / "store");
  zarr_test::check_store_contract(s);
}

BOOST_AUTO_TEST_CASE(updates_are_atomic_and_conditional_writes_see_every_change) {
  zarr::filesystem_store s(zarr_test::scratch_dir() / "store");
  zarr_test::check_update_contract(s);
}

BOOST_AUTO_TEST_CASE(lock_files_are_never_listed_nor_keys_and_stay_after_the_writes) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store s(root);
  s.set("zarr.json", zarr_test::some_bytes(4));
  s.update("a/c/0", [](const zarr::bytes*, zarr::bytes& out) {
    out = zarr::bytes(3, std::byte{1});
    return false;
  });
  BOOST_TEST(std::filesystem::is_regular_file(root / ".zarr-lock"));
  BOOST_TEST(std::filesystem::is_regular_file(root / "a" / "c" / ".zarr-lock"));
  BOOST_TEST(std::filesystem::file_size(root / "a" / "c" / ".zarr-lock") == 0u);
  BOOST_TEST(s.list("") == (std::vector<std::string>{"a/c/0", "zarr.json"}), boost::test_tools::per_element());
  BOOST_TEST(s.list_dir("a/c/") == (std::vector<std::string>{"0"}), boost::test_tools::per_element());
  ZARR_CHECK_ERROR(s.set(".zarr-lock", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "lock files");
  ZARR_CHECK_ERROR(static_cast<void>(s.get("a/.zarr-lock")), zarr::errc::invalid_key, "\"a/.zarr-lock\": expected a last segment other than");
  BOOST_TEST(s.remove_temporaries() == 0u);  // lock files are no temporaries
  BOOST_TEST(std::filesystem::is_regular_file(root / "a" / "c" / ".zarr-lock"));
  // Erasing a key whose folder is missing makes no folder for a lock.
  s.erase("b/c/0");
  BOOST_TEST(!std::filesystem::exists(root / "b"));
}

BOOST_AUTO_TEST_CASE(stores_keys_as_files_below_the_root) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store s(root);
  s.set("g/c/0", zarr_test::some_bytes(4));
  BOOST_TEST(fs::file_size(root / "g" / "c" / "0") == 4u);
  // nothing but the value is left behind by the atomic write
  BOOST_TEST(entries(root / "g" / "c") == 1);
}

// docs/decisions.md 37: a durable write flushes the temporary file before the rename, the folder
// after it, and the folder above each folder it made; an erase flushes the folder. A store
// without `durable` flushes nothing.
BOOST_AUTO_TEST_CASE(durable_writes_flush_the_file_and_the_folders_they_change) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store s(root, zarr::filesystem_options{.create = true, .durable = true});
  BOOST_TEST(s.durable());
  s.set("a/b/c", zarr_test::some_bytes(5));  // root (a made), a (b made), the file, b
  BOOST_TEST(s.syncs() == 4u);
  s.set("a/b/d", zarr_test::some_bytes(3));  // the file, b
  BOOST_TEST(s.syncs() == 6u);
  s.set("top", zarr_test::some_bytes(2));  // the file, the root
  BOOST_TEST(s.syncs() == 8u);
  s.erase("a/b/d");  // b
  BOOST_TEST(s.syncs() == 9u);
  s.erase("a/b/absent");  // nothing changed, nothing flushed
  BOOST_TEST(s.syncs() == 9u);
  BOOST_TEST(s.get("a/b/c")->size() == 5u);
  BOOST_TEST(!s.get("a/b/d").has_value());
  // Through a link inside the root (the path-based way), the same flushes.
  fs::create_directory_symlink(root / "a", root / "alias");
  s.set("alias/n/x", zarr_test::some_bytes(1));  // a (n made), the file, n
  BOOST_TEST(s.syncs() == 12u);
  BOOST_TEST(s.get("a/n/x")->size() == 1u);
  // Nothing left behind but the values.
  BOOST_TEST(entries(root / "a" / "b") == 1);

  zarr::filesystem_store plain(root);
  BOOST_TEST(!plain.durable());
  plain.set("a/e/f", zarr_test::some_bytes(1));
  plain.erase("a/b/c");
  BOOST_TEST(plain.syncs() == 0u);
}

BOOST_AUTO_TEST_CASE(refuses_symbolic_links_that_lead_outside_the_root) {
  const auto dir = zarr_test::scratch_dir();
  const auto outside = dir / "outside";
  fs::create_directories(outside);
  std::ofstream(outside / "secret") << "secret";
  const auto root = dir / "store";
  zarr::filesystem_store s(root);
  fs::create_directory_symlink(outside, root / "link");
  ZARR_CHECK_ERROR(static_cast<void>(s.get("link/secret")), zarr::errc::invalid_key, "inside the store root");
  ZARR_CHECK_ERROR(s.set("link/new", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "inside the store root");
  BOOST_TEST(!fs::exists(outside / "new"));
  // a link that stays inside the root is fine
  fs::create_directories(root / "real");
  fs::create_directory_symlink(root / "real", root / "alias");
  s.set("alias/x", zarr_test::some_bytes(2));
  BOOST_TEST(s.get("real/x")->size() == 2u);
}

// A store that remembered a folder it had checked (its path, or an open descriptor of it)
// would write into the folder after it is moved outside the root and a link put in its place.
BOOST_AUTO_TEST_CASE(refuses_a_used_folder_once_it_is_replaced_by_a_link_outside_the_root) {
  const auto dir = zarr_test::scratch_dir();
  const auto outside = dir / "outside";
  fs::create_directories(outside);
  const auto root = dir / "store";
  zarr::filesystem_store s(root);
  for (const auto* link : {"absolute", "relative"}) {
    BOOST_TEST_CONTEXT(link << " link") {
      fs::remove_all(root / "a");
      fs::remove_all(outside / "c");
      s.set("a/c/0", zarr_test::some_bytes(3));  // the folder checked, made and used
      s.set("a/c/1", zarr_test::some_bytes(3));
      s.set("a/c/0", zarr_test::some_bytes(4));
      BOOST_TEST(s.get("a/c/0")->size() == 4u);
      // Moved out of the root (the descriptor of an open folder would follow it), a link left in its place.
      fs::rename(root / "a" / "c", outside / "c");
      if (std::string_view(link) == "absolute")
        fs::create_directory_symlink(outside / "c", root / "a" / "c");
      else
        fs::create_directory_symlink(fs::path("..") / ".." / "outside" / "c", root / "a" / "c");
      const auto before = snapshot(dir);
      ZARR_CHECK_ERROR(s.set("a/c/2", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "inside the store root");
      ZARR_CHECK_ERROR(s.set("a/c/0", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "inside the store root");
      ZARR_CHECK_ERROR(s.set("a/c/new/0", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "inside the store root");
      ZARR_CHECK_ERROR(s.erase("a/c/1"), zarr::errc::invalid_key, "inside the store root");
      ZARR_CHECK_ERROR(static_cast<void>(s.get("a/c/0")), zarr::errc::invalid_key, "inside the store root");
      ZARR_CHECK_ERROR(static_cast<void>(s.size("a/c/0")), zarr::errc::invalid_key, "inside the store root");
      // The same through a new store object of the same root.
      zarr::filesystem_store t(root);
      ZARR_CHECK_ERROR(t.set("a/c/3", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "inside the store root");
      BOOST_TEST((snapshot(dir) == before));  // nothing written, made or removed, inside or outside
      BOOST_TEST(!fs::exists(outside / "c" / "2"));
      BOOST_TEST(fs::file_size(outside / "c" / "0") == 4u);
      fs::remove(root / "a" / "c");
    }
  }
  // A folder higher up replaced the same way, after use: a missing folder below it is not made outside.
  s.set("b/c/d/0", zarr_test::some_bytes(2));
  fs::rename(root / "b", outside / "b");
  fs::create_directory_symlink(outside / "b", root / "b");
  ZARR_CHECK_ERROR(s.set("b/c/e/0", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "inside the store root");
  BOOST_TEST(!fs::exists(outside / "b" / "c" / "e"));
  // Back to a real folder: writes work again.
  fs::remove(root / "b");
  s.set("b/c/e/0", zarr_test::some_bytes(2));
  BOOST_TEST(s.get("b/c/e/0")->size() == 2u);
}

BOOST_AUTO_TEST_CASE(makes_missing_folders_and_follows_links_that_stay_inside_the_root) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store s(root);
  s.set("x/y/z/0", zarr_test::some_bytes(1));
  BOOST_TEST(fs::is_directory(root / "x" / "y" / "z"));
  // relative links inside the root, for a folder on the way and for the file itself
  fs::create_directory_symlink("x", root / "rel");
  s.set("rel/y/z/1", zarr_test::some_bytes(2));
  BOOST_TEST(fs::file_size(root / "x" / "y" / "z" / "1") == 2u);
  s.set("rel/new/0", zarr_test::some_bytes(3));
  BOOST_TEST(fs::file_size(root / "x" / "new" / "0") == 3u);
  fs::create_symlink("0", root / "x" / "y" / "z" / "2");
  s.set("x/y/z/2", zarr_test::some_bytes(5));  // written to the file the link names, the link kept
  BOOST_TEST(fs::is_symlink(root / "x" / "y" / "z" / "2"));
  BOOST_TEST(fs::file_size(root / "x" / "y" / "z" / "0") == 5u);
  s.erase("rel/y/z/1");
  BOOST_TEST(!fs::exists(root / "x" / "y" / "z" / "1"));
  s.erase("rel/none/0");  // absent: not an error
  s.erase("none/0");
  // a file where a folder should be is an I/O error, not a crash or a silent success
  ZARR_CHECK_ERROR(s.set("x/y/z/0/w", zarr_test::some_bytes(1)), zarr::errc::io, "x/y/z/0");
  BOOST_TEST(fs::file_size(root / "x" / "y" / "z" / "0") == 5u);
  // no temporary files left anywhere
  for (const auto& e : fs::recursive_directory_iterator(root))
    BOOST_TEST(e.path().filename().string().find(".zarr-tmp.") == std::string::npos, e.path());
}

BOOST_AUTO_TEST_CASE(refuses_keys_that_escape_the_root_and_leaves_the_outside_untouched) {
  const auto dir = zarr_test::scratch_dir();
  write_file(dir / "victim", "keep");
  write_file(dir / "outside" / "victim", "keep too");
  const auto root = dir / "store";
  zarr::filesystem_store s(root);
  s.set("a/inside", zarr_test::some_bytes(2));
  const auto before = snapshot(dir);
  for (const std::string key : {"../victim", "../outside/victim", "a/../../victim", "a/../inside", "./a/inside", ".."})
    check_refused(s, key, "'.' or '..' segments");
  for (const auto& key : {(dir / "victim").string(), (dir / "outside" / "victim").string(), std::string("/a/inside")})
    check_refused(s, key, "absolute");
  for (const std::string key : {"..\\victim", "a\\..\\..\\victim", "a\\inside"}) check_refused(s, key, "backslashes");
  for (const auto& key : {std::string("../victim\0", 10), std::string("a/inside\0/../../../victim", 26),
                          std::string("\0", 1)})
    check_refused(s, key, "NUL");
  check_refused(s, "a//inside", "empty segments");
  check_refused(s, "", "being empty");
  // no file read, written, created or removed anywhere: inside or outside the root
  BOOST_TEST((snapshot(dir) == before));
  ZARR_CHECK_ERROR(s.list("../"), zarr::errc::invalid_key, "'..'");
  BOOST_TEST(s.list("..").empty());  // a prefix no key starts with (keys have no '..' segment)
}

BOOST_AUTO_TEST_CASE(refuses_a_chunk_file_that_links_outside_the_root) {
  const auto dir = zarr_test::scratch_dir();
  write_file(dir / "outside" / "secret", "secret");
  const auto root = dir / "store";
  zarr::filesystem_store s(root);
  fs::create_directories(root / "a" / "c");
  fs::create_symlink(dir / "outside" / "secret", root / "a" / "c" / "0");
  // a relative link too: ../../../outside/secret from store/a/c/
  fs::create_symlink(fs::path("..") / ".." / ".." / "outside" / "secret", root / "a" / "c" / "1");
  const auto before = snapshot(dir);
  check_refused(s, "a/c/0", "inside the store root");
  check_refused(s, "a/c/1", "inside the store root");
  BOOST_TEST((snapshot(dir) == before));  // the secret unchanged, the links still there
  BOOST_TEST(s.list("a/").empty());       // links are not listed as keys
  // an array whose chunk is such a link fails to read it, naming the key
  s.set("a/zarr.json", std::as_bytes(std::span(std::string_view(array_json))));
  const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(root), "a");
  ZARR_CHECK_ERROR(a.read<std::uint8_t>({{0}, {4}}), zarr::errc::invalid_key, "a/c/0");
}

BOOST_AUTO_TEST_CASE(refuses_a_node_folder_that_links_outside_the_root) {
  const auto dir = zarr_test::scratch_dir();
  write_file(dir / "outside" / "zarr.json", array_json);
  write_file(dir / "outside" / "c" / "0", "abcd");
  const auto root = dir / "store";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  zarr::group::create(s, "");
  fs::create_directory_symlink(dir / "outside", root / "linked");
  const auto before = snapshot(dir / "outside");
  ZARR_CHECK_ERROR(zarr::array::open(s, "linked"), zarr::errc::invalid_key, "inside the store root");
  ZARR_CHECK_ERROR(zarr::group::open(s, "linked"), zarr::errc::invalid_key, "inside the store root");
  ZARR_CHECK_ERROR(zarr::read_node_metadata(*s, "linked"), zarr::errc::invalid_key, "inside the store root");
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(array_json));
  ZARR_CHECK_ERROR(zarr::array::create(s, "linked", meta, true), zarr::errc::invalid_key, "inside the store root");
  ZARR_CHECK_ERROR(zarr::array::create(s, "linked/new", meta), zarr::errc::invalid_key, "inside the store root");
  ZARR_CHECK_ERROR(zarr::group::create(s, "linked", {}, true), zarr::errc::invalid_key, "inside the store root");
  BOOST_TEST((snapshot(dir / "outside") == before));  // and the link still leads there
  BOOST_TEST(fs::is_symlink(root / "linked"));
  BOOST_TEST(zarr::group::open(s, "").children().empty());  // the link is not a child
}

BOOST_AUTO_TEST_CASE(refuses_a_zarr_json_that_links_outside_the_root) {
  const auto dir = zarr_test::scratch_dir();
  write_file(dir / "outside" / "zarr.json", array_json);
  const auto root = dir / "store";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  fs::create_directories(root / "b");
  fs::create_symlink(dir / "outside" / "zarr.json", root / "b" / "zarr.json");
  const auto before = snapshot(dir / "outside");
  ZARR_CHECK_ERROR(zarr::array::open(s, "b"), zarr::errc::invalid_key, "store key \"b/zarr.json\"");
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(array_json));
  ZARR_CHECK_ERROR(zarr::array::create(s, "b", meta, true), zarr::errc::invalid_key, "inside the store root");
  ZARR_CHECK_ERROR(zarr::group::create(s, "b", {}, true), zarr::errc::invalid_key, "inside the store root");
  BOOST_TEST((snapshot(dir / "outside") == before));  // and the link still leads there
  BOOST_TEST(fs::is_symlink(root / "b" / "zarr.json"));
}

BOOST_AUTO_TEST_CASE(fails_to_open_a_missing_root_without_create) {
  ZARR_CHECK_ERROR(zarr::filesystem_store(zarr_test::scratch_dir() / "absent", false), zarr::errc::not_found,
                   "expected a directory");
}

BOOST_AUTO_TEST_CASE(never_lists_temporary_files_and_removes_them_on_request) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store s(root);
  s.set("a/c/0", zarr_test::some_bytes(4));
  s.set("a/zarr.json", zarr_test::some_bytes(2));
  // What writers killed between writing and renaming leave, one alone in its folder.
  std::ofstream(root / "a" / "c" / "0.zarr-tmp.77.0") << "x";
  std::ofstream(root / "a" / "zarr.json.zarr-tmp.77.1") << "{";
  fs::create_directories(root / "a" / "c" / "5");
  std::ofstream(root / "a" / "c" / "5" / "3.zarr-tmp.78.0") << "x";
  BOOST_TEST(s.list("") == (std::vector<std::string>{"a/c/0", "a/zarr.json"}), boost::test_tools::per_element());
  BOOST_TEST(s.list_dir("a/c/") == (std::vector<std::string>{"0"}), boost::test_tools::per_element());
  BOOST_TEST(s.get("a/c/0")->size() == 4u);
  BOOST_TEST(s.remove_temporaries() == 3u);
  BOOST_TEST(s.remove_temporaries() == 0u);
  BOOST_TEST(!fs::exists(root / "a" / "c" / "0.zarr-tmp.77.0"));
  BOOST_TEST(!fs::exists(root / "a" / "c" / "5" / "3.zarr-tmp.78.0"));
  BOOST_TEST(s.list("") == (std::vector<std::string>{"a/c/0", "a/zarr.json"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rejects_keys_that_look_like_temporary_files) {
  zarr::filesystem_store s(zarr_test::scratch_dir() / "store");
  ZARR_CHECK_ERROR(s.set("a/c/0.zarr-tmp.1.2", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "temporary files");
  ZARR_CHECK_ERROR(static_cast<void>(s.get("a.zarr-tmp.x/b")), zarr::errc::invalid_key, ".zarr-tmp.");
  BOOST_TEST(s.list("").empty());
}

// Snapshots keep their file open for the next snapshot of the key; a change made by anyone
// else (another store, another program) must still show, as a new version, and a read pinned
// to the old version (snapshot_at, what a cache does) must fail as value_changed.
BOOST_AUTO_TEST_CASE(a_kept_snapshot_never_outlives_a_change_of_its_file) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store reader(root), writer(root);
  writer.set("c/0", zarr_test::some_bytes(8));
  const auto changed_since = [&](const zarr::value_version& v) {
    BOOST_CHECK_EXCEPTION(static_cast<void>(reader.snapshot_at("c/0", v)), zarr::value_changed, [](const zarr::value_changed& e) {
      return e.code() == zarr::errc::io && std::string_view(e.what()).find("expected the version read before") != std::string_view::npos;
    });
  };
  const auto first = reader.snapshot("c/0");
  const auto v1 = first->version();
  BOOST_TEST(!v1.absent());
  BOOST_TEST(reader.snapshot("c/0")->version().tag == v1.tag);  // the same version
  BOOST_TEST(zarr_test::same(reader.snapshot_at("c/0", v1)->get(std::nullopt), zarr_test::some_bytes(8)));
  BOOST_TEST(reader.get_versioned("c/0").version.tag == v1.tag);
  // rewritten through another store object: a new file renamed over the old one
  auto next = zarr_test::some_bytes(8);
  next[0] = std::byte{0xAB};
  writer.set("c/0", next);
  const auto after_rename = reader.snapshot("c/0");
  BOOST_TEST(zarr_test::same(after_rename->get(std::nullopt), next));
  const auto v2 = after_rename->version();
  BOOST_TEST(v2.tag != v1.tag);
  changed_since(v1);
  BOOST_TEST(zarr_test::same(reader.snapshot_at("c/0", v2)->get(std::nullopt), next));
  // changed in place by another program, same size: the modification time tells
  auto changed = next;
  changed[1] = std::byte{0xCD};
  {
    std::fstream f(root / "c" / "0", std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(1);
    f.put(static_cast<char>(0xCD));
    f.close();
    struct timespec times[2] = {{0, UTIME_OMIT}, {1234567, 0}};
    BOOST_REQUIRE(::utimensat(AT_FDCWD, (root / "c" / "0").c_str(), times, 0) == 0);
    const auto after_edit = reader.snapshot("c/0");
    BOOST_TEST(zarr_test::same(after_edit->get(std::nullopt), changed));
    BOOST_TEST(after_edit->version().tag != v2.tag);
    changed_since(v2);
  }
  // removed by someone else: absent, not the kept file
  fs::remove(root / "c" / "0");
  BOOST_TEST(reader.snapshot("c/0") == nullptr);
  BOOST_TEST(!reader.get("c/0").has_value());
  changed_since(v2);
  // a snapshot taken before stays readable (the edit in place changed its file too)
  BOOST_TEST(zarr_test::same(after_rename->get(std::nullopt), changed));
  BOOST_TEST(zarr_test::same(first->get(std::nullopt), zarr_test::some_bytes(8)));
}

// Through the array, with and without a cache of shard indexes: an inner chunk read after the
// shard was rewritten by another writer comes from the new shard (its index decoded anew),
// never from the cached index.
static void read_after_another_writer_rewrote_the_shard(const std::filesystem::path& root, bool cached) {
  const char* sharded = R"({"zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "uint8",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
    "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2],
      "codecs": [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 1}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]})";
  auto c = cached ? std::make_shared<zarr::cache>(1 << 20) : nullptr;
  auto reading = zarr::array::create(std::make_shared<zarr::filesystem_store>(root), "",
                                     zarr::array_metadata::parse(zarr::parse_json(sharded)), false, {.cache = c});
  const std::vector<std::uint8_t> first{1, 2, 3, 4, 5, 6, 7, 8};
  reading.write<std::uint8_t>({{0}, {8}}, first);
  BOOST_TEST((reading.read<std::uint8_t>({{4}, {6}}) == std::vector<std::uint8_t>{5, 6}));
  BOOST_TEST((reading.read<std::uint8_t>({{2}, {4}}) == std::vector<std::uint8_t>{3, 4}));
  if (c) BOOST_TEST(c->stats().hits == 1u);  // the index decoded at the first read served the second
  // another writer: the first two inner chunks now hold only the fill value and are not
  // stored, so the inner chunks move and the old index would point at the wrong bytes
  auto writing = zarr::array::open(std::make_shared<zarr::filesystem_store>(root), "");
  writing.write<std::uint8_t>({{0}, {8}}, std::vector<std::uint8_t>{0, 0, 0, 0, 9, 10, 11, 12});
  BOOST_TEST((reading.read<std::uint8_t>({{4}, {6}}) == std::vector<std::uint8_t>{9, 10}));
  if (c) BOOST_TEST(c->stats().stale == 1u);  // noticed: the file's identity changed
  BOOST_TEST((reading.read<std::uint8_t>({{6}, {8}}) == std::vector<std::uint8_t>{11, 12}));
}

BOOST_AUTO_TEST_CASE(a_sharded_read_after_another_writer_rewrote_the_shard_sees_the_new_shard) {
  const auto dir = zarr_test::scratch_dir();
  read_after_another_writer_rewrote_the_shard(dir / "store", false);
  read_after_another_writer_rewrote_the_shard(dir / "cached", true);
}

BOOST_AUTO_TEST_SUITE_END()
