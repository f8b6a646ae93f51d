// Every zarr3 command on arrays of every chunk grid form (regular; rectilinear as integers,
// an explicit edge list, runs, edges past the shape; sharded inside) and several data type
// classes: values against the library's reads and against chunks made here from the specs
// (the bytes codec: little-endian, C order, a chunk's whole edge lengths with the fill value
// past the array's shape), and no command ends by a signal.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "../../support.hpp"
#include "run.hpp"
import zarr.array;
import zarr.store.filesystem;
import zarr.nd;

namespace fs = std::filesystem;
using zarr_test::q;
using zarr_test::zarr3;

namespace {

const std::vector<std::uint64_t> shape{26, 10, 7};

// A chunk grid form: its zarr.json member, its edges per dimension written out here (covering
// the shape, the last one possibly past it), how zarr3 shows it, and the codecs.
struct grid_form {
  std::string name;
  std::string chunk_grid;
  std::vector<std::vector<std::uint64_t>> edges;
  std::string shown;   // info's and tree's text of the grid
  bool bytes_only;     // the stored chunks are the bytes codec's output, checked byte for byte
  std::string codecs;
};

const std::string bytes_codec = R"({"name":"bytes","configuration":{"endian":"little"}})";

std::string rectilinear(const std::string& chunk_shapes) {
  return R"({"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":)" + chunk_shapes + "}}";
}

std::vector<grid_form> grid_forms() {
  const std::string plain = "[" + bytes_codec + "]";
  return {
      {"regular", R"({"name":"regular","configuration":{"chunk_shape":[16,4,3]}})",
       {{16, 16}, {4, 4, 4}, {3, 3, 3}}, "[16, 4, 3]", true, plain},
      {"rectilinear integers", rectilinear("[[16,10],4,3]"), {{16, 10}, {4, 4, 4}, {3, 3, 3}},
       "rectilinear [[16, 10], 4, 3]", true, plain},
      {"rectilinear explicit", rectilinear("[[16,10],[4,4,2],[1,1,1,3,1]]"), {{16, 10}, {4, 4, 2}, {1, 1, 1, 3, 1}},
       "rectilinear [[16, 10], [[4, 2], 2], [[1, 3], 3, 1]]", true, plain},
      {"rectilinear runs", rectilinear("[[[13,2]],[[4,2],2],[[1,3],[2,2]]]"), {{13, 13}, {4, 4, 2}, {1, 1, 1, 2, 2}},
       "rectilinear [[[13, 2]], [[4, 2], 2], [[1, 3], [2, 2]]]", true, plain},
      {"rectilinear overflow", rectilinear("[[16,10],[4,4,4],[1,1,1,3,3]]"), {{16, 10}, {4, 4, 4}, {1, 1, 1, 3, 3}},
       "rectilinear [[16, 10], [[4, 3]], [[1, 3], [3, 2]]]", true, plain},
      {"rectilinear sharded", rectilinear("[[16,10],[4,4,4],[1,1,1,3,3]]"), {{16, 10}, {4, 4, 4}, {1, 1, 1, 3, 3}},
       "rectilinear [[16, 10], [[4, 3]], [[1, 3], [3, 2]]]", false,
       R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[2,2,1],"codecs":[)" + bytes_codec +
           R"(],"index_codecs":[)" + bytes_codec + R"(,{"name":"crc32c"}]}}])"},
  };
}

// A data type class and the little-endian bytes of element i (C order of the whole array).
struct type_form {
  std::string name;  // the data_type member
  std::string fill;  // its fill_value member (all bits zero)
  std::size_t size;
};

const std::vector<type_form> type_forms{
    {"int16", "0", 2}, {"float64", "0.0", 8}, {"bool", "false", 1}, {"complex64", "[0.0, 0.0]", 8}};

std::string element(const type_form& t, std::uint64_t i, std::uint64_t salt) {
  std::string out(t.size, '\0');
  if (t.name == "int16") {
    const auto v = static_cast<std::int16_t>(static_cast<std::int64_t>((i * 37 + salt) % 2001) - 1000);
    std::memcpy(out.data(), &v, 2);
  } else if (t.name == "float64") {
    const double v = static_cast<double>(i) * 0.25 - 50.5 + static_cast<double>(salt);
    std::memcpy(out.data(), &v, 8);
  } else if (t.name == "bool") {
    out[0] = (i + salt) % 3 == 1 ? '\0' : '\1';
  } else {
    const float v[2] = {static_cast<float>(i) * 0.5f + static_cast<float>(salt), -static_cast<float>(i)};
    std::memcpy(out.data(), v, 8);
  }
  return out;
}

// The whole array's values, C order, with `salt` in region `r` only (no salt: everywhere 0).
std::string values(const type_form& t, const zarr::region& r, std::uint64_t salt) {
  std::string out;
  for (std::uint64_t a = 0; a < shape[0]; ++a)
    for (std::uint64_t b = 0; b < shape[1]; ++b)
      for (std::uint64_t c = 0; c < shape[2]; ++c) {
        const bool inside = a >= r.start[0] && a < r.stop[0] && b >= r.start[1] && b < r.stop[1] && c >= r.start[2] &&
                            c < r.stop[2];
        out += element(t, (a * shape[1] + b) * shape[2] + c, inside ? salt : 0);
      }
  return out;
}

// The part `r` of the whole array's C-order bytes `all`.
std::string part(const std::string& all, const zarr::region& r, std::size_t size) {
  std::string out;
  for (auto a = r.start[0]; a < r.stop[0]; ++a)
    for (auto b = r.start[1]; b < r.stop[1]; ++b)
      for (auto c = r.start[2]; c < r.stop[2]; ++c)
        out += all.substr(static_cast<std::size_t>((a * shape[1] + b) * shape[2] + c) * size, size);
  return out;
}

// A chunk as the bytes codec stores it (its whole edge lengths; fill value, all zero bits,
// past the array's shape); empty when it holds only the fill value (then not stored).
std::string spec_chunk(const std::string& all, const grid_form& g, const std::vector<std::size_t>& index, std::size_t size) {
  std::uint64_t origin[3] = {0, 0, 0};
  for (std::size_t d = 0; d < 3; ++d)
    for (std::size_t k = 0; k < index[d]; ++k) origin[d] += g.edges[d][k];
  std::string out;
  for (std::uint64_t a = 0; a < g.edges[0][index[0]]; ++a)
    for (std::uint64_t b = 0; b < g.edges[1][index[1]]; ++b)
      for (std::uint64_t c = 0; c < g.edges[2][index[2]]; ++c) {
        const auto x = origin[0] + a, y = origin[1] + b, z = origin[2] + c;
        if (x >= shape[0] || y >= shape[1] || z >= shape[2]) out += std::string(size, '\0');
        else out += all.substr(static_cast<std::size_t>((x * shape[1] + y) * shape[2] + z) * size, size);
      }
  return out.find_first_not_of('\0') == std::string::npos ? std::string() : out;
}

// Every chunk index of the grid that meets the array.
std::vector<std::vector<std::size_t>> chunk_indices(const grid_form& g) {
  std::size_t n[3];
  for (std::size_t d = 0; d < 3; ++d) {
    std::uint64_t end = 0;
    n[d] = 0;
    while (end < shape[d]) end += g.edges[d][n[d]++];
  }
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t a = 0; a < n[0]; ++a)
    for (std::size_t b = 0; b < n[1]; ++b)
      for (std::size_t c = 0; c < n[2]; ++c) out.push_back({a, b, c});
  return out;
}

std::string key_path(const std::vector<std::size_t>& index) {
  return "c/" + std::to_string(index[0]) + "/" + std::to_string(index[1]) + "/" + std::to_string(index[2]);
}

// A command that ran to its end: an exit status, not a signal (the shell reports 128 + N).
zarr_test::run_result run(const std::string& args) {
  auto r = zarr3(args);
  BOOST_TEST((r.status >= 0 && r.status < 128), "zarr3 " << args << " ended by a signal (status " << r.status << "): " << r.err);
  return r;
}

std::string library_read(const fs::path& store, const std::string& node) {
  const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(store), node);
  std::string out(static_cast<std::size_t>(zarr::region::all(a.shape()).num_elements() * a.metadata().element_size()), '\0');
  a.read(zarr::region::all(a.shape()), std::as_writable_bytes(std::span(out)));
  return out;
}

void check_chunks(const fs::path& array_dir, const grid_form& g, const type_form& t, const std::string& all) {
  for (const auto& index : chunk_indices(g)) {
    const auto expected = spec_chunk(all, g, index, t.size);
    const auto file = array_dir / key_path(index);
    BOOST_TEST_CONTEXT("chunk " << key_path(index)) {
      BOOST_TEST(fs::exists(file) == !expected.empty());
      if (!expected.empty()) BOOST_TEST((zarr_test::slurp(file) == expected));
    }
  }
}

void run_every_command(const fs::path& dir, const grid_form& g, const type_form& t) {
  const auto store = dir / "s.zarr";
  const auto at = q(store) + "#/a";
  const std::string meta = R"({"zarr_format":3,"node_type":"array","shape":[26,10,7],"data_type":")" + t.name +
                           R"(","chunk_grid":)" + g.chunk_grid + R"(,"chunk_key_encoding":{"name":"default"},)"
                           R"("fill_value":)" + t.fill + R"(,"codecs":)" + g.codecs + "}";
  zarr_test::spit(dir / "meta.json", meta);
  auto r = run("create " + at + " --metadata " + q(dir / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);

  // An array with no chunk: read gives the fill value, verify finds nothing.
  r = run("read " + at + " --format raw --output " + q(dir / "empty.raw"));
  BOOST_TEST(r.status == 0, r.err);
  const auto whole = zarr::region::all(shape);
  const std::string zeros(static_cast<std::size_t>(whole.num_elements()) * t.size, '\0');
  BOOST_TEST((zarr_test::slurp(dir / "empty.raw") == zeros));

  // write (a mapped raw file) of the whole array, then a region across chunk edges (json).
  auto all = values(t, whole, 0);
  zarr_test::spit(dir / "all.raw", all);
  r = run("write " + at + " --format raw --input " + q(dir / "all.raw"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const zarr::region across{{11, 3, 2}, {20, 9, 6}};
  const auto salted = values(t, across, 5);
  zarr_test::spit(dir / "part.raw", part(salted, across, t.size));
  r = run("write " + at + " --format raw --region 11:20,3:9,2:6 < " + q(dir / "part.raw") + " --input -");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  all = salted;

  // The library reads what the CLI wrote; the chunks are the spec's.
  BOOST_TEST((library_read(store, "a") == all));
  if (g.bytes_only) check_chunks(store / "a", g, t, all);

  // read: whole into a mapped file, a region across chunk edges through stdout, json.
  r = run("read " + at + " --format raw --output " + q(dir / "out.raw"));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST((zarr_test::slurp(dir / "out.raw") == all));
  r = run("read " + at + " --format raw --region 5:23,1:10,0:5");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST((r.out == part(all, {{5, 1, 0}, {23, 10, 5}}, t.size)));
  r = run("read " + at + " --format json --output " + q(dir / "out.json"));
  BOOST_TEST(r.status == 0, r.err);
  r = run("create " + q(dir / "copy.zarr") + "#/a --metadata " + q(dir / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = run("write " + q(dir / "copy.zarr") + "#/a --format json --input " + q(dir / "out.json"));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST((library_read(dir / "copy.zarr", "a") == all));

  // info: the grid's edges, the chunk count, the decoded bytes of each stored chunk's own shape.
  const auto chunks = chunk_indices(g);
  std::uint64_t stored = 0, decoded = 0, stored_bytes = 0;
  for (const auto& index : chunks) {
    const auto file = store / "a" / key_path(index);
    if (!fs::exists(file)) continue;
    ++stored;
    stored_bytes += fs::file_size(file);
    decoded += g.edges[0][index[0]] * g.edges[1][index[1]] * g.edges[2][index[2]] * t.size;
  }
  if (g.bytes_only) BOOST_TEST(decoded == stored_bytes);
  r = run("info " + at);
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find(g.shown + " (grid ") != std::string::npos, r.out);
  BOOST_TEST(r.out.find(std::to_string(chunks.size()) + " chunks)") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("decoded bytes    " + std::to_string(decoded) + " ") != std::string::npos, r.out);
  r = run("info --json " + at);
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto info = boost::json::parse(r.out).as_object();
  BOOST_TEST(info.at("chunks_total").to_number<std::uint64_t>() == chunks.size());
  BOOST_TEST(info.at("chunks_stored").to_number<std::uint64_t>() == stored);
  BOOST_TEST(info.at("stored_bytes").to_number<std::uint64_t>() == stored_bytes);
  BOOST_TEST(info.at("decoded_bytes").to_number<std::uint64_t>() == decoded);
  BOOST_TEST(info.at("compression_ratio").to_number<double>() ==
             static_cast<double>(decoded) / static_cast<double>(stored_bytes));
  if (g.name != "regular") {  // written back with runs of two or more as [edge, count], as shown
    const auto shown = boost::json::parse(g.shown.substr(std::string_view("rectilinear ").size()));
    BOOST_TEST(info.at("chunk_grid").at("configuration").at("chunk_shapes") == shown);
  } else {
    BOOST_TEST(info.at("chunk_shape") == boost::json::parse("[16, 4, 3]"));
  }

  // tree shows the grid.
  r = run("tree " + q(store));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("a  array " + t.name + " [26, 10, 7] chunks " + g.shown + "\n") != std::string::npos, r.out);

  // verify: every chunk good; then one truncated chunk found, and only it.
  r = run("verify " + q(store));
  BOOST_TEST(r.status == 0, r.out << r.err);
  BOOST_TEST(r.out.find("checked " + std::to_string(stored) + " chunks in 1 arrays: 0 bad") != std::string::npos, r.out);

  // convert: the same grid, then a regular one; to Zarr v2 a rectilinear grid is refused.
  r = run("convert " + at + " " + q(dir / "c.zarr") + "#/same");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST((library_read(dir / "c.zarr", "same") == all));
  if (g.bytes_only) check_chunks(dir / "c.zarr" / "same", g, t, all);
  r = run("convert " + at + " " + q(dir / "c.zarr") + "#/regular --chunks 4,2,2");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST((library_read(dir / "c.zarr", "regular") == all));
  const grid_form regular{"", "", {{4, 4, 4, 4, 4, 4, 4}, {2, 2, 2, 2, 2}, {2, 2, 2, 2}}, "", true, ""};
  if (g.bytes_only) check_chunks(dir / "c.zarr" / "regular", regular, t, all);
  r = run("convert " + at + " " + q(dir / "c.zarr") + "#/v2 --format 2");
  if (g.name == "regular") {
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST((library_read(dir / "c.zarr", "v2") == all));
  } else {
    BOOST_TEST(r.status == 1);
    BOOST_TEST(r.err.find("chunk_grid: expected a regular grid (Zarr v2 has no other), got a rectilinear one") !=
                   std::string::npos,
               r.err);
  }

  // consolidate: the array's document, grid included, in the root group's zarr.json.
  r = run("consolidate " + q(store));
  BOOST_TEST(r.status == 0, r.err);
  const auto root = boost::json::parse(zarr_test::slurp(store / "zarr.json")).as_object();
  const auto& consolidated = root.at("consolidated_metadata").at("metadata").at("a");
  BOOST_TEST(consolidated.at("chunk_grid") ==
             boost::json::parse(zarr_test::slurp(store / "a" / "zarr.json")).at("chunk_grid"));
  const auto s = zarr::open_consolidated(std::make_shared<zarr::filesystem_store>(store));
  BOOST_TEST(zarr::array::open(s, "a").metadata().rectilinear == (g.name != "regular"));

  // A chunk truncated: verify names it and no other.
  if (g.bytes_only) {
    const auto last = store / "a" / key_path(chunks.back());
    BOOST_TEST_REQUIRE(fs::exists(last));
    fs::resize_file(last, fs::file_size(last) - 1);
    r = run("verify " + q(store));
    BOOST_TEST(r.status == 1);
    BOOST_TEST(r.out.find(": 1 bad") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("chunk \"a/" + key_path(chunks.back()) + "\"") != std::string::npos, r.out);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_grids)

BOOST_AUTO_TEST_CASE(every_command_works_on_every_chunk_grid_form_and_data_type_class) {
  for (const auto& g : grid_forms())
    for (const auto& t : type_forms)
      BOOST_TEST_CONTEXT(g.name << ", " << t.name) {
        const auto dir = zarr_test::scratch_dir() / (g.name + " " + t.name);
        fs::create_directories(dir);
        run_every_command(dir, g, t);
      }
}

// The example of issue 27: the array made by hand from the spec, no command run to make it.
BOOST_AUTO_TEST_CASE(reads_and_verifies_a_rectilinear_array_made_by_hand) {
  const auto dir = zarr_test::scratch_dir();
  const auto array_dir = dir / "s.zarr" / "a";
  fs::create_directories(array_dir);
  zarr_test::spit(dir / "s.zarr" / "zarr.json", R"({"zarr_format":3,"node_type":"group","attributes":{}})");
  zarr_test::spit(array_dir / "zarr.json",
                  R"({"zarr_format":3,"node_type":"array","shape":[26,10,7],"data_type":"uint16",)"
                  R"("chunk_grid":{"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":[[16,10],[4,4,4],[1,1,1,3,3]]}},)"
                  R"("chunk_key_encoding":{"name":"default"},"fill_value":7,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]})");
  const grid_form g{"", "", {{16, 10}, {4, 4, 4}, {1, 1, 1, 3, 3}}, "", true, ""};
  // Every chunk: element (x, y, z) holds x * 100 + y * 10 + z; past the shape, 7.
  for (const auto& index : chunk_indices(g)) {
    std::uint64_t origin[3] = {0, 0, 0};
    for (std::size_t d = 0; d < 3; ++d)
      for (std::size_t k = 0; k < index[d]; ++k) origin[d] += g.edges[d][k];
    std::string chunk;
    for (std::uint64_t a = 0; a < g.edges[0][index[0]]; ++a)
      for (std::uint64_t b = 0; b < g.edges[1][index[1]]; ++b)
        for (std::uint64_t c = 0; c < g.edges[2][index[2]]; ++c) {
          const auto x = origin[0] + a, y = origin[1] + b, z = origin[2] + c;
          const std::uint16_t v = x < 26 && y < 10 && z < 7 ? static_cast<std::uint16_t>(x * 100 + y * 10 + z) : 7;
          chunk += static_cast<char>(v & 0xff);
          chunk += static_cast<char>(v >> 8);
        }
    fs::create_directories((array_dir / key_path(index)).parent_path());
    zarr_test::spit(array_dir / key_path(index), chunk);
  }
  auto r = run("read " + q(dir / "s.zarr") + "#/a --format json --region 14:18,3:5,2:4");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out == "[1432,1433,1442,1443,1532,1533,1542,1543,1632,1633,1642,1643,1732,1733,1742,1743]\n");
  r = run("verify " + q(dir / "s.zarr"));
  BOOST_TEST(r.status == 0, r.out << r.err);
  BOOST_TEST(r.out.find("checked 30 chunks in 1 arrays: 0 bad") != std::string::npos, r.out);
  r = run("info " + q(dir / "s.zarr") + "#/a");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("chunk grid       rectilinear [[16, 10], [[4, 3]], [[1, 3], [3, 2]]] (grid [2, 3, 5], 30 chunks)") !=
                 std::string::npos,
             r.out);
  // 30 chunks of their own shapes: 26 x 12 x 9 elements of 2 bytes.
  BOOST_TEST(r.out.find("decoded bytes    " + std::to_string(26 * 12 * 9 * 2) + " ") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("compression      1.00") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_SUITE_END()
