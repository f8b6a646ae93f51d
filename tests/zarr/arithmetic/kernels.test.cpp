// zarr.arithmetic.kernels: the bulk loops give bit-identical results to the scalar core on the
// cast vectors (every source group, mode and out_of_range option), on float32 inputs (fast
// paths) and on scale_offset inputs of every type, and report the first failing element;
// run_steps (fused and staged) gives what the steps give one by one, failures included.
#include <boost/test/unit_test.hpp>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>
#include "vectors.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.arithmetic.kernels;

using zarr::data_type;
using namespace zarr_test;

namespace {

using raw_list = std::vector<std::uint64_t>;
using scalar_fn = std::function<zarr::numeric_result(std::uint64_t)>;
using kernel_fn = std::function<zarr::kernel_result(std::span<const std::byte>, std::span<std::byte>)>;

std::uint64_t mask_of(data_type t) {
  const int b = zarr::info(t).bits;
  return b >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1;
}

// Repeats `raws` until there are at least `n` (so that tables and several blocks are used).
raw_list tiled(const raw_list& raws, std::size_t n) {
  raw_list out;
  while (!raws.empty() && out.size() < n) out.insert(out.end(), raws.begin(), raws.end());
  return out;
}

std::vector<std::byte> to_memory(data_type t, const raw_list& raws) {
  const auto size = static_cast<std::size_t>(zarr::info(t).size);
  std::vector<std::byte> bytes(raws.size() * size);
  for (std::size_t i = 0; i < raws.size(); ++i) zarr::store_raw(t, bytes.data() + i * size, raws[i]);
  return bytes;
}

// Runs `kernel` over `raws` (type `from`, results of type `to`) and compares with `scalar`
// element by element: the same bytes, or the same first failure; then again over only the
// elements the scalar core accepts. Returns the number of mismatches (reported).
int compare(data_type from, data_type to, const raw_list& raws, const scalar_fn& scalar, const kernel_fn& kernel,
            const std::string& label) {
  int bad = 0;
  auto report = [&](const std::string& what) {
    if (++bad <= 5) BOOST_ERROR(label << ": " << what);
  };
  const auto out_size = static_cast<std::size_t>(zarr::info(to).size);
  for (int pass = 0; pass < 2; ++pass) {
    raw_list inputs;
    std::vector<zarr::numeric_result> expected;
    for (auto raw : raws) {
      const auto r = scalar(raw);
      if (pass == 1 && !r.ok()) continue;
      inputs.push_back(raw);
      expected.push_back(r);
    }
    std::size_t first_failure = inputs.size();
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (!expected[i].ok()) {
        first_failure = i;
        break;
      }
    const auto in = to_memory(from, inputs);
    std::vector<std::byte> out(inputs.size() * out_size, std::byte{0xa5});
    const auto r = kernel(in, out);
    if (first_failure == inputs.size()) {
      if (!r.ok) report("kernel failed at " + std::to_string(r.index) + " where the scalar core did not");
    } else {
      if (r.ok) report("kernel succeeded where the scalar core fails at " + std::to_string(first_failure));
      else if (r.index != first_failure || r.error != expected[first_failure].error ||
               r.value != (inputs[first_failure] & mask_of(from)))
        report("kernel reported index " + std::to_string(r.index) + " (" + std::string(zarr::to_string(r.error)) +
               "), the scalar core " + std::to_string(first_failure) + " (" +
               std::string(zarr::to_string(expected[first_failure].error)) + ")");
    }
    std::byte want[8];
    for (std::size_t i = 0; i < first_failure; ++i) {
      zarr::store_raw(to, want, expected[i].bits);
      if (std::memcmp(want, out.data() + i * out_size, out_size) != 0)
        report("element " + std::to_string(i) + " input " + std::to_string(inputs[i]) + ": kernel " +
               std::to_string(zarr::load_raw(to, out.data() + i * out_size)) + ", scalar " + std::to_string(expected[i].bits));
    }
  }
  return bad;
}

int compare_cast(data_type from, data_type to, const raw_list& raws, zarr::rounding_mode mode, zarr::out_of_range_mode oor) {
  const std::string label = std::string(zarr::name(from)) + " -> " + std::string(zarr::name(to)) + " " +
                            std::string(zarr::to_string(mode)) + " " + std::string(zarr::to_string(oor));
  return compare(
      from, to, raws, [&](std::uint64_t raw) { return zarr::cast(from, raw, to, mode, oor); },
      [&](std::span<const std::byte> in, std::span<std::byte> out) { return zarr::cast_elements(from, in, to, out, mode, oor); },
      label);
}

constexpr zarr::rounding_mode all_modes[] = {zarr::rounding_mode::nearest_even, zarr::rounding_mode::towards_zero,
                                             zarr::rounding_mode::towards_positive, zarr::rounding_mode::towards_negative,
                                             zarr::rounding_mode::nearest_away};

const char* targets[] = {"float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
                         "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
                         "bfloat16", "float16", "int2", "int4", "uint2", "uint4", "int8", "int16", "int32", "int64",
                         "uint8", "uint16", "uint32", "uint64", "float32", "float64"};

// A fixed pseudo-random sequence (splitmix64).
struct random_bits {
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels)

BOOST_AUTO_TEST_CASE(cast_kernels_match_the_scalar_core_on_every_cast_vector) {
  int bad = 0, groups = 0;
  for (const char* name : targets) {
    const auto to = zarr::data_type_from_name(name);
    const auto table = read_vectors(std::string("cast/") + name + ".csv");
    // The rows grouped by source type; integer rows go to every type that holds them, and
    // float64 rows that float32 holds exactly also make float32 sources (its fast paths).
    std::map<data_type, raw_list> sources;
    for (const auto& row : table.rows) {
      if (row[0] == "float64") {
        const double d = hex_double(row[1]);
        sources[data_type::float64].push_back(double_bits(d));
        const float f = static_cast<float>(d);
        if (f == d || d != d) sources[data_type::float32].push_back(std::bit_cast<std::uint32_t>(f));
      } else if (row[0] == "int64" || row[0] == "uint64") {
        const bool negative = row[1].starts_with('-');
        const auto magnitude = decimal<std::uint64_t>(negative ? row[1].substr(1) : row[1]);
        for (auto t : {data_type::int2, data_type::int4, data_type::int8, data_type::int16, data_type::int32, data_type::int64,
                       data_type::uint2, data_type::uint4, data_type::uint8, data_type::uint16, data_type::uint32,
                       data_type::uint64}) {
          const auto& i = zarr::info(t);
          const bool fits = negative ? i.kind == zarr::dtype_kind::signed_integer &&
                                           magnitude <= static_cast<std::uint64_t>(-(i.min + 1)) + 1
                                     : magnitude <= i.max;
          if (fits) sources[t].push_back((negative ? 0 - magnitude : magnitude) & mask_of(t));
        }
      } else {
        sources[zarr::data_type_from_name(row[0])].push_back(hex_bits(row[1]));
      }
    }
    for (const auto& [from, raws] : sources) {
      const auto long_inputs = tiled(raws, 1100), short_inputs = tiled(raws, 300);
      for (auto mode : all_modes) {
        const auto& inputs = mode == zarr::rounding_mode::nearest_even ? long_inputs : short_inputs;
        for (auto oor : {zarr::out_of_range_mode::error, zarr::out_of_range_mode::clamp, zarr::out_of_range_mode::wrap}) {
          if (oor == zarr::out_of_range_mode::wrap && !zarr::is_integer(to)) continue;
          bad += compare_cast(from, to, inputs, mode, oor);
          ++groups;
        }
      }
    }
  }
  BOOST_TEST(bad == 0);
  BOOST_TEST(groups > 3000);
}

BOOST_AUTO_TEST_CASE(float_fast_paths_match_the_scalar_core_on_a_sweep_of_bit_patterns) {
  // Every 4099·64th float32 pattern plus its neighbours, and random float64 patterns near the
  // targets' ranges: through every fast-path target, nearest-even, error and clamp.
  raw_list f32, f64;
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 4099 * 64)
    for (std::uint64_t d = 0; d < 3; ++d) f32.push_back((u + d) & 0xffffffffu);
  random_bits rng;
  for (int i = 0; i < 4000; ++i) {
    const auto r = rng();
    const std::uint64_t exponent = 1023 - 160 + (r % 330);  // 2^-160 .. 2^170
    f64.push_back((r & 0x800fffffffffffffu) | (exponent << 52));
  }
  for (auto x : {0.0, -0.0, 1e300, -1e300, 5e-324}) f64.push_back(double_bits(x));
  f64.push_back(0x7ff0000000000000u);
  f64.push_back(0xfff8000000000001u);
  int bad = 0;
  for (const char* name : targets) {
    const auto to = zarr::data_type_from_name(name);
    for (auto oor : {zarr::out_of_range_mode::error, zarr::out_of_range_mode::clamp}) {
      bad += compare_cast(data_type::float32, to, f32, zarr::rounding_mode::nearest_even, oor);
      bad += compare_cast(data_type::float64, to, f64, zarr::rounding_mode::nearest_even, oor);
    }
  }
  BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(reports_the_first_failing_element_of_a_cast) {
  std::vector<float> values(5000, 1.5f);
  values[3001] = 300.0f;
  values[4000] = -1.0f;
  std::vector<std::uint8_t> out(values.size());
  const auto r = zarr::cast_elements(data_type::float32, std::as_bytes(std::span(values)), data_type::uint8,
                                     std::as_writable_bytes(std::span(out)));
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.index == 3001u);
  BOOST_TEST(r.value == std::bit_cast<std::uint32_t>(300.0f));
  BOOST_TEST((r.error == zarr::numeric_errc::positive_overflow));
  BOOST_TEST(out[3000] == 2);  // the elements before it are written
  const auto clamped = zarr::cast_elements(data_type::float32, std::as_bytes(std::span(values)), data_type::uint8,
                                           std::as_writable_bytes(std::span(out)), zarr::rounding_mode::nearest_even,
                                           zarr::out_of_range_mode::clamp);
  BOOST_TEST(clamped.ok);
  BOOST_TEST(out[3001] == 255);
  BOOST_TEST(out[4000] == 0);
}

BOOST_AUTO_TEST_CASE(ignores_the_upper_bits_of_sub_byte_elements) {
  std::vector<std::uint8_t> in(300);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 7);
  std::vector<std::uint8_t> out(in.size());
  const auto r = zarr::cast_elements(data_type::int4, std::as_bytes(std::span(in)), data_type::int8,
                                     std::as_writable_bytes(std::span(out)));
  BOOST_TEST(r.ok);
  for (std::size_t i = 0; i < in.size(); ++i) BOOST_TEST(static_cast<int>(static_cast<std::int8_t>(out[i])) == zarr::int4::from_bits(in[i]).value());
}

BOOST_AUTO_TEST_CASE(rejects_buffers_of_the_wrong_size) {
  std::vector<std::byte> in(12), out(5);
  ZARR_CHECK_ERROR(zarr::cast_elements(data_type::float32, in, data_type::uint8, out), zarr::errc::invalid_argument,
                   "cast_value: expected an output of 3 bytes for 12 input bytes, got 5");
  ZARR_CHECK_ERROR(zarr::cast_elements(data_type::float32, in, data_type::complex64, out), zarr::errc::invalid_argument,
                   "expected numeric data types");
}

BOOST_AUTO_TEST_CASE(scale_offset_kernels_match_the_scalar_core_in_every_type) {
  random_bits rng;
  int bad = 0, runs = 0;
  for (const auto& row : zarr::data_types) {
    const auto t = row.type;
    if (!zarr::is_numeric(t)) continue;
    raw_list inputs;
    if (row.bits <= 8) {
      for (std::uint64_t b = 0; b < (std::uint64_t{1} << row.bits); ++b) inputs.push_back(b);
    } else if (row.bits == 16) {
      for (std::uint64_t b = 0; b < 65536; b += 13) inputs.push_back(b);  // 5042 patterns, all exponents
    } else {
      for (int i = 0; i < 1500; ++i) {
        const auto r = rng();
        inputs.push_back(r & mask_of(t));
        inputs.push_back(zarr::is_float(t) ? zarr::cast(data_type::int64, (r % 2001) - 1000, t).bits
                                           : ((r % 2001) - 1000) & mask_of(t));
      }
    }
    const double offsets[] = {0.0, -2.0, 1.5};
    const double scales[] = {2.0, 3.0, -1.0, 0.5, 0.001};
    for (double o : offsets) {
      for (double s : scales) {
        const auto off = zarr::cast(data_type::float64, double_bits(o), t, zarr::rounding_mode::nearest_even,
                                    zarr::out_of_range_mode::clamp);
        const auto sc = zarr::cast(data_type::float64, double_bits(s), t, zarr::rounding_mode::nearest_even,
                                   zarr::out_of_range_mode::clamp);
        if (!off.ok() || !sc.ok() || zarr::to_double(t, sc.bits) == 0) continue;
        const std::string label = std::string(row.name) + " offset " + std::to_string(o) + " scale " + std::to_string(s);
        auto encode = [&](std::uint64_t x) {
          const auto a = zarr::arithmetic(t, zarr::arith_op::subtract, x, off.bits);
          return a.ok() ? zarr::arithmetic(t, zarr::arith_op::multiply, a.bits, sc.bits) : a;
        };
        auto decode = [&](std::uint64_t x) {
          const auto a = zarr::arithmetic(t, zarr::arith_op::divide, x, sc.bits);
          return a.ok() ? zarr::arithmetic(t, zarr::arith_op::add, a.bits, off.bits) : a;
        };
        bad += compare(t, t, inputs, encode,
                       [&](std::span<const std::byte> in, std::span<std::byte> out) {
                         return zarr::scale_offset_encode(t, in, out, off.bits, sc.bits);
                       },
                       label + " encode");
        bad += compare(t, t, inputs, decode,
                       [&](std::span<const std::byte> in, std::span<std::byte> out) {
                         return zarr::scale_offset_decode(t, in, out, off.bits, sc.bits);
                       },
                       label + " decode");
        runs += 2;
      }
    }
  }
  BOOST_TEST(bad == 0);
  BOOST_TEST(runs > 250);
}

BOOST_AUTO_TEST_CASE(scale_offset_works_in_place_and_reports_inexact_division) {
  std::vector<std::int64_t> v{10, 20, 30, 41, 50};
  const auto bytes = std::as_writable_bytes(std::span(v));
  BOOST_TEST(zarr::scale_offset_encode(data_type::int64, bytes, bytes, 10, 3).ok);
  BOOST_TEST(v[1] == 30);
  BOOST_TEST(v[3] == 93);
  const auto r = zarr::scale_offset_decode(data_type::int64, bytes, bytes, 10, 2);
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.index == 3u);
  BOOST_TEST((r.error == zarr::numeric_errc::inexact_division));
  BOOST_TEST(v[2] == 40);  // (60 / 2) + 10, written before the failure
  std::vector<std::int64_t> big{std::int64_t{1} << 62};
  const auto o = zarr::scale_offset_encode(data_type::int64, std::as_bytes(std::span(big)),
                                           std::as_writable_bytes(std::span(big)), static_cast<std::uint64_t>(-1), 2);
  BOOST_TEST((o.error == zarr::numeric_errc::positive_overflow));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// The reference for run_steps: each element through every step with the scalar core.
struct step_outcome {
  bool ok = true;
  std::uint64_t bits = 0;   // the last step's result
  std::size_t step = 0;     // else: the failing step,
  std::uint64_t value = 0;  // its input
  zarr::numeric_errc error = zarr::numeric_errc::none;
};

step_outcome through_steps(std::span<const zarr::element_step> steps, std::uint64_t raw) {
  using kind = zarr::element_step::kind;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const auto& st = steps[s];
    zarr::numeric_result r;
    if (st.op == kind::cast) {
      r = zarr::cast(st.from, raw, st.to, st.rounding, st.out_of_range);
    } else if (st.op == kind::subtract_multiply) {
      r = zarr::arithmetic(st.from, zarr::arith_op::subtract, raw, st.offset);
      if (r.ok()) r = zarr::arithmetic(st.from, zarr::arith_op::multiply, r.bits, st.scale);
    } else {
      r = zarr::arithmetic(st.from, zarr::arith_op::divide, raw, st.scale);
      if (r.ok()) r = zarr::arithmetic(st.from, zarr::arith_op::add, r.bits, st.offset);
    }
    if (!r.ok()) return {false, 0, s, raw, r.error};
    raw = r.bits;
  }
  return {true, raw};
}

// run_steps over `raws`: the first failure as the reference finds it, then (without the
// failing elements) every result bit for bit. Returns the number of mismatches (reported).
int compare_steps(const std::vector<zarr::element_step>& steps, const raw_list& raws, const std::string& label) {
  int bad = 0;
  auto report = [&](const std::string& what) {
    if (++bad <= 5) BOOST_ERROR(label << ": " << what);
  };
  const auto from = steps.front().from, to = steps.back().to;
  const auto out_size = static_cast<std::size_t>(zarr::info(to).size);
  for (int pass = 0; pass < 2; ++pass) {
    raw_list inputs;
    std::vector<step_outcome> expected;
    for (auto raw : raws) {
      const auto e = through_steps(steps, raw & mask_of(from));
      if (pass == 1 && !e.ok) continue;
      inputs.push_back(raw & mask_of(from));
      expected.push_back(e);
    }
    std::size_t first = inputs.size();
    for (std::size_t i = 0; i < inputs.size() && first == inputs.size(); ++i)
      if (!expected[i].ok) first = i;
    const auto in = to_memory(from, inputs);
    std::vector<std::byte> out(inputs.size() * out_size, std::byte{0xa5});
    const auto r = zarr::run_steps(steps, in, out);
    if (first == inputs.size()) {
      if (!r.ok) report("failed at element " + std::to_string(r.index) + " where the core did not");
    } else if (r.ok) {
      report("succeeded where the core fails at " + std::to_string(first));
    } else if (r.index != first || r.step != expected[first].step || r.value != expected[first].value ||
               r.error != expected[first].error) {
      report("failure at element " + std::to_string(r.index) + " step " + std::to_string(r.step) + " (" +
             std::string(zarr::to_string(r.error)) + "), the core: element " + std::to_string(first) + " step " +
             std::to_string(expected[first].step) + " (" + std::string(zarr::to_string(expected[first].error)) + ")");
    }
    std::byte want[8];
    for (std::size_t i = 0; i < first; ++i) {
      zarr::store_raw(to, want, expected[i].bits);
      if (std::memcmp(want, out.data() + i * out_size, out_size) != 0)
        report("element " + std::to_string(i) + " input " + std::to_string(inputs[i]) + ": got " +
               std::to_string(zarr::load_raw(to, out.data() + i * out_size)) + ", the core " + std::to_string(expected[i].bits));
    }
  }
  return bad;
}

zarr::element_step scale_offset_step(data_type t, bool encoding, double offset, double scale) {
  zarr::element_step s;
  s.op = encoding ? zarr::element_step::kind::subtract_multiply : zarr::element_step::kind::divide_add;
  s.from = s.to = t;
  s.offset = zarr::cast(data_type::float64, double_bits(offset), t).bits;
  s.scale = zarr::cast(data_type::float64, double_bits(scale), t).bits;
  return s;
}

zarr::element_step cast_step(data_type from, data_type to, zarr::rounding_mode mode, zarr::out_of_range_mode oor) {
  zarr::element_step s;
  s.from = from;
  s.to = to;
  s.rounding = mode;
  s.out_of_range = oor;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(run_steps)

BOOST_AUTO_TEST_CASE(matches_the_scalar_core_fused_and_staged) {
  using zarr::out_of_range_mode;
  using zarr::rounding_mode;
  random_bits rng;
  // Values around the integer ranges (both signs, halves for the ties), and the specials.
  raw_list f32, f64;
  for (int i = 0; i < 6000; ++i) {
    const double v = (static_cast<double>(rng() % 2000001) - 1000000.0) / 64.0;
    f32.push_back(zarr::cast(data_type::float64, double_bits(v), data_type::float32).bits);
    f64.push_back(double_bits(v));
  }
  for (double v : {0.0, -0.0, 1e300, -1e300, 3e38}) {
    f64.push_back(double_bits(v));
    f32.push_back(zarr::cast(data_type::float64, double_bits(v), data_type::float32, rounding_mode::nearest_even,
                             out_of_range_mode::clamp).bits);
  }
  for (std::uint64_t special : {0x7fc00000u, 0xff800000u, 0x7f800000u}) f32.push_back(special);
  for (std::uint64_t special : {0x7ff8000000000000u, 0xfff0000000000000u}) f64.push_back(special);
  int bad = 0;
  const char* ints[] = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint4"};
  for (auto t : {data_type::float32, data_type::float64}) {
    const auto& values = t == data_type::float32 ? f32 : f64;
    for (const char* name : ints) {
      const auto to = zarr::data_type_from_name(name);
      for (auto oor : {out_of_range_mode::error, out_of_range_mode::clamp, out_of_range_mode::wrap})
        for (auto mode : {rounding_mode::nearest_even, rounding_mode::towards_zero})
          for (auto [o, s] : {std::pair{0.0, 1.0}, {-20.0, 4.0}, {100.0, 0.01}, {0.0, 1e37}}) {
            const std::vector steps{scale_offset_step(t, true, o, s), cast_step(t, to, mode, oor)};
            const auto label = std::string(zarr::name(t)) + " -> " + name + " " + std::string(zarr::to_string(mode)) + " " +
                               std::string(zarr::to_string(oor)) + " offset " + std::to_string(o) + " scale " + std::to_string(s);
            bad += compare_steps(steps, values, label + " encode");
          }
      // Decoding: every integer's pattern (random for the wide ones) to the float and back.
      raw_list patterns;
      for (int i = 0; i < 5000; ++i) patterns.push_back(rng());
      for (auto [o, s] : {std::pair{-20.0, 4.0}, {0.5, 3.0}, {1e30, 1e-30}}) {
        const std::vector steps{cast_step(to, t, rounding_mode::nearest_even, out_of_range_mode::error),
                                scale_offset_step(t, false, o, s)};
        bad += compare_steps(steps, patterns, std::string(name) + " -> " + std::string(zarr::name(t)) + " decode offset " +
                                                  std::to_string(o));
      }
    }
  }
  // Three steps, only staged: float64 -> scaled -> float16 -> uint8.
  const std::vector three{scale_offset_step(data_type::float64, true, -20.0, 4.0),
                          cast_step(data_type::float64, data_type::float16, rounding_mode::nearest_even, out_of_range_mode::error),
                          cast_step(data_type::float16, data_type::uint8, rounding_mode::nearest_even, out_of_range_mode::error)};
  bad += compare_steps(three, f64, "float64 -> float16 -> uint8");
  BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(rejects_steps_that_do_not_chain_and_overlapping_buffers) {
  using zarr::out_of_range_mode;
  using zarr::rounding_mode;
  const std::vector broken{scale_offset_step(data_type::float32, true, 0, 1),
                           cast_step(data_type::float64, data_type::uint8, rounding_mode::nearest_even, out_of_range_mode::error)};
  std::vector<std::byte> in(8), out(2);
  ZARR_CHECK_ERROR(zarr::run_steps(broken, in, out), zarr::errc::invalid_argument, "each taking the type the previous one gives");
  const std::vector fine{scale_offset_step(data_type::float32, true, 0, 1),
                         cast_step(data_type::float32, data_type::uint8, rounding_mode::nearest_even, out_of_range_mode::error)};
  ZARR_CHECK_ERROR(zarr::run_steps(fine, in, std::span(out).first(1)), zarr::errc::invalid_argument, "expected an output of 2 bytes");
  ZARR_CHECK_ERROR(zarr::run_steps(fine, in, std::span(in).first(2)), zarr::errc::invalid_argument, "overlapping");
}

BOOST_AUTO_TEST_SUITE_END()
