// zarr.parallel: the process-wide thread limit.
module;
#include <atomic>
#include <cstddef>
#include <thread>
module zarr.parallel;

namespace zarr {

namespace {
std::size_t cores() noexcept { return std::max<std::size_t>(1, std::thread::hardware_concurrency()); }
std::atomic<std::size_t> limit{0};
}  // namespace

std::size_t concurrency() noexcept {
  const auto n = limit.load(std::memory_order_relaxed);
  return n == 0 ? cores() : n;
}

void set_concurrency(std::size_t threads) noexcept { limit.store(threads, std::memory_order_relaxed); }

bool& detail::inside_parallel_for() noexcept {
  thread_local bool inside = false;
  return inside;
}

}  // namespace zarr
