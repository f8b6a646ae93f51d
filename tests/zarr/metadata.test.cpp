#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.metadata;
import zarr.array;
import zarr.store.memory;

namespace json = boost::json;

namespace {

json::object valid_array() {
  return json::parse(R"({
    "zarr_format": 3, "node_type": "array", "shape": [10, 20], "data_type": "int16",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5, 5]}},
    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
    "fill_value": 0,
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
  })").as_object();
}

zarr::array_metadata parse(const json::object& o) { return zarr::array_metadata::parse(o); }

}  // namespace

BOOST_AUTO_TEST_SUITE(chunk_key_encoding)

BOOST_AUTO_TEST_CASE(default_encoding_prefixes_c) {
  const auto e = zarr::chunk_key_encoding::parse(json::parse(R"({"name": "default"})"));
  const std::vector<std::uint64_t> index{1, 23, 45};
  BOOST_TEST(e.key(index) == "c/1/23/45");
  BOOST_TEST(e.key({}) == "c");
  const auto dot = zarr::chunk_key_encoding::parse(json::parse(R"({"name": "default", "configuration": {"separator": "."}})"));
  BOOST_TEST(dot.key(index) == "c.1.23.45");
}

BOOST_AUTO_TEST_CASE(v2_encoding_joins_indices) {
  const auto e = zarr::chunk_key_encoding::parse(json::parse(R"("v2")"));
  const std::vector<std::uint64_t> index{1, 23, 45};
  BOOST_TEST(e.key(index) == "1.23.45");
  BOOST_TEST(e.key({}) == "0");
  const auto slash = zarr::chunk_key_encoding::parse(json::parse(R"({"name": "v2", "configuration": {"separator": "/"}})"));
  BOOST_TEST(slash.key(index) == "1/23/45");
}

BOOST_AUTO_TEST_CASE(rejects_bad_encodings) {
  ZARR_CHECK_ERROR(zarr::chunk_key_encoding::parse(json::parse(R"({"name": "default", "configuration": {"separator": "-"}})")),
                   zarr::errc::invalid_metadata, "chunk_key_encoding.configuration.separator");
  ZARR_CHECK_ERROR(zarr::chunk_key_encoding::parse(json::parse(R"({"name": "fancy"})")), zarr::errc::unsupported, "fancy");
  ZARR_CHECK_ERROR(zarr::chunk_key_encoding::parse(json::parse(R"({"name": "v2", "must_understand": false})")),
                   zarr::errc::invalid_metadata, "must_understand");
  ZARR_CHECK_ERROR(zarr::chunk_key_encoding::parse(json::parse(R"({"name": "v2", "configuration": {"x": 1}})")),
                   zarr::errc::invalid_metadata, "chunk_key_encoding.configuration.x");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(array_metadata)

BOOST_AUTO_TEST_CASE(parses_every_field) {
  auto o = valid_array();
  o["attributes"] = {{"units", "m"}};
  o["dimension_names"] = {"y", nullptr};
  o["storage_transformers"] = json::array{};
  const auto m = parse(o);
  BOOST_TEST(m.shape == (std::vector<std::uint64_t>{10, 20}), boost::test_tools::per_element());
  BOOST_TEST(m.type == zarr::data_type::int16);
  BOOST_TEST(m.chunk_shape == (std::vector<std::uint64_t>{5, 5}), boost::test_tools::per_element());
  BOOST_TEST(m.grid_shape() == (std::vector<std::uint64_t>{2, 4}), boost::test_tools::per_element());
  BOOST_TEST(m.attributes.at("units") == "m");
  BOOST_TEST(m.dimension_names->at(0).value() == "y");
  BOOST_TEST(!m.dimension_names->at(1).has_value());
}

BOOST_AUTO_TEST_CASE(writes_what_it_reads) {
  auto o = valid_array();
  o["attributes"] = {{"a", json::array{1, 2}}};
  o["dimension_names"] = {"y", nullptr};
  const auto m = parse(o);
  const auto again = parse(m.to_json());
  BOOST_TEST(json::serialize(again.to_json()) == json::serialize(m.to_json()));
  BOOST_TEST(m.to_json().at("dimension_names") == o.at("dimension_names"));
  // the document text parses back as the same node
  const auto text = zarr::serialize_metadata(m.to_json());
  const auto node = zarr::parse_node_metadata(text);
  BOOST_TEST(std::holds_alternative<zarr::array_metadata>(node));
}

// "dimension_names": null, as other implementations write it, means no names: read as
// absent and left out when written.
BOOST_AUTO_TEST_CASE(reads_null_dimension_names_as_absent) {
  auto o = valid_array();
  o["dimension_names"] = nullptr;
  const auto m = parse(o);
  BOOST_TEST(!m.dimension_names.has_value());
  BOOST_TEST(!m.to_json().contains("dimension_names"));
}

BOOST_AUTO_TEST_CASE(rejects_each_missing_mandatory_field) {
  for (const char* field : {"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
                            "fill_value", "codecs"}) {
    BOOST_TEST_CONTEXT(field) {
      auto o = valid_array();
      o.erase(field);
      // node_type decides the document kind, so its absence is reported by the node parser.
      if (std::string(field) == "node_type")
        ZARR_CHECK_ERROR(zarr::parse_node_metadata(json::serialize(o)), zarr::errc::invalid_metadata, "node_type");
      else
        ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, field);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_each_field_of_the_wrong_type) {
  const std::vector<std::pair<const char*, json::value>> cases{
      {"zarr_format", json::value(2)},
      {"zarr_format", json::value("3")},
      {"node_type", json::value("table")},
      {"shape", json::value(10)},
      {"shape", json::array{10, -1}},
      {"shape", json::array{10, 2.5}},
      {"data_type", json::value(16)},
      {"chunk_grid", json::value(5)},
      {"chunk_key_encoding", json::value(json::array{})},
      {"fill_value", json::value("zero")},
      {"fill_value", json::value(1.5)},
      {"codecs", json::value(json::object{})},
      {"codecs", json::value(json::array{})},
      {"attributes", json::value(json::array{})},
      {"dimension_names", json::value("y")},
      {"dimension_names", json::array{"y", 3}},
      {"dimension_names", json::array{"y"}},
  };
  for (const auto& [field, value] : cases) {
    BOOST_TEST_CONTEXT(field << " = " << json::serialize(value)) {
      auto o = valid_array();
      o[field] = value;
      BOOST_CHECK_EXCEPTION(static_cast<void>(zarr::parse_node_metadata(json::serialize(o))), zarr::error,
                            [&](const zarr::error& e) { return std::string(e.what()).find(field) != std::string::npos; });
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_bad_chunk_grids) {
  auto o = valid_array();
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [5]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_shape: expected 2 dimensions");
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [5, 0]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_shape[1]: expected a positive integer");
  o["chunk_grid"] = json::parse(R"({"name": "hexagonal", "configuration": {"chunk_shape": [5, 5]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::unsupported, "chunk_grid.name: expected \"regular\" or \"rectilinear\"");
  // The rectilinear grid's field is chunk_shapes (rectilinear.test.cpp has the rest).
  o["chunk_grid"] = json::parse(R"({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shape": [5, 5]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_grid.configuration.chunk_shape: expected no such key");
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [5, 5], "x": 1}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_grid.configuration.x");
}

BOOST_AUTO_TEST_CASE(rejects_sizes_that_overflow_64_bits) {
  auto o = valid_array();
  o["shape"] = json::array{std::uint64_t{1} << 40, std::uint64_t{1} << 40};
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [5, 5]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "shape: expected a size that fits in 64 bits");
  o = valid_array();
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [4294967296, 4294967296]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_shape: expected a size that fits in 64 bits");
}

BOOST_AUTO_TEST_CASE(rejects_shapes_whose_byte_size_overflows_64_bits) {
  // 2^61 float64 elements: the count fits in 64 bits, the bytes (2^64) do not
  auto o = valid_array();
  o["data_type"] = "float64";
  o["shape"] = json::array{std::uint64_t{1} << 61, 1};
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "shape: expected a size that fits in 64 bits");
  o["shape"] = json::array{(std::uint64_t{1} << 61) - 1, 1};  // 2^64 - 8 bytes: fits
  BOOST_CHECK_NO_THROW(parse(o));
  o["shape"] = json::array{std::uint64_t{1} << 32, std::uint64_t{1} << 29};  // the same product over two dimensions
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "shape: expected a size that fits in 64 bits");
  o = valid_array();
  o["data_type"] = "float64";
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [2305843009213693952, 1]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_shape: expected a size that fits in 64 bits");
}

BOOST_AUTO_TEST_CASE(rejects_chunk_grids_that_end_past_2_to_the_64) {
  // shape 2^64 - 1 in chunks of 2^63: the second chunk would end at 2^64
  auto o = valid_array();
  o["data_type"] = "uint8";
  o["shape"] = json::array{UINT64_MAX};
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [9223372036854775808]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata,
                   "chunk_grid.configuration.chunk_shape[0]: expected chunks that end within 2^64 - 1 elements");
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [4294967296]}})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_shape[0]: expected chunks that end within");
  // chunks of 3 tile 2^64 - 1 exactly: the array opens and its last element reads as the fill value
  o["chunk_grid"] = json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [3]}})");
  o["fill_value"] = 42;
  o["codecs"] = json::parse(R"(["bytes"])");
  auto s = std::make_shared<zarr::memory_store>();
  const auto a = zarr::array::create(s, "huge", parse(o));
  BOOST_TEST(a.read<std::uint8_t>({{UINT64_MAX - 2}, {UINT64_MAX}}) == (std::vector<std::uint8_t>{42, 42}));
  // a chunk shape that is not a positive integer
  for (const char* bad : {"[5, -1]", "[-5, 5]", "[5, 2.5]", "[5, 1e30]", "[5, \"5\"]", "[5, null]"}) {
    BOOST_TEST_CONTEXT(bad) {
      o = valid_array();
      o["chunk_grid"] = json::parse(std::string(R"({"name": "regular", "configuration": {"chunk_shape": )") + bad + "}}");
      ZARR_CHECK_ERROR(parse(o), zarr::errc::invalid_metadata, "chunk_grid.configuration.chunk_shape[");
    }
  }
}

BOOST_AUTO_TEST_CASE(refuses_deeply_nested_documents) {
  // 100000 levels: refused by depth, without recursing that deep
  for (const auto& text : {std::string(100000, '['), std::string(100000, '[') + std::string(100000, ']')}) {
    ZARR_CHECK_ERROR(zarr::parse_json(text), zarr::errc::invalid_metadata,
                     "zarr.json: expected a JSON document, got a parse error");
    ZARR_CHECK_ERROR(zarr::parse_node_metadata(text), zarr::errc::invalid_metadata, "zarr.json");
  }
  std::string objects = R"({"zarr_format": 3, "node_type": "group", "attributes": )";
  for (int i = 0; i < 100000; ++i) objects += R"({"a": )";
  ZARR_CHECK_ERROR(zarr::parse_node_metadata(objects), zarr::errc::invalid_metadata, "zarr.json");
  // through a store, naming the node
  auto s = std::make_shared<zarr::memory_store>();
  s->set("x/zarr.json", std::as_bytes(std::span(objects)));
  ZARR_CHECK_ERROR(zarr::group::open(s, "x"), zarr::errc::invalid_metadata, "node \"/x\": zarr.json");
  ZARR_CHECK_ERROR(zarr::array::open(s, "x"), zarr::errc::invalid_metadata, "node \"/x\": zarr.json");
  // the limit: 64 levels (the document's object is the first) parse, 65 do not
  const auto nested = [](int levels) {
    return R"({"zarr_format": 3, "node_type": "group", "attributes": {"a": )" + std::string(levels - 2, '[') +
           std::string(levels - 2, ']') + "}}";
  };
  BOOST_CHECK_NO_THROW(static_cast<void>(zarr::parse_node_metadata(nested(64))));
  ZARR_CHECK_ERROR(zarr::parse_node_metadata(nested(65)), zarr::errc::invalid_metadata, "zarr.json");
}

BOOST_AUTO_TEST_CASE(reads_exact_fill_values_in_documents_nested_more_than_32_deep) {
  // Just below halfway between float32 1 and its successor: rounds down to 1 (0x3f800000).
  // Through a double it would round to the halfway point, whose shortest decimal
  // (1.0000000596046448) lies above it and rounds up.
  auto o = valid_array();
  o["data_type"] = "float32";
  json::value deep = json::array{};
  for (int i = 0; i < 40; ++i) deep = json::array{deep};
  o["attributes"] = json::object{{"deep", deep}};
  o["fill_value"] = 0;
  auto text = json::serialize(o);
  text.replace(text.find(R"("fill_value":0)"), 14, R"("fill_value":1.000000059604644775390624999999)");
  const auto m = std::get<zarr::array_metadata>(zarr::parse_node_metadata(text));
  BOOST_TEST(m.fill_value.as<std::uint32_t>() == 0x3f800000u);
}

BOOST_AUTO_TEST_CASE(reads_huge_documents_and_refuses_huge_broken_ones) {
  // 8 MiB of attributes: a long string and a list of a million numbers
  auto o = valid_array();
  json::array list;
  for (int i = 0; i < 1000000; ++i) list.push_back(i);
  o["attributes"] = json::object{{"text", std::string(std::size_t{8} << 20, 'x')}, {"list", list}};
  const auto text = json::serialize(o);
  const auto m = std::get<zarr::array_metadata>(zarr::parse_node_metadata(text));
  BOOST_TEST(m.attributes.at("text").as_string().size() == std::size_t{8} << 20);
  BOOST_TEST(m.attributes.at("list").as_array().size() == 1000000u);
  BOOST_TEST(m.shape == (std::vector<std::uint64_t>{10, 20}), boost::test_tools::per_element());
  // cut short, or with garbage after the end: a parse error, not a partial document
  ZARR_CHECK_ERROR(zarr::parse_node_metadata(std::string_view(text).substr(0, text.size() - 1)),
                   zarr::errc::invalid_metadata, "zarr.json: expected a JSON document");
  ZARR_CHECK_ERROR(zarr::parse_node_metadata(text + "]"), zarr::errc::invalid_metadata, "zarr.json: expected a JSON document");
  // a fill value of 100000 digits is read exactly; one too large for the type is out of range
  auto f = valid_array();
  f["data_type"] = "float64";
  f["fill_value"] = 0;
  auto long_fill = json::serialize(f);
  const auto at = long_fill.find(R"("fill_value":0)") + 13;
  long_fill.replace(at, 1, "0." + std::string(99999, '0') + "1");
  BOOST_TEST(std::get<zarr::array_metadata>(zarr::parse_node_metadata(long_fill)).fill_value.as<double>() == 0.0);
  long_fill = json::serialize(f);
  long_fill.replace(at, 1, "1" + std::string(100000, '0'));
  ZARR_CHECK_ERROR(zarr::parse_node_metadata(long_fill), zarr::errc::invalid_value, "fill_value");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_fields_unless_they_need_not_be_understood) {
  auto o = valid_array();
  o["colour"] = "blue";
  ZARR_CHECK_ERROR(parse(o), zarr::errc::unsupported, "colour");
  o["colour"] = json::parse(R"({"name": "colour", "must_understand": true})");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::unsupported, "colour");
  o["colour"] = json::parse(R"({"name": "colour", "must_understand": false})");
  const auto m = parse(o);
  BOOST_TEST(m.to_json().contains("colour"));  // kept on rewrite
}

BOOST_AUTO_TEST_CASE(rejects_storage_transformers) {
  auto o = valid_array();
  o["storage_transformers"] = json::parse(R"([{"name": "sharding"}])");
  ZARR_CHECK_ERROR(parse(o), zarr::errc::unsupported, "storage_transformers");
}

BOOST_AUTO_TEST_CASE(rejects_documents_that_are_not_json) {
  ZARR_CHECK_ERROR(zarr::parse_node_metadata("{\"zarr_format\": 3,"), zarr::errc::invalid_metadata, "zarr.json");
  ZARR_CHECK_ERROR(zarr::parse_node_metadata("[]"), zarr::errc::invalid_metadata, "zarr.json: expected an object");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(group_metadata)

BOOST_AUTO_TEST_CASE(parses_groups_with_consolidated_metadata) {
  const auto node = zarr::parse_node_metadata(R"({"zarr_format": 3, "node_type": "group", "attributes": {"a": 1},
      "consolidated_metadata": {"must_understand": false, "kind": "inline", "metadata": {}}})");
  const auto& g = std::get<zarr::group_metadata>(node);
  BOOST_TEST(g.attributes.at("a") == 1);
}

// Found by zarr.fuzz.zarr_json (seed attribute_beyond_double): 2.7e4308 reads as an infinity,
// which must be written back as JSON that reads as the same infinity.
BOOST_AUTO_TEST_CASE(writes_attributes_beyond_the_range_of_a_double_as_valid_json) {
  const auto node = zarr::parse_node_metadata(R"({"zarr_format": 3, "node_type": "group", "attributes": {"e": 2.7e4308, "f": -1e999}})");
  const auto text = std::get<zarr::group_metadata>(node).to_text();
  BOOST_TEST(text.find("\"e\": 1e999") != std::string::npos, text);
  BOOST_TEST(text.find("\"f\": -1e999") != std::string::npos, text);
  BOOST_TEST(std::get<zarr::group_metadata>(zarr::parse_node_metadata(text)).to_text() == text);
}

BOOST_AUTO_TEST_CASE(rejects_unknown_group_fields) {
  ZARR_CHECK_ERROR(zarr::parse_node_metadata(R"({"zarr_format": 3, "node_type": "group", "x": 1})"),
                   zarr::errc::unsupported, "x");
  ZARR_CHECK_ERROR(zarr::parse_node_metadata(R"({"zarr_format": 3, "node_type": "group", "attributes": 1})"),
                   zarr::errc::invalid_metadata, "attributes");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(node_names)

BOOST_AUTO_TEST_CASE(rejects_names_the_spec_forbids) {
  for (const char* bad : {"", "a/b", ".", "..", "...", "__x", "zarr.json"})
    BOOST_TEST_CONTEXT(bad) { ZARR_CHECK_ERROR(zarr::validate_node_name(bad), zarr::errc::invalid_key, "node name"); }
  for (const char* good : {"a", ".a", "a.b", "_x", "x__"}) BOOST_CHECK_NO_THROW(zarr::validate_node_name(good));
  ZARR_CHECK_ERROR(zarr::validate_node_path("a//b"), zarr::errc::invalid_key, "node name");
  ZARR_CHECK_ERROR(zarr::validate_node_path("a/../b"), zarr::errc::invalid_key, "node name");
  BOOST_CHECK_NO_THROW(zarr::validate_node_path("a/b/c"));
}

BOOST_AUTO_TEST_SUITE_END()
