// Decoded chunks kept in a shared cache (array_options::cache_chunks, docs/decisions.md 78):
// a window read again, or one that shares chunks with a window read before, asks the store
// only for the chunks not yet held, counted by a store that records each read; a write through
// any array sharing the cache is read back, never a stale chunk; what was written around the
// cache is seen by an array opened after it (recheck_cached::at_open), not with
// recheck_cached::never; chunks larger than an eighth of the cache are not kept.
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "../../support.hpp"
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.cache;
import zarr.store.memory;
import zarr.bytes;
import zarr.nd;

namespace {

// A memory store that counts the values it is asked for (whole or in part), by key.
class counting_store final : public zarr::store {
 public:
  std::optional<zarr::bytes> get(std::string_view key) const override { return counted(key, inner_.get(key)); }
  std::optional<zarr::bytes> get(std::string_view key, zarr::byte_range range) const override {
    return counted(key, inner_.get(key, range));
  }
  std::optional<std::uint64_t> size(std::string_view key) const override { return inner_.size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override { inner_.set(key, value); }
  void erase(std::string_view key) override { inner_.erase(key); }
  std::vector<std::string> list(std::string_view prefix) const override { return inner_.list(prefix); }
  void update(std::string_view key, const zarr::update_function& modify, bool single_writer,
              const zarr::update_policy& policy) override {
    inner_.update(key, modify, single_writer, policy);
  }
  bool atomic_updates() const override { return inner_.atomic_updates(); }

  // The chunk reads (keys below "a/c/") since the last call.
  std::vector<std::string> chunk_reads() {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> r;
    r.swap(reads_);
    return r;
  }

 private:
  std::optional<zarr::bytes> counted(std::string_view key, std::optional<zarr::bytes> value) const {
    const std::lock_guard lock(mutex_);
    if (key.starts_with("a/c/")) reads_.emplace_back(key);
    return value;
  }
  zarr::memory_store inner_;
  mutable std::mutex mutex_;
  mutable std::vector<std::string> reads_;
};

// 64 x 64 uint16 in 16 x 16 chunks, zstd; element [y][x] is y * 64 + x + `plus`.
zarr::array_metadata metadata() {
  return zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array", "shape": [64, 64],
    "data_type": "uint16", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 16]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 7,
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}]})"));
}

std::vector<std::uint16_t> values(const zarr::region& r, int plus) {
  std::vector<std::uint16_t> v;
  for (auto y = r.start[0]; y < r.stop[0]; ++y)
    for (auto x = r.start[1]; x < r.stop[1]; ++x) v.push_back(static_cast<std::uint16_t>(y * 64 + x + plus));
  return v;
}

const zarr::region all{{0, 0}, {64, 64}};

struct fixture {
  std::shared_ptr<counting_store> store = std::make_shared<counting_store>();
  std::shared_ptr<zarr::cache> cache = std::make_shared<zarr::cache>(1 << 20);
  zarr::array_options caching{.cache = cache, .cache_chunks = true};

  fixture() {
    auto a = zarr::array::create(store, "a", metadata());
    const auto v = values(all, 0);
    a.write<std::uint16_t>(all, v);
    static_cast<void>(store->chunk_reads());
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(chunk_cache)

BOOST_FIXTURE_TEST_CASE(a_window_read_again_or_sharing_chunks_with_one_before_reads_only_chunks_not_held, fixture) {
  auto a = zarr::array::open(store, "a", caching);
  const zarr::region w1{{8, 8}, {24, 24}}, w2{{8, 20}, {24, 40}};
  BOOST_TEST(a.read<std::uint16_t>(w1) == values(w1, 0));
  BOOST_TEST(store->chunk_reads().size() == 4u);
  BOOST_TEST(a.read<std::uint16_t>(w1) == values(w1, 0));
  BOOST_TEST(store->chunk_reads().empty());
  // Columns 20-39 meet chunk columns 1 and 2; column 1 is held.
  BOOST_TEST(a.read<std::uint16_t>(w2) == values(w2, 0));
  const auto reads = store->chunk_reads();
  BOOST_TEST(reads == (std::vector<std::string>{"a/c/0/2", "a/c/1/2"}), boost::test_tools::per_element());
}

BOOST_FIXTURE_TEST_CASE(an_absent_chunk_is_held_as_absent, fixture) {
  auto a = zarr::array::create(store, "a", metadata(), true, caching);
  const zarr::region w{{0, 0}, {20, 20}};
  const std::vector<std::uint16_t> fill(400, 7);
  BOOST_TEST(a.read<std::uint16_t>(w) == fill);
  BOOST_TEST(store->chunk_reads().size() == 4u);
  BOOST_TEST(a.read<std::uint16_t>(w) == fill);
  BOOST_TEST(store->chunk_reads().empty());
}

BOOST_FIXTURE_TEST_CASE(a_write_through_any_array_sharing_the_cache_is_read_back, fixture) {
  auto reader = zarr::array::open(store, "a", caching);
  BOOST_TEST(reader.read<std::uint16_t>(all) == values(all, 0));
  BOOST_TEST(store->chunk_reads().size() == 16u);
  // A writer that shares the cache without keeping chunks itself: part of one chunk, then
  // every chunk, then the array made anew (all fill value), then resized.
  auto writer = zarr::array::open(store, "a", {.cache = cache});
  const zarr::region part{{3, 5}, {9, 12}};
  const auto p = values(part, 1000);
  writer.write<std::uint16_t>(part, p);
  auto expected = values(all, 0);
  for (auto y = part.start[0]; y < part.stop[0]; ++y)
    for (auto x = part.start[1]; x < part.stop[1]; ++x) expected[y * 64 + x] += 1000;
  BOOST_TEST(reader.read<std::uint16_t>(all) == expected);
  BOOST_TEST(store->chunk_reads() == std::vector<std::string>{"a/c/0/0"}, boost::test_tools::per_element());

  const auto v = values(all, 2000);
  writer.write<std::uint16_t>(all, v);
  BOOST_TEST(reader.read<std::uint16_t>(all) == values(all, 2000));

  static_cast<void>(zarr::array::create(store, "a", metadata(), true, {.cache = cache}));
  BOOST_TEST(reader.read<std::uint16_t>(all) == std::vector<std::uint16_t>(64 * 64, 7));

  writer.write<std::uint16_t>(all, v);
  static_cast<void>(reader.read<std::uint16_t>(all));
  writer.resize(std::vector<std::uint64_t>{40, 40});
  writer.resize(std::vector<std::uint64_t>{64, 64});  // what lay beyond 40 is fill value now
  expected = values(all, 2000);
  for (std::uint64_t y = 0; y < 64; ++y)
    for (std::uint64_t x = 0; x < 64; ++x)
      if (y >= 40 || x >= 40) expected[y * 64 + x] = 7;
  BOOST_TEST(reader.read<std::uint16_t>(all) == expected);
}

// Written around the cache (as another process would): an array opened before serves what it
// holds; one opened after reads it anew (at_open, the default); with never, held chunks serve
// whenever they were read.
BOOST_FIXTURE_TEST_CASE(what_is_written_around_the_cache_is_seen_by_an_array_opened_after_it, fixture) {
  auto before = zarr::array::open(store, "a", caching);
  BOOST_TEST(before.read<std::uint16_t>(all) == values(all, 0));
  const auto v = values(all, 3000);
  zarr::array::open(store, "a").write<std::uint16_t>(all, v);
  static_cast<void>(store->chunk_reads());

  BOOST_TEST(before.read<std::uint16_t>(all) == values(all, 0));
  BOOST_TEST(store->chunk_reads().empty());
  auto never = caching;
  never.recheck_cached_chunks = zarr::recheck_cached::never;
  BOOST_TEST(zarr::array::open(store, "a", never).read<std::uint16_t>(all) == values(all, 0));
  BOOST_TEST(store->chunk_reads().empty());
  BOOST_TEST(zarr::array::open(store, "a", caching).read<std::uint16_t>(all) == values(all, 3000));
  BOOST_TEST(store->chunk_reads().size() == 16u);
}

BOOST_FIXTURE_TEST_CASE(chunks_larger_than_an_eighth_of_the_cache_are_not_kept, fixture) {
  // A chunk is 512 bytes decoded: a cache of 8 x 512 - 1 bytes keeps none.
  auto small = caching;
  small.cache = std::make_shared<zarr::cache>(8 * 512 - 1);
  auto a = zarr::array::open(store, "a", small);
  const zarr::region w{{0, 0}, {16, 16}};
  BOOST_TEST(a.read<std::uint16_t>(w) == values(w, 0));
  BOOST_TEST(a.read<std::uint16_t>(w) == values(w, 0));
  BOOST_TEST(store->chunk_reads().size() == 2u);
  BOOST_TEST(small.cache->stats().entries == 0u);
}

// Chunk (1, 1) alone is missing from the cache: with read_ahead_chunks = 1 its ring of 8
// comes in the same batch, so that the box of chunks 0-2 then reads nothing more; the ring is
// cut at a quarter of the cache.
BOOST_FIXTURE_TEST_CASE(read_ahead_fetches_the_ring_of_chunks_around_a_window_with_its_own, fixture) {
  auto ahead = caching;
  ahead.read_ahead_chunks = 1;
  auto a = zarr::array::open(store, "a", ahead);
  const zarr::region w{{20, 20}, {28, 28}}, box{{0, 0}, {48, 48}};
  BOOST_TEST(a.read<std::uint16_t>(w) == values(w, 0));
  BOOST_TEST(store->chunk_reads().size() == 9u);
  BOOST_TEST(a.read<std::uint16_t>(box) == values(box, 0));
  BOOST_TEST(store->chunk_reads().empty());
  // A ring that reaches past the array's edge stops there: chunk (3, 3)'s ring is (2, 2),
  // held, (2, 3) and (3, 2).
  const zarr::region corner{{50, 50}, {60, 60}};
  BOOST_TEST(a.read<std::uint16_t>(corner) == values(corner, 0));
  BOOST_TEST(store->chunk_reads() == (std::vector<std::string>{"a/c/3/3", "a/c/2/3", "a/c/3/2"}),
             boost::test_tools::per_element());

  // A cache of 16 chunks' bytes (512 each decoded): at most 2048 bytes, 4 chunks, read ahead.
  ahead.cache = std::make_shared<zarr::cache>(16 * 512);
  auto small = zarr::array::open(store, "a", ahead);
  BOOST_TEST(small.read<std::uint16_t>(w) == values(w, 0));
  BOOST_TEST(store->chunk_reads().size() == 5u);
}

BOOST_AUTO_TEST_SUITE_END()
