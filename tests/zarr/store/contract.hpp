// The behaviour every store must have, run against each implementation.
#pragma once
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <optional>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.store;
import zarr.builder;
import zarr.bytes;

namespace zarr_test {

inline std::vector<std::byte> some_bytes(std::size_t n, int seed = 1) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 31 + static_cast<std::size_t>(seed)) & 0xff);
  return v;
}

inline bool same(const zarr::bytes& a, const std::vector<std::byte>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// `keeps_versions`: a snapshot still reads the version it was taken of after an overwrite or an
// erase (memory, directory). An object store without versioning cannot: its snapshots pin
// the version (ETag) and report the change instead of mixing two versions.
inline void check_store_contract(zarr::store& s, bool keeps_versions = true) {
  BOOST_TEST(!s.get("zarr.json").has_value());
  BOOST_TEST(!s.size("zarr.json").has_value());
  const auto value = some_bytes(100);
  s.set("a/c/0/1", value);
  BOOST_TEST(same(*s.get("a/c/0/1"), value));
  BOOST_TEST(*s.size("a/c/0/1") == 100u);
  const auto part = *s.get("a/c/0/1", {10, 5});
  BOOST_TEST(same(part, std::vector<std::byte>(value.begin() + 10, value.begin() + 15)));
  const auto tail = *s.get("a/c/0/1", zarr::byte_range::last(7));
  BOOST_TEST(same(tail, std::vector<std::byte>(value.end() - 7, value.end())));
  ZARR_CHECK_ERROR((s.get("a/c/0/1", {95, 10})), zarr::errc::corrupt_chunk, "a/c/0/1");

  // A snapshot keeps the version it was taken of, through an overwrite and an erase.
  BOOST_TEST(s.snapshot("a/c/9") == nullptr);
  const auto before = s.snapshot("a/c/0/1");
  BOOST_TEST_REQUIRE(before != nullptr);
  const auto other = some_bytes(3, 7);
  s.set("a/c/0/1", other);  // overwrite
  BOOST_TEST(same(*s.get("a/c/0/1"), other));
  if (keeps_versions) {
    BOOST_TEST(same(before->get(std::nullopt), value));
    BOOST_TEST(same(before->get(zarr::byte_range::last(7)), std::vector<std::byte>(value.end() - 7, value.end())));
    ZARR_CHECK_ERROR(before->get(zarr::byte_range{95, 10}), zarr::errc::corrupt_chunk, "a/c/0/1");
  } else {
    ZARR_CHECK_ERROR(before->get(std::nullopt), zarr::errc::io, "changed while being read");
    ZARR_CHECK_ERROR(before->get(zarr::byte_range::last(7)), zarr::errc::io, "changed while being read");
  }
  BOOST_TEST(same(s.snapshot("a/c/0/1")->get(zarr::byte_range{1, 2}), std::vector<std::byte>(other.begin() + 1, other.end())));
  ZARR_CHECK_ERROR(s.snapshot("a/c/0/1")->get(zarr::byte_range{2, 10}), zarr::errc::corrupt_chunk, "a/c/0/1");
  s.set("a/zarr.json", some_bytes(2));
  s.set("b/zarr.json", some_bytes(2));
  s.set("zarr.json", some_bytes(2));
  s.set("a/c/1/0", std::vector<std::byte>{});
  BOOST_TEST(s.get("a/c/1/0")->empty());

  const auto keys = s.list("a/");
  BOOST_TEST(keys == (std::vector<std::string>{"a/c/0/1", "a/c/1/0", "a/zarr.json"}), boost::test_tools::per_element());
  BOOST_TEST(s.list("a/c/0").size() == 1u);
  BOOST_TEST(s.list("").size() == 5u);
  BOOST_TEST(s.list_dir("") == (std::vector<std::string>{"a", "b", "zarr.json"}), boost::test_tools::per_element());
  BOOST_TEST(s.list_dir("a/") == (std::vector<std::string>{"c", "zarr.json"}), boost::test_tools::per_element());

  const auto erased = s.snapshot("a/c/0/1");
  s.erase("a/c/0/1");
  if (keeps_versions) BOOST_TEST(same(erased->get(std::nullopt), other));
  else ZARR_CHECK_ERROR(erased->get(std::nullopt), zarr::errc::io, "changed while being read");
  s.erase("a/c/0/1");  // absent: not an error
  BOOST_TEST(!s.get("a/c/0/1").has_value());
  BOOST_TEST(s.list("a/c/").size() == 1u);

  // Batches (store::get_many, set_many): each item done once, an erase among the writes,
  // absent keys absent, a bad key refused; nothing else changed.
  const auto v1 = some_bytes(10, 3), v2 = some_bytes(20, 4);
  s.set("batch/3", v1);
  const std::vector<zarr::store::set_item> writes{{.key = "batch/1", .value = v1, .erase = false},
                                                  {.key = "batch/2", .value = v2, .erase = false},
                                                  {.key = "batch/3", .value = {}, .erase = true}};
  std::size_t done = 0;
  s.set_many(writes, [&](std::size_t) { ++done; });
  BOOST_TEST(done == 3u);
  std::vector<zarr::store::get_item> reads(4);
  for (std::size_t i = 0; i < reads.size(); ++i) reads[i].key = "batch/" + std::to_string(i + 1);
  done = 0;
  s.get_many(reads, [&](std::size_t) { ++done; });
  BOOST_TEST(done == 4u);
  BOOST_TEST((reads[0].found && same(reads[0].value, v1)));
  BOOST_TEST((reads[1].found && same(reads[1].value, v2)));
  BOOST_TEST(!reads[2].found);
  BOOST_TEST(!reads[3].found);
  std::vector<zarr::store::get_item> bad(1);
  bad[0].key = "batch/../x";
  ZARR_CHECK_ERROR(s.get_many(bad), zarr::errc::invalid_key, "'..'");
  s.set_many(std::vector<zarr::store::set_item>{{.key = "batch/1", .value = {}, .erase = true},
                                                {.key = "batch/2", .value = {}, .erase = true}});
  BOOST_TEST(s.list("batch/").empty());

  ZARR_CHECK_ERROR((s.get("../x")), zarr::errc::invalid_key, "'..'");
  ZARR_CHECK_ERROR(s.set("/abs", value), zarr::errc::invalid_key, "absolute");

  // Keys with spaces, non-ASCII UTF-8 and characters that URLs and S3's signature escape go
  // in and come back as they are: value, size, range, listing, erase.
  const std::vector<std::string> names{"names/a b/c d", "names/\xC3\xBC\xC3\xB1/\xE6\x97\xA5\xE6\x9C\xAC.bin",
                                       "names/+=&?#%20~*'()!$,;:@"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    BOOST_TEST_CONTEXT("key " << names[i]) {
      const auto v = some_bytes(10 + i, static_cast<int>(i));
      s.set(names[i], v);
      BOOST_TEST(same(s.get(names[i]).value_or(zarr::bytes{}), v));
      BOOST_TEST(s.size(names[i]).value_or(0) == v.size());
      BOOST_TEST(same(s.get(names[i], {2, 3}).value_or(zarr::bytes{}), std::vector<std::byte>(v.begin() + 2, v.begin() + 5)));
    }
  }
  auto sorted = names;
  std::sort(sorted.begin(), sorted.end());
  BOOST_TEST(s.list("names/") == sorted, boost::test_tools::per_element());
  for (const auto& name : names) s.erase(name);
  BOOST_TEST(s.list("names/").empty());
}

// Versions, conditional writes and store::update (docs/decisions.md 64), for a store whose
// atomic_updates() is true: `threads` threads each add 1 to a counter `per_thread` times
// through update(), and none of the additions is lost.
inline void check_update_contract(zarr::store& s, int threads = 8, int per_thread = 25) {
  BOOST_TEST_REQUIRE(s.atomic_updates());
  const auto absent = s.get_versioned("u/k");
  BOOST_TEST(!absent.value.has_value());
  BOOST_TEST(absent.version.absent());
  const auto one = some_bytes(10, 1), two = some_bytes(10, 2), three = some_bytes(20, 3);
  BOOST_TEST(s.set_if("u/k", one, absent.version));   // created
  BOOST_TEST(!s.set_if("u/k", two, absent.version));  // no longer absent
  const auto v1 = s.get_versioned("u/k");
  BOOST_TEST_REQUIRE(v1.value.has_value());
  BOOST_TEST(same(*v1.value, one));
  BOOST_TEST(!v1.version.absent());
  BOOST_TEST(s.set_if("u/k", two, v1.version));
  BOOST_TEST(!s.set_if("u/k", three, v1.version));  // changed since v1
  BOOST_TEST(same(*s.get("u/k"), two));
  const auto v2 = s.get_versioned("u/k");
  BOOST_TEST((v2.version != v1.version));
  s.set("u/k", three);  // a plain write changes the version too
  BOOST_TEST(!s.set_if("u/k", one, v2.version));
  BOOST_TEST(same(*s.get("u/k"), three));
  if (s.erases_conditionally()) {
    BOOST_TEST(!s.erase_if("u/k", v2.version));
    BOOST_TEST(s.get("u/k").has_value());
    BOOST_TEST(s.erase_if("u/k", s.get_versioned("u/k").version));
    BOOST_TEST(!s.get("u/k").has_value());
  }
  // update(): an erase asked of an absent key leaves it absent; then the counter.
  s.update("u/gone", [](const zarr::bytes* current, zarr::bytes&) {
    BOOST_TEST(current == nullptr);
    return true;
  });
  BOOST_TEST(!s.get("u/gone").has_value());
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i)
        s.update("u/counter", [](const zarr::bytes* current, zarr::bytes& out) {
          std::uint64_t n = 0;
          if (current != nullptr) std::memcpy(&n, current->data(), sizeof n);
          ++n;
          out.resize(sizeof n);
          std::memcpy(out.data(), &n, sizeof n);
          return false;
        });
    });
  for (auto& t : pool) t.join();
  std::uint64_t n = 0;
  const auto stored = s.get("u/counter");
  BOOST_TEST_REQUIRE(stored.has_value());
  std::memcpy(&n, stored->data(), sizeof n);
  BOOST_TEST(n == static_cast<std::uint64_t>(threads * per_thread));
}

}  // namespace zarr_test
