// Zarr v2 nodes (Zarr storage specification version 2): `.zarray`, `.zgroup`, `.zattrs`, the
// dtype strings, the fill-value rules and the chain that order, filters and compressor make.
// Expected values come from the spec's text and its examples.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.store;
import zarr.codec.gzip;
import zarr.metadata;
import zarr.metadata.v2;
import zarr.array;
import zarr.store.memory;
import zarr.nd;

namespace json = boost::json;

namespace {

std::shared_ptr<zarr::memory_store> store_with(std::initializer_list<std::pair<std::string, std::string>> files) {
  auto s = std::make_shared<zarr::memory_store>();
  for (const auto& [key, text] : files) s->set(key, std::as_bytes(std::span(text)));
  return s;
}

std::string text_of(const zarr::store& s, const std::string& key) {
  const auto b = s.get(key);
  BOOST_TEST_REQUIRE(b.has_value(), "no " << key);
  return std::string(reinterpret_cast<const char*>(b->data()), b->size());
}

// The spec's first example ("Metadata"), with a compressor we have and no filter.
constexpr std::string_view spec_example = R"({
  "chunks": [1000, 1000],
  "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
  "dtype": "<f8",
  "fill_value": "NaN",
  "filters": null,
  "order": "C",
  "shape": [10000, 10000],
  "zarr_format": 2
})";

std::string with(std::string_view field, std::string_view json_value) {
  auto o = zarr::parse_json(spec_example).as_object();
  if (json_value.empty()) o.erase(field);
  else o[field] = zarr::parse_json(json_value);
  return json::serialize(o);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(v2_metadata)

BOOST_AUTO_TEST_CASE(parses_the_spec_example) {
  const auto m = zarr::array_metadata::parse_v2(spec_example);
  BOOST_TEST(m.zarr_format == 2);
  BOOST_TEST(m.shape == (std::vector<std::uint64_t>{10000, 10000}), boost::test_tools::per_element());
  BOOST_TEST(m.chunk_shape == (std::vector<std::uint64_t>{1000, 1000}), boost::test_tools::per_element());
  BOOST_TEST(m.type == zarr::data_type::float64);
  BOOST_TEST(m.v2.byte_order == '<');
  BOOST_TEST(std::isnan(m.fill_value.as<double>()));
  BOOST_TEST(!m.no_fill_value);
  // "If the value is not set, then the default MUST be assumed to be ".""
  BOOST_TEST(m.key_encoding.separator == '.');
  BOOST_TEST(m.key_encoding.key(std::vector<std::uint64_t>{2, 4}) == "2.4");  // the spec's "2.4"
}

BOOST_AUTO_TEST_CASE(reads_every_numpy_type_string_with_its_byte_order) {
  const std::pair<std::string_view, zarr::data_type> rows[] = {
      {"|b1", zarr::data_type::bool_},      {"|i1", zarr::data_type::int8},       {"<i2", zarr::data_type::int16},
      {">i4", zarr::data_type::int32},      {"<i8", zarr::data_type::int64},      {"|u1", zarr::data_type::uint8},
      {">u2", zarr::data_type::uint16},     {"<u4", zarr::data_type::uint32},     {">u8", zarr::data_type::uint64},
      {"<f2", zarr::data_type::float16},    {">f4", zarr::data_type::float32},    {">f8", zarr::data_type::float64},
      {"<c8", zarr::data_type::complex64},  {">c16", zarr::data_type::complex128},
  };
  for (const auto& [text, type] : rows) {
    BOOST_TEST_CONTEXT(text) {
      const auto t = zarr::parse_numpy_dtype(text);
      BOOST_TEST_REQUIRE(t.has_value());
      BOOST_TEST(t->type == type);
      BOOST_TEST(t->byte_order == text[0]);
      BOOST_TEST(zarr::numpy_dtype_string(type, text[0]).value() == text);
    }
  }
  BOOST_TEST(zarr::parse_numpy_dtype("|f8")->byte_order == '<');  // NumPy: native order (on this host)
  BOOST_TEST(zarr::parse_numpy_dtype("float32")->type == zarr::data_type::float32);
  BOOST_TEST(!zarr::parse_numpy_dtype("<S12"));
  BOOST_TEST(!zarr::parse_numpy_dtype("<U12"));
  BOOST_TEST(!zarr::parse_numpy_dtype("<M8[ns"));
  BOOST_TEST(!zarr::parse_numpy_dtype("<M8[0s]"));
  BOOST_TEST(!zarr::parse_numpy_dtype("<M8[2147483648s]"));
  BOOST_TEST(!zarr::parse_numpy_dtype("<m8[3generic]"));
  BOOST_TEST(!zarr::parse_numpy_dtype("<M4[s]"));
  BOOST_TEST(!zarr::numpy_dtype_string(zarr::data_type::bfloat16, '<'));
}

BOOST_AUTO_TEST_CASE(reads_and_writes_the_datetime_type_strings) {
  // NumPy's "<M8[ns]", ">m8[10s]" (dtype.str), and "<M8" for the generic unit.
  struct row { const char* text; zarr::data_type type; char order; zarr::time_unit unit; std::uint32_t scale; };
  using zarr::time_unit;
  for (const auto& r : {row{"<M8[ns]", zarr::data_type::numpy_datetime64, '<', time_unit::ns, 1},
                        row{">M8[s]", zarr::data_type::numpy_datetime64, '>', time_unit::s, 1},
                        row{"<m8[10s]", zarr::data_type::numpy_timedelta64, '<', time_unit::s, 10},
                        row{">m8[25ms]", zarr::data_type::numpy_timedelta64, '>', time_unit::ms, 25},
                        row{"<M8[Y]", zarr::data_type::numpy_datetime64, '<', time_unit::Y, 1},
                        row{"<M8", zarr::data_type::numpy_datetime64, '<', time_unit::generic, 1}}) {
    BOOST_TEST_CONTEXT(r.text) {
      const auto t = zarr::parse_numpy_dtype(r.text);
      BOOST_TEST_REQUIRE(t.has_value());
      BOOST_TEST(t->type == r.type);
      BOOST_TEST(t->byte_order == r.order);
      BOOST_TEST((t->time == zarr::time_resolution{r.unit, r.scale}));
      BOOST_TEST(zarr::numpy_dtype_string(r.type, r.order, t->time).value() == r.text);
    }
  }
  // A .zarray as zarr-python 2 writes it (NaT as -2^63) reads, and is written back the same way.
  const auto m = zarr::array_metadata::parse_v2(json::serialize([&] {
    auto o = zarr::parse_json(spec_example).as_object();
    o["dtype"] = ">m8[10s]";
    o["fill_value"] = std::numeric_limits<std::int64_t>::min();
    return o;
  }()));
  BOOST_TEST(m.type == zarr::data_type::numpy_timedelta64);
  BOOST_TEST(m.fill_value.as<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  const auto written = zarr::parse_json(m.to_text()).as_object();
  BOOST_TEST(written.at("dtype") == json::value(">m8[10s]"));
  BOOST_TEST(written.at("fill_value") == json::value(std::numeric_limits<std::int64_t>::min()));
}

BOOST_AUTO_TEST_CASE(reads_each_fill_value_form) {
  BOOST_TEST(zarr::array_metadata::parse_v2(with("fill_value", R"("Infinity")")).fill_value.as<double>() ==
             std::numeric_limits<double>::infinity());
  BOOST_TEST(zarr::array_metadata::parse_v2(with("fill_value", R"("-Infinity")")).fill_value.as<double>() ==
             -std::numeric_limits<double>::infinity());
  BOOST_TEST(zarr::array_metadata::parse_v2(with("fill_value", "0.1")).fill_value.as<double>() == 0.1);
  const auto none = zarr::array_metadata::parse_v2(with("fill_value", "null"));
  BOOST_TEST(none.no_fill_value);
  const auto c = zarr::array_metadata::parse_v2(
      R"({"chunks": [2], "compressor": null, "dtype": ">c8", "fill_value": [1.5, "NaN"], "filters": null,
          "order": "C", "shape": [4], "zarr_format": 2})");
  BOOST_TEST(c.fill_value.as<float>() == 1.5f);
  BOOST_TEST(c.v2.byte_order == '>');
}

BOOST_AUTO_TEST_CASE(names_the_file_and_the_field_in_every_error) {
  using zarr::errc;
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("zarr_format", "3")), errc::invalid_metadata,
                   ".zarray: zarr_format: expected 2, got 3");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("shape", "")), errc::invalid_metadata,
                   ".zarray: shape: expected a value (the field is required)");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("chunks", "[1000]")), errc::invalid_metadata,
                   ".zarray: chunks: expected 2 dimensions");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("dtype", R"("<S12")")), errc::unsupported,
                   ".zarray: dtype: expected a supported NumPy type string");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("dtype", R"([["r", "|u1", [2]]])")), errc::unsupported,
                   ".zarray: dtype[0]: expected [name, dtype] (subarray fields are not supported)");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("dtype", "7")), errc::unsupported,
                   ".zarray: dtype: expected a NumPy type string");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("order", R"("K")")), errc::invalid_metadata,
                   ".zarray: order: expected \"C\" or \"F\", got \"K\"");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("fill_value", R"("nan")")), errc::invalid_value,
                   ".zarray: fill_value");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("compressor", R"({"level": 1})")), errc::invalid_metadata,
                   ".zarray: compressor: expected a numcodecs configuration");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("filters", R"([{"id": "delta"}, 3])")), errc::invalid_metadata,
                   ".zarray: filters[1]: expected a numcodecs configuration");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2(with("dimension_separator", R"("-")")), errc::invalid_metadata,
                   ".zarray: dimension_separator: expected \".\" or \"/\"");
  ZARR_CHECK_ERROR(zarr::array_metadata::parse_v2("{"), errc::invalid_metadata, ".zarray: document: expected a JSON document");
  ZARR_CHECK_ERROR(zarr::group_metadata::parse_v2(R"({"zarr_format": 2, "x": 1})"), errc::invalid_metadata,
                   ".zgroup: x: expected no such key");
  ZARR_CHECK_ERROR(zarr::parse_zattrs("[1]"), errc::invalid_metadata, ".zattrs: document: expected an object");
}

BOOST_AUTO_TEST_CASE(makes_the_chain_from_order_filters_and_compressor) {
  auto m = zarr::array_metadata::parse_v2(
      R"({"chunks": [2, 3, 4], "compressor": {"id": "zstd", "level": 3}, "dtype": ">i4", "fill_value": 0,
          "filters": [{"id": "crc32"}], "order": "F", "shape": [4, 6, 8], "zarr_format": 2})");
  // "F" means column-major order: the first dimension varies fastest, a transpose of C order.
  const auto chain = zarr::v2_codecs(m);
  BOOST_TEST(json::value(chain) == zarr::parse_json(R"([
    {"name": "transpose", "configuration": {"order": [2, 1, 0]}},
    {"name": "bytes", "configuration": {"endian": "big"}},
    {"name": "numcodecs.crc32", "configuration": {}},
    {"name": "zstd", "configuration": {"level": 3, "checksum": false}}])"));
  m.v2.compressor = zarr::parse_json(R"({"id": "no-such-codec"})");
  ZARR_CHECK_ERROR(zarr::v2_codecs(m), zarr::errc::unsupported,
                   ".zarray: compressor.id: expected a numcodecs codec this library has, got \"no-such-codec\"");
  m.v2.compressor = nullptr;
  m.v2.filters = zarr::parse_json(R"([{"id": "crc32"}, {"id": "delta", "dtype": ">i4"}])");
  ZARR_CHECK_ERROR(zarr::v2_codecs(m), zarr::errc::unsupported, ".zarray: filters[1]: expected an array filter only before");
}

// The registry rows' Zarr v2 forms: a numcodecs id reads as one row, which writes that id
// again and agrees on whether Zarr v2 keeps it as the compressor; numcodecs' defaults (GZip
// and Zstd level 1, numcodecs 0.11) are made explicit.
BOOST_AUTO_TEST_CASE(each_numcodecs_id_reads_as_one_registry_row_that_writes_it_again) {
  std::size_t ids = 0;
  for (const auto& e : zarr::builtin_codecs()) {
    if (e.v2.id.empty()) {
      BOOST_TEST(!e.v2.compressor, e.name);
      BOOST_TEST(!e.v2.why_not.empty(), e.name);
      continue;
    }
    ++ids;
    const auto* row = zarr::find_numcodecs(e.v2.id);
    BOOST_TEST_REQUIRE(row != nullptr, e.name);
    BOOST_TEST(row->v2.id == e.v2.id, e.name);
    BOOST_TEST(row->v2.compressor == e.v2.compressor, e.name);
    std::size_t read_as = 0;
    for (const auto& other : zarr::builtin_codecs()) read_as += other.v2.read_as && other.v2.id == e.v2.id ? 1 : 0;
    BOOST_TEST(read_as == 1U, e.name);
    const auto v3 = zarr::numcodecs_to_v3(json::object{{"id", e.v2.id}}, "f");
    BOOST_TEST(v3.at("name").as_string() == row->name, e.name);
  }
  BOOST_TEST(ids > 30U);
  BOOST_TEST(json::value(zarr::numcodecs_to_v3(json::object{{"id", "gzip"}}, "f")) ==
             zarr::parse_json(R"({"name": "gzip", "configuration": {"level": 1}})"));
  BOOST_TEST(json::value(zarr::numcodecs_to_v3(json::object{{"id", "vlen-utf8"}}, "f")) ==
             zarr::parse_json(R"({"name": "vlen-utf8", "configuration": {}})"));
  BOOST_TEST(zarr::find_numcodecs("crc32c")->name == "numcodecs.crc32c");
  BOOST_TEST(zarr::find_numcodecs("sharding_indexed") == nullptr);
}

namespace {

// A Zarr v3 array's metadata with `codecs` (JSON text).
zarr::array_metadata v3_array(const std::string& data_type, const std::string& shape, const std::string& chunks,
                              const std::string& codecs) {
  const auto text = R"({"zarr_format": 3, "node_type": "array", "shape": )" + shape + R"(, "data_type": ")" + data_type +
                    R"(", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": )" + chunks +
                    R"(}}, "chunk_key_encoding": {"name": "default"}, "fill_value": )" + (data_type == "bool" ? "false" : "0") +
                    R"(, "codecs": )" + codecs + "}";
  return zarr::array_metadata::parse(zarr::parse_json(text), text);
}

}  // namespace

BOOST_AUTO_TEST_CASE(gives_the_v2_form_of_a_v3_chain) {
  // Order "F", the filters in the byte order of the stored data, blosc's shuffle as numcodecs' number.
  auto m = v3_array("int32", "[4, 6]", "[2, 3]", R"([
    {"name": "transpose", "configuration": {"order": [1, 0]}},
    {"name": "numcodecs.delta", "configuration": {"dtype": "<i4", "astype": "<i2"}},
    {"name": "bytes", "configuration": {"endian": "big"}},
    {"name": "numcodecs.shuffle", "configuration": {"elementsize": 2}},
    {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "typesize": 2}}])");
  auto f = zarr::v3_codecs_to_v2(m);
  BOOST_TEST(f.order == 'F');
  BOOST_TEST(f.byte_order == '>');
  BOOST_TEST(f.filters == zarr::parse_json(R"([{"id": "delta", "dtype": ">i4", "astype": ">i2"},
                                               {"id": "shuffle", "elementsize": 2}])"));
  BOOST_TEST(f.compressor == zarr::parse_json(R"({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0})"));
  // The v2 form makes the same chain again (decision 27's way).
  auto v2 = m;
  v2.zarr_format = 2;
  v2.v2 = f;
  BOOST_TEST(zarr::v2_codecs(v2)[1] == zarr::parse_json(R"({"name": "numcodecs.delta", "configuration": {"dtype": ">i4", "astype": ">i2"}})"));
  BOOST_TEST(zarr::v2_codecs(v2)[2] == zarr::parse_json(R"({"name": "bytes", "configuration": {"endian": "big"}})"));

  // A checksum last is a filter, not a compressor; bitround is numcodecs' bitround; one byte: '|'.
  f = zarr::v3_codecs_to_v2(v3_array("float32", "[8]", "[4]", R"([{"name": "bitround", "configuration": {"keepbits": 3}},
    {"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 2}},
    {"name": "numcodecs.adler32"}])"));
  BOOST_TEST(f.order == 'C');
  BOOST_TEST(f.byte_order == '<');
  BOOST_TEST(f.filters == zarr::parse_json(R"([{"id": "bitround", "keepbits": 3}, {"id": "gzip", "level": 2}, {"id": "adler32"}])"));
  BOOST_TEST(f.compressor.is_null());
  f = zarr::v3_codecs_to_v2(v3_array("bool", "[2, 9]", "[2, 9]", R"([{"name": "transpose", "configuration": {"order": [0, 1]}},
    {"name": "numcodecs.packbits"}, {"name": "zstd", "configuration": {"level": 5, "checksum": true}}])"));
  BOOST_TEST(f.order == 'C');
  BOOST_TEST(f.byte_order == '|');
  BOOST_TEST(f.filters == zarr::parse_json(R"([{"id": "packbits"}])"));
  BOOST_TEST(f.compressor == zarr::parse_json(R"({"id": "zstd", "level": 5, "checksum": true})"));
}

BOOST_AUTO_TEST_CASE(names_what_zarr_v2_cannot_express_in_a_v3_chain) {
  using zarr::errc;
  const auto expect = [](const std::string& type, const std::string& codecs, const std::string& part) {
    ZARR_CHECK_ERROR(zarr::v3_codecs_to_v2(v3_array(type, "[4, 4, 4]", "[2, 2, 2]", codecs)), errc::unsupported, part);
  };
  expect("int16", R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1, 1],
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])",
         "codecs[0]: expected a codec that Zarr v2 (numcodecs) has, got \"sharding_indexed\" (Zarr v2 has no shards)");
  expect("int16", R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])",
         "codecs[1]: expected a codec that Zarr v2 (numcodecs) has, got \"crc32c\" (numcodecs 0.11 has no crc32c");
  expect("float32", R"([{"name": "scale_offset", "configuration": {"scale": 2}}, {"name": "bytes", "configuration": {"endian": "little"}}])",
         "codecs[0]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got a scale_offset without a cast_value after it");
  expect("float32", R"([{"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap"}},
    {"name": "bytes"}])",
         "got \"cast_value\" (no numcodecs filter has its rounding and out-of-range modes, except as numcodecs.fixedscaleoffset");
  expect("int16", R"([{"name": "transpose", "configuration": {"order": [0, 2, 1]}}, {"name": "bytes", "configuration": {"endian": "little"}}])",
         "codecs[0]: expected a transpose that reverses the axes (Zarr v2 order \"F\") or none, got the order [0,2,1]");
  expect("int16", R"([{"name": "numcodecs.delta", "configuration": {"dtype": "<i2"}},
    {"name": "transpose", "configuration": {"order": [2, 1, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}])",
         "codecs[1]: expected a transpose only first (Zarr v2 order \"F\"), got one after numcodecs.delta");
  expect("uint8", R"([{"name": "packbits"}])", "got \"packbits\" (numcodecs.packbits is another layout");
  expect("bfloat16", R"([{"name": "bytes", "configuration": {"endian": "little"}}])",
         "data_type: expected a data type that Zarr v2 (NumPy) has, got bfloat16");
}

// docs/decisions.md 54: [scale_offset, cast_value] is numcodecs.fixedscaleoffset where it is what
// decision 18 reads that filter as and numcodecs reads and writes the same values.
BOOST_AUTO_TEST_CASE(gives_fixedscaleoffset_for_a_scale_offset_and_cast_value_numcodecs_reads_alike) {
  auto f = zarr::v3_codecs_to_v2(v3_array("float32", "[8]", "[4]", R"([{"name": "scale_offset", "configuration": {"scale": 2, "offset": 0}},
    {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap"}},
    {"name": "bytes"}, {"name": "zstd", "configuration": {"level": 1}}])"));
  BOOST_TEST(f.filters == zarr::parse_json(R"([{"id": "fixedscaleoffset", "offset": 0.0, "scale": 2.0, "dtype": "<f4", "astype": "|u1"}])"));
  BOOST_TEST(f.compressor == zarr::parse_json(R"({"id": "zstd", "level": 1})"));
  // float64: numcodecs decodes in float64 as scale_offset does; the type strings take the bytes' order.
  f = zarr::v3_codecs_to_v2(v3_array("float64", "[4, 4]", "[2, 2]", R"([{"name": "transpose", "configuration": {"order": [1, 0]}},
    {"name": "scale_offset", "configuration": {"scale": 4, "offset": -20}},
    {"name": "cast_value", "configuration": {"data_type": "int16", "rounding": "nearest-even", "out_of_range": "wrap"}},
    {"name": "bytes", "configuration": {"endian": "big"}}])"));
  BOOST_TEST(f.order == 'F');
  BOOST_TEST(f.byte_order == '>');
  BOOST_TEST(f.filters == zarr::parse_json(R"([{"id": "fixedscaleoffset", "offset": -20.0, "scale": 4.0, "dtype": ">f8", "astype": ">i2"}])"));
  // float16 with every uint8 value decoding alike (e / 4 - 0.5 is exact in float16 and float64).
  f = zarr::v3_codecs_to_v2(v3_array("float16", "[4]", "[4]", R"([{"name": "scale_offset", "configuration": {"scale": 4, "offset": -0.5}},
    {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap"}},
    {"name": "bytes"}])"));
  BOOST_TEST(f.filters == zarr::parse_json(R"([{"id": "fixedscaleoffset", "offset": -0.5, "scale": 4.0, "dtype": "<f2", "astype": "|u1"}])"));
}

BOOST_AUTO_TEST_CASE(names_why_a_scale_offset_and_cast_value_have_no_fixedscaleoffset_form) {
  using zarr::errc;
  const auto expect = [](const std::string& type, const std::string& scale_offset, const std::string& cast, const std::string& part) {
    const auto codecs = R"([{"name": "scale_offset", "configuration": )" + scale_offset +
                        R"(}, {"name": "cast_value", "configuration": )" + cast +
                        R"(}, {"name": "bytes", "configuration": {"endian": "little"}}])";
    ZARR_CHECK_ERROR(zarr::v3_codecs_to_v2(v3_array(type, "[4]", "[4]", codecs)), errc::unsupported, part);
  };
  const std::string so = R"({"scale": 2, "offset": 0})";
  expect("int16", so, R"({"data_type": "int8", "rounding": "nearest-even", "out_of_range": "wrap"})",
         "codecs[0]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got a scale_offset on int16 (numcodecs decodes through float64 and truncates");
  expect("float32", so, R"({"data_type": "float16", "rounding": "nearest-even"})",
         "codecs[1]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got a cast_value to float16 (numcodecs rounds to an integer before it casts");
  expect("float32", so, R"({"data_type": "uint8", "rounding": "towards-zero", "out_of_range": "wrap"})",
         "codecs[1]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got rounding \"towards-zero\" (numcodecs rounds half to even");
  expect("float32", so, R"({"data_type": "uint8", "rounding": "nearest-even"})",
         "codecs[1]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got out_of_range absent");
  expect("float32", so, R"({"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "clamp"})", "got out_of_range \"clamp\"");
  expect("float32", so, R"({"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap",
                            "scalar_map": {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}})",
         "codecs[1]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got a scalar_map");
  // numcodecs would compute in float32 (65280.0 is beyond np.min_scalar_type's float16 range).
  expect("float16", R"({"scale": 1, "offset": 65280})", R"({"data_type": "int32", "rounding": "nearest-even", "out_of_range": "wrap"})",
         "codecs[0]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got offset 65280 and scale 1, with which numcodecs computes (x - offset) * scale in float32, "
         "scale_offset in float16");
  // float32 and a 32-bit astype: 2^32 encoded values are not tried.
  expect("float32", so, R"({"data_type": "uint32", "rounding": "nearest-even", "out_of_range": "wrap"})",
         "codecs[1]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got a cast_value to uint32 on float32");
  // e / 10 - 0.1 in float64 rounded once to float32 is not float32's two roundings: for e = 1,
  // float32(1 / 10.0 + float(np.float32(-0.1))) is -1.4901161e-09, (1 / 10f) - 0.1f is 0.
  expect("float32", R"({"scale": 10, "offset": -0.1})", R"({"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap"})",
         "codecs[0]: expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset reads and writes alike "
         "(docs/decisions.md 54), got values that numcodecs decodes differently: the encoded uint8 1 decodes to -1.49");
  expect("float32", R"({"scale": 10, "offset": -0.1})", R"({"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap"})",
         " and to 0 in scale_offset (float32 arithmetic)");
}

BOOST_AUTO_TEST_CASE(opens_v2_nodes_by_their_documents_and_reads_the_spec_example_chunks) {
  // The spec's "Storing a single array" example: int32, fill 42, zlib level 1, chunk "0.0" of 1s.
  auto s = store_with({{".zgroup", R"({"zarr_format": 2})"},
                       {".zattrs", R"({"foo": 42, "bar": "apples"})"},
                       {"a/.zarray", R"({"chunks": [10, 10], "compressor": null, "dtype": "<i4", "fill_value": 42,
                                         "filters": null, "order": "C", "shape": [20, 20], "zarr_format": 2})"}});
  std::vector<std::int32_t> ones(100, 1);
  s->set("a/0.0", std::as_bytes(std::span(ones)));
  const auto root = zarr::group::open(s, "");
  BOOST_TEST(root.metadata().zarr_format == 2);
  BOOST_TEST(root.metadata().attributes.at("bar") == "apples");
  BOOST_TEST(root.children() == std::vector<std::string>{"a"}, boost::test_tools::per_element());
  const auto a = zarr::array::open(s, "a");
  const auto v = a.read<std::int32_t>({{9, 9}, {11, 11}});
  BOOST_TEST(v == (std::vector<std::int32_t>{1, 42, 42, 42}), boost::test_tools::per_element());
  ZARR_CHECK_ERROR(zarr::array::open(s, "b"), zarr::errc::not_found,
                   "node \"/b\": expected a zarr.json (or a Zarr v2 .zarray or .zgroup), got none");
  s->set("c/.zarray", std::as_bytes(std::span(std::string_view(R"({"zarr_format": 2})"))));
  ZARR_CHECK_ERROR(zarr::array::open(s, "c"), zarr::errc::invalid_metadata, "node \"/c\": .zarray: shape: expected a value");
}

BOOST_AUTO_TEST_CASE(missing_chunks_without_a_fill_value_read_as_zero_unless_opened_strict) {
  auto s = store_with({{"n/.zarray", R"({"chunks": [2], "compressor": null, "dtype": "<u2", "fill_value": null,
                                         "filters": null, "order": "C", "shape": [4], "zarr_format": 2})"}});
  auto a = zarr::array::open(s, "n");
  a.write<std::uint16_t>({{0}, {2}}, std::vector<std::uint16_t>{0, 7});  // stored although a chunk could be zeros
  a.write<std::uint16_t>({{0}, {2}}, std::vector<std::uint16_t>{0, 0});
  BOOST_TEST(s->get("n/0").has_value());
  BOOST_TEST(a.read<std::uint16_t>({{0}, {4}}) == (std::vector<std::uint16_t>{0, 0, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(!s->get("n/1").has_value());
  const auto strict = zarr::array::open(s, "n", {.strict_fill_value = true});
  BOOST_TEST(strict.read<std::uint16_t>({{0}, {2}}) == (std::vector<std::uint16_t>{0, 0}), boost::test_tools::per_element());
  ZARR_CHECK_ERROR(strict.read<std::uint16_t>({{1}, {3}}), zarr::errc::not_found,
                   "array \"/n\", chunk \"n/1\": expected a stored chunk (the array has no fill value, \"fill_value\": null, "
                   "and was opened strict), got none");
  ZARR_CHECK_ERROR(strict.read_chunk(std::vector<std::uint64_t>{1}), zarr::errc::not_found, "chunk \"n/1\"");
}

BOOST_AUTO_TEST_CASE(writes_v2_arrays_and_groups_that_read_back) {
  auto s = std::make_shared<zarr::memory_store>();
  auto m = zarr::array_metadata::parse_v2(
      R"({"chunks": [2, 3], "compressor": {"id": "gzip", "level": 1}, "dtype": ">i2", "fill_value": -1,
          "filters": null, "order": "F", "shape": [3, 4], "zarr_format": 2, "dimension_separator": "/"})",
      {{"_ARRAY_DIMENSIONS", json::array{"y", "x"}}});
  auto a = zarr::array::create(s, "g/h/a", m);
  // Parents are v2 groups; attributes go to .zattrs.
  BOOST_TEST(text_of(*s, ".zgroup") == "{\n  \"zarr_format\": 2\n}\n");
  BOOST_TEST(text_of(*s, "g/h/.zgroup") == "{\n  \"zarr_format\": 2\n}\n");
  BOOST_TEST(zarr::parse_json(text_of(*s, "g/h/a/.zattrs")) == zarr::parse_json(R"({"_ARRAY_DIMENSIONS": ["y", "x"]})"));
  BOOST_TEST(zarr::parse_json(text_of(*s, "g/h/a/.zarray")) == zarr::parse_json(
      R"({"chunks": [2, 3], "compressor": {"id": "gzip", "level": 1}, "dimension_separator": "/", "dtype": ">i2",
          "fill_value": -1, "filters": null, "order": "F", "shape": [3, 4], "zarr_format": 2})"));
  std::vector<std::int16_t> v(12);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int16_t>(i * 300 - 1000);
  a.write<std::int16_t>(zarr::region::all(a.shape()), v);
  // Chunk "0/0" holds rows 0-1, columns 0-2 in F order, big-endian, gzip'd.
  const auto chunk = zarr::gzip_codec({.level = 1}, "test").decode(*s->get("g/h/a/0/0"));
  const std::int16_t f_order[] = {-1000, 200, -700, 500, -400, 800};
  BOOST_TEST_REQUIRE(chunk.size() == 12u);
  for (std::size_t i = 0; i < 6; ++i)
    BOOST_TEST(static_cast<std::int16_t>((std::to_integer<int>(chunk[2 * i]) << 8) | std::to_integer<int>(chunk[2 * i + 1])) ==
               f_order[i]);
  BOOST_TEST(zarr::array::open(s, "g/h/a").read<std::int16_t>(zarr::region::all(a.shape())) == v,
             boost::test_tools::per_element());
  a.set_attributes({});
  BOOST_TEST(!s->get("g/h/a/.zattrs").has_value());
  ZARR_CHECK_ERROR(zarr::group::create(s, "g"), zarr::errc::already_exists, "node \"/g\"");
  zarr::group::create(s, "g/k", {{"a", 1}}, false, 2);
  BOOST_TEST(text_of(*s, "g/k/.zattrs") == "{\n  \"a\": 1\n}\n");
  BOOST_TEST(zarr::group::open(s, "g").children() == (std::vector<std::string>{"h", "k"}), boost::test_tools::per_element());
  auto bad = m;
  bad.type = zarr::data_type::bfloat16;
  ZARR_CHECK_ERROR(zarr::array::create(s, "bf", bad), zarr::errc::unsupported,
                   ".zarray: dtype: expected a data type that Zarr v2 (NumPy) has, got bfloat16");
}

BOOST_AUTO_TEST_SUITE_END()
