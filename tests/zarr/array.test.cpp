#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include "../support.hpp"
#include "array/model.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.parallel;
import zarr.store.memory;
import zarr.nd;

namespace json = boost::json;

namespace {

using zarr_test::each_element;
using zarr_test::metadata;

json::value little() { return json::parse(R"([{"name": "bytes", "configuration": {"endian": "little"}}])"); }

}  // namespace

BOOST_AUTO_TEST_SUITE(array)

BOOST_AUTO_TEST_CASE(round_trips_a_whole_array) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "", metadata({7, 5}, {3, 2}, zarr::data_type::int32, little()));
  std::vector<std::int32_t> values(35);
  for (int i = 0; i < 35; ++i) values[static_cast<std::size_t>(i)] = i * 1000 - 7;
  a.write<std::int32_t>(zarr::region::all(a.shape()), values);
  const auto back = zarr::array::open(s, "").read<std::int32_t>(zarr::region::all(a.shape()));
  BOOST_TEST(back == values, boost::test_tools::per_element());
  // 3x3 chunks of 3x2: keys c/0/0 .. c/2/2
  BOOST_TEST(s->size("c/2/2").value() == 3u * 2u * 4u);
  BOOST_TEST(s->list("c/").size() == 9u);
}

BOOST_AUTO_TEST_CASE(missing_chunks_read_as_the_fill_value) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "x", metadata({4, 4}, {2, 2}, zarr::data_type::int16, little(), -5));
  const std::vector<std::int16_t> one{42};
  a.write<std::int16_t>({{1, 1}, {2, 2}}, one);
  const auto back = a.read<std::int16_t>(zarr::region::all(a.shape()));
  for (std::size_t i = 0; i < 16; ++i) BOOST_TEST(back[i] == (i == 5 ? 42 : -5));
  BOOST_TEST(s->list("x/c/").size() == 1u);
  BOOST_TEST(s->get("zarr.json").has_value());  // the root group was created
}

BOOST_AUTO_TEST_CASE(chunks_of_only_the_fill_value_are_not_stored) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "", metadata({4}, {2}, zarr::data_type::uint8, little(), 7));
  a.write<std::uint8_t>({{0}, {4}}, std::vector<std::uint8_t>{1, 2, 7, 7});
  BOOST_TEST(s->list("c/") == (std::vector<std::string>{"c/0"}), boost::test_tools::per_element());
  a.write<std::uint8_t>({{0}, {2}}, std::vector<std::uint8_t>{7, 7});  // back to fill: erased
  BOOST_TEST(s->list("c/").empty());
  a.write<std::uint8_t>({{0}, {2}}, std::vector<std::uint8_t>{7, 7}, {.write_empty_chunks = true});
  BOOST_TEST(s->list("c/").size() == 1u);
}

BOOST_AUTO_TEST_CASE(rejects_regions_outside_the_array_and_wrong_buffers) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "", metadata({4, 4}, {2, 2}, zarr::data_type::int16, little()));
  std::vector<std::int16_t> buf(4);
  ZARR_CHECK_ERROR(a.write<std::int16_t>({{0, 3}, {2, 5}}, buf), zarr::errc::invalid_argument, "region[1]");
  ZARR_CHECK_ERROR(a.write<std::int16_t>({{2, 0}, {1, 2}}, buf), zarr::errc::invalid_argument, "start <= stop");
  ZARR_CHECK_ERROR(a.write<std::int16_t>({{0}, {2}}, buf), zarr::errc::invalid_argument, "expected 2 dimensions");
  ZARR_CHECK_ERROR(a.write<std::int16_t>({{0, 0}, {1, 1}}, buf), zarr::errc::invalid_argument, "buffer of 2 bytes");
  ZARR_CHECK_ERROR(a.write<std::int32_t>({{0, 0}, {1, 1}}, std::vector<std::int32_t>{70000}), zarr::errc::out_of_range,
                   "array \"/\", element 0: expected a value that int16 holds exactly, got 70000 (int32)");
}

BOOST_AUTO_TEST_CASE(creates_and_lists_groups) {
  auto s = std::make_shared<zarr::memory_store>();
  auto root = zarr::group::create(s, "", {{"title", "t"}});
  zarr::group::create(s, "g/h");
  static_cast<void>(zarr::array::create(s, "g/a", metadata({2}, {2}, zarr::data_type::uint8, little())));
  BOOST_TEST(zarr::group::open(s, "").children() == (std::vector<std::string>{"g"}), boost::test_tools::per_element());
  BOOST_TEST(zarr::group::open(s, "g").children() == (std::vector<std::string>{"a", "h"}), boost::test_tools::per_element());
  BOOST_TEST(zarr::group::open(s, "").metadata().attributes.at("title") == "t");
  ZARR_CHECK_ERROR(zarr::group::create(s, "g"), zarr::errc::already_exists, "\"/g\"");
  ZARR_CHECK_ERROR(zarr::group::open(s, "g/a"), zarr::errc::not_found, "expected a group");
  ZARR_CHECK_ERROR(zarr::array::open(s, "g"), zarr::errc::not_found, "expected an array");
  ZARR_CHECK_ERROR(zarr::array::open(s, "nothing"), zarr::errc::not_found, "\"/nothing\"");
  ZARR_CHECK_ERROR(zarr::group::create(s, "g/__bad"), zarr::errc::invalid_key, "__bad");
}

BOOST_AUTO_TEST_CASE(updates_attributes) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "a", metadata({2}, {2}, zarr::data_type::uint8, little()));
  a.set_attributes({{"k", json::array{1, 2, 3}}});
  BOOST_TEST(zarr::array::open(s, "a").metadata().attributes.at("k") == (json::array{1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(shrinking_erases_chunks_and_resets_border_elements) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "", metadata({6}, {4}, zarr::data_type::uint8, little()));
  a.write<std::uint8_t>(zarr::region::all(a.shape()), std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6});
  const std::vector<std::uint64_t> small{3}, big{8};
  a.resize(small);
  BOOST_TEST(!s->get("c/1").has_value());
  a.resize(big);
  const auto back = zarr::array::open(s, "").read<std::uint8_t>(zarr::region::all(big));
  BOOST_TEST(back == (std::vector<std::uint8_t>{1, 2, 3, 0, 0, 0, 0, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rejects_metadata_whose_chain_cannot_be_resolved) {
  auto s = std::make_shared<zarr::memory_store>();
  ZARR_CHECK_ERROR(zarr::array::create(s, "", metadata({2}, {2}, zarr::data_type::uint8, json::parse(R"([{"name": "unknown"}])"))),
                   zarr::errc::unsupported, "codecs[0].name");
  BOOST_TEST(s->list("").empty());  // nothing written
  // an unknown codec that need not be understood is skipped
  BOOST_CHECK_NO_THROW(zarr::array::create(
      s, "", metadata({2}, {2}, zarr::data_type::uint8,
                      json::parse(R"([{"name": "bytes"}, {"name": "x.checksum", "must_understand": false}])"))));
}

BOOST_AUTO_TEST_CASE(concurrent_writers_of_one_chunk_lose_nothing) {
  for (int round = 0; round < 10; ++round) {
    auto s = std::make_shared<zarr::memory_store>();
    auto a = zarr::array::create(s, "", metadata({64}, {64}, zarr::data_type::uint8,
                                                 json::parse(R"([{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 1}}])")));
    std::vector<std::thread> writers;
    for (std::uint8_t t = 0; t < 8; ++t)
      writers.emplace_back([&a, t] {
        for (std::uint64_t i = 0; i < 8; ++i)
          a.write<std::uint8_t>({{8u * t + i}, {8u * t + i + 1}}, std::vector<std::uint8_t>{static_cast<std::uint8_t>(t + 1)});
      });
    for (auto& w : writers) w.join();
    const auto back = a.read<std::uint8_t>(zarr::region::all(a.shape()));
    for (std::size_t i = 0; i < 64; ++i) BOOST_TEST(back[i] == i / 8 + 1);
  }
}

BOOST_AUTO_TEST_CASE(reads_and_writes_in_parallel_give_the_same_bytes_as_serially) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "", metadata({200, 300}, {32, 64}, zarr::data_type::int32,
                                               json::parse(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}])")));
  std::vector<std::int32_t> values(200 * 300);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * 2654435761u);
  zarr::set_concurrency(4);
  a.write<std::int32_t>(zarr::region::all(a.shape()), values);
  const auto parallel = a.read<std::int32_t>({{3, 5}, {199, 290}});
  zarr::set_concurrency(1);
  const auto serial = a.read<std::int32_t>({{3, 5}, {199, 290}});
  zarr::set_concurrency(0);
  BOOST_TEST(parallel == serial);
  BOOST_TEST(parallel[0] == values[3 * 300 + 5]);
  BOOST_TEST(zarr::concurrency() >= 1u);
}

// A property test: random shapes, chunkings, codec chains, stores and regions, checked
// against a plain in-memory model of the array (model.hpp).
BOOST_AUTO_TEST_CASE(random_region_reads_and_writes_match_a_plain_model) {
  zarr_test::random_regions_match_a_plain_model(zarr_test::memory_or_directory(zarr_test::scratch_dir()), 60);
}

BOOST_AUTO_TEST_SUITE_END()
