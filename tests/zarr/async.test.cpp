// zarr.async and zarr::array::read_async / write_async: many operations in flight from one
// thread, results and errors through futures and completion callbacks, cancellation.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.array;
import zarr.builder;
import zarr.async;
import zarr.store.memory;

BOOST_AUTO_TEST_SUITE(async_reads_and_writes)

BOOST_AUTO_TEST_CASE(keeps_many_reads_in_flight_and_each_gets_its_chunk) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({64 * 8}, zarr::data_type::int32).chunk_shape({8}).create(store, "a");
  std::vector<std::int32_t> values(64 * 8);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * i);
  a.write_async({{0}, {64 * 8}}, std::as_bytes(std::span(values))).get();
  std::vector<std::vector<std::int32_t>> out(64, std::vector<std::int32_t>(8));
  std::vector<std::future<void>> reads;
  for (std::uint64_t c = 0; c < 64; ++c)
    reads.push_back(a.read_async({{c * 8}, {c * 8 + 8}}, std::as_writable_bytes(std::span(out[c]))));
  for (auto& r : reads) r.get();
  for (std::uint64_t c = 0; c < 64; ++c)
    for (std::uint64_t k = 0; k < 8; ++k) BOOST_TEST(out[c][k] == static_cast<std::int32_t>((c * 8 + k) * (c * 8 + k)));
}

BOOST_AUTO_TEST_CASE(converts_exactly_and_reports_the_element_through_the_callback) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({3}, zarr::data_type::float64).create(store, "f");
  a.write<double>({{0}, {3}}, std::vector<double>{1, 2.5, 3});
  std::vector<std::int64_t> out(3);
  std::promise<std::string> message;
  a.read_async({{0}, {3}}, zarr::data_type::int64, std::as_writable_bytes(std::span(out)), {},
               [&](std::exception_ptr e) {
                 try {
                   if (e) std::rethrow_exception(e);
                   message.set_value("no error");
                 } catch (const zarr::error& x) {
                   message.set_value(std::string(zarr::to_string(x.code())) + ": " + x.what());
                 }
               });
  BOOST_TEST(message.get_future().get() ==
             "invalid value: array \"/f\", element 1: expected a value that int64 holds exactly, got 2.5 (float64)");
}

BOOST_AUTO_TEST_CASE(a_progress_callback_cancels_an_asynchronous_write) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({100}, zarr::data_type::uint8).chunk_shape({10}).create(store, "c");
  std::vector<std::uint8_t> ones(100, 1);
  auto f = a.write_async({{0}, {100}}, std::as_bytes(std::span(ones)),
                         {.write_empty_chunks = false, .progress = [](std::uint64_t done, std::uint64_t) { return done < 2; }});
  ZARR_CHECK_ERROR(f.get(), zarr::errc::cancelled, "cancelled after 2 of 10 chunks");
}

BOOST_AUTO_TEST_CASE(runs_at_most_the_limit_at_once) {
  zarr::set_async_threads(2);
  BOOST_TEST(zarr::async_threads() == 2u);
  std::atomic<int> running{0}, peak{0};
  std::vector<std::promise<void>> done(8);
  for (auto& d : done)
    zarr::post([&] {
      const int now = ++running;
      for (int seen = peak.load(); now > seen && !peak.compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --running;
      d.set_value();
    });
  for (auto& d : done) d.get_future().get();
  BOOST_TEST(peak.load() == 2);
  zarr::set_async_threads(0);
  BOOST_TEST(zarr::async_threads() == zarr::default_async_threads);
}

BOOST_AUTO_TEST_SUITE_END()
