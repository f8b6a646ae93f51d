// NumPy's "<U n", "|V n" and structured dtypes with Debian's zarr-python 2, both ways
// (tests/interop/zarr_python2_sized.py, run here with ZARR_PYTHON, which CTest sets to
// /usr/bin/python3): what it writes reads exactly, and it reads what we write as v2, equal
// (docs/decisions.md 57, 58), numcodecs.categorize over "<U n" too (72). Values are compared as
// bytes: the peer prints NumPy's own (tobytes() in little-endian order, as this library holds
// the elements in memory), so nothing of ours turns its answer into what is expected.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>
#include "../../support.hpp"
import zarr.dtype;
import zarr.metadata;
import zarr.array;
import zarr.store.filesystem;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::optional<std::string> run_script(const std::string& args) {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_SIZED_SCRIPT");
  BOOST_TEST_REQUIRE((python != nullptr && script != nullptr), "ZARR_PYTHON and ZARR_SIZED_SCRIPT are set by CTest");
  return zarr_test::run_peer(std::string(python) + " " + script + " " + args, "zarr-python 2 (" + args.substr(0, args.find(' ')) + ")");
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The bytes the peer printed in hexadecimal.
std::vector<std::byte> from_hex(std::string_view hex) {
  BOOST_TEST_REQUIRE(hex.size() % 2 == 0u);
  std::vector<std::byte> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    unsigned v = 0;
    BOOST_TEST_REQUIRE((std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, v, 16).ec == std::errc{}));
    out[i] = static_cast<std::byte>(v);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sized_interop)

BOOST_AUTO_TEST_CASE(what_zarr_python_2_writes_reads_exactly_and_it_reads_what_we_write) {
  const auto dir = zarr_test::scratch_dir();
  if (!run_script("write " + dir.string())) return;  // missing: skipped; refused: failed (run_peer)
  const auto manifest = json::parse(slurp(dir / "manifest.json"));
  auto theirs = std::make_shared<zarr::filesystem_store>(dir / "v2.zarr");
  auto ours = std::make_shared<zarr::filesystem_store>(dir / "ours.zarr");
  std::size_t cases = 0;
  for (const auto& c : manifest.at("cases").as_array()) {
    const std::string path(c.at("path").as_string());
    BOOST_TEST_CONTEXT(path) {
      // Theirs, read by us.
      const auto a = zarr::array::open(theirs, path);
      const auto spec = a.metadata().type_spec();
      BOOST_TEST_REQUIRE(zarr::is_sized(spec.type));
      const auto expected = from_hex(c.at("raw").as_string());
      std::vector<std::byte> got(expected.size());
      BOOST_TEST_REQUIRE(got.size() == a.metadata().element_size() * zarr::region::all(a.shape()).num_elements());
      a.read(zarr::region::all(a.shape()), std::span<std::byte>(got));
      BOOST_TEST((got == expected));
      // Ours, the same metadata and values, read by zarr-python 2.
      auto m = zarr::array_metadata::parse_v2(slurp(dir / "v2.zarr" / path / ".zarray"));
      auto b = zarr::array::create(ours, path, m);
      b.write(zarr::region::all(m.shape), std::span<const std::byte>(expected));
      const auto zarray = json::parse(slurp(dir / "ours.zarr" / path / ".zarray"));
      const auto original = json::parse(slurp(dir / "v2.zarr" / path / ".zarray"));
      BOOST_TEST(json::serialize(zarray.at("dtype")) == json::serialize(original.at("dtype")));
      BOOST_TEST(json::serialize(zarray.at("fill_value")) == json::serialize(original.at("fill_value")));
      BOOST_TEST(json::serialize(zarray.at("filters")) == json::serialize(original.at("filters")));
      const auto read_back = run_script("read " + (dir / "ours.zarr").string() + " " + path);
      BOOST_TEST_REQUIRE(read_back.has_value(), "zarr-python 2 could not read our array");
      const auto answer = json::parse(*read_back);
      BOOST_TEST((from_hex(answer.at("raw").as_string()) == expected));
      ++cases;
    }
  }
  BOOST_TEST(cases == 11u);
}

BOOST_AUTO_TEST_SUITE_END()
