// Reading stores written by another implementation: every array of the zarrita.js corpus
// (shared/interop/corpus-seed1) must read equal to its EXPECTED JSON.
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
import zarr;

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

json::value read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

// An independent decoding of IEEE half precision, for the comparison only.
double half_to_double(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1f) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

// The corpus' JSON form of one element (see shared/interop/README.md "The JSON form").
json::value element_json(zarr::data_type t, const std::byte* p) {
  using zarr::data_type;
  const auto load = [&]<class T>(T) { T v; std::memcpy(&v, p, sizeof v); return v; };
  const auto real = [](double d) -> json::value {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    if (d == 0 && std::signbit(d)) return "-0.0";
    return d;
  };
  switch (t) {
    case data_type::bool_: return load(std::uint8_t{}) != 0;
    case data_type::int8: return load(std::int8_t{});
    case data_type::int16: return load(std::int16_t{});
    case data_type::int32: return load(std::int32_t{});
    case data_type::int64: return json::string(std::to_string(load(std::int64_t{})));
    case data_type::uint8: return load(std::uint8_t{});
    case data_type::uint16: return load(std::uint16_t{});
    case data_type::uint32: return load(std::uint32_t{});
    case data_type::uint64: return json::string(std::to_string(load(std::uint64_t{})));
    case data_type::float16: return real(half_to_double(load(std::uint16_t{})));
    case data_type::float32: return real(load(float{}));
    case data_type::float64: return real(load(double{}));
    default: BOOST_FAIL("the corpus has no " << zarr::name(t)); return nullptr;
  }
}

bool same(const json::value& expected, const json::value& got) {
  if (expected.is_number() && got.is_number()) return expected.to_number<double>() == got.to_number<double>();
  return expected == got;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interop_read)

BOOST_AUTO_TEST_CASE(reads_every_array_of_the_zarrita_corpus_as_expected) {
  const auto corpus = zarr_test::shared_dir() / "interop" / "corpus-seed1";
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
      BOOST_TEST(same(expected.at("fill_value"), element_json(a.type(), a.metadata().fill_value.bits.data())));
      const auto r = zarr::region::all(a.shape());
      const auto size = static_cast<std::size_t>(zarr::info(a.type()).size);
      std::vector<std::byte> data(r.num_elements() * size);
      a.read(r, data);
      const auto& values = expected.at("data").as_array();
      BOOST_TEST_REQUIRE(values.size() == r.num_elements());
      std::size_t differences = 0;
      for (std::size_t i = 0; i < values.size(); ++i)
        if (!same(values[i], element_json(a.type(), data.data() + i * size))) {
          if (differences++ < 3)
            BOOST_ERROR("element " << i << ": expected " << json::serialize(values[i]) << ", got "
                                   << json::serialize(element_json(a.type(), data.data() + i * size)));
        }
      BOOST_TEST(differences == 0u);
    }
    ++arrays;
  }
  BOOST_TEST(arrays == 113u);
}

BOOST_AUTO_TEST_CASE(reads_the_hierarchy_and_its_attributes) {
  const auto corpus = zarr_test::shared_dir() / "interop" / "corpus-seed1";
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
