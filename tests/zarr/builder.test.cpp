// zarr.builder: every typed codec configuration gives the document the spec shows (the
// expected JSON is written here from the spec files, not from the builder), typed fill
// values are exact, bad combinations fail when the metadata is built, and an array made by
// the builder round-trips through a store.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.fill_value;
import zarr.codec;
import zarr.codec.bytes;
import zarr.codec.packbits;
import zarr.codec.blosc;
import zarr.codec.cast_value;
import zarr.codec.reshape;
import zarr.codec.scale_offset;
import zarr.codec.zstd;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.nd;

namespace json = boost::json;
using zarr::data_type;
using zarr::errc;
namespace codecs = zarr::codecs;

namespace {

// A hand-written document for an 8 x 8 array in 4 x 4 chunks with these codecs and fill value.
std::string document(data_type type, std::string_view codecs_json, std::string_view fill = "0") {
  return R"({"zarr_format": 3, "node_type": "array", "shape": [8, 8], "data_type": ")" + std::string(zarr::name(type)) +
         R"(", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
      "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
      "fill_value": )" + std::string(fill) +
         R"(, "codecs": )" + std::string(codecs_json) + "}";
}

zarr::array_metadata parse(const std::string& text) { return zarr::array_metadata::parse(zarr::parse_json(text), text); }

// The resolved chain's canonical JSON (every choice recorded).
json::value resolved(const zarr::array_metadata& m) {
  return zarr::codec_chain(m.codecs, {m.chunk_shape, m.type, m.fill_value}, "codecs", m.source).to_json();
}

// The builder's metadata is the hand-written document's: every member, and the codecs both
// as written and as resolved.
// (The codecs as written may differ in form: {"name": "crc32c"} and {"name": "crc32c",
// "configuration": {}} are the same codec; the resolved chains may not.)
void check_equivalent(const zarr::array_metadata& built, const std::string& expected_text) {
  const auto expected = parse(expected_text);
  auto a = built.to_json(), b = expected.to_json();
  a.erase("codecs");
  b.erase("codecs");
  BOOST_TEST(json::serialize(a) == json::serialize(b));
  BOOST_TEST(json::serialize(resolved(built)) == json::serialize(resolved(expected)));
  BOOST_TEST((built.fill_value == expected.fill_value));
}

zarr::array_builder eight_by_eight(data_type type) { return zarr::array_builder({8, 8}, type).chunk_shape({4, 4}); }

}  // namespace

BOOST_AUTO_TEST_SUITE(builder)

BOOST_AUTO_TEST_CASE(defaults_to_one_chunk_the_bytes_codec_and_a_zero_fill_value) {
  const auto m = zarr::array_builder({8, 8}, data_type::float32).metadata();
  check_equivalent(m, R"({"zarr_format": 3, "node_type": "array", "shape": [8, 8], "data_type": "float32",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 8]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]})");
  // float8_e8m0fnu has no zero: its default fill value is 1
  const auto e8m0 = zarr::array_builder({4}, data_type::float8_e8m0fnu).metadata();
  BOOST_TEST(e8m0.fill_value.raw() == 0x7fu);
}

BOOST_AUTO_TEST_CASE(emits_each_codec_configuration_as_its_spec_document) {
  struct row {
    data_type type;
    std::vector<codecs::any> chain;
    std::string expected;
  };
  const std::vector<row> rows{
      {data_type::uint16, {codecs::bytes{.endian = zarr::endian::big}},
       R"([{"name": "bytes", "configuration": {"endian": "big"}}])"},
      {data_type::uint8, {codecs::bytes{.endian = std::nullopt}}, R"([{"name": "bytes"}])"},
      {data_type::int32, {codecs::transpose{.order = {1, 0}}},
       R"([{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}])"},
      {data_type::float64, {codecs::crc32c{}},
       R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])"},
      {data_type::float64, {codecs::gzip{.level = 9}},
       R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 9}}])"},
      {data_type::float64, {codecs::zstd{.level = 3}},
       R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3}}])"},
      {data_type::float64, {codecs::bytes{}, codecs::zstd{.level = -5, .checksum = true}},
       R"([{"name": "bytes", "configuration": {"endian": "little"}},
           {"name": "zstd", "configuration": {"level": -5, "checksum": true}}])"},
      {data_type::float32,
       {codecs::blosc{.cname = codecs::blosc_cname::zstd, .clevel = 7, .shuffle = zarr::blosc_shuffle::bitshuffle, .typesize = 4}},
       R"([{"name": "bytes", "configuration": {"endian": "little"}},
           {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 7, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 0}}])"},
      {data_type::float32, {codecs::blosc{}},  // shuffle: the element size becomes the typesize
       R"([{"name": "bytes", "configuration": {"endian": "little"}},
           {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}])"},
      {data_type::float32, {codecs::scale_offset{.offset = 1.5, .scale = 4}},
       R"([{"name": "scale_offset", "configuration": {"offset": 1.5, "scale": 4}},
           {"name": "bytes", "configuration": {"endian": "little"}}])"},
      {data_type::float64, {codecs::scale_offset{.offset = std::nullopt, .scale = 0.1}},  // 0.1 is a float64
       R"([{"name": "scale_offset", "configuration": {"scale": 0.1}}, {"name": "bytes", "configuration": {"endian": "little"}}])"},
      {data_type::float32,
       {codecs::cast_value{.data_type = data_type::uint8,
                           .rounding = zarr::rounding_mode::towards_zero,
                           .out_of_range = zarr::out_of_range_mode::clamp,
                           .encode_map = {{std::numeric_limits<float>::quiet_NaN(), 255}},
                           .decode_map = {{255, std::numeric_limits<double>::quiet_NaN()}}}},
       R"([{"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "towards-zero", "out_of_range": "clamp",
             "scalar_map": {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}}},
           {"name": "bytes"}])"},
      {data_type::int16,
       {codecs::scale_offset{.offset = -3, .scale = 2}, codecs::cast_value{.data_type = data_type::int8}},
       R"([{"name": "scale_offset", "configuration": {"offset": -3, "scale": 2}},
           {"name": "cast_value", "configuration": {"data_type": "int8", "rounding": "nearest-even"}},
           {"name": "bytes"}])"},
      {data_type::uint8, {codecs::reshape{.shape = {std::vector<std::size_t>{0, 1}}}},
       R"([{"name": "reshape", "configuration": {"shape": [[0, 1]]}}, {"name": "bytes"}])"},
      {data_type::uint8, {codecs::reshape{.shape = {2, -1}}},
       R"([{"name": "reshape", "configuration": {"shape": [2, -1]}}, {"name": "bytes"}])"},
      {data_type::int4, {codecs::packbits{.padding_encoding = zarr::packbits_padding::last_byte, .first_bit = 0, .last_bit = 3}},
       R"([{"name": "packbits", "configuration": {"padding_encoding": "last_byte", "first_bit": 0, "last_bit": 3}}])"},
      {data_type::bool_, {codecs::packbits{}}, R"([{"name": "packbits", "configuration": {"padding_encoding": "none"}}])"},
      {data_type::uint16,
       {codecs::sharding_indexed{.chunk_shape = {2, 2},
                                 .codecs = {codecs::bytes{}, codecs::zstd{.level = 1}},
                                 .index_codecs = {codecs::bytes{}, codecs::crc32c{}},
                                 .location = codecs::index_location::start}},
       R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
             "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
             "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
             "index_location": "start"}}])"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(zarr::name(r.type) << " " << r.expected) {
      check_equivalent(eight_by_eight(r.type).codecs(r.chain).metadata(),
                       document(r.type, r.expected, r.type == data_type::bool_ ? "false" : "0"));
    }
  }
}

// One configuration type per codec: what a codec parsed from a document holds
// (configuration()) goes into the builder as it is, and gives that document back.
BOOST_AUTO_TEST_CASE(a_codecs_own_configuration_goes_into_the_builder_as_it_is) {
  const auto text = document(data_type::float32, R"([
      {"name": "scale_offset", "configuration": {"offset": 1.5, "scale": 4}},
      {"name": "cast_value", "configuration": {"data_type": "uint16", "rounding": "towards-zero", "out_of_range": "clamp",
                                                "scalar_map": {"encode": [["NaN", 65535]], "decode": [[65535, "NaN"]]}}},
      {"name": "reshape", "configuration": {"shape": [[0, 1]]}},
      {"name": "bytes", "configuration": {"endian": "big"}},
      {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 7, "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}},
      {"name": "zstd", "configuration": {"level": 5, "checksum": true}}])",
                             "1.5");  // (1.5 - 1.5) * 4 = 0: a fill value the cast takes and gives back
  const auto m = parse(text);
  const zarr::codec_chain chain(m.codecs, {m.chunk_shape, m.type, m.fill_value}, "codecs", m.source);
  const auto& a2a = chain.array_to_array();
  const auto& b2b = chain.bytes_to_bytes();
  const std::vector<codecs::any> same{
      dynamic_cast<const zarr::scale_offset_codec&>(*a2a.at(0)).configuration(),
      dynamic_cast<const zarr::cast_value_codec&>(*a2a.at(1)).configuration(),
      dynamic_cast<const zarr::reshape_codec&>(*a2a.at(2)).configuration(),
      codecs::bytes{.endian = zarr::endian::big},
      dynamic_cast<const zarr::blosc_codec&>(*b2b.at(0)).configuration(),
      dynamic_cast<const zarr::zstd_codec&>(*b2b.at(1)).configuration()};
  check_equivalent(eight_by_eight(data_type::float32).fill_value(1.5f).codecs(same).metadata(), text);
  // The configurations the builder is given are the ones the codecs take: C++ values are
  // converted exactly to the type the codec receives, or refused naming them.
  ZARR_CHECK_ERROR((codecs::reshape{.shape = {2, -2}}), errc::invalid_argument,
                   "reshape: expected a positive size, -1 or a list of input dimensions, got -2");
  const zarr::chunk_spec f32{{4}, data_type::float32, zarr::scalar{data_type::float32, {}}};
  const zarr::scale_offset_codec exact(codecs::scale_offset{.offset = 2, .scale = 0.5}, f32, "codecs[0]");
  BOOST_TEST((exact.configuration().offset->value().type == data_type::float32));
  BOOST_TEST(exact.configuration().offset->value().as<float>() == 2.0f);
  BOOST_TEST(exact.configuration().scale->value().as<float>() == 0.5f);
  ZARR_CHECK_ERROR(zarr::scale_offset_codec(codecs::scale_offset{.scale = 0.1}, f32, "codecs[0]"), errc::invalid_value,
                   "codecs[0].configuration.scale: expected a value that float32 holds exactly, got 0.1");
}

BOOST_AUTO_TEST_CASE(shards_put_the_codecs_inside_sharding_indexed) {
  const auto m = zarr::array_builder({8, 8}, data_type::float32)
                     .shards({4, 4}, {2, 2})
                     .codecs({codecs::gzip{.level = 1}})
                     .metadata();
  check_equivalent(m, document(data_type::float32, R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
      "index_location": "end"}}])", "0.0"));
}

BOOST_AUTO_TEST_CASE(writes_attributes_dimension_names_and_the_v2_key_encoding) {
  const auto m = zarr::array_builder({8, 8}, data_type::int16)
                     .chunk_shape({4, 4})
                     .attributes({{"units", "K"}, {"scale", 2}})
                     .dimension_names({"y", std::nullopt})
                     .chunk_key_encoding({zarr::chunk_key_encoding::kind::v2, '.'})
                     .metadata();
  check_equivalent(m, R"({"zarr_format": 3, "node_type": "array", "shape": [8, 8], "data_type": "int16",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
      "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}}, "fill_value": 0,
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
      "attributes": {"units": "K", "scale": 2}, "dimension_names": ["y", null]})");
  const std::vector<std::uint64_t> chunk{1, 0};
  BOOST_TEST(m.key_encoding.key(chunk) == "1.0");
}

BOOST_AUTO_TEST_CASE(converts_typed_fill_values_exactly) {
  struct row {
    data_type type;
    zarr::typed_value fill;
    std::string expected;  // the fill value's JSON in the document
  };
  const std::vector<row> rows{
      {data_type::float8_e4m3, zarr::float8_e4m3(0.5), "0.5"},
      {data_type::float8_e4m3, 240.0, "240"},  // a double, exactly the largest float8_e4m3
      {data_type::float8_e4m3, -0.001953125, "-0.001953125"},  // the smallest subnormal
      {data_type::bfloat16, std::numeric_limits<double>::quiet_NaN(), "\"NaN\""},
      {data_type::float16, -std::numeric_limits<float>::infinity(), "\"-Infinity\""},
      {data_type::float32, 0.1f, "0.1"},
      {data_type::float64, zarr::float16(0.333251953125), "0.333251953125"},
      {data_type::int4, -8, "-8"},
      {data_type::uint2, std::uint8_t{3}, "3"},
      {data_type::int64, std::numeric_limits<std::int64_t>::min(), "-9223372036854775808"},
      {data_type::uint64, std::numeric_limits<std::uint64_t>::max(), "18446744073709551615"},
      {data_type::int8, 3.0, "3"},
      {data_type::bool_, true, "true"},
      {data_type::bool_, 0, "false"},
      {data_type::complex64, std::complex<double>{1.5, -2}, "[1.5, -2]"},
      {data_type::float8_e8m0fnu, 0.25, "0.25"},
      {data_type::float4_e2m1fn, zarr::int2(-2), "-2"},
      {data_type::int16, zarr::scalar::of(data_type::int16, std::int16_t{-300}), "-300"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(zarr::name(r.type) << " " << r.expected) {
      const auto m = eight_by_eight(r.type).fill_value(r.fill).metadata();
      const auto expected = parse(document(r.type, json::serialize(m.codecs), r.expected));
      BOOST_TEST((m.fill_value == expected.fill_value), json::serialize(m.codecs) << " fill " << zarr::fill_value_to_json_text(m.fill_value));
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_a_fill_value_the_data_type_cannot_hold_exactly) {
  ZARR_CHECK_ERROR(zarr::array_builder({4}, data_type::uint8).fill_value(-1).metadata(), errc::out_of_range,
                   "array_builder: fill_value: expected a value that uint8 holds exactly, got -1 (int32)");
  ZARR_CHECK_ERROR(zarr::array_builder({4}, data_type::int8).fill_value(3.5).metadata(), errc::invalid_value,
                   "fill_value: expected a value that int8 holds exactly, got 3.5 (float64)");
  ZARR_CHECK_ERROR(zarr::array_builder({4}, data_type::float16).fill_value(0.1).metadata(), errc::invalid_value,
                   "expected a value that float16 holds exactly, got 0.1 (float64)");
  ZARR_CHECK_ERROR(zarr::array_builder({4}, data_type::float8_e4m3).fill_value(zarr::bfloat16(512)).metadata(),
                   errc::out_of_range, "got 512 (bfloat16)");
  ZARR_CHECK_ERROR(zarr::array_builder({4}, data_type::int32).fill_value(std::numeric_limits<double>::quiet_NaN()).metadata(),
                   errc::invalid_value, "fill_value");
  ZARR_CHECK_ERROR(zarr::array_builder({4}, data_type::bool_).fill_value(2).metadata(), errc::out_of_range,
                   "expected a value that bool holds exactly, got 2 (int32)");
  ZARR_CHECK_ERROR(zarr::array_builder({4}, data_type::float32).fill_value(std::complex<float>{1, 2}).metadata(),
                   errc::invalid_value, "fill_value: expected a value that float32 holds exactly, got [1,2] (complex64)");
}

// The sized types (datatype-r.md, datatype-fixed_length_utf32.md, datatype-struct.md) from their
// data_type_spec: the document is the hand-written one, with the fill value given as JSON.
BOOST_AUTO_TEST_CASE(makes_sized_type_arrays_from_their_data_type_spec) {
  const auto spec_of = [](const char* json_text) { return zarr::parse_data_type_spec(zarr::parse_json(json_text)); };
  const std::string grid = R"("chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
      "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}])";
  const std::string struct_type =
      R"({"name": "struct", "configuration": {"fields": [{"name": "x", "data_type": "int16"}, {"name": "tag", "data_type": "r8"}]}})";
  const struct {
    std::string type, fill;
  } cases[] = {{R"("r24")", "[1, 2, 3]"},
               {R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}})", R"("é!")"},
               {struct_type, R"({"x": -2, "tag": [7]})"}};
  auto store = std::make_shared<zarr::memory_store>();
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.type) {
      const auto built = zarr::array_builder({3}, spec_of(c.type.c_str())).chunk_shape({2}).fill_json(zarr::parse_json(c.fill)).metadata();
      const auto expected = parse(R"({"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": )" + c.type +
                                  R"(, "fill_value": )" + c.fill + ", " + grid + "}");
      BOOST_TEST(json::serialize(built.to_json()) == json::serialize(expected.to_json()));
      BOOST_TEST((built.fill_value == expected.fill_value));
      // Elements of the fill value where nothing was written; the bytes written come back.
      auto a = zarr::array_builder({3}, spec_of(c.type.c_str())).chunk_shape({2}).fill_json(zarr::parse_json(c.fill))
                   .create(store, "a", true);
      const auto size = static_cast<std::size_t>(a.metadata().element_size());
      std::vector<std::byte> out(3 * size);
      a.read(zarr::region{{0}, {3}}, out);
      for (std::size_t i = 0; i < 3; ++i)
        BOOST_TEST(std::equal(out.begin() + static_cast<std::ptrdiff_t>(i * size), out.begin() + static_cast<std::ptrdiff_t>((i + 1) * size),
                              expected.fill_value.bytes().begin(), expected.fill_value.bytes().end()));
    }
  }
  // Without its configuration, and with a fill value of the wrong form.
  ZARR_CHECK_ERROR(zarr::array_builder({3}, data_type::fixed_length_utf32).metadata(), errc::invalid_metadata,
                   "array_builder: data_type: expected the configuration of fixed_length_utf32");
  ZARR_CHECK_ERROR(zarr::array_builder({3}, spec_of(R"("r24")")).fill_value(1).metadata(), errc::invalid_value,
                   "fill_value: expected its JSON form for");
  ZARR_CHECK_ERROR(zarr::array_builder({3}, spec_of(R"("r24")")).fill_json(zarr::parse_json("[1, 2]")).metadata(),
                   errc::invalid_value, "fill_value");
  ZARR_CHECK_ERROR(zarr::array_builder({3}, data_type::int8).fill_json(zarr::parse_json("1")).metadata(), errc::invalid_value,
                   "fill_value: expected a C++ value for int8");
}

BOOST_AUTO_TEST_CASE(rejects_bad_combinations_when_the_metadata_is_built) {
  // chunk rank
  ZARR_CHECK_ERROR(zarr::array_builder({8, 8}, data_type::float32).chunk_shape({4}).metadata(), errc::invalid_metadata,
                   "array_builder: chunk_grid.configuration.chunk_shape: expected 2 dimensions (the rank of shape), got 1");
  ZARR_CHECK_ERROR(zarr::array_builder({8, 8}, data_type::float32).chunk_shape({4, 0}).metadata(), errc::invalid_metadata,
                   "chunk_shape[1]: expected a positive integer, got 0");
  // inner chunks that do not divide the shard
  ZARR_CHECK_ERROR(zarr::array_builder({8, 8}, data_type::float32).shards({4, 4}, {3, 4}).metadata(), errc::invalid_metadata,
                   "codecs[0].configuration.chunk_shape[0]: expected a divisor of the shard size 4, got 3");
  ZARR_CHECK_ERROR(zarr::array_builder({8, 8}, data_type::float32).shards({4, 4}, {2}).metadata(), errc::invalid_metadata,
                   "chunk_shape: expected 2 dimensions (the rank of the shard), got 1");
  // cast_value to a type the fill value cannot go to and come back from
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::float64)
                       .fill_value(0.5)
                       .codecs({codecs::cast_value{.data_type = data_type::uint8, .rounding = zarr::rounding_mode::towards_zero}})
                       .metadata(),
                   errc::invalid_metadata, "codecs[0] (cast_value): expected a fill value that survives the round trip float64 -> uint8 -> float64, got 0.5");
  // wrap is for integer targets only
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::int32)
                       .codecs({codecs::cast_value{.data_type = data_type::float16, .out_of_range = zarr::out_of_range_mode::wrap}})
                       .metadata(),
                   errc::invalid_metadata, "codecs[0].configuration.out_of_range");
  // scale_offset scalars are values of the type the codec receives: after a cast, int8
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::float32)
                       .codecs({codecs::cast_value{.data_type = data_type::int8}, codecs::scale_offset{.scale = 0.5}})
                       .metadata(),
                   errc::invalid_value, "codecs[1].configuration.scale: expected a value that int8 holds exactly, got 0.5");
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::float32).codecs({codecs::scale_offset{.scale = 0}}).metadata(),
                   errc::invalid_metadata, "codecs[0].configuration.scale: expected a non-zero value");
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::float32)
                       .codecs({codecs::cast_value{.data_type = data_type::int8, .encode_map = {{0.25, 300}}}})
                       .metadata(),
                   errc::out_of_range, "codecs[0].configuration.scalar_map.encode[0][1]");
  // two array -> bytes codecs, a bytes -> bytes codec before the array -> bytes one
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::uint8).codecs({codecs::bytes{}, codecs::packbits{}}).metadata(),
                   errc::invalid_metadata, "codecs[1]");
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::uint8).codecs({codecs::zstd{}, codecs::bytes{}}).metadata(),
                   errc::invalid_metadata, "codecs[0]");
  // configurations out of range
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::uint8).codecs({codecs::gzip{.level = 10}}).metadata(),
                   errc::invalid_metadata, "codecs[1].configuration.level");
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::uint16).codecs({codecs::bytes{.endian = std::nullopt}}).metadata(),
                   errc::invalid_metadata, "codecs[0]");
  ZARR_CHECK_ERROR(zarr::array_builder({8, 8}, data_type::uint8).codecs({codecs::transpose{.order = {0, 2}}}).metadata(),
                   errc::invalid_metadata, "codecs[0]");
  ZARR_CHECK_ERROR(zarr::array_builder({8}, data_type::float16).codecs({codecs::packbits{.first_bit = 3, .last_bit = 16}}).metadata(),
                   errc::invalid_metadata, "codecs[0].configuration.last_bit");
  // dimension names
  ZARR_CHECK_ERROR(zarr::array_builder({8, 8}, data_type::uint8).dimension_names({"x"}).metadata(), errc::invalid_metadata,
                   "dimension_names: expected 2 names (the rank of shape), got 1");
}

BOOST_AUTO_TEST_CASE(creates_an_array_that_round_trips_through_a_memory_store) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array_builder({6, 10}, data_type::float32)
               .shards({4, 6}, {2, 3})
               .codecs({codecs::zstd{.level = 3}})
               .fill_value(std::numeric_limits<float>::quiet_NaN())
               .attributes({{"units", "degC"}})
               .dimension_names({"y", "x"})
               .create(store, "group/temperature");
  std::vector<float> values(3 * 7);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f;
  a.write<float>({{1, 2}, {4, 9}}, values);

  const auto back = zarr::array::open(store, "group/temperature");
  BOOST_TEST(back.metadata().attributes.at("units") == "degC");
  BOOST_TEST(back.metadata().dimension_names.value().at(1).value() == "x");
  BOOST_TEST(back.type() == data_type::float32);
  BOOST_TEST(back.codecs().to_json().as_array().at(0).as_object().at("name") == "sharding_indexed");
  BOOST_TEST(back.read<float>({{1, 2}, {4, 9}}) == values, boost::test_tools::per_element());
  const auto corner = back.read<float>({{0, 0}, {1, 1}});
  BOOST_TEST(std::isnan(corner.front()));  // never written
  // the same metadata as the builder gave, and a second create refuses an existing node
  BOOST_TEST(json::serialize(back.metadata().to_json()) == json::serialize(a.metadata().to_json()));
  ZARR_CHECK_ERROR(zarr::array_builder({2}, data_type::uint8).create(store, "group/temperature"), errc::already_exists,
                   "\"/group/temperature\"");
  BOOST_CHECK_NO_THROW(zarr::array_builder({2}, data_type::uint8).create(store, "group/temperature", true));
}

BOOST_AUTO_TEST_SUITE_END()
