// zarr.store.s3 when the server goes away: Ceph's RADOS Gateway of a cluster of its own
// (the CTest fixture rgw_faults: tests/servers/rgw), killed while an array is being written
// and started again. The kill is a handshake, not a race: the write's progress callback runs
// it after a given number of chunks are stored, while the next PUTs are under way.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include "servers.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.builder;
import zarr.store.s3;
import zarr.nd;

namespace {

// Runs `tests/servers/rgw gateway-<what> DIR` on the fault fixture's cluster (its monitor and
// OSD keep running, and with them the objects).
bool gateway(const std::string& what) {
  const char* script = std::getenv("ZARR_TEST_RGW");
  const char* dir = std::getenv("ZARR_TEST_RGW_DIR");
  if (script == nullptr || dir == nullptr) return false;
  const auto command = std::string(script) + " gateway-" + what + " '" + dir + "' >&2";
  return std::system(command.c_str()) == 0;
}

constexpr std::uint64_t edge = 1024, chunk = 128, chunks = (edge / chunk) * (edge / chunk);  // 64 chunks of 32 KiB

std::vector<std::uint16_t> pattern(std::uint16_t a, std::uint16_t b) {
  std::vector<std::uint16_t> v(edge * edge);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint16_t>(i * a + b);
  return v;
}

// The values of chunk (cy, cx) in a C-order edge x edge array.
std::vector<std::uint16_t> chunk_of(const std::vector<std::uint16_t>& all, std::uint64_t cy, std::uint64_t cx) {
  std::vector<std::uint16_t> out;
  for (std::uint64_t y = cy * chunk; y < (cy + 1) * chunk; ++y)
    out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(y * edge + cx * chunk),
               all.begin() + static_cast<std::ptrdiff_t>(y * edge + (cx + 1) * chunk));
  return out;
}

struct old_and_new {
  std::uint64_t old_chunks = 0, new_chunks = 0, neither = 0;
};

// Every chunk of `a`, read alone, against the old and the new values.
old_and_new classify(const zarr::array& a, const std::vector<std::uint16_t>& old_values,
                     const std::vector<std::uint16_t>& new_values) {
  old_and_new out;
  for (std::uint64_t cy = 0; cy < edge / chunk; ++cy)
    for (std::uint64_t cx = 0; cx < edge / chunk; ++cx) {
      const auto got = a.read<std::uint16_t>({{cy * chunk, cx * chunk}, {(cy + 1) * chunk, (cx + 1) * chunk}});
      if (got == chunk_of(old_values, cy, cx)) ++out.old_chunks;
      else if (got == chunk_of(new_values, cy, cx)) ++out.new_chunks;
      else ++out.neither;
    }
  return out;
}

const std::vector<std::uint16_t> old_values = pattern(7, 1), new_values = pattern(13, 5);

// A fresh bucket with the array "a" of the old values below `prefix`, and the options of a
// writer with 8 requests in flight that retries for up to `time_limit`.
struct setup {
  zarr::s3_options options;
  zarr::s3_options writer;
};
std::optional<setup> array_of_old_values(const std::string& prefix, std::chrono::milliseconds time_limit,
                                         std::chrono::milliseconds max_delay) {
  auto o = zarr_test::fresh_bucket(prefix);
  if (!o) return std::nullopt;
  o->max_in_flight = 8;
  auto a = zarr::array_builder({edge, edge}, zarr::data_type::uint16)
               .chunk_shape({chunk, chunk})
               .create(std::make_shared<zarr::s3_store>(*o), "a");
  a.write<std::uint16_t>(zarr::region::all(a.shape()), old_values);
  auto w = *o;
  w.retry.time_limit = time_limit;
  w.retry.max_attempts = 1000;
  w.retry.first_delay = std::chrono::milliseconds(20);
  w.retry.max_delay = max_delay;
  return setup{*o, w};
}

zarr::array open_array(const zarr::s3_options& o) { return zarr::array::open(std::make_shared<zarr::s3_store>(o), "a"); }

}  // namespace

BOOST_AUTO_TEST_SUITE(s3_faults)

// Killed after the 5th chunk of 64 is stored, with up to 8 PUTs in flight: the writer gives up
// within its time limit with an error naming the bucket and the key that failed; once the
// gateway is back, every chunk reads whole, old or new, never a mix or a cut object.
BOOST_AUTO_TEST_CASE(a_gateway_killed_mid_write_leaves_every_chunk_old_or_new) {
  const auto set = array_of_old_values("faults", std::chrono::milliseconds(1500), std::chrono::milliseconds(200));
  if (!set) return;
  const auto& o = set->options;
  auto writer = open_array(set->writer);
  constexpr std::uint64_t kill_after = 5;
  std::uint64_t killed_at = 0;
  bool stopped = false;
  std::string message;
  try {
    writer.write<std::uint16_t>(zarr::region::all(writer.shape()), new_values,
                                {.write_empty_chunks = false, .progress = [&](std::uint64_t done, std::uint64_t) {
                                   if (done == kill_after) {
                                     stopped = gateway("stop");
                                     killed_at = done;
                                   }
                                   return true;
                                 }});
  } catch (const zarr::error& e) {
    BOOST_TEST((e.code() == zarr::errc::io));
    message = e.what();
  }
  BOOST_TEST_MESSAGE("the writer said: " << message);
  BOOST_TEST_REQUIRE(stopped, "tests/servers/rgw gateway-stop failed");
  BOOST_TEST(killed_at == kill_after);
  BOOST_TEST(message.find("s3 bucket \"" + o.bucket + "\", key \"faults/a/c/") != std::string::npos);
  BOOST_TEST(message.find("gave up after") != std::string::npos);
  BOOST_TEST(message.find(o.secret_access_key) == std::string::npos);

  BOOST_TEST_REQUIRE(gateway("start"), "tests/servers/rgw gateway-start failed");
  const auto seen = classify(open_array(o), old_values, new_values);
  BOOST_TEST_MESSAGE(seen.new_chunks << " chunks new, " << seen.old_chunks << " old");
  BOOST_TEST(seen.neither == 0u);
  BOOST_TEST(seen.new_chunks >= kill_after);                           // stored before the kill
  BOOST_TEST(seen.old_chunks >= chunks - kill_after - o.max_in_flight);  // never started
  // The gateway serves writes again: the same write, repeated, completes.
  auto again = open_array(o);
  again.write<std::uint16_t>(zarr::region::all(again.shape()), new_values);
  BOOST_TEST(classify(again, old_values, new_values).new_chunks == chunks);
}

// The gateway killed as above and started again while the writer is still retrying (its time
// limit is 60 s): the write completes, every chunk new.
BOOST_AUTO_TEST_CASE(a_write_outlasts_a_gateway_restart_by_retrying) {
  const auto set = array_of_old_values("restart", std::chrono::milliseconds(60000), std::chrono::milliseconds(500));
  if (!set) return;
  auto ws = std::make_shared<zarr::s3_store>(set->writer);
  auto writer = zarr::array::open(ws, "a");
  bool stopped = false, started = false;
  std::jthread restarter;
  writer.write<std::uint16_t>(zarr::region::all(writer.shape()), new_values,
                              {.write_empty_chunks = false, .progress = [&](std::uint64_t done, std::uint64_t) {
                                 if (done == 5) {
                                   stopped = gateway("stop");
                                   restarter = std::jthread([&] { started = gateway("start"); });
                                 }
                                 return true;
                               }});
  restarter.join();
  BOOST_TEST(stopped);
  BOOST_TEST(started);
  BOOST_TEST(ws->requests().retries > 0u);  // it did meet the dead gateway
  BOOST_TEST(classify(open_array(set->options), old_values, new_values).new_chunks == chunks);
}

BOOST_AUTO_TEST_SUITE_END()
