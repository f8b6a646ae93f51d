// zarr.async: the bounded pool of threads that runs asynchronous reads and writes
// (zarr::array::read_async, write_async; the C API's zarr_array_read_async), so that one thread
// can keep many operations in flight. Each operation still decodes and encodes its chunks on
// zarr::concurrency() threads of its own (zarr.parallel).
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

}  // namespace zarr
