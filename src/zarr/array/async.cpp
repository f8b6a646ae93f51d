// zarr.array: asynchronous reads and writes, run on zarr.async's pool.
module;
#include <cstddef>
#include <exception>
#include <future>
#include <memory>
#include <span>
#include <utility>
module zarr.array;

import zarr.async;

namespace zarr {

void array::read_async(const region& r, data_type t, std::span<std::byte> out, read_options options,
                       completion done) const {
  post([self = *this, r, t, out, options = std::move(options), done = std::move(done)] {
    std::exception_ptr failure;
    try {
      self.read_as(r, t, out, options);
    } catch (...) {
      failure = std::current_exception();
    }
    if (done) done(failure);
  });
}

void array::write_async(const region& r, data_type t, std::span<const std::byte> in, write_options options,
                        completion done) {
  post([self = *this, r, t, in, options = std::move(options), done = std::move(done)]() mutable {
    std::exception_ptr failure;
    try {
      self.write_as(r, t, in, options);
    } catch (...) {
      failure = std::current_exception();
    }
    if (done) done(failure);
  });
}

namespace {
// A completion that settles a promise.
std::pair<std::future<void>, array::completion> promised() {
  auto p = std::make_shared<std::promise<void>>();
  auto f = p->get_future();
  return {std::move(f), [p](std::exception_ptr e) {
            if (e) p->set_exception(e);
            else p->set_value();
          }};
}
}  // namespace

std::future<void> array::read_async(const region& r, std::span<std::byte> out, read_options options) const {
  auto [future, done] = promised();
  read_async(r, meta_.type, out, std::move(options), std::move(done));
  return std::move(future);
}

std::future<void> array::write_async(const region& r, std::span<const std::byte> in, write_options options) {
  auto [future, done] = promised();
  write_async(r, meta_.type, in, std::move(options), std::move(done));
  return std::move(future);
}

}  // namespace zarr
