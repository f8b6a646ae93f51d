// zarr.parallel: running independent pieces of work (chunks, inner chunks) on several
// threads, with a process-wide limit on how many (default: the number of cores).
module;
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
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
// Runs work(context, 0) on the caller's thread and offers work(context, t), t in
// [1, threads), to the process's worker threads; returns once the caller's call has
// returned and every offered call that started has returned (one not started by then never
// starts, so work(context, 0) must be able to do everything alone). The workers stay from
// one call to the next, and with them what they keep (thread_buffer); at most
// concurrency() - 1 of them, shared by every caller.
void run_with_workers(std::size_t threads, void (*work)(void* context, std::size_t first), void* context);
}  // namespace detail

// Calls f(i) for every i in [0, n), on up to concurrency() threads (the caller's and the
// process's workers). Each thread starts on its own contiguous share of [0, n), in order,
// then helps with the others' rest: neighbouring pieces (chunks side by side, which share
// the output's pages) stay on one thread. Each thread holds one piece at a time, so memory
// stays bounded. If calls throw, the others stop being started and the exception of the
// smallest i is rethrown.
template <class F>
void parallel_for(std::size_t n, F&& f) {
  const std::size_t threads = detail::inside_parallel_for() ? 1 : std::min(concurrency(), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  struct share {
    std::atomic<std::size_t> next;
    std::size_t end;
  };
  const auto shares = std::make_unique<share[]>(threads);
  const auto start_of = [&](std::size_t t) { return n / threads * t + std::min(t, n % threads); };  // no overflow
  for (std::size_t t = 0; t < threads; ++t) {
    shares[t].next = start_of(t);
    shares[t].end = start_of(t + 1);
  }
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::exception_ptr failure;
  std::size_t failed_at = n;
  const auto work = [&](std::size_t first) {
    detail::inside_parallel_for() = true;
    for (std::size_t k = 0; k < threads; ++k) {
      auto& s = shares[(first + k) % threads];
      while (!stop.load(std::memory_order_relaxed)) {
        const auto i = s.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= s.end) break;
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
    }
    detail::inside_parallel_for() = false;
  };
  detail::run_with_workers(
      threads, [](void* context, std::size_t first) { (*static_cast<decltype(work)*>(context))(first); },
      const_cast<void*>(static_cast<const void*>(&work)));
  if (failure) std::rethrow_exception(failure);
}

}  // namespace zarr
