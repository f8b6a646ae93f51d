// Zarr v2 arrays with "fill_value": null whose chunks were never all written, as zarr-python 2
// writes them (tests/interop/zarr_python2_null_fill.py, run at test time with ZARR_PYTHON2):
// the missing elements read as the data type's zero ("" for text), as zarrs and zarr-python 3
// read them, and opened strict they are refused (docs/decisions.md 26).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.store.filesystem;
import zarr.nd;

namespace json = boost::json;

namespace {

std::string to_hex(std::span<const std::byte> b) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const auto x : b) {
    out += digits[std::to_integer<unsigned>(x) >> 4];
    out += digits[std::to_integer<unsigned>(x) & 15];
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(v2_null_fill)

BOOST_AUTO_TEST_CASE(missing_chunks_of_zarr_python_2_arrays_without_a_fill_value_read_as_zero) {
  const char* python = std::getenv("ZARR_PYTHON2");
  const char* script = std::getenv("ZARR_NULL_FILL_SCRIPT");
  if (python == nullptr || script == nullptr) return zarr_test::peer_missing("ZARR_PYTHON2 or ZARR_NULL_FILL_SCRIPT unset");
  const auto dir = zarr_test::scratch_dir();
  if (std::system((std::string(python) + " " + script + " '" + dir.string() + "'").c_str()) != 0)
    BOOST_FAIL("zarr-python 2 did not write the arrays (" << script << ")");
  const auto manifest = json::parse(zarr_test::file_text(dir / "manifest.json")).as_object();
  auto store = std::make_shared<zarr::filesystem_store>(dir / "v2.zarr", false);
  std::size_t cases = 0;
  for (const auto& c : manifest.at("cases").as_array()) {
    const auto& o = c.as_object();
    const std::string path(o.at("path").as_string());
    BOOST_TEST_CONTEXT(path) {
      const auto a = zarr::array::open(store, path);
      BOOST_TEST(a.metadata().no_fill_value);
      const auto all = zarr::region::all(a.shape());
      BOOST_TEST(!store->get(path + "/1.0").has_value());  // a chunk never written
      if (const auto* hex = o.if_contains("hex")) {
        std::vector<std::byte> got(all.num_elements() * static_cast<std::size_t>(a.metadata().element_size()));
        a.read(all, got);
        BOOST_TEST(to_hex(got) == std::string(hex->as_string()));
      } else {
        std::vector<std::string> expected;
        for (const auto& v : o.at("values").as_array()) expected.emplace_back(v.as_string());
        BOOST_TEST(a.read_strings(all) == expected, boost::test_tools::per_element());
      }
      // Opened strict, a read that meets a missing chunk is refused, one of stored chunks is not.
      const auto strict = zarr::array::open(store, path, {.strict_fill_value = true});
      if (a.metadata().type == zarr::data_type::string) {
        ZARR_CHECK_ERROR(strict.read_strings(all), zarr::errc::not_found,
                         "\": expected a stored chunk (the array has no fill value");
        BOOST_TEST(strict.read_strings({{0, 0}, {2, 4}}).size() == 8u);
      } else {
        std::vector<std::byte> got(all.num_elements() * static_cast<std::size_t>(a.metadata().element_size()));
        ZARR_CHECK_ERROR(strict.read(all, got), zarr::errc::not_found,
                         "\": expected a stored chunk (the array has no fill value");
        ZARR_CHECK_ERROR(strict.read_chunk(std::vector<std::uint64_t>{2, 0}), zarr::errc::not_found, "opened strict");
        BOOST_TEST(strict.read_chunk(std::vector<std::uint64_t>{2, 1}).size() == got.size() / 6);
      }
      ++cases;
    }
  }
  BOOST_TEST(cases == 5u);
}

BOOST_AUTO_TEST_SUITE_END()
