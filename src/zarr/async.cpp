// zarr.async: a queue and the threads that take from it. The pool lives until the process
// ends (never destroyed: a thread still running at exit must not meet a destroyed queue).
module;
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
module zarr.async;

namespace zarr {

namespace {
struct pool {
  std::mutex mutex;
  std::condition_variable work;
  std::deque<std::function<void()>> queue;
  std::size_t limit = default_async_threads;
  std::size_t threads = 0;  // started and not yet ended
  std::size_t idle = 0;     // waiting for work

  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      ++idle;
      work.wait(lock, [&] { return !queue.empty() || threads > limit; });
      --idle;
      if (threads > limit) {  // the limit went down: fewer threads from now on, before any task
        --threads;
        if (!queue.empty()) work.notify_one();  // the wake-up this thread took goes on
        return;
      }
      auto task = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      task();
      task = nullptr;  // what the task holds goes before the next one starts
      lock.lock();
    }
  }
};

pool& the_pool() {
  static pool* p = new pool;  // never destroyed (see above)
  return *p;
}
}  // namespace

std::size_t async_threads() noexcept {
  auto& p = the_pool();
  const std::lock_guard lock(p.mutex);
  return p.limit;
}

void set_async_threads(std::size_t threads) noexcept {
  auto& p = the_pool();
  const std::lock_guard lock(p.mutex);
  p.limit = threads == 0 ? default_async_threads : threads;
  p.work.notify_all();
}

void post(std::function<void()> task) {
  auto& p = the_pool();
  const std::lock_guard lock(p.mutex);
  p.queue.push_back(std::move(task));
  if (p.idle < p.queue.size() && p.threads < p.limit) {
    ++p.threads;
    std::thread([&p] { p.run(); }).detach();
  }
  p.work.notify_one();
}

}  // namespace zarr
