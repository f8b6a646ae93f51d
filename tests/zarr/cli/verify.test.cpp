// zarr3 verify finds exactly the chunks a test corrupts, through nested groups.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "run.hpp"

namespace fs = std::filesystem;
using zarr_test::q;
using zarr_test::zarr3;

namespace {

void make_array(const fs::path& dir, const fs::path& store, const std::string& node, const std::string& codecs) {
  const std::string meta = R"({"zarr_format":3,"node_type":"array","shape":[40],"data_type":"int32",)"
                           R"("chunk_grid":{"name":"regular","configuration":{"chunk_shape":[20]}},)"
                           R"("chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":)" + codecs + "}";
  zarr_test::spit(dir / "meta.json", meta);
  auto r = zarr3("create " + q(store) + "#/" + node + " --metadata " + q(dir / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  std::string values = "[";
  for (int i = 0; i < 40; ++i) values += (i ? "," : "") + std::to_string(i * 7919 % 1000 + 1);
  zarr_test::spit(dir / "values.json", values + "]");
  r = zarr3("write " + q(store) + "#/" + node + " --input " + q(dir / "values.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
}

std::vector<std::string> bad_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("BAD ")) lines.push_back(line);
  return lines;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_verify)

BOOST_AUTO_TEST_CASE(finds_every_corrupted_chunk_and_only_those) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = dir / "v.zarr";
  const std::string bytes = R"({"name":"bytes","configuration":{"endian":"little"}})";
  make_array(dir, store, "plain", "[" + bytes + "]");
  make_array(dir, store, "gz", "[" + bytes + R"(,{"name":"gzip","configuration":{"level":6}}])");
  make_array(dir, store, "crc", "[" + bytes + R"(,{"name":"crc32c"}])");
  make_array(dir, store, "zs", "[" + bytes + R"(,{"name":"zstd","configuration":{"level":1}}])");
  make_array(dir, store, "sh", R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[5],"codecs":[)" + bytes +
                                   R"(],"index_codecs":[)" + bytes + "]}}]");
  make_array(dir, store, "deep/er/plain", "[" + bytes + "]");

  auto r = zarr3("verify " + q(store));
  BOOST_TEST(r.status == 0, r.out << r.err);
  BOOST_TEST(r.out.find("checked 12 chunks in 6 arrays: 0 bad") != std::string::npos, r.out);

  // Truncate one chunk.
  fs::resize_file(store / "plain" / "c" / "1", 13);
  // Flip bytes in the middle of a gzip chunk.
  {
    auto gz = zarr_test::slurp(store / "gz" / "c" / "0");
    for (std::size_t i = gz.size() / 2 - 2; i < gz.size() / 2 + 2; ++i) gz[i] = static_cast<char>(~gz[i]);
    zarr_test::spit(store / "gz" / "c" / "0", gz);
  }
  // Break a crc32c checksum.
  {
    auto crc = zarr_test::slurp(store / "crc" / "c" / "1");
    crc.back() = static_cast<char>(crc.back() ^ 0x01);
    zarr_test::spit(store / "crc" / "c" / "1", crc);
  }
  // Garbage into a zstd chunk.
  zarr_test::spit(store / "zs" / "c" / "0", "this is not a zstd frame at all, just garbage");
  // A shard whose index points outside the shard.
  {
    auto shard = zarr_test::slurp(store / "sh" / "c" / "1");
    const std::uint64_t outside = std::uint64_t{1} << 40;
    std::memcpy(shard.data() + shard.size() - 4 * 16, &outside, sizeof outside);
    zarr_test::spit(store / "sh" / "c" / "1", shard);
  }
  // And one deep in the hierarchy.
  fs::resize_file(store / "deep" / "er" / "plain" / "c" / "0", 0);

  r = zarr3("verify " + q(store));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(!r.err.empty());
  const auto lines = bad_lines(r.out);
  BOOST_TEST(lines.size() == 6u, r.out);
  for (const auto* key : {"\"plain/c/1\"", "\"gz/c/0\"", "\"crc/c/1\"", "\"zs/c/0\"", "\"sh/c/1\"", "\"deep/er/plain/c/0\""}) {
    const auto hits = std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(key) != std::string::npos; });
    BOOST_TEST(hits == 1, key << " in\n" << r.out);
  }
  BOOST_TEST(r.out.find("checked 12 chunks in 6 arrays: 6 bad") != std::string::npos, r.out);

  // Below a node: only what is under it.
  r = zarr3("verify " + q(store) + "#/deep");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(bad_lines(r.out).size() == 1u, r.out);
  BOOST_TEST(zarr3("verify " + q(store) + "#/crc").status == 1);
  // Repairing by rewriting clears it.
  r = zarr3("write " + q(store) + "#/crc --input " + q(dir / "values.json"));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(zarr3("verify " + q(store) + "#/crc").status == 0);
  // Invalid metadata is reported too.
  zarr_test::spit(store / "zs" / "zarr.json", "{\"zarr_format\":3}");
  r = zarr3("verify " + q(store));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.out.find("BAD " + store.string() + "#/zs:") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_SUITE_END()
