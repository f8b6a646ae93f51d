// zarr3 read --format json and zarr3 info --json on every array of the zarrita.js corpus
// (interop/corpus-seed1 in tests/data), compared with its EXPECTED/*.json files (their JSON form:
// tests/data/README.md "The JSON form"), numerically, with exact doubles.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <string>
#include "../../support.hpp"
#include "run.hpp"
import zarr.dtype;
import zarr.fill_value;
import zarr.metadata;

namespace fs = std::filesystem;
namespace json = boost::json;
using zarr_test::q;
using zarr_test::zarr3;

namespace {

// Whether our element `got` (canonical JSON form) is the corpus' `expected` element.
bool same_element(const json::value& expected, const json::value& got, zarr::data_type type) {
  if (zarr::is_integer(type)) {
    if (!got.is_int64() && !got.is_uint64()) return false;
    const auto text = json::serialize(got);
    return expected.is_string() ? expected.as_string() == text : json::serialize(expected) == text;
  }
  if (type == zarr::data_type::bool_) return expected == got;
  if (expected.is_string()) {
    if (expected.as_string() == "-0.0") return got.is_double() && got.as_double() == 0 && std::signbit(got.as_double());
    return got == expected;  // "NaN", "Infinity", "-Infinity"
  }
  if (!got.is_number() || !expected.is_number()) return false;
  // Ours is the shortest decimal for the type, the corpus' the exact value as a double:
  // both round exactly to the same value of the type.
  const double e = expected.to_number<double>();
  char text[64];
  const auto end = std::to_chars(text, text + sizeof text, e).ptr;
  return zarr::parse_fill_value_text(std::string_view(text, static_cast<std::size_t>(end - text)), type) ==
         zarr::parse_fill_value_text(json::serialize(got), type);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_interop)

BOOST_AUTO_TEST_CASE(reads_every_array_of_the_zarrita_corpus_as_expected) {
  const auto corpus = zarr_test::data_dir() / "interop" / "corpus-seed1";
  const auto store = corpus / "store";
  std::size_t arrays = 0;
  for (const auto& entry : fs::recursive_directory_iterator(corpus / "EXPECTED")) {
    if (!entry.is_regular_file() || entry.path().filename() == "_hierarchy.json") continue;
    const auto expected = zarr::parse_json(zarr_test::slurp(entry.path()), entry.path().string()).as_object();
    const std::string path(expected.at("path").as_string());
    BOOST_TEST_CONTEXT(path) {
      const auto node = q(store) + "#/" + path;
      const auto info_run = zarr3("info " + node + " --json");
      BOOST_TEST_REQUIRE(info_run.status == 0, info_run.err);
      const auto info = zarr::parse_json(info_run.out).as_object();
      BOOST_TEST(info.at("data_type") == expected.at("dtype"));
      BOOST_TEST(info.at("shape") == expected.at("shape"));
      const auto type = zarr::data_type_from_name(info.at("data_type").as_string());
      BOOST_TEST(same_element(expected.at("fill_value"), info.at("fill_value"), type),
                 json::serialize(expected.at("fill_value")) << " vs " << json::serialize(info.at("fill_value")));

      const auto read = zarr3("read " + node + " --format json");
      BOOST_TEST_REQUIRE(read.status == 0, read.err);
      const auto got = zarr::parse_json(read.out, "zarr3 read").as_array();
      const auto& want = expected.at("data").as_array();
      BOOST_TEST_REQUIRE(got.size() == want.size());
      std::size_t differences = 0;
      for (std::size_t i = 0; i < want.size(); ++i)
        if (!same_element(want[i], got[i], type) && differences++ < 3)
          BOOST_ERROR("element " << i << ": expected " << json::serialize(want[i]) << ", got " << json::serialize(got[i]));
      BOOST_TEST(differences == 0u);
    }
    ++arrays;
  }
  BOOST_TEST(arrays == 113u);
  // The whole corpus decodes cleanly.
  const auto verify = zarr3("verify " + q(store));
  BOOST_TEST(verify.status == 0, verify.out << verify.err);
  BOOST_TEST(verify.out.find(" in 113 arrays: 0 bad") != std::string::npos, verify.out);
}

BOOST_AUTO_TEST_CASE(tree_lists_the_corpus_hierarchy) {
  const auto store = zarr_test::data_dir() / "interop" / "corpus-seed1" / "store";
  const auto r = zarr3("tree " + q(store));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("leaf  array") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("zero_extent  array") != std::string::npos);
  std::size_t arrays = 0;
  for (std::size_t p = r.out.find("  array "); p != std::string::npos; p = r.out.find("  array ", p + 1)) ++arrays;
  BOOST_TEST(arrays == 113u);
}

BOOST_AUTO_TEST_SUITE_END()
