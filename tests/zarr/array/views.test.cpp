// Reading into and writing from a caller's strided memory (Fortran order, a window of a
// larger buffer, reversed), against the C-order reads and writes as the model; the progress
// callback (counts, cancelling); the walk over stored chunks and which keys are chunk keys.
#include <boost/test/unit_test.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.parallel;
import zarr.store.memory;
import zarr.nd;

namespace {

// 30 x 20 uint32 in 8 x 6 chunks (border chunks partial), through the given codecs.
zarr::array make_array(std::shared_ptr<zarr::store> store, const std::string& codecs) {
  return zarr::array::create(store, "v", zarr::array_metadata::parse(zarr::parse_json(
      R"({"zarr_format": 3, "node_type": "array", "shape": [30, 20], "data_type": "uint32",
          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 6]}},
          "chunk_key_encoding": {"name": "default"}, "fill_value": 7, "codecs": )" + codecs + "}")));
}

const std::vector<std::string> chains = {
    R"([{"name": "bytes", "configuration": {"endian": "little"}}])",
    R"([{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "big"}},
        {"name": "zstd", "configuration": {"level": 1}}])",
    R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 3],
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])"};

}  // namespace

BOOST_AUTO_TEST_SUITE(array_views)

// A region read into a Fortran-order window of a larger buffer holds what a C-order read
// gives, element for element; the rest of the buffer is untouched. Then written back from a
// reversed view, and read again.
BOOST_AUTO_TEST_CASE(reads_and_writes_strided_views_as_c_order_buffers) {
  for (const auto& codecs : chains) {
    BOOST_TEST_CONTEXT(codecs) {
      auto a = make_array(std::make_shared<zarr::memory_store>(), codecs);
      std::vector<std::uint32_t> all(30 * 20);
      std::iota(all.begin(), all.end(), 100u);
      a.write<std::uint32_t>({{0, 0}, {30, 20}}, all);
      a.write<std::uint32_t>({{9, 7}, {10, 8}}, std::vector<std::uint32_t>{7});  // one fill element
      const zarr::region r{{3, 5}, {21, 17}};                                       // 18 x 12, many chunks
      const auto model = a.read<std::uint32_t>(r);
      // A Fortran-order buffer of 20 x 15, the region at (1, 2) in it.
      const std::vector<std::uint64_t> big{20, 15};
      std::vector<std::uint32_t> f(20 * 15, 0xDEADBEEF);
      const auto whole = zarr::array_view::f_order(reinterpret_cast<std::byte*>(f.data()), big, 4);
      const std::vector<std::uint64_t> at{1, 2};
      a.read(r, whole.window(at, r.extent()));
      int bad = 0, outside = 0;
      for (std::uint64_t y = 0; y < 20; ++y)
        for (std::uint64_t x = 0; x < 15; ++x) {
          const auto got = f[x * 20 + y];
          const bool inside = y >= 1 && y < 19 && x >= 2 && x < 14;
          if (inside) bad += got != model[(y - 1) * 12 + (x - 2)];
          else outside += got != 0xDEADBEEF;
        }
      BOOST_TEST(bad == 0);
      BOOST_TEST(outside == 0);
      // Written back reversed along both dimensions: the region then holds the mirror image.
      auto reversed = whole.window(at, r.extent());
      reversed.data += 17 * reversed.strides[0] + 11 * reversed.strides[1];
      reversed.strides[0] = -reversed.strides[0];
      reversed.strides[1] = -reversed.strides[1];
      a.write(r, zarr::const_array_view(reversed));
      const auto mirrored = a.read<std::uint32_t>(r);
      bad = 0;
      for (std::size_t y = 0; y < 18; ++y)
        for (std::size_t x = 0; x < 12; ++x) bad += mirrored[y * 12 + x] != model[(17 - y) * 12 + (11 - x)];
      BOOST_TEST(bad == 0);
      // Outside the region nothing changed.
      BOOST_TEST(a.read<std::uint32_t>({{0, 0}, {3, 20}}) == std::vector<std::uint32_t>(all.begin(), all.begin() + 60),
                 boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(refuses_views_of_another_shape_size_or_with_shared_bytes) {
  auto a = make_array(std::make_shared<zarr::memory_store>(), chains[0]);
  std::vector<std::uint32_t> buffer(64);
  auto* data = reinterpret_cast<std::byte*>(buffer.data());
  const zarr::region r{{0, 0}, {4, 4}};
  ZARR_CHECK_ERROR(a.read(r, zarr::array_view::c_order(data, std::vector<std::uint64_t>{4, 5}, 4)), zarr::errc::invalid_argument,
                   "array \"/v\": output: expected the region's extent as its shape");
  ZARR_CHECK_ERROR(a.read(r, zarr::array_view::c_order(data, std::vector<std::uint64_t>{4, 4}, 2)), zarr::errc::invalid_argument,
                   "output: expected elements of 4 bytes, got 2");
  auto of_strings = zarr::array_view::c_order(data, std::vector<std::uint64_t>{4, 4}, 4);
  of_strings.strings = true;  // std::string objects: read_strings' kind of view
  ZARR_CHECK_ERROR(a.read(r, of_strings), zarr::errc::invalid_argument, "output: expected a view of elements, got one of strings");
  const zarr::array_view rows_overlap{data, {4, 4}, {8, 4}, 4, false};
  ZARR_CHECK_ERROR(a.read(r, rows_overlap), zarr::errc::invalid_argument, "output: expected elements that share no bytes");
  // A source may repeat itself (one row written four times); a destination may not.
  const zarr::const_array_view one_row{data, {4, 4}, {0, 4}, 4, false};
  std::iota(buffer.begin(), buffer.begin() + 4, 1u);
  ZARR_CHECK_ERROR(a.write(r, one_row), zarr::errc::invalid_argument, "input: expected elements that share no bytes");
}

BOOST_AUTO_TEST_CASE(progress_counts_every_chunk_once_and_can_cancel) {
  for (const std::size_t threads : {1u, 2u}) {
    zarr::set_concurrency(threads);
    auto store = std::make_shared<zarr::memory_store>();
    auto a = make_array(store, chains[1]);
    const std::vector<std::uint32_t> all(30 * 20, 3);
    std::vector<std::uint64_t> seen;
    std::uint64_t total = 0;
    a.write<std::uint32_t>({{0, 0}, {30, 20}}, all, {.progress = [&](std::uint64_t done, std::uint64_t n) {
                             seen.push_back(done);
                             total = n;
                             return true;
                           }});
    BOOST_TEST(total == 4u * 4u);  // 30 / 8 -> 4 rows of chunks, 20 / 6 -> 4 columns
    std::vector<std::uint64_t> expected(16);
    std::iota(expected.begin(), expected.end(), 1u);
    BOOST_TEST(seen == expected, boost::test_tools::per_element());
    seen.clear();
    std::vector<std::uint32_t> out(12 * 7);
    a.read({{1, 1}, {13, 8}}, std::as_writable_bytes(std::span(out)), {.progress = [&](std::uint64_t done, std::uint64_t n) {
             seen.push_back(done);
             total = n;
             return true;
           }});
    BOOST_TEST(total == 2u * 2u);
    BOOST_TEST(seen.size() == 4u);
    // Cancelled after the second chunk: the call throws, and no more chunks are started.
    std::atomic<int> calls{0};
    ZARR_CHECK_ERROR(a.write<std::uint32_t>({{0, 0}, {30, 20}}, std::vector<std::uint32_t>(600, 9),
                                            {.progress = [&](std::uint64_t done, std::uint64_t) {
                                              ++calls;
                                              return done < 2;
                                            }}),
                     zarr::errc::cancelled, "array \"/v\": cancelled after ");
    BOOST_TEST(calls.load() <= 2 + static_cast<int>(threads));
    std::size_t nines = 0;
    for (auto v : a.read<std::uint32_t>({{0, 0}, {30, 20}})) nines += v == 9;
    BOOST_TEST(nines > 0u);         // the chunks done before stay written
    BOOST_TEST(nines < 30u * 20u);  // and not all were
  }
  zarr::set_concurrency(0);
}

// The stored chunks with their regions cut at the shape; keys that only look like chunk
// keys (leading zeros, outside the grid, extra parts) are not chunks.
BOOST_AUTO_TEST_CASE(walks_the_stored_chunks_with_their_regions) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = make_array(store, chains[0]);
  a.write<std::uint32_t>({{0, 0}, {1, 1}}, std::vector<std::uint32_t>{1});      // chunk (0, 0)
  a.write<std::uint32_t>({{29, 19}, {30, 20}}, std::vector<std::uint32_t>{1});  // chunk (3, 3): rows 24-29, columns 18-19
  for (const char* junk : {"v/c/01/0", "v/c/4/0", "v/c/0/0/0", "v/c/0", "v/c/x/0", "v/c/0/18446744073709551616", "v/d/0/0"})
    store->set(junk, std::vector<std::byte>(4));
  std::vector<std::string> walked;
  a.for_each_chunk([&](std::span<const std::uint64_t> index, const zarr::region& r) {
    walked.push_back(std::to_string(index[0]) + "," + std::to_string(index[1]) + ": " + std::to_string(r.start[0]) + "-" +
                     std::to_string(r.stop[0]) + " x " + std::to_string(r.start[1]) + "-" + std::to_string(r.stop[1]));
  });
  BOOST_TEST(walked == (std::vector<std::string>{"0,0: 0-8 x 0-6", "3,3: 24-30 x 18-20"}), boost::test_tools::per_element());
  BOOST_TEST(a.chunk_index_of("v/c/3/3").value() == (std::vector<std::uint64_t>{3, 3}), boost::test_tools::per_element());
  BOOST_TEST(!a.chunk_index_of("v/c/01/0"));
  BOOST_TEST(!a.chunk_index_of("c/0/0"));  // another node's
}

BOOST_AUTO_TEST_SUITE_END()
