// zarr.parallel: every piece exactly once, never more threads at once than the limit, each
// thread starting on its own contiguous share, nested calls serial, and the error of the
// smallest failing piece.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <latch>
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

BOOST_AUTO_TEST_SUITE_END()
