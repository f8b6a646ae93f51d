// zarr.store.s3 against a real S3 server: Ceph's RADOS Gateway on 127.0.0.1, started by the
// CTest fixture tests/servers/rgw (servers.hpp finds it).
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <span>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>
#include "../array/model.hpp"
#include "contract.hpp"
#include "servers.hpp"
import zarr.error;
import zarr.dtype;
import zarr.store;
import zarr.cache;
import zarr.array;
import zarr.builder;
import zarr.parallel;
import zarr.store.s3;
import zarr.bytes;
import zarr.nd;

namespace {

std::vector<std::uint16_t> iota_values(std::size_t n) {
  std::vector<std::uint16_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint16_t>(i * 7 + 1);
  return v;
}

// One decoding thread (zarr::set_concurrency(1)) for a test's scope.
struct one_decoding_thread {
  one_decoding_thread() { zarr::set_concurrency(1); }
  ~one_decoding_thread() { zarr::set_concurrency(0); }
  one_decoding_thread(const one_decoding_thread&) = delete;
  one_decoding_thread& operator=(const one_decoding_thread&) = delete;
};

// A read that `s` served with 16 GETs, more than one under way at once, returning `got`: the
// values of `expected` from `first` on.
template <class T>
void check_sixteen_gets_side_by_side(const zarr::s3_store& s, const std::vector<T>& got, const std::vector<T>& expected,
                                     std::size_t first) {
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != expected[first + k];
  BOOST_TEST(wrong == 0u);
  const auto n = s.requests();
  BOOST_TEST(n.get == 16u);
  BOOST_TEST(n.peak_in_flight >= 2u);
}

// An array of 16 x 512 strings in 16 chunks of 8 x 64 (zstd) at "t", and values for it.
zarr::array strings_array(const std::shared_ptr<zarr::s3_store>& s) {
  return zarr::array_builder({16, 512}, zarr::data_type::string)
      .chunk_shape({8, 64})
      .codecs({zarr::codecs::zstd{.level = 1}})
      .create(s, "t");
}
std::vector<std::string> sixteen_chunks_of_strings() {
  std::vector<std::string> values(16 * 512);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = std::string(k % 7, 'x') + std::to_string(k);
  return values;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(s3_store)

BOOST_AUTO_TEST_CASE(keeps_the_store_contract_below_a_prefix) {
  const auto o = zarr_test::fresh_bucket("data.zarr");
  if (!o) return;
  zarr::s3_store s(*o);
  zarr_test::check_store_contract(s, false);
  // The prefix is where the objects are: a store on the bare bucket sees them below it.
  zarr::s3_options bare = *o;
  bare.prefix = "";
  zarr::s3_store whole(bare);
  BOOST_TEST(whole.list("").size() == 4u);
  BOOST_TEST(whole.get("data.zarr/zarr.json").has_value());
  BOOST_TEST(whole.list_dir("") == std::vector<std::string>{"data.zarr"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(learns_that_the_gateway_honours_conditional_writes_and_updates_atomically) {
  const auto o = zarr_test::fresh_bucket("data.zarr");
  if (!o) return;
  zarr::s3_store s(*o);
  s.reset_requests();
  BOOST_TEST(s.atomic_updates());
  BOOST_TEST(!s.erases_conditionally());  // RADOS Gateway 16.2 deletes whatever If-Match says
  const auto probe = s.requests();
  BOOST_TEST(probe.put >= 4u);  // the probe: a plain PUT, then conditional ones
  BOOST_TEST(probe.del >= 1u);
  BOOST_TEST(s.atomic_updates());
  BOOST_TEST(s.requests().put == probe.put);  // learnt once
  auto whole_bucket = *o;
  whole_bucket.prefix.clear();
  BOOST_TEST(zarr::s3_store(whole_bucket).list("").empty());  // the probe object is gone
  zarr_test::check_update_contract(s, 4, 8);
}

BOOST_AUTO_TEST_CASE(keeps_the_store_contract_with_virtual_hosted_addressing) {
  auto o = zarr_test::fresh_bucket();
  if (!o) return;
  // bucket.localhost:port (the gateway's "rgw dns name" is localhost; libcurl resolves
  // *.localhost to the loopback address itself).
  o->endpoint.replace(o->endpoint.find("127.0.0.1"), 9, "localhost");
  o->virtual_hosted = true;
  zarr::s3_store s(*o);
  zarr_test::check_store_contract(s, false);
}

BOOST_AUTO_TEST_CASE(lists_2500_keys_across_pages_of_1000) {
  const auto o = zarr_test::fresh_bucket("many");
  if (!o) return;
  zarr::s3_store s(*o);
  std::vector<std::string> expected;
  for (int i = 0; i < 2500; ++i) expected.push_back("k/" + std::to_string(i));
  const std::vector<std::byte> one{std::byte{1}};
  std::vector<std::thread> writers;
  for (std::size_t t = 0; t < 8; ++t)
    writers.emplace_back([&, t] {
      for (std::size_t i = t; i < expected.size(); i += 8) s.set(expected[i], one);
    });
  for (auto& w : writers) w.join();
  s.set("other", one);
  std::sort(expected.begin(), expected.end());
  s.reset_requests();
  BOOST_TEST(s.list("k/") == expected, boost::test_tools::per_element());
  BOOST_TEST(s.requests().get == 3u);  // three pages
  auto names = s.list_dir("k/");
  BOOST_TEST(names.size() == 2500u);
  BOOST_TEST(names.front() == "0");
  BOOST_TEST(s.list_dir("") == (std::vector<std::string>{"k", "other"}), boost::test_tools::per_element());
  BOOST_TEST(s.list("").size() == 2501u);
}

BOOST_AUTO_TEST_CASE(a_missing_bucket_is_an_error_naming_it_never_absent) {
  auto o = zarr_test::fresh_bucket();
  if (!o) return;
  o->bucket = "zarr-test-no-such-bucket";
  zarr::s3_store s(*o);
  ZARR_CHECK_ERROR(s.get("zarr.json"), zarr::errc::not_found, "s3 bucket \"zarr-test-no-such-bucket\", key \"zarr.json\": expected success, got HTTP 404 NoSuchBucket");
  ZARR_CHECK_ERROR(s.get("zarr.json", zarr::byte_range{0, 4}), zarr::errc::not_found, "NoSuchBucket");
  ZARR_CHECK_ERROR(s.set("a/zarr.json", std::vector<std::byte>(3)), zarr::errc::not_found, "zarr-test-no-such-bucket");
  ZARR_CHECK_ERROR(s.list(""), zarr::errc::not_found, "s3 bucket \"zarr-test-no-such-bucket\"");
  ZARR_CHECK_ERROR(zarr::array::open(std::make_shared<zarr::s3_store>(*o), ""), zarr::errc::not_found, "NoSuchBucket");
  BOOST_TEST(s.requests().retries == 0u);
}

BOOST_AUTO_TEST_CASE(wrong_credentials_give_an_error_naming_the_bucket_without_retries) {
  auto o = zarr_test::fresh_bucket();
  if (!o) return;
  zarr::s3_store good(*o);
  good.set("zarr.json", std::vector<std::byte>(3));
  o->secret_access_key = "not-the-secret-0123456789";
  zarr::s3_store s(*o);
  const auto check = [&](const zarr::error& e) {
    const std::string what = e.what();
    BOOST_TEST_MESSAGE(what);
    return e.code() == zarr::errc::io && what.find("s3 bucket \"" + o->bucket + "\"") != std::string::npos &&
           what.find("HTTP 403") != std::string::npos && what.find(o->secret_access_key) == std::string::npos &&
           what.find(o->access_key_id) == std::string::npos;
  };
  BOOST_CHECK_EXCEPTION(static_cast<void>(s.get("zarr.json")), zarr::error, check);
  BOOST_CHECK_EXCEPTION(s.set("x", std::vector<std::byte>(3)), zarr::error, check);
  BOOST_CHECK_EXCEPTION(static_cast<void>(s.size("zarr.json")), zarr::error, check);
  BOOST_CHECK_EXCEPTION(static_cast<void>(s.list("")), zarr::error, check);
  const auto n = s.requests();
  BOOST_TEST(n.retries == 0u);
  BOOST_TEST(n.get + n.head + n.put == 4u);  // one request each, no retry storm
}

BOOST_AUTO_TEST_CASE(a_server_that_never_answers_gives_an_error_within_the_time_limit) {
  auto o = zarr_test::fresh_bucket();
  if (!o) return;
  // A port nobody listens on: every try is refused, a transient failure.
  o->endpoint = "http://127.0.0.1:9";
  o->retry.time_limit = std::chrono::milliseconds(800);
  o->retry.max_attempts = 1000;
  o->retry.first_delay = std::chrono::milliseconds(20);
  zarr::s3_store s(*o);
  // It stops once the next try would start past the time limit, and says how long it tried:
  // no try starts after the limit, so at most the limit and the last try's refusal (well under a
  // millisecond idle, a few under load: 801 ms was seen once). Without the limit, 1,000 tries
  // would wait minutes. No clock of the test's own.
  std::string message;
  try {
    static_cast<void>(s.get("zarr.json"));
  } catch (const zarr::error& e) {
    BOOST_TEST((e.code() == zarr::errc::io));
    message = e.what();
  }
  std::smatch m;
  BOOST_TEST_REQUIRE(std::regex_search(message, m, std::regex(R"(gave up after (\d+) tries in (\d+) ms)")), message);
  BOOST_TEST(std::stoull(m[1]) >= 3u);  // it did try again
  BOOST_TEST(std::stoull(m[1]) < 1000u);
  BOOST_TEST(std::stoull(m[2]) < 800u + 50u);
  BOOST_TEST(s.requests().retries + 1 == std::stoull(m[1]));

  o->retry.max_attempts = 3;
  o->retry.time_limit = std::chrono::milliseconds(60000);
  zarr::s3_store few(*o);
  ZARR_CHECK_ERROR(few.get("zarr.json"), zarr::errc::io, "gave up after 3 tries");
  BOOST_TEST(few.requests().get == 3u);
}

BOOST_AUTO_TEST_CASE(rejects_bad_options) {
  zarr::s3_options o;
  o.endpoint = "http://127.0.0.1:9";
  o.bucket = "Bad_Bucket";
  ZARR_CHECK_ERROR(zarr::s3_store(o), zarr::errc::invalid_argument, "s3 bucket \"Bad_Bucket\": expected 3 to 63");
  o.bucket = "fine";
  o.endpoint = "ftp://host";
  ZARR_CHECK_ERROR(zarr::s3_store(o), zarr::errc::invalid_argument, "expected a URL starting with http://");
  o.endpoint = "http://host/path";
  ZARR_CHECK_ERROR(zarr::s3_store(o), zarr::errc::invalid_argument, "without a path");
  o.endpoint = "http://host";
  o.prefix = "a/../b";
  ZARR_CHECK_ERROR(zarr::s3_store(o), zarr::errc::invalid_key, "'..'");
}

// Reading one inner chunk of a sharded array: the shard's index, then that inner chunk,
// two ranged GETs of one version; several neighbouring inner chunks of that shard: one, the
// index being in the array's own cache; a whole shard: one GET.
BOOST_AUTO_TEST_CASE(an_inner_chunk_of_a_shard_costs_two_gets) {
  const auto o = zarr_test::fresh_bucket("sharded");
  if (!o) return;
  auto s = std::make_shared<zarr::s3_store>(*o);
  auto a = zarr::array_builder({64, 64}, zarr::data_type::uint16)
               .shards({32, 32}, {8, 8})
               .codecs({zarr::codecs::zstd{.level = 1}})
               .create(s, "a");
  const auto values = iota_values(64 * 64);
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);
  const auto b = zarr::array::open(s, "a");

  s->reset_requests();
  const auto inner = b.read<std::uint16_t>({{40, 8}, {48, 16}});
  BOOST_TEST(inner[0] == values[40 * 64 + 8]);
  BOOST_TEST(inner[63] == values[47 * 64 + 15]);
  auto n = s->requests();
  BOOST_TEST(n.get == 2u);
  BOOST_TEST(n.head == 0u);

  // Four inner chunks of that shard (2 x 2): the index kept from the read above, and their
  // bytes in one ranged GET (they lie within docs/decisions.md 38's gap of each other).
  s->reset_requests();
  const auto four = b.read<std::uint16_t>({{32, 0}, {48, 16}});
  BOOST_TEST(four[0] == values[32 * 64]);
  BOOST_TEST(four[255] == values[47 * 64 + 15]);
  BOOST_TEST(s->requests().get == 1u);

  s->reset_requests();
  const auto shard = b.read<std::uint16_t>({{32, 0}, {64, 32}});
  BOOST_TEST(shard[0] == values[32 * 64]);
  n = s->requests();
  BOOST_TEST(n.get >= 1u);
  BOOST_TEST(n.get <= 2u);
  BOOST_TEST(n.head == 0u);
}

// Inner chunks of one shard too far apart to share a request (docs/decisions.md 38's gap) are
// fetched by ranged GETs all in flight at once, after the index: a column of 8 inner chunks of
// 32 KiB, each 224 KiB after the one before (C order), is 9 GETs with 8 under way together.
BOOST_AUTO_TEST_CASE(inner_chunks_far_apart_in_a_shard_are_fetched_together) {
  const auto o = zarr_test::fresh_bucket("ranges");
  if (!o) return;
  auto s = std::make_shared<zarr::s3_store>(*o);
  auto a = zarr::array_builder({1024, 1024}, zarr::data_type::uint16)
               .shards({1024, 1024}, {128, 128})
               .codecs({zarr::codecs::zstd{.level = 1}})
               .create(s, "a");
  std::vector<std::uint16_t> values(1024 * 1024);  // scattered bits: zstd keeps each inner chunk near 32 KiB
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint16_t>((i * 2654435761u) >> 13);
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);
  const auto b = zarr::array::open(s, "a");

  s->reset_requests();
  const auto column = b.read<std::uint16_t>({{0, 0}, {1024, 128}});
  std::size_t wrong = 0;
  for (std::size_t y = 0; y < 1024; ++y)
    for (std::size_t x = 0; x < 128; ++x) wrong += column[y * 128 + x] != values[y * 1024 + x];
  BOOST_TEST(wrong == 0u);
  const auto n = s->requests();
  BOOST_TEST(n.get == 9u);
  BOOST_TEST(n.head == 0u);
  BOOST_TEST(n.peak_in_flight == 8u);
}

// A region that meets 8 shards in part reads each shard's index and then its inner chunks,
// every shard on a thread of its own, so that their requests are in flight together even with
// one decoding thread (docs/decisions.md 38): 16 GETs, more than one under way at once.
BOOST_AUTO_TEST_CASE(parts_of_many_shards_are_read_side_by_side) {
  const auto o = zarr_test::fresh_bucket("shards-side-by-side");
  if (!o) return;
  const one_decoding_thread one;
  auto s = std::make_shared<zarr::s3_store>(*o);
  auto a = zarr::array_builder({64, 512}, zarr::data_type::uint16)
               .shards({64, 64}, {8, 8})
               .codecs({zarr::codecs::zstd{.level = 1}})
               .create(s, "a");
  const auto values = iota_values(64 * 512);
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);
  const auto b = zarr::array::open(s, "a");

  s->reset_requests();
  check_sixteen_gets_side_by_side(*s, b.read<std::uint16_t>({{8, 0}, {16, 512}}), values, 8 * 512);
}

// Strings take the numbers' path: the chunks a read needs are fetched in one batch, their GETs
// in flight together, even with one decoding thread (before, one GET after another).
BOOST_AUTO_TEST_CASE(chunks_of_strings_are_fetched_side_by_side) {
  const auto o = zarr_test::fresh_bucket("strings-side-by-side");
  if (!o) return;
  const one_decoding_thread one;
  auto s = std::make_shared<zarr::s3_store>(*o);
  const auto values = sixteen_chunks_of_strings();
  auto a = strings_array(s);
  a.write_strings(zarr::region::all(a.shape()), values);
  const auto b = zarr::array::open(s, "t");

  s->reset_requests();
  check_sixteen_gets_side_by_side(*s, b.read_strings({{4, 0}, {12, 512}}), values, 4 * 512);  // 16 chunks, half of each
}

// And writes: the chunks a write of strings covers whole are stored in one batch, their PUTs in
// flight together, even with one encoding thread (before, one chunk after another); a chunk
// covered in part is one read-modify-write.
BOOST_AUTO_TEST_CASE(chunks_of_strings_are_stored_side_by_side) {
  const auto o = zarr_test::fresh_bucket("strings-stored-side-by-side");
  if (!o) return;
  const one_decoding_thread one;
  auto s = std::make_shared<zarr::s3_store>(*o);
  auto values = sixteen_chunks_of_strings();
  auto a = strings_array(s);
  s->reset_requests();
  a.write_strings(zarr::region::all(a.shape()), values);
  const auto n = s->requests();
  BOOST_TEST(n.put == 16u);
  BOOST_TEST(n.peak_in_flight >= 2u);
  BOOST_TEST(zarr::array::open(s, "t").read_strings(zarr::region::all(a.shape())) == values, boost::test_tools::per_element());
  // Rows 1 to 2 of the first two chunks: two read-modify-writes, nothing else changed.
  const std::vector<std::string> row(2 * 128, "\u00e9");
  a.write_strings({{1, 0}, {3, 128}}, row);
  for (std::uint64_t y = 1; y < 3; ++y)
    for (std::uint64_t x = 0; x < 128; ++x) values[y * 512 + x] = "\u00e9";
  BOOST_TEST(zarr::array::open(s, "t").read_strings(zarr::region::all(a.shape())) == values, boost::test_tools::per_element());
}

// Issue 25, acceptance 1: the 64 inner chunks of one shard read one by one cost 128 GETs
// through a cache that keeps nothing (index and inner chunk each time) and 65 through one (the
// index once, then each inner chunk by a ranged GET carrying If-Match with the cached index's
// ETag): the caller's, or the array's own when given none. A shard
// rewritten by another writer between two reads is noticed by that same GET (412): the
// cached index is dropped and the read starts again, so the read costs 3 GETs (the refused
// one, the new index, the inner chunk) and returns the new values, never the old index
// paired with the new bytes; the next read is one GET again.
BOOST_AUTO_TEST_CASE(inner_chunks_read_through_a_cache_cost_one_get_each_after_the_index) {
  const auto o = zarr_test::fresh_bucket("cached");
  if (!o) return;
  auto s = std::make_shared<zarr::s3_store>(*o);
  auto a = zarr::array_builder({64, 64}, zarr::data_type::uint16)
               .shards({64, 64}, {8, 8})
               .codecs({zarr::codecs::zstd{.level = 1}})
               .create(s, "a");
  const auto values = iota_values(64 * 64);
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);
  const auto read_one_by_one = [&](const zarr::array& b, const std::vector<std::uint16_t>& expected) {
    s->reset_requests();
    for (std::uint64_t y = 0; y < 64; y += 8)
      for (std::uint64_t x = 0; x < 64; x += 8) {
        const auto inner = b.read<std::uint16_t>({{y, x}, {y + 8, x + 8}});
        BOOST_TEST(inner[0] == expected[y * 64 + x]);
        BOOST_TEST(inner[63] == expected[(y + 7) * 64 + x + 7]);
      }
    return s->requests().get;
  };
  BOOST_TEST(read_one_by_one(zarr::array::open(s, "a", {.cache = std::make_shared<zarr::cache>(0)}), values) == 128u);
  BOOST_TEST(read_one_by_one(zarr::array::open(s, "a"), values) == 65u);  // the array's own cache
  const auto c = std::make_shared<zarr::cache>(1 << 20);
  const auto b = zarr::array::open(s, "a", {.cache = c});
  BOOST_TEST(read_one_by_one(b, values) == 65u);
  BOOST_TEST(c->stats().hits == 63u);
  BOOST_TEST(c->stats().entries == 1u);

  // another writer, through a store object of its own, rewrites the shard
  std::vector<std::uint16_t> next(values.size());
  for (std::size_t i = 0; i < next.size(); ++i) next[i] = static_cast<std::uint16_t>(values[i] + 1000);
  zarr::array::open(std::make_shared<zarr::s3_store>(*o), "a").write<std::uint16_t>(zarr::region::all(a.shape()), next);
  s->reset_requests();
  const auto inner = b.read<std::uint16_t>({{8, 16}, {16, 24}});
  BOOST_TEST(inner[0] == next[8 * 64 + 16]);
  BOOST_TEST(inner[63] == next[15 * 64 + 23]);
  BOOST_TEST(s->requests().get == 3u);
  BOOST_TEST(c->stats().stale == 1u);
  s->reset_requests();
  const auto again = b.read<std::uint16_t>({{56, 56}, {64, 64}});
  BOOST_TEST(again[63] == next.back());
  BOOST_TEST(s->requests().get == 1u);
  // and every inner chunk reads new: 64 GETs, the index being cached already
  BOOST_TEST(read_one_by_one(b, next) == 64u);
}

// An array's chunks go many requests at a time, apart from the threads that decode: with one
// decoding thread, a read of 64 chunks keeps max_in_flight (16) requests under way at once (a
// write up to that many), on as many connections; with max_in_flight = 1, one request after the other on
// one connection. Every chunk costs one request either way, and so does erasing it when the
// array is created again over the old one (docs/decisions.md 52).
BOOST_AUTO_TEST_CASE(an_array_keeps_many_requests_in_flight_with_one_decoding_thread) {
  auto o = zarr_test::fresh_bucket("in-flight");
  if (!o) return;
  const one_decoding_thread one;
  const auto values = iota_values(256 * 256);
  for (const std::size_t in_flight : {std::size_t{16}, std::size_t{1}}) {
    BOOST_TEST_CONTEXT("max_in_flight " << in_flight) {
      o->max_in_flight = in_flight;
      o->prefix = "in-flight-" + std::to_string(in_flight);
      auto s = std::make_shared<zarr::s3_store>(*o);
      BOOST_TEST(s->io_concurrency() == in_flight);
      auto a = zarr::array_builder({256, 256}, zarr::data_type::uint16)
                   .chunk_shape({32, 32})
                   .codecs({zarr::codecs::zstd{.level = 1}})
                   .create(s, "a");
      s->reset_requests();
      a.write<std::uint16_t>(zarr::region::all(a.shape()), values);
      auto n = s->requests();
      BOOST_TEST(n.put == 64u);
      // Each chunk goes as soon as it is encoded: how many are under way at the peak depends on
      // how fast the gateway answers; never more than the budget, and side by side.
      BOOST_TEST(n.peak_in_flight <= in_flight);
      if (in_flight > 1) BOOST_TEST(n.peak_in_flight >= 2u);
      if (in_flight > 1) BOOST_TEST(n.connections >= 2u);  // side by side, not one after the other

      s->reset_requests();
      BOOST_TEST(zarr::array::open(s, "a").read<std::uint16_t>(zarr::region::all(a.shape())) == values,
                 boost::test_tools::per_element());
      BOOST_TEST_MESSAGE("write: peak " << n.peak_in_flight << " in flight, " << n.connections << " connections");
      n = s->requests();
      BOOST_TEST_MESSAGE("read: peak " << n.peak_in_flight << " in flight, " << n.connections << " connections");
      BOOST_TEST(n.get == 65u);  // zarr.json, then the 64 chunks
      BOOST_TEST(n.peak_in_flight == in_flight);
      if (in_flight == 1) BOOST_TEST(n.connections <= 1u);  // kept alive from the write

      // Creating it again over the old one erases the 64 chunks and zarr.json in one batch.
      s->reset_requests();
      static_cast<void>(zarr::array_builder({256, 256}, zarr::data_type::uint16).chunk_shape({32, 32}).create(s, "a", true));
      n = s->requests();
      BOOST_TEST(n.del == 65u);
      BOOST_TEST(n.peak_in_flight == in_flight);
      BOOST_TEST(s->list("a/c/").empty());
    }
  }
}

// The threads that use one store share its budget of requests in flight: 8 threads reading 64
// chunks each, and then 32 asynchronous reads started at once, never have more than
// max_in_flight (4) requests under way together (each thread alone would keep 4), and every
// value read is right.
BOOST_AUTO_TEST_CASE(threads_and_asynchronous_reads_share_one_budget_of_requests_in_flight) {
  auto o = zarr_test::fresh_bucket("budget");
  if (!o) return;
  o->max_in_flight = 4;
  auto s = std::make_shared<zarr::s3_store>(*o);
  const auto values = iota_values(256 * 256);
  auto a = zarr::array_builder({256, 256}, zarr::data_type::uint16).chunk_shape({32, 32}).create(s, "a");
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);

  s->reset_requests();
  std::vector<std::vector<std::uint16_t>> seen(8);
  {
    std::vector<std::jthread> readers;
    for (std::size_t t = 0; t < seen.size(); ++t)
      readers.emplace_back([&, t] { seen[t] = zarr::array::open(s, "a").read<std::uint16_t>(zarr::region::all(a.shape())); });
  }
  auto n = s->requests();
  BOOST_TEST(n.get == 8u * 65u);
  BOOST_TEST(n.peak_in_flight <= 4u);
  for (const auto& v : seen) BOOST_TEST(v == values, boost::test_tools::per_element());

  s->reset_requests();
  std::vector<std::vector<std::uint16_t>> rows(32, std::vector<std::uint16_t>(8 * 256));
  std::vector<std::future<void>> pending;
  for (std::uint64_t i = 0; i < rows.size(); ++i)
    pending.push_back(a.read_async(zarr::region{{i * 8, 0}, {(i + 1) * 8, 256}}, std::as_writable_bytes(std::span(rows[i]))));
  for (auto& f : pending) f.get();
  n = s->requests();
  BOOST_TEST(n.peak_in_flight <= 4u);
  for (std::size_t i = 0; i < rows.size(); ++i)
    BOOST_TEST(std::equal(rows[i].begin(), rows[i].end(), values.begin() + static_cast<std::ptrdiff_t>(i * 8 * 256)));
}

// A hierarchy opened through its consolidated metadata reads its documents from it and its
// chunks as the store does, many requests in flight: one GET for the root's zarr.json, then
// the 64 chunks side by side, at most 8 under way.
BOOST_AUTO_TEST_CASE(an_array_opened_through_consolidated_metadata_keeps_its_requests_in_flight) {
  auto o = zarr_test::fresh_bucket("consolidated");
  if (!o) return;
  o->max_in_flight = 8;
  auto s = std::make_shared<zarr::s3_store>(*o);
  const auto values = iota_values(256 * 256);
  zarr::group::create(s, "");
  auto a = zarr::array_builder({256, 256}, zarr::data_type::uint16).chunk_shape({32, 32}).create(s, "a");
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);
  zarr::consolidate_metadata(s);

  s->reset_requests();
  const auto c = zarr::open_consolidated(s);
  BOOST_TEST(c->io_concurrency() == 8u);
  BOOST_TEST(zarr::array::open(c, "a").read<std::uint16_t>(zarr::region::all(a.shape())) == values,
             boost::test_tools::per_element());
  const auto n = s->requests();
  BOOST_TEST(n.get == 65u);
  BOOST_TEST(n.peak_in_flight >= 2u);  // side by side
  BOOST_TEST(n.peak_in_flight <= 8u);
}

// A batch that meets an absent chunk reads it as the fill value; a failing request stops the
// batch with an error that names the array and the key.
BOOST_AUTO_TEST_CASE(batched_reads_fill_absent_chunks_and_name_a_failing_key) {
  const auto o = zarr_test::fresh_bucket("batches");
  if (!o) return;
  auto s = std::make_shared<zarr::s3_store>(*o);
  auto a = zarr::array_builder({64, 64}, zarr::data_type::uint16).chunk_shape({16, 16}).fill_value(7).create(s, "a");
  const auto values = iota_values(64 * 64);
  a.write<std::uint16_t>({{0, 0}, {16, 64}}, std::vector<std::uint16_t>(values.begin(), values.begin() + 16 * 64));
  const auto back = a.read<std::uint16_t>(zarr::region::all(a.shape()));
  BOOST_TEST(back[0] == values[0]);
  BOOST_TEST(back[16 * 64 - 1] == values[16 * 64 - 1]);
  BOOST_TEST(back[16 * 64] == 7);
  BOOST_TEST(back.back() == 7);
  // Wrong credentials: the first answer (403) stops the batch, with no retry.
  auto bad = *o;
  bad.secret_access_key = "not-the-secret-0123456789";
  auto b = std::make_shared<zarr::s3_store>(bad);
  std::vector<zarr::store::get_item> items(16);
  for (std::size_t i = 0; i < items.size(); ++i) items[i].key = "a/c/" + std::to_string(i / 4) + "/" + std::to_string(i % 4);
  ZARR_CHECK_ERROR(b->get_many(items), zarr::errc::io, "s3 bucket \"" + o->bucket + "\", key \"batches/a/c/");
  BOOST_TEST(b->requests().retries == 0u);
  BOOST_TEST(b->requests().get <= 16u);
}

// The array core's property test (random arrays, chunkings, codec chains, regions against a
// plain model: ../array/model.hpp) on S3, each array below its own prefix of one bucket.
BOOST_AUTO_TEST_CASE(random_region_reads_and_writes_match_a_plain_model) {
  const auto o = zarr_test::fresh_bucket();
  if (!o) return;
  zarr_test::random_regions_match_a_plain_model(
      [&](int trial) -> std::shared_ptr<zarr::store> {
        auto t = *o;
        t.prefix = "trial" + std::to_string(trial);
        return std::make_shared<zarr::s3_store>(t);
      },
      16);
}

BOOST_AUTO_TEST_SUITE_END()
