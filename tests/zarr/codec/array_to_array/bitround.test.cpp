// bitround and numcodecs.bitround: numcodecs' rounding of the mantissa, bit for bit, on every
// float type the spec lists (zarr-extensions codecs/bitround, "Supported data types"), and the
// spec's integer rounding ("the number of bits to retain from the most significant set bit")
// checked against exact integer arithmetic.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.builder;
import zarr.bytes;

namespace json = boost::json;
namespace fs = std::filesystem;
using zarr_test::chain;
using zarr_test::spec;

namespace {

std::string bitround_then_bytes(int keepbits, std::string_view name = "bitround") {
  return R"([{"name": ")" + std::string(name) + R"(", "configuration": {"keepbits": )" + std::to_string(keepbits) +
         R"(}}, {"name": "bytes", "configuration": {"endian": "little"}}])";
}

// The encoded bytes of `in` (memory order, little-endian here) under bitround then bytes.
zarr::bytes encode(zarr::data_type type, int keepbits, const zarr::bytes& in) {
  const auto n = in.size() / zarr::info(type).size;
  return chain(bitround_then_bytes(keepbits), spec({n}, type)).encode(std::span<const std::byte>(in));
}

// One numcodecs case: `input` as NumPy holds it in `dtype`, and what numcodecs encodes it to.
struct peer_case {
  std::string dtype;
  int keepbits;
  zarr::bytes input;
  zarr::bytes output;
};

// numcodecs' BitRound.encode of every case (tests/interop/numcodecs_bitround.py), in one run;
// nothing (a loud skip, a failure under CI) without /usr/bin/python3 and numcodecs.
bool run_numcodecs(std::vector<peer_case>& cases) {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_BITROUND_SCRIPT");
  BOOST_TEST_REQUIRE(python != nullptr, "ZARR_PYTHON is set by CTest");
  BOOST_TEST_REQUIRE(script != nullptr, "ZARR_BITROUND_SCRIPT is set by CTest");
  const auto dir = zarr_test::scratch_dir();
  json::array list;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    list.push_back(json::object{{"dtype", cases[i].dtype}, {"keepbits", cases[i].keepbits}});
    std::ofstream(dir / (std::to_string(i) + ".in"), std::ios::binary)
        .write(reinterpret_cast<const char*>(cases[i].input.data()), static_cast<std::streamsize>(cases[i].input.size()));
  }
  std::ofstream(dir / "cases.json") << json::serialize(list);
  const std::string command = std::string(python) + " " + script + " '" + dir.string() + "' 2>&1";
  if (!zarr_test::peer_ran(std::system(command.c_str()), "numcodecs' BitRound")) return false;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto text = zarr_test::file_text(dir / (std::to_string(i) + ".out"));
    cases[i].output = zarr_test::octets(text);
    BOOST_TEST_REQUIRE(cases[i].output.size() == cases[i].input.size());
  }
  return true;
}

// Every 16-bit pattern; 65,536 spread 32- and 64-bit patterns (all exponents, both signs).
template <class U>
zarr::bytes patterns() {
  std::vector<U> v(65536);
  std::mt19937_64 gen(7);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = sizeof(U) == 2 ? static_cast<U>(i) : static_cast<U>((static_cast<U>(i) << (sizeof(U) * 8 - 16)) | (gen() >> 16));
  return zarr_test::to_bytes(v);
}

// bfloat16 patterns as the float32 values they are (the upper half of a float32), and back.
zarr::bytes widen_bfloat16(const zarr::bytes& b) {
  std::vector<std::uint32_t> out;
  for (const auto x : zarr_test::from_bytes<std::uint16_t>(b)) out.push_back(std::uint32_t{x} << 16);
  return zarr_test::to_bytes(out);
}
zarr::bytes narrow_to_bfloat16(const zarr::bytes& b) {
  std::vector<std::uint16_t> out;
  for (const auto x : zarr_test::from_bytes<std::uint32_t>(b)) {
    BOOST_TEST_REQUIRE((x & 0xFFFFu) == 0u);  // rounding a bfloat16 value in float32 leaves the low half zero
    out.push_back(static_cast<std::uint16_t>(x >> 16));
  }
  return zarr_test::to_bytes(out);
}

// The spec's integer rounding in exact arithmetic on the element's bits (two's complement for the
// signed types, as a number 0 <= u < 2^width): keep `keepbits` bits from the most significant set
// bit, rounding the rest half to even; a result of 2^width (a carry out of the type) is the
// largest multiple of the quantum below it (docs/decisions.md 68).
unsigned __int128 round_exact(unsigned __int128 u, int width, int keepbits) {
  int msb = 0;
  for (auto x = u; x != 0; x >>= 1) ++msb;
  if (msb <= keepbits) return u;
  const unsigned __int128 quantum = static_cast<unsigned __int128>(1) << (msb - keepbits);
  auto q = u / quantum;
  const auto twice_rest = (u % quantum) * 2;
  if (twice_rest > quantum || (twice_rest == quantum && q % 2 == 1)) ++q;
  const auto top = static_cast<unsigned __int128>(1) << width;
  return q * quantum >= top ? top - quantum : q * quantum;
}

template <class U>
void check_integer_type(zarr::data_type type, const std::vector<U>& values) {
  for (const int keepbits : {1, 3, 7, static_cast<int>(sizeof(U) * 8) - 1}) {
    std::vector<U> expected;
    for (const auto v : values) expected.push_back(static_cast<U>(round_exact(v, sizeof(U) * 8, keepbits)));
    const auto encoded = zarr_test::from_bytes<U>(encode(type, keepbits, zarr_test::to_bytes(values)));
    BOOST_TEST(encoded == expected, boost::test_tools::per_element());
  }
}

// Every pattern of an 8- or 16-bit type; for wider ones, values of every bit width with
// random low bits, and the edges (0, 1, the ties, all ones, the sign bit alone).
template <class U>
std::vector<U> integer_values() {
  std::vector<U> v;
  if (sizeof(U) <= 2) {
    for (std::uint32_t i = 0; i <= static_cast<U>(~U{0}); ++i) v.push_back(static_cast<U>(i));
    return v;
  }
  std::mt19937_64 gen(11);
  for (int bits = 0; bits <= static_cast<int>(sizeof(U) * 8); ++bits)
    for (int k = 0; k < 64; ++k) {
      const auto top = bits == 0 ? U{0} : static_cast<U>(U{1} << (bits - 1));
      v.push_back(static_cast<U>(top | (static_cast<U>(gen()) & static_cast<U>(top - 1))));
    }
  for (const U x : {U{0}, U{1}, static_cast<U>(~U{0}), static_cast<U>(U{1} << (sizeof(U) * 8 - 1)), static_cast<U>(0x18),
                    static_cast<U>(0x28)})
    v.push_back(x);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bitround)

BOOST_AUTO_TEST_CASE(rounds_every_float_type_of_the_spec_as_numcodecs) {
  // float16/32/64 as themselves; the complex types as their components (numcodecs on the
  // component dtype); bfloat16 as the float32 it is the upper half of.
  struct row {
    zarr::data_type type;
    std::string dtype;
    zarr::bytes input;
    bool bfloat16;
  };
  const std::vector<row> rows{
      {zarr::data_type::float16, "<f2", patterns<std::uint16_t>(), false},
      {zarr::data_type::complex_float16, "<f2", patterns<std::uint16_t>(), false},
      {zarr::data_type::float32, "<f4", patterns<std::uint32_t>(), false},
      {zarr::data_type::complex64, "<f4", patterns<std::uint32_t>(), false},
      {zarr::data_type::float64, "<f8", patterns<std::uint64_t>(), false},
      {zarr::data_type::complex128, "<f8", patterns<std::uint64_t>(), false},
      {zarr::data_type::bfloat16, "<f4", patterns<std::uint16_t>(), true},
      {zarr::data_type::complex_bfloat16, "<f4", patterns<std::uint16_t>(), true},
  };
  std::vector<peer_case> cases;
  std::vector<std::pair<std::size_t, int>> which;  // row, keepbits
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (const int keepbits : {1, 3, 6}) {
      cases.push_back({rows[r].dtype, keepbits, rows[r].bfloat16 ? widen_bfloat16(rows[r].input) : rows[r].input, {}});
      which.emplace_back(r, keepbits);
    }
  if (!run_numcodecs(cases)) return;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [r, keepbits] = which[i];
    BOOST_TEST_CONTEXT(zarr::name(rows[r].type) << " keepbits " << keepbits) {
      const auto expected = rows[r].bfloat16 ? narrow_to_bfloat16(cases[i].output) : cases[i].output;
      const auto encoded = encode(rows[r].type, keepbits, rows[r].input);
      BOOST_TEST(zarr_test::same(encoded, expected));
    }
  }
}

BOOST_AUTO_TEST_CASE(rounds_integers_from_the_most_significant_set_bit) {
  check_integer_type<std::uint8_t>(zarr::data_type::uint8, integer_values<std::uint8_t>());
  check_integer_type<std::uint8_t>(zarr::data_type::int8, integer_values<std::uint8_t>());
  check_integer_type<std::uint16_t>(zarr::data_type::uint16, integer_values<std::uint16_t>());
  check_integer_type<std::uint16_t>(zarr::data_type::int16, integer_values<std::uint16_t>());
  check_integer_type<std::uint32_t>(zarr::data_type::uint32, integer_values<std::uint32_t>());
  check_integer_type<std::uint32_t>(zarr::data_type::int32, integer_values<std::uint32_t>());
  check_integer_type<std::uint64_t>(zarr::data_type::uint64, integer_values<std::uint64_t>());
  check_integer_type<std::uint64_t>(zarr::data_type::int64, integer_values<std::uint64_t>());
  // The time types are int64 counts (the spec: "encoded equivalently to int64"); NaT is INT64_MIN.
  check_integer_type<std::uint64_t>(zarr::data_type::numpy_datetime64, integer_values<std::uint64_t>());
  check_integer_type<std::uint64_t>(zarr::data_type::numpy_timedelta64, integer_values<std::uint64_t>());
}

BOOST_AUTO_TEST_CASE(rounds_a_few_integers_to_the_values_worked_out_by_hand) {
  // keepbits 3: 200 = 0b11001000 -> 0b11000000 = 192; 209 = 0b11010001 -> 0b11100000 = 224 (above
  // the tie); 208 = 0b11010000, a tie, -> 192 (even); 255 would carry to 256: 224, the largest
  // value with 3 bits from bit 7. 11 = 0b1011 -> 0b1100 = 12 (a tie, to even).
  const std::vector<std::uint8_t> in{0, 1, 10, 11, 100, 123, 200, 208, 209, 255};
  const std::vector<std::uint8_t> out{0, 1, 10, 12, 96, 128, 192, 192, 224, 224};
  BOOST_TEST(zarr_test::from_bytes<std::uint8_t>(encode(zarr::data_type::uint8, 3, zarr_test::to_bytes(in))) == out,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bitround_rounds_as_numcodecs) {
  // numcodecs.BitRound(3).encode(np.array([1.1, 0.15625, -3.3], "<f4")).view("<u4")
  for (std::string_view name : {"bitround", "numcodecs.bitround"}) {
    const auto b = chain(bitround_then_bytes(3, name), spec({3}, zarr::data_type::float32));
    const auto be = b.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<float>{1.1f, 0.15625f, -3.3f})));
    BOOST_TEST(zarr_test::from_bytes<std::uint32_t>(be) == (std::vector<std::uint32_t>{1066401792u, 1042284544u, 3226468352u}),
               boost::test_tools::per_element());
    BOOST_TEST(zarr_test::same(b.decode(be), be));  // decoding is the identity
  }
}

BOOST_AUTO_TEST_CASE(decoding_is_the_identity_for_every_type) {
  for (const auto type : {zarr::data_type::int8, zarr::data_type::uint64, zarr::data_type::bfloat16,
                          zarr::data_type::complex_float16, zarr::data_type::complex128, zarr::data_type::numpy_timedelta64}) {
    const auto c = chain(bitround_then_bytes(2), spec({64}, type));
    const auto stored = zarr_test::random_bytes(64 * zarr::info(type).size, 5);
    BOOST_TEST(zarr_test::same(c.decode(stored), stored), zarr::name(type));
  }
}

BOOST_AUTO_TEST_CASE(rejects_keepbits_past_the_type_and_types_outside_the_spec) {
  ZARR_CHECK_ERROR(chain(bitround_then_bytes(24), spec({3}, zarr::data_type::float32)), zarr::errc::invalid_metadata,
                   "codecs[0].configuration.keepbits: expected at most 23");
  ZARR_CHECK_ERROR(chain(bitround_then_bytes(8), spec({3}, zarr::data_type::complex_bfloat16)), zarr::errc::invalid_metadata,
                   "codecs[0].configuration.keepbits: expected at most 7 (the mantissa bits of complex_bfloat16)");
  ZARR_CHECK_ERROR(chain(bitround_then_bytes(17), spec({3}, zarr::data_type::int16)), zarr::errc::invalid_metadata,
                   "expected at most 16 (the bits of int16), got 17");
  ZARR_CHECK_ERROR(chain(bitround_then_bytes(65), spec({3}, zarr::data_type::int64)), zarr::errc::invalid_metadata,
                   "codecs[0].configuration.keepbits");
  ZARR_CHECK_ERROR(chain(bitround_then_bytes(0), spec({3}, zarr::data_type::int64)), zarr::errc::invalid_metadata,
                   "codecs[0].configuration.keepbits");
  ZARR_CHECK_ERROR(chain(bitround_then_bytes(0, "numcodecs.bitround"), spec({3}, zarr::data_type::uint64)),
                   zarr::errc::invalid_metadata, "codecs[0].configuration.keepbits: expected at least 1 for an integer type, got 0");
  for (const auto type : {zarr::data_type::bool_, zarr::data_type::int4, zarr::data_type::float8_e4m3,
                          zarr::data_type::complex_float8_e5m2})
    ZARR_CHECK_ERROR(chain(bitround_then_bytes(1), spec({3}, type)), zarr::errc::unsupported, std::string(zarr::name(type)));
}

BOOST_AUTO_TEST_SUITE_END()
