// zarr.async and zarr::array::read_async / write_async: many operations in flight from one
// thread, results and errors through futures and completion callbacks, cancellation.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.array;
import zarr.builder;
import zarr.async;
import zarr.store.memory;

BOOST_AUTO_TEST_SUITE(async_reads_and_writes)

BOOST_AUTO_TEST_CASE(keeps_many_reads_in_flight_and_each_gets_its_chunk) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({64 * 8}, zarr::data_type::int32).chunk_shape({8}).create(store, "a");
  std::vector<std::int32_t> values(64 * 8);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * i);
  a.write_async({{0}, {64 * 8}}, std::as_bytes(std::span(values))).get();
  std::vector<std::vector<std::int32_t>> out(64, std::vector<std::int32_t>(8));
  std::vector<std::future<void>> reads;
  for (std::uint64_t c = 0; c < 64; ++c)
    reads.push_back(a.read_async({{c * 8}, {c * 8 + 8}}, std::as_writable_bytes(std::span(out[c]))));
  for (auto& r : reads) r.get();
  for (std::uint64_t c = 0; c < 64; ++c)
    for (std::uint64_t k = 0; k < 8; ++k) BOOST_TEST(out[c][k] == static_cast<std::int32_t>((c * 8 + k) * (c * 8 + k)));
}

BOOST_AUTO_TEST_CASE(converts_exactly_and_reports_the_element_through_the_callback) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({3}, zarr::data_type::float64).create(store, "f");
  a.write<double>({{0}, {3}}, std::vector<double>{1, 2.5, 3});
  std::vector<std::int64_t> out(3);
  std::promise<std::string> message;
  a.read_async({{0}, {3}}, zarr::data_type::int64, std::as_writable_bytes(std::span(out)), {},
               [&](std::exception_ptr e) {
                 try {
                   if (e) std::rethrow_exception(e);
                   message.set_value("no error");
                 } catch (const zarr::error& x) {
                   message.set_value(std::string(zarr::to_string(x.code())) + ": " + x.what());
                 }
               });
  BOOST_TEST(message.get_future().get() ==
             "invalid value: array \"/f\", element 1: expected a value that int64 holds exactly, got 2.5 (float64)");
}

BOOST_AUTO_TEST_CASE(a_progress_callback_cancels_an_asynchronous_write) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({100}, zarr::data_type::uint8).chunk_shape({10}).create(store, "c");
  std::vector<std::uint8_t> ones(100, 1);
  auto f = a.write_async({{0}, {100}}, std::as_bytes(std::span(ones)),
                         {.write_empty_chunks = false, .progress = [](std::uint64_t done, std::uint64_t) { return done < 2; }});
  ZARR_CHECK_ERROR(f.get(), zarr::errc::cancelled, "cancelled after 2 of 10 chunks");
}

BOOST_AUTO_TEST_CASE(runs_at_most_the_limit_at_once) {
  zarr::set_async_threads(2);
  BOOST_TEST(zarr::async_threads() == 2u);
  std::atomic<int> running{0}, peak{0};
  std::vector<std::promise<void>> done(8);
  for (auto& d : done)
    zarr::post([&] {
      const int now = ++running;
      for (int seen = peak.load(); now > seen && !peak.compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --running;
      d.set_value();
    });
  for (auto& d : done) d.get_future().get();
  BOOST_TEST(peak.load() == 2);
  zarr::set_async_threads(0);
  BOOST_TEST(zarr::async_threads() == zarr::default_async_threads);
}

// for_each_waiting runs its pieces at once on threads of the pool, beyond zarr::concurrency():
// 8 pieces that each wait until all 8 have started finish (they would wait forever, here 30 s,
// on fewer threads).
BOOST_AUTO_TEST_CASE(for_each_waiting_runs_every_piece_at_once) {
  std::mutex mutex;
  std::condition_variable arrived;
  std::size_t started = 0;
  std::vector<int> all_met(8, 0);
  zarr::for_each_waiting(8, 8, [&](std::size_t i) {
    std::unique_lock lock(mutex);
    ++started;
    arrived.notify_all();
    all_met[i] = arrived.wait_for(lock, std::chrono::seconds(30), [&] { return started == 8; });
  });
  BOOST_TEST(all_met == std::vector<int>(8, 1), boost::test_tools::per_element());
}

// The exception of the smallest piece that threw is rethrown, after every piece that started
// has ended; and callers that are themselves on the pool, more of them than the pool has
// threads, finish: the pieces their threads could not start run on the callers.
BOOST_AUTO_TEST_CASE(for_each_waiting_rethrows_the_first_failure_and_never_waits_for_the_pool) {
  std::atomic<int> ran{0};
  ZARR_CHECK_ERROR(zarr::for_each_waiting(16, 4,
                                          [&](std::size_t i) {
                                            ++ran;
                                            std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                            if (i == 3 || i == 5) throw zarr::error(zarr::errc::io, "piece " + std::to_string(i));
                                          }),
                   zarr::errc::io, "piece 3");
  BOOST_TEST(ran.load() >= 4);

  zarr::set_async_threads(2);
  std::vector<std::promise<std::size_t>> done(2);
  for (auto& d : done)
    zarr::post([&d] {
      std::atomic<std::size_t> count{0};
      zarr::for_each_waiting(8, 8, [&](std::size_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++count;
      });
      d.set_value(count.load());
    });
  for (auto& d : done) {
    auto f = d.get_future();
    BOOST_REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    BOOST_TEST(f.get() == 8u);
  }
  zarr::set_async_threads(0);
}

BOOST_AUTO_TEST_SUITE_END()
