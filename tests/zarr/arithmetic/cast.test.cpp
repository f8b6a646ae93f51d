// Every row and column of vectors/cast/<target>.csv (tests/data) through zarr::cast: five rounding
// modes × (error, clamp, wrap), float64, integer and small-type sources (docs/decisions.md 7-12).
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include "cast_vectors.hpp"
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;

using zarr::data_type;
using namespace zarr_test;

BOOST_AUTO_TEST_SUITE(cast_vectors)

BOOST_AUTO_TEST_CASE(casts_every_row_of_every_cast_table_in_every_mode) {
  std::size_t checked = 0;
  for (const char* name : cast_targets) {
    const auto to = zarr::data_type_from_name(name);
    const auto table = read_vectors(std::string("cast/") + name + ".csv");
    const auto columns = cast_columns(table);
    BOOST_TEST(columns.size() == (zarr::is_integer(to) ? 15u : 10u));
    int bad = 0, integer_sources = 0;
    for (const auto& row : table.rows) {
      const auto sources = cast_sources(row[0], row[1]);
      if (row[0] == "int64" || row[0] == "uint64") {
        BOOST_TEST_REQUIRE(!sources.empty(), name << ": no source type holds " << row[1]);
        integer_sources += static_cast<int>(sources.size());
      }
      for (const auto& [from, bits] : sources) {
        for (const auto& c : columns) {
          const auto r = zarr::cast(from, bits, to, c.mode, c.oor);
          ++checked;
          if (!matches(to, r, row[c.index]) && ++bad <= 10)
            BOOST_ERROR(name << " from " << zarr::name(from) << " " << row[1] << " " << table.header[c.index] << ": got "
                             << r.bits << " " << zarr::to_string(r.error) << ", expected " << row[c.index]);
        }
      }
    }
    BOOST_TEST(bad == 0, name << ": " << bad << " mismatches");
    BOOST_TEST(integer_sources > 0);
  }
  BOOST_TEST_MESSAGE("cast cells checked: " << checked);
  BOOST_TEST(checked > 2'000'000u);
}

BOOST_AUTO_TEST_SUITE_END()
