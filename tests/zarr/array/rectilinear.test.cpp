// The rectilinear chunk grid (zarr-extensions chunk-grids/rectilinear): the spec's examples,
// the property test of the array core on random rectilinear grids (sharding inside them
// included), resizing (docs/decisions.md 50) and documents that must be refused.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "model.hpp"
import zarr.error;
import zarr.dtype;
import zarr.metadata;
import zarr.array;
import zarr.store.memory;
import zarr.nd;

namespace json = boost::json;

namespace {

const char* const little = R"([{"name": "bytes", "configuration": {"endian": "little"}}])";

json::value rectilinear(const char* chunk_shapes) {
  return {{"name", "rectilinear"}, {"configuration", {{"kind", "inline"}, {"chunk_shapes", json::parse(chunk_shapes)}}}};
}

zarr::array_metadata uint16_array(std::vector<std::uint64_t> shape, const char* chunk_shapes, const char* codecs = little) {
  return zarr_test::metadata_with_grid(shape, rectilinear(chunk_shapes), zarr::data_type::uint16, json::parse(codecs));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(rectilinear_grid)

// The spec's "Example": each form of chunk_shapes, with the expansion its comments give.
BOOST_AUTO_TEST_CASE(the_specs_example_expands_as_its_comments_say) {
  const auto m = uint16_array({6, 6, 6, 6, 6}, "[4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]]");
  BOOST_TEST(m.rectilinear);
  // "integer. expands to [4, 4]": one step, the regular rule along that dimension.
  BOOST_TEST(m.chunk_edges[0].empty());
  BOOST_TEST(m.chunk_shape[0] == 4u);
  BOOST_TEST(m.chunk_edges[1] == (std::vector<std::uint64_t>{1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(m.chunk_edges[2] == (std::vector<std::uint64_t>{4, 4}), boost::test_tools::per_element());
  BOOST_TEST(m.chunk_edges[3] == (std::vector<std::uint64_t>{1, 1, 1, 3}), boost::test_tools::per_element());
  BOOST_TEST(m.chunk_edges[4] == (std::vector<std::uint64_t>{4, 4, 4}), boost::test_tools::per_element());
  // Chunks holding elements: [4, 4], [1, 2, 3], [4, 4], [1, 1, 1, 3], and [4, 4] of [4, 4, 4]
  // (the third chunk of the last dimension starts at 8, past the shape).
  BOOST_TEST(m.grid_shape() == (std::vector<std::uint64_t>{2, 3, 2, 4, 2}), boost::test_tools::per_element());
  // Written with every run as [value, count], read back to the same edges.
  const auto written = m.to_json().at("chunk_grid");
  BOOST_TEST(json::serialize(written) ==
             R"({"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":[4,[1,2,3],[[4,2]],[[1,3],3],[[4,3]]]}})");
  const auto again = zarr::array_metadata::parse(json::parse(m.to_text()));
  BOOST_TEST(again.chunk_edges == m.chunk_edges);
  BOOST_TEST(again.chunk_shape == m.chunk_shape, boost::test_tools::per_element());
}

// The spec's "Indexing": edge lengths [[16, 10], [24, 14]]; array index (20, 15) is in chunk
// (1, 0), at (4, 15) within it.
BOOST_AUTO_TEST_CASE(the_specs_indexing_example_finds_its_chunk) {
  auto a = zarr::array::create(std::make_shared<zarr::memory_store>(), "",
                               uint16_array({26, 38}, "[[16, 10], [24, 14]]"));
  const std::uint16_t v = 4321;
  a.write(zarr::region{{20, 15}, {21, 16}}, std::as_bytes(std::span(&v, 1)));
  int chunks = 0;
  a.for_each_chunk([&](std::span<const std::uint64_t> index, const zarr::region& r) {
    ++chunks;
    BOOST_TEST(index[0] == 1u);
    BOOST_TEST(index[1] == 0u);
    BOOST_TEST(r.start == (std::vector<std::uint64_t>{16, 0}), boost::test_tools::per_element());
    BOOST_TEST(r.stop == (std::vector<std::uint64_t>{26, 24}), boost::test_tools::per_element());
  });
  BOOST_TEST(chunks == 1);
  // The chunk is 10 x 24; the value sits at (4, 15) in it.
  const auto chunk = a.read_chunk(std::vector<std::uint64_t>{1, 0});
  BOOST_TEST(chunk.size() == 10u * 24u * 2u);
  std::uint16_t got = 0;
  std::memcpy(&got, chunk.data() + (4 * 24 + 15) * 2, 2);
  BOOST_TEST(got == v);
  // The chunk (0, 1) is 16 x 14.
  BOOST_TEST(a.read_chunk(std::vector<std::uint64_t>{0, 1}).size() == 16u * 14u * 2u);
}

// The array core's property test on rectilinear grids of every form (model.hpp): 60 arrays,
// a third of them sharded with inner chunks that divide every edge.
BOOST_AUTO_TEST_CASE(random_region_reads_and_writes_match_a_plain_model) {
  zarr_test::random_regions_match_a_plain_model(zarr_test::memory_or_directory(zarr_test::scratch_dir()), 60, true);
}

// Chunks of different shapes, each through sharding: every inner chunk shape must divide
// every chunk's shape, checked when the array is opened.
BOOST_AUTO_TEST_CASE(sharding_inside_needs_inner_chunks_that_divide_every_edge) {
  const char* sharded = R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])";
  auto a = zarr::array::create(std::make_shared<zarr::memory_store>(), "", uint16_array({10}, "[[[2, 2], 6]]", sharded));
  std::vector<std::uint16_t> in(10);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(100 + i);
  a.write(zarr::region{{0}, {10}}, std::as_bytes(std::span(in)));
  std::vector<std::uint16_t> out(7);
  a.read(zarr::region{{3}, {10}}, std::as_writable_bytes(std::span(out)));
  for (std::size_t i = 0; i < out.size(); ++i) BOOST_TEST(out[i] == in[3 + i]);
  ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "", uint16_array({10}, "[[[2, 2], 5, 4]]", sharded)),
                   zarr::errc::invalid_metadata, "for chunks of shape [5]: codecs[0].configuration.chunk_shape[0]: expected a divisor of the shard size 5, got 2");
}

// docs/decisions.md 50: resizing keeps the declared edges. A dimension given by one integer
// grows freely; listed edges must still reach the new shape. Shrinking erases the chunks
// outside and resets the border, as with the regular grid.
BOOST_AUTO_TEST_CASE(resizing_keeps_the_edges_and_grows_no_further_than_they_reach) {
  auto s = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(s, "", uint16_array({4, 5}, "[3, [2, 3, 4]]"));
  std::vector<std::uint16_t> ones(20, 1);
  a.write(zarr::region{{0, 0}, {4, 5}}, std::as_bytes(std::span(ones)));
  a.resize(std::vector<std::uint64_t>{40, 9});  // 3 repeats; 2 + 3 + 4 = 9 is as far as the edges reach
  ZARR_CHECK_ERROR(a.resize(std::vector<std::uint64_t>{40, 10}), zarr::errc::invalid_argument,
                   "add up to at least the shape (10), got 9");
  std::vector<std::uint16_t> more(16, 1);
  a.write(zarr::region{{0, 5}, {4, 9}}, std::as_bytes(std::span(more)));
  BOOST_TEST(s->get("c/0/2").has_value());
  a.resize(std::vector<std::uint64_t>{4, 3});  // the chunks of columns [5, 9) go; columns 3-4 of [2, 5) are reset
  BOOST_TEST(!s->get("c/0/2").has_value());
  BOOST_TEST(!s->get("c/1/2").has_value());
  BOOST_TEST(s->get("c/0/1").has_value());
  a.resize(std::vector<std::uint64_t>{4, 5});
  std::vector<std::uint16_t> out(20);
  a.read(zarr::region{{0, 0}, {4, 5}}, std::as_writable_bytes(std::span(out)));
  for (std::size_t i = 0; i < 20; ++i) BOOST_TEST(out[i] == (i % 5 < 3 ? 1 : 0), "element " << i);
  BOOST_TEST(zarr::array::open(s, "").metadata().chunk_edges[1] == (std::vector<std::uint64_t>{2, 3, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(documents_that_break_the_spec_are_refused_naming_the_field) {
  using zarr::errc;
  ZARR_CHECK_ERROR(uint16_array({6}, "[[1, 2, 2]]"), errc::invalid_metadata,
                   "chunk_shapes[0]: expected edge lengths that add up to at least the shape (6), got 5");
  ZARR_CHECK_ERROR(uint16_array({6}, "[0]"), errc::invalid_metadata, "chunk_shapes[0]: expected a positive integer, got 0");
  ZARR_CHECK_ERROR(uint16_array({6}, "[[3, 0, 3]]"), errc::invalid_metadata, "chunk_shapes[0][1]: expected a positive integer");
  ZARR_CHECK_ERROR(uint16_array({6}, "[[[3, 0]]]"), errc::invalid_metadata, "chunk_shapes[0][0][1]: expected a positive integer");
  ZARR_CHECK_ERROR(uint16_array({6}, "[[[3]]]"), errc::invalid_metadata, "an edge length or a run [edge length, count]");
  ZARR_CHECK_ERROR(uint16_array({6}, "[[[3, 1, 1]]]"), errc::invalid_metadata, "an edge length or a run");
  ZARR_CHECK_ERROR(uint16_array({6}, "[[]]"), errc::invalid_metadata, "a non-empty array of edge lengths");
  ZARR_CHECK_ERROR(uint16_array({6}, "[[-1, 7]]"), errc::invalid_metadata, "a non-negative integer");
  ZARR_CHECK_ERROR(uint16_array({6, 6}, "[6]"), errc::invalid_metadata, "expected 2 dimensions (the rank of shape), got 1");
  // A run that would expand past what memory holds (docs/decisions.md 50).
  ZARR_CHECK_ERROR(uint16_array({6}, "[[[1, 1099511627776]]]"), errc::unsupported, "at most 1048576 edge lengths");
  // Edge lengths whose sum overflows 64 bits.
  ZARR_CHECK_ERROR(uint16_array({6}, "[[18446744073709551615, 1]]"), errc::invalid_metadata, "sum fits in 64 bits");
  // A chunk of more bytes than 64 bits count.
  ZARR_CHECK_ERROR(uint16_array({6, 6}, "[[4294967296, 1], [4294967296, 1]]"), errc::invalid_metadata, "fits in 64 bits");
  const auto with_config = [](const char* config) {
    return zarr_test::metadata_with_grid({6}, {{"name", "rectilinear"}, {"configuration", json::parse(config)}},
                                         zarr::data_type::uint16, json::parse(little));
  };
  ZARR_CHECK_ERROR(with_config(R"({"kind": "run-length", "chunk_shapes": [6]})"), errc::unsupported,
                   R"(kind: expected "inline" (the only kind defined), got "run-length")");
  ZARR_CHECK_ERROR(with_config(R"({"chunk_shapes": [6]})"), errc::invalid_metadata, "kind");
  ZARR_CHECK_ERROR(with_config(R"({"kind": "inline"})"), errc::invalid_metadata, "chunk_shapes");
  ZARR_CHECK_ERROR(with_config(R"({"kind": "inline", "chunk_shape": [6]})"), errc::invalid_metadata, "chunk_shape");
  // More than 4096 different chunk shapes: refused when the array is opened (decision 50).
  std::string many = "[[";
  for (int i = 1; i <= 65; ++i) many += (i > 1 ? ", " : "") + std::to_string(i);
  many += "], [";
  for (int i = 1; i <= 65; ++i) many += (i > 1 ? ", " : "") + std::to_string(i);
  many += "]]";
  const auto lots = uint16_array({2145, 2145}, many.c_str());
  ZARR_CHECK_ERROR(zarr::array::create(std::make_shared<zarr::memory_store>(), "", lots), errc::unsupported,
                   "at most 4096 different chunk shapes");
  // Zarr v2 has only the regular grid.
  auto v2 = uint16_array({6}, "[[2, 4]]");
  v2.zarr_format = 2;
  ZARR_CHECK_ERROR(v2.to_text(), errc::unsupported, "expected a regular chunk grid (Zarr v2 has no other)");
}

BOOST_AUTO_TEST_SUITE_END()
