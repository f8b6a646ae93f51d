// zarr.parallel: the process-wide thread limit and the worker threads parallel_for shares.
module;
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
module zarr.parallel;

namespace zarr {

namespace {
std::size_t cores() noexcept { return std::max<std::size_t>(1, std::thread::hardware_concurrency()); }
std::atomic<std::size_t> limit{0};

// One run_with_workers call's offer: the calls work(context, t) for t in [next, end) that no
// worker has taken yet, and how many taken are still running.
struct offer {
  void (*work)(void*, std::size_t);
  void* context;
  std::size_t next, end;
  std::size_t running = 0;
};

// Threads that wait for offers. They are made when first needed and never end (nor are
// they joined: a process that forks or exits with them waiting loses nothing), so what a
// thread keeps from one chunk to the next stays from one call to the next.
class workers {
 public:
  void run(std::size_t threads, void (*work)(void*, std::size_t), void* context) {
    offer o{work, context, 1, threads};
    {
      const std::lock_guard lock(mutex_);
      for (auto have = started_; have < std::min(threads, concurrency()) - 1; ++have) {
        std::thread([this] { serve(); }).detach();
        ++started_;
      }
      offers_.push_back(&o);
    }
    wake_.notify_all();
    work(context, 0);
    std::unique_lock lock(mutex_);
    std::erase(offers_, &o);
    done_.wait(lock, [&] { return o.running == 0; });
  }

 private:
  [[noreturn]] void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return !offers_.empty(); });
      auto& o = *offers_.front();
      const auto t = o.next++;
      if (o.next == o.end) offers_.pop_front();
      ++o.running;
      lock.unlock();
      o.work(o.context, t);  // does not throw (parallel_for catches)
      lock.lock();
      if (--o.running == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<offer*> offers_;
  std::size_t started_ = 0;
};

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

void detail::run_with_workers(std::size_t threads, void (*work)(void*, std::size_t), void* context) {
  static auto& pool = *new workers;  // never destroyed: the workers may still wait on it at exit
  pool.run(threads, work, context);
}

}  // namespace zarr
