// zarr.parallel: running independent pieces of work (chunks, inner chunks) on several
// threads, with a process-wide limit on how many (default: the number of cores).
module;
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
export module zarr.parallel;

export namespace zarr {

// The number of threads chunk work may use; 1 means everything runs on the caller's thread.
[[nodiscard]] std::size_t concurrency() noexcept;
// Sets it (0 = the number of cores).
void set_concurrency(std::size_t threads) noexcept;

namespace detail {
// True on a thread that is already working for parallel_for: nested calls then run
// serially, so that the limit holds for the whole process.
bool& inside_parallel_for() noexcept;
}  // namespace detail

// Calls f(i) for every i in [0, n), on up to concurrency() threads (the caller's
// included). Each thread holds one piece at a time, so memory stays bounded. If calls
// throw, the others stop being started and the exception of the smallest i is rethrown.
template <class F>
void parallel_for(std::size_t n, F&& f) {
  const std::size_t threads = detail::inside_parallel_for() ? 1 : std::min(concurrency(), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::exception_ptr failure;
  std::size_t failed_at = n;
  const auto work = [&] {
    detail::inside_parallel_for() = true;
    while (!stop.load(std::memory_order_relaxed)) {
      const auto i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) break;
      try {
        f(i);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (i < failed_at) {
          failed_at = i;
          failure = std::current_exception();
        }
        stop = true;
      }
    }
    detail::inside_parallel_for() = false;
  };
  {
    std::vector<std::jthread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace zarr
