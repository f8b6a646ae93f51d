// TensorStore's float8_e4m3fn (not in the zarr-extensions registry): the OCP 8-bit E4M3 format
// (OCP "8-bit Floating Point Specification (OFP8)", E4M3: bias 7, no infinity, S.1111.111 is
// NaN, largest 448), read as such and never taken for the registry's float8_e4m3 (1/4/3,
// bias 7, IEEE infinities and NaNs: datatype-float8_e4m3.md); docs/decisions.md 49. Values
// are worked by hand from the bit patterns in the comments.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <bit>
#include <cmath>
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
import zarr.fill_value;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.nd;

using zarr::data_type;
using zarr::errc;

BOOST_AUTO_TEST_SUITE(float8_e4m3fn_type)

BOOST_AUTO_TEST_CASE(is_its_own_type_named_as_tensorstore_names_it) {
  const auto t = zarr::parse_data_type(boost::json::value("float8_e4m3fn"));
  BOOST_TEST(t == data_type::float8_e4m3fn);
  BOOST_TEST(t != data_type::float8_e4m3);
  BOOST_TEST(zarr::to_json(t) == boost::json::value("float8_e4m3fn"));
  BOOST_TEST(zarr::info(t).size == 1);
  BOOST_TEST(!zarr::info(t).format.has_infinity());
}

BOOST_AUTO_TEST_CASE(decodes_the_ocp_bit_patterns_where_float8_e4m3_differs) {
  using fn = zarr::float8_e4m3fn;
  using registry = zarr::float8_e4m3;
  // 0 1111 000 = 2^(15-7) = 256: the registry's float8_e4m3 reads it as infinity.
  BOOST_TEST(fn::from_bits(0x78).to_double() == 256.0);
  BOOST_TEST(registry::from_bits(0x78).is_inf());
  // 0 1111 100 = 1.5 * 256 = 384: the registry's "NaN".
  BOOST_TEST(fn::from_bits(0x7c).to_double() == 384.0);
  BOOST_TEST(registry::from_bits(0x7c).is_nan());
  // 0 1111 110 = 1.75 * 256 = 448, the largest; 1 1111 110 = -448.
  BOOST_TEST(fn::from_bits(0x7e).to_double() == 448.0);
  BOOST_TEST(fn::from_bits(0xfe).to_double() == -448.0);
  BOOST_TEST(registry::from_bits(0x7e).is_nan());
  // S 1111 111 is NaN, either sign; 0 0000 001 = 2^(1-7) / 8 = 2^-9; 1 0000 000 = -0.
  BOOST_TEST(fn::from_bits(0x7f).is_nan());
  BOOST_TEST(fn::from_bits(0xff).is_nan());
  BOOST_TEST(fn::from_bits(0x01).to_double() == 0.001953125);
  BOOST_TEST(std::signbit(fn::from_bits(0x80).to_double()));
  // The fill-value text of the special patterns.
  const auto text = [](std::uint8_t b) { return zarr::fill_value_to_json_text(zarr::scalar::of(data_type::float8_e4m3fn, b)); };
  BOOST_TEST(text(0x7f) == "\"NaN\"");
  BOOST_TEST(text(0xff) == "\"0xff\"");
  BOOST_TEST(text(0x80) == "-0.0");
  for (unsigned b = 0; b < 256; ++b)  // every pattern reads back from its text
    BOOST_TEST((zarr::parse_fill_value_text(text(static_cast<std::uint8_t>(b)), data_type::float8_e4m3fn) ==
                zarr::scalar::of(data_type::float8_e4m3fn, static_cast<std::uint8_t>(b))));
}

BOOST_AUTO_TEST_CASE(reads_and_writes_fill_values) {
  const auto bits = [](const char* json) {
    return std::to_integer<unsigned>(zarr::parse_fill_value_text(json, data_type::float8_e4m3fn).bits[0]);
  };
  BOOST_TEST(bits("\"NaN\"") == 0x7fu);
  BOOST_TEST(bits("448") == 0x7eu);
  BOOST_TEST(bits("-448") == 0xfeu);
  BOOST_TEST(bits("464") == 0x7eu);  // halfway between 448 and 480: to the even mantissa 110 (448 is written "450", its shortest text)
  BOOST_TEST(bits("300") == 0x79u);  // the neighbours are 288 (0 1111 001) and 320; 288 is nearer
  BOOST_TEST(bits("\"0xff\"") == 0xffu);
  BOOST_TEST(bits("-0.0") == 0x80u);
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("470", data_type::float8_e4m3fn, "fill_value"), errc::invalid_value,
                   "fill_value: expected a number whose magnitude rounds to at most 450, the largest finite float8_e4m3fn");
  ZARR_CHECK_ERROR(zarr::parse_fill_value_text("\"Infinity\"", data_type::float8_e4m3fn, "fill_value"), errc::invalid_value,
                   "(it has no infinity)");
}

BOOST_AUTO_TEST_CASE(reads_what_tensorstore_stores_and_converts_exactly) {
  auto store = std::make_shared<zarr::memory_store>();
  const std::string text = R"({"zarr_format": 3, "node_type": "array", "shape": [5], "data_type": "float8_e4m3fn",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5]}}, "chunk_key_encoding": {"name": "default"},
      "fill_value": "NaN", "codecs": [{"name": "bytes"}]})";
  auto a = zarr::array::create(store, "t", zarr::array_metadata::parse(zarr::parse_json(text), text));
  const std::vector<std::byte> stored{std::byte{0x78}, std::byte{0x7c}, std::byte{0x7e}, std::byte{0xff}, std::byte{0xb8}};
  store->set("t/c/0", stored);
  const auto v = a.read<double>(zarr::region::all(a.shape()));
  BOOST_TEST(v[0] == 256.0);
  BOOST_TEST(v[1] == 384.0);
  BOOST_TEST(v[2] == 448.0);
  BOOST_TEST(std::isnan(v[3]));
  BOOST_TEST(v[4] == -1.0);  // 1 0111 000 = -2^0
  a.write<float>({{0}, {2}}, std::vector<float>{-0.5f, 0.013671875f});  // 0 0110 000; 7 * 2^-9 = 0 0000 111
  const auto back = store->get("t/c/0");
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST(std::to_integer<unsigned>((*back)[0]) == 0xb0u);
  BOOST_TEST(std::to_integer<unsigned>((*back)[1]) == 0x07u);
  ZARR_CHECK_ERROR(a.write<double>({{0}, {1}}, std::vector<double>{449.0}), errc::invalid_value,
                   "element 0: expected a value that float8_e4m3fn holds exactly, got 449 (float64)");
  ZARR_CHECK_ERROR(a.write<double>({{0}, {1}}, std::vector<double>{INFINITY}), errc::invalid_value, "float8_e4m3fn");
  // Casting (the cast_value rules): 1000 clamps to 448, infinity has no counterpart even clamped.
  const auto r = zarr::cast(data_type::float64, std::bit_cast<std::uint64_t>(1000.0), data_type::float8_e4m3fn,
                            zarr::rounding_mode::nearest_even, zarr::out_of_range_mode::clamp);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.bits == 0x7eu);
}

BOOST_AUTO_TEST_SUITE_END()
