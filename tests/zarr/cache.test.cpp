// zarr.cache: the cache of derived values (bounded in bytes, least recently used out first,
// entries kept apart by store, key and owner) and the store chunk reader that pins a cached
// entry's version, on the filesystem store (its versions: file identity, size, mtime).
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include "store/contract.hpp"
import zarr.cache;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.bytes;

namespace {

std::shared_ptr<const void> value_of(int n) { return std::make_shared<const int>(n); }
int int_of(const std::shared_ptr<const void>& p) { return *static_cast<const int*>(p.get()); }

// What a shard codec does: derives from a range of the value (here its first byte), counting
// how often it had to.
struct first_byte_deriver {
  zarr::derivation_owner owner;
  int made = 0;
  std::shared_ptr<const void> operator()(const zarr::chunk_reader& r) {
    return r.derived(owner.id(), [&]() -> zarr::chunk_reader::derived_value {
      ++made;
      const auto b = r.read(zarr::byte_range{0, 1, false});
      if (!b) return {};
      return {value_of(static_cast<int>((*b)[0])), sizeof(int)};
    });
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cache)

BOOST_AUTO_TEST_CASE(keeps_entries_apart_by_store_key_and_owner) {
  zarr::cache c(1 << 20);
  c.put(1, "a/c/0", 7, {value_of(10), {"v1"}}, 4);
  c.put(2, "a/c/0", 7, {value_of(20), {"v1"}}, 4);
  c.put(1, "a/c/0", 8, {value_of(30), {"v1"}}, 4);
  c.put(1, "a/c/1", 7, {value_of(40), {"v2"}}, 4);
  BOOST_TEST(int_of(c.find(1, "a/c/0", 7)->value) == 10);
  BOOST_TEST(int_of(c.find(2, "a/c/0", 7)->value) == 20);
  BOOST_TEST(int_of(c.find(1, "a/c/0", 8)->value) == 30);
  const auto e = c.find(1, "a/c/1", 7);
  BOOST_TEST(int_of(e->value) == 40);
  BOOST_TEST(e->version.tag == "v2");
  BOOST_TEST(c.find(3, "a/c/0", 7) == nullptr);
  // ids are not confused by keys that contain the separator
  BOOST_TEST(c.find(1, "7:a/c/0", 1) == nullptr);
  c.put(1, "a/c/0", 7, {value_of(11), {"v3"}}, 4);  // replaced
  BOOST_TEST(int_of(c.find(1, "a/c/0", 7)->value) == 11);
  c.drop(1, "a/c/0", 7);
  BOOST_TEST(c.find(1, "a/c/0", 7) == nullptr);
  const auto s = c.stats();
  BOOST_TEST(s.entries == 3u);
  BOOST_TEST(s.hits == 5u);
  BOOST_TEST(s.misses == 3u);
  BOOST_TEST(s.stale == 1u);
}

// A reader takes the epoch, reads, and keeps what it read only if no write came between.
BOOST_AUTO_TEST_CASE(what_was_read_before_a_write_is_not_kept_after_it) {
  zarr::cache c(1 << 20);
  c.put(1, "a/c/0", 7, {value_of(10), {}}, 4);
  const auto before = c.epoch();
  c.forget_written(1, "a/c/0", 7);
  BOOST_TEST(c.find(1, "a/c/0", 7) == nullptr);
  BOOST_TEST(!c.put_unless_written(1, "a/c/0", 7, {value_of(10), {}}, 4, before));
  BOOST_TEST(c.find(1, "a/c/0", 7) == nullptr);
  const auto after = c.epoch();
  BOOST_TEST(after != before);
  BOOST_TEST(c.put_unless_written(1, "a/c/0", 7, {value_of(11), {}}, 4, after));
  BOOST_TEST(int_of(c.find(1, "a/c/0", 7)->value) == 11);
  c.forget_written(1, "a/c/0", 7);  // a write after the put drops it
  BOOST_TEST(c.find(1, "a/c/0", 7) == nullptr);
}

BOOST_AUTO_TEST_CASE(stays_within_its_bound_letting_go_of_the_least_recently_used) {
  // Each entry costs its size and its bookkeeping; 10 entries of 1000 bytes need more than
  // 10000 bytes, so a bound of 10000 keeps fewer, the most recently used.
  zarr::cache c(10000);
  for (int k = 0; k < 10; ++k) c.put(1, "k" + std::to_string(k), 1, {value_of(k), {"v"}}, 1000);
  auto s = c.stats();
  BOOST_TEST(s.bytes <= 10000u);
  BOOST_TEST(s.entries == 8u);  // 8 x (1000 + 2 x (2 + 16) + 1 + 128) = 9320; 9 would be 10485
  BOOST_TEST(c.find(1, "k0", 1) == nullptr);
  BOOST_TEST(c.find(1, "k1", 1) == nullptr);
  BOOST_TEST(c.find(1, "k2", 1) != nullptr);  // now the most recently used
  c.put(1, "k10", 1, {value_of(10), {"v"}}, 1000);
  BOOST_TEST(c.find(1, "k2", 1) != nullptr);
  BOOST_TEST(c.find(1, "k3", 1) == nullptr);  // the least recently used went
  // an entry larger than the bound is not kept, and pushes nothing out
  c.put(1, "big", 1, {value_of(0), {"v"}}, 20000);
  BOOST_TEST(c.find(1, "big", 1) == nullptr);
  BOOST_TEST(c.stats().entries == 8u);
  zarr::cache none(0);
  none.put(1, "k", 1, {value_of(1), {"v"}}, 1);
  BOOST_TEST(none.find(1, "k", 1) == nullptr);
}

BOOST_AUTO_TEST_CASE(many_threads_share_one_cache) {
  zarr::cache c(64 * 1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 2000; ++i) {
        const auto key = "k" + std::to_string((i * 7 + t) % 200);
        if (const auto e = c.find(1, key, 1)) {
          if (int_of(e->value) != std::stoi(key.substr(1))) throw std::logic_error("a value under the wrong key");
        } else {
          c.put(1, key, 1, {value_of(std::stoi(key.substr(1))), {"v"}}, 900);
        }
      }
    });
  for (auto& t : threads) t.join();
  const auto s = c.stats();
  BOOST_TEST(s.bytes <= 64000u);
  BOOST_TEST(s.hits + s.misses == 16000u);
}

// Through the reader: derived once per version of the file, pinned at that version; a file
// rewritten (or removed) since is noticed, its entry dropped, and derived anew from the new file.
BOOST_AUTO_TEST_CASE(a_reader_derives_once_per_version_and_notices_a_rewritten_value) {
  zarr::filesystem_store s(zarr_test::scratch_dir() / "store");
  const std::string key = "a/c/0";
  s.set(key, std::vector<std::byte>{std::byte{5}, std::byte{6}});
  zarr::cache c(1 << 20);
  first_byte_deriver d;
  const auto derive = [&] { return d(zarr::store_chunk_reader(s, key, &c)); };
  BOOST_TEST(int_of(derive()) == 5);
  BOOST_TEST(int_of(derive()) == 5);
  BOOST_TEST(d.made == 1);
  {  // a reader pinned by the cache reads the version the entry was derived from
    const zarr::store_chunk_reader r(s, key, &c);
    BOOST_TEST(int_of(d(r)) == 5);
    BOOST_TEST(static_cast<int>((*r.read(zarr::byte_range{1, 1, false}))[0]) == 6);
    BOOST_TEST(!r.found_stale());
  }
  BOOST_TEST(d.made == 1);
  s.set(key, std::vector<std::byte>{std::byte{9}, std::byte{6}});  // another version
  BOOST_TEST(int_of(derive()) == 9);
  BOOST_TEST(d.made == 2);
  BOOST_TEST(c.stats().stale == 1u);
  BOOST_TEST(int_of(derive()) == 9);
  BOOST_TEST(d.made == 2);
  // without a cache: derived every time
  const auto uncached = [&] { return d(zarr::store_chunk_reader(s, key)); };
  BOOST_TEST(int_of(uncached()) == 9);
  BOOST_TEST(d.made == 3);
  // removed: absent, nothing kept
  s.erase(key);
  BOOST_TEST(derive() == nullptr);
  BOOST_TEST(c.stats().entries == 0u);
}

// A store without versions (memory) has nothing to pin: its values are never cached.
BOOST_AUTO_TEST_CASE(values_of_a_store_without_versions_are_never_kept) {
  zarr::memory_store s;
  const std::string key = "k";
  s.set(key, std::vector<std::byte>{std::byte{3}});
  zarr::cache c(1 << 20);
  first_byte_deriver d;
  BOOST_TEST(int_of(d(zarr::store_chunk_reader(s, key, &c))) == 3);
  BOOST_TEST(int_of(d(zarr::store_chunk_reader(s, key, &c))) == 3);
  BOOST_TEST(d.made == 2);
  BOOST_TEST(c.stats().entries == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
