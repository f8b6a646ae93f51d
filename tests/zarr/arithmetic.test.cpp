// zarr.arithmetic: mode names, the value types, compile-time checks of the core, and the
// throwing layer (one test per error kind: code and message).
#include <boost/test/unit_test.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include "arithmetic/vectors.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;

using zarr::arith_op;
using zarr::data_type;
using zarr::numeric_errc;

// ---------------------------------------------------------------- compile time
static_assert(zarr::float8_e4m3::from_bits(0x77).to_double() == 240.0);
static_assert(zarr::float8_e8m0fnu::from_bits(0x00).to_double() == 0x1p-127);
static_assert(zarr::float4_e2m1fn::from_bits(0x7).to_double() == 6.0);
static_assert(zarr::bfloat16::round(1.0).bits == 0x3f80);
static_assert(zarr::float16::round(65520.0).error == numeric_errc::positive_overflow);  // max + ½ulp
static_assert(zarr::float16::round(65519.99).bits == 0x7bff);
static_assert(zarr::cast(data_type::float64, std::bit_cast<std::uint64_t>(128.0), data_type::int8,
                         zarr::rounding_mode::nearest_even, zarr::out_of_range_mode::wrap).bits == 0x80);
static_assert(zarr::cast(data_type::int64, 32769, data_type::int16, zarr::rounding_mode::nearest_even,
                         zarr::out_of_range_mode::wrap).bits == 0x8001);
static_assert(zarr::cast(data_type::float64, std::bit_cast<std::uint64_t>(1e300), data_type::float32,
                         zarr::rounding_mode::towards_zero).error == numeric_errc::positive_overflow);
static_assert(zarr::arithmetic(data_type::int8, arith_op::add, 100, 100).error == numeric_errc::positive_overflow);
static_assert(zarr::arithmetic(data_type::uint8, arith_op::subtract, 1, 2).error == numeric_errc::negative_overflow);
static_assert(zarr::int4::from_bits(0x8).value() == -8);
static_assert(zarr::uint4::max == 15 && zarr::int2::min == -2);
static_assert(zarr::rounding_mode_from_name("towards-positive") == zarr::rounding_mode::towards_positive);
static_assert(!zarr::rounding_mode_from_name("nearest_even").has_value());
static_assert(zarr::out_of_range_mode_from_name("wrap") == zarr::out_of_range_mode::wrap);
static_assert(!zarr::out_of_range_mode_from_name("error").has_value());

BOOST_AUTO_TEST_SUITE(arithmetic)

BOOST_AUTO_TEST_CASE(parses_the_json_names_of_the_modes) {
  for (auto m : {zarr::rounding_mode::nearest_even, zarr::rounding_mode::towards_zero, zarr::rounding_mode::towards_positive,
                 zarr::rounding_mode::towards_negative, zarr::rounding_mode::nearest_away})
    BOOST_TEST((zarr::parse_rounding_mode(zarr::to_string(m)) == m));
  BOOST_TEST((zarr::parse_out_of_range_mode("clamp") == zarr::out_of_range_mode::clamp));
  ZARR_CHECK_ERROR(zarr::parse_rounding_mode("Nearest-Even", "codecs[0].configuration.rounding"),
                   zarr::errc::invalid_metadata, "codecs[0].configuration.rounding: expected one of");
  ZARR_CHECK_ERROR(zarr::parse_out_of_range_mode("saturate"), zarr::errc::invalid_metadata,
                   "out_of_range: expected \"clamp\" or \"wrap\", got \"saturate\"");
}

BOOST_AUTO_TEST_CASE(small_floats_convert_only_explicitly_and_round_once) {
  const zarr::float8_e4m3 a(247.9);
  BOOST_TEST(a.bits() == 0x77);
  BOOST_TEST(static_cast<double>(a) == 240.0);
  BOOST_TEST(zarr::float8_e4m3(247.5, zarr::rounding_mode::towards_zero).bits() == 0x77);
  ZARR_CHECK_ERROR(zarr::float8_e4m3(248.0), zarr::errc::out_of_range, "expected a value within the range of float8_e4m3");
  ZARR_CHECK_ERROR(zarr::float4_e2m1fn(std::nan("")), zarr::errc::invalid_value, "got NaN (float64)");
  BOOST_TEST(zarr::bfloat16(1.0 + 0x1p-8).bits() == 0x3f80);  // tie to even
  BOOST_TEST(zarr::bfloat16(1.0 + 0x1p-8 + 0x1p-40).bits() == 0x3f81);
  BOOST_TEST((zarr::float16::from_bits(0x8000) == zarr::float16::from_bits(0)));  // -0 == +0
  BOOST_TEST(!(zarr::float16::from_bits(0x7e00) == zarr::float16::from_bits(0x7e00)));  // NaN
  BOOST_TEST((zarr::float8_e4m3fnuz(-0.0).bits() == 0));
  ZARR_CHECK_ERROR(zarr::float8_e8m0fnu(0.0), zarr::errc::out_of_range, "float8_e8m0fnu");
}

BOOST_AUTO_TEST_CASE(small_float_operators_are_checked) {
  const zarr::float8_e4m3 a(240.0), b(16.0);
  BOOST_TEST((a - b).to_double() == 224.0);
  BOOST_TEST((b / zarr::float8_e4m3(4.0)).to_double() == 4.0);
  ZARR_CHECK_ERROR(a + b, zarr::errc::out_of_range, "float8_e4m3 240 + 16: expected a result within the range of float8_e4m3, got positive overflow");
}

BOOST_AUTO_TEST_CASE(small_integers_hold_their_ranges) {
  BOOST_TEST(zarr::int4(-8).value() == -8);
  BOOST_TEST(zarr::int4(-1).bits() == 0xf);
  BOOST_TEST(zarr::uint2(3).bits() == 3);
  ZARR_CHECK_ERROR(zarr::int2(2), zarr::errc::out_of_range, "int2: expected a value within the range of int2, got 2 (int64)");
  ZARR_CHECK_ERROR(zarr::uint4(-1), zarr::errc::out_of_range, "negative overflow");
  BOOST_TEST((zarr::int4(-8) - zarr::int4(-1)).value() == -7);
  BOOST_TEST((zarr::int4(-3) * zarr::int4(2)).value() == -6);
  ZARR_CHECK_ERROR(zarr::int4(7) + zarr::int4(1), zarr::errc::out_of_range, "int4 7 + 1");
  ZARR_CHECK_ERROR(zarr::int4(7) / zarr::int4(2), zarr::errc::invalid_value, "int4 7 / 2: expected an exact quotient, got 3 remainder 1");
}

// ---------------------------------------------------------------- one test per error kind

namespace {
std::uint64_t f64(double d) { return std::bit_cast<std::uint64_t>(d); }
}  // namespace

BOOST_AUTO_TEST_CASE(reports_positive_and_negative_overflow_apart) {
  BOOST_TEST((zarr::arithmetic(data_type::int64, arith_op::multiply, 1ull << 62, 4).error == numeric_errc::positive_overflow));
  BOOST_TEST((zarr::arithmetic(data_type::int64, arith_op::multiply, 1ull << 62, static_cast<std::uint64_t>(-4)).error ==
              numeric_errc::negative_overflow));
  BOOST_TEST((zarr::arithmetic(data_type::float64, arith_op::add, f64(-1e308), f64(-1e308)).error == numeric_errc::negative_overflow));
  BOOST_TEST((zarr::arithmetic(data_type::uint64, arith_op::add, ~0ull, 1).error == numeric_errc::positive_overflow));
  ZARR_CHECK_ERROR(zarr::checked_arithmetic(data_type::int64, arith_op::subtract, 0x8000000000000000ull, 1),
                   zarr::errc::out_of_range, "int64 -9223372036854775808 - 1: expected a result within the range of int64, got negative overflow");
  ZARR_CHECK_ERROR(zarr::checked_arithmetic(data_type::float32, arith_op::multiply, 0x7f7fffff, 0x40000000),
                   zarr::errc::out_of_range, "float32 3.4028235e+38 * 2: expected a result within the range of float32, got positive overflow");
}

BOOST_AUTO_TEST_CASE(reports_nan_from_non_nan_operands_as_invalid) {
  const auto inf = f64(INFINITY);
  BOOST_TEST((zarr::arithmetic(data_type::float64, arith_op::subtract, inf, inf).error == numeric_errc::invalid));
  BOOST_TEST((zarr::arithmetic(data_type::float64, arith_op::add, f64(NAN), f64(1.0)).ok()));  // NaN propagates
  ZARR_CHECK_ERROR(zarr::checked_arithmetic(data_type::float16, arith_op::multiply, 0x7c00, 0),
                   zarr::errc::invalid_value, "float16 Infinity * 0: expected a number, got NaN (invalid operation)");
}

BOOST_AUTO_TEST_CASE(reports_division_by_zero) {
  BOOST_TEST((zarr::arithmetic(data_type::float64, arith_op::divide, f64(0.0), f64(0.0)).error == numeric_errc::division_by_zero));
  ZARR_CHECK_ERROR(zarr::checked_arithmetic(data_type::uint16, arith_op::divide, 5, 0), zarr::errc::invalid_value,
                   "uint16 5 / 0: expected a non-zero divisor, got division by zero");
}

BOOST_AUTO_TEST_CASE(reports_inexact_integer_division_with_the_truncated_quotient) {
  const auto r = zarr::arithmetic(data_type::int32, arith_op::divide, static_cast<std::uint32_t>(-7), 2);
  BOOST_TEST((r.error == numeric_errc::inexact_division));
  BOOST_TEST(zarr::sign_extend(r.bits, 32) == -3);
  ZARR_CHECK_ERROR(zarr::checked_arithmetic(data_type::int32, arith_op::divide, static_cast<std::uint32_t>(-7), 2),
                   zarr::errc::invalid_value, "int32 -7 / 2: expected an exact quotient, got -3 remainder -1");
}

BOOST_AUTO_TEST_CASE(reports_e8m0_nonpositive_and_underflow) {
  ZARR_CHECK_ERROR(zarr::checked_arithmetic(data_type::float8_e8m0fnu, arith_op::subtract, 0x7f, 0x7f),
                   zarr::errc::out_of_range, "float8_e8m0fnu 1 - 1: expected a positive result");
  ZARR_CHECK_ERROR(zarr::checked_arithmetic(data_type::float8_e8m0fnu, arith_op::multiply, 0x00, 0x00),
                   zarr::errc::out_of_range, "expected a result of at least 2^-127");
}

BOOST_AUTO_TEST_CASE(reports_cast_errors_with_the_value_and_keeps_invalid_apart) {
  const auto r = zarr::cast(data_type::float64, f64(INFINITY), data_type::int8, zarr::rounding_mode::nearest_even,
                            zarr::out_of_range_mode::clamp);
  BOOST_TEST((r.error == numeric_errc::invalid));
  ZARR_CHECK_ERROR(zarr::checked_cast(data_type::float64, f64(300.0), data_type::uint8, zarr::rounding_mode::nearest_even,
                                      zarr::out_of_range_mode::error, "codecs[0]"),
                   zarr::errc::out_of_range, "codecs[0]: expected a value within the range of uint8, got 300 (float64)");
  ZARR_CHECK_ERROR(zarr::checked_cast(data_type::float64, f64(-INFINITY), data_type::float8_e4m3fnuz,
                                      zarr::rounding_mode::nearest_even, zarr::out_of_range_mode::clamp, "codecs[0]"),
                   zarr::errc::invalid_value, "got -Infinity (float64)");
}

BOOST_AUTO_TEST_CASE(computes_full_width_integers_and_float64_natively) {
  BOOST_TEST(zarr::arithmetic(data_type::uint64, arith_op::multiply, 1ull << 32, (1ull << 32) - 1).bits ==
             (1ull << 32) * ((1ull << 32) - 1));
  BOOST_TEST(zarr::arithmetic(data_type::int16, arith_op::divide, static_cast<std::uint16_t>(-32768), 0xffff).error ==
             numeric_errc::positive_overflow);
  BOOST_TEST(std::bit_cast<double>(zarr::arithmetic(data_type::float64, arith_op::divide, f64(1.0), f64(3.0)).bits) == 1.0 / 3.0);
  BOOST_TEST(zarr::arithmetic(data_type::float32, arith_op::add, 0x3f800000, 0x33800000).bits == 0x3f800000u);  // 1 + 2^-24: tie to even
  BOOST_TEST(zarr::arithmetic(data_type::float32, arith_op::add, 0x3f800000, 0x33800001).bits == 0x3f800001u);
}

BOOST_AUTO_TEST_SUITE_END()
