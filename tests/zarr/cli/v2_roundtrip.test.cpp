// zarr3 convert from Zarr v2 to v3 and back to v2 (docs/decisions.md 40, 41, 53, 54) over every array
// of the zarr-python 2 fixture (tests/interop/zarr_python2_fixture.py): the final v2 array must
// hold the values zarr-python 2 read from the original bit for bit, with the same filters and
// compressor, and zarr-python 2 must read it equal.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "../../v2_fixture.hpp"
#include "run.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
using zarr_test::q;
using zarr_test::zarr3;

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
      BOOST_TEST(zarr::array::open(v3_store, path).metadata().zarr_format == 3);
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
