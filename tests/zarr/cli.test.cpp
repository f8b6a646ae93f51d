// Runs the zarr3 executable end to end: every command, format and error exit.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include "../support.hpp"
#include "cli/run.hpp"
import zarr.metadata;

namespace fs = std::filesystem;
namespace json = boost::json;
using zarr_test::q;
using zarr_test::zarr3;
using namespace std::string_literals;

namespace {

std::string array_metadata(std::string_view type, std::string_view shape, std::string_view chunks,
                           std::string_view fill = "0", std::string_view codecs = R"([{"name":"bytes","configuration":{"endian":"little"}}])") {
  return R"({"zarr_format":3,"node_type":"array","shape":)" + std::string(shape) + R"(,"data_type":")" + std::string(type) +
         R"(","chunk_grid":{"name":"regular","configuration":{"chunk_shape":)" + std::string(chunks) +
         R"(}},"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":)" + std::string(fill) +
         R"(,"codecs":)" + std::string(codecs) + "}";
}

// A store with an int32 array a (4x5, chunks 2x2) holding 0..19 at data.zarr#/g/a.
fs::path make_int_array(const fs::path& dir) {
  const auto store = dir / "data.zarr";
  zarr_test::spit(dir / "meta.json", array_metadata("int32", "[4,5]", "[2,2]"));
  BOOST_TEST_REQUIRE(zarr3("create " + q(store) + "#/g/a --metadata " + q(dir / "meta.json")).status == 0);
  std::string values = "[";
  for (int i = 0; i < 20; ++i) values += (i ? "," : "") + std::to_string(i);
  zarr_test::spit(dir / "values.json", values + "]");
  const auto w = zarr3("write " + q(store) + "#/g/a --input " + q(dir / "values.json"));
  BOOST_TEST_REQUIRE(w.status == 0, w.err);
  return store;
}

// Whether /usr/bin/python3 imports numpy: when it or numpy is missing, a skip (peer_missing);
// when it runs and fails otherwise, a failure.
bool has_python_numpy() {
  static const int status = std::system(
      "/usr/bin/python3 -c 'import sys\ntry:\n    import numpy\nexcept ImportError:\n    sys.exit(3)' >/dev/null 2>&1");
  return zarr_test::peer_ran(status, "/usr/bin/python3 importing numpy");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(demo_writes_a_store_and_reads_it_back) {
  const auto dir = zarr_test::scratch_dir() / "demo.zarr";
  const auto r = zarr3("demo " + dir.string());
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("all as expected") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("compression ratio") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("largest error") != std::string::npos, r.out);
  BOOST_TEST(fs::exists(dir / "zarr.json"));
  BOOST_TEST(fs::exists(dir / "c" / "1" / "1"));
  const auto info = zarr3("info " + q(dir) + " --json");
  BOOST_TEST_REQUIRE(info.status == 0);
  const auto o = zarr::parse_json(info.out).as_object();
  BOOST_TEST(o.at("data_type") == "float64");
  BOOST_TEST(o.at("codecs").as_array().back().at("name") == "zstd");
  BOOST_TEST(o.at("codecs").as_array().front().at("name") == "scale_offset");
  BOOST_TEST(zarr3("verify " + q(dir)).status == 0);
}

BOOST_AUTO_TEST_CASE(prints_its_version_and_help) {
  const auto r = zarr3("--version");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.starts_with("zarr3 "));
  for (const auto* c : {"", "create", "write", "read", "info", "tree", "convert", "verify", "demo", "help"}) {
    const auto h = zarr3(std::string("help ") + c);
    BOOST_TEST(h.status == 0, c);
    BOOST_TEST(h.out.find("zarr3") != std::string::npos, c);
  }
  BOOST_TEST(zarr3("help").out.find("Exit status") != std::string::npos);
  BOOST_TEST(zarr3("read --help").out.find("--region") != std::string::npos);
  BOOST_TEST(zarr3("help frobnicate").status == 2);
}

BOOST_AUTO_TEST_CASE(unknown_commands_and_options_are_usage_errors) {
  BOOST_TEST(zarr3("frobnicate").status == 2);
  BOOST_TEST(zarr3("").status == 2);
  BOOST_TEST(zarr3("demo a b").status == 2);
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  const auto r = zarr3("read " + q(store) + "#/g/a --frob");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--frob") != std::string::npos, r.err);
  BOOST_TEST(zarr3("read").status == 2);                                          // missing PATH
  BOOST_TEST(zarr3("read " + q(store) + "#/g/a --region").status == 2);           // missing value
  BOOST_TEST(zarr3("read " + q(store) + "#/g/a --format xml").status == 2);       // bad format
  BOOST_TEST(zarr3("write " + q(store) + "#/g/a").status == 2);                   // missing --input
  BOOST_TEST(zarr3("create " + q(dir / "x.zarr")).status == 2);                   // missing --metadata
  BOOST_TEST(zarr3("info " + q(store) + " extra").status == 2);                   // extra argument
  BOOST_TEST(zarr3("info " + q(store) + "#/g/__bad").status == 2);                // malformed node path
  BOOST_TEST(zarr3("convert " + q(store) + "#/g/a " + q(dir / "o.zarr") + " --chunks 2,x").status == 2);
  BOOST_TEST(zarr3("convert " + q(store) + "#/g/a " + q(dir / "o.zarr") + " --data-type float99").status == 2);
}

BOOST_AUTO_TEST_CASE(creates_arrays_and_groups_and_validates_before_writing) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = dir / "s.zarr";
  zarr_test::spit(dir / "group.json", R"({"zarr_format":3,"node_type":"group","attributes":{"k":1}})");
  auto r = zarr3("create " + q(store) + " --metadata " + q(dir / "group.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(zarr_test::slurp(store / "zarr.json").find("\"k\"") != std::string::npos);

  // From stdin, with attributes from a file.
  zarr_test::spit(dir / "attrs.json", R"({"units":"m"})");
  zarr_test::spit(dir / "meta.json", array_metadata("float32", "[3]", "[2]"));
  r = zarr3("create " + q(store) + "#/x --metadata - --attrs " + q(dir / "attrs.json") + " < " + q(dir / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(zarr_test::slurp(store / "x" / "zarr.json").find("\"units\"") != std::string::npos);

  // An existing node: data error; with --overwrite: fine.
  r = zarr3("create " + q(store) + "#/x --metadata " + q(dir / "meta.json"));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("exist") != std::string::npos, r.err);
  BOOST_TEST(zarr3("create " + q(store) + "#/x --overwrite --metadata " + q(dir / "meta.json")).status == 0);

  // Invalid documents write nothing, not even the store directory.
  const auto fresh = dir / "fresh.zarr";
  const std::pair<std::string, std::string> bad[] = {
      {"bad codec", array_metadata("int32", "[3]", "[2]", "0", R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":99}}])")},
      {"bad chain", array_metadata("int32", "[3]", "[2]", "0", R"([{"name":"gzip","configuration":{"level":1}}])")},
      {"bad fill", array_metadata("uint8", "[3]", "[2]", "256", R"([{"name":"bytes"}])")},
      {"bad fill text", array_metadata("int8", "[3]", "[2]", "1.5", R"([{"name":"bytes"}])")},
      {"unknown codec", array_metadata("int8", "[3]", "[2]", "0", R"([{"name":"bytes"},{"name":"nope"}])")},
      {"not json", "{"},
      {"rank mismatch", array_metadata("int8", "[3,3]", "[2]", "0", R"([{"name":"bytes"}])")},
  };
  for (const auto& [what, text] : bad) {
    zarr_test::spit(dir / "bad.json", text);
    r = zarr3("create " + q(fresh) + "#/a/b --metadata " + q(dir / "bad.json"));
    BOOST_TEST(r.status == 1, what);
    BOOST_TEST(!r.err.empty(), what);
    BOOST_TEST(r.err.find('\n') == r.err.size() - 1, what << ": one line: " << r.err);
    BOOST_TEST(!fs::exists(fresh), what);
  }
  BOOST_TEST(zarr3("create " + q(fresh) + " --metadata " + q(dir / "missing.json")).status == 1);
  BOOST_TEST(!fs::exists(fresh));
}

BOOST_AUTO_TEST_CASE(writes_and_reads_json_whole_and_by_region) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  auto r = zarr3("read " + q(store) + "#/g/a");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out == "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]\n");
  r = zarr3("read " + q(store) + "#g/a --region 1:3,2:");  // the leading slash is optional
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out == "[7,8,9,12,13,14]\n");
  BOOST_TEST(zarr3("read " + q(store) + "#/g/a --region :,:").out == zarr3("read " + q(store) + "#/g/a").out);
  BOOST_TEST(zarr3("read " + q(store) + "#/g/a --region 2:2,:").out == "[]\n");

  zarr_test::spit(dir / "patch.json", "[ -1 , -2,\n-3,-4 ]");
  r = zarr3("write " + q(store) + "#/g/a --region 0:2,3:5 --input " + q(dir / "patch.json"));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(zarr3("read " + q(store) + "#/g/a --region 0:2,:").out == "[0,1,2,-1,-2,5,6,7,-3,-4]\n");

  // Through stdin, and to a file.
  r = zarr3("write " + q(store) + "#/g/a --region 3:4,: --format json --input - < " + q(dir / "values.json") + "");
  BOOST_TEST(r.status == 1);  // 20 values for a region of 5
  BOOST_TEST(r.err.find("expected 5 values, got more") != std::string::npos, r.err);
  r = zarr3("read " + q(store) + "#/g/a --region 3:4,0:2 --output " + q(dir / "out.json"));
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.err.empty(), r.err);  // no progress bar when stderr is not a terminal
  BOOST_TEST(zarr_test::slurp(dir / "out.json") == "[15,16]\n");
}

BOOST_AUTO_TEST_CASE(regions_malformed_are_usage_errors_outside_are_data_errors) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  for (const auto* bad : {"0:2", "0:2,1:2,0:1", "a:b,:", "1,:", "-1:2,:", "0:2;:", "", "0:2,1:2:3"}) {
    const auto r = zarr3("read " + q(store) + "#/g/a --region '" + bad + "'");
    BOOST_TEST(r.status == 2, bad << ": " << r.err);
  }
  for (const auto* outside : {"0:5,:", "3:2,:", ":,0:6", "9:10,:"}) {
    const auto r = zarr3("read " + q(store) + "#/g/a --region '" + outside + "'");
    BOOST_TEST(r.status == 1, outside << ": " << r.err);
    BOOST_TEST(r.err.find("region") != std::string::npos, r.err);
  }
}

BOOST_AUTO_TEST_CASE(data_errors_name_the_node_and_element) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  zarr_test::spit(dir / "m.json", array_metadata("uint8", "[4]", "[2]", "0", R"([{"name":"bytes"}])"));
  BOOST_TEST_REQUIRE(zarr3("create " + q(store) + "#/u --metadata " + q(dir / "m.json")).status == 0);
  const std::pair<std::string, std::string> cases[] = {
      {"[1,2,256,3]", "element 2"}, {"[1,2,-1,3]", "element 2"}, {"[1,2,3]", "expected more values"},
      {"[1,2,3,4,5]", "got more"},  {"[1,2.5,3,4]", "element 1"}, {"[1,\"x\",3,4]", "element 1"},
      {"{}", "JSON array"},        {"[1,2,3,4] x", "after the array"}, {"[1,,3,4]", "element 1"},
      {"[1,2 3,4]", "element 1"},
  };
  for (const auto& [input, part] : cases) {
    zarr_test::spit(dir / "in.json", input);
    const auto r = zarr3("write " + q(store) + "#/u --input " + q(dir / "in.json"));
    BOOST_TEST(r.status == 1, input);
    BOOST_TEST(r.err.find(part) != std::string::npos, input << ": " << r.err);
    BOOST_TEST(r.err.find("#/u") != std::string::npos, input << ": " << r.err);
  }
  // Nothing was written by the failed attempts (all values are checked before writing).
  BOOST_TEST(zarr3("read " + q(store) + "#/u").out == "[0,0,0,0]\n");
  auto r = zarr3("read " + q(store) + "#/nothing");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("nothing") != std::string::npos, r.err);
  BOOST_TEST(zarr3("read " + q(dir / "no-such-store")).status == 1);
  BOOST_TEST(zarr3("read " + q(store) + "#/g").status == 1);  // a group
  // A chunk that cannot be decoded names the chunk.
  zarr_test::spit(store / "g" / "a" / "c" / "0" / "0", "xx");
  r = zarr3("read " + q(store) + "#/g/a");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("c/0/0") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(raw_format_is_the_bytes_codec_layout) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  auto r = zarr3("read " + q(store) + "#/g/a --format raw --region 0:1,0:3");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out == std::string("\0\0\0\0\1\0\0\0\2\0\0\0", 12));
  zarr_test::spit(dir / "in.raw", std::string("\x07\0\0\0\xff\xff\xff\xff", 8));
  r = zarr3("write " + q(store) + "#/g/a --region 3:4,0:2 --input " + q(dir / "in.raw"));  // .raw: raw
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(zarr3("read " + q(store) + "#/g/a --region 3:4,:").out == "[7,-1,17,18,19]\n");
  zarr_test::spit(dir / "short.bin", std::string("\x07\0\0", 3));
  r = zarr3("write " + q(store) + "#/g/a --region 3:4,0:1 --input " + q(dir / "short.bin"));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("expected 4 bytes") != std::string::npos, r.err);

  // Sub-byte types: one byte each, the value in the low bits.
  zarr_test::spit(dir / "i4.json", array_metadata("int4", "[4]", "[4]", "0", R"([{"name":"bytes"}])"));
  BOOST_TEST_REQUIRE(zarr3("create " + q(store) + "#/i4 --metadata " + q(dir / "i4.json")).status == 0);
  zarr_test::spit(dir / "i4.in.json", "[-8,-1,0,7]");
  BOOST_TEST_REQUIRE(zarr3("write " + q(store) + "#/i4 --input " + q(dir / "i4.in.json")).status == 0);
  BOOST_TEST(zarr3("read " + q(store) + "#/i4 --format raw").out == "\x08\x0f\x00\x07"s);
  zarr_test::spit(dir / "i4.raw", "\xf8\x0f\x00\x17"s);  // upper bits ignored
  BOOST_TEST_REQUIRE(zarr3("write " + q(store) + "#/i4 --input " + q(dir / "i4.raw")).status == 0);
  BOOST_TEST(zarr3("read " + q(store) + "#/i4").out == "[-8,-1,0,7]\n");
  // int4 has no npy form.
  r = zarr3("read " + q(store) + "#/i4 --format npy");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("raw") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(npy_round_trips_and_checks_dtype_and_shape) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  auto r = zarr3("read " + q(store) + "#/g/a --region 1:3,: --output " + q(dir / "a.npy"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto npy = zarr_test::slurp(dir / "a.npy");
  BOOST_TEST(npy.starts_with("\x93NUMPY\x01\x00"s));
  BOOST_TEST(npy.find("'descr': '<i4'") != std::string::npos);
  BOOST_TEST(npy.find("'shape': (2, 5)") != std::string::npos);
  BOOST_TEST((npy.size() - 2 * 5 * 4) % 64 == 0u);
  // Back into another region of the same shape.
  r = zarr3("write " + q(store) + "#/g/a --region 0:2,: --input " + q(dir / "a.npy"));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(zarr3("read " + q(store) + "#/g/a --region 0:2,:").out == "[5,6,7,8,9,10,11,12,13,14]\n");
  // Wrong shape, wrong dtype.
  r = zarr3("write " + q(store) + "#/g/a --region 0:1,: --input " + q(dir / "a.npy"));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("shape") != std::string::npos, r.err);
  zarr_test::spit(dir / "f.json", array_metadata("float64", "[2,5]", "[2,2]"));
  BOOST_TEST_REQUIRE(zarr3("create " + q(store) + "#/f --metadata " + q(dir / "f.json")).status == 0);
  r = zarr3("write " + q(store) + "#/f --input " + q(dir / "a.npy"));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("dtype") != std::string::npos, r.err);
  zarr_test::spit(dir / "junk.npy", "not an npy file");
  BOOST_TEST(zarr3("write " + q(store) + "#/f --input " + q(dir / "junk.npy")).status == 1);
}

BOOST_AUTO_TEST_CASE(npy_agrees_with_numpy) {
  if (!has_python_numpy()) return;  // skipped or failed (peer_ran)
  const auto dir = zarr_test::scratch_dir();
  const auto store = dir / "n.zarr";
  const std::pair<std::string, std::string> cases[] = {
      {"float64", "[1.5,\"NaN\",\"-Infinity\",-0.0,5e-324,1.7976931348623157e308]"},
      {"float16", "[1.5,65504,-0.0,\"Infinity\",6e-8,0.1]"},
      {"complex64", "[[1.5,-2],[0.1,\"NaN\"],[0,0],[3,4],[5,6],[7,8]]"},
      {"uint64", "[0,18446744073709551615,1,2,3,9007199254740993]"},
      {"int64", "[-9223372036854775808,9223372036854775807,0,-1,1,2]"},
      {"bool", "[true,false,true,true,false,false]"},
      {"int8", "[-128,127,0,1,-1,5]"},
  };
  for (const auto& [type, values] : cases) {
    BOOST_TEST_CONTEXT(type) {
      const auto node = q(store) + "#/" + type;
      zarr_test::spit(dir / "m.json", array_metadata(type, "[2,3]", "[1,2]", type == "bool" ? "false" : type == "complex64" ? "[0,0]" : "0"));
      BOOST_TEST_REQUIRE(zarr3("create " + node + " --metadata " + q(dir / "m.json")).status == 0);
      zarr_test::spit(dir / "v.json", values);
      BOOST_TEST_REQUIRE(zarr3("write " + node + " --input " + q(dir / "v.json")).status == 0);
      BOOST_TEST_REQUIRE(zarr3("read " + node + " --output " + q(dir / "ours.npy")).status == 0);
      // numpy reads ours: same values as our json, compared in numpy.
      const std::string check =
          "/usr/bin/python3 -c 'import numpy as np, json, sys\n"
          "a = np.load(sys.argv[1]); v = json.loads(open(sys.argv[2]).read())\n"
          "conv = lambda x: float(x) if isinstance(x, str) else x\n"
          "ref = [complex(conv(x[0]), conv(x[1])) if isinstance(x, list) else conv(x) for x in v]\n"
          "ref = np.array(ref, dtype=a.dtype).reshape(2, 3)\n"
          "ok = a.shape == (2, 3) and a.tobytes() == ref.tobytes() if a.dtype.kind != \"f\" and a.dtype.kind != \"c\" else "
          "a.shape == (2, 3) and np.array_equal(a, ref, equal_nan=True) and (np.signbit(a.real) == np.signbit(ref.real)).all()\n"
          "print(\"same\" if ok else \"different\", a.dtype, a.ravel().tolist())' " +
          q(dir / "ours.npy") + " " + q(dir / "v.json");
      FILE* pipe = ::popen(check.c_str(), "r");
      std::string out;
      char buffer[4096];
      while (const auto n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
      BOOST_TEST(::pclose(pipe) == 0);
      BOOST_TEST(out.starts_with("same"), out);
      // numpy writes an .npy that we read back.
      const std::string make = "/usr/bin/python3 -c 'import numpy as np, sys\n"
                               "a = np.load(sys.argv[1]); np.save(sys.argv[2], np.ascontiguousarray(a[::-1]))' " +
                               q(dir / "ours.npy") + " " + q(dir / "theirs.npy");
      BOOST_TEST_REQUIRE(std::system(make.c_str()) == 0);
      const auto w = zarr3("write " + node + " --input " + q(dir / "theirs.npy"));
      BOOST_TEST_REQUIRE(w.status == 0, w.err);
      const auto first = zarr3("read " + node + " --region 0:1,:").out;
      zarr_test::spit(dir / "v2.json", zarr3("read " + node + " --region 1:2,:").out);
      BOOST_TEST(first.size() > 2u);
      const auto again = zarr3("read " + node + " --output " + q(dir / "again.npy"));
      BOOST_TEST(again.status == 0);
      const std::string compare = "/usr/bin/python3 -c 'import numpy as np, sys\n"
                                  "a = np.load(sys.argv[1]); b = np.load(sys.argv[2])\n"
                                  "sys.exit(0 if a.tobytes() == b[::-1].tobytes() else 1)' " +
                                  q(dir / "again.npy") + " " + q(dir / "ours.npy");
      BOOST_TEST(std::system(compare.c_str()) == 0);
    }
  }
  // numpy big-endian and Fortran-order input.
  const std::string make = "/usr/bin/python3 -c 'import numpy as np, sys\n"
                           "np.save(sys.argv[1], np.arange(6, dtype=\">i4\").reshape(2, 3))\n"
                           "np.save(sys.argv[2], np.asfortranarray(np.arange(6, dtype=\"<i4\").reshape(2, 3)))' " +
                           q(dir / "be.npy") + " " + q(dir / "f.npy");
  BOOST_TEST_REQUIRE(std::system(make.c_str()) == 0);
  zarr_test::spit(dir / "m.json", array_metadata("int32", "[2,3]", "[2,2]"));
  BOOST_TEST_REQUIRE(zarr3("create " + q(store) + "#/i32 --metadata " + q(dir / "m.json")).status == 0);
  BOOST_TEST(zarr3("write " + q(store) + "#/i32 --input " + q(dir / "be.npy")).status == 0);
  BOOST_TEST(zarr3("read " + q(store) + "#/i32").out == "[0,1,2,3,4,5]\n");
  const auto fortran = zarr3("write " + q(store) + "#/i32 --input " + q(dir / "f.npy"));
  BOOST_TEST(fortran.status == 1);
  BOOST_TEST(fortran.err.find("Fortran") != std::string::npos, fortran.err);
}

BOOST_AUTO_TEST_CASE(info_reports_chunks_stored_bytes_and_the_codec_chain) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  auto r = zarr3("info " + q(store) + "#/g/a --json");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto o = zarr::parse_json(r.out).as_object();
  BOOST_TEST(o.at("node_type") == "array");
  BOOST_TEST(o.at("data_type") == "int32");
  BOOST_TEST(o.at("chunks_total").to_number<int>() == 6);
  BOOST_TEST(o.at("chunks_stored").to_number<int>() == 6);  // chunk (0,0) holds 0,1,5,6: not all fill
  std::uint64_t sizes = 0;
  for (const auto& e : fs::recursive_directory_iterator(store / "g" / "a" / "c"))
    if (e.is_regular_file()) sizes += e.file_size();
  BOOST_TEST(o.at("stored_bytes").to_number<std::uint64_t>() == sizes);
  BOOST_TEST(o.at("compression_ratio").to_number<double>() == 6 * 16.0 / static_cast<double>(sizes));
  BOOST_TEST(o.at("codecs").as_array().at(0).at("name") == "bytes");
  BOOST_TEST(o.at("fill_value") == 0);

  r = zarr3("info " + q(store) + "#/g/a");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("int32") != std::string::npos);
  BOOST_TEST(r.out.find("stored bytes") != std::string::npos);
  BOOST_TEST(r.out.find("compression") != std::string::npos);
  r = zarr3("info " + q(store) + "#/g");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("group") != std::string::npos);
  BOOST_TEST(r.out.find("    a\n") != std::string::npos, r.out);

  // v2 keys (no "c" prefix) at the root of a store, next to a child-looking folder.
  const auto v2 = dir / "v2.zarr";
  fs::create_directories(v2);
  zarr_test::spit(v2 / "zarr.json",
                  R"({"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"v2","configuration":{"separator":"."}},"fill_value":0,"codecs":[{"name":"bytes"}]})");
  zarr_test::spit(dir / "v.json", "[1,2,3,4]");
  BOOST_TEST_REQUIRE(zarr3("write " + q(v2) + " --input " + q(dir / "v.json")).status == 0);
  zarr_test::spit(v2 / "notes.txt", "not a chunk");
  r = zarr3("info " + q(v2) + " --json");
  const auto v = zarr::parse_json(r.out).as_object();
  BOOST_TEST(v.at("chunks_stored").to_number<int>() == 2);
  BOOST_TEST(v.at("stored_bytes").to_number<int>() == 4);
}

BOOST_AUTO_TEST_CASE(tree_shows_the_hierarchy) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  zarr_test::spit(dir / "m.json", array_metadata("float16", "[7]", "[3]"));
  BOOST_TEST_REQUIRE(zarr3("create " + q(store) + "#/g/h/b --metadata " + q(dir / "m.json")).status == 0);
  auto r = zarr3("tree " + q(store));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("group") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("a  array int32 [4, 5] chunks [2, 2]") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("b  array float16 [7] chunks [3]") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("h  group") != std::string::npos, r.out);
  r = zarr3("tree " + q(store) + "#/g/h");
  BOOST_TEST(r.out.find(" a ") == std::string::npos, r.out);
  zarr_test::spit(store / "g" / "h" / "b" / "zarr.json", "{");
  r = zarr3("tree " + q(store));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.out.find("invalid") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(convert_reencodes_rechunks_and_converts_exactly) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  const auto src = q(store) + "#/g/a";
  const auto expected = zarr3("read " + src).out;
  zarr_test::spit(dir / "codecs.json",
                  R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":5}}])");
  auto r = zarr3("convert " + src + " " + q(dir / "other.zarr") + "#/b --codecs " + q(dir / "codecs.json") + " --chunks 3,1");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(zarr3("read " + q(dir / "other.zarr") + "#/b").out == expected);
  const auto info = zarr::parse_json(zarr3("info " + q(dir / "other.zarr") + "#/b --json").out).as_object();
  BOOST_TEST(info.at("chunk_shape") == json::parse("[3,1]"));
  BOOST_TEST(info.at("codecs").as_array().size() == 3u);
  BOOST_TEST(zarr3("verify " + q(dir / "other.zarr")).status == 0);

  // Sharded, then back out.
  zarr_test::spit(dir / "shard.json",
                  R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[1,2],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}])");
  r = zarr3("convert " + src + " " + q(store) + "#/sharded --codecs " + q(dir / "shard.json") + " --chunks 2,4");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(zarr3("read " + q(store) + "#/sharded").out == expected);
  zarr_test::spit(dir / "plain.json", R"([{"name":"bytes","configuration":{"endian":"little"}}])");
  r = zarr3("convert " + q(store) + "#/sharded " + q(store) + "#/bad --chunks 4,5");  // inner chunks do not divide 4,5
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("chunk_shape") != std::string::npos, r.err);
  BOOST_TEST(zarr3("convert " + q(store) + "#/sharded " + q(store) + "#/plain --chunks 4,5 --codecs " + q(dir / "plain.json")).status == 0);
  BOOST_TEST(zarr3("read " + q(store) + "#/plain").out == expected);

  // Data types: widening and to float64 are exact.
  BOOST_TEST(zarr3("convert " + src + " " + q(store) + "#/i64 --data-type int64").status == 0);
  BOOST_TEST(zarr3("read " + q(store) + "#/i64").out == expected);
  BOOST_TEST(zarr3("convert " + src + " " + q(store) + "#/f64 --data-type float64").status == 0);
  BOOST_TEST(zarr3("read " + q(store) + "#/f64").out == expected);
  BOOST_TEST(zarr3("convert " + src + " " + q(store) + "#/u8 --data-type uint8 --codecs " + q(dir / "codecs.json")).status == 0);
  BOOST_TEST(zarr3("read " + q(store) + "#/u8").out == expected);
  // A value out of range: an error naming the element, and no array left behind.
  zarr_test::spit(dir / "big.json", "[300]");
  BOOST_TEST_REQUIRE(zarr3("write " + src + " --region 3:4,4:5 --input " + q(dir / "big.json")).status == 0);
  r = zarr3("convert " + src + " " + q(store) + "#/u8b --data-type uint8");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("[3, 4]") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("300") != std::string::npos, r.err);
  BOOST_TEST(!fs::exists(store / "u8b" / "zarr.json"));
  BOOST_TEST(zarr3("read " + q(store) + "#/u8b").status == 1);
  // Rounding conversions wait for cast_value.
  r = zarr3("convert " + q(store) + "#/f64 " + q(store) + "#/f32 --data-type float32");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("rounding") != std::string::npos, r.err);
  BOOST_TEST(!fs::exists(store / "f32"));
  // Existing destination; invalid codecs; same node.
  BOOST_TEST(zarr3("convert " + src + " " + q(store) + "#/i64").status == 1);
  BOOST_TEST(zarr3("convert " + src + " " + q(store) + "#/i64 --overwrite").status == 0);
  zarr_test::spit(dir / "bad.json", R"([{"name":"gzip"}])");
  BOOST_TEST(zarr3("convert " + src + " " + q(store) + "#/bad --codecs " + q(dir / "bad.json")).status == 1);
  BOOST_TEST(!fs::exists(store / "bad"));
  BOOST_TEST(zarr3("convert " + src + " " + src).status == 2);
}

// A corrupt chunk in the source, or a destination that fails part way through: an error naming
// the chunk or the key, exit status 1, and no half-converted array left behind.
BOOST_AUTO_TEST_CASE(convert_from_a_corrupt_source_or_into_a_failing_destination_leaves_nothing) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  const auto src = q(store) + "#/g/a";
  // Files below p, but the store's lock files (never deleted: docs/decisions.md 64).
  const auto files_below = [](const fs::path& p) {
    std::vector<std::string> out;
    if (fs::exists(p))
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename() != ".zarr-lock") out.push_back(fs::relative(e.path(), p).generic_string());
    return out;
  };
  fs::resize_file(store / "g" / "a" / "c" / "1" / "1", 3);  // 16 bytes stored, cut to 3
  auto r = zarr3("convert " + src + " " + q(dir / "out.zarr") + "#/x");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("c/1/1") != std::string::npos, r.err);
  const auto left_by_source = files_below(dir / "out.zarr" / "x");
  BOOST_TEST(left_by_source.empty(), "left behind: " << (left_by_source.empty() ? std::string() : left_by_source.front()));

  // The source whole again; in the destination, a file where the folder c/1 must go, so that
  // the chunks of row 1 cannot be stored while those of row 0 can.
  BOOST_TEST_REQUIRE(zarr3("write " + src + " --input " + q(dir / "values.json")).status == 0);
  fs::create_directories(dir / "dst.zarr" / "y" / "c");
  zarr_test::spit(dir / "dst.zarr" / "y" / "c" / "1", "in the way");
  r = zarr3("convert " + src + " " + q(dir / "dst.zarr") + "#/y");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("dst.zarr/y/c/1") != std::string::npos, r.err);
  auto left = files_below(dir / "dst.zarr" / "y");
  std::erase(left, "c/1");
  BOOST_TEST(left.empty(), "left behind: " << (left.empty() ? std::string() : left.front()));
}

// info, read and tree take every node's metadata from the root group's consolidated metadata:
// after the array's own zarr.json is rewritten by hand (shape 4x4), they still see the
// consolidated one (4x5); --no-consolidated, or a consolidated kind this library does not know
// (marked "must_understand": false), reads the array's own document.
BOOST_AUTO_TEST_CASE(reading_commands_take_the_metadata_from_the_root_groups_consolidated_metadata) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = make_int_array(dir);
  auto r = zarr3("consolidate " + q(store));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto doc_path = store / "g" / "a" / "zarr.json";
  auto doc = json::parse(zarr_test::slurp(doc_path)).as_object();
  doc["shape"] = json::array{4, 4};
  zarr_test::spit(doc_path, json::serialize(doc));

  const auto shape_seen = [&](const std::string& flags) {
    const auto info = zarr3(flags + "info " + q(store) + "#/g/a --json");
    BOOST_TEST_REQUIRE(info.status == 0, info.err);
    return json::serialize(json::parse(info.out).at("shape"));
  };
  BOOST_TEST(shape_seen("") == "[4,5]");
  BOOST_TEST(shape_seen("--no-consolidated ") == "[4,4]");
  r = zarr3("read " + q(store) + "#/g/a --format json");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(json::parse(r.out).as_array().size() == 20u, r.out);
  r = zarr3("--no-consolidated read " + q(store) + "#/g/a --format json");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(json::parse(r.out).as_array().size() == 16u, r.out);
  r = zarr3("tree " + q(store));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("[4, 5]") != std::string::npos, r.out);

  auto root = json::parse(zarr_test::slurp(store / "zarr.json")).as_object();
  root["consolidated_metadata"].as_object()["kind"] = "a later kind";
  zarr_test::spit(store / "zarr.json", json::serialize(root));
  BOOST_TEST(shape_seen("") == "[4,4]");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cli_convert_legacy)

// zarr-extensions codecs/scale_offset "Conversion example": a float32 array stored through
// numcodecs.fixedscaleoffset migrates to [scale_offset, cast_value].
BOOST_AUTO_TEST_CASE(convert_migrates_fixedscaleoffset_to_scale_offset_and_cast_value) {
  const auto dir = zarr_test::scratch_dir();
  const auto src = dir / "legacy.zarr";
  fs::create_directories(src / "c");
  std::ofstream(src / "zarr.json") << R"({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float32",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": 10.0,
      "codecs": [{"name": "numcodecs.fixedscaleoffset", "configuration": {"astype": "uint8", "dtype": "float32", "scale": 0.1, "offset": 10}},
                 {"name": "bytes"}]})";
  std::ofstream(src / "c" / "0", std::ios::binary) << std::string("\x00\x01\x05\x09", 4);
  const auto before = zarr3("read " + q(src) + " --format json");
  BOOST_TEST_REQUIRE(before.status == 0);
  BOOST_TEST(zarr::parse_json(before.out) == zarr::parse_json("[10, 20, 60, 100]"));
  // writing through the legacy codec encodes as numcodecs does (docs/decisions.md 54): the same
  // values give the same bytes; values below the offset have no uint8 form, where NumPy's cast
  // is undefined, and are refused
  std::ofstream(dir / "same.json") << "[10, 20, 60, 100]";
  const auto written = zarr3("write " + q(src) + " --input " + q(dir / "same.json"));
  BOOST_TEST(written.status == 0, written.err);
  std::ofstream(dir / "v.json") << "[1, 2, 3, 4]";
  const auto refused = zarr3("write " + q(src) + " --input " + q(dir / "v.json"));
  BOOST_TEST(refused.status == 1);
  BOOST_TEST(refused.err.find("(numcodecs.fixedscaleoffset) encode, element 0") != std::string::npos, refused.err);

  const auto dst = dir / "migrated.zarr";
  const auto converted = zarr3("convert " + q(src) + " " + q(dst));
  BOOST_TEST_REQUIRE(converted.status == 0);
  BOOST_TEST(converted.out.find("largest change of a value: 0") != std::string::npos, converted.out);
  std::ifstream in(dst / "zarr.json");
  const auto doc = zarr::parse_json(std::string(std::istreambuf_iterator<char>(in), {}));
  const auto& codecs = doc.at("codecs").as_array();
  BOOST_TEST(codecs.at(0).at("name") == "scale_offset");
  BOOST_TEST(codecs.at(0).at("configuration").at("scale").to_number<double>() == 0.1);
  BOOST_TEST(codecs.at(0).at("configuration").at("offset").to_number<double>() == 10);
  BOOST_TEST(codecs.at(1).at("name") == "cast_value");
  BOOST_TEST(codecs.at(1).at("configuration").at("data_type") == "uint8");
  BOOST_TEST(codecs.at(1).at("configuration").at("out_of_range") == "wrap");
  // the stored bytes are the legacy ones, and the values read back the same
  std::ifstream chunk(dst / "c" / "0", std::ios::binary);
  BOOST_TEST(std::string(std::istreambuf_iterator<char>(chunk), {}) == std::string("\x00\x01\x05\x09", 4));
  const auto after = zarr3("read " + q(dst) + " --format json");
  BOOST_TEST(after.out == before.out);
}

BOOST_AUTO_TEST_SUITE_END()
