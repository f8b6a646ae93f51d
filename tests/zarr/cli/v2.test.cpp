// zarr3 on Zarr v2 stores: info, tree, read and verify find the version by themselves; convert
// from v2 to v3 and from v3 to v2 (docs/decisions.md 29, 40).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "../../support.hpp"
#include "run.hpp"
import zarr.dtype;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.store.zip;
import zarr.nd;

namespace fs = std::filesystem;
using zarr_test::q;
using zarr_test::zarr3;

BOOST_AUTO_TEST_SUITE(cli_v2)

BOOST_AUTO_TEST_CASE(zip_paths_are_zip_stores_written_when_the_command_ends) {
  const auto dir = zarr_test::scratch_dir();
  auto s = std::make_shared<zarr::filesystem_store>(dir / "src.zarr");
  auto a = zarr::array_builder({5}, zarr::data_type::int16).chunk_shape({2}).create(s, "t");
  a.write<std::int16_t>(zarr::region::all(a.shape()), std::vector<std::int16_t>{-3, 4, 5, 6, 32767});
  const auto zip = dir / "data.zarr.zip";
  auto r = zarr3("convert " + q(dir / "src.zarr") + "#/t " + q(zip) + "#/g/t");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(fs::is_regular_file(zip));
  const auto z = std::make_shared<zarr::zip_store>(zip);
  BOOST_TEST(z->list("") == (std::vector<std::string>{"g/t/c/0", "g/t/c/1", "g/t/c/2", "g/t/zarr.json", "g/zarr.json", "zarr.json"}),
             boost::test_tools::per_element());
  r = zarr3("read zip://" + zip.string() + "#/g/t --format json");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("[-3,4,5,6,32767]") != std::string::npos, r.out);
  zarr_test::spit(dir / "in.json", "[40]");
  r = zarr3("write " + q(zip) + "#/g/t --region 1:2 --input " + q(dir / "in.json"));
  BOOST_TEST(r.status == 0, r.err);
  r = zarr3("tree " + q(zip));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("t") != std::string::npos, r.out);
  BOOST_TEST(zarr::array::open(std::make_shared<zarr::zip_store>(zip), "g/t").read<std::int16_t>({{0}, {3}}) ==
                 (std::vector<std::int16_t>{-3, 40, 5}),
             boost::test_tools::per_element());
  r = zarr3("info " + q(dir / "absent.zip") + "#/t");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("absent.zip\": expected a zip file, got none") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(info_says_what_missing_chunks_without_a_fill_value_read_as_and_the_strict_flag_refuses) {
  const auto dir = zarr_test::scratch_dir();
  const auto root = dir / "v2.zarr";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  auto a = zarr::array::create(s, "n", zarr::array_metadata::parse_v2(R"({"chunks": [2], "compressor": null, "dtype": "<i4",
      "fill_value": null, "filters": null, "order": "C", "shape": [4], "zarr_format": 2})"));
  a.write<std::int32_t>({{0}, {2}}, std::vector<std::int32_t>{-5, 6});

  auto r = zarr3("info " + q(root) + "#/n");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("fill value       null (missing chunks read as the type's zero; --strict-fill-value refuses them)") !=
                 std::string::npos, r.out);
  r = zarr3("info " + q(root) + "#/n --json");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("\"missing_chunks_read_as\": \"zero\"") != std::string::npos, r.out);
  r = zarr3("read " + q(root) + "#/n --format json");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("[-5,6,0,0]") != std::string::npos, r.out);

  r = zarr3("--strict-fill-value info " + q(root) + "#/n");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("fill value       null (missing chunks are refused: --strict-fill-value)") != std::string::npos, r.out);
  r = zarr3("read " + q(root) + "#/n --format json --strict-fill-value");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("chunk \"n/1\": expected a stored chunk (the array has no fill value, \"fill_value\": null, and was "
                        "opened strict), got none") != std::string::npos, r.err);
  r = zarr3("--strict-fill-value read " + q(root) + "#/n --region 0:2 --format json");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("[-5,6]") != std::string::npos, r.out);
}

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

BOOST_AUTO_TEST_CASE(convert_format_2_writes_v3_as_v2_and_says_what_it_mapped) {
  const auto dir = zarr_test::scratch_dir();
  auto s = std::make_shared<zarr::filesystem_store>(dir / "v3.zarr");
  const std::string text = R"({"zarr_format": 3, "node_type": "array", "shape": [3, 5], "data_type": "float64",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "dimension_names": ["y", "x"],
    "attributes": {"units": "K"},
    "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
               {"name": "numcodecs.quantize", "configuration": {"digits": 3, "dtype": "<f8"}},
               {"name": "bytes", "configuration": {"endian": "big"}}, {"name": "numcodecs.crc32"},
               {"name": "numcodecs.zlib", "configuration": {"level": 4}}]})";
  auto a = zarr::array::create(s, "t", zarr::array_metadata::parse(zarr::parse_json(text), text));
  const std::vector<double> v{0.5, -1.25, 2, 1e6, -0.125, 0, 7.5, 8, 9, 10};
  a.write<double>({{0, 0}, {2, 5}}, v);  // the last row stays missing: the fill value

  const auto r = zarr3("convert --format 2 " + q(dir / "v3.zarr") + "#/t " + q(dir / "v2.zarr") + "#/g/t");
  BOOST_TEST(r.status == 0, r.err);
  for (const char* line : {R"(mapped {"name":"transpose","configuration":{"order":[1,0]}} -> order "F")",
                           R"(mapped numcodecs.quantize -> filters[0] {"id":"quantize","digits":3,"dtype":">f8","astype":">f8"})",
                           R"(mapped numcodecs.crc32 -> filters[1] {"id":"crc32"})",
                           R"(mapped numcodecs.zlib -> compressor {"id":"zlib","level":4})",
                           R"(mapped float64, bytes big-endian -> dtype ">f8")",
                           R"(mapped dimension_names ["y","x"] -> attributes._ARRAY_DIMENSIONS)",
                           R"(mapped chunk_key_encoding {"name":"default","configuration":{"separator":"/"}} -> dimension_separator ".")",
                           "note: netCDF readers without compression filters (Debian's netcdf-c, ncdump, nccopy) read this "
                           "compressed array as garbage without an error; for them, convert with --codecs FILE holding "
                           R"([{"name": "bytes", "configuration": {"endian": "little"}}])"})
    BOOST_TEST(r.out.find(line) != std::string::npos, line << " in " << r.out);
  const auto root = dir / "v2.zarr";
  BOOST_TEST(zarr::parse_json(zarr_test::slurp(root / "g/t/.zarray")) == zarr::parse_json(R"({"chunks": [2, 2],
    "compressor": {"id": "zlib", "level": 4}, "dimension_separator": ".", "dtype": ">f8", "fill_value": "NaN",
    "filters": [{"id": "quantize", "digits": 3, "dtype": ">f8", "astype": ">f8"}, {"id": "crc32"}], "order": "F",
    "shape": [3, 5], "zarr_format": 2})"));
  BOOST_TEST(zarr::parse_json(zarr_test::slurp(root / "g/t/.zattrs")) ==
             zarr::parse_json(R"({"units": "K", "_ARRAY_DIMENSIONS": ["y", "x"]})"));
  BOOST_TEST(fs::exists(root / ".zgroup"));
  BOOST_TEST(fs::exists(root / "g/.zgroup"));
  BOOST_TEST(fs::exists(root / "g/t/0.0"));
  BOOST_TEST(!fs::exists(root / "g/t/1.0"));  // missing in the source: missing here too
  const auto b = zarr::array::open(std::make_shared<zarr::filesystem_store>(root), "g/t");
  BOOST_TEST(b.metadata().zarr_format == 2);
  const auto back = b.read<double>(zarr::region::all(b.shape()));
  const auto expected = a.read<double>(zarr::region::all(a.shape()));
  BOOST_TEST_REQUIRE(back.size() == expected.size());
  for (std::size_t i = 0; i < back.size(); ++i)
    BOOST_TEST((back[i] == expected[i] || (std::isnan(back[i]) && std::isnan(expected[i]))), "element " << i);
}

BOOST_AUTO_TEST_CASE(convert_format_2_names_what_zarr_v2_cannot_express_and_writes_nothing) {
  const auto dir = zarr_test::scratch_dir();
  auto s = std::make_shared<zarr::filesystem_store>(dir / "v3.zarr");
  const auto make = [&](const std::string& name, const std::string& type, const std::string& codecs, const std::string& extra) {
    const std::string text = R"({"zarr_format": 3, "node_type": "array", "shape": [4, 4], "data_type": ")" + type +
                             R"(", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": )" + codecs + extra + "}";
    zarr::array::create(s, name, zarr::array_metadata::parse(zarr::parse_json(text), text));
  };
  const std::string little = R"([{"name": "bytes", "configuration": {"endian": "little"}}])";
  make("sharded", "int16", R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1],
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])", "");
  make("checked", "int16", R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])", "");
  make("f8", "float8_e4m3", little, "");
  make("unnamed", "int16", little, R"(, "dimension_names": ["y", null])");
  for (const auto& [name, message] : std::vector<std::pair<std::string, std::string>>{
           {"sharded", R"(--format 2: codecs[0]: expected a codec that Zarr v2 (numcodecs) has, got "sharding_indexed" (Zarr v2 has no shards))"},
           {"checked", R"(--format 2: codecs[1]: expected a codec that Zarr v2 (numcodecs) has, got "crc32c")"},
           {"f8", "--format 2: data_type: expected a data type that Zarr v2 (NumPy) has, got float8_e4m3"},
           {"unnamed", R"(--format 2: dimension_names: expected a name for every dimension or none)"}}) {
    const auto r = zarr3("convert --format 2 " + q(dir / "v3.zarr") + "#/" + name + " " + q(dir / "v2.zarr") + "#/" + name);
    BOOST_TEST(r.status == 1, name);
    BOOST_TEST(r.err.find(message) != std::string::npos, r.err);
  }
  BOOST_TEST(!fs::exists(dir / "v2.zarr"));
}

BOOST_AUTO_TEST_SUITE_END()
