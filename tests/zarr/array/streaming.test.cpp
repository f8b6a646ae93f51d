// Reads and writes of many chunks through a store that keeps requests in flight
// (store::io_concurrency above 1, docs/decisions.md 51): one store batch streams the whole
// read or write, a window of chunks ahead of the decoding (or behind the encoding) threads
// and no more, and a failure on either
// side stops the other. The store here is a stand-in over memory whose batches behave like an
// object store's, so that the window can be watched; tests/zarr/store/s3.test.cpp has the real one.
#include <boost/test/unit_test.hpp>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.store;
import zarr.array;
import zarr.builder;
import zarr.parallel;
import zarr.store.memory;
import zarr.bytes;
import zarr.nd;

namespace {

// Up to `in_flight` items of a batch under way, `ready` asked before each starts (in order),
// the oldest completing first. It counts batches and started items and notes the first item
// that `ready` held back.
class window_store final : public zarr::store {
 public:
  explicit window_store(std::size_t in_flight) : in_flight_(in_flight) {}

  zarr::memory_store inner;
  std::optional<std::string> failing_key;  // reading it fails (io)
  mutable std::atomic<std::size_t> batches{0}, started{0};
  mutable std::atomic<std::size_t> first_held_back{std::numeric_limits<std::size_t>::max()};

  [[nodiscard]] std::size_t io_concurrency() const noexcept override { return in_flight_; }
  void get_many(std::span<get_item> items, const item_done& done, const item_ready& ready) const override {
    ++batches;
    std::deque<std::size_t> running;
    std::size_t next = 0;
    while (next < items.size() || !running.empty()) {
      while (running.size() < in_flight_ && next < items.size()) {
        if (ready && !ready(next)) {
          if (first_held_back.load() == std::numeric_limits<std::size_t>::max()) first_held_back = next;
          break;
        }
        running.push_back(next++);
        ++started;
      }
      if (running.empty()) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      const auto i = running.front();
      running.pop_front();
      if (items[i].key == failing_key)
        throw zarr::error(zarr::errc::io, "window_store, key \"" + items[i].key + "\": expected an answer, got none");
      items[i].found = inner.get_into(items[i].key, items[i].value);
      if (done) done(i);
    }
  }

  // Stores nothing until the encoding side has stopped getting ahead (nothing more ready for
  // 50 ms), noting how many items were ready then; then stores them in order.
  std::optional<std::size_t> ready_while_held;
  void set_many(std::span<const set_item> items, const item_done& done, const item_ready& ready) override {
    ++batches;
    if (ready) {
      std::size_t count = 0;
      for (int quiet = 0, tries = 0; quiet < 50 && tries < 5000; ++tries) {
        std::size_t now = 0;
        while (now < items.size() && ready(now)) ++now;
        quiet = now == count ? quiet + 1 : 0;
        count = now;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      ready_while_held = count;
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      while (ready && !ready(i)) std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++started;
      if (items[i].erase)
        inner.erase(items[i].key);
      else
        inner.set(items[i].key, items[i].value);
      if (done) done(i);
    }
  }

  [[nodiscard]] std::optional<zarr::bytes> get(std::string_view key) const override { return inner.get(key); }
  [[nodiscard]] std::optional<zarr::bytes> get(std::string_view key, zarr::byte_range range) const override {
    return inner.get(key, range);
  }
  [[nodiscard]] std::optional<std::uint64_t> size(std::string_view key) const override { return inner.size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override { inner.set(key, value); }
  void erase(std::string_view key) override { inner.erase(key); }
  [[nodiscard]] std::vector<std::string> list(std::string_view prefix) const override { return inner.list(prefix); }
  void update(std::string_view key, const zarr::update_function& modify, bool single_writer,
              const zarr::update_policy& policy) override {
    inner.update(key, modify, single_writer, policy);
  }
  [[nodiscard]] bool atomic_updates() const override { return inner.atomic_updates(); }

 private:
  std::size_t in_flight_;
};

struct one_thread {
  one_thread() { zarr::set_concurrency(1); }
  ~one_thread() { zarr::set_concurrency(0); }
};

std::vector<std::uint16_t> iota_values(std::size_t n) {
  std::vector<std::uint16_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint16_t>(i * 7 + 1);
  return v;
}

// 64 chunks of 16 x 16 uint16 (zstd), written through `s`.
zarr::array sixty_four_chunks(const std::shared_ptr<window_store>& s, const std::vector<std::uint16_t>& values) {
  auto a = zarr::array_builder({128, 128}, zarr::data_type::uint16)
               .chunk_shape({16, 16})
               .codecs({zarr::codecs::zstd{.level = 1}})
               .create(s, "a");
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);
  return a;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(streaming)

// With 4 in flight the window is 16 chunks (four rounds of requests): while the one decoding
// thread is held at its first chunk, the store may start 16 + 1 chunks and no more; the whole
// read is one batch, not one per window.
BOOST_AUTO_TEST_CASE(a_read_is_one_batch_that_keeps_a_window_of_chunks_ahead_of_decoding) {
  const one_thread threads;
  const auto s = std::make_shared<window_store>(4);
  const auto values = iota_values(128 * 128);
  const auto a = sixty_four_chunks(s, values);
  s->batches = 0;
  s->started = 0;
  std::vector<std::uint16_t> back(values.size());
  a.read(zarr::region::all(a.shape()), std::as_writable_bytes(std::span(back)),
         {.progress = [&](std::uint64_t done, std::uint64_t) {
           // Hold the decoding thread at its first chunk until the store waits.
           for (int i = 0; done == 1 && i < 5000 && s->first_held_back.load() > 64; ++i)
             std::this_thread::sleep_for(std::chrono::milliseconds(1));
           return true;
         }});
  BOOST_TEST(back == values, boost::test_tools::per_element());
  BOOST_TEST(s->batches.load() == 1u);
  BOOST_TEST(s->started.load() == 64u);
  // A window of 16 from the chunks decoded: none yet, or the first.
  BOOST_TEST(s->first_held_back.load() >= 16u);
  BOOST_TEST(s->first_held_back.load() <= 17u);
}

// A write streams as a read does: one batch for the whole write (not one per window), the
// encoding thread at most a window of chunks (16 with 4 in flight) ahead of those stored.
BOOST_AUTO_TEST_CASE(a_write_is_one_batch_that_encodes_a_window_of_chunks_ahead_of_storing) {
  const one_thread threads;
  const auto s = std::make_shared<window_store>(4);
  const auto values = iota_values(128 * 128);
  const auto a = sixty_four_chunks(s, values);
  BOOST_TEST(s->batches.load() == 1u);
  BOOST_TEST(s->started.load() == 64u);
  BOOST_TEST(s->ready_while_held.value_or(0) == 16u);
  BOOST_TEST(a.read<std::uint16_t>(zarr::region::all(a.shape())) == values, boost::test_tools::per_element());
}

// A chunk that fails to decode stops the fetching (no more chunks are started than the window
// lets through), and the error names the chunk.
BOOST_AUTO_TEST_CASE(a_chunk_that_fails_to_decode_stops_the_batch) {
  const one_thread threads;
  const auto s = std::make_shared<window_store>(4);
  const auto a = sixty_four_chunks(s, iota_values(128 * 128));
  const std::vector<std::byte> garbage(40, std::byte{0x5a});
  s->inner.set("a/c/0/0", garbage);
  s->started = 0;
  ZARR_CHECK_ERROR(a.read<std::uint16_t>(zarr::region::all(a.shape())), zarr::errc::corrupt_chunk, "chunk \"a/c/0/0\"");
  BOOST_TEST(s->started.load() <= 1u + 16u + 4u);
}

// A request that fails stops the decoding threads (they are not left waiting) and its error
// names the array and the key.
BOOST_AUTO_TEST_CASE(a_failing_request_stops_the_decoding_and_names_the_key) {
  const one_thread threads;
  const auto s = std::make_shared<window_store>(4);
  const auto a = sixty_four_chunks(s, iota_values(128 * 128));
  s->failing_key = "a/c/3/5";
  ZARR_CHECK_ERROR(a.read<std::uint16_t>(zarr::region::all(a.shape())), zarr::errc::io,
                   "array \"/a\": window_store, key \"a/c/3/5\"");
  s->failing_key.reset();
  BOOST_TEST(a.read<std::uint16_t>(zarr::region::all(a.shape())) == iota_values(128 * 128),
             boost::test_tools::per_element());
}

// The default batches (store::get_many, set_many: one item after the other) wait for `ready`
// and stop at an exception from it: the items after it are not stored.
BOOST_AUTO_TEST_CASE(default_batches_wait_for_ready_and_stop_when_it_throws) {
  zarr::memory_store s;
  const std::vector<std::byte> v{std::byte{1}, std::byte{2}};
  std::vector<zarr::store::set_item> writes;
  for (int i = 0; i < 4; ++i) writes.push_back({.key = "k/" + std::to_string(i), .value = v, .erase = false});
  std::vector<int> asked(writes.size());
  s.set_many(writes, {}, [&](std::size_t i) { return ++asked[i] > 2; });  // "not yet" twice per item
  BOOST_TEST(asked == std::vector<int>(writes.size(), 3), boost::test_tools::per_element());
  BOOST_TEST(s.list("k/").size() == 4u);

  const auto stop_at_two = [](std::size_t i) -> bool {
    if (i == 2) throw zarr::error(zarr::errc::cancelled, "test: expected to go on, got a stop at item 2");
    return true;
  };
  for (auto& w : writes) w.key = "m/" + w.key;
  ZARR_CHECK_ERROR(s.set_many(writes, {}, stop_at_two), zarr::errc::cancelled, "stop at item 2");
  BOOST_TEST(s.list("m/").size() == 2u);
  std::vector<zarr::store::get_item> reads(4);
  for (std::size_t i = 0; i < reads.size(); ++i) reads[i].key = writes[i].key;
  std::size_t done = 0;
  ZARR_CHECK_ERROR(s.get_many(reads, [&](std::size_t) { ++done; }, stop_at_two), zarr::errc::cancelled, "stop at item 2");
  BOOST_TEST(done == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
