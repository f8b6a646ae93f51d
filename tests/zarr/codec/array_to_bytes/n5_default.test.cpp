// n5_default (zarr-extensions codecs/n5_default): N5 default-mode blocks written by zarr-python
// 2's N5Store (run at test time) read exactly through a zarr.json beside their attributes.json,
// and blocks we write read back by N5Store; blocks laid out by hand from the spec's "Header
// format" (a big-endian header, then the values column-major and big-endian), padded and
// truncated blocks, and every header and configuration error.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.store.filesystem;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;
using zarr::data_type;
using zarr::errc;
using zarr_test::chain;
using zarr_test::octets;
using zarr_test::same;
using zarr_test::spec;

namespace {

std::string n5_codecs(std::string_view order, std::string_view more = "") {
  return R"([{"name": "n5_default", "configuration": {"codecs": [{"name": "transpose", "configuration": {"order": )" +
         std::string(order) + R"(}}, {"name": "bytes", "configuration": {"endian": "big"}})" + std::string(more) + "]}}]";
}

std::optional<std::string> n5_peer(const std::string& args) {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_N5_SCRIPT");
  BOOST_TEST_REQUIRE(python != nullptr, "ZARR_PYTHON is set by CTest");
  BOOST_TEST_REQUIRE(script != nullptr, "ZARR_N5_SCRIPT is set by CTest");
  return zarr_test::run_peer(std::string(python) + " " + script + " " + args, "zarr-python 2's N5Store");
}

// A zarr.json for an N5 array: its N5 dimensions and block size as shape and chunk shape (N5's
// order, the transpose making the blocks column-major), v2 chunk keys with "/", fill value 0.
void write_zarr_json(const fs::path& dir, std::string_view type, std::string_view shape, std::string_view chunks,
                     const std::string& codecs) {
  std::ofstream(dir / "zarr.json") << R"({"zarr_format": 3, "node_type": "array", "shape": )" << shape
                                   << R"(, "data_type": ")" << type << R"(", "chunk_grid": {"name": "regular",
      "configuration": {"chunk_shape": )" << chunks << R"(}}, "chunk_key_encoding": {"name": "v2", "configuration":
      {"separator": "/"}}, "fill_value": 0, "codecs": )" << codecs << "}";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(n5_default)

BOOST_AUTO_TEST_CASE(reads_and_writes_the_blocks_of_zarr_python_2s_n5_store) {
  const auto dir = zarr_test::scratch_dir();
  if (!n5_peer("write '" + dir.string() + "'")) return;
  const auto raw_codecs = n5_codecs("[1, 0]");
  const auto gzip_codecs = n5_codecs("[2, 1, 0]", R"(, {"name": "gzip", "configuration": {"level": 5}})");
  write_zarr_json(dir / "raw.n5", "uint16", "[7, 5]", "[3, 2]", raw_codecs);
  write_zarr_json(dir / "gzip.n5", "float64", "[5, 3, 4]", "[2, 2, 3]", gzip_codecs);
  // NumPy's (5, 7) array arange(35) is N5's [7, 5]: element [x, y] here is NumPy's [y, x].
  const auto raw = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir / "raw.n5"), "");
  std::vector<std::uint16_t> u16(35);
  raw.read(zarr::region::all(raw.metadata().shape), std::as_writable_bytes(std::span(u16)));
  for (std::size_t x = 0; x < 7; ++x)
    for (std::size_t y = 0; y < 5; ++y) BOOST_TEST(u16[x * 5 + y] == y * 7 + x);
  const auto gz = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir / "gzip.n5"), "");
  std::vector<double> f64(60);
  gz.read(zarr::region::all(gz.metadata().shape), std::as_writable_bytes(std::span(f64)));
  for (std::size_t a = 0; a < 5; ++a)
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t c = 0; c < 4; ++c) BOOST_TEST(f64[(a * 3 + b) * 4 + c] == static_cast<double>(c * 15 + b * 5 + a) / 4);

  // Our blocks, under N5Store's attributes.json: it reads back what we wrote.
  const auto ours = dir / "ours.n5";
  fs::create_directories(ours);
  fs::copy_file(dir / "gzip.n5" / "attributes.json", ours / "attributes.json");
  write_zarr_json(ours, "float64", "[5, 3, 4]", "[2, 2, 3]", gzip_codecs);
  auto written = zarr::array::open(std::make_shared<zarr::filesystem_store>(ours), "");
  std::vector<double> mine(60);
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = 1000.5 - static_cast<double>(i * i);
  written.write(zarr::region::all(written.metadata().shape), std::as_bytes(std::span(mine)));
  const auto out = n5_peer("read '" + ours.string() + "'");
  if (!out) return;
  const auto peer = json::parse(*out).as_object();
  BOOST_TEST(json::serialize(peer.at("shape")) == "[4,3,5]");
  const auto& values = peer.at("values").as_array();
  BOOST_TEST_REQUIRE(values.size() == 60u);
  for (std::size_t a = 0; a < 5; ++a)
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t c = 0; c < 4; ++c) BOOST_TEST(values[(c * 3 + b) * 5 + a].to_number<double>() == mine[(a * 3 + b) * 4 + c]);
}

BOOST_AUTO_TEST_CASE(lays_out_a_block_as_the_spec_says) {
  // uint16 chunk [2, 3] = {{1, 2, 3}, {4, 5, 6}}: header mode 0, 2 dimensions, 2 and 3; then the
  // values with the first index fastest (the full transpose), big-endian: 1 4 2 5 3 6.
  const auto c = chain(n5_codecs("[1, 0]"), spec({2, 3}, data_type::uint16));
  const auto values = zarr_test::to_bytes(std::vector<std::uint16_t>{1, 2, 3, 4, 5, 6});
  const auto block = octets({0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6});
  BOOST_TEST(same(c.encode(values), block));
  BOOST_TEST(same(c.decode(block), values));
  // one-byte values may leave the bytes codec's endian out
  const auto u8 = chain(R"([{"name": "n5_default", "configuration": {"codecs": [{"name": "transpose", "configuration":
      {"order": [0]}}, {"name": "bytes"}]}}])", spec({3}, data_type::int8));
  BOOST_TEST(same(u8.encode(octets({1, 0xFF, 3})), octets({0, 0, 0, 1, 0, 0, 0, 3, 1, 0xFF, 3})));
}

BOOST_AUTO_TEST_CASE(pads_a_smaller_block_with_the_fill_value_and_truncates_a_larger_one) {
  auto s = spec({3, 2}, data_type::uint8);
  s.fill = zarr::scalar{data_type::uint8, {std::byte{9}}};
  const auto c = chain(n5_codecs("[1, 0]"), s);
  // a block of [2, 1] (column-major 1 2): rows 0-1 of column 0, the rest the fill value
  BOOST_TEST(same(c.decode(octets({0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 1, 2})), octets({1, 9, 2, 9, 9, 9})));
  // a block of [2, 3] (column-major 1 2 3 4 5 6) in a chunk of [3, 2]: the first two columns, padded
  BOOST_TEST(same(c.decode(octets({0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6})), octets({1, 3, 2, 4, 9, 9})));
}

BOOST_AUTO_TEST_CASE(refuses_bad_headers) {
  const auto c = chain(n5_codecs("[1, 0]"), spec({2, 2}, data_type::uint8));
  ZARR_CHECK_ERROR(c.decode(octets({0, 0, 0})), errc::corrupt_chunk, "codecs[0] (n5_default): expected an N5 block header, got 3 bytes");
  ZARR_CHECK_ERROR(c.decode(octets({0, 1, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 4})), errc::unsupported,
                   "expected an N5 block of mode 0 (default), got mode 1 (varlength)");
  ZARR_CHECK_ERROR(c.decode(octets({0, 3, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 4})), errc::corrupt_chunk,
                   "expected an N5 block of mode 0 (default), got mode 3");
  ZARR_CHECK_ERROR(c.decode(octets({0, 0, 0, 3, 0, 0, 0, 2})), errc::corrupt_chunk, "expected an N5 block of 2 dimensions, got 3");
  ZARR_CHECK_ERROR(c.decode(octets({0, 0, 0, 2, 0, 0, 0, 2})), errc::corrupt_chunk, "expected an N5 block header of 12 bytes, got 8");
  ZARR_CHECK_ERROR(c.decode(octets({0, 0, 0, 2, 0, 0, 0, 0, 0x80, 0, 0, 2})), errc::corrupt_chunk,
                   "expected an N5 block of positive dimensions, got 0 in dimension 0");
  ZARR_CHECK_ERROR(c.decode(octets({0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9})), errc::corrupt_chunk,
                   "expected an N5 block of at most the chunk's 4 elements, got a larger one");
  ZARR_CHECK_ERROR(c.decode(octets({0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3})), errc::corrupt_chunk, "");
}

BOOST_AUTO_TEST_CASE(rejects_nested_chains_the_spec_does_not_allow) {
  const auto s = spec({2, 3}, data_type::uint16);
  ZARR_CHECK_ERROR(chain(n5_codecs("[0, 1]"), s), errc::invalid_metadata,
                   "codecs[0].configuration.codecs[0]: expected a transpose codec of order [1,0]");
  ZARR_CHECK_ERROR(chain(R"([{"name": "n5_default", "configuration": {"codecs": [{"name": "transpose", "configuration":
      {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}]}}])", s), errc::invalid_metadata,
                   "codecs[0].configuration.codecs[1]: expected a bytes codec with \"endian\": \"big\"");
  ZARR_CHECK_ERROR(chain(n5_codecs("[1, 0]", R"(, {"name": "gzip"}, {"name": "crc32c"})"), s), errc::invalid_metadata,
                   "codecs[0].configuration.codecs: expected 2 or 3 codecs");
  ZARR_CHECK_ERROR(chain(n5_codecs("[1, 0]", R"(, {"name": "transpose", "configuration": {"order": [1, 0]}})"), s),
                   errc::invalid_metadata, "codecs[0].configuration.codecs[2]");
  ZARR_CHECK_ERROR(chain(R"([{"name": "n5_default", "configuration": {}}])", s), errc::invalid_metadata,
                   "codecs[0].configuration");
  ZARR_CHECK_ERROR(chain(R"([{"name": "n5_default", "configuration": {"codecs": [], "mode": 0}}])", s), errc::invalid_metadata,
                   "codecs[0].configuration.mode");
  ZARR_CHECK_ERROR(chain(n5_codecs("[1, 0]"), spec({2, 3}, data_type::complex64)), errc::unsupported,
                   "expected a data type N5 has (int8-64, uint8-64, float32, float64), got complex64");
}

BOOST_AUTO_TEST_SUITE_END()
