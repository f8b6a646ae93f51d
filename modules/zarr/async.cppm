// zarr.async: the bounded pool of threads that runs asynchronous reads and writes
// (zarr::array::read_async, write_async; the C API's zarr_array_read_async), so that one thread
// can keep many operations in flight, and the pieces of one operation that mostly wait
// (for_each_waiting: parts of shards read from a remote store). Each operation still decodes
// and encodes its chunks on zarr::concurrency() threads of its own (zarr.parallel).
module;
#include <cstddef>
#include <functional>
export module zarr.async;

export namespace zarr {

inline constexpr std::size_t default_async_threads = 64;

// The most operations that run at once (default 64); further ones wait, first come first run.
[[nodiscard]] std::size_t async_threads() noexcept;
// Sets it (0 = the default). Threads start when work arrives and stay for the next.
void set_async_threads(std::size_t threads) noexcept;

// Runs `task` on a thread of the pool and returns at once. `task` must not throw (an escaping
// exception ends the process, as in any thread).
void post(std::function<void()> task);

// Calls f(i) for every i in [0, n) on the caller's thread and up to `threads` - 1 threads of
// the pool at once: for pieces of work that mostly wait (requests to a remote store), more of
// them than zarr::concurrency() allows for computing. Returns once every call has returned;
// if calls throw, the others stop being started and the exception of the smallest i is
// rethrown. A thread of the pool that has not started by the time every i is taken never
// starts, so a caller that is itself on the pool (an asynchronous read) cannot deadlock.
void for_each_waiting(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& f);

}  // namespace zarr
