// Reading stores written by another implementation: every array of the zarrita.js corpus
// (interop/corpus-seed1 in tests/data) must read equal to its EXPECTED JSON.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "corpus_json.hpp"
import zarr.dtype;
import zarr.metadata;
import zarr.array;
import zarr.store.filesystem;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

json::value read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return zarr::parse_json(ss.str(), p.string());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interop_read)

BOOST_AUTO_TEST_CASE(reads_every_array_of_the_zarrita_corpus_as_expected) {
  const auto corpus = zarr_test::data_dir() / "interop" / "corpus-seed1";
  auto store = std::make_shared<zarr::filesystem_store>(corpus / "store", false);
  std::size_t arrays = 0;
  for (const auto& entry : fs::recursive_directory_iterator(corpus / "EXPECTED")) {
    if (!entry.is_regular_file() || entry.path().filename() == "_hierarchy.json") continue;
    const auto expected = read_json(entry.path()).as_object();
    const std::string path(expected.at("path").as_string());
    BOOST_TEST_CONTEXT(path) {
      const auto a = zarr::array::open(store, path);
      BOOST_TEST(zarr::name(a.type()) == expected.at("dtype").as_string());
      std::vector<std::uint64_t> shape;
      for (const auto& d : expected.at("shape").as_array()) shape.push_back(d.to_number<std::uint64_t>());
      BOOST_TEST(a.shape() == shape, boost::test_tools::per_element());
      BOOST_TEST(zarr_test::same(expected.at("fill_value"), zarr_test::element_json(a.type(), a.metadata().fill_value.bits.data())));
      const auto r = zarr::region::all(a.shape());
      const auto size = static_cast<std::size_t>(zarr::info(a.type()).size);
      std::vector<std::byte> data(r.num_elements() * size);
      a.read(r, data);
      const auto& values = expected.at("data").as_array();
      BOOST_TEST_REQUIRE(values.size() == r.num_elements());
      std::size_t differences = 0;
      for (std::size_t i = 0; i < values.size(); ++i)
        if (!zarr_test::same(values[i], zarr_test::element_json(a.type(), data.data() + i * size))) {
          if (differences++ < 3)
            BOOST_ERROR("element " << i << ": expected " << json::serialize(values[i]) << ", got "
                                   << json::serialize(zarr_test::element_json(a.type(), data.data() + i * size)));
        }
      BOOST_TEST(differences == 0u);
    }
    ++arrays;
  }
  BOOST_TEST(arrays == 113u);
}

BOOST_AUTO_TEST_CASE(reads_the_hierarchy_and_its_attributes) {
  const auto corpus = zarr_test::data_dir() / "interop" / "corpus-seed1";
  auto store = std::make_shared<zarr::filesystem_store>(corpus / "store", false);
  const auto nodes = read_json(corpus / "EXPECTED" / "_hierarchy.json");
  const auto& list = nodes.is_array() ? nodes.as_array() : nodes.at("nodes").as_array();
  std::size_t checked = 0;
  for (const auto& n : list) {
    std::string path(n.at("path").as_string());
    if (path.starts_with("/")) path.erase(0, 1);
    BOOST_TEST_CONTEXT(path) {
      const auto meta = zarr::read_node_metadata(*store, path);
      const bool is_group = std::holds_alternative<zarr::group_metadata>(meta);
      BOOST_TEST((n.at("node_type") == "group") == is_group);
      const auto& attributes = is_group ? std::get<zarr::group_metadata>(meta).attributes
                                        : std::get<zarr::array_metadata>(meta).attributes;
      const auto* want = n.as_object().if_contains("attributes");
      BOOST_TEST(json::value(attributes) == (want ? *want : json::value(json::object{})));
    }
    ++checked;
  }
  BOOST_TEST(checked == 125u);
  BOOST_TEST(zarr::group::open(store, "hierarchy/a").children().size() >= 2u);
}

BOOST_AUTO_TEST_SUITE_END()
