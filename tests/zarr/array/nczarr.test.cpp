// netCDF's NCZarr (netcdf-c's ncgen, nccopy and ncdump, Debian's netcdf-bin) both ways: the
// variables of tests/interop/nczarr.cdl written in '#mode=zarr' and '#mode=nczarr' read
// exactly as the CDL says, and an array we convert to Zarr v2 in a group prints the same
// values in ncdump, with its dimension names (_ARRAY_DIMENSIONS).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.dtype;
import zarr.store;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.nd;

namespace fs = std::filesystem;

namespace {

struct result {
  int status = -1;
  std::string out;
};

result run(const std::string& command) {
  result r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  while (const auto n = std::fread(buffer, 1, sizeof buffer, pipe)) r.out.append(buffer, n);
  r.status = pclose(pipe);
  return r;
}

bool have(const std::string& program) { return run("command -v " + program).status == 0; }

std::string url(const fs::path& dir, std::string_view mode) {
  return "'file://" + fs::absolute(dir).string() + "#mode=" + std::string(mode) + ",file'";
}

template <class T>
std::vector<T> all_of(const std::shared_ptr<zarr::store>& s, const std::string& path) {
  const auto a = zarr::array::open(s, path);
  return a.read<T>(zarr::region::all(a.shape()));
}

// The CDL's values (tests/interop/nczarr.cdl), variable by variable.
void check_the_cdl_values(const fs::path& root) {
  const auto s = std::make_shared<zarr::filesystem_store>(root, false);
  using i64 = std::vector<std::int64_t>;
  using u64 = std::vector<std::uint64_t>;
  const auto type_of = [&](const std::string& path) { return zarr::array::open(s, path).type(); };
  BOOST_TEST(type_of("b") == zarr::data_type::int8);
  BOOST_TEST(all_of<std::int64_t>(s, "b") == (i64{-128, -1, 0, 127}), boost::test_tools::per_element());
  BOOST_TEST(type_of("ub") == zarr::data_type::uint8);
  BOOST_TEST(all_of<std::int64_t>(s, "ub") == (i64{0, 1, 200, 255}), boost::test_tools::per_element());
  BOOST_TEST(type_of("s") == zarr::data_type::int16);
  BOOST_TEST(zarr::array::open(s, "s").shape() == (std::vector<std::uint64_t>{3, 4}), boost::test_tools::per_element());
  BOOST_TEST(all_of<std::int64_t>(s, "s") == (i64{-32768, -2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 32767}), boost::test_tools::per_element());
  BOOST_TEST(type_of("us") == zarr::data_type::uint16);
  BOOST_TEST(all_of<std::int64_t>(s, "us") == (i64{0, 1, 40000, 65535}), boost::test_tools::per_element());
  BOOST_TEST(type_of("i") == zarr::data_type::int32);
  i64 i{-2147483648LL};
  for (int k = 1; k <= 22; ++k) i.push_back(k);
  i.push_back(2147483647);
  BOOST_TEST(all_of<std::int64_t>(s, "i") == i, boost::test_tools::per_element());
  BOOST_TEST(type_of("ui") == zarr::data_type::uint32);
  BOOST_TEST(all_of<std::int64_t>(s, "ui") == (i64{0, 1, 3000000000LL, 4294967295LL}), boost::test_tools::per_element());
  BOOST_TEST(type_of("l") == zarr::data_type::int64);
  BOOST_TEST(all_of<std::int64_t>(s, "l") == (i64{-9223372036854775807LL, 0, 9223372036854775807LL}), boost::test_tools::per_element());
  BOOST_TEST(type_of("ul") == zarr::data_type::uint64);
  BOOST_TEST(all_of<std::uint64_t>(s, "ul") == (u64{0, 1, 18446744073709551614ULL}), boost::test_tools::per_element());
  BOOST_TEST(type_of("f") == zarr::data_type::float32);
  const auto f = all_of<float>(s, "f");
  BOOST_TEST(f == (std::vector<float>{0.5f, -1.25f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                                      0, 7, 1, 2, 3, 4, 5, 6.125f}),
             boost::test_tools::per_element());
  BOOST_TEST(!std::signbit(f.at(4)));
  BOOST_TEST(all_of<double>(s, "d") == (std::vector<double>{-2.5e-300}), boost::test_tools::per_element());  // a scalar as shape [1]
  BOOST_TEST(all_of<double>(s, "g") == (std::vector<double>{0.1, 0.2, 0.3, 1e300, -1e300, std::numeric_limits<double>::denorm_min()}),
             boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nczarr)

BOOST_AUTO_TEST_CASE(what_ncgen_and_nccopy_write_in_zarr_and_nczarr_modes_reads_exactly) {
  if (!have("ncgen") || !have("nccopy")) return zarr_test::peer_missing("ncgen and nccopy (Debian's netcdf-bin)");
  const char* cdl = std::getenv("ZARR_NCZARR_CDL");
  BOOST_TEST_REQUIRE(cdl != nullptr);
  const auto dir = zarr_test::scratch_dir();
  const auto nc = (dir / "t.nc").string();
  BOOST_TEST_REQUIRE(run("ncgen -4 -o '" + nc + "' '" + cdl + "'").status == 0);
  for (const std::string mode : {"zarr", "nczarr"}) {
    BOOST_TEST_CONTEXT("mode=" << mode) {
      auto r = run("ncgen -4 -o " + url(dir / ("ncgen-" + mode + ".zarr"), mode) + " '" + cdl + "'");
      BOOST_TEST_REQUIRE(r.status == 0, r.out);
      check_the_cdl_values(dir / ("ncgen-" + mode + ".zarr"));
      r = run("nccopy '" + nc + "' " + url(dir / ("nccopy-" + mode + ".zarr"), mode));
      BOOST_TEST_REQUIRE(r.status == 0, r.out);
      check_the_cdl_values(dir / ("nccopy-" + mode + ".zarr"));
    }
  }
  // mode=zarr names the dimensions as xarray does.
  const auto s = std::make_shared<zarr::filesystem_store>(dir / "ncgen-zarr.zarr", false);
  BOOST_TEST(boost::json::serialize(zarr::array::open(s, "i").metadata().attributes.at("_ARRAY_DIMENSIONS")) == R"(["t","y","x"])");
}

BOOST_AUTO_TEST_CASE(an_array_we_convert_to_v2_in_a_group_prints_the_same_values_in_ncdump_with_its_dimensions) {
  if (!have("ncdump")) return zarr_test::peer_missing("ncdump (Debian's netcdf-bin)");
  const auto dir = zarr_test::scratch_dir();
  auto s = std::make_shared<zarr::filesystem_store>(dir / "v3.zarr");
  auto a = zarr::array_builder({3, 2}, zarr::data_type::float64)
               .chunk_shape({2, 2})
               .dimension_names({"time", "lat"})
               .create(s, "temperature");
  a.write<double>(zarr::region::all(a.shape()), std::vector<double>{0.5, -1.25, 1e300, 2.5e-300, 7, -0.125});
  auto b = zarr::array_builder({4}, zarr::data_type::int16).dimension_names({"lat2"}).create(s, "counts");
  b.write<std::int16_t>(zarr::region::all(b.shape()), std::vector<std::int16_t>{-32768, 1, 12, 32767});
  // A compressed array, written uncompressed for netCDF as the README says (and as convert's note says).
  auto c = zarr::array_builder({3}, zarr::data_type::int32).codecs({zarr::codecs::zstd{.level = 3}}).dimension_names({"time"}).create(s, "wind");
  c.write<std::int32_t>(zarr::region::all(c.shape()), std::vector<std::int32_t>{-7, 8, 2000000000});
  std::ofstream(dir / "bytes.json") << R"([{"name": "bytes", "configuration": {"endian": "little"}}])";
  const std::string zarr3 = ZARR3_EXE;
  const auto v2 = dir / "v2.zarr";
  auto w = run("'" + zarr3 + "' convert --format 2 '" + (dir / "v3.zarr").string() + "#/wind' '" + (dir / "zstd.zarr").string() + "#/wind'");
  BOOST_TEST_REQUIRE(w.status == 0, w.out);
  BOOST_TEST(w.out.find("note: netCDF readers without compression filters") != std::string::npos, w.out);
  for (const std::string name : {"temperature", "counts", "wind"}) {
    const auto r = run("'" + zarr3 + "' convert --format 2 '" + (dir / "v3.zarr").string() + "#/" + name + "' '" + v2.string() +
                       "#/grp/" + name + "'" + (name == "wind" ? " --codecs '" + (dir / "bytes.json").string() + "'" : std::string()));
    BOOST_TEST_REQUIRE(r.status == 0, r.out);
    BOOST_TEST(r.out.find("note:") == std::string::npos, r.out);
  }
  const auto r = run("ncdump " + url(v2, "zarr"));
  BOOST_TEST_REQUIRE(r.status == 0, r.out);
  BOOST_TEST_MESSAGE(r.out);
  // ncdump prints the group, its dimensions from _ARRAY_DIMENSIONS and the variables' values.
  BOOST_TEST(r.out.find("group: grp {") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("double temperature(time, lat) ;") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("short counts(lat2) ;") != std::string::npos, r.out);
  BOOST_TEST(std::regex_search(r.out, std::regex(R"(time = 3 ;\s+lat = 2 ;)")), r.out);
  BOOST_TEST(std::regex_search(r.out, std::regex(R"(temperature =\s+0.5, -1.25,\s+1e\+300, 2.5e-300,\s+7, -0.125 ;)")), r.out);
  BOOST_TEST(std::regex_search(r.out, std::regex(R"(counts = -32768, 1, 12, 32767 ;)")), r.out);
  BOOST_TEST(std::regex_search(r.out, std::regex(R"(wind = -7, 8, 2000000000 ;)")), r.out);
}

BOOST_AUTO_TEST_SUITE_END()
