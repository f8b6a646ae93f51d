// zarr3 on Zarr v2 stores: info, tree, read and verify find the version by themselves.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "run.hpp"

namespace fs = std::filesystem;
using zarr_test::q;
using zarr_test::zarr3;

BOOST_AUTO_TEST_SUITE(cli_v2)

BOOST_AUTO_TEST_CASE(info_tree_read_and_verify_open_v2_nodes) {
  const auto dir = zarr_test::scratch_dir();
  const auto root = dir / "v2.zarr";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  zarr::group::create(s, "", {{"title", "v2"}}, false, 2);
  auto a = zarr::array::create(
      s, "g/temperature",
      zarr::array_metadata::parse_v2(R"({"chunks": [2, 2], "compressor": {"id": "zlib", "level": 1}, "dtype": ">i2",
                                         "fill_value": null, "filters": [{"id": "delta", "dtype": ">i2"}], "order": "F",
                                         "shape": [3, 3], "zarr_format": 2, "dimension_separator": "/"})",
                                     {{"_ARRAY_DIMENSIONS", boost::json::array{"y", "x"}}, {"units", "K"}}));
  a.write<std::int16_t>(zarr::region::all(a.shape()), std::vector<std::int16_t>{1, 2, 3, 4, 5, 6, 7, 8, -9});

  auto r = zarr3("info " + q(root) + "#/g/temperature");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("format           Zarr v2 (.zarray: dtype \">i2\", order \"F\")") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("fill value       null") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("numcodecs.delta") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("numcodecs.zlib") != std::string::npos, r.out);

  r = zarr3("tree " + q(root));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("temperature") != std::string::npos, r.out);

  r = zarr3("read " + q(root) + "#/g/temperature --format json");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("[1,2,3,4,5,6,7,8,-9]") != std::string::npos, r.out);

  r = zarr3("verify " + q(root));
  BOOST_TEST(r.status == 0, r.out << r.err);
  BOOST_TEST(r.out.find("checked 4 chunks in 1 arrays: 0 bad") != std::string::npos, r.out);

  r = zarr3("consolidate " + q(root));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("consolidated the metadata of 2 nodes below") != std::string::npos, r.out);
  BOOST_TEST(r.out.find(".zmetadata") != std::string::npos, r.out);
  BOOST_TEST(fs::exists(root / ".zmetadata"));
  const auto c = zarr::open_consolidated(std::make_shared<zarr::filesystem_store>(root));
  BOOST_TEST(zarr::group::open(c, "g").children() == std::vector<std::string>{"temperature"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(convert_writes_v2_as_v3_and_says_what_it_mapped) {
  const auto dir = zarr_test::scratch_dir();
  auto s = std::make_shared<zarr::filesystem_store>(dir / "v2.zarr");
  auto a = zarr::array::create(
      s, "t",
      zarr::array_metadata::parse_v2(R"({"chunks": [2, 2], "compressor": {"id": "blosc", "cname": "zstd", "clevel": 1,
                                         "shuffle": -1}, "dtype": "<u4", "fill_value": null, "order": "F", "shape": [3, 5],
                                         "filters": [{"id": "delta", "dtype": "<u4"}, {"id": "crc32"}], "zarr_format": 2})",
                                     {{"_ARRAY_DIMENSIONS", boost::json::array{"y", "x"}}, {"units", "K"}}));
  std::vector<std::uint32_t> v(15);
  for (std::uint32_t i = 0; i < 15; ++i) v[i] = i * i * 1000;
  a.write<std::uint32_t>(zarr::region::all(a.shape()), v);

  const auto r = zarr3("convert " + q(dir / "v2.zarr") + "#/t " + q(dir / "v3.zarr") + "#/t");
  BOOST_TEST(r.status == 0, r.err);
  for (const char* line : {"mapped order \"F\" -> transpose [1,0]", "mapped filters[0] \"delta\" -> numcodecs.delta",
                           "mapped filters[1] \"crc32\" -> numcodecs.crc32", "mapped compressor \"blosc\" -> blosc",
                           "mapped dtype \"<u4\" -> uint32, bytes little-endian", "mapped fill_value null -> 0",
                           "mapped attributes._ARRAY_DIMENSIONS -> dimension_names [\"y\",\"x\"]"})
    BOOST_TEST(r.out.find(line) != std::string::npos, line << " in " << r.out);
  const auto b = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir / "v3.zarr"), "t");
  BOOST_TEST(b.metadata().zarr_format == 3);
  BOOST_TEST(b.metadata().dimension_names.has_value());
  BOOST_TEST(!b.metadata().attributes.contains("_ARRAY_DIMENSIONS"));
  BOOST_TEST(b.metadata().attributes.at("units") == "K");
  BOOST_TEST(boost::json::value(b.metadata().codecs) == zarr::parse_json(R"([
    {"name": "transpose", "configuration": {"order": [1, 0]}},
    {"name": "numcodecs.delta", "configuration": {"dtype": "<u4", "astype": "<u4"}},
    {"name": "bytes", "configuration": {"endian": "little"}},
    {"name": "numcodecs.crc32", "configuration": {}},
    {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 1, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}])"));
  BOOST_TEST(b.read<std::uint32_t>(zarr::region::all(b.shape())) == v, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
