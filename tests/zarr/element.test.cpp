// zarr.element and the typed access of zarr::array: every data type written and read back
// through its own C++ type (bytes as they are), and exact conversions between types, with
// the errors naming the array, the element index and the value.
#include <boost/test/unit_test.hpp>
#include <complex>
#include <cstdint>
#include <cstring>
#include <span>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.element;
import zarr.store;
import zarr.array;
import zarr.builder;
import zarr.store.memory;

using zarr::data_type;
using zarr::errc;

namespace {

// The C++ types and data types match at compile time.
static_assert(zarr::data_type_of<bool> == data_type::bool_);
static_assert(zarr::data_type_of<std::int8_t> == data_type::int8);
static_assert(zarr::data_type_of<long long> == data_type::int64);
static_assert(zarr::data_type_of<unsigned short> == data_type::uint16);
static_assert(zarr::data_type_of<float> == data_type::float32);
static_assert(zarr::data_type_of<std::complex<double>> == data_type::complex128);
static_assert(zarr::data_type_of<zarr::float8_e4m3> == data_type::float8_e4m3);
static_assert(zarr::data_type_of<zarr::bfloat16> == data_type::bfloat16);
static_assert(zarr::data_type_of<zarr::float4_e2m1fn> == data_type::float4_e2m1fn);
static_assert(zarr::data_type_of<zarr::int4> == data_type::int4);
static_assert(zarr::data_type_of<zarr::uint2> == data_type::uint2);
static_assert(!zarr::element<char>);
static_assert(!zarr::element<long double>);
static_assert(!zarr::element<std::string>);
static_assert(zarr::has_element_layout<zarr::float8_e8m0fnu> && zarr::has_element_layout<zarr::int2> &&
              zarr::has_element_layout<zarr::float16> && zarr::has_element_layout<std::complex<float>>);

zarr::array make(std::shared_ptr<zarr::store> s, const std::string& path, data_type t, zarr::typed_value fill = 0) {
  // bytes as the in-memory layout of sub-byte types, 3-element chunks so writes cross chunks
  if (t == data_type::float8_e8m0fnu && fill.value().raw() == 0) fill = 1;
  return zarr::array_builder({8}, t).chunk_shape({3}).fill_value(fill).create(std::move(s), path);
}

// The bytes of a buffer, as numbers (Boost.Test prints them).
std::vector<int> bytes_of(std::span<const std::byte> b) {
  std::vector<int> out;
  for (auto x : b) out.push_back(std::to_integer<int>(x));
  return out;
}
template <class T>
std::vector<int> bytes_of(const std::vector<T>& v) {
  return bytes_of(std::as_bytes(std::span(v)));
}

// Eight values of T: from `values` (converted exactly), the same list for every type.
template <class T>
std::vector<T> sample() {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    return {T{1, -2}, T{0.5, 0}, T{-0.25, 8}, T{0, 0}, T{3, 3}, T{-1, 1}, T{2, 0.125}, T{7, -7}};
  } else if constexpr (std::is_floating_point_v<T>) {
    return {1.5, -2, 0.25, 0, 6, -0.5, 3, 1};
  } else if constexpr (std::is_integral_v<T>) {
    return {1, 2, 3, 0, 1, 0, 3, 2};
  } else if constexpr (requires { T::format; }) {
    if constexpr (T::type == data_type::float8_e8m0fnu) return {T(1), T(2), T(0.25), T(1), T(8), T(0.5), T(4), T(1)};
    else return {T(1.5), T(-2), T(0.5), T(0), T(6), T(-0.5), T(3), T(1)};
  } else {
    return {T(1), T(0), T(1), T(0), T(1), T(0), T(1), T(1)};
  }
}

template <class T>
void check_own_type_round_trip() {
  constexpr auto t = zarr::data_type_of<T>;
  BOOST_TEST_CONTEXT(zarr::name(t)) {
    auto store = std::make_shared<zarr::memory_store>();
    zarr::array a = make(store, "a", t);
    const auto in = sample<T>();
    a.write<T>({{0}, {8}}, in);
    const zarr::array back = zarr::array::open(store, "a");
    const auto out = back.read<T>({{0}, {8}});
    BOOST_TEST(bytes_of(out) == bytes_of(in), boost::test_tools::per_element());
    // the typed buffer is the raw byte API's buffer
    std::vector<std::byte> raw(8 * static_cast<std::size_t>(zarr::info(t).size));
    back.read({{0}, {8}}, raw);
    BOOST_TEST(bytes_of(raw) == bytes_of(in), boost::test_tools::per_element());
    // a part that crosses chunks
    const auto part = back.read<T>({{2}, {5}});
    BOOST_TEST(bytes_of(part) == bytes_of(std::vector<T>(in.begin() + 2, in.begin() + 5)), boost::test_tools::per_element());
  }
}

template <class... T>
void check_all() {
  (check_own_type_round_trip<T>(), ...);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(element)

BOOST_AUTO_TEST_CASE(round_trips_every_data_type_through_its_own_cpp_type) {
  check_all<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t,
            std::uint64_t, float, double, std::complex<float>, std::complex<double>, zarr::int2, zarr::int4, zarr::uint2,
            zarr::uint4, zarr::float4_e2m1fn, zarr::float6_e2m3fn, zarr::float6_e3m2fn, zarr::float8_e3m4,
            zarr::float8_e4m3, zarr::float8_e4m3b11fnuz, zarr::float8_e4m3fnuz, zarr::float8_e5m2, zarr::float8_e5m2fnuz,
            zarr::float8_e8m0fnu, zarr::bfloat16, zarr::float16>();
}

BOOST_AUTO_TEST_CASE(round_trips_bool_arrays_as_bool) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = make(store, "b", data_type::bool_);
  const bool in[] = {true, false, true, true, false};
  a.write<bool>({{1}, {6}}, in);
  BOOST_TEST(a.read<bool>({{0}, {8}}) == (std::vector<bool>{false, true, false, true, true, false, false, false}),
             boost::test_tools::per_element());
  std::vector<std::byte> raw(5);
  a.read({{1}, {6}}, raw);
  BOOST_TEST(bytes_of(raw) == (std::vector<int>{1, 0, 1, 1, 0}), boost::test_tools::per_element());
  // numbers 0 and 1 read as bool and back
  auto u8 = make(store, "u8", data_type::uint8);
  u8.write<bool>({{0}, {2}}, std::span(in).first(2));
  BOOST_TEST(u8.read<bool>({{0}, {3}}) == (std::vector<bool>{true, false, false}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reads_small_floats_as_double_exactly) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = make(store, "f8", data_type::float8_e4m3);
  const std::vector<zarr::float8_e4m3> in{zarr::float8_e4m3(240), zarr::float8_e4m3(-0.001953125), zarr::float8_e4m3(0.5),
                                          zarr::float8_e4m3(-3.75), zarr::float8_e4m3(17.0)};
  a.write<zarr::float8_e4m3>({{0}, {5}}, in);
  const auto d = a.read<double>({{0}, {5}});
  BOOST_TEST(d == (std::vector<double>{240, -0.001953125, 0.5, -3.75, 16}), boost::test_tools::per_element());
  const auto f = a.read<float>({{0}, {5}});
  BOOST_TEST(f == (std::vector<float>{240, -0.001953125f, 0.5f, -3.75f, 16}), boost::test_tools::per_element());
  // and into a wider small float, through bfloat16
  const auto b = a.read<zarr::bfloat16>({{0}, {3}});
  BOOST_TEST(b.at(1).to_double() == -0.001953125);
  // the fill value where nothing was written
  BOOST_TEST(a.read<double>({{5}, {8}}) == (std::vector<double>{0, 0, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(writes_other_types_when_every_value_is_exact) {
  auto store = std::make_shared<zarr::memory_store>();
  auto i8 = make(store, "i8", data_type::int8);
  i8.write<double>({{0}, {4}}, std::vector<double>{-128, 127, -0.0, 5});
  BOOST_TEST(i8.read<std::int8_t>({{0}, {4}}) == (std::vector<std::int8_t>{-128, 127, 0, 5}), boost::test_tools::per_element());
  i8.write<zarr::int4>({{4}, {6}}, std::vector<zarr::int4>{zarr::int4(-8), zarr::int4(7)});
  BOOST_TEST(i8.read<std::int64_t>({{4}, {6}}) == (std::vector<std::int64_t>{-8, 7}), boost::test_tools::per_element());

  auto bf = make(store, "bf", data_type::bfloat16);
  bf.write<float>({{0}, {3}}, std::vector<float>{1.0f / 128, -65536.0f, std::numeric_limits<float>::infinity()});
  const auto back = bf.read<float>({{0}, {3}});
  BOOST_TEST(back.at(0) == 1.0f / 128);
  BOOST_TEST(back.at(1) == -65536.0f);
  BOOST_TEST(back.at(2) == std::numeric_limits<float>::infinity());

  auto i4 = make(store, "i4", data_type::int4);
  i4.write<int>({{0}, {3}}, std::vector<int>{-8, 7, -1});
  const auto nibbles = i4.read<zarr::int4>({{0}, {3}});
  BOOST_TEST(nibbles.at(0).value() == -8);
  BOOST_TEST(nibbles.at(2).value() == -1);
  std::vector<std::byte> raw(3);
  i4.read({{0}, {3}}, raw);  // sign-extended in memory
  BOOST_TEST(std::to_integer<int>(raw.at(2)) == 0xff);

  auto flags = make(store, "b", data_type::bool_);
  flags.write<std::uint8_t>({{0}, {3}}, std::vector<std::uint8_t>{1, 0, 1});
  BOOST_TEST(flags.read<int>({{0}, {3}}) == (std::vector<int>{1, 0, 1}), boost::test_tools::per_element());

  auto c128 = make(store, "c", data_type::complex128);
  c128.write<std::complex<float>>({{0}, {1}}, std::vector<std::complex<float>>{{0.1f, -2.0f}});
  BOOST_TEST(c128.read<std::complex<double>>({{0}, {1}}).at(0) == (std::complex<double>{0.1f, -2.0}));

  auto nan = make(store, "nan", data_type::float16);
  nan.write<double>({{0}, {1}}, std::vector<double>{std::numeric_limits<double>::quiet_NaN()});
  BOOST_TEST(nan.read<zarr::float16>({{0}, {1}}).at(0).is_nan());
}

BOOST_AUTO_TEST_CASE(rejects_a_value_without_an_exact_counterpart_and_names_it) {
  auto store = std::make_shared<zarr::memory_store>();
  auto i8 = make(store, "i8", data_type::int8, 7);
  ZARR_CHECK_ERROR(i8.write<double>({{0}, {4}}, std::vector<double>{1, 2, 3.5, 4.5}), errc::invalid_value,
                   "array \"/i8\", element 2: expected a value that int8 holds exactly, got 3.5 (float64)");
  ZARR_CHECK_ERROR(i8.write<int>({{0}, {2}}, std::vector<int>{1, 300}), errc::out_of_range,
                   "array \"/i8\", element 1: expected a value that int8 holds exactly, got 300 (int32)");
  ZARR_CHECK_ERROR(i8.write<double>({{0}, {1}}, std::vector<double>{std::numeric_limits<double>::quiet_NaN()}),
                   errc::invalid_value, "element 0: expected a value that int8 holds exactly, got NaN (float64)");
  ZARR_CHECK_ERROR(i8.write<double>({{0}, {2}}, std::vector<double>{1}), errc::invalid_argument, "region");
  // nothing was written: a failed conversion comes before any store
  BOOST_TEST(i8.read<int>({{0}, {4}}) == (std::vector<int>{7, 7, 7, 7}), boost::test_tools::per_element());
  BOOST_TEST(store->list("i8/c").empty());

  auto f32 = make(store, "f32", data_type::float32);
  f32.write<float>({{0}, {3}}, std::vector<float>{1, 1.0f / 3, 0.25});
  ZARR_CHECK_ERROR(f32.read<zarr::bfloat16>({{0}, {3}}), errc::invalid_value,
                   "array \"/f32\", element 1: expected a value that bfloat16 holds exactly, got 0.33333334 (float32)");
  ZARR_CHECK_ERROR(f32.read<std::int32_t>({{1}, {3}}), errc::invalid_value, "element 0: expected a value that int32");
  ZARR_CHECK_ERROR(f32.write<double>({{0}, {1}}, std::vector<double>{1e300}), errc::out_of_range,
                   "element 0: expected a value that float32 holds exactly, got 1e+300 (float64)");
  // real and complex: imaginary part zero
  BOOST_TEST(f32.read<std::complex<double>>({{2}, {3}}).at(0) == (std::complex<double>{0.25, 0}));
  auto c = make(store, "cx", data_type::complex64);
  c.write<std::complex<float>>({{0}, {2}}, std::vector<std::complex<float>>{{2, 0}, {0.5f, 0.125f}});
  BOOST_TEST(c.read<std::int64_t>({{0}, {1}}).at(0) == 2);
  ZARR_CHECK_ERROR(c.read<double>({{0}, {2}}), errc::invalid_value,
                   "array \"/cx\", element 1: expected a value that float64 holds exactly, got [0.5,0.125] (complex64)");

  auto b = make(store, "b", data_type::bool_);
  ZARR_CHECK_ERROR(b.write<std::uint8_t>({{0}, {2}}, std::vector<std::uint8_t>{1, 2}), errc::out_of_range,
                   "element 1: expected a value that bool holds exactly, got 2 (uint8)");
  auto u4 = make(store, "u4", data_type::uint4);
  ZARR_CHECK_ERROR(u4.write<std::int8_t>({{0}, {3}}, std::vector<std::int8_t>{15, 0, -1}), errc::out_of_range,
                   "array \"/u4\", element 2: expected a value that uint4 holds exactly, got -1 (int8)");
  auto e8m0 = make(store, "e", data_type::float8_e8m0fnu, 1);
  ZARR_CHECK_ERROR(e8m0.write<double>({{0}, {2}}, std::vector<double>{4, 0}), errc::out_of_range,
                   "element 1: expected a value that float8_e8m0fnu holds exactly, got 0 (float64)");
  auto c64 = make(store, "c", data_type::complex64);
  ZARR_CHECK_ERROR(c64.write<std::complex<double>>({{0}, {1}}, std::vector<std::complex<double>>{{0.5, 0.1}}),
                   errc::invalid_value, "element 0: expected a value that complex64 holds exactly, got [0.5,0.1] (complex128)");
}

BOOST_AUTO_TEST_CASE(converts_one_scalar_and_buffers_without_throwing_in_the_core) {
  const auto s = zarr::convert_value(zarr::to_scalar(2.5), data_type::float8_e5m2, "x");
  BOOST_TEST(s.type == data_type::float8_e5m2);
  BOOST_TEST(zarr::to_double(data_type::float8_e5m2, s.raw()) == 2.5);
  const std::vector<double> in{1, 2, 2.25, 3};
  std::vector<std::byte> out(4);
  const auto failure = zarr::convert_elements(data_type::float64, std::as_bytes(std::span(in)), data_type::uint8, out);
  BOOST_TEST_REQUIRE(failure.has_value());
  BOOST_TEST(failure->index == 2u);
  ZARR_CHECK_ERROR(zarr::convert_elements(data_type::float64, std::as_bytes(std::span(in)), data_type::uint8,
                                          std::span(out).first(3), "x"),
                   errc::invalid_argument, "x: expected buffers of the same number of elements");
}

BOOST_AUTO_TEST_SUITE_END()
