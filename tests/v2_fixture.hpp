// The Zarr v2 fixture that zarr-python 2 writes at test time (tests/interop/zarr_python2_fixture.py:
// v2.zarr, raw/N.bin, manifest.json), as the tests that read it use it.
#pragma once
// Include after the standard headers and before or after `import zarr;` (it imports it).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>
#include "support.hpp"
import zarr.dtype;
import zarr.array;
import zarr.nd;

namespace zarr_test {

// The fixture's folder (ZARR_V2_FIXTURE, set by CTest), or nothing, with peer_missing, when it
// was not written.
inline std::optional<std::filesystem::path> v2_fixture() {
  const char* dir = std::getenv("ZARR_V2_FIXTURE");
  if (dir == nullptr || !std::filesystem::exists(std::filesystem::path(dir) / "manifest.json")) {
    peer_missing("the zarr-python 2 fixture was not written (no /usr/bin/python3 with zarr 2 and numcodecs)");
    return std::nullopt;
  }
  return std::filesystem::path(dir);
}

// The value of the environment variable `name`, which CTest sets for the test.
inline std::string ctest_env(const char* name) {
  const char* value = std::getenv(name);
  BOOST_TEST_REQUIRE(value != nullptr, name << " is set by CTest (run the tests through ctest)");
  return value;
}

// The shape of a fixture case (an entry of manifest.json's "cases").
inline std::vector<std::uint64_t> case_shape(const boost::json::object& c) {
  std::vector<std::uint64_t> shape;
  for (const auto& d : c.at("shape").as_array()) shape.push_back(d.to_number<std::uint64_t>());
  return shape;
}

// Checks that `a` has the data type and shape of the fixture case `c` and, in the rows that have
// values (all but those of a chunk missing without a fill value), its raw file's values bit for bit.
inline void check_case_values(const zarr::array& a, const boost::json::object& c, const std::filesystem::path& fixture) {
  BOOST_TEST(zarr::name(a.type()) == c.at("data_type").as_string());
  if (zarr::is_time(a.type())) {  // the unit and scale factor of "<M8[25ms]", checked by hand
    const std::string dtype(c.at("dtype").as_string());
    const auto open = dtype.find('['), unit_at = dtype.find_first_not_of("0123456789", open + 1);
    const std::string scale = dtype.substr(open + 1, unit_at - open - 1);
    BOOST_TEST(zarr::time_unit_name(a.metadata().time.unit) == dtype.substr(unit_at, dtype.size() - 1 - unit_at));
    BOOST_TEST(a.metadata().time.scale_factor == (scale.empty() ? 1u : std::stoul(scale)));
  }
  const auto shape = case_shape(c);
  BOOST_TEST(a.shape() == shape, boost::test_tools::per_element());
  auto r = zarr::region::all(shape);
  if (!shape.empty()) r.stop[0] = c.at("readable_rows").to_number<std::uint64_t>();
  const auto size = static_cast<std::size_t>(zarr::info(a.type()).size);
  std::vector<std::byte> got(r.num_elements() * size);
  a.read(r, got);
  const auto expected = file_text(fixture / std::string(c.at("raw").as_string()));
  BOOST_TEST_REQUIRE(expected.size() == got.size());
  std::size_t first_difference = got.size();
  for (std::size_t i = 0; i < got.size() && first_difference == got.size(); ++i)
    if (got[i] != static_cast<std::byte>(expected[i])) first_difference = i;
  BOOST_TEST(first_difference == got.size(), "first difference in element " << first_difference / size);
}

}  // namespace zarr_test
