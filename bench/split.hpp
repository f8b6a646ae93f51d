// Runs f(item, thread) for items [0, n) on `threads` std::threads taking items in turn; the
// first exception stops the others and is rethrown. Shared by the floors of bench/compare.cpp
// and bench/floor_process.cpp.
#pragma once
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

inline void split(std::size_t threads, std::size_t n, const std::function<void(std::size_t, std::size_t)>& f) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  const auto work = [&](std::size_t t) {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < n && !failed;) f(i, t);
    } catch (...) {
      if (!failed.exchange(true)) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}
