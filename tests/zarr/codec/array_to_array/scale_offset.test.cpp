// The scale_offset codec: the spec's examples end to end through a filesystem store,
// exact-then-rounded arithmetic in the array's type, the fill value transform, element and
// configuration errors.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.arithmetic.kernels;
import zarr.fill_value;
import zarr.store;
import zarr.codec;
import zarr.codec.scale_offset;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

// A chain [scale_offset{configuration}, bytes] built from its text inside a zarr.json-like
// document, so that scalars are read exactly from their text as an array does.
zarr::codec_chain so_chain(const std::string& configuration, const zarr::chunk_spec& s) {
  const std::string codecs = R"([{"name": "scale_offset")" +
                             (configuration.empty() ? std::string() : R"(, "configuration": )" + configuration) +
                             R"(}, {"name": "bytes", "configuration": {"endian": "little"}}])";
  const std::string document = R"({"codecs": )" + codecs + "}";
  const auto v = zarr::parse_json(document);
  return zarr::codec_chain(v.at("codecs"), s, "codecs", document);
}

zarr::chunk_spec spec_with_fill(std::vector<std::uint64_t> shape, data_type t, std::string_view fill_json) {
  auto s = spec(std::move(shape), t);
  s.fill = zarr::parse_fill_value_text(fill_json, t);
  return s;
}

const zarr::scale_offset_codec& codec_of(const zarr::codec_chain& c) {
  return dynamic_cast<const zarr::scale_offset_codec&>(*c.array_to_array().front());
}

std::string array_json(std::string_view type, std::string_view fill, std::string_view configuration,
                       std::uint64_t n, std::uint64_t chunk) {
  return R"({"zarr_format": 3, "node_type": "array", "shape": [)" + std::to_string(n) + R"(], "data_type": ")" +
         std::string(type) + R"(", "fill_value": )" + std::string(fill) +
         R"(, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [)" + std::to_string(chunk) +
         R"(]}}, "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "scale_offset", "configuration": )" +
         std::string(configuration) + R"(}, {"name": "bytes", "configuration": {"endian": "little"}}]})";
}

zarr::array create(const std::shared_ptr<zarr::store>& store, const std::string& text) {
  return zarr::array::create(store, "a", zarr::array_metadata::parse(zarr::parse_json(text), text));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scale_offset_codec)

// ---------------------------------------------------------------- the spec's examples

BOOST_AUTO_TEST_CASE(float32_offset_5_scale_0_1_round_trips_through_a_filesystem_store) {
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "data.zarr");
  create(store, array_json("float32", "0", R"({"offset": 5, "scale": 0.1})", 8, 4));
  auto a = zarr::array::open(store, "a");
  const std::vector<float> values{5.0f, 15.0f, 25.5f, -3.25f, 1000.0f, 7.0f, 0.0f, 5.125f};
  a.write<float>({{0}, {8}}, values);
  // Each stored element is (x - 5) * 0.1f, exact and rounded once to float32: x - 5 is exact
  // here, and a float32 product is exact in double.
  const float scale = 0.1f;  // the JSON 0.1 rounded once to float32
  const auto stored = store->get("a/c/0");
  BOOST_TEST_REQUIRE(stored.has_value());
  const auto enc = from_bytes<float>(*stored);
  BOOST_TEST_REQUIRE(enc.size() == 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const float expected = static_cast<float>(static_cast<double>(values[i] - 5.0f) * static_cast<double>(scale));
    BOOST_TEST(std::bit_cast<std::uint32_t>(enc[i]) == std::bit_cast<std::uint32_t>(expected), "element " << i);
  }
  // Decoding: y / 0.1f then + 5, each rounded once to float32.
  const auto back = zarr::array::open(store, "a").read<float>({{0}, {8}});
  const auto enc1 = from_bytes<float>(*store->get("a/c/1"));
  for (std::size_t i = 0; i < 8; ++i) {
    const float y = i < 4 ? enc[i] : enc1[i - 4];
    const float q = static_cast<float>(static_cast<double>(y) / static_cast<double>(scale));
    const float expected = static_cast<float>(static_cast<double>(q) + 5.0);
    BOOST_TEST(std::bit_cast<std::uint32_t>(back[i]) == std::bit_cast<std::uint32_t>(expected), "element " << i);
    BOOST_TEST(std::fabs(back[i] - values[i]) <= 1e-4f * std::max(1.0f, std::fabs(values[i])));
  }
  // The configuration is written back as given.
  const auto meta = zarr::parse_json(std::string(reinterpret_cast<const char*>(store->get("a/zarr.json")->data()),
                                                 store->get("a/zarr.json")->size()));
  const auto& so = meta.at("codecs").at(0).at("configuration");
  BOOST_TEST(so.at("offset").to_number<double>() == 5.0);
  BOOST_TEST(so.at("scale").to_number<double>() == 0.1);
}

BOOST_AUTO_TEST_CASE(float32_fill_value_reads_back_where_no_chunk_was_written) {
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "data.zarr");
  create(store, array_json("float32", "0", R"({"offset": 5, "scale": 0.1})", 8, 4));
  const auto back = zarr::array::open(store, "a").read<float>({{0}, {8}});
  for (auto v : back) BOOST_TEST(v == 0.0f);
}

BOOST_AUTO_TEST_CASE(uint16_range_reduction_with_fill_0_fails_to_create_and_to_open) {
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "data.zarr");
  // 0 - 1000 is not a uint16: the fill value cannot pass through the codec.
  ZARR_CHECK_ERROR(create(store, array_json("uint16", "0", R"({"offset": 1000})", 16, 8)), errc::invalid_metadata,
                   "scale_offset");
  ZARR_CHECK_ERROR(create(store, array_json("uint16", "0", R"({"offset": 1000})", 16, 8)), errc::invalid_metadata,
                   "fill value");
  // A zarr.json written by someone else fails to open, naming the codec and the value.
  const std::string text = array_json("uint16", "0", R"({"offset": 1000})", 16, 8);
  store->set("b/zarr.json", octets(text));
  try {
    (void)zarr::array::open(store, "b");
    BOOST_FAIL("expected an error");
  } catch (const zarr::error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("codecs[0] (scale_offset)") != std::string::npos, what);
    BOOST_TEST(what.find("got 0") != std::string::npos, what);
    BOOST_TEST(what.find("(x - 1000) * 1") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(uint16_range_reduction_with_fill_1000_shifts_values_down_by_1000) {
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "data.zarr");
  create(store, array_json("uint16", "1000", R"({"offset": 1000})", 256, 128));
  auto a = zarr::array::open(store, "a");
  std::vector<std::uint16_t> values(256);
  for (std::size_t i = 0; i < 256; ++i) values[i] = static_cast<std::uint16_t>(1000 + (i * 37) % 256);
  a.write<std::uint16_t>({{0}, {256}}, values);
  const auto stored = from_bytes<std::uint16_t>(*store->get("a/c/1"));
  BOOST_TEST_REQUIRE(stored.size() == 128u);
  for (std::size_t i = 0; i < 128; ++i) BOOST_TEST(stored[i] == values[128 + i] - 1000);
  const auto back = zarr::array::open(store, "a").read<std::uint16_t>({{0}, {256}});
  BOOST_TEST(back == values, boost::test_tools::per_element());
  // Below the offset: the write fails naming the array, the codec, the element and the value.
  try {
    a.write<std::uint16_t>({{3}, {4}}, std::vector<std::uint16_t>{999});
    BOOST_FAIL("expected an error");
  } catch (const zarr::error& e) {
    const std::string what = e.what();
    BOOST_TEST((e.code() == errc::out_of_range), what);
    BOOST_TEST(what.find("scale_offset") != std::string::npos, what);
    BOOST_TEST(what.find("element 3") != std::string::npos, what);
    BOOST_TEST(what.find("x = 999") != std::string::npos, what);
    BOOST_TEST(what.find("negative") != std::string::npos, what);
  }
}

// ---------------------------------------------------------------- arithmetic

BOOST_AUTO_TEST_CASE(encodes_each_type_as_the_scalar_arithmetic_does) {
  // For a few types of every family: the codec's result equals (x - offset) * scale of
  // zarr::arithmetic, and decoding returns x wherever the round trip is exact.
  struct row {
    data_type type;
    const char* configuration;
  };
  const row rows[] = {
      {data_type::int4, R"({"offset": 1, "scale": 2})"},   {data_type::uint2, R"({"offset": 1})"},
      {data_type::int8, R"({"offset": 3, "scale": -1})"},   {data_type::uint64, R"({"offset": 1, "scale": 3})"},
      {data_type::int64, R"({"offset": -5, "scale": 4})"},  {data_type::float8_e4m3, R"({"offset": 0.5, "scale": 2})"},
      {data_type::float4_e2m1fn, R"({"scale": 0.5})"},      {data_type::bfloat16, R"({"offset": 1.5, "scale": 0.25})"},
      {data_type::float16, R"({"offset": 5, "scale": 0.1})"}, {data_type::float64, R"({"offset": 0.1, "scale": 3})"},
      {data_type::float8_e8m0fnu, R"({"scale": 2})"},
  };
  for (const auto& r : rows) {
    const auto& in = zarr::info(r.type);
    // Inputs: small values whose encodings fit the type; the fill value is the first of them.
    std::vector<std::uint64_t> raw;
    for (int v : {1, 2, 3, 2}) raw.push_back(zarr::round_to(r.type, zarr::exact_value::from_int(v)).bits);
    auto s = spec({4}, r.type);
    zarr::store_raw(r.type, s.fill.bits.data(), raw[0]);
    const auto c = so_chain(r.configuration, s);
    const auto& so = codec_of(c);
    const auto config = so.configuration();
    zarr::bytes buffer(4 * static_cast<std::size_t>(in.size));
    for (std::size_t i = 0; i < 4; ++i) zarr::store_raw(r.type, buffer.data() + i * in.size, raw[i]);
    const auto stored = c.encode(buffer);
    for (std::size_t i = 0; i < 4; ++i) {
      std::uint64_t expected = raw[i];
      if (config.offset) expected = zarr::arithmetic(r.type, zarr::arith_op::subtract, expected, config.offset->value().raw()).bits;
      if (config.scale) expected = zarr::arithmetic(r.type, zarr::arith_op::multiply, expected, config.scale->value().raw()).bits;
      // The bytes codec stores the in-memory layout for these little-endian types.
      BOOST_TEST(zarr::load_raw(r.type, stored.data() + i * in.size) == expected, zarr::name(r.type) << " element " << i);
    }
    const auto back = c.decode(stored);
    if (zarr::is_integer(r.type))
      BOOST_TEST(same(back, buffer), zarr::name(r.type));
  }
}

BOOST_AUTO_TEST_CASE(absent_configuration_is_the_identity_and_keeps_negative_zero) {
  const auto c = so_chain("", spec({3}, data_type::float32));
  const std::vector<float> v{-0.0f, std::numeric_limits<float>::quiet_NaN(), 1.5f};
  const auto enc = c.encode(to_bytes(v));
  BOOST_TEST(same(enc, to_bytes(v)));
  BOOST_TEST(same(c.decode(enc), to_bytes(v)));
  BOOST_TEST(boost::json::serialize(codec_of(c).to_json()) == R"({"name":"scale_offset","configuration":{}})");
  // Only a scale: decoding -0.0 gives -0.0 back (the absent offset adds nothing, not +0).
  const auto s = so_chain(R"({"scale": 2})", spec({1}, data_type::float64));
  const auto back = from_bytes<double>(s.decode(s.encode(to_bytes(std::vector<double>{-0.0}))));
  BOOST_TEST(std::signbit(back[0]));
}

BOOST_AUTO_TEST_CASE(nan_and_infinity_inputs_propagate) {
  const auto c = so_chain(R"({"offset": 1, "scale": 2})", spec({3}, data_type::float32));
  const float inf = std::numeric_limits<float>::infinity();
  const auto enc = from_bytes<float>(c.encode(to_bytes(std::vector<float>{std::nanf(""), inf, -inf})));
  BOOST_TEST(std::isnan(enc[0]));
  BOOST_TEST(enc[1] == inf);
  BOOST_TEST(enc[2] == -inf);
}

BOOST_AUTO_TEST_CASE(to_json_writes_offset_and_scale_as_fill_values_of_the_type) {
  const auto c = so_chain(R"({"offset": 5, "scale": 0.1})", spec({1}, data_type::float32));
  const auto j = codec_of(c).to_json();
  BOOST_TEST(j.at("configuration").at("offset").to_number<double>() == 5.0);
  BOOST_TEST(j.at("configuration").at("scale").to_number<double>() == 0.1);  // the shortest float32 text
  const auto i = so_chain(R"({"offset": -7})", spec({1}, data_type::int16));
  BOOST_TEST(boost::json::serialize(codec_of(i).to_json()) ==
             R"({"name":"scale_offset","configuration":{"offset":-7}})");
}

// ---------------------------------------------------------------- the fill value

BOOST_AUTO_TEST_CASE(transforms_the_fill_value_through_the_codec) {
  const auto f = so_chain(R"({"offset": 5, "scale": 0.1})", spec_with_fill({2}, data_type::float32, "0"));
  const auto& e = codec_of(f).encoded();
  BOOST_TEST(e.type == data_type::float32);
  BOOST_TEST(e.fill.as<float>() == -0.5f);
  const auto u = so_chain(R"({"offset": 1000})", spec_with_fill({2}, data_type::uint16, "1000"));
  BOOST_TEST(codec_of(u).encoded().fill.as<std::uint16_t>() == 0);
  const auto n = so_chain(R"({"offset": 1, "scale": 3})", spec_with_fill({2}, data_type::float64, "\"NaN\""));
  BOOST_TEST(std::isnan(codec_of(n).encoded().fill.as<double>()));
}

BOOST_AUTO_TEST_CASE(a_fill_value_the_codec_cannot_encode_fails_at_build) {
  ZARR_CHECK_ERROR(so_chain(R"({"offset": 1000})", spec_with_fill({2}, data_type::uint16, "0")), errc::invalid_metadata,
                   "fill value");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": 2})", spec_with_fill({2}, data_type::int8, "100")), errc::invalid_metadata,
                   "got 100");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": 1e38})", spec_with_fill({2}, data_type::float32, "10")), errc::invalid_metadata,
                   "codecs[0] (scale_offset)");
}

// ---------------------------------------------------------------- element errors

BOOST_AUTO_TEST_CASE(int8_encode_overflow_names_the_element_and_value) {
  const auto c = so_chain(R"({"offset": -10, "scale": 2})", spec({5}, data_type::int8));
  try {
    (void)c.encode(to_bytes(std::vector<std::int8_t>{1, 2, 3, 100, 4}));
    BOOST_FAIL("expected an error");
  } catch (const zarr::error& e) {
    const std::string what = e.what();
    BOOST_TEST((e.code() == errc::out_of_range), what);
    BOOST_TEST(what.find("codecs[0] (scale_offset) encode") != std::string::npos, what);
    BOOST_TEST(what.find("element 3") != std::string::npos, what);
    BOOST_TEST(what.find("x = 100") != std::string::npos, what);
    BOOST_TEST(what.find("(x - -10) * 2") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(inexact_integer_division_on_decode_names_the_element_and_value) {
  const auto c = so_chain(R"({"scale": 3})", spec({3}, data_type::int16));
  BOOST_TEST(from_bytes<std::int16_t>(c.decode(to_bytes(std::vector<std::int16_t>{3, -6, 9}))) ==
                 (std::vector<std::int16_t>{1, -2, 3}),
             boost::test_tools::per_element());
  try {
    (void)c.decode(to_bytes(std::vector<std::int16_t>{3, 7, 9}));
    BOOST_FAIL("expected an error");
  } catch (const zarr::error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("decode, element 1") != std::string::npos, what);
    BOOST_TEST(what.find("x = 7") != std::string::npos, what);
    BOOST_TEST(what.find("inexact division") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(float_overflow_to_infinity_is_an_error) {
  // NaN from Inf - Inf cannot arise (offset must be finite); an overflow from finite values can.
  const auto c = so_chain(R"({"scale": 10})", spec({3}, data_type::float32));
  try {
    (void)c.encode(to_bytes(std::vector<float>{1.0f, 3e38f, 2.0f}));
    BOOST_FAIL("expected an error");
  } catch (const zarr::error& e) {
    const std::string what = e.what();
    BOOST_TEST((e.code() == errc::out_of_range), what);
    BOOST_TEST(what.find("element 1") != std::string::npos, what);
    BOOST_TEST(what.find("x = 3e+38") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(unsigned_negative_intermediate_is_an_error) {
  const auto c = so_chain(R"({"offset": 10, "scale": 2})", spec_with_fill({3}, data_type::uint8, "10"));
  ZARR_CHECK_ERROR(c.encode(to_bytes(std::vector<std::uint8_t>{10, 11, 5})), errc::out_of_range, "element 2");
  ZARR_CHECK_ERROR(c.encode(to_bytes(std::vector<std::uint8_t>{10, 11, 5})), errc::out_of_range, "x = 5");
  ZARR_CHECK_ERROR(c.encode(to_bytes(std::vector<std::uint8_t>{10, 11, 5})), errc::out_of_range, "negative intermediate");
}

BOOST_AUTO_TEST_CASE(decode_overflow_of_a_sub_byte_type_names_the_element) {
  // int4: 7 / 1 + 1 = 8 is not an int4.
  const auto c = so_chain(R"({"offset": 1})", spec({2}, data_type::int4));
  ZARR_CHECK_ERROR(c.decode(octets({0x00, 0x07})), errc::out_of_range, "element 1");
}

// ---------------------------------------------------------------- configuration errors

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(so_chain(R"({"offset": 1, "dtype": "int8"})", spec({1}, data_type::int8)), errc::invalid_metadata,
                   "codecs[0].configuration.dtype");
}

BOOST_AUTO_TEST_CASE(rejects_a_configuration_that_is_not_an_object) {
  ZARR_CHECK_ERROR(so_chain("[1, 2]", spec({1}, data_type::int8)), errc::invalid_metadata, "codecs[0].configuration");
}

BOOST_AUTO_TEST_CASE(rejects_scalars_of_the_wrong_json_type) {
  ZARR_CHECK_ERROR(so_chain(R"({"offset": "five"})", spec({1}, data_type::float32)), errc::invalid_value,
                   "codecs[0].configuration.offset");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": [1]})", spec({1}, data_type::int32)), errc::invalid_value,
                   "codecs[0].configuration.scale");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": true})", spec({1}, data_type::int32)), errc::invalid_value,
                   "codecs[0].configuration.scale");
}

BOOST_AUTO_TEST_CASE(rejects_scale_zero) {
  ZARR_CHECK_ERROR(so_chain(R"({"scale": 0})", spec({1}, data_type::int32)), errc::invalid_metadata,
                   "codecs[0].configuration.scale: expected a non-zero value");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": -0.0})", spec({1}, data_type::float64)), errc::invalid_metadata,
                   "codecs[0].configuration.scale");
  // A decimal that rounds to zero in the type is zero too.
  ZARR_CHECK_ERROR(so_chain(R"({"scale": 1e-10})", spec({1}, data_type::float16)), errc::invalid_metadata,
                   "codecs[0].configuration.scale");
}

BOOST_AUTO_TEST_CASE(rejects_non_finite_scale_and_offset) {
  ZARR_CHECK_ERROR(so_chain(R"({"scale": "NaN"})", spec({1}, data_type::float32)), errc::invalid_metadata,
                   "codecs[0].configuration.scale: expected a finite value");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": "Infinity"})", spec({1}, data_type::float32)), errc::invalid_metadata,
                   "codecs[0].configuration.scale");
  ZARR_CHECK_ERROR(so_chain(R"({"offset": "-Infinity"})", spec({1}, data_type::float64)), errc::invalid_metadata,
                   "codecs[0].configuration.offset");
  ZARR_CHECK_ERROR(so_chain(R"({"offset": "NaN"})", spec({1}, data_type::float8_e4m3fnuz)), errc::invalid_metadata,
                   "codecs[0].configuration.offset");
}

BOOST_AUTO_TEST_CASE(rejects_offsets_that_are_not_values_of_the_type) {
  ZARR_CHECK_ERROR(so_chain(R"({"offset": 1000})", spec({1}, data_type::int8)), errc::invalid_value,
                   "codecs[0].configuration.offset");
  ZARR_CHECK_ERROR(so_chain(R"({"offset": 1.5})", spec({1}, data_type::uint8)), errc::invalid_value,
                   "codecs[0].configuration.offset");
  ZARR_CHECK_ERROR(so_chain(R"({"offset": -1})", spec({1}, data_type::uint16)), errc::invalid_value,
                   "codecs[0].configuration.offset");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": 1e39})", spec({1}, data_type::float32)), errc::invalid_value,
                   "codecs[0].configuration.scale");
  ZARR_CHECK_ERROR(so_chain(R"({"scale": 8})", spec({1}, data_type::float4_e2m1fn)), errc::invalid_value,
                   "codecs[0].configuration.scale");
}

BOOST_AUTO_TEST_CASE(rejects_bool_and_complex_naming_the_codec) {
  ZARR_CHECK_ERROR(so_chain(R"({"scale": 2})", spec({1}, data_type::bool_)), errc::invalid_metadata,
                   "codecs[0] (scale_offset): expected an integer or floating-point data type, got bool");
  ZARR_CHECK_ERROR(so_chain("", spec({1}, data_type::complex64)), errc::invalid_metadata, "got complex64");
}

BOOST_AUTO_TEST_SUITE_END()
