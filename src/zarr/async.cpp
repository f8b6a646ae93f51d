// zarr.async: a queue and the threads that take from it. The pool lives until the process
// ends (never destroyed: a thread still running at exit must not meet a destroyed queue).
module;
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
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

void for_each_waiting(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& f) {
  threads = std::min(threads, n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  struct state {
    std::mutex mutex;
    std::condition_variable ended;
    const std::function<void(std::size_t)>* f;  // valid until closed and running == 0
    std::size_t n, next = 0, running = 0, failed_at;
    bool closed = false;  // every i taken: threads not started yet never start
    std::exception_ptr failure;
  };
  const auto s = std::make_shared<state>();
  s->f = &f;
  s->n = s->failed_at = n;
  const auto work = [](state& st) {
    std::unique_lock lock(st.mutex);
    while (st.next < st.n && !st.failure) {
      const auto i = st.next++;
      lock.unlock();
      try {
        (*st.f)(i);
        lock.lock();
      } catch (...) {
        lock.lock();
        if (i < st.failed_at) {
          st.failed_at = i;
          st.failure = std::current_exception();
        }
      }
    }
  };
  for (std::size_t t = 1; t < threads; ++t)
    post([s, work] {
      {
        const std::lock_guard lock(s->mutex);
        if (s->closed) return;
        ++s->running;
      }
      work(*s);
      const std::lock_guard lock(s->mutex);
      if (--s->running == 0) s->ended.notify_all();
    });
  work(*s);
  std::unique_lock lock(s->mutex);
  s->closed = true;
  s->ended.wait(lock, [&] { return s->running == 0; });
  if (s->failure) std::rethrow_exception(s->failure);
}

}  // namespace zarr
