// Writing stores that another implementation reads: arrays we write are read back by
// zarrita.js (through tests/interop/read_with_zarrita.mjs) and must equal what we wrote.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "corpus_json.hpp"
import zarr.dtype;
import zarr.store;
import zarr.codec;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// What one written array must read back as.
struct written {
  std::string path;
  json::object expected;
};

json::value codec(const char* text) { return json::parse(text); }

std::string run(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  BOOST_TEST_REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 65536> buffer{};
  while (const auto n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  if (status != 0) return {};
  return out;
}

// Element i of a test pattern of `type`, as bytes in the in-memory layout: extremes first,
// then values that vary in every byte.
void pattern(zarr::data_type type, std::uint64_t i, std::byte* out) {
  using zarr::data_type;
  const auto put = [&]<class T>(T v) { std::memcpy(out, &v, sizeof v); };
  const std::uint64_t mix = (i + 1) * 0x9E3779B97F4A7C15ull;
  switch (type) {
    case data_type::bool_: put(static_cast<std::uint8_t>((mix >> 61) & 1)); break;
    case data_type::int8: put(i == 0 ? std::int8_t{-128} : i == 1 ? std::int8_t{127} : static_cast<std::int8_t>(mix >> 56)); break;
    case data_type::int16: put(i == 0 ? std::int16_t{-32768} : static_cast<std::int16_t>(mix >> 48)); break;
    case data_type::int32: put(i == 0 ? std::numeric_limits<std::int32_t>::min() : static_cast<std::int32_t>(mix >> 32)); break;
    case data_type::int64: put(i == 0 ? std::numeric_limits<std::int64_t>::min() : i == 1 ? std::numeric_limits<std::int64_t>::max()
                                                                                         : static_cast<std::int64_t>(mix)); break;
    case data_type::uint8: put(static_cast<std::uint8_t>(mix >> 56)); break;
    case data_type::uint16: put(i == 0 ? std::uint16_t{65535} : static_cast<std::uint16_t>(mix >> 48)); break;
    case data_type::uint32: put(static_cast<std::uint32_t>(mix >> 32)); break;
    case data_type::uint64: put(i == 0 ? std::numeric_limits<std::uint64_t>::max() : mix); break;
    case data_type::float16: {
      static constexpr std::uint16_t specials[] = {0x7c00, 0xfc00, 0x7e00, 0x8000, 0x0001, 0x7bff};
      put(i < 6 ? specials[i] : static_cast<std::uint16_t>((mix >> 48) & 0x7bff));  // finite patterns
      break;
    }
    case data_type::float32: {
      const float specials[] = {INFINITY, -INFINITY, NAN, -0.0f, 1e-45f, 3.4028235e38f};
      put(i < 6 ? specials[i] : static_cast<float>(static_cast<double>(static_cast<std::int64_t>(mix)) * 1e-12));
      break;
    }
    case data_type::float64: {
      const double specials[] = {INFINITY, -INFINITY, NAN, -0.0, 5e-324, 1.7976931348623157e308};
      put(i < 6 ? specials[i] : static_cast<double>(static_cast<std::int64_t>(mix)) * 1e-9);
      break;
    }
    default: BOOST_FAIL("no pattern for " << zarr::name(type));
  }
}

// Writes an array with `codecs` and `fill`, all of it or (`sparse`) its first row of chunks, and
// records what it must read as: the values written, then `fill` as given (its JSON, which the
// peer reads itself) where nothing was written.
written write_array(const std::shared_ptr<zarr::store>& s, const std::string& path, zarr::data_type type,
                    std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks, json::value codecs,
                    json::value fill, bool sparse, const zarr::array_options& options = {}) {
  json::array sj, cj;
  for (auto d : shape) sj.push_back(d);
  for (auto d : chunks) cj.push_back(d);
  const auto meta = zarr::array_metadata::parse(json::object{
      {"zarr_format", 3}, {"node_type", "array"}, {"shape", sj}, {"data_type", zarr::to_json(type)},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", cj}}}}},
      {"chunk_key_encoding", {{"name", "default"}}}, {"fill_value", fill}, {"codecs", codecs}});
  auto a = zarr::array::create(s, path, meta, false, options);
  const auto size = static_cast<std::size_t>(zarr::info(type).size);
  const auto all = zarr::region::all(a.shape());
  std::vector<std::byte> data(all.num_elements() * size);
  for (std::uint64_t i = 0; i < all.num_elements(); ++i) pattern(type, i, data.data() + i * size);
  auto written = all.num_elements();
  if (sparse) {
    // Write only the first row of chunks (in dimension 0): the rest stays missing.
    auto r = all;
    if (!r.stop.empty()) r.stop[0] = std::min(r.stop[0], chunks[0]);
    written = r.num_elements();  // C order: the leading rows
    a.write(r, std::span<const std::byte>(data.data(), written * size));
  } else {
    a.write(all, data);
  }
  // read_with_zarrita.mjs writes 64-bit integers as decimal strings.
  const bool wide = type == zarr::data_type::int64 || type == zarr::data_type::uint64;
  const json::value fill_form = wide && fill.is_number() ? json::value(json::serialize(fill)) : fill;
  json::array values;
  for (std::uint64_t i = 0; i < all.num_elements(); ++i)
    values.push_back(i < written ? zarr_test::element_json(type, data.data() + i * size) : fill_form);
  return {path, json::object{{"shape", sj}, {"dtype", zarr::name(type)}, {"fill_value", fill_form}, {"data", values}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interop_write)

BOOST_AUTO_TEST_CASE(zarrita_reads_what_we_write) {
  const char* node_dir = std::getenv("ZARR_NODE_DIR");
  if (node_dir == nullptr || !fs::exists(fs::path(node_dir) / "node_modules" / "zarrita")) {
    BOOST_TEST(std::system("command -v node >/dev/null 2>&1") != 0, "node exists, yet zarrita was not installed");
    zarr_test::peer_missing("zarrita.js is not installed (node or npm missing); the write-interop test did not run");
    return;
  }
  const auto root = zarr_test::scratch_dir() / "store";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  zarr::group::create(s, "", {{"writer", "zarr C++"}});
  std::vector<written> arrays;
  const auto le = codec(R"([{"name": "bytes", "configuration": {"endian": "little"}}])");
  const auto be = codec(R"([{"name": "bytes", "configuration": {"endian": "big"}}])");
  using zarr::data_type;
  for (auto t : {data_type::bool_, data_type::int8, data_type::int16, data_type::int32, data_type::int64, data_type::uint8,
                 data_type::uint16, data_type::uint32, data_type::uint64, data_type::float16, data_type::float32,
                 data_type::float64}) {
    const std::string n(zarr::name(t));
    const json::value fill = t == data_type::bool_ ? json::value(false) : json::value(0);
    arrays.push_back(write_array(s, "dtypes/le/" + n, t, {7, 5}, {3, 2}, le, fill, false));
    if (t != data_type::bool_)  // zarrita 0.7.5 byte-swaps bool under "big" (a zarrita bug)
      arrays.push_back(write_array(s, "dtypes/be/" + n, t, {4, 3, 5}, {3, 2, 2}, be, fill, true));
  }
  for (auto t : {data_type::float16, data_type::float32, data_type::float64})
    for (const char* f : {"NaN", "Infinity", "-Infinity"})
      arrays.push_back(write_array(s, std::string("fill/") + std::string(zarr::name(t)) + "_" + f, t, {6, 4}, {4, 3}, le,
                                   json::value(f), true));
  arrays.push_back(write_array(s, "fill/int16_neg", data_type::int16, {9}, {4}, le, json::value(-7), true));
  arrays.push_back(write_array(s, "shapes/0d", data_type::int32, {}, {}, le, json::value(0), false));
  arrays.push_back(write_array(s, "shapes/4d", data_type::uint16, {3, 4, 2, 5}, {2, 3, 1, 2}, le, json::value(0), true));
  arrays.push_back(write_array(s, "shapes/chunk_gt_shape", data_type::int8, {5}, {8}, le, json::value(0), false));
  arrays.push_back(write_array(s, "codecs/transpose", data_type::int32, {5, 6, 7}, {2, 3, 4},
                               codec(R"([{"name": "transpose", "configuration": {"order": [2, 0, 1]}}, {"name": "bytes", "configuration": {"endian": "big"}}])"),
                               json::value(0), true));
  arrays.push_back(write_array(s, "codecs/gzip", data_type::float64, {30, 7}, {8, 7},
                               codec(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 6}}])"),
                               json::value(0), true));
  arrays.push_back(write_array(s, "codecs/zstd", data_type::uint32, {50}, {16},
                               codec(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3, "checksum": true}}])"),
                               json::value(0), false));
  arrays.push_back(write_array(s, "codecs/blosc", data_type::int16, {40, 3}, {16, 2},
                               codec(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle"}}])"),
                               json::value(0), false));
  arrays.push_back(write_array(s, "codecs/crc32c", data_type::int64, {11}, {4},
                               codec(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])"),
                               json::value(0), true));
  arrays.push_back(write_array(s, "sharding/basic", data_type::uint16, {10, 9}, {4, 6},
                               codec(R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3],
                                   "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
                                   "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])"),
                               json::value(0), true));
  arrays.push_back(write_array(s, "sharding/index_start", data_type::float32, {8, 8}, {4, 4},
                               codec(R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
                                   "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip", "configuration": {"level": 1}}],
                                   "index_codecs": [{"name": "bytes", "configuration": {"endian": "big"}}], "index_location": "start"}}])"),
                               json::value("NaN"), true));
  // Inner chunks in Morton order (a 4 x 5 grid of them per shard; the index says where each is).
  arrays.push_back(write_array(s, "sharding/morton", data_type::int32, {12, 10}, {8, 10},
                               codec(R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
                                   "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                                   "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])"),
                               json::value(0), false, {.inner_chunk_order = zarr::chunk_order::morton}));

  const auto dump = fs::path(node_dir) / "read_with_zarrita.mjs";
  for (const auto& w : arrays) {
    BOOST_TEST_CONTEXT(w.path) {
      const auto out = run("node " + dump.string() + " " + root.string() + " " + w.path + " 2>&1");
      BOOST_TEST_REQUIRE(!out.empty(), "read_with_zarrita.mjs failed");
      const auto got = zarr::parse_json(out, "read_with_zarrita.mjs output").as_object();
      BOOST_TEST(got.at("shape") == w.expected.at("shape"));
      BOOST_TEST(got.at("dtype") == w.expected.at("dtype"));
      BOOST_TEST(zarr_test::same(w.expected.at("fill_value"), got.at("fill_value")));
      const auto& want = w.expected.at("data").as_array();
      // a 0-d array is dumped as a one-element list
      const auto& have = got.at("data").as_array();
      BOOST_TEST_REQUIRE(have.size() == want.size());
      std::size_t differences = 0;
      for (std::size_t i = 0; i < want.size(); ++i)
        if (!zarr_test::same(want[i], have[i]) && differences++ < 3)
          BOOST_ERROR("element " << i << ": we wrote " << json::serialize(want[i]) << ", zarrita read " << json::serialize(have[i]));
      BOOST_TEST(differences == 0u);
    }
  }
  BOOST_TEST(arrays.size() >= 40u);
}

BOOST_AUTO_TEST_SUITE_END()
