// The data types sized by their configuration (zarr.sized): raw bits r<N> (Zarr v3 core spec
// "Data types", "Permitted fill values"), fixed_length_utf32 (zarr-extensions
// data-types/fixed_length_utf32) and struct with its legacy name structured (data-types/struct,
// data-types/structured): the specs' examples, fill values, the bytes codec's layout, hostile
// metadata (docs/decisions.md 55-59). Expected bytes come from the specs' own layouts.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.sized;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.nd;

namespace json = boost::json;
using zarr::errc;

namespace {

zarr::data_type_spec spec_of(const std::string& text) { return zarr::parse_data_type_spec(json::parse(text)); }

std::string metadata_text(const std::string& type, const std::string& fill, const std::string& codecs,
                          std::uint64_t n = 4, std::uint64_t chunk = 4) {
  return R"({"zarr_format": 3, "node_type": "array", "shape": [)" + std::to_string(n) + R"(], "data_type": )" + type +
         R"(, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [)" + std::to_string(chunk) +
         R"(]}}, "chunk_key_encoding": {"name": "default"}, "fill_value": )" + fill + R"(, "codecs": )" + codecs + "}";
}

zarr::array_metadata metadata(const std::string& type, const std::string& fill, const std::string& codecs,
                              std::uint64_t n = 4, std::uint64_t chunk = 4) {
  const auto text = metadata_text(type, fill, codecs, n, chunk);
  return zarr::array_metadata::parse(zarr::parse_json(text), text);
}

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// One element's bytes (in memory) from its JSON text.
std::vector<std::byte> value_of(const zarr::data_type_spec& spec, const std::string& json_text) {
  std::vector<std::byte> out(static_cast<std::size_t>(spec.element_size()));
  zarr::parse_sized_value(json::parse(json_text), spec, out, "value");
  return out;
}

// The stored bytes of chunk 0 of a one-chunk array of `m` after writing `values` (in memory).
std::vector<std::byte> stored_chunk(const zarr::array_metadata& m, const std::vector<std::byte>& values) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "a", m);
  a.write(zarr::region::all(m.shape), std::span<const std::byte>(values));
  const auto got = store->get("a/c/0");
  BOOST_TEST_REQUIRE(got.has_value());
  std::vector<std::byte> out(got->begin(), got->end());
  std::vector<std::byte> back(values.size());
  a.read(zarr::region::all(m.shape), std::span<std::byte>(back));
  BOOST_TEST((back == values));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(raw_bits)

// Zarr v3 core spec "Data types": "r8, r16, and r24 should be understood as fall-back types of
// respectively 1, 2, and 3 byte length".
BOOST_AUTO_TEST_CASE(names_give_the_core_specs_sizes) {
  BOOST_TEST(spec_of(R"("r8")").element_size() == 1u);
  BOOST_TEST(spec_of(R"("r16")").element_size() == 2u);
  BOOST_TEST(spec_of(R"("r24")").element_size() == 3u);
  BOOST_TEST(spec_of(R"({"name": "r24"})").element_size() == 3u);
  BOOST_TEST(spec_of(R"({"name": "r24", "configuration": {}})").element_size() == 3u);
  BOOST_TEST(json::serialize(zarr::to_json(spec_of(R"({"name": "r24"})"))) == R"("r24")");
}

BOOST_AUTO_TEST_CASE(names_that_are_no_multiple_of_8_or_overflow_are_refused) {
  for (const char* bad : {R"("r0")", R"("r7")", R"("r12")", R"("r08")", R"("r99999999999999999999999")",
                          R"("r134217736")", R"({"name": "r18446744073709551616"})"})
    ZARR_CHECK_ERROR(spec_of(bad), errc::invalid_metadata, "expected r followed by a positive multiple of 8");
  ZARR_CHECK_ERROR(spec_of(R"({"name": "r8", "configuration": {"length": 1}})"), errc::invalid_metadata,
                   "data_type.configuration: expected no keys, got \"length\"");
  ZARR_CHECK_ERROR(spec_of(R"("r*")"), errc::unsupported, "data_type");
}

// "An array of integers ... each integer is in the range [0, 255]": one per byte.
BOOST_AUTO_TEST_CASE(fill_values_are_arrays_of_byte_values) {
  const auto spec = spec_of(R"("r24")");
  const auto s = zarr::parse_sized_fill_value(json::parse("[1, 2, 255]"), spec);
  BOOST_TEST((std::vector<std::byte>(s.bytes().begin(), s.bytes().end()) == bytes_of({1, 2, 255})));
  BOOST_TEST(zarr::sized_value_to_json_text(s.bytes(), spec) == "[1,2,255]");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse("[1, 2]"), spec), errc::invalid_value,
                   "fill_value: expected an array of 3 integers from 0 to 255 (r24)");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse("[1, 2, 256]"), spec), errc::invalid_value,
                   "fill_value[2]: expected an integer from 0 to 255, got 256");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse(R"("0x0102ff")"), spec), errc::invalid_value, "fill_value");
  BOOST_TEST(zarr::sized_value_to_json_text(zarr::default_sized_fill_value(spec).bytes(), spec) == "[0,0,0]");
}

// Raw bits are opaque: the byte order does not apply to them (docs/decisions.md 55).
BOOST_AUTO_TEST_CASE(the_bytes_codec_stores_them_unchanged_in_either_byte_order) {
  const auto values = bytes_of({1, 2, 3, 4, 5, 6, 7, 8});
  for (const char* codecs : {R"([{"name": "bytes", "configuration": {"endian": "big"}}])",
                             R"([{"name": "bytes", "configuration": {"endian": "little"}}])", R"([{"name": "bytes"}])"})
    BOOST_TEST((stored_chunk(metadata(R"("r16")", "[0, 0]", codecs), values) == values), codecs);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(fixed_length_utf32)

// The README's "Bytes codec encoding" example: "Hi" in 12 bytes is U+0048 U+0069 U+0000.
BOOST_AUTO_TEST_CASE(hi_in_twelve_bytes_is_the_specs_layout_in_each_byte_order) {
  const std::string type = R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}})";
  const auto spec = spec_of(type);
  BOOST_TEST(spec.element_size() == 12u);
  const auto hi = value_of(spec, R"("Hi")");
  BOOST_TEST((stored_chunk(metadata(type, R"("")", R"([{"name": "bytes", "configuration": {"endian": "little"}}])", 1, 1), hi) ==
              bytes_of({0x48, 0, 0, 0, 0x69, 0, 0, 0, 0, 0, 0, 0})));
  BOOST_TEST((stored_chunk(metadata(type, R"("")", R"([{"name": "bytes", "configuration": {"endian": "big"}}])", 1, 1), hi) ==
              bytes_of({0, 0, 0, 0x48, 0, 0, 0, 0x69, 0, 0, 0, 0})));
  BOOST_TEST(zarr::sized_value_to_json_text(hi, spec) == R"("Hi")");
  // "When the bytes codec is used, it MUST be configured with an explicit endian setting".
  ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "a", metadata(type, R"("")", R"([{"name": "bytes"}])")),
                   errc::invalid_metadata, "codecs[0].configuration.endian: expected \"little\" or \"big\" (required for fixed_length_utf32)");
}

// The README's example: length_bytes 48 holds 12 code points; "foo" is padded with nine U+0000.
BOOST_AUTO_TEST_CASE(fill_values_are_strings_of_at_most_the_capacity) {
  const auto spec = spec_of(R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 48}})");
  const auto foo = zarr::parse_sized_fill_value(json::parse(R"("foo")"), spec);
  auto expected = bytes_of({0x66, 0, 0, 0, 0x6f, 0, 0, 0, 0x6f, 0, 0, 0});
  expected.resize(48);
  BOOST_TEST((std::vector<std::byte>(foo.bytes().begin(), foo.bytes().end()) == expected));
  BOOST_TEST(zarr::sized_value_to_json_text(foo.bytes(), spec) == R"("foo")");
  const auto small = spec_of(R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}})");
  // Non-ASCII: U+20AC and U+1F600 are one code point each.
  const auto two = zarr::parse_sized_fill_value(json::parse("\"\u20ac\U0001F600\""), small);
  BOOST_TEST((std::vector<std::byte>(two.bytes().begin(), two.bytes().end()) == bytes_of({0xac, 0x20, 0, 0, 0x00, 0xf6, 0x01, 0})));
  BOOST_TEST(zarr::sized_value_to_json_text(two.bytes(), small) == "\"\u20ac\U0001F600\"");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse(R"("abc")"), small), errc::invalid_value,
                   "fill_value: expected at most 2 code points (fixed_length_utf32 of 8 bytes), got 3");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse("0"), small), errc::invalid_value,
                   "fill_value: expected a string (fixed_length_utf32), got 0");
  BOOST_TEST(zarr::sized_value_to_json_text(zarr::default_sized_fill_value(small).bytes(), small) == R"("")");
}

BOOST_AUTO_TEST_CASE(length_bytes_must_be_a_positive_multiple_of_4_that_fits) {
  for (const char* bad : {"0", "6", "-4", "4.0", "\"4\"", "18446744073709551615", "16777220"})
    ZARR_CHECK_ERROR(spec_of(std::string(R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": )") + bad + "}}"),
                     errc::invalid_metadata, "data_type.configuration.length_bytes: expected a positive multiple of 4");
  ZARR_CHECK_ERROR(spec_of(R"("fixed_length_utf32")"), errc::invalid_metadata,
                   "data_type: expected {\"name\": \"fixed_length_utf32\", \"configuration\": {...}}");
  ZARR_CHECK_ERROR(spec_of(R"({"name": "fixed_length_utf32"})"), errc::invalid_metadata,
                   "data_type.configuration: expected an object, got nothing");
  ZARR_CHECK_ERROR(spec_of(R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 4, "x": 1}})"),
                   errc::invalid_metadata, "data_type.configuration: expected only length_bytes, got \"x\"");
}

// A surrogate or a value above U+10FFFF is no Unicode scalar value: refused when written,
// corrupt when read (docs/decisions.md 56).
BOOST_AUTO_TEST_CASE(code_units_that_are_no_scalar_values_are_refused) {
  const std::string type = R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}})";
  const auto m = metadata(type, R"("")", R"([{"name": "bytes", "configuration": {"endian": "little"}}])", 2, 2);
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "a", m);
  const auto surrogate = bytes_of({0x41, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xd8, 0, 0, 0, 0, 0, 0});
  ZARR_CHECK_ERROR(a.write(zarr::region::all(m.shape), std::span<const std::byte>(surrogate)), errc::invalid_value,
                   "element 1: expected Unicode scalar values (no surrogate, at most 0x10ffff) in fixed_length_utf32, got 0xd800");
  BOOST_TEST(!store->get("a/c/0").has_value());
  const auto above = bytes_of({0, 0, 0x11, 0, 0, 0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0, 0});
  store->set("a/c/0", std::span<const std::byte>(above));
  std::vector<std::byte> out(16);
  ZARR_CHECK_ERROR(a.read(zarr::region::all(m.shape), std::span<std::byte>(out)), errc::corrupt_chunk,
                   "element 0: expected Unicode scalar values (no surrogate, at most 0x10ffff) in fixed_length_utf32, got 0x110000");
  ZARR_CHECK_ERROR(zarr::utf8_from_utf32(std::span<const std::byte>(above).subspan(0, 8), "v"), errc::invalid_value,
                   "v: code point 0: expected a Unicode scalar value");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(struct_type)

// data-types/struct "Bytes codec encoding": id int32, flags uint8, value float64 is 13 bytes at
// offsets 0, 4 and 5; the nested point {x, y} then value is 16 bytes, value at 8.
BOOST_AUTO_TEST_CASE(fields_are_packed_as_the_specs_examples_say) {
  const auto flat = spec_of(R"({"name": "struct", "configuration": {"fields": [{"name": "id", "data_type": "int32"},
      {"name": "flags", "data_type": "uint8"}, {"name": "value", "data_type": "float64"}]}})");
  BOOST_TEST(flat.element_size() == 13u);
  BOOST_TEST_REQUIRE(flat.layout.fields->size() == 3u);
  BOOST_TEST((*flat.layout.fields)[0].offset == 0u);
  BOOST_TEST((*flat.layout.fields)[1].offset == 4u);
  BOOST_TEST((*flat.layout.fields)[2].offset == 5u);
  const auto nested = spec_of(R"({"name": "struct", "configuration": {"fields": [{"name": "point", "data_type": {"name": "struct",
      "configuration": {"fields": [{"name": "x", "data_type": "float32"}, {"name": "y", "data_type": "float32"}]}}},
      {"name": "value", "data_type": "float64"}]}})");
  BOOST_TEST(nested.element_size() == 16u);
  BOOST_TEST((*nested.layout.fields)[1].offset == 8u);
  BOOST_TEST((*(*nested.layout.fields)[0].type.layout.fields)[1].offset == 4u);
  // The fill value of the nested example, and a parametrised field (numpy.datetime64).
  const auto fill = zarr::parse_sized_fill_value(json::parse(R"({"point": {"x": 1.0, "y": 2.0}, "value": 3.14})"), nested);
  BOOST_TEST(zarr::sized_value_to_json_text(fill.bytes(), nested) == R"({"point":{"x":1,"y":2},"value":3.14})");
  const auto timed = spec_of(R"({"name": "struct", "configuration": {"fields": [{"name": "timestamp", "data_type": {"name":
      "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}}, {"name": "value", "data_type": {"name": "float32"}}]}})");
  BOOST_TEST(timed.element_size() == 12u);
  BOOST_TEST(json::serialize(zarr::to_json(timed)) ==
             R"({"name":"struct","configuration":{"fields":[{"name":"timestamp","data_type":{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1}}},{"name":"value","data_type":"float32"}]}})");
}

// The README's first example, whole; the bytes codec puts each field in the byte order asked.
BOOST_AUTO_TEST_CASE(the_specs_array_example_reads_and_each_field_takes_the_byte_order) {
  const std::string type = R"({"name": "struct", "configuration": {"fields": [{"name": "x", "data_type": "float32"},
      {"name": "y", "data_type": "float32"}]}})";
  const auto m = metadata(type, R"({"x": 0.0, "y": 0.0})", R"([{"name": "bytes", "configuration": {"endian": "little"}}])", 100, 100);
  BOOST_TEST(m.element_size() == 8u);
  BOOST_TEST(m.to_text().find(R"("fill_value": {"x":0,"y":0})") != std::string::npos, m.to_text());
  const std::string mixed = R"({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "uint16"},
      {"name": "b", "data_type": "uint8"}, {"name": "c", "data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 4}}},
      {"name": "r", "data_type": "r16"}]}})";
  const auto spec = spec_of(mixed);
  const auto value = value_of(spec, R"({"a": 258, "b": 7, "c": "A", "r": [1, 2]})");
  const auto fill = R"({"a": 0, "b": 0, "c": "", "r": [0, 0]})";
  BOOST_TEST((stored_chunk(metadata(mixed, fill, R"([{"name": "bytes", "configuration": {"endian": "big"}}])", 1, 1), value) ==
              bytes_of({1, 2, 7, 0, 0, 0, 0x41, 1, 2})));
  BOOST_TEST((stored_chunk(metadata(mixed, fill, R"([{"name": "bytes", "configuration": {"endian": "little"}}])", 1, 1), value) ==
              bytes_of({2, 1, 7, 0x41, 0, 0, 0, 1, 2})));
  // One-byte fields only: endian may be left out.
  const std::string bytes_only = R"({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "uint8"}, {"name": "b", "data_type": "r8"}]}})";
  BOOST_TEST((stored_chunk(metadata(bytes_only, R"({"a": 0, "b": [0]})", R"([{"name": "bytes"}])", 1, 1), bytes_of({9, 8})) ==
              bytes_of({9, 8})));
  ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "a", metadata(mixed, fill, R"([{"name": "bytes"}])")),
                   errc::invalid_metadata, "codecs[0].configuration.endian: expected \"little\" or \"big\" (required for struct)");
}

BOOST_AUTO_TEST_CASE(fill_values_need_every_field_and_nothing_else) {
  const std::string type = R"({"name": "struct", "configuration": {"fields": [{"name": "x", "data_type": "float32"},
      {"name": "y", "data_type": "int8"}]}})";
  const auto spec = spec_of(type);
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse(R"({"x": 1.5})"), spec), errc::invalid_value,
                   "fill_value.y: expected a value (every field needs one), got nothing");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse(R"({"x": 1.5, "y": 1, "z": 2})"), spec), errc::invalid_value,
                   "fill_value: expected only the struct's fields, got \"z\"");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse(R"({"x": 1.5, "y": 300})"), spec), errc::invalid_value,
                   "fill_value.y: expected an integer");
  ZARR_CHECK_ERROR(zarr::parse_sized_fill_value(json::parse(R"("AAAAAAA=")"), spec), errc::invalid_value,
                   "fill_value: expected an object with a value for each field (struct)");
}

BOOST_AUTO_TEST_CASE(hostile_struct_metadata_is_refused_naming_the_field) {
  const auto s = [](const std::string& fields) { return spec_of(R"({"name": "struct", "configuration": {"fields": )" + fields + "}}"); };
  ZARR_CHECK_ERROR(s(R"([{"name": "x", "data_type": "int8"}, {"name": "x", "data_type": "int16"}])"), errc::invalid_metadata,
                   "data_type.configuration.fields[1].name: expected a name no other field of the struct has, got \"x\"");
  ZARR_CHECK_ERROR(s("[]"), errc::invalid_metadata, "data_type.configuration.fields: expected a non-empty array of fields");
  ZARR_CHECK_ERROR(s(R"([{"name": "", "data_type": "int8"}])"), errc::invalid_metadata,
                   "data_type.configuration.fields[0].name: expected a non-empty string");
  ZARR_CHECK_ERROR(s(R"([{"name": "t", "data_type": "string"}])"), errc::invalid_metadata,
                   "data_type.configuration.fields[0].data_type: expected a data type of fixed size, got string");
  ZARR_CHECK_ERROR(s(R"([["x", "int8"]])"), errc::invalid_metadata,
                   "data_type.configuration.fields[0]: expected {\"name\": ..., \"data_type\": ...}");
  ZARR_CHECK_ERROR(s(R"([{"name": "x", "data_type": "int8", "offset": 0}])"), errc::invalid_metadata,
                   "fields[0]: expected only name and data_type, got \"offset\"");
  ZARR_CHECK_ERROR(s(R"([{"name": "x", "data_type": "int9"}])"), errc::unsupported, "fields[0].data_type");
  // Too big: two fields of 2^23 bytes fit, a third byte does not.
  ZARR_CHECK_ERROR(s(R"([{"name": "a", "data_type": "r67108864"}, {"name": "b", "data_type": "r67108864"}, {"name": "c", "data_type": "int8"}])"),
                   errc::invalid_metadata, "fields[2].data_type: expected a struct of at most 16777216 bytes, got more");
  BOOST_TEST(s(R"([{"name": "a", "data_type": "r67108864"}, {"name": "b", "data_type": "r67108864"}])").element_size() == 16777216u);
  // Nested too deep: 17 structs inside each other.
  // (Built as a value: a zarr.json that deep is already beyond the JSON parser's depth limit.)
  const auto nest = [](int levels) {
    json::value deep = "int8";
    for (int i = 0; i < levels; ++i)
      deep = json::object{{"name", "struct"},
                          {"configuration", json::object{{"fields", json::array{json::object{{"name", "f"}, {"data_type", deep}}}}}}};
    return deep;
  };
  BOOST_TEST(zarr::parse_data_type_spec(nest(16)).element_size() == 1u);
  ZARR_CHECK_ERROR(zarr::parse_data_type_spec(nest(17)), errc::invalid_metadata, "expected structs nested at most 16 deep");
  // Big nested structs: each level doubles the size, until it no longer fits.
  std::string doubling = R"("r67108864")";
  for (int i = 0; i < 2; ++i)
    doubling = R"({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": )" + doubling +
               R"(}, {"name": "b", "data_type": )" + doubling + "}]}}";
  ZARR_CHECK_ERROR(zarr::parse_data_type_spec(json::parse(doubling)), errc::invalid_metadata, "expected a struct of at most 16777216 bytes");
}

// data-types/structured: tuple fields, a missing endian is little-endian, base64 fill values of the
// packed bytes. We write struct with field objects (docs/decisions.md 57).
BOOST_AUTO_TEST_CASE(legacy_structured_is_read_and_written_as_struct) {
  const std::string type = R"({"name": "structured", "configuration": {"fields": [["x", "float32"], ["y", "int16"]]}})";
  // x = 1.0f (00 00 80 3f little-endian), y = 1 (01 00): "AACAPwEA".
  const auto m = metadata(type, R"("AACAPwEA")", R"([{"name": "bytes"}])", 1, 1);
  BOOST_TEST(m.element_size() == 6u);
  BOOST_TEST(zarr::sized_value_to_json_text(m.fill_value.bytes(), m.type_spec()) == R"({"x":1,"y":1})");
  const auto text = m.to_text();
  BOOST_TEST(text.find(R"("name": "struct")") != std::string::npos, text);
  BOOST_TEST(text.find("structured") == std::string::npos, text);
  BOOST_TEST(text.find(R"("fill_value": {"x":1,"y":1})") != std::string::npos, text);
  // Stored little-endian without an endian.
  const auto value = value_of(m.type_spec(), R"({"x": 2.0, "y": -1})");
  BOOST_TEST((stored_chunk(m, value) == bytes_of({0, 0, 0, 0x40, 0xff, 0xff})));
  BOOST_TEST(text.find(R"("endian": "little")") != std::string::npos, text);
  // With "endian": "big", the base64 bytes are big-endian too.
  const auto big = metadata(type, R"("P4AAAAAB")", R"([{"name": "bytes", "configuration": {"endian": "big"}}])", 1, 1);
  BOOST_TEST(zarr::sized_value_to_json_text(big.fill_value.bytes(), big.type_spec()) == R"({"x":1,"y":1})");
  ZARR_CHECK_ERROR(metadata(type, R"("AACAPw==")", R"([{"name": "bytes"}])", 1, 1), errc::invalid_value,
                   "fill_value: expected base64 text of 6 bytes");
  // Inside sharding_indexed too: its inner bytes codec orders the base64 bytes, and is written
  // with its endian.
  const auto sharded = metadata(type, R"("P4AAAAAB")", R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2],
      "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])",
                                4, 4);
  BOOST_TEST(zarr::sized_value_to_json_text(sharded.fill_value.bytes(), sharded.type_spec()) == R"({"x":1,"y":1})");
  const auto little = metadata(type, R"("AACAPwEA")", R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2],
      "codecs": [{"name": "bytes"}], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])",
                               4, 4).to_text();
  std::size_t explicit_little = 0;  // the index's, and now the inner chunks'
  for (auto at = little.find(R"("endian": "little")"); at != std::string::npos; at = little.find(R"("endian": "little")", at + 1))
    ++explicit_little;
  BOOST_TEST(explicit_little == 2u, little);
  // The packed fields must be values of their types, in the bytes codec's order ("A" is 41 00 00
  // 00 little-endian, 00 00 00 41 big-endian); the sized_value fuzz target found the unchecked case.
  const std::string text_and_flag =
      R"({"name": "structured", "configuration": {"fields": [["s", {"name": "fixed_length_utf32", "configuration": {"length_bytes": 4}}], ["b", "bool"]]}})";
  const auto le = metadata(text_and_flag, R"("QQAAAAE=")", R"([{"name": "bytes"}])", 1, 1);
  BOOST_TEST(zarr::sized_value_to_json_text(le.fill_value.bytes(), le.type_spec()) == R"({"s":"A","b":true})");
  const auto be = metadata(text_and_flag, R"("AAAAQQE=")", R"([{"name": "bytes", "configuration": {"endian": "big"}}])", 1, 1);
  BOOST_TEST(zarr::sized_value_to_json_text(be.fill_value.bytes(), be.type_spec()) == R"({"s":"A","b":true})");
  ZARR_CHECK_ERROR(metadata(text_and_flag, R"("AADcAAE=")", R"([{"name": "bytes"}])", 1, 1), errc::invalid_value,
                   "fill_value.s: expected Unicode scalar values");
  ZARR_CHECK_ERROR(metadata(text_and_flag, R"("QQAAAAI=")", R"([{"name": "bytes"}])", 1, 1), errc::invalid_value,
                   "fill_value.b: expected a bool (0 or 1), got 2");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sized_arrays)

// Only the codecs that move whole elements take them (docs/decisions.md 58).
BOOST_AUTO_TEST_CASE(codecs_that_compute_on_values_refuse_them_naming_the_codec) {
  const std::string big = R"({"name": "bytes", "configuration": {"endian": "big"}})";
  for (const std::string codec : {R"({"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}})",
                                  R"({"name": "cast_value", "configuration": {"data_type": "uint8"}})",
                                  R"({"name": "bitround", "configuration": {"keepbits": 3}})",
                                  R"({"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}})"}) {
    const auto m = metadata(R"("r32")", "[0, 0, 0, 0]", "[" + codec + ", " + big + "]");
    const auto name = json::parse(codec).at("name").as_string();
    ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "a", m), errc::unsupported,
                     "codecs[0] (" + std::string(name) + "): expected a codec that takes elements of data type r32");
  }
  for (const std::string codec : {R"({"name": "packbits", "configuration": {}})", R"({"name": "vlen-utf8"})",
                                  R"({"name": "zfp", "configuration": {"mode": "reversible"}})"}) {
    const auto m = metadata(R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 4}})", R"("")", "[" + codec + "]");
    ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "a", m), errc::unsupported, "codecs[0] (");
  }
}

// transpose, sharding and a compressor move whole elements: a struct array through all three.
BOOST_AUTO_TEST_CASE(transpose_sharding_and_compressors_move_whole_elements) {
  const std::string type = R"({"name": "struct", "configuration": {"fields": [{"name": "i", "data_type": "int32"},
      {"name": "s", "data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}}]}})";
  const auto text = R"({"zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": )" + type +
                    R"(, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}}, "chunk_key_encoding": {"name": "default"},
      "fill_value": {"i": -1, "s": "?"}, "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
      {"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2], "codecs": [{"name": "bytes", "configuration": {"endian": "big"}},
      {"name": "gzip", "configuration": {"level": 1}}], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}]})";
  const auto m = zarr::array_metadata::parse(zarr::parse_json(text), text);
  const auto spec = m.type_spec();
  auto a = zarr::array::create(std::make_shared<zarr::memory_store>(), "a", m);
  const zarr::region part{{1, 1}, {3, 4}};
  std::vector<std::byte> values;
  for (int k = 0; k < 6; ++k) {
    const auto v = value_of(spec, R"({"i": )" + std::to_string(k * 1000 - 7) + R"(, "s": ")" + std::string(1, static_cast<char>('a' + k)) + "\u00e9\"}");
    values.insert(values.end(), v.begin(), v.end());
  }
  a.write(part, std::span<const std::byte>(values));
  std::vector<std::byte> all(24 * 12);
  a.read(zarr::region::all(m.shape), std::span<std::byte>(all));
  for (std::uint64_t r = 0; r < 4; ++r)
    for (std::uint64_t c = 0; c < 6; ++c) {
      const auto got = zarr::sized_value_to_json_text(std::span<const std::byte>(all).subspan((r * 6 + c) * 12, 12), spec);
      const bool inside = r >= 1 && r < 3 && c >= 1 && c < 4;
      const auto k = (r - 1) * 3 + (c - 1);
      const std::string expected = inside ? R"({"i":)" + std::to_string(static_cast<int>(k) * 1000 - 7) + R"(,"s":")" +
                                                std::string(1, static_cast<char>('a' + k)) + "\u00e9\"}"
                                          : R"({"i":-1,"s":"?"})";
      BOOST_TEST(got == expected);
    }
  // Typed access converts nothing to or from these types.
  ZARR_CHECK_ERROR(a.read<std::int32_t>(part), errc::unsupported, "expected int32 values, got struct");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sized_v2)

namespace {
std::string zarray(const std::string& dtype, const std::string& fill) {
  return R"({"chunks": [1], "compressor": null, "dtype": )" + dtype + R"(, "fill_value": )" + fill +
         R"(, "filters": null, "order": "C", "shape": [2], "zarr_format": 2})";
}
}  // namespace

// data-types/fixed_length_utf32 "Background": "<U12" is fixed_length_utf32 with length_bytes 48;
// "|V3" is three opaque bytes; a structured dtype is NumPy's descr, its fill value base64 of the
// element in the fields' byte order (NumPy gives "P4AAAAcAAABhAAAAYg==" for (1.0, 7, "ab") below).
BOOST_AUTO_TEST_CASE(numpy_unicode_void_and_structured_dtypes_read_and_write_back) {
  const auto u = zarr::array_metadata::parse_v2(zarray(R"("<U12")", R"("ab")"));
  BOOST_TEST((u.type == zarr::data_type::fixed_length_utf32));
  BOOST_TEST(u.element_size() == 48u);
  BOOST_TEST(zarr::sized_value_to_json_text(u.fill_value.bytes(), u.type_spec()) == R"("ab")");
  BOOST_TEST(u.to_text().find(R"("dtype": "<U12")") != std::string::npos, u.to_text());
  BOOST_TEST(u.to_text().find(R"("fill_value": "ab")") != std::string::npos, u.to_text());

  const auto v = zarr::array_metadata::parse_v2(zarray(R"("|V3")", R"("AQID")"));
  BOOST_TEST((v.type == zarr::data_type::raw_bits));
  BOOST_TEST(zarr::sized_value_to_json_text(v.fill_value.bytes(), v.type_spec()) == "[1,2,3]");
  BOOST_TEST(v.to_text().find(R"("dtype": "|V3")") != std::string::npos, v.to_text());
  BOOST_TEST(v.to_text().find(R"("fill_value": "AQID")") != std::string::npos, v.to_text());

  const auto s = zarr::array_metadata::parse_v2(zarray(R"([["x", ">f4"], ["n", "|u1"], ["s", ">U2"]])", R"("P4AAAAcAAABhAAAAYg==")"));
  BOOST_TEST((s.type == zarr::data_type::struct_));
  BOOST_TEST(s.v2.byte_order == '>');
  BOOST_TEST(zarr::sized_value_to_json_text(s.fill_value.bytes(), s.type_spec()) == R"({"x":1,"n":7,"s":"ab"})");
  const auto text = s.to_text();
  BOOST_TEST(text.find(R"("P4AAAAcAAABhAAAAYg==")") != std::string::npos, text);
  BOOST_TEST((zarr::array_metadata::parse_v2(text).type_spec() == s.type_spec()));
  BOOST_TEST(json::serialize(zarr::v2_sized_dtype(s.type_spec(), '>')) == R"([["x",">f4"],["n","|u1"],["s",">U2"]])");

  // The array stores each element as NumPy lays it out: big-endian fields here (-2.5f is c0 20 00 00).
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "a", s);
  const auto value = value_of(s.type_spec(), R"({"x": -2.5, "n": 9, "s": "z"})");
  a.write(zarr::region{{1}, {2}}, std::span<const std::byte>(value));
  const auto stored = store->get("a/1");
  BOOST_TEST_REQUIRE(stored.has_value());
  BOOST_TEST((std::vector<std::byte>(stored->begin(), stored->end()) ==
              bytes_of({0xc0, 0x20, 0, 0, 9, 0, 0, 0, 0x7a, 0, 0, 0, 0})));
}

BOOST_AUTO_TEST_CASE(v2_dtypes_we_cannot_hold_are_refused_naming_the_field) {
  using zarr::array_metadata;
  ZARR_CHECK_ERROR(array_metadata::parse_v2(zarray(R"([["a", "<i2"], ["b", ">i2"]])", "null")), errc::unsupported,
                   "dtype[1]: expected every field in one byte order");
  ZARR_CHECK_ERROR(array_metadata::parse_v2(zarray(R"([["a", "<i2", [2]]])", "null")), errc::unsupported,
                   "dtype[0]: expected [name, dtype] (subarray fields are not supported)");
  ZARR_CHECK_ERROR(array_metadata::parse_v2(zarray(R"([["a", "<i2"], ["a", "|u1"]])", "null")), errc::invalid_metadata,
                   "dtype[1]: expected a name no other field of the struct has, got \"a\"");
  ZARR_CHECK_ERROR(array_metadata::parse_v2(zarray(R"("<U0")", "null")), errc::invalid_metadata, "dtype: expected a positive count");
  ZARR_CHECK_ERROR(array_metadata::parse_v2(zarray(R"("|V99999999999999999999")", "null")), errc::invalid_metadata,
                   "dtype: expected a positive count");
  ZARR_CHECK_ERROR(array_metadata::parse_v2(zarray(R"([["a", "|O"]])", "null")), errc::unsupported,
                   "dtype[0][1]: expected a NumPy type string of fixed size");
  ZARR_CHECK_ERROR(array_metadata::parse_v2(zarray(R"("|V3")", R"("AQ==")")), errc::invalid_value,
                   "fill_value: expected base64 text of 3 bytes");
}

BOOST_AUTO_TEST_SUITE_END()
