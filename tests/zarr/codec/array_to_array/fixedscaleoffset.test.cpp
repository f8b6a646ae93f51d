// The numcodecs.fixedscaleoffset codec: every numcodecs vector of
// interop/fixedscaleoffset_vectors.json (tests/data) decodes and encodes bit for bit (or, where
// numcodecs gave an infinity or C-undefined garbage, throws), NumPy's promotion types, the fill
// value, the two-codec conversion, configuration and element errors (docs/decisions.md 18, 54).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.arithmetic.kernels;
import zarr.fill_value;
import zarr.codec;
import zarr.codec.fixedscaleoffset;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;
namespace json = boost::json;

namespace {

// [fixedscaleoffset{configuration}, bytes] from text inside a document, as an array reads it.
zarr::codec_chain fso_chain(const std::string& configuration, const zarr::chunk_spec& s) {
  const std::string codecs = R"([{"name": "numcodecs.fixedscaleoffset", "configuration": )" + configuration +
                             R"(}, {"name": "bytes", "configuration": {"endian": "little"}}])";
  const std::string document = R"({"codecs": )" + codecs + "}";
  const auto v = zarr::parse_json(document);
  return zarr::codec_chain(v.at("codecs"), s, "codecs", document);
}

const zarr::fixedscaleoffset_codec& codec_of(const zarr::codec_chain& c) {
  return dynamic_cast<const zarr::fixedscaleoffset_codec&>(*c.array_to_array().front());
}

zarr::chunk_spec spec_with_fill(std::vector<std::uint64_t> shape, data_type t, std::string_view fill_json) {
  auto s = spec(std::move(shape), t);
  s.fill = zarr::parse_fill_value_text(fill_json, t);
  return s;
}

json::value read_vectors() {
  std::ifstream in(data_dir() / "interop" / "fixedscaleoffset_vectors.json");
  BOOST_TEST_REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return zarr::parse_json(text.str(), "fixedscaleoffset_vectors.json");  // exact doubles
}

double as_double(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fixedscaleoffset_codec)

// ---------------------------------------------------------------- the numcodecs vectors

BOOST_AUTO_TEST_CASE(decodes_every_numcodecs_vector_bit_for_bit_or_refuses_its_garbage) {
  const auto doc = read_vectors();
  const auto& cases = doc.at("cases").as_array();
  BOOST_TEST_REQUIRE(cases.size() == 165u);
  int exact = 0, refused = 0;
  for (const auto& item : cases) {
    const auto& k = item.as_object();
    const std::string id(k.at("id").as_string());
    json::object config = k.at("config").as_object();
    config.erase("id");  // numcodecs' get_config(); not a key of the Zarr v3 configuration
    const auto dtype = zarr::data_type_from_name(k.at("dtype").as_string());
    const auto astype = zarr::data_type_from_name(k.at("astype").as_string());
    const auto encoded = from_hex(k.at("encoded_hex_le").as_string());
    const auto expected = from_hex(k.at("decoded_hex_le").as_string());
    const auto n = encoded.size() / static_cast<std::size_t>(zarr::info(astype).size);
    const auto c = fso_chain(json::serialize(config), spec({n}, dtype));
    const auto& fso = codec_of(c);
    // NumPy's arithmetic type, as the generator recorded it.
    BOOST_TEST(zarr::name(zarr::numpy_decode_types(fso.configuration()).add) ==
                   std::string_view(k.at("decode_compute_dtype").as_string()),
               id);

    // Independently: where numcodecs' answer is not a value (an infinity from finite input,
    // or a NaN / out-of-range float cast to an integer, which C leaves undefined), we refuse.
    const double scale = as_double(k.at("scale")), offset = as_double(k.at("offset"));
    std::ptrdiff_t first_bad = -1;
    for (std::size_t i = 0; i < n && first_bad < 0; ++i) {
      const double x = zarr::to_double(astype, zarr::load_raw(astype, encoded.data() + i * zarr::info(astype).size));
      if (zarr::is_integer(dtype)) {
        const double t = std::trunc(x / scale + offset);
        const auto& di = zarr::info(dtype);
        if (!std::isfinite(t) || t < static_cast<double>(di.min) || t > static_cast<double>(di.max))
          first_bad = static_cast<std::ptrdiff_t>(i);
      } else {
        const double y = zarr::to_double(dtype, zarr::load_raw(dtype, expected.data() + i * zarr::info(dtype).size));
        if (std::isinf(y) && !std::isinf(x)) first_bad = static_cast<std::ptrdiff_t>(i);
      }
    }
    if (first_bad < 0) {
      zarr::bytes got;
      try {
        got = c.decode(encoded);
      } catch (const zarr::error& e) {
        BOOST_ERROR(id << ": unexpected error " << e.what());
        continue;
      }
      BOOST_TEST(same(got, expected), id << ": decoded bytes differ from numcodecs'");
      if (same(got, expected)) ++exact;
    } else {
      try {
        (void)c.decode(encoded);
        BOOST_ERROR(id << ": expected an error at element " << first_bad);
      } catch (const zarr::error& e) {
        const std::string what = e.what();
        BOOST_TEST(what.find("element " + std::to_string(first_bad) + ":") != std::string::npos, id << ": " << what);
        BOOST_TEST((e.code() == errc::out_of_range || e.code() == errc::invalid_value), id << ": " << what);
        ++refused;
      }
    }
  }
  BOOST_TEST_MESSAGE("fixedscaleoffset vectors: " << exact << " decoded bit for bit, " << refused << " refused");
  BOOST_TEST(exact + refused == 165);
  BOOST_TEST(exact >= 100);  // most vectors hold values; the rest are numcodecs' overflow probes
}

BOOST_AUTO_TEST_CASE(numpy_promotes_by_value_for_a_float_astype) {
  auto types = [](const std::string& configuration) {
    return zarr::numpy_decode_types(codec_of(fso_chain(configuration, spec({1}, data_type::float64))).configuration());
  };
  // float32 / 10.0 stays float32; + 1e40 (beyond float32) goes to float64.
  auto t = types(R"({"scale": 10.0, "offset": 1e40, "dtype": "<f8", "astype": "<f4"})");
  BOOST_TEST(t.divide == data_type::float32);
  BOOST_TEST(t.add == data_type::float64);
  // A Python int of 32 bits does not fit float32 safely: float64.
  t = types(R"({"scale": 1, "offset": 1000000, "dtype": "<f8", "astype": "<f4"})");
  BOOST_TEST(t.add == data_type::float64);
  // float16 astype: 0.1 keeps float16, 1000 (uint16) makes float32.
  t = types(R"({"scale": 0.1, "offset": 1000, "dtype": "<f8", "astype": "<f2"})");
  BOOST_TEST(t.divide == data_type::float16);
  BOOST_TEST(t.add == data_type::float32);
  // An integer astype always divides in float64.
  t = types(R"({"scale": 2, "offset": 1, "dtype": "<f8", "astype": "|u1"})");
  BOOST_TEST(t.divide == data_type::float64);
}

BOOST_AUTO_TEST_CASE(decodes_a_float16_astype_in_float16_as_numpy_does) {
  // 1 / 3 in float16 is 0.333251953125; + 0.5 rounds in float16 again.
  const auto c = fso_chain(R"({"scale": 3.0, "offset": 0.5, "dtype": "float64", "astype": "float16"})",
                           spec({1}, data_type::float64));
  const auto out = from_bytes<double>(c.decode(to_bytes(std::vector<std::uint16_t>{0x3c00})));  // 1.0
  BOOST_TEST(out[0] == 0.8330078125);
}

BOOST_AUTO_TEST_CASE(rounds_to_a_float16_dtype_once_at_every_midpoint) {
  // float64 -> float16 as NumPy's npy_double_to_half: every float16 value, every midpoint
  // between neighbours and the doubles either side of it, against zarr::round_to.
  std::vector<double> in;
  for (std::uint64_t h = 0; h < 0x7c00; ++h) {
    for (double sign : {1.0, -1.0}) {
      const double v = sign * zarr::to_double(data_type::float16, h);
      const double next = sign * zarr::to_double(data_type::float16, h + 1);
      const double mid = (v + next) / 2;  // exact
      in.insert(in.end(), {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, next * 2)});
    }
  }
  std::erase_if(in, [](double x) { return std::fabs(x) >= 65520.0; });  // those overflow (tested below)
  const auto c = fso_chain(R"({"scale": 1, "offset": 0, "dtype": "<f2", "astype": "<f8"})", spec({in.size()}, data_type::float16));
  const auto out = from_bytes<std::uint16_t>(c.decode(to_bytes(in)));
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto want = zarr::round_to(data_type::float16, zarr::exact_value::from_double(in[i] + 0.0)).bits;  // + int 0: -0 -> +0
    if (out[i] != want && mismatches++ < 5) BOOST_ERROR("x = " << in[i] << ": got " << out[i] << ", want " << want);
  }
  BOOST_TEST(mismatches == 0u);
  const auto one = fso_chain(R"({"scale": 1, "offset": 0, "dtype": "<f2", "astype": "<f8"})", spec({1}, data_type::float16));
  ZARR_CHECK_ERROR(one.decode(to_bytes(std::vector<double>{65520.0})), errc::out_of_range, "element 0");
  BOOST_TEST(from_bytes<std::uint16_t>(one.decode(to_bytes(std::vector<double>{std::nextafter(65520.0, 0.0)})))[0] == 0x7bffu);
}

BOOST_AUTO_TEST_CASE(encodes_every_numcodecs_vector_bit_for_bit_or_refuses_its_garbage) {
  const auto doc = read_vectors();
  const auto& cases = doc.at("cases").as_array();
  BOOST_TEST_REQUIRE(cases.size() == 165u);
  int exact = 0, refused = 0, elements_refused = 0;
  for (const auto& item : cases) {
    const auto& k = item.as_object();
    const std::string id(k.at("id").as_string());
    json::object config = k.at("config").as_object();
    config.erase("id");
    const auto dtype = zarr::data_type_from_name(k.at("dtype").as_string());
    const auto astype = zarr::data_type_from_name(k.at("astype").as_string());
    // The input as numcodecs was given it: its values in dtype ("NaN", "Infinity", "-0.0" as text).
    const auto& input = k.at("input").as_array();
    zarr::bytes in(input.size() * static_cast<std::size_t>(zarr::info(dtype).size));
    for (std::size_t i = 0; i < input.size(); ++i) {
      const auto v = input[i].is_string() && input[i] != "-0.0" ? zarr::parse_fill_value(input[i], dtype)
                     : zarr::parse_fill_value_text(input[i].is_string() ? std::string(input[i].as_string())
                                                                        : json::serialize(input[i]), dtype);
      std::memcpy(in.data() + i * zarr::info(dtype).size, v.bits.data(), static_cast<std::size_t>(zarr::info(dtype).size));
    }
    const auto expected = from_hex(k.at("encoded_hex_le").as_string());
    const auto astype_size = static_cast<std::size_t>(zarr::info(astype).size);
    BOOST_TEST_REQUIRE(expected.size() == input.size() * astype_size);
    const auto c = fso_chain(json::serialize(config), spec({input.size()}, dtype));
    BOOST_TEST(zarr::name(zarr::numpy_encode_types(codec_of(c).configuration()).multiply) ==
                   std::string_view(k.at("encode_compute_dtype").as_string()),
               id);
    // Independently: numcodecs' answer is no value where the generator noted a cast C leaves
    // undefined, or where a finite input gave an infinity.
    bool garbage = false;
    for (const auto& note : k.at("notes").as_array()) garbage = garbage || note.as_string().find("undefined") != json::string::npos;
    for (std::size_t i = 0; i < input.size(); ++i) {
      const auto& out = k.at("encoded").as_array()[i];
      const bool finite = !input[i].is_string() || input[i] == "-0.0";
      if (out.is_string() && out.as_string().find("Infinity") != json::string::npos && finite) garbage = true;
    }
    if (!garbage) {
      zarr::bytes got;
      try {
        got = c.encode(std::span<const std::byte>(in));
      } catch (const zarr::error& e) {
        BOOST_ERROR(id << ": unexpected error " << e.what());
        continue;
      }
      BOOST_TEST(same(got, expected), id << ": encoded bytes differ from numcodecs'");
      if (same(got, expected)) ++exact;
      continue;
    }
    try {
      (void)c.encode(std::span<const std::byte>(in));
      BOOST_ERROR(id << ": expected an error");
    } catch (const zarr::error& e) {
      BOOST_TEST((e.code() == errc::out_of_range || e.code() == errc::invalid_value), id << ": " << e.what());
      BOOST_TEST(std::string(e.what()).find("(numcodecs.fixedscaleoffset) encode, element ") != std::string::npos, e.what());
    }
    ++refused;
    // Element by element: numcodecs' value, or an error where its value is garbage.
    const auto one = fso_chain(json::serialize(config), spec({1}, dtype));
    const auto size = static_cast<std::size_t>(zarr::info(dtype).size);
    for (std::size_t i = 0; i < input.size(); ++i) {
      const std::span<const std::byte> x(in.data() + i * size, size);
      try {
        const auto got = one.encode(x);
        BOOST_TEST(same(got, std::span<const std::byte>(expected.data() + i * astype_size, astype_size)), id << " element " << i);
      } catch (const zarr::error& e) {
        BOOST_TEST((e.code() == errc::out_of_range || e.code() == errc::invalid_value), id << ": " << e.what());
        ++elements_refused;
      }
    }
  }
  BOOST_TEST_MESSAGE("fixedscaleoffset vectors: " << exact << " encoded bit for bit, " << refused << " refused ("
                                                  << elements_refused << " elements)");
  BOOST_TEST(exact + refused == 165);
  BOOST_TEST(exact == 114);  // the cases whose every element numcodecs encodes to a value
  BOOST_TEST(elements_refused >= refused);
}

// ---------------------------------------------------------------- end to end

BOOST_AUTO_TEST_CASE(reads_and_writes_a_legacy_array_in_a_filesystem_store) {
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "data.zarr");
  const std::string text =
      R"({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float32", "fill_value": 10,
          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
          "chunk_key_encoding": {"name": "default"},
          "codecs": [{"name": "numcodecs.fixedscaleoffset",
                      "configuration": {"astype": "uint8", "dtype": "float32", "scale": 0.1, "offset": 10}},
                     {"name": "bytes", "configuration": {"endian": "little"}}]})";
  store->set("a/zarr.json", octets(text));
  store->set("a/c/0", octets({0, 1, 5, 9}));
  auto a = zarr::array::open(store, "a");
  // y / 0.1 + 10 in float64, then to float32: 10, 20, 60, 100.
  BOOST_TEST(a.read<float>({{0}, {4}}) == (std::vector<float>{10.0f, 20.0f, 60.0f, 100.0f}),
             boost::test_tools::per_element());
  // numcodecs.FixedScaleOffset(offset=10, scale=0.1, dtype="<f4", astype="u1").encode(
  //     np.array([12, 25, 60, 100.4], "<f4")) == [0, 2, 5, 9] (25: 15 * 0.1 is 1.5 in float32, half to even)
  a.write<float>({{0}, {4}}, std::vector<float>{12.0f, 25.0f, 60.0f, 100.4f});
  BOOST_TEST(same(*store->get("a/c/0"), octets({0, 2, 5, 9})));
  BOOST_TEST(a.read<float>({{0}, {4}}) == (std::vector<float>{10.0f, 30.0f, 60.0f, 100.0f}),
             boost::test_tools::per_element());
  // -20 encodes to -3, which uint8 cannot hold: numcodecs' cast is undefined there.
  ZARR_CHECK_ERROR(a.write<float>({{0}, {1}}, std::vector<float>{-20.0f}), errc::out_of_range,
                   "(numcodecs.fixedscaleoffset) encode, element 0: expected round((x - 10) * 0.1) (in float32");
  ZARR_CHECK_ERROR(a.write<float>({{0}, {1}}, std::vector<float>{-20.0f}), errc::out_of_range, "got x = -2");
}

// ---------------------------------------------------------------- the fill value

BOOST_AUTO_TEST_CASE(encodes_the_fill_value_as_numcodecs_would) {
  const std::string config = R"({"astype": "uint8", "dtype": "float32", "scale": 0.1, "offset": 10})";
  BOOST_TEST(codec_of(fso_chain(config, spec_with_fill({1}, data_type::float32, "10"))).encoded().fill.as<std::uint8_t>() == 0);
  // (100 - 10) * 0.1 is 9 (the spec's example says 10; numcodecs gives 9).
  BOOST_TEST(codec_of(fso_chain(config, spec_with_fill({1}, data_type::float32, "100"))).encoded().fill.as<std::uint8_t>() == 9);
  // Integer astype: the cast wraps as NumPy's integer casts do (300 -> 44).
  BOOST_TEST(codec_of(fso_chain(R"({"astype": "|u1", "dtype": "<i4", "scale": 1, "offset": 0})",
                                spec_with_fill({1}, data_type::int32, "300")))
                 .encoded()
                 .fill.as<std::uint8_t>() == 44);
  // Round half to even (np.around): 2.5 -> 2.
  BOOST_TEST(codec_of(fso_chain(R"({"astype": "<f4", "dtype": "<f8", "scale": 1, "offset": 0})",
                                spec_with_fill({1}, data_type::float64, "2.5")))
                 .encoded()
                 .fill.as<float>() == 2.0f);
  BOOST_TEST(codec_of(fso_chain(config, spec({1}, data_type::float32))).encoded().type == data_type::uint8);
}

BOOST_AUTO_TEST_CASE(a_fill_value_numcodecs_cannot_encode_fails_at_open) {
  ZARR_CHECK_ERROR(fso_chain(R"({"astype": "uint8", "dtype": "float32", "scale": 2, "offset": 0})",
                             spec_with_fill({1}, data_type::float32, "\"NaN\"")),
                   errc::invalid_metadata, "codecs[0] (numcodecs.fixedscaleoffset): expected a fill value");
  ZARR_CHECK_ERROR(fso_chain(R"({"astype": "uint8", "dtype": "float32", "scale": 2, "offset": 0})",
                             spec_with_fill({1}, data_type::float32, "\"NaN\"")),
                   errc::invalid_metadata, "got NaN");
}

// ---------------------------------------------------------------- element errors

BOOST_AUTO_TEST_CASE(decode_overflow_names_the_element_and_value) {
  const auto c = fso_chain(R"({"scale": 0.001, "offset": 0, "dtype": "int16", "astype": "uint8"})",
                           spec({3}, data_type::int16));
  BOOST_TEST(from_bytes<std::int16_t>(c.decode(octets({0, 1, 2}))) == (std::vector<std::int16_t>{0, 1000, 2000}),
             boost::test_tools::per_element());
  try {
    (void)c.decode(octets({1, 2, 200}));
    BOOST_FAIL("expected an error");
  } catch (const zarr::error& e) {
    const std::string what = e.what();
    BOOST_TEST((e.code() == errc::out_of_range), what);
    BOOST_TEST(what.find("codecs[0] (numcodecs.fixedscaleoffset) decode, element 2") != std::string::npos, what);
    BOOST_TEST(what.find("x = 200") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(decoding_nan_into_an_integer_dtype_is_an_error) {
  const auto c = fso_chain(R"({"scale": 1, "offset": 0, "dtype": "int16", "astype": "float32"})",
                           spec({2}, data_type::int16));
  ZARR_CHECK_ERROR(c.decode(to_bytes(std::vector<float>{1.5f, std::nanf("")})), errc::invalid_value, "element 1");
  ZARR_CHECK_ERROR(c.decode(to_bytes(std::vector<float>{1.5f, std::nanf("")})), errc::invalid_value, "x = NaN");
  // Truncation toward zero, as NumPy's astype: -1.5 -> -1, 1.5 -> 1.
  BOOST_TEST(from_bytes<std::int16_t>(c.decode(to_bytes(std::vector<float>{-1.5f, 1.5f}))) ==
                 (std::vector<std::int16_t>{-1, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(decode_overflow_to_infinity_in_a_float_dtype_is_an_error) {
  const auto c = fso_chain(R"({"scale": 0.001, "offset": 0, "dtype": "float16", "astype": "uint8"})",
                           spec({2}, data_type::float16));
  ZARR_CHECK_ERROR(c.decode(octets({1, 100})), errc::out_of_range, "element 1");
}

// "astype": null, as other implementations write numcodecs' default: the dtype itself, so the
// codec decodes float64 from float64 and converts to scale_offset alone (no cast_value).
BOOST_AUTO_TEST_CASE(astype_null_is_the_dtype_itself) {
  const auto c = fso_chain(R"({"scale": 4, "offset": 1, "dtype": "<f8", "astype": null})", spec({2}, data_type::float64));
  BOOST_TEST(from_bytes<double>(c.decode(to_bytes(std::vector<double>{2.0, -6.0}))) == (std::vector<double>{1.5, -0.5}),
             boost::test_tools::per_element());
  BOOST_TEST(zarr::fixedscaleoffset_to_scale_offset(codec_of(c).configuration()).size() == 1u);
  // Null for an integer dtype: decoded as int16, not refused as a missing type.
  const auto i = fso_chain(R"({"scale": 1, "offset": 3, "dtype": "<i2", "astype": null})", spec({2}, data_type::int16));
  BOOST_TEST(from_bytes<std::int16_t>(i.decode(to_bytes(std::vector<std::int16_t>{-5, 7}))) ==
                 (std::vector<std::int16_t>{-2, 10}),
             boost::test_tools::per_element());
}

// ---------------------------------------------------------------- conversion to scale_offset

BOOST_AUTO_TEST_CASE(converts_to_scale_offset_and_cast_value) {
  const auto c = fso_chain(R"({"astype": "uint8", "dtype": "float32", "scale": 0.1, "offset": 10})",
                           spec({1}, data_type::float32));
  const auto codecs = zarr::fixedscaleoffset_to_scale_offset(codec_of(c).configuration());
  BOOST_TEST_REQUIRE(codecs.size() == 2u);
  BOOST_TEST(codecs[0].at("name").as_string() == "scale_offset");
  BOOST_TEST(codecs[0].at("configuration").at("scale").to_number<double>() == 0.1);
  BOOST_TEST(codecs[0].at("configuration").at("offset").to_number<double>() == 10.0);
  BOOST_TEST(json::serialize(codecs[1]) ==
             R"({"name":"cast_value","configuration":{"data_type":"uint8","rounding":"nearest-even","out_of_range":"wrap"}})");
  // The scale_offset half builds for the same array.
  const auto so = zarr::codec_chain(json::array{codecs[0], json::parse(R"({"name": "bytes", "configuration": {"endian": "little"}})")}, spec({1}, data_type::float32));
  BOOST_TEST(so.array_to_array().size() == 1u);
  // An integer dtype with an integral float scale: written as an integer.
  const auto i = fso_chain(R"({"astype": "int8", "dtype": "int32", "scale": 10.0, "offset": -3})", spec({1}, data_type::int32));
  const auto ic = zarr::fixedscaleoffset_to_scale_offset(codec_of(i).configuration());
  BOOST_TEST(json::serialize(ic[0]) == R"({"name":"scale_offset","configuration":{"scale":10,"offset":-3}})");
  // A float astype: no out_of_range (wrap is for integers); astype == dtype: no cast at all.
  const auto f = fso_chain(R"({"astype": "<f4", "dtype": "<f8", "scale": 2, "offset": 1})", spec({1}, data_type::float64));
  BOOST_TEST(json::serialize(zarr::fixedscaleoffset_to_scale_offset(codec_of(f).configuration())[1]) ==
             R"({"name":"cast_value","configuration":{"data_type":"float32","rounding":"nearest-even"}})");
  const auto same_type = fso_chain(R"({"dtype": "<i2", "scale": 2, "offset": 1})", spec({1}, data_type::int16));
  BOOST_TEST(zarr::fixedscaleoffset_to_scale_offset(codec_of(same_type).configuration()).size() == 1u);
}

BOOST_AUTO_TEST_CASE(refuses_to_convert_what_scale_offset_cannot_express) {
  const auto c = fso_chain(R"({"astype": "int8", "dtype": "int32", "scale": 0.5, "offset": 0})", spec({1}, data_type::int32));
  ZARR_CHECK_ERROR(zarr::fixedscaleoffset_to_scale_offset(codec_of(c).configuration()), errc::unsupported,
                   "codecs[0].configuration.scale");
  const auto o = fso_chain(R"({"astype": "uint8", "dtype": "float16", "scale": 1, "offset": 1e10})", spec({1}, data_type::float16));
  ZARR_CHECK_ERROR(zarr::fixedscaleoffset_to_scale_offset(codec_of(o).configuration()), errc::unsupported,
                   "codecs[0].configuration.offset");
  // Decoding such arrays works all the same: numcodecs computes in float64.
  BOOST_TEST(from_bytes<std::int32_t>(c.decode(octets({7})))[0] == 14);
}

// ---------------------------------------------------------------- configuration errors

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(fso_chain(R"({"id": "fixedscaleoffset", "scale": 1, "offset": 0, "dtype": "<f4"})",
                             spec({1}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.id");
}

BOOST_AUTO_TEST_CASE(rejects_missing_and_mistyped_members) {
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 1, "dtype": "<f4"})", spec({1}, data_type::float32)), errc::invalid_metadata,
                   "codecs[0].configuration.offset");
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": "10", "offset": 0, "dtype": "<f4"})", spec({1}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.scale: expected a JSON number");
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 1, "offset": true, "dtype": "<f4"})", spec({1}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.offset");
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 1, "offset": 0})", spec({1}, data_type::float32)), errc::invalid_metadata,
                   "codecs[0].configuration.dtype");
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 1, "offset": 0, "dtype": 4})", spec({1}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.dtype");
  ZARR_CHECK_ERROR(fso_chain("null", spec({1}, data_type::float32)), errc::invalid_metadata, "codecs[0].configuration");
}

BOOST_AUTO_TEST_CASE(rejects_scale_zero) {
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 0, "offset": 0, "dtype": "<f4"})", spec({1}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.scale: expected a non-zero number");
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 0.0, "offset": 0, "dtype": "<f4"})", spec({1}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.scale");
}

BOOST_AUTO_TEST_CASE(rejects_a_dtype_other_than_the_arrays) {
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 1, "offset": 0, "dtype": "<f8", "astype": "|u1"})", spec({1}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.dtype: expected the data type the codec receives, float32");
}

BOOST_AUTO_TEST_CASE(accepts_v2_strings_and_numpy_names) {
  for (const char* t : {"<f4", ">f4", "=f4", "|f4", "f4", "float32"})
    BOOST_TEST(zarr::parse_v2_data_type(t, "dtype") == data_type::float32, t);
  BOOST_TEST(zarr::parse_v2_data_type("|u1", "dtype") == data_type::uint8);
  BOOST_TEST(zarr::parse_v2_data_type(">i2", "dtype") == data_type::int16);
  BOOST_TEST(zarr::parse_v2_data_type("uint64", "dtype") == data_type::uint64);
}

BOOST_AUTO_TEST_CASE(rejects_bad_v2_data_type_strings) {
  for (const char* t : {"<c8", "|b1", "bool", "<f3", "float128", "<U4", "", "<<f4", "f 4", "Float32"}) {
    ZARR_CHECK_ERROR(fso_chain(std::string(R"({"scale": 1, "offset": 0, "dtype": "<f4", "astype": ")") + t + "\"}",
                               spec({1}, data_type::float32)),
                     errc::invalid_metadata, "codecs[0].configuration.astype");
  }
  ZARR_CHECK_ERROR(fso_chain(R"({"scale": 1, "offset": 0, "dtype": "|b1"})", spec({1}, data_type::bool_)),
                   errc::invalid_metadata, "codecs[0].configuration.dtype");
}

BOOST_AUTO_TEST_SUITE_END()
