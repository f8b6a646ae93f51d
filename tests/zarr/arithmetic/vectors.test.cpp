// The decode, round and arith tables of vectors/fp and vectors/int (tests/data) (every row,
// every column) through zarr.arithmetic's core: decode, cast from float64, arithmetic.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include "vectors.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;

using zarr::data_type;
using zarr::numeric_errc;
using namespace zarr_test;

namespace {

constexpr int max_reported = 10;

// Reports a mismatch (the first few in detail) and counts it.
struct mismatches {
  int count = 0;
  void add(const std::string& what) {
    if (++count <= max_reported) BOOST_ERROR(what);
  }
};

std::string describe(const zarr::numeric_result& r) {
  return "bits " + std::to_string(r.bits) + " error " + std::string(zarr::to_string(r.error)) +
         (r.inexact ? " inexact" : " exact");
}

// Calls f(type_tag) with the small_float alias of `t`.
template <class F>
void with_small_float(data_type t, F&& f) {
  switch (t) {
    case data_type::float4_e2m1fn: return f(zarr::float4_e2m1fn{});
    case data_type::float6_e2m3fn: return f(zarr::float6_e2m3fn{});
    case data_type::float6_e3m2fn: return f(zarr::float6_e3m2fn{});
    case data_type::float8_e3m4: return f(zarr::float8_e3m4{});
    case data_type::float8_e4m3: return f(zarr::float8_e4m3{});
    case data_type::float8_e4m3b11fnuz: return f(zarr::float8_e4m3b11fnuz{});
    case data_type::float8_e4m3fnuz: return f(zarr::float8_e4m3fnuz{});
    case data_type::float8_e5m2: return f(zarr::float8_e5m2{});
    case data_type::float8_e5m2fnuz: return f(zarr::float8_e5m2fnuz{});
    case data_type::float8_e8m0fnu: return f(zarr::float8_e8m0fnu{});
    case data_type::bfloat16: return f(zarr::bfloat16{});
    case data_type::float16: return f(zarr::float16{});
    default: BOOST_FAIL("not a small float");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vectors)

BOOST_AUTO_TEST_CASE(decodes_every_bit_pattern_of_the_small_floats_exactly) {
  for (const char* name : vector_types_fp) {
    const auto t = zarr::data_type_from_name(name);
    const auto& f = zarr::info(t).format;
    const auto table = read_vectors(std::string("fp/decode_") + name + ".csv");
    mismatches bad;
    with_small_float(t, [&](auto tag) {
      using value = decltype(tag);
      for (const auto& row : table.rows) {
        const auto bits = hex_bits(row[0]);
        const auto v = zarr::decode(t, bits);
        const double d = zarr::to_double(t, bits);
        const double typed = value::from_bits(bits).to_double();
        const std::string_view cls = row[3];
        const std::string where = std::string(name) + " " + std::string(row[0]) + ": ";
        if (double_bits(d) != double_bits(typed)) bad.add(where + "small_float and to_double differ");
        if (cls == "nan") {
          if (v.kind != zarr::value_class::nan || !std::isnan(d) || !value::from_bits(bits).is_nan())
            bad.add(where + "expected NaN");
          continue;
        }
        if (double_bits(d) != double_bits(hex_double(row[1]))) bad.add(where + "value differs from " + std::string(row[1]));
        if (d != decimal<double>(row[2])) bad.add(where + "value differs from " + std::string(row[2]));
        const bool subnormal = f.specials != zarr::float_specials::e8m0 && v.magnitude != 0 &&
                               ((bits & ~f.sign_mask()) >> f.mantissa_bits) == 0;
        const std::string_view got = v.kind == zarr::value_class::infinite ? "inf"
                                     : v.magnitude == 0                    ? "zero"
                                     : subnormal                           ? "subnormal"
                                                                           : "normal";
        if (got != cls) bad.add(where + "class " + std::string(got) + ", expected " + std::string(cls));
        if ((cls == "inf") != value::from_bits(bits).is_inf()) bad.add(where + "is_inf");
      }
    });
    BOOST_TEST(bad.count == 0, name << ": " << bad.count << " mismatches");
  }
}

BOOST_AUTO_TEST_CASE(decodes_every_bit_pattern_of_the_small_integers) {
  for (const char* name : vector_types_int) {
    const auto t = zarr::data_type_from_name(name);
    const auto table = read_vectors(std::string("int/decode_") + name + ".csv");
    for (const auto& row : table.rows) {
      const auto bits = hex_bits(row[0]);
      const auto value = decimal<int>(row[1]);
      BOOST_TEST(zarr::to_double(t, bits) == value);
      switch (t) {
        case data_type::int2: BOOST_TEST(zarr::int2::from_bits(bits).value() == value); break;
        case data_type::int4: BOOST_TEST(zarr::int4::from_bits(bits).value() == value); break;
        case data_type::uint2: BOOST_TEST(zarr::uint2::from_bits(bits).value() == value); break;
        default: BOOST_TEST(zarr::uint4::from_bits(bits).value() == value); break;
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(rounds_float64_to_the_small_floats_as_the_round_tables_say) {
  for (const char* name : vector_types_fp) {
    const auto t = zarr::data_type_from_name(name);
    const auto table = read_vectors(std::string("fp/round_") + name + ".csv");
    mismatches bad;
    with_small_float(t, [&](auto tag) {
      using value = decltype(tag);
      for (const auto& row : table.rows) {
        const double x = hex_double(row[0]);
        const auto plain = zarr::cast(data_type::float64, double_bits(x), t);
        const auto clamp = zarr::cast(data_type::float64, double_bits(x), t, zarr::rounding_mode::nearest_even,
                                      zarr::out_of_range_mode::clamp);
        const std::string where = std::string(name) + " " + std::string(row[0]) + ": ";
        if (!matches(t, plain, row[2])) bad.add(where + describe(plain) + ", expected " + std::string(row[2]));
        if (!matches(t, clamp, row[3])) bad.add(where + "clamp " + describe(clamp) + ", expected " + std::string(row[3]));
        if (value::round(x) != plain) bad.add(where + "small_float::round differs");
        const std::string_view note = row[4];
        const bool sign = std::signbit(x);
        const bool ok = (note == "exact" && plain.ok() && !plain.inexact) ||
                        ((note == "inexact" || note == "tie") && plain.ok() && plain.inexact) ||
                        (note == "overflow" &&
                         plain.error == (sign ? numeric_errc::negative_overflow : numeric_errc::positive_overflow)) ||
                        (note == "underflow" && plain.error == numeric_errc::underflow) ||
                        (note == "nonpositive" && plain.error == numeric_errc::nonpositive) ||
                        ((note == "nan" || note == "inf") && (plain.ok() || plain.error == numeric_errc::invalid));
        if (!ok) bad.add(where + "note " + std::string(note) + " but " + describe(plain));
      }
    });
    BOOST_TEST(bad.count == 0, name << ": " << bad.count << " mismatches");
  }
}

BOOST_AUTO_TEST_CASE(rounds_float64_to_the_small_integers_as_the_round_tables_say) {
  for (const char* name : vector_types_int) {
    const auto t = zarr::data_type_from_name(name);
    const auto table = read_vectors(std::string("int/round_") + name + ".csv");
    mismatches bad;
    for (const auto& row : table.rows) {
      const auto bits = double_bits(hex_double(row[0]));
      int column = 2;
      for (auto oor : {zarr::out_of_range_mode::error, zarr::out_of_range_mode::clamp, zarr::out_of_range_mode::wrap}) {
        const auto r = zarr::cast(data_type::float64, bits, t, zarr::rounding_mode::nearest_even, oor);
        if (!matches(t, r, row[column]))
          bad.add(std::string(name) + " " + std::string(row[0]) + " " + std::string(zarr::to_string(oor)) + ": " +
                  describe(r) + ", expected " + std::string(row[column]));
        ++column;
      }
    }
    BOOST_TEST(bad.count == 0, name << ": " << bad.count << " mismatches");
  }
}

namespace {
// Checks one arith table: every row, the four results and the error kind of each flag.
void check_arith_table(const std::string& file, data_type t) {
  const auto table = read_vectors(file);
  const bool integer = zarr::is_integer(t);
  mismatches bad;
  const zarr::arith_op ops[] = {zarr::arith_op::add, zarr::arith_op::subtract, zarr::arith_op::multiply,
                                zarr::arith_op::divide};
  for (const auto& row : table.rows) {
    const auto a = hex_bits(row[0]), b = hex_bits(row[1]);
    const std::string_view flags = row[6];
    for (int k = 0; k < 4; ++k) {
      const auto r = zarr::arithmetic(t, ops[k], a, b);
      const std::string_view cell = row[2 + k];
      const char flag = flags[static_cast<std::size_t>(k)];
      bool ok = false;
      switch (flag) {
        case 'e': ok = matches(t, r, cell) && !r.inexact; break;
        case 'n': ok = cell == "NaN" && matches(t, r, cell); break;
        case 'i':
          ok = integer ? r.error == numeric_errc::inexact_division && r.bits == hex_bits(cell) : matches(t, r, cell);
          break;
        case 'o': {
          const double exact = [&] {
            const double x = zarr::to_double(t, a), y = zarr::to_double(t, b);
            switch (ops[k]) {
              case zarr::arith_op::add: return x + y;
              case zarr::arith_op::subtract: return x - y;
              case zarr::arith_op::multiply: return x * y;
              default: return x / y;
            }
          }();
          ok = cell == "U" && r.error == (exact < 0 ? numeric_errc::negative_overflow : numeric_errc::positive_overflow);
          break;
        }
        case 'v': ok = cell == "U" && r.error == numeric_errc::invalid; break;
        case 'z': ok = cell == "U" && r.error == numeric_errc::division_by_zero; break;
        case 'm': ok = cell == "U" && r.error == numeric_errc::nonpositive; break;
        case 'u': ok = cell == "U" && r.error == numeric_errc::underflow; break;
        default: break;
      }
      if (!ok)
        bad.add(file + " " + std::string(row[0]) + " " + std::string(zarr::symbol(ops[k])) + " " + std::string(row[1]) +
                ": " + describe(r) + ", expected " + std::string(cell) + " flag " + flag);
    }
  }
  BOOST_TEST(bad.count == 0, file << ": " << bad.count << " mismatches");
}
}  // namespace

BOOST_AUTO_TEST_CASE(computes_every_arith_row_of_the_small_floats) {
  for (const char* name : vector_types_fp) check_arith_table(std::string("fp/arith_") + name + ".csv", zarr::data_type_from_name(name));
}

BOOST_AUTO_TEST_CASE(computes_every_arith_row_of_the_small_integers) {
  for (const char* name : vector_types_int) check_arith_table(std::string("int/arith_") + name + ".csv", zarr::data_type_from_name(name));
}

BOOST_AUTO_TEST_SUITE_END()
