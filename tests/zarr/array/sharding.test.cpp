// Sharded arrays at the array level: reading one inner chunk (or part of one) asks the store
// for the shard's index and the bytes of the inner chunks the region meets, nothing else
// (Zarr v3 codecs/sharding_indexed "Partial decoding"), counted by a store that records each read;
// in Morton order, a box of inner chunks is fewer reads.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.store;
import zarr.codec;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.bytes;
import zarr.nd;

namespace json = boost::json;

namespace {

// A memory store that counts the bytes it hands out and remembers the ranges asked for,
// also through snapshots (the one version of a shard that a partial read uses).
class counting_store final : public zarr::store {
 public:
  std::unique_ptr<const zarr::stored_value> snapshot(std::string_view key) const override {
    auto value = inner_.snapshot(key);
    if (!value) {
      served(key, std::nullopt, "absent");
      return nullptr;
    }
    return std::make_unique<const counted>(this, std::string(key), std::move(value));
  }
  std::optional<zarr::bytes> get(std::string_view key) const override { return served(key, inner_.get(key), "whole"); }
  std::optional<zarr::bytes> get(std::string_view key, zarr::byte_range range) const override {
    return served(key, inner_.get(key, range),
                  std::to_string(range.offset) + "+" + std::to_string(range.length) + (range.suffix ? " suffix" : ""));
  }
  std::optional<std::uint64_t> size(std::string_view key) const override { return inner_.size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override { inner_.set(key, value); }
  void erase(std::string_view key) override { inner_.erase(key); }
  std::vector<std::string> list(std::string_view prefix) const override { return inner_.list(prefix); }
  // Partial writes (read-modify-writes) go to the memory store uncounted.
  void update(std::string_view key, const zarr::update_function& modify, bool single_writer,
              const zarr::update_policy& policy) override {
    inner_.update(key, modify, single_writer, policy);
  }
  bool atomic_updates() const override { return inner_.atomic_updates(); }

  void reset() {
    const std::lock_guard lock(mutex_);
    bytes_served = 0;
    reads.clear();
  }
  mutable std::uint64_t bytes_served = 0;
  mutable std::vector<std::string> reads;  // "key: range"

 private:
  class counted final : public zarr::stored_value {
   public:
    counted(const counting_store* owner, std::string key, std::unique_ptr<const zarr::stored_value> value)
        : owner_(owner), key_(std::move(key)), value_(std::move(value)) {}
    zarr::bytes get(std::optional<zarr::byte_range> range) const override {
      const auto what = range ? std::to_string(range->offset) + "+" + std::to_string(range->length) + (range->suffix ? " suffix" : "")
                              : std::string("whole");
      return *owner_->served(key_, value_->get(range), what);
    }

   private:
    const counting_store* owner_;
    std::string key_;
    std::unique_ptr<const zarr::stored_value> value_;
  };

  std::optional<zarr::bytes> served(std::string_view key, std::optional<zarr::bytes> value, const std::string& what) const {
    const std::lock_guard lock(mutex_);
    if (value) bytes_served += value->size();
    reads.push_back(std::string(key) + ": " + what);
    return value;
  }
  zarr::memory_store inner_;
  mutable std::mutex mutex_;
};

// 64 x 64 uint16 in 32 x 32 shards of 8 x 8 inner chunks (zstd), index at the end with crc32c.
const char* sharded_metadata = R"({"zarr_format": 3, "node_type": "array", "shape": [64, 64], "data_type": "uint16",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [32, 32]}},
  "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
  "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [8, 8],
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, "crc32c"], "index_location": "end"}}]})";

// The [offset, nbytes] pairs of a stored shard's index (16 inner chunks, then the crc32c).
std::vector<std::uint64_t> index_of(const zarr::bytes& shard) {
  std::vector<std::uint64_t> index(32);
  std::memcpy(index.data(), shard.data() + shard.size() - 4 - 16 * 16, 16 * 16);
  return index;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sharded_array)

BOOST_AUTO_TEST_CASE(reading_an_inner_chunk_reads_only_the_index_and_that_chunk) {
  auto store = std::make_shared<counting_store>();
  auto a = zarr::array::create(store, "s", zarr::array_metadata::parse(zarr::parse_json(sharded_metadata)));
  std::vector<std::uint16_t> all(64 * 64);
  std::iota(all.begin(), all.end(), std::uint16_t{1});
  a.write<std::uint16_t>({{0, 0}, {64, 64}}, all);
  const auto shard = *store->get("s/c/1/0");  // rows 32-63, columns 0-31
  const auto index = index_of(shard);
  const std::uint64_t index_bytes = 16 * 16 + 4;

  // Inner chunk (1, 2) of shard (1, 0): rows 40-47, columns 16-23; k = 1 * 4 + 2.
  store->reset();
  const auto one = a.read<std::uint16_t>({{40, 16}, {48, 24}});
  BOOST_TEST(store->bytes_served == index_bytes + index[2 * 6 + 1]);
  BOOST_TEST(store->reads.size() == 2u);
  BOOST_TEST(one[0] == all[40 * 64 + 16]);
  BOOST_TEST(one[63] == all[47 * 64 + 23]);

  // Part of one inner chunk: the same bytes.
  store->reset();
  const auto part = a.read<std::uint16_t>({{41, 17}, {43, 20}});
  BOOST_TEST(store->bytes_served == index_bytes + index[2 * 6 + 1]);
  BOOST_TEST(part[0] == all[41 * 64 + 17]);

  // Two neighbouring inner chunks (k = 6 and 7): the index, then both in one read (their bytes
  // follow each other: docs/decisions.md 38).
  store->reset();
  (void)a.read<std::uint16_t>({{40, 20}, {44, 28}});
  BOOST_TEST(store->bytes_served == index_bytes + index[2 * 6 + 1] + index[2 * 7 + 1]);
  BOOST_TEST(store->reads.size() == 2u);

  // The whole shard: one read of it all.
  store->reset();
  (void)a.read<std::uint16_t>({{32, 0}, {64, 32}});
  BOOST_TEST(store->bytes_served == shard.size());
  BOOST_TEST(store->reads.size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_absent_inner_chunk_reads_only_the_index) {
  auto store = std::make_shared<counting_store>();
  auto a = zarr::array::create(store, "s", zarr::array_metadata::parse(zarr::parse_json(sharded_metadata)));
  a.write<std::uint16_t>({{0, 0}, {8, 8}}, std::vector<std::uint16_t>(64, 7));  // inner chunk 0 of shard (0, 0)
  store->reset();
  const auto absent = a.read<std::uint16_t>({{8, 8}, {16, 16}});
  BOOST_TEST(store->bytes_served == 16u * 16u + 4u);
  BOOST_TEST(absent == std::vector<std::uint16_t>(64, 0), boost::test_tools::per_element());
  // An absent shard: one failed lookup, no bytes.
  store->reset();
  (void)a.read<std::uint16_t>({{40, 40}, {48, 48}});
  BOOST_TEST(store->bytes_served == 0u);
}

// Strings take the same path: a box of a shard reads its index and the inner chunks it meets,
// through a nested shard too, and an absent inner chunk reads as the fill string.
BOOST_AUTO_TEST_CASE(strings_in_a_nested_shard_read_only_the_two_indexes_and_that_inner_chunk) {
  auto store = std::make_shared<counting_store>();
  // 32 x 32 strings, shards of 16 x 16 holding shards of 8 x 8 holding chunks of 4 x 4.
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
    "shape": [32, 32], "data_type": "string", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 16]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": "none",
    "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [8, 8],
      "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 4],
        "codecs": [{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 1}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "index_location": "end"}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "index_location": "end"}}]})"));
  auto a = zarr::array::create(store, "t", meta);
  std::vector<std::string> all(32 * 32);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = "s" + std::to_string(i * 7919 % 1000003);
  a.write_strings({{0, 0}, {32, 32}}, all);
  const auto shard = *store->get("t/c/1/0");  // rows 16-31, columns 0-15
  // The outer index: 4 inner shards of 8 x 8, 16 bytes each, at the end.
  std::vector<std::uint64_t> outer(8), nested(8);
  std::memcpy(outer.data(), shard.data() + shard.size() - 64, 64);
  // Rows 20-23, columns 4-7: inner shard (0, 0) of it (k 0), and in that its chunk (1, 1) (k 3).
  const auto& o = outer[0];
  std::memcpy(nested.data(), shard.data() + o + outer[1] - 64, 64);
  store->reset();
  const auto one = a.read_strings({{20, 4}, {24, 8}});
  BOOST_TEST(store->bytes_served == 64u + 64u + nested[2 * 3 + 1]);
  BOOST_TEST(store->reads.size() == 3u);
  std::vector<std::string> expected;
  for (std::size_t r = 20; r < 24; ++r)
    for (std::size_t c = 4; c < 8; ++c) expected.push_back(all[r * 32 + c]);
  BOOST_TEST(one == expected, boost::test_tools::per_element());
  // Part of an inner chunk, across two inner chunks of two nested shards: the values.
  const auto across = a.read_strings({{22, 6}, {25, 10}});
  expected.clear();
  for (std::size_t r = 22; r < 25; ++r)
    for (std::size_t c = 6; c < 10; ++c) expected.push_back(all[r * 32 + c]);
  BOOST_TEST(across == expected, boost::test_tools::per_element());

  // An inner chunk of only the fill value is not stored: it reads as "none" from the indexes.
  a.write_strings({{0, 0}, {4, 4}}, std::vector<std::string>(16, "none"));
  store->reset();
  BOOST_TEST(a.read_strings({{1, 1}, {3, 3}}) == std::vector<std::string>(4, "none"), boost::test_tools::per_element());
  BOOST_TEST(store->reads.size() == 2u);  // the two indexes
}

// Behind elementwise codecs (scale_offset, cast_value) the shard is still read in part: the
// box passes through them unchanged, and they decode only what was read.
BOOST_AUTO_TEST_CASE(an_inner_chunk_behind_elementwise_codecs_reads_only_the_index_and_that_chunk) {
  auto store = std::make_shared<counting_store>();
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
    "shape": [64, 64], "data_type": "float64", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [32, 32]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 1,
    "codecs": [{"name": "scale_offset", "configuration": {"offset": 1, "scale": 4}},
      {"name": "cast_value", "configuration": {"data_type": "uint16"}},
      {"name": "sharding_indexed", "configuration": {"chunk_shape": [8, 8],
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, "crc32c"]}}]})"));
  auto a = zarr::array::create(store, "f", meta);
  std::vector<double> all(64 * 64);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = 1 + static_cast<double>(i % 4000) / 4;  // exact in the codecs
  a.write<double>({{0, 0}, {64, 64}}, all);
  const auto index = index_of(*store->get("f/c/1/0"));
  store->reset();
  const auto part = a.read<double>({{41, 17}, {43, 20}});  // inside inner chunk 6 of shard (1, 0)
  BOOST_TEST(store->reads.size() == 2u);
  BOOST_TEST(store->bytes_served == 16u * 16u + 4u + index[2 * 6 + 1]);
  for (std::size_t y = 0; y < 2; ++y)
    for (std::size_t x = 0; x < 3; ++x) BOOST_TEST(part[y * 3 + x] == all[(41 + y) * 64 + 17 + x]);
}

// Written with array_options::inner_chunk_order = morton, a shard stores its inner chunks in
// Morton order (bits interleaved, the row's bit first at each level), so that a 2 x 2 box of
// inner chunks is one byte range; in C order it is two, rows apart by more than the range
// merge gap (each inner chunk is 64 KiB). The index keeps C order; the values read back.
BOOST_AUTO_TEST_CASE(morton_order_keeps_a_box_of_inner_chunks_in_one_byte_range) {
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
    "shape": [512, 512], "data_type": "uint32", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [512, 512]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
    "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [128, 128],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, "crc32c"]}}]})"));
  std::vector<std::uint32_t> all(512 * 512);
  std::iota(all.begin(), all.end(), std::uint32_t{1});
  const std::uint64_t inner_bytes = 128 * 128 * 4, index_bytes = 16 * 16 + 4;
  const auto box = zarr::region{{0, 0}, {256, 256}};  // inner chunks (0, 0), (0, 1), (1, 0), (1, 1)
  std::vector<std::uint32_t> expected;
  for (std::size_t y = 0; y < 256; ++y)
    for (std::size_t x = 0; x < 256; ++x) expected.push_back(all[y * 512 + x]);

  // The Morton position of inner chunk k = 4 * row + column: row1 col1 row0 col0.
  const auto morton = [](std::uint64_t k) {
    const auto r = k / 4, c = k % 4;
    return ((r >> 1 & 1) << 3) | ((c >> 1 & 1) << 2) | ((r & 1) << 1) | (c & 1);
  };
  for (const auto order : {zarr::chunk_order::morton, zarr::chunk_order::c}) {
    BOOST_TEST_CONTEXT((order == zarr::chunk_order::morton ? "morton" : "c")) {
      auto store = std::make_shared<counting_store>();
      auto a = zarr::array::create(store, "m", meta, false, {.inner_chunk_order = order});
      a.write<std::uint32_t>(zarr::region::all(a.shape()), all);
      const auto index = index_of(*store->get("m/c/0/0"));
      for (std::uint64_t k = 0; k < 16; ++k) {
        BOOST_TEST(index[2 * k + 1] == inner_bytes);
        const auto position = order == zarr::chunk_order::morton ? morton(k) : k;
        BOOST_TEST(index[2 * k] == position * inner_bytes, "inner chunk " << k);
      }
      store->reset();
      BOOST_TEST(a.read<std::uint32_t>(box) == expected, boost::test_tools::per_element());
      BOOST_TEST(store->bytes_served == index_bytes + 4 * inner_bytes);
      BOOST_TEST(store->reads.size() == (order == zarr::chunk_order::morton ? 2u : 3u));
      // Opened again (in C order), it reads the same.
      BOOST_TEST(zarr::array::open(store, "m").read<std::uint32_t>(zarr::region::all(a.shape())) == all);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
