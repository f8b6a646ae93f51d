// zarr.parallel: every piece exactly once, never more threads at once than the limit, each
// thread starting on its own contiguous share, nested calls serial, the error of the
// smallest failing piece, worker threads (and what they keep) that stay from one call to the
// next, and a call that finishes alone while every worker is busy.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <future>
#include <latch>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
import zarr.parallel;

namespace {

// Restores the process-wide limit when a test ends.
struct concurrency_guard {
  explicit concurrency_guard(std::size_t threads) { zarr::set_concurrency(threads); }
  ~concurrency_guard() { zarr::set_concurrency(0); }
  concurrency_guard(const concurrency_guard&) = delete;
  concurrency_guard& operator=(const concurrency_guard&) = delete;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(parallel)

BOOST_AUTO_TEST_CASE(every_piece_runs_exactly_once_with_at_most_the_limit_at_a_time) {
  for (std::size_t threads : {1, 2, 3, 4})
    for (std::size_t n : {0, 1, 2, 3, 7, 64, 1000}) {
      const concurrency_guard guard(threads);
      std::vector<std::atomic<int>> calls(n);
      std::atomic<std::size_t> running{0}, most{0};
      zarr::parallel_for(n, [&](std::size_t i) {
        const auto now = running.fetch_add(1) + 1;
        for (auto m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
        }
        calls[i].fetch_add(1);
        running.fetch_sub(1);
      });
      BOOST_TEST_CONTEXT("threads " << threads << ", n " << n) {
        BOOST_TEST(std::all_of(calls.begin(), calls.end(), [](const auto& c) { return c.load() == 1; }));
        BOOST_TEST(most.load() <= threads);
      }
    }
}

// The caller's thread starts at 0; while it is held there, the second thread takes the first
// piece of its own share (n/2), not the caller's next one.
BOOST_AUTO_TEST_CASE(each_thread_starts_on_its_own_contiguous_share) {
  const concurrency_guard guard(2);
  std::atomic<std::size_t> first_other{~std::size_t{0}};
  std::latch other_started(1);
  zarr::parallel_for(100, [&](std::size_t i) {
    if (i == 0) {
      other_started.wait();
      return;
    }
    std::size_t none = ~std::size_t{0};
    if (first_other.compare_exchange_strong(none, i)) other_started.count_down();
  });
  BOOST_TEST(first_other.load() == 50u);
}

BOOST_AUTO_TEST_CASE(nested_calls_run_on_the_calling_thread) {
  const concurrency_guard guard(2);
  std::atomic<int> inner_not_serial{0};
  zarr::parallel_for(4, [&](std::size_t) {
    const auto outer_thread = std::this_thread::get_id();
    zarr::parallel_for(8, [&](std::size_t) { inner_not_serial += std::this_thread::get_id() != outer_thread; });
  });
  BOOST_TEST(inner_not_serial.load() == 0);
}

// Two pieces fail, on different threads, each only once the other has started failing: both
// throw, and the error of the smaller index is the one rethrown.
BOOST_AUTO_TEST_CASE(the_error_of_the_smallest_failing_piece_is_rethrown) {
  const concurrency_guard guard(2);
  std::latch both(2);
  try {
    zarr::parallel_for(1000, [&](std::size_t i) {
      if (i == 10 || i == 600) {
        both.arrive_and_wait();
        throw std::runtime_error("piece " + std::to_string(i));
      }
    });
    BOOST_FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()) == "piece 10");
  }
  const concurrency_guard serial(1);
  BOOST_CHECK_EXCEPTION(zarr::parallel_for(5, [](std::size_t i) {
                          if (i >= 3) throw std::runtime_error("piece " + std::to_string(i));
                        }),
                        std::runtime_error, [](const auto& e) { return std::string(e.what()) == "piece 3"; });
}

// Both pieces wait for each other, so one runs on a worker; a thread_local counts the calls
// that thread has served. Threads made anew for each call would serve one each; the workers
// stay, so over 20 calls at most 3 are new (this file's largest limit is 4: 3 workers).
BOOST_AUTO_TEST_CASE(the_workers_and_what_they_keep_stay_from_one_call_to_the_next) {
  const concurrency_guard guard(2);
  const auto caller = std::this_thread::get_id();
  int new_workers = 0;
  for (int call = 0; call < 20; ++call) {
    std::latch both(2);
    int served = 0;
    zarr::parallel_for(2, [&](std::size_t) {
      both.arrive_and_wait();
      thread_local int calls_served = 0;
      if (std::this_thread::get_id() != caller) served = ++calls_served;
    });
    new_workers += served == 1;
  }
  BOOST_TEST(new_workers <= 3);
}

// With every worker held by one call (the limit of 4, the largest in this file: 3 workers)
// until another call ends, that other call runs every piece on its own thread and returns.
BOOST_AUTO_TEST_CASE(a_call_finishes_on_its_own_thread_while_every_worker_is_busy) {
  const concurrency_guard guard(4);
  const auto caller = std::this_thread::get_id();
  std::latch all(4);
  std::promise<std::size_t> other_done;
  const auto other_result = other_done.get_future().share();
  std::once_flag start;
  std::thread other;
  std::atomic<int> waits_ended{0};
  zarr::parallel_for(4, [&](std::size_t) {
    all.arrive_and_wait();
    if (std::this_thread::get_id() == caller) return;
    std::call_once(start, [&] {
      other = std::thread([&] {
        const auto me = std::this_thread::get_id();
        std::atomic<std::size_t> on_me{0};
        zarr::parallel_for(100, [&](std::size_t) { on_me += std::this_thread::get_id() == me; });
        other_done.set_value(on_me.load());
      });
    });
    waits_ended += other_result.wait_for(std::chrono::minutes(1)) == std::future_status::ready;  // not a deadlock
  });
  other.join();
  BOOST_TEST(waits_ended.load() == 3);
  BOOST_TEST(other_result.get() == 100u);
}

BOOST_AUTO_TEST_SUITE_END()
