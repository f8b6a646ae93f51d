// Corrupt chunks, bad metadata and hostile node paths in a store: a clear error naming the
// chunk key or the field, never a crash, and the rest of the array stays readable.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.bytes;
import zarr.nd;

namespace json = boost::json;

namespace {

// A 1-d uint32 array of 4 chunks of 8, every chunk written.
zarr::array make(const std::shared_ptr<zarr::store>& s, const char* codecs) {
  const auto meta = zarr::array_metadata::parse(json::object{
      {"zarr_format", 3}, {"node_type", "array"}, {"shape", {32}}, {"data_type", "uint32"},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {8}}}}}},
      {"chunk_key_encoding", {{"name", "default"}}}, {"fill_value", 0}, {"codecs", json::parse(codecs)}});
  auto a = zarr::array::create(s, "a", meta);
  std::vector<std::uint32_t> values(32);
  for (std::uint32_t i = 0; i < 32; ++i) values[i] = i * 7 + 1;
  a.write<std::uint32_t>(zarr::region::all(a.shape()), values);
  return a;
}

void expect_only_chunk_1_bad(const zarr::array& a, const char* why) {
  ZARR_CHECK_ERROR(a.read<std::uint32_t>({{8}, {16}}), zarr::errc::corrupt_chunk, "chunk \"a/c/1\"");
  ZARR_CHECK_ERROR(a.read<std::uint32_t>({{0}, {32}}), zarr::errc::corrupt_chunk, why);
  // the other chunks still read
  const auto head = a.read<std::uint32_t>({{0}, {8}});
  BOOST_TEST(head[3] == 22u);
  const auto tail = a.read<std::uint32_t>({{16}, {32}});
  BOOST_TEST(tail[15] == 31u * 7u + 1u);
}

void mangle(zarr::store& s, const std::string& key, auto&& f) {
  auto value = *s.get(key);
  f(value);
  s.set(key, value);
}

const char* le = R"([{"name": "bytes", "configuration": {"endian": "little"}}])";

}  // namespace

BOOST_AUTO_TEST_SUITE(corrupt_chunks)

BOOST_AUTO_TEST_CASE(a_truncated_chunk_names_its_key) {
  auto s = std::make_shared<zarr::memory_store>();
  const auto a = make(s, le);
  mangle(*s, "a/c/1", [](zarr::bytes& v) { v.resize(v.size() - 3); });
  expect_only_chunk_1_bad(a, "a/c/1");
}

BOOST_AUTO_TEST_CASE(a_wrong_checksum_names_its_key) {
  auto s = std::make_shared<zarr::memory_store>();
  const auto a = make(s, R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])");
  mangle(*s, "a/c/1", [](zarr::bytes& v) { v[5] ^= std::byte{0x10}; });
  expect_only_chunk_1_bad(a, "crc32c");
}

BOOST_AUTO_TEST_CASE(garbage_compressed_bytes_name_their_key) {
  for (const char* codecs : {R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 5}}])",
                             R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3}}])",
                             R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "noshuffle"}}])"}) {
    BOOST_TEST_CONTEXT(codecs) {
      auto s = std::make_shared<zarr::memory_store>();
      const auto a = make(s, codecs);
      mangle(*s, "a/c/1", [](zarr::bytes& v) {
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::byte>((i * 151 + 7) & 0xff);
      });
      expect_only_chunk_1_bad(a, "a/c/1");
      s->set("a/c/1", std::vector<std::byte>{});  // empty
      expect_only_chunk_1_bad(a, "a/c/1");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_chunk_that_decompresses_to_the_wrong_size_names_its_key) {
  // chunks hold 32 bytes; each stored chunk is a valid stream of 5, 31, 33 or 40 bytes
  const auto le_then = [](const char* codec) {
    return std::string(R"([{"name": "bytes", "configuration": {"endian": "little"}}, )") + codec + "]";
  };
  // The decoder fills the chunk's 32 bytes directly, so it is the one that finds the size wrong.
  const auto why = [](std::string_view codec, std::size_t n) -> std::string {
    const auto got = std::to_string(n);
    if (codec == "gzip") return "(gzip): expected a gzip stream of 32 bytes, got " + (n > 32 ? "more than 32 bytes" : got + " bytes");
    if (codec == "zstd") return "(zstd): expected a zstd frame of 32 bytes, got a frame declaring " + got + " bytes";
    if (codec == "blosc") return "(blosc): expected a blosc buffer of 32 bytes, got one declaring " + got;
    return "(crc32c): expected 32 bytes before the checksum, got " + got;
  };
  for (const auto& codecs : {le_then(R"({"name": "gzip", "configuration": {"level": 5}})"),
                             le_then(R"({"name": "zstd", "configuration": {"level": 3}})"),
                             le_then(R"({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4}})"),
                             le_then(R"({"name": "crc32c"})")}) {
    BOOST_TEST_CONTEXT(codecs) {
      auto s = std::make_shared<zarr::memory_store>();
      const auto a = make(s, codecs.c_str());
      const auto& compressor = *a.codecs().bytes_to_bytes().back();
      for (std::size_t n : {5u, 31u, 33u, 40u}) {
        BOOST_TEST_CONTEXT(n << " bytes") {
          std::vector<std::byte> payload(n, std::byte{7});
          s->set("a/c/1", compressor.encode(payload));
          expect_only_chunk_1_bad(a, ("codecs[1] " + why(compressor.name(), n)).c_str());
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_shard_index_pointing_outside_names_its_key) {
  auto s = std::make_shared<zarr::memory_store>();
  const auto a = make(s, R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [4],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])");
  // index at the end: [offset, nbytes] of inner chunks 0 and 1; push inner chunk 1 out
  mangle(*s, "a/c/1", [](zarr::bytes& v) {
    const std::uint64_t far = 1u << 20;
    std::memcpy(v.data() + v.size() - 16, &far, 8);
  });
  ZARR_CHECK_ERROR(a.read<std::uint32_t>({{8}, {16}}), zarr::errc::corrupt_chunk, "chunk \"a/c/1\"");
  ZARR_CHECK_ERROR(a.read<std::uint32_t>({{12}, {14}}), zarr::errc::corrupt_chunk, "chunk \"a/c/1\"");  // partial read
  BOOST_TEST(a.read<std::uint32_t>({{8}, {12}})[0] == 57u);  // inner chunk 0 of that shard is fine
  BOOST_TEST(a.read<std::uint32_t>({{16}, {32}}).size() == 16u);
}

// Zarr v2 (".zarray", keys "a/1"): a truncated, a garbage and an empty chunk under each
// compressor (garbage of the right size is data without one) name their key; the other
// chunks still read.
BOOST_AUTO_TEST_CASE(a_corrupt_chunk_of_a_zarr_v2_array_names_its_key) {
  for (const char* compressor : {"null", R"({"id": "zlib", "level": 1})", R"({"id": "zstd", "level": 1})",
                                 R"({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0})"}) {
    BOOST_TEST_CONTEXT(compressor) {
      for (int damage = 0; damage < 3; ++damage) {
        if (damage == 1 && std::string_view(compressor) == "null") continue;  // garbage of the right size is data
        BOOST_TEST_CONTEXT("damage " << damage) {
          auto s = std::make_shared<zarr::memory_store>();
          auto a = zarr::array::create(s, "a", zarr::array_metadata::parse_v2(std::string(R"({"zarr_format": 2, "shape": [32],
              "chunks": [8], "dtype": "<u4", "fill_value": 0, "order": "C", "filters": null, "compressor": )") + compressor + "}"));
          std::vector<std::uint32_t> values(32);
          for (std::uint32_t i = 0; i < 32; ++i) values[i] = i * 7 + 1;
          a.write<std::uint32_t>(zarr::region::all(a.shape()), values);
          BOOST_TEST_REQUIRE(s->get("a/1").has_value());
          mangle(*s, "a/1", [&](zarr::bytes& v) {
            if (damage == 0) v.resize(v.size() - 3);
            if (damage == 1)
              for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::byte>((i * 151 + 7) & 0xff);
            if (damage == 2) v.clear();
          });
          ZARR_CHECK_ERROR(a.read<std::uint32_t>({{8}, {16}}), zarr::errc::corrupt_chunk, "chunk \"a/1\"");
          ZARR_CHECK_ERROR(a.read<std::uint32_t>({{0}, {32}}), zarr::errc::corrupt_chunk, "chunk \"a/1\"");
          BOOST_TEST(a.read<std::uint32_t>({{0}, {8}})[3] == 22u);
          BOOST_TEST(a.read<std::uint32_t>({{16}, {32}})[15] == 31u * 7u + 1u);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bad_metadata_in_a_store)

BOOST_AUTO_TEST_CASE(opening_reports_the_field_and_the_node) {
  auto s = std::make_shared<zarr::memory_store>();
  const auto put = [&](const std::string& text) { s->set("x/zarr.json", std::as_bytes(std::span(text))); };
  const std::string head = R"({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int16",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
      "chunk_key_encoding": {"name": "default"}, )";
  put(head + R"("fill_value": 0, "codecs": [{"name": "lz77"}]})");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::unsupported, "array \"/x\": codecs[0].name");
  put(head + R"("fill_value": 0, "codecs": [{"name": "gzip", "configuration": {"level": 1}}, {"name": "bytes", "configuration": {"endian": "little"}}]})");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::invalid_metadata, "codecs[0] (gzip)");
  put(head + R"("fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "transpose", "configuration": {"order": [0]}}]})");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::invalid_metadata, "codecs[1] (transpose)");
  put(head + R"("fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "bytes", "configuration": {"endian": "little"}}]})");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::invalid_metadata, "codecs[1] (bytes)");
  put(head + R"("fill_value": 40000, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]})");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::invalid_value, "node \"/x\": fill_value");
  put(head + R"("fill_value": 0, "codecs": ["bytes"]})");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::invalid_metadata, "codecs[0].configuration.endian");
  put("not json");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::invalid_metadata, "node \"/x\": zarr.json");
}

BOOST_AUTO_TEST_CASE(resizing_to_a_shape_that_overflows_64_bits_is_refused) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = make(s, le);  // uint32: 4 bytes per element
  const std::vector<std::vector<std::uint64_t>> shapes{{std::uint64_t{1} << 62}, {UINT64_MAX}};
  for (const auto& shape : shapes)
    ZARR_CHECK_ERROR(a.resize(shape), zarr::errc::invalid_argument, "array \"/a\": resize: shape: expected a size that fits in 64 bits");
  // nothing changed, in memory or in the store
  BOOST_TEST(a.shape() == (std::vector<std::uint64_t>{32}), boost::test_tools::per_element());
  BOOST_TEST(zarr::array::open(s, "a").shape() == (std::vector<std::uint64_t>{32}), boost::test_tools::per_element());
  BOOST_TEST(a.read<std::uint32_t>({{31}, {32}})[0] == 31u * 7u + 1u);
  // the largest shape that fits is fine
  a.resize(std::vector<std::uint64_t>{UINT64_MAX / 4 / 8 * 8});
  BOOST_TEST(a.read<std::uint32_t>({{31}, {33}}) == (std::vector<std::uint32_t>{31u * 7u + 1u, 0u}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hostile_node_paths)

BOOST_AUTO_TEST_CASE(are_refused_before_anything_is_read_or_written) {
  namespace fs = std::filesystem;
  const auto dir = zarr_test::scratch_dir();
  fs::create_directories(dir / "outside");
  std::ofstream(dir / "outside" / "zarr.json") << R"({"zarr_format": 3, "node_type": "group"})";
  const auto root = dir / "store";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  const auto meta = zarr::array_metadata::parse(json::parse(R"({"zarr_format": 3, "node_type": "array",
      "shape": [4], "data_type": "uint8", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": ["bytes"]})"));
  const std::vector<std::string> paths{"..", "../outside", "a/..", "a/../../outside", ".", "a/./b", "/outside",
                                       (dir / "outside").string(), "a\\..\\..\\outside", "..\\outside",
                                       std::string("a\0b", 3), std::string("..\0", 3), "a//b", "a/"};
  for (const auto& path : paths) {
    BOOST_TEST_CONTEXT("node path \"" << path << "\"") {
      ZARR_CHECK_ERROR(zarr::array::create(s, path, meta), zarr::errc::invalid_key, "node name");
      ZARR_CHECK_ERROR(zarr::array::create(s, path, meta, true), zarr::errc::invalid_key, "node name");
      ZARR_CHECK_ERROR(zarr::array::open(s, path), zarr::errc::invalid_key, "node name");
      ZARR_CHECK_ERROR(zarr::group::create(s, path, {}, true), zarr::errc::invalid_key, "node name");
      ZARR_CHECK_ERROR(zarr::group::open(s, path), zarr::errc::invalid_key, "node name");
      ZARR_CHECK_ERROR(zarr::read_node_metadata(*s, path), zarr::errc::invalid_key, "node name");
    }
  }
  // nothing was written: the root is still empty, the outside group unchanged and alone
  BOOST_TEST(fs::is_empty(root));
  BOOST_TEST(std::distance(fs::directory_iterator(dir / "outside"), fs::directory_iterator()) == 1);
  BOOST_TEST(fs::file_size(dir / "outside" / "zarr.json") == 40u);
}

BOOST_AUTO_TEST_SUITE_END()
