// zarr3 write --input and read --output with raw and npy files: the files are mapped
// (src/cli/io.cpp), so these check the bytes of multi-chunk arrays, regions, empty regions,
// inputs that are too short or too long, outputs that cannot be created or written, and that
// pipes and stdin/stdout still work; and npy files of the time types against NumPy's own.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>
#include "../../support.hpp"
#include "run.hpp"

namespace fs = std::filesystem;
using zarr_test::q;
using zarr_test::zarr3;
using namespace std::string_literals;

namespace {

constexpr std::uint64_t nz = 40, ny = 30, nx = 20;  // chunks of 16 x 16 x 8: 3 x 2 x 3, partial at the edges

std::uint16_t value_at(std::uint64_t z, std::uint64_t y, std::uint64_t x) {
  return static_cast<std::uint16_t>(z * 1000 + y * 31 + x * 7 + 3);
}

// The little-endian bytes of the values of [z0, z1) x [y0, y1) x [x0, x1), in C order.
std::string raw_values(std::uint64_t z0, std::uint64_t z1, std::uint64_t y0, std::uint64_t y1, std::uint64_t x0,
                       std::uint64_t x1) {
  std::string out;
  for (auto z = z0; z < z1; ++z)
    for (auto y = y0; y < y1; ++y)
      for (auto x = x0; x < x1; ++x) {
        const auto v = value_at(z, y, x);
        out.push_back(static_cast<char>(v & 0xff));
        out.push_back(static_cast<char>(v >> 8));
      }
  return out;
}

// The raw values of the whole array, also written to dir/in.raw.
std::string whole_input(const fs::path& dir) {
  auto all = raw_values(0, nz, 0, ny, 0, nx);
  zarr_test::spit(dir / "in.raw", all);
  return all;
}

// A store with an empty uint16 array of nz x ny x nx in chunks of 16 x 16 x 8 (zstd) at `node`.
std::string make_array(const fs::path& dir, const std::string& node = "a") {
  const auto store = dir / "data.zarr";
  zarr_test::spit(dir / "meta.json",
                  R"({"zarr_format":3,"node_type":"array","shape":[40,30,20],"data_type":"uint16","fill_value":0,)"
                  R"("chunk_grid":{"name":"regular","configuration":{"chunk_shape":[16,16,8]}},)"
                  R"("chunk_key_encoding":{"name":"default"},"codecs":[{"name":"bytes","configuration":{"endian":"little"}},)"
                  R"({"name":"zstd","configuration":{"level":1}}]})");
  const auto r = zarr3("create " + q(store) + "#/" + node + " --metadata " + q(dir / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  return q(store) + "#/" + node;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_files)

BOOST_AUTO_TEST_CASE(raw_file_in_and_out_of_a_multi_chunk_array_keeps_every_byte) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  const auto all = whole_input(dir);
  auto r = zarr3("write " + a + " --format raw --input " + q(dir / "in.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.out.find("wrote 24000 uint16 values") != std::string::npos, r.out);
  // An old, longer file at the output path is replaced.
  zarr_test::spit(dir / "out.raw", std::string(100000, 'x'));
  r = zarr3("read " + a + " --format raw --output " + q(dir / "out.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST((zarr_test::slurp(dir / "out.raw") == all));
  BOOST_TEST((zarr3("read " + a + " --format raw").out == all));  // stdout: the same bytes
  // A region across chunks, out to a file and back into another place of another array.
  r = zarr3("read " + a + " --format raw --region 3:25,5:30,2:13 --output " + q(dir / "part.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST((zarr_test::slurp(dir / "part.raw") == raw_values(3, 25, 5, 30, 2, 13)));
  const auto b = make_array(dir, "b");
  r = zarr3("write " + b + " --format raw --region 3:25,5:30,2:13 --input " + q(dir / "part.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST((zarr3("read " + b + " --format raw --region 3:25,5:30,2:13").out == raw_values(3, 25, 5, 30, 2, 13)));
  BOOST_TEST((zarr3("read " + b + " --format raw --region 0:3,:,:").out == std::string(3 * ny * nx * 2, '\0')));
  // The input file is not changed by the write (it is mapped privately).
  BOOST_TEST((zarr_test::slurp(dir / "in.raw") == all));
}

BOOST_AUTO_TEST_CASE(npy_file_in_and_out_of_a_multi_chunk_array_keeps_every_byte) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  const auto all = whole_input(dir);
  BOOST_TEST_REQUIRE(zarr3("write " + a + " --input " + q(dir / "in.raw")).status == 0);
  auto r = zarr3("read " + a + " --output " + q(dir / "out.npy"));  // .npy: npy
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto npy = zarr_test::slurp(dir / "out.npy");
  BOOST_TEST_REQUIRE(npy.size() > all.size());
  const auto header = npy.substr(0, npy.size() - all.size());
  BOOST_TEST(header.starts_with("\x93NUMPY\x01\x00"s));
  BOOST_TEST(header.find("'shape': (40, 30, 20)") != std::string::npos, header);
  BOOST_TEST(header.size() % 64 == 0u);
  BOOST_TEST((npy.substr(header.size()) == all));
  BOOST_TEST((zarr3("read " + a + " --format npy").out == npy));  // stdout: the same bytes
  // Back into another array, then out as raw.
  const auto b = make_array(dir, "b");
  r = zarr3("write " + b + " --input " + q(dir / "out.npy"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST((zarr3("read " + b + " --format raw").out == all));
  // Header then one byte too few, one too many.
  zarr_test::spit(dir / "short.npy", npy.substr(0, npy.size() - 1));
  r = zarr3("write " + b + " --input " + q(dir / "short.npy"));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("expected 48000 bytes of values, got 47999") != std::string::npos, r.err);
  zarr_test::spit(dir / "long.npy", npy + "x");
  r = zarr3("write " + b + " --input " + q(dir / "long.npy"));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("got more") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(empty_regions_make_empty_files_and_read_empty_ones) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  auto r = zarr3("read " + a + " --format raw --region 5:5,:,: --output " + q(dir / "empty.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(fs::exists(dir / "empty.raw"));
  BOOST_TEST(fs::file_size(dir / "empty.raw") == 0u);
  r = zarr3("read " + a + " --region 5:5,:,: --output " + q(dir / "empty.npy"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto npy = zarr_test::slurp(dir / "empty.npy");
  BOOST_TEST(npy.find("'shape': (0, 30, 20)") != std::string::npos, npy);
  BOOST_TEST(npy.size() % 64 == 0u);  // the header alone
  r = zarr3("write " + a + " --format raw --region 5:5,:,: --input " + q(dir / "empty.raw"));
  BOOST_TEST(r.status == 0, r.err);
  r = zarr3("write " + a + " --region :,3:3,: --input " + q(dir / "empty.npy"));  // the shape must match
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("shape") != std::string::npos, r.err);
  r = zarr3("write " + a + " --region :,3:3,: --format raw --input " + q(dir / "empty.npy"));  // bytes left over
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("expected 0 bytes of values, got more") != std::string::npos, r.err);
  BOOST_TEST((zarr3("read " + a + " --format raw").out == std::string(nz * ny * nx * 2, '\0')));  // nothing written
}

BOOST_AUTO_TEST_CASE(an_output_in_a_missing_folder_is_a_clear_error) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  for (const auto* name : {"out.raw", "out.npy", "out.json"}) {
    const auto r = zarr3("read " + a + " --output " + q(dir / "missing" / name));
    BOOST_TEST(r.status == 1, name);
    BOOST_TEST(r.err.find("output \"" + (dir / "missing" / name).string() + "\": cannot create it") != std::string::npos, r.err);
  }
  const auto r = zarr3("read " + a + " --format raw --output " + q(dir / "missing" / "out.raw"));
  BOOST_TEST(r.err.find("No such file or directory") != std::string::npos, r.err);
  BOOST_TEST(!fs::exists(dir / "missing"));
  const auto w = zarr3("write " + a + " --format raw --input " + q(dir / "missing" / "in.raw"));
  BOOST_TEST(w.status == 1);
  BOOST_TEST(w.err.find("cannot open it: No such file or directory") != std::string::npos, w.err);
}

BOOST_AUTO_TEST_CASE(a_full_device_is_an_error_and_is_left_in_place) {
  if (!fs::exists("/dev/full")) {
    BOOST_TEST_MESSAGE("no /dev/full: skipped");
    return;
  }
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  static_cast<void>(whole_input(dir));
  BOOST_TEST_REQUIRE(zarr3("write " + a + " --input " + q(dir / "in.raw")).status == 0);
  for (const auto* format : {"raw", "npy"}) {
    const auto r = zarr3("read " + a + " --format " + format + " --output /dev/full");
    BOOST_TEST(r.status == 1, format);
    BOOST_TEST(r.err.find("No space left on device") != std::string::npos, r.err);
  }
  BOOST_TEST(fs::is_character_file("/dev/full"));
}

BOOST_AUTO_TEST_CASE(stdin_pipes_and_stdout_still_work) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  const auto all = whole_input(dir);
  auto r = zarr3("write " + a + " --format raw --input - < " + q(dir / "in.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST((zarr3("read " + a + " --format raw --output -").out == all));
  const auto b = make_array(dir, "b");
  // A pipe as the input file: not mapped, read as a stream.
  r = zarr3("write " + b + " --format raw --input /dev/stdin < " + q(dir / "in.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto piped = "cat " + q(dir / "in.raw") + " | " + ZARR3_EXE + " write " + b + " --format raw --input - >/dev/null";
  BOOST_TEST(std::system(piped.c_str()) == 0);
  BOOST_TEST((zarr3("read " + b + " --format raw").out == all));
}

BOOST_AUTO_TEST_CASE(threads_option_anywhere_gives_the_same_bytes) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  const auto all = whole_input(dir);
  BOOST_TEST_REQUIRE(zarr3("--threads 1 write " + a + " --input " + q(dir / "in.raw")).status == 0);
  BOOST_TEST((zarr3("--threads 1 read " + a + " --format raw").out == all));
  BOOST_TEST((zarr3("read " + a + " --format raw --threads=2").out == all));
  BOOST_TEST(zarr3("read " + a + " --threads 3 --output " + q(dir / "o.raw")).status == 0);
  BOOST_TEST((zarr_test::slurp(dir / "o.raw") == all));
  for (const auto* bad : {"--threads 0", "--threads x", "--threads=", "--threads"}) {
    const auto r = zarr3("read " + a + " " + bad);
    BOOST_TEST(r.status == 2, bad);
    BOOST_TEST(r.err.find("--threads") != std::string::npos, r.err);
  }
  BOOST_TEST(zarr3("help").out.find("--threads") != std::string::npos);
}

// --cache-bytes N, anywhere on the line: the same values through a cache of shard indexes.
BOOST_AUTO_TEST_CASE(cache_bytes_option_gives_the_same_bytes) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  const auto all = whole_input(dir);
  BOOST_TEST_REQUIRE(zarr3("write " + a + " --input " + q(dir / "in.raw")).status == 0);
  BOOST_TEST((zarr3("--cache-bytes 1048576 read " + a + " --format raw").out == all));
  BOOST_TEST((zarr3("read " + a + " --format raw --cache-bytes=4096").out == all));
  for (const auto* bad : {"--cache-bytes 0", "--cache-bytes x", "--cache-bytes"}) {
    const auto r = zarr3("read " + a + " " + bad);
    BOOST_TEST(r.status == 2, bad);
    BOOST_TEST(r.err.find("--cache-bytes") != std::string::npos, r.err);
  }
  BOOST_TEST(zarr3("help").out.find("--cache-bytes N") != std::string::npos);
}

// --inner-chunk-order morton: a 4 x 4 uint8 shard of 1 x 1 inner chunks holds the values 1..16
// in Morton order (row bit 1, column bit 1, row bit 0, column bit 0), then its index; c, the
// default, in C order; both read back the same. Anything else is a usage error.
BOOST_AUTO_TEST_CASE(inner_chunk_order_option_lays_out_the_shards) {
  const auto dir = zarr_test::scratch_dir();
  zarr_test::spit(dir / "meta.json",
                  R"({"zarr_format":3,"node_type":"array","shape":[4,4],"data_type":"uint8","fill_value":0,)"
                  R"("chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4,4]}},)"
                  R"("chunk_key_encoding":{"name":"default"},"codecs":[{"name":"sharding_indexed","configuration":)"
                  R"({"chunk_shape":[1,1],"codecs":[{"name":"bytes"}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}}]})");
  std::string values;
  for (char v = 1; v <= 16; ++v) values.push_back(v);
  zarr_test::spit(dir / "in.raw", values);
  const std::string morton = {1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16};
  for (const auto& [flag, expected] : {std::pair{""s, values}, std::pair{" --inner-chunk-order c"s, values},
                                       std::pair{" --inner-chunk-order morton"s, morton}}) {
    BOOST_TEST_CONTEXT(flag) {
      const auto store = dir / ("s" + std::to_string(flag.size()) + ".zarr");
      BOOST_TEST_REQUIRE(zarr3("create " + q(store) + " --metadata " + q(dir / "meta.json")).status == 0);
      const auto w = zarr3("write " + q(store) + " --input " + q(dir / "in.raw") + " --format raw" + flag);
      BOOST_TEST_REQUIRE(w.status == 0, w.err);
      BOOST_TEST(zarr_test::slurp(store / "c" / "0" / "0").substr(0, 16) == expected);
      BOOST_TEST((zarr3("read " + q(store) + " --format raw").out == values));
    }
  }
  const auto r = zarr3("write " + q(dir / "s0.zarr") + " --input " + q(dir / "in.raw") + " --format raw --inner-chunk-order z");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--inner-chunk-order: expected c or morton") != std::string::npos, r.err);
}

// NumPy's .npy files of datetime64 and timedelta64 (tests/interop/numpy_datetime.py: units,
// scale factors, NaT, both byte orders) written with zarr3 write --input, read back as raw
// counts, saved with zarr3 read --output and loaded by NumPy again: the same dtype and counts.
BOOST_AUTO_TEST_CASE(npy_files_of_the_time_types_go_through_numpy_both_ways) {
  const auto dir = zarr_test::scratch_dir();
  const char* python = std::getenv("ZARR_PYTHON2");
  const char* script = std::getenv("ZARR_NUMPY_DATETIME_SCRIPT");
  BOOST_TEST_REQUIRE(script != nullptr, "ZARR_NUMPY_DATETIME_SCRIPT is set by CTest");
  const auto numpy = dir / "numpy";
  BOOST_TEST_REQUIRE(python != nullptr, "ZARR_PYTHON2 is set by CTest");
  const auto py = std::string(python) + " " + q(script) + " ";
  if (!zarr_test::peer_ran(std::system((py + q(numpy) + " >&2").c_str()), "NumPy writing the datetime files")) return;
  BOOST_TEST_REQUIRE(fs::exists(numpy / "cases.json"));
  const auto cases = boost::json::parse(zarr_test::slurp(numpy / "cases.json")).as_array();
  BOOST_TEST_REQUIRE(cases.size() >= 8u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i].as_object();
    const std::string dtype(c.at("dtype").as_string());  // "<M8[10us]", ">m8[s]"
    BOOST_TEST_CONTEXT("case " << i << " " << dtype) {
      const auto open = dtype.find('['), digits = dtype.find_first_not_of("0123456789", open + 1);
      const auto scale = digits == open + 1 ? std::string("1") : dtype.substr(open + 1, digits - open - 1);
      const auto unit = dtype.substr(digits, dtype.size() - 1 - digits);
      const auto& counts = c.at("counts").as_array();
      const auto node = q(dir / "t.zarr") + "#/c" + std::to_string(i);
      zarr_test::spit(dir / "meta.json",
                      R"({"zarr_format":3,"node_type":"array","shape":[)" + std::to_string(counts.size()) +
                          R"(],"data_type":{"name":")" + (dtype[1] == 'M' ? "numpy.datetime64" : "numpy.timedelta64") +
                          R"(","configuration":{"unit":")" + unit + R"(","scale_factor":)" + scale +
                          R"(}},"fill_value":0,"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},)"
                          R"("chunk_key_encoding":{"name":"default"},"codecs":[{"name":"bytes","configuration":{"endian":"big"}}]})");
      auto r = zarr3("create " + node + " --metadata " + q(dir / "meta.json"));
      BOOST_TEST_REQUIRE(r.status == 0, r.err);
      const auto in = numpy / (std::to_string(i) + ".npy");
      r = zarr3("write " + node + " --input " + q(in));
      BOOST_TEST_REQUIRE(r.status == 0, r.err);
      std::string expected;  // the counts NumPy holds, little-endian int64
      for (const auto& v : counts) {
        const auto n = static_cast<std::uint64_t>(v.to_number<std::int64_t>());
        for (int b = 0; b < 8; ++b) expected.push_back(static_cast<char>((n >> (8 * b)) & 0xff));
      }
      BOOST_TEST((zarr3("read " + node + " --format raw").out == expected));
      const auto out = dir / ("out" + std::to_string(i) + ".npy");
      r = zarr3("read " + node + " --output " + q(out));
      BOOST_TEST_REQUIRE(r.status == 0, r.err);
      BOOST_TEST(std::system((py + "same " + q(in) + " " + q(out) + " >&2").c_str()) == 0);
      // A file of another unit or type is refused, naming the dtype it expected.
      const auto other = numpy / (std::to_string(i == 0 ? 1 : 0) + ".npy");  // case 0 is "<M8[ns]", 1 ">M8[ns]"
      if (dtype.substr(1) != "M8[ns]") {
        r = zarr3("write " + node + " --input " + q(other));
        BOOST_TEST(r.status == 1, r.out);
        BOOST_TEST(r.err.find("expected dtype '<" + dtype.substr(1) + "'") != std::string::npos, r.err);
      }
    }
  }
}

// Raw bits, fixed_length_utf32 and struct out as raw and npy (docs/decisions.md 58): zarr-python
// 2 writes NumPy's "|V", "<U"/">U" and structured dtypes (tests/interop/zarr_python2_sized.py),
// zarr3 reads each to both, and NumPy loads the npy file with the little-endian dtype and the
// raw file holds the same bytes.
BOOST_AUTO_TEST_CASE(sized_types_read_out_as_raw_and_npy_equal_what_numpy_holds) {
  const auto dir = zarr_test::scratch_dir();
  const char* python = std::getenv("ZARR_PYTHON2");
  const char* script = std::getenv("ZARR_SIZED_SCRIPT");
  BOOST_TEST_REQUIRE((python != nullptr && script != nullptr), "ZARR_PYTHON2 and ZARR_SIZED_SCRIPT are set by CTest");
  const auto py = std::string(python) + " " + q(script) + " ";
  if (!zarr_test::peer_ran(std::system((py + "write " + q(dir) + " >&2").c_str()), "zarr-python 2 writing sized arrays")) return;
  const auto manifest = boost::json::parse(zarr_test::slurp(dir / "manifest.json")).as_object();
  std::vector<std::string> paths;
  for (const auto& c : manifest.at("cases").as_array()) {
    const std::string path(c.at("path").as_string());
    paths.push_back(path);
    for (const char* format : {"npy", "raw"}) {
      const auto r = zarr3("read " + q(dir / "v2.zarr") + "#/" + path + " --format " + format + " --output " +
                           q(dir / (path + "." + format)));
      BOOST_TEST(r.status == 0, path << " " << format << ": " << r.err);
    }
  }
  BOOST_TEST_REQUIRE(paths.size() >= 9u);
  const auto out = zarr_test::run_peer(py + "files " + q(dir / "v2.zarr") + " " + q(dir), "NumPy loading our npy and raw files");
  if (!out) return;
  const auto result = boost::json::parse(*out).as_object();
  for (const auto& path : paths) {
    BOOST_TEST_CONTEXT(path << ": " << boost::json::serialize(result.at(path))) {
      BOOST_TEST(result.at(path).at("npy_equal").as_bool());
      BOOST_TEST(result.at(path).at("raw_equal").as_bool());
    }
  }
  // The header of a struct: NumPy's descr, a list of tuples.
  const auto npy = zarr_test::slurp(dir / "struct_le.npy");
  BOOST_TEST(npy.find("'descr': [('id', '<i4'), ('flags', '|u1'), ('value', '<f8')]") != std::string::npos, npy.substr(0, 128));
  // write takes them as json only.
  const auto r = zarr3("write " + q(dir / "v2.zarr") + "#/v3 --format raw --input " + q(dir / "v3.raw"));
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--format: expected json for an array of r24") != std::string::npos, r.err);
}

// docs/decisions.md 70: the zarr-conformance-tests suite runs `$ZARR_CLI --array_path=DIR`.
BOOST_AUTO_TEST_CASE(array_path_prints_one_value_per_line_as_the_conformance_suite_calls_it) {
  const auto dir = zarr_test::scratch_dir();
  const auto a = make_array(dir);
  const auto all = whole_input(dir);
  BOOST_TEST_REQUIRE(zarr3("write " + a + " --format raw --input " + q(dir / "in.raw")).status == 0);
  std::string expected;
  for (std::size_t i = 0; i < all.size(); i += 2)
    expected += std::to_string(static_cast<unsigned char>(all[i]) | (static_cast<unsigned char>(all[i + 1]) << 8)) + "\n";
  // The array at the root of its directory, as the suite's data/*.zarr are.
  const auto root = dir / "data.zarr" / "a";
  auto r = zarr3("--array_path=" + q(root));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST((r.out == expected));
  BOOST_TEST((zarr3("--array_path " + q(root)).out == expected));
  BOOST_TEST((zarr3("read " + q(root) + " --lines").out == expected));
  // Strings, one JSON string a line.
  zarr_test::spit(dir / "s.json", R"({"zarr_format":3,"node_type":"array","shape":[3],"data_type":"string","fill_value":"",)"
                                  R"("chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},)"
                                  R"("chunk_key_encoding":{"name":"default"},"codecs":[{"name":"vlen-utf8"}]})");
  BOOST_TEST_REQUIRE(zarr3("create " + q(dir / "s.zarr") + " --metadata " + q(dir / "s.json")).status == 0);
  zarr_test::spit(dir / "s.values", R"(["a", "b\nc", ""])");
  BOOST_TEST_REQUIRE(zarr3("write " + q(dir / "s.zarr") + " --input " + q(dir / "s.values")).status == 0);
  BOOST_TEST(zarr3("--array_path=" + q(dir / "s.zarr")).out == "\"a\"\n\"b\\nc\"\n\"\"\n");
  // Errors: a missing array (1), a command beside it and --lines with raw (2).
  r = zarr3("--array_path=" + q(dir / "missing"));
  BOOST_TEST(r.status == 1, r.err);
  r = zarr3("--array_path=" + q(root) + " info");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--array_path: expected no command beside it") != std::string::npos, r.err);
  r = zarr3("read " + q(root) + " --lines --format raw");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--lines: expected --format json") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()
