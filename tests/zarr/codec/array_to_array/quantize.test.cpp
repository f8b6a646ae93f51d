// numcodecs.quantize's encode against numcodecs 0.11 itself (docs/decisions.md 28, 53): every
// float16 bit pattern, for digits whose scale takes NumPy's arithmetic through float16, float32
// and float64, both byte orders and wider astypes, encoded by numcodecs with Debian's NumPy
// (tests/interop/numcodecs_quantize_float16.py, run by the test with ZARR_PYTHON) and by our
// codec, compared bit for bit; a few float32/float64 cases over a spread of patterns too.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.dtype;
import zarr.codec.quantize;
import zarr.metadata;
import zarr.builder;
import zarr.bytes;

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// numcodecs' encodings (tests/interop/numcodecs_quantize_float16.py), written into a scratch
// folder; nothing (a loud skip, a failure under CI) without /usr/bin/python3 and numcodecs.
std::optional<fs::path> numcodecs_files() {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_QUANTIZE_SCRIPT");
  BOOST_TEST_REQUIRE(script != nullptr, "ZARR_QUANTIZE_SCRIPT is set by CTest");
  const auto out = zarr_test::scratch_dir() / "numcodecs";
  BOOST_TEST_REQUIRE(python != nullptr, "ZARR_PYTHON is set by CTest");
  const std::string command = std::string(python) + " " + script + " " + out.string() + " 2>&1";
  if (!zarr_test::peer_ran(std::system(command.c_str()), "numcodecs writing the quantize encodings")) return std::nullopt;
  BOOST_TEST_REQUIRE(fs::exists(out / "cases.json"));
  return out;
}

// Each element's bytes reversed in place (a big-endian NumPy buffer to memory order).
void swap_elements(zarr::bytes& b, std::size_t size) {
  for (std::size_t i = 0; i + size <= b.size(); i += size) std::reverse(b.begin() + static_cast<std::ptrdiff_t>(i),
                                                                       b.begin() + static_cast<std::ptrdiff_t>(i + size));
}

std::string hex_of(std::span<const std::byte> b) {
  std::ostringstream s;
  s << std::hex;
  for (const auto x : b) s << (static_cast<unsigned>(x) >> 4) << (static_cast<unsigned>(x) & 15u);
  return s.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_codec)

BOOST_AUTO_TEST_CASE(encodes_every_float16_pattern_bit_for_bit_as_numcodecs) {
  const auto dir = numcodecs_files();
  if (!dir) return;
  const auto cases = zarr::parse_json(zarr_test::file_text(*dir / "cases.json"), "cases.json").at("cases").as_array();
  std::size_t float16_cases = 0, big_endian = 0, through[3] = {0, 0, 0};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto& c = cases[k].as_object();
    BOOST_TEST_CONTEXT("case " << k << " " << json::serialize(c)) {
      const auto digits = c.at("digits").to_number<int>();
      const std::string dtype(c.at("dtype").as_string()), astype(c.at("astype").as_string());
      const auto from = zarr::parse_numpy_dtype(dtype), to = zarr::parse_numpy_dtype(astype);
      BOOST_TEST_REQUIRE((from && to));
      const auto n = c.at("n").to_number<std::uint64_t>();
      const auto in_size = static_cast<std::size_t>(zarr::info(from->type).size);
      const auto out_size = static_cast<std::size_t>(zarr::info(to->type).size);
      auto in = zarr_test::octets(zarr_test::file_text(*dir / (std::to_string(k) + ".in")));
      const auto expected = zarr_test::octets(zarr_test::file_text(*dir / (std::to_string(k) + ".out")));
      BOOST_TEST_REQUIRE(in.size() == n * in_size);
      BOOST_TEST_REQUIRE(expected.size() == n * out_size);
      if (from->byte_order == '>') swap_elements(in, in_size);
      const auto q = zarr_test::chain(R"([{"name": "numcodecs.quantize", "configuration": {"digits": )" + std::to_string(digits) +
                                          R"(, "dtype": ")" + dtype + R"(", "astype": ")" + astype + R"("}},
                                          {"name": "bytes", "configuration": {"endian": ")" +
                                          (to->byte_order == '>' ? "big" : "little") + R"("}}])",
                                      zarr_test::spec({n}, from->type));
      const auto encoded = q.encode(std::span<const std::byte>(in));
      BOOST_TEST_REQUIRE(encoded.size() == expected.size());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::span<const std::byte> ours(encoded.data() + i * out_size, out_size), theirs(expected.data() + i * out_size, out_size);
        if (std::memcmp(ours.data(), theirs.data(), out_size) == 0) continue;
        if (++differ <= 5)
          BOOST_TEST_MESSAGE("element " << i << " (input " << hex_of(std::span<const std::byte>(in.data() + i * in_size, in_size))
                                        << " in memory order): ours " << hex_of(ours) << ", numcodecs " << hex_of(theirs));
      }
      BOOST_TEST(differ == 0u, differ << " of " << n << " elements differ from numcodecs");
      if (from->type == zarr::data_type::float16) {
        ++float16_cases;
        big_endian += from->byte_order == '>' ? 1 : 0;
        // Which of NumPy's arithmetic types the scale selects (decision 53).
        const auto scale = dynamic_cast<const zarr::quantize_codec&>(*q.array_to_array().at(0)).scale();
        ++through[scale < 65000 ? 0 : scale < 3.4e38 ? 1 : 2];
      }
    }
  }
  BOOST_TEST(float16_cases >= 24u);
  BOOST_TEST(big_endian >= 12u);
  BOOST_TEST((through[0] > 0 && through[1] > 0 && through[2] > 0), "float16, float32 and float64 arithmetic each checked");
}

BOOST_AUTO_TEST_CASE(encodes_float16_in_float16_steps_where_numpy_does) {
  // numcodecs.Quantize(1, "<f2").encode(np.array([4094, 4096, 0.1, -3.3], "<f2")).view("<u2") ==
  // [27647, 31744, 12288, 49824]: 4096 * 16 overflows float16 to infinity, as in NumPy (in float32
  // it would stay 4096); 0.1 becomes 0.125 and -3.3 -3.3125.
  const auto q = zarr_test::chain(R"([{"name": "numcodecs.quantize", "configuration": {"digits": 1, "dtype": "<f2"}},
                                      {"name": "bytes", "configuration": {"endian": "little"}}])",
                                  zarr_test::spec({4}, zarr::data_type::float16));
  const std::vector<std::uint16_t> in{27647u, 27648u, 11878u, 49818u};  // np.array([4094, 4096, 0.1, -3.3], "<f2")
  const auto out = q.encode(std::span<const std::byte>(zarr_test::to_bytes(in)));
  BOOST_TEST(zarr_test::from_bytes<std::uint16_t>(out) == (std::vector<std::uint16_t>{27647u, 31744u, 12288u, 49824u}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(quantize_rounds_as_numcodecs) {
  // numcodecs.Quantize(1, "<f8").encode([0.123456, 3.14159]) == [0.125, 3.125]
  const auto q = zarr_test::chain(R"([{"name": "numcodecs.quantize", "configuration": {"digits": 1, "dtype": "<f8"}},
                           {"name": "bytes", "configuration": {"endian": "little"}}])", zarr_test::spec({2}, zarr::data_type::float64));
  const auto qe = q.encode(std::span<const std::byte>(zarr_test::to_bytes(std::vector<double>{0.123456, 3.14159})));
  BOOST_TEST(zarr_test::from_bytes<double>(qe) == (std::vector<double>{0.125, 3.125}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
