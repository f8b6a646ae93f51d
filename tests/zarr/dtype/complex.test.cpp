// The complex small floats (zarr-extensions datatype-complex_bfloat16.md,
// datatype-complex_float16.md, datatype-complex_float8_e4m3.md, and the same pattern for
// complex_float4_e2m1fn, complex_float6_*, complex_float8_*): two values of the component type,
// real then imaginary; fill values as the core complex types; the bytes codec's byte order per
// component, none for one-byte components. Bit patterns are worked by hand in the comments.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.element;
import zarr.fill_value;
import zarr.codec;
import zarr.codec.bytes;
import zarr.metadata;
import zarr.builder;
import zarr.store.memory;
import zarr.nd;

using zarr::data_type;
using zarr::errc;

namespace {

std::vector<unsigned> bytes_of(std::span<const std::byte> b) {
  std::vector<unsigned> out;
  for (auto x : b) out.push_back(std::to_integer<unsigned>(x));
  return out;
}

std::unique_ptr<zarr::bytes_codec> bytes_codec(data_type t, const char* configuration, std::uint64_t n) {
  const auto json = boost::json::parse(configuration);
  const zarr::chunk_spec spec{{n}, t, zarr::default_fill_value(t)};
  return std::make_unique<zarr::bytes_codec>(zarr::bytes_configuration::parse({json, spec, "codecs[0]", {}}), spec,
                                             "codecs[0]");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(complex_small_floats)

BOOST_AUTO_TEST_CASE(are_two_values_of_their_component_type) {
  struct row { const char* name; data_type component; int size; };
  for (const auto& r : {row{"complex_bfloat16", data_type::bfloat16, 4}, row{"complex_float16", data_type::float16, 4},
                        row{"complex_float4_e2m1fn", data_type::float4_e2m1fn, 2},
                        row{"complex_float6_e2m3fn", data_type::float6_e2m3fn, 2},
                        row{"complex_float6_e3m2fn", data_type::float6_e3m2fn, 2},
                        row{"complex_float8_e3m4", data_type::float8_e3m4, 2},
                        row{"complex_float8_e4m3", data_type::float8_e4m3, 2},
                        row{"complex_float8_e4m3b11fnuz", data_type::float8_e4m3b11fnuz, 2},
                        row{"complex_float8_e4m3fnuz", data_type::float8_e4m3fnuz, 2},
                        row{"complex_float8_e5m2", data_type::float8_e5m2, 2},
                        row{"complex_float8_e5m2fnuz", data_type::float8_e5m2fnuz, 2},
                        row{"complex_float8_e8m0fnu", data_type::float8_e8m0fnu, 2}}) {
    BOOST_TEST_CONTEXT(r.name) {
      const auto t = zarr::parse_data_type(boost::json::value(r.name));
      BOOST_TEST(zarr::name(t) == r.name);
      BOOST_TEST((zarr::info(t).kind == zarr::dtype_kind::complex));
      BOOST_TEST(zarr::complex_component(t) == r.component);
      BOOST_TEST(zarr::info(t).size == r.size);
      BOOST_TEST(zarr::info(t).size == 2 * zarr::info(r.component).size);
    }
  }
  BOOST_TEST(zarr::complex_component(data_type::complex64) == data_type::float32);
  BOOST_TEST(zarr::complex_component(data_type::int8) == data_type::int8);
}

BOOST_AUTO_TEST_CASE(reads_and_writes_fill_values_as_the_core_complex_types) {
  struct row { data_type t; const char* json; std::initializer_list<unsigned> bytes; const char* written; };
  for (const auto& r : {
           // bfloat16 "NaN" is 0x7fc0; 1.5 is 0x3fc0 (sign 0, exponent 127, mantissa 0x40).
           row{data_type::complex_bfloat16, R"(["NaN", 1.5])", {0xc0, 0x7f, 0xc0, 0x3f}, R"(["NaN",1.5])"},
           // A NaN payload in each component: kept as written, hex both ways.
           row{data_type::complex_float16, R"(["0x7e01", "0xfe05"])", {0x01, 0x7e, 0x05, 0xfe}, R"(["0x7e01","0xfe05"])"},
           row{data_type::complex_float16, R"([1, "-Infinity"])", {0x00, 0x3c, 0x00, 0xfc}, R"([1,"-Infinity"])"},
           // float8_e4m3 (bias 7): 0.5 = 0 0110 000 = 0x30; -3.5 = -1.75 * 2^1 = 1 1000 110 = 0xc6.
           row{data_type::complex_float8_e4m3, "[0.5, -3.5]", {0x30, 0xc6}, "[0.5,-3.5]"},
           // float4_e2m1fn (bias 1): 6 = 1.5 * 2^2 = 0 11 1; -0.5 is the subnormal 1 00 1.
           row{data_type::complex_float4_e2m1fn, "[6, -0.5]", {0x07, 0x09}, "[6,-0.5]"},
           // float8_e4m3fnuz: its NaN is 0x80, and -0.0 is +0 (docs/decisions.md 5).
           row{data_type::complex_float8_e4m3fnuz, R"(["NaN", -0.0])", {0x80, 0x00}, R"(["NaN",0])"},
           // float8_e8m0fnu: 2^(E - 127); 1 is 0x7f, "NaN" 0xff.
           row{data_type::complex_float8_e8m0fnu, R"([1, "NaN"])", {0x7f, 0xff}, R"([1,"NaN"])"},
       }) {
    BOOST_TEST_CONTEXT(zarr::name(r.t) << " " << r.json) {
      const auto v = zarr::parse_fill_value_text(r.json, r.t);
      BOOST_TEST(bytes_of(v.bytes()) == std::vector<unsigned>(r.bytes), boost::test_tools::per_element());
      BOOST_TEST(zarr::fill_value_to_json_text(v) == r.written);
      BOOST_TEST((zarr::parse_fill_value(zarr::fill_value_to_json(v), r.t) == v));
    }
  }
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text(R"(["NaN", 0])", data_type::complex_float4_e2m1fn, "fill_value"),
                   errc::invalid_value, "fill_value[0]: expected a number, or \"0x\"");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("[1, 0]", data_type::complex_float8_e8m0fnu, "fill_value"),
                   errc::invalid_value, "fill_value[1]:");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("[1]", data_type::complex_float8_e4m3, "fill_value"), errc::invalid_value,
                   "fill_value: expected [real, imaginary] for complex_float8_e4m3, got [1]");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("[1, 249]", data_type::complex_float8_e4m3, "fill_value"),
                   errc::invalid_value, "fill_value[1]: expected a number whose magnitude rounds to at most 240");
}

BOOST_AUTO_TEST_CASE(the_bytes_codec_orders_each_component_and_leaves_one_byte_components_alone) {
  // complex_float16 [1, -2]: 0x3c00 then 0xc000, each in the byte order asked for.
  const auto v = zarr::parse_fill_value_text("[1, -2]", data_type::complex_float16);
  BOOST_TEST(bytes_of(bytes_codec(data_type::complex_float16, R"({"endian": "big"})", 1)->encode(v.bytes())) ==
                 (std::vector<unsigned>{0x3c, 0x00, 0xc0, 0x00}),
             boost::test_tools::per_element());
  BOOST_TEST(bytes_of(bytes_codec(data_type::complex_float16, R"({"endian": "little"})", 1)->encode(v.bytes())) ==
                 (std::vector<unsigned>{0x00, 0x3c, 0x00, 0xc0}),
             boost::test_tools::per_element());
  ZARR_CHECK_ERROR(bytes_codec(data_type::complex_bfloat16, "{}", 1), errc::invalid_metadata,
                   "codecs[0].configuration.endian: expected \"little\" or \"big\" (required for complex_bfloat16), got nothing");
  // One-byte components: "The "endian" parameter has no effect" (and it may be left out).
  const auto w = zarr::parse_fill_value_text("[0.5, -3.75]", data_type::complex_float8_e4m3);
  for (const char* config : {"{}", R"({"endian": "big"})", R"({"endian": "little"})"})
    BOOST_TEST(bytes_of(bytes_codec(data_type::complex_float8_e4m3, config, 1)->encode(w.bytes())) ==
                   (std::vector<unsigned>{0x30, 0xc7}),
               boost::test_tools::per_element());
  // Four-bit components are one byte each; the upper bits of a stored byte are not the value.
  const std::vector<std::byte> stored{std::byte{0xf7}, std::byte{0x39}};
  const auto decoded = bytes_codec(data_type::complex_float4_e2m1fn, "{}", 1)->decode(stored);
  BOOST_TEST(bytes_of(decoded) == (std::vector<unsigned>{0x07, 0x09}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(typed_access_keeps_nan_payloads_and_converts_exactly) {
  auto store = std::make_shared<zarr::memory_store>();
  using c16 = zarr::complex_value<zarr::float16>;
  static_assert(zarr::data_type_of<c16> == data_type::complex_float16);
  auto a = zarr::array_builder({4}, data_type::complex_float16).chunk_shape({3}).create(store, "c");
  const std::vector<c16> values{{zarr::float16::from_bits(0x7e01), zarr::float16::from_bits(0xfe05)},
                                {zarr::float16(1.5), zarr::float16(-0.25)}};
  a.write<c16>({{0}, {2}}, values);
  const auto back = a.read<c16>(zarr::region::all(a.shape()));
  BOOST_TEST(back[0].real.bits() == 0x7e01u);  // each component's NaN payload, as written
  BOOST_TEST(back[0].imag.bits() == 0xfe05u);
  BOOST_TEST(back[1].real.bits() == 0x3e00u);
  BOOST_TEST(back[1].imag.bits() == 0xb400u);
  BOOST_TEST(back[3].real.bits() == 0u);  // the default fill value [0, 0]
  // To and from the other complex types, value by value, exactly.
  const auto as_c64 = a.read<std::complex<float>>({{1}, {2}});
  BOOST_TEST(as_c64[0] == std::complex<float>(1.5f, -0.25f));
  a.write<std::complex<double>>({{2}, {3}}, std::vector<std::complex<double>>{{65504.0, -1.0 / 1024}});
  BOOST_TEST(a.read<c16>({{2}, {3}})[0].real.bits() == 0x7bffu);
  ZARR_CHECK_ERROR(a.write<std::complex<double>>({{2}, {3}}, std::vector<std::complex<double>>{{0.1, 0}}),
                   errc::invalid_value,
                   "array \"/c\", element 0: expected a value that complex_float16 holds exactly, got [0.1,0] (complex128)");
  auto e4m3 = zarr::array_builder({2}, data_type::complex_float8_e4m3).create(store, "e");
  e4m3.write<float>({{0}, {1}}, std::vector<float>{-3.75f});
  const auto parts = e4m3.read<zarr::complex_value<zarr::float8_e4m3>>({{0}, {1}});
  BOOST_TEST(parts[0].real.bits() == 0xc7u);
  BOOST_TEST(parts[0].imag.bits() == 0x00u);
  BOOST_TEST(e4m3.read<float>({{0}, {1}})[0] == -3.75f);
  BOOST_TEST(e4m3.read<float>({{1}, {2}})[0] == 0.0f);  // never written: [0, 0]
  e4m3.write<zarr::complex_value<zarr::float8_e4m3>>(
      {{1}, {2}}, std::vector<zarr::complex_value<zarr::float8_e4m3>>{{zarr::float8_e4m3(1.0), zarr::float8_e4m3(0.5)}});
  ZARR_CHECK_ERROR(e4m3.read<float>({{1}, {2}}), errc::invalid_value,
                   "expected a value that float32 holds exactly, got [1,0.5] (complex_float8_e4m3)");
}

BOOST_AUTO_TEST_CASE(codecs_that_do_arithmetic_refuse_them) {
  const auto meta = [](const char* codec) {
    const std::string text = R"({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "complex_bfloat16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}}, "chunk_key_encoding": {"name": "default"},
        "fill_value": [0, 0], "codecs": [)" + std::string(codec) + R"(, {"name": "bytes", "configuration": {"endian": "little"}}]})";
    const auto m = zarr::array_metadata::parse(zarr::parse_json(text), text);
    return zarr::codec_chain(m.codecs, zarr::chunk_spec{m.chunk_shape, m.type, m.fill_value}, "codecs", m.source);
  };
  ZARR_CHECK_ERROR(meta(R"({"name": "scale_offset", "configuration": {"scale": 2}})"), errc::invalid_metadata,
                   "expected an integer or floating-point data type, got complex_bfloat16");
  ZARR_CHECK_ERROR(meta(R"({"name": "cast_value", "configuration": {"data_type": "complex64"}})"), errc::invalid_metadata,
                   "cast_value");
}

BOOST_AUTO_TEST_SUITE_END()
