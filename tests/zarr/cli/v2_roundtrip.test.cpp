// zarr3 convert from Zarr v2 to v3 and back to v2 (docs/decisions.md 40, 41, 53, 54) over every array
// of the zarr-python 2 fixture (tests/interop/zarr_python2_fixture.py): the final v2 array must
// hold the values zarr-python 2 read from the original bit for bit, with the same filters and
// compressor, and zarr-python 2 must read it equal. The v3 arrays of the way there whose codecs
// and type zarrita.js knows (bytes, transpose, gzip, zstd, blosc, crc32c; booleans, integers,
// floats) are read by zarrita.js too, equal to zarr-python 2's values.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "../../v2_fixture.hpp"
#include "../array/corpus_json.hpp"
#include "run.hpp"
import zarr.dtype;
import zarr.metadata;
import zarr.array;
import zarr.store.filesystem;

namespace fs = std::filesystem;
namespace json = boost::json;
using zarr_test::q;
using zarr_test::zarr3;

namespace {

// Whether zarrita.js 0.7.5 reads a v3 array of this type, shape and codecs.
bool zarrita_reads(const zarr::array_metadata& m) {
  using zarr::data_type;
  static const std::set<data_type> types{data_type::bool_,  data_type::int8,   data_type::int16,   data_type::int32,
                                         data_type::int64,  data_type::uint8,  data_type::uint16,  data_type::uint32,
                                         data_type::uint64, data_type::float16, data_type::float32, data_type::float64};
  static const std::set<std::string> codecs{"bytes", "transpose", "gzip", "zstd", "blosc", "crc32c"};
  if (!types.contains(m.type)) return false;
  for (const auto d : m.shape)  // zarrita.js 0.7.5 fails on an array with no elements ("Input contains an empty iterator")
    if (d == 0) return false;
  for (const auto& c : m.codecs.as_array())
    if (!codecs.contains(std::string(c.at("name").as_string()))) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_v2_roundtrip)

BOOST_AUTO_TEST_CASE(v2_to_v3_to_v2_round_trips_every_array_of_the_zarr_python_2_fixture) {
  const auto fixture = zarr_test::v2_fixture();
  if (!fixture) return;
  const auto python = zarr_test::ctest_env("ZARR_PYTHON2"), script = zarr_test::ctest_env("ZARR_V2_SCRIPT");
  const auto out = zarr_test::scratch_dir();
  const auto manifest = zarr::parse_json(zarr_test::slurp(*fixture / "manifest.json"), "manifest.json").as_object();
  auto v3_store = std::make_shared<zarr::filesystem_store>(out / "v3.zarr");
  auto v2_store = std::make_shared<zarr::filesystem_store>(out / "v2.zarr");
  json::array checked;
  std::map<std::string, int> combinations;  // dtype x compressor x filters
  // The arrays that cannot make the trip, and the error that says why (docs/decisions.md 40, 54):
  // - numcodecs.fixedscaleoffset becomes [scale_offset, cast_value] in v3 (decision 18), and
  //   back in v2 where numcodecs computes the same values (decision 54: be_f4_as_u1 does). This
  //   one's fill value 0 cannot go to v3 at all: with offset 1000 and scale 10 it encodes to
  //   -10000, which uint16 holds only wrapped (55536), and 55536 decodes to 6553.6, not 0, so
  //   cast_value refuses it (decision 13), and no other v3 form holds that filter with it.
  // (float16 quantize makes the trip since decision 53.)
  const std::map<std::string, std::string> cannot{
      {"filters/fixedscaleoffset/le_f8_as_u2", "(cast_value): expected a fill value that survives the round trip"},
  };
  std::size_t cases = 0, round_trips = 0, refused = 0, left_missing = 0;
  std::map<std::string, json::array> for_zarrita;  // v3 path -> what zarr-python 2 read, as JSON elements
  for (const auto& c : manifest.at("cases").as_array()) {
    const auto& o = c.as_object();
    const std::string path(o.at("path").as_string());
    ++cases;
    BOOST_TEST_CONTEXT(path << " (" << json::serialize(c) << ")") {
      const auto there = zarr3("convert " + q(*fixture / "v2.zarr") + "#/" + path + " " + q(out / "v3.zarr") + "#/" + path);
      const auto back = there.status == 0 ? zarr3("convert --format 2 " + q(out / "v3.zarr") + "#/" + path + " " +
                                                  q(out / "v2.zarr") + "#/" + path)
                                          : there;
      if (const auto reason = cannot.find(path); reason != cannot.end()) {
        BOOST_TEST(back.status == 1, back.out);
        BOOST_TEST(back.err.find(reason->second) != std::string::npos, back.err);
        ++refused;
        continue;
      }
      BOOST_TEST(there.status == 0, there.err);
      BOOST_TEST(back.status == 0, back.err);
      if (back.status != 0) continue;
      const auto v3 = zarr::array::open(v3_store, path);
      BOOST_TEST(v3.metadata().zarr_format == 3);
      if (zarrita_reads(v3.metadata())) {
        const auto raw = zarr_test::file_text(*fixture / std::string(o.at("raw").as_string()));
        const auto size = static_cast<std::size_t>(zarr::info(v3.type()).size);
        json::array values;
        for (std::size_t k = 0; k + size <= raw.size(); k += size)
          values.push_back(zarr_test::element_json(v3.type(), reinterpret_cast<const std::byte*>(raw.data() + k)));
        for_zarrita[path] = std::move(values);
      }
      const auto a = zarr::array::open(v2_store, path);
      const auto& m = a.metadata();
      BOOST_TEST(m.zarr_format == 2);
      // The values zarr-python 2 read from the original, bit for bit, in the rows that have values.
      zarr_test::check_case_values(a, o, *fixture);
      const auto shape = zarr_test::case_shape(o);
      const auto readable = o.at("readable_rows").to_number<std::uint64_t>();
      // The same numcodecs filters and compressor (ids), and the same order where it matters.
      const std::string compressor = m.v2.compressor.is_object() ? std::string(m.v2.compressor.at("id").as_string()) : "none";
      const std::string original(o.at("compressor").as_string());  // "blosc-lz4-shuffle" names a blosc case
      BOOST_TEST(compressor == (original.starts_with("blosc") ? std::string("blosc") : original));
      json::array filters;
      if (const auto* f = m.v2.filters.if_array())
        for (const auto& config : *f) filters.push_back(config.at("id"));
      BOOST_TEST(json::value(filters) == o.at("filters"));
      if (shape.size() > 1) BOOST_TEST(std::string(1, m.v2.order) == std::string(o.at("order").as_string()));
      if (!shape.empty() && readable < shape[0]) {
        // Missing chunks of a source without a fill value stay missing (docs/decisions.md 41).
        BOOST_TEST(there.out.find("left ") != std::string::npos, there.out);
        ++left_missing;
      }
      checked.push_back(json::object{{"path", path},
                                     // a time type's unit is in the fixture's dtype ("<M8[ns]")
                                     {"dtype", zarr::is_time(a.type()) ? o.at("dtype")
                                                                       : json::value(*zarr::numpy_dtype_string(a.type(), m.v2.byte_order))},
                                     {"shape", o.at("shape")},
                                     {"raw", (*fixture / std::string(o.at("raw").as_string())).string()},
                                     {"readable_rows", shape.empty() ? json::value() : json::value(readable)}});
      std::string combination = std::string(o.at("dtype").as_string()) + " x " + std::string(o.at("compressor").as_string());
      for (const auto& f : o.at("filters").as_array()) combination += " x " + std::string(f.as_string());
      ++combinations[combination];
      ++round_trips;
    }
  }
  // zarrita.js reads the v3 arrays it can, in one run: the rows zarr-python 2 read have its values.
  const char* node_dir = std::getenv("ZARR_NODE_DIR");
  if (node_dir == nullptr || !fs::exists(fs::path(node_dir) / "node_modules" / "zarrita")) {
    BOOST_TEST(std::system("command -v node >/dev/null 2>&1") != 0, "node exists, yet zarrita was not installed");
    zarr_test::peer_missing("zarrita.js is not installed (node or npm missing): the v3 arrays were not read by it");
  } else {
    std::string command = "cd " + q(node_dir) + " && node read_with_zarrita.mjs " + q(out / "v3.zarr");
    for (const auto& [path, values] : for_zarrita) command += " " + q(path);
    const auto output = zarr_test::run_peer(command, "zarrita.js (read_with_zarrita.mjs, its errors above)");
    std::vector<std::string> lines;
    std::istringstream in(output.value_or(""));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    BOOST_TEST(lines.size() == (output ? for_zarrita.size() : 0u));
    std::size_t equal = 0;
    for (const auto& line : lines) {
      const auto got = zarr::parse_json(line, "read_with_zarrita.mjs output").as_object();
      const std::string path(got.at("path").as_string());
      BOOST_TEST_CONTEXT("zarrita.js reading " << path) {
        BOOST_TEST_REQUIRE(!got.contains("error"), json::serialize(got));
        const auto& want = for_zarrita.at(path);
        const auto& have = got.at("data").as_array();
        BOOST_TEST_REQUIRE(have.size() >= want.size());
        std::size_t differences = 0;
        for (std::size_t i = 0; i < want.size(); ++i)
          if (!zarr_test::same(want[i], have[i]) && differences++ < 3)
            BOOST_ERROR("element " << i << ": zarr-python 2 read " << json::serialize(want[i]) << ", zarrita.js " << json::serialize(have[i]));
        equal += differences == 0;
      }
    }
    BOOST_TEST_MESSAGE("zarrita.js read " << equal << " of the v3 arrays equal to zarr-python 2's values");
    BOOST_TEST(for_zarrita.size() >= 100u);
  }
  zarr_test::spit(out / "manifest.json", json::serialize(json::object{{"cases", std::move(checked)}}));
  const auto command = python + " " + script + " --check " + q(out) + " 2>&1";
  BOOST_TEST_MESSAGE("running " << command);
  BOOST_TEST(std::system(command.c_str()) == 0, "zarr-python 2 did not read the round-tripped arrays equal (see above)");
  BOOST_TEST_MESSAGE(round_trips << " of " << cases << " arrays of the fixture round-tripped v2 -> v3 -> v2 bit for bit ("
                                 << combinations.size() << " dtype x compressor x filters combinations; " << left_missing
                                 << " with chunks left missing for want of a fill value); " << refused
                                 << " refused with the reason expected");
  for (const auto& [path, reason] : cannot) BOOST_TEST_MESSAGE("cannot round-trip: " << path << ": " << reason);
  BOOST_TEST(refused == cannot.size());
  BOOST_TEST(round_trips + refused == cases);
  BOOST_TEST(cases >= 400u);
  BOOST_TEST(left_missing > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
