// zarr.nd: box copies against an element-by-element model (every box of a small array, so
// that whole trailing dimensions are merged into long rows and partial ones are not), and
// the all-equal test of chunks against a fill value; copies and fills into a destination large
// enough to be written with non-temporal stores; windows; the parts of a region in a grid's cells.
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>
import zarr.dtype;
import zarr.nd;

BOOST_AUTO_TEST_SUITE(nd)

BOOST_AUTO_TEST_CASE(copying_a_window_matches_an_element_by_element_copy_for_every_box) {
  const std::vector<std::uint64_t> src_shape{3, 4, 5}, dst_shape{4, 4, 5};
  std::vector<std::uint16_t> src(60);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint16_t>(1000 + i);
  int boxes = 0, bad = 0;
  for (std::uint64_t z0 = 0; z0 < 3; ++z0)
    for (std::uint64_t z1 = z0 + 1; z1 <= 3; ++z1)
      for (std::uint64_t y0 = 0; y0 < 4; ++y0)
        for (std::uint64_t y1 = y0 + 1; y1 <= 4; ++y1)
          for (std::uint64_t x0 = 0; x0 < 5; ++x0)
            for (std::uint64_t x1 = x0 + 1; x1 <= 5; ++x1) {
              const std::vector<std::uint64_t> start{z0, y0, x0}, extent{z1 - z0, y1 - y0, x1 - x0};
              const std::vector<std::uint64_t> at{1, 0, 0};  // one plane down in the destination
              std::vector<std::uint16_t> dst(80, 0), want(80, 0);
              for (std::uint64_t z = 0; z < extent[0]; ++z)
                for (std::uint64_t y = 0; y < extent[1]; ++y)
                  for (std::uint64_t x = 0; x < extent[2]; ++x)
                    want[((at[0] + z) * 4 + y) * 5 + x] = src[((z0 + z) * 4 + y0 + y) * 5 + x0 + x];
              zarr::copy(zarr::const_array_view::c_order(reinterpret_cast<const std::byte*>(src.data()), src_shape, 2)
                             .window(start, extent),
                         zarr::array_view::c_order(reinterpret_cast<std::byte*>(dst.data()), dst_shape, 2).window(at, extent));
              bad += dst != want;
              ++boxes;
            }
  BOOST_TEST(boxes == 6 * 10 * 15);
  BOOST_TEST(bad == 0);
}

// A destination of 32 MiB or more is written with non-temporal stores in whole 64-byte lines,
// the rest of each row with memcpy: rows of 64 to 200 bytes at every offset modulo 64 (and
// rows too short to stream), checked against the model, every other byte untouched.
BOOST_AUTO_TEST_CASE(copying_into_a_large_destination_writes_exactly_the_box) {
  const std::vector<std::uint64_t> dst_shape{64, 1024, 1024}, src_shape{3, 5, 300};
  std::vector<std::uint8_t> src(3 * 5 * 300);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 3);
  std::vector<std::uint8_t> dst(64 * 1024 * 1024, 0xEE);
  int bad = 0;
  for (std::uint64_t width : {1, 63, 64, 65, 127, 128, 200})
    for (std::uint64_t x0 = 0; x0 < 64; x0 += 9) {
      const std::vector<std::uint64_t> src_start{0, 0, 300 - width}, extent{3, 5, width}, at{7, 11, 1000 - x0 - width};
      const auto into = zarr::array_view::c_order(reinterpret_cast<std::byte*>(dst.data()), dst_shape, 1);
      BOOST_TEST_REQUIRE(into.streaming);
      zarr::copy(zarr::const_array_view::c_order(reinterpret_cast<const std::byte*>(src.data()), src_shape, 1)
                     .window(src_start, extent),
                 into.window(at, extent));
      for (std::uint64_t z = 0; z < 4; ++z)  // one plane and row beyond the box too
        for (std::uint64_t y = 0; y < 6; ++y)
          for (std::uint64_t x = at[2] - 1; x < at[2] + width + 1; ++x) {
            auto& got = dst[((at[0] + z) * 1024 + at[1] + y) * 1024 + x];
            const bool inside = z < 3 && y < 5 && x >= at[2] && x < at[2] + width;
            const std::uint8_t want = inside ? src[(z * 5 + y) * 300 + 300 - width + (x - at[2])] : 0xEE;
            bad += got != want;
            got = 0xEE;  // ready for the next case
          }
    }
  BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(filling_a_window_of_a_large_destination_fills_exactly_the_box) {
  const std::vector<std::uint64_t> shape{16, 1024, 1024};  // 32 MiB of uint16
  std::vector<std::uint16_t> dst(16 * 1024 * 1024, 0x1111);
  const std::vector<std::uint64_t> at{3, 5, 33}, extent{2, 3, 500};
  zarr::fill(zarr::array_view::c_order(reinterpret_cast<std::byte*>(dst.data()), shape, 2).window(at, extent),
             zarr::scalar::of(zarr::data_type::uint16, std::uint16_t{0xBEEF}));
  std::uint64_t filled = 0, other = 0;
  for (std::size_t i = 0; i < dst.size(); ++i) {
    const auto z = i / (1024 * 1024), y = i / 1024 % 1024, x = i % 1024;
    const bool inside = z >= 3 && z < 5 && y >= 5 && y < 8 && x >= 33 && x < 533;
    if (inside && dst[i] == 0xBEEF) ++filled;
    else if (!inside && dst[i] != 0x1111) ++other;
  }
  BOOST_TEST(filled == 2u * 3 * 500);
  BOOST_TEST(other == 0u);
}

// Views with other strides: C order into Fortran order and back, a reversed dimension
// (negative stride), every other element, against an element-by-element model.
BOOST_AUTO_TEST_CASE(copies_between_views_of_any_strides) {
  const std::vector<std::uint64_t> shape{3, 4, 5};
  std::vector<std::uint32_t> c(60), f(60, 0), back(60, 0);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<std::uint32_t>(7 * i + 1);
  const auto c_view = zarr::const_array_view::c_order(reinterpret_cast<const std::byte*>(c.data()), shape, 4);
  zarr::copy(c_view, zarr::array_view::f_order(reinterpret_cast<std::byte*>(f.data()), shape, 4));
  int bad = 0;
  for (std::size_t z = 0; z < 3; ++z)
    for (std::size_t y = 0; y < 4; ++y)
      for (std::size_t x = 0; x < 5; ++x) bad += f[(x * 4 + y) * 3 + z] != c[(z * 4 + y) * 5 + x];
  BOOST_TEST(bad == 0);
  zarr::copy(zarr::const_array_view::f_order(reinterpret_cast<const std::byte*>(f.data()), shape, 4),
             zarr::array_view::c_order(reinterpret_cast<std::byte*>(back.data()), shape, 4));
  BOOST_TEST(back == c, boost::test_tools::per_element());
  // The last dimension reversed, and every other element of a row of 10.
  std::vector<std::uint32_t> wide(3 * 4 * 10, 0);
  zarr::const_array_view reversed = c_view;
  reversed.data += 4 * 4;
  reversed.strides[2] = -4;
  zarr::array_view every_other{reinterpret_cast<std::byte*>(wide.data()), shape, {160, 40, 8}, 4, false};
  zarr::copy(reversed, every_other);
  bad = 0;
  for (std::size_t z = 0; z < 3; ++z)
    for (std::size_t y = 0; y < 4; ++y)
      for (std::size_t x = 0; x < 10; ++x)
        bad += wide[(z * 4 + y) * 10 + x] != (x % 2 == 0 ? c[(z * 4 + y) * 5 + 4 - x / 2] : 0u);
  BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(finds_views_whose_elements_share_bytes) {
  std::vector<std::byte> b(64);
  const std::vector<std::uint64_t> shape{4, 4};
  BOOST_TEST(!zarr::self_overlapping(zarr::const_array_view::c_order(b.data(), shape, 4)));
  BOOST_TEST(!zarr::self_overlapping(zarr::const_array_view::f_order(b.data(), shape, 4)));
  BOOST_TEST(zarr::self_overlapping(zarr::const_array_view{b.data(), shape, {8, 4}, 4, false}));   // rows overlap
  BOOST_TEST(zarr::self_overlapping(zarr::const_array_view{b.data(), shape, {16, 2}, 4, false}));  // elements overlap
  BOOST_TEST(zarr::self_overlapping(zarr::const_array_view{b.data(), shape, {0, 4}, 4, false}));   // a repeated row
  BOOST_TEST(!zarr::self_overlapping(zarr::const_array_view{b.data(), shape, {-16, 4}, 4, false}));
}

// Every cell a region meets, with the part inside it in the cell's and the region's
// coordinates, against a model that walks the region element by element: a regular grid
// (cells of 3 x 4), and a grid whose columns list their edges (rectilinear).
BOOST_AUTO_TEST_CASE(cell_parts_tile_the_region_exactly) {
  const zarr::region r{{2, 5}, {11, 14}};
  const auto check = [&](const std::vector<zarr::cell_part>& parts, auto origin, int expected_cells) {
    std::vector<int> seen(20 * 20, 0);
    for (const auto& p : parts)
      for (auto y = p.in_cell.start[0]; y < p.in_cell.stop[0]; ++y)
        for (auto x = p.in_cell.start[1]; x < p.in_cell.stop[1]; ++x) {
          const auto ay = origin(0, p.cell[0]) + y, ax = origin(1, p.cell[1]) + x;
          BOOST_TEST(ay - r.start[0] == p.in_region[0] + (y - p.in_cell.start[0]));
          BOOST_TEST(ax - r.start[1] == p.in_region[1] + (x - p.in_cell.start[1]));
          ++seen[ay * 20 + ax];
        }
    BOOST_TEST(static_cast<int>(parts.size()) == expected_cells);
    int bad = 0;
    for (std::size_t y = 0; y < 20; ++y)
      for (std::size_t x = 0; x < 20; ++x) bad += seen[y * 20 + x] != ((y >= 2 && y < 11 && x >= 5 && x < 14) ? 1 : 0);
    BOOST_TEST(bad == 0);
  };
  std::vector<zarr::cell_part> regular;
  const std::vector<std::uint64_t> cell{3, 4};
  zarr::for_each_cell_part(cell, r, [&](const zarr::cell_part& p) { regular.push_back(p); });
  // Rows 2..10 meet cells 0..3; columns 5..13 meet cells 1..3.
  check(regular, [&](std::size_t i, std::uint64_t c) { return c * cell[i]; }, 4 * 3);
  // Columns in cells [0, 1), [1, 6), [6, 8), [8, 13), [13, 20): columns 5..13 meet cells 1..4.
  const std::vector<zarr::grid_axis> grid{{.step = 3, .ends = {}}, {.step = 0, .ends = {1, 6, 8, 13, 20}}};
  const std::vector<std::uint64_t> column_origin{0, 1, 6, 8, 13};
  check(zarr::cell_parts(grid, r), [&](std::size_t i, std::uint64_t c) { return i == 0 ? c * 3 : column_origin[c]; }, 4 * 4);
  BOOST_TEST(grid[1].cell_of(0) == 0u);
  BOOST_TEST(grid[1].cell_of(5) == 1u);
  BOOST_TEST(grid[1].cell_of(6) == 2u);
  BOOST_TEST(grid[1].cell_of(19) == 4u);
  BOOST_TEST(grid[1].edge(3) == 5u);
}

BOOST_AUTO_TEST_CASE(kept_cell_parts_are_the_parts_of_the_region_and_a_walk_within_a_walk_keeps_its_own) {
  using v = std::vector<std::uint64_t>;
  const auto expect = [](const zarr::cell_part& p, const v& cell, const v& start, const v& stop, const v& in_region) {
    BOOST_TEST(p.cell == cell, boost::test_tools::per_element());
    BOOST_TEST(p.in_cell.start == start, boost::test_tools::per_element());
    BOOST_TEST(p.in_cell.stop == stop, boost::test_tools::per_element());
    BOOST_TEST(p.in_region == in_region, boost::test_tools::per_element());
  };
  const v cell{4, 4};
  {
    // Rows 1..5 meet cells 0 and 1 (rows 0..3, 4..7); columns 3..4 meet cells 0 and 1.
    const zarr::kept_cell_parts outer(cell, {{1, 3}, {6, 5}});
    {
      const zarr::kept_cell_parts inner(cell, {{0, 0}, {1, 1}});
      BOOST_TEST(inner.size() == 1u);
      expect(inner[0], {0, 0}, {0, 0}, {1, 1}, {0, 0});
    }
    BOOST_TEST(outer.size() == 4u);
    expect(outer[0], {0, 0}, {1, 3}, {4, 4}, {0, 0});
    expect(outer[1], {0, 1}, {1, 0}, {4, 1}, {0, 1});
    expect(outer[2], {1, 0}, {0, 3}, {2, 4}, {3, 0});
    expect(outer[3], {1, 1}, {0, 0}, {2, 1}, {3, 1});
  }
  // The next walk at that depth uses the same vector again, and has only its own part.
  const zarr::kept_cell_parts next(cell, {{5, 5}, {6, 6}});
  BOOST_TEST(next.all().size() == 1u);
  expect(next[0], {1, 1}, {1, 1}, {2, 2}, {0, 0});
}

BOOST_AUTO_TEST_CASE(a_window_that_is_all_of_a_view_is_that_view_and_any_other_is_made) {
  std::vector<std::byte> data(4 * 6);
  const auto view = zarr::array_view::c_order(data.data(), std::vector<std::uint64_t>{4, 6}, 1);
  std::optional<zarr::array_view> made;
  // A box of the view's extent at its origin: the view itself.
  BOOST_TEST(&view.window(std::vector<std::uint64_t>{0, 0}, zarr::region{{2, 0}, {6, 6}}, made) == &view);
  BOOST_TEST(!made.has_value());
  const auto& w = view.window(std::vector<std::uint64_t>{1, 2}, zarr::region{{0, 0}, {2, 3}}, made);
  BOOST_TEST(&w == &*made);
  BOOST_TEST(w.data == data.data() + 1 * 6 + 2);
  BOOST_TEST(w.shape == (std::vector<std::uint64_t>{2, 3}), boost::test_tools::per_element());
  BOOST_TEST(w.strides == (std::vector<std::int64_t>{6, 1}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(all_equal_compares_whole_elements) {
  const auto fill = zarr::scalar::of(zarr::data_type::uint16, std::uint16_t{0x0101});
  std::vector<std::uint16_t> v(1000, 0x0101);
  const auto bytes = [&] { return std::as_bytes(std::span(v)); };
  BOOST_TEST(zarr::all_equal(bytes(), fill));
  v[999] = 0x0102;
  BOOST_TEST(!zarr::all_equal(bytes(), fill));
  v.assign(1000, 0x0202);  // equal to each other, not to the fill value
  BOOST_TEST(!zarr::all_equal(bytes(), fill));
  BOOST_TEST(zarr::all_equal({}, fill));
}

BOOST_AUTO_TEST_SUITE_END()
