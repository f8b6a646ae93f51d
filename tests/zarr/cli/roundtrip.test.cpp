// zarr3 write --format json then read --format json gives back the same text, token for
// token, for every data type of the registry: the canonical values of the fill-value vectors
// (vectors/fill in tests/data), every bit pattern of the 8-bit-or-smaller types, random bit patterns
// of the wider ones (NaN payloads included), and the integer extremes.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "run.hpp"
import zarr.dtype;
import zarr.text;
import zarr.fill_value;

namespace fs = std::filesystem;
using zarr_test::q;
using zarr_test::zarr3;

namespace {

std::string canonical(const zarr::scalar& s) { return zarr::fill_value_to_json_text(s); }

zarr::scalar from_bits(zarr::data_type t, std::uint64_t bits) {
  zarr::scalar s{t, {}};
  std::memcpy(s.bits.data(), &bits, std::min<std::size_t>(8, static_cast<std::size_t>(zarr::info(t).size)));
  return s;
}

// The data type member of each sized type's array here: r24, fixed_length_utf32 of 4 code
// points, a struct of every kind of field (a nested struct, raw bits and text among them).
std::string sized_type_json(zarr::data_type t) {
  if (t == zarr::data_type::raw_bits) return R"("r24")";
  if (t == zarr::data_type::fixed_length_utf32) return R"({"name":"fixed_length_utf32","configuration":{"length_bytes":16}})";
  if (t == zarr::data_type::optional)
    return R"({"name":"optional","configuration":{"name":"optional","configuration":{"name":"float32"}}})";
  return R"({"name":"struct","configuration":{"fields":[{"name":"i","data_type":"int16"},)"
         R"({"name":"f","data_type":"float32"},{"name":"b","data_type":"bool"},)"
         R"({"name":"p","data_type":{"name":"struct","configuration":{"fields":[{"name":"x","data_type":"uint8"},)"
         R"({"name":"c","data_type":"complex64"}]}}},{"name":"r","data_type":"r16"},)"
         R"({"name":"s","data_type":{"name":"fixed_length_utf32","configuration":{"length_bytes":8}}}]}})";
}

// Values of the sized types (canonical texts): byte arrays, text of every length up to the
// capacity (empty, ASCII, non-ASCII up to U+1F600), structs mixing them.
std::vector<std::string> sized_values(zarr::data_type t) {
  std::mt19937_64 random(7 + static_cast<unsigned>(t));
  std::vector<std::string> out;
  std::set<std::string> seen;
  const auto byte_array = [&](int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(random() % 256);
    return s + "]";
  };
  // JSON string bodies (escapes as JSON reads them): empty, ASCII, non-ASCII, a character
  // beyond the BMP, an inner U+0000; the struct's field takes the first five (at most 2 code points).
  const std::vector<std::string> texts{"", "a", "ab", "\\u00e9", "\\u20ac\\u00e9", "abcd", "\\ud83d\\ude00xyz", "z\\u0000y"};
  const auto add = [&](std::string s) {
    if (seen.insert(s).second) out.push_back(std::move(s));
  };
  if (t == zarr::data_type::raw_bits) {
    add("[0,0,0]");
    add("[255,255,255]");
    for (int i = 0; i < 200; ++i) add(byte_array(3));
    return out;
  }
  if (t == zarr::data_type::fixed_length_utf32) {
    for (const auto& s : texts) add(boost::json::serialize(boost::json::parse("\"" + s + "\"")));
    for (int i = 0; i < 200; ++i) {
      std::string s;
      for (std::size_t k = random() % 5; k > 0; --k) s += static_cast<char>('a' + random() % 26);
      add("\"" + s + "\"");
    }
    return out;
  }
  if (t == zarr::data_type::optional) {  // an optional optional float32: null, [null], [[value]]
    add("null");
    add("[null]");
    for (int i = 0; i < 200; ++i) add("[[" + std::to_string(static_cast<int>(random() % 2001) - 1000) + ".25]]");
    return out;
  }
  for (int i = 0; i < 200; ++i) {
    const auto text = boost::json::serialize(boost::json::parse("\"" + texts[static_cast<std::size_t>(i) % 5] + "\""));  // at most 2 code points
    add(R"({"i":)" + std::to_string(static_cast<int>(random() % 65536) - 32768) + R"(,"f":)" +
        std::to_string(static_cast<int>(random() % 2001) - 1000) + R"(.5,"b":)" + (random() % 2 ? "true" : "false") +
        R"(,"p":{"x":)" + std::to_string(random() % 256) + R"(,"c":[)" + std::to_string(random() % 100) + ",-0.25]}," +
        R"("r":)" + byte_array(2) + R"(,"s":)" + text + "}");
  }
  return out;
}

// Canonical value texts for `t`, in a fixed order, no duplicates.
std::vector<std::string> values_for(zarr::data_type t) {
  if (zarr::is_sized(t)) return sized_values(t);
  const auto& info = zarr::info(t);
  std::vector<std::string> out;
  std::set<std::string> seen;
  const auto add = [&](const zarr::scalar& s) {
    auto text = canonical(s);
    if (seen.insert(text).second) out.push_back(std::move(text));
  };
  std::mt19937_64 random(42 + static_cast<unsigned>(t));
  if (zarr::is_variable_length(t)) {  // JSON strings (bytes: base64) of random lengths and bytes
    out.push_back(R"("")");
    for (int i = 0; i < 300; ++i) {
      std::string value(random() % 40, '\0');
      for (auto& c : value) c = static_cast<char>(t == zarr::data_type::string ? 1 + random() % 127 : random());
      if (t == zarr::data_type::string && i % 3 == 0) value += "\u00e9\u20ac\U0001F600";
      const auto text = boost::json::serialize(t == zarr::data_type::string ? boost::json::string(value)
                                                                             : boost::json::string(zarr::base64_encode(value)));
      if (seen.insert(text).second) out.push_back(text);
    }
    return out;
  }
  if (info.kind == zarr::dtype_kind::complex) {
    const auto part = zarr::complex_component(t);
    const auto parts = values_for(part);
    for (std::size_t i = 0; i + 1 < parts.size(); i += 2)
      add(zarr::parse_fill_value_text("[" + parts[i] + "," + parts[i + 1] + "]", t));
    for (int i = 0; i < 500; ++i) {
      zarr::scalar s{t, {}};
      for (auto& b : s.bits) b = static_cast<std::byte>(random());
      if (info.format.bits() < 8)  // a sub-byte component keeps its low bits only (in memory as on disk)
        for (auto& b : s.bits) b &= static_cast<std::byte>((1u << info.format.bits()) - 1);
      add(s);
    }
    return out;
  }
  if (info.kind == zarr::dtype_kind::time) {  // counts, NaT and the extremes either side of it
    for (const char* text : {"\"NaT\"", "-9223372036854775807", "9223372036854775807", "0", "-1", "1"})
      add(zarr::parse_fill_value_text(text, t));
    for (int i = 0; i < 300; ++i) add(from_bits(t, random()));
    return out;
  }
  const auto csv = zarr_test::data_dir() / "vectors" / "fill" / (std::string(info.name) + ".csv");
  if (t != zarr::data_type::float8_e4m3fn)  // TensorStore's: no vectors, every bit pattern below
    for (const auto& row : zarr_test::read_csv(csv))
      if (row.at(1) != "ERROR") add(zarr::parse_fill_value_text(row.at(0), t));
  if (info.kind == zarr::dtype_kind::boolean) return out;
  if (zarr::is_integer(t)) {
    add(zarr::parse_fill_value_text(std::to_string(info.min), t));
    add(zarr::parse_fill_value_text(std::to_string(info.max), t));
    if (info.bits <= 8)
      for (auto v = info.min; v <= static_cast<std::int64_t>(info.max); ++v) add(zarr::parse_fill_value_text(std::to_string(v), t));
    for (int i = 0; i < 300 && info.bits > 8; ++i) add(from_bits(t, random()));
    return out;
  }
  // Floats: every pattern of the small ones, random patterns of the others.
  if (info.bits <= 8) {
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << info.bits); ++b) add(from_bits(t, b));
  } else {
    const int n = info.bits == 16 ? 4000 : 3000;
    for (int i = 0; i < n; ++i) add(from_bits(t, info.bits == 64 ? random() : random() & ((std::uint64_t{1} << info.bits) - 1)));
  }
  return out;
}

std::string metadata(zarr::data_type t, std::size_t n) {
  if (zarr::is_sized(t)) {
    if (t == zarr::data_type::optional)
      return R"({"zarr_format":3,"node_type":"array","shape":[)" + std::to_string(n) + R"(],"data_type":)" +
             sized_type_json(t) + R"(,"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[64]}},)"
             R"("chunk_key_encoding":{"name":"default"},"fill_value":null,"codecs":[{"name":"optional","configuration":)"
             R"({"mask_codecs":[{"name":"packbits"}],"data_codecs":[{"name":"optional","configuration":{"mask_codecs":)"
             R"([{"name":"bytes"}],"data_codecs":[{"name":"bytes","configuration":{"endian":"big"}}]}}]}},)"
             R"({"name":"gzip","configuration":{"level":1}}]})";
    const std::string fill = t == zarr::data_type::raw_bits ? "[0,0,0]"
                             : t == zarr::data_type::fixed_length_utf32
                                 ? R"("")"
                                 : R"({"i":0,"f":0,"b":false,"p":{"x":0,"c":[0,0]},"r":[0,0],"s":""})";
    return R"({"zarr_format":3,"node_type":"array","shape":[)" + std::to_string(n) + R"(],"data_type":)" +
           sized_type_json(t) + R"(,"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[64]}},)"
           R"("chunk_key_encoding":{"name":"default"},"fill_value":)" + fill +
           R"(,"codecs":[{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]})";
  }
  if (zarr::is_variable_length(t))
    return R"({"zarr_format":3,"node_type":"array","shape":[)" + std::to_string(n) + R"(],"data_type":")" +
           std::string(zarr::name(t)) + R"(","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[64]}},)"
           R"("chunk_key_encoding":{"name":"default"},"fill_value":"","codecs":[{"name":")" +
           (t == zarr::data_type::string ? "vlen-utf8" : "vlen-bytes") + R"("},{"name":"gzip","configuration":{"level":1}}]})";
  const auto codecs = zarr::info(t).size > 1 ? R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":1}}])"
                                             : R"([{"name":"bytes"}])";
  const std::string type = zarr::is_time(t) ? R"({"name":")" + std::string(zarr::name(t)) +
                                                  R"(","configuration":{"unit":"ns","scale_factor":1}})"
                                            : "\"" + std::string(zarr::name(t)) + "\"";
  return R"({"zarr_format":3,"node_type":"array","shape":[)" + std::to_string(n) + R"(],"data_type":)" + type +
         R"(,"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[64]}},)"
         R"("chunk_key_encoding":{"name":"default"},"fill_value":)" + canonical(zarr::default_fill_value(t)) +
         R"(,"codecs":)" + codecs + "}";
}

std::string joined(const std::vector<std::string>& v, std::size_t first, std::size_t last) {
  std::string s = "[";
  for (auto i = first; i < last; ++i) s += (i > first ? "," : "") + v[i];
  return s + "]\n";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_round_trip)

BOOST_AUTO_TEST_CASE(json_round_trips_exactly_for_every_data_type) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = dir / "types.zarr";
  std::size_t types = 0;
  for (const auto& info : zarr::data_types) {
    BOOST_TEST_CONTEXT(info.name) {
      const auto values = values_for(info.type);
      BOOST_TEST_REQUIRE(values.size() >= 2u);
      const auto node = q(store) + "#/" + (info.type == zarr::data_type::raw_bits ? std::string("r24") : std::string(info.name));
      zarr_test::spit(dir / "meta.json", metadata(info.type, values.size()));
      auto r = zarr3("create " + node + " --metadata " + q(dir / "meta.json"));
      BOOST_TEST_REQUIRE(r.status == 0, r.err);
      const auto all = joined(values, 0, values.size());
      zarr_test::spit(dir / "in.json", all);
      r = zarr3("write " + node + " --input " + q(dir / "in.json"));
      BOOST_TEST_REQUIRE(r.status == 0, r.err);
      r = zarr3("read " + node);
      BOOST_TEST(r.status == 0, r.err);
      if (r.out != all) {
        // Name the first differing token.
        std::size_t i = 0;
        while (i < std::min(r.out.size(), all.size()) && r.out[i] == all[i]) ++i;
        BOOST_ERROR("differs at byte " << i << ": wrote ..." << all.substr(i > 40 ? i - 40 : 0, 80) << "..., read ..."
                                       << r.out.substr(i > 40 ? i - 40 : 0, 80));
      }
      // A region in the middle, across chunks.
      const std::size_t lo = values.size() / 3, hi = std::min(values.size(), lo + 100);
      r = zarr3("read " + node + " --region " + std::to_string(lo) + ":" + std::to_string(hi));
      BOOST_TEST(r.out == joined(values, lo, hi));
      if (zarr::is_variable_length(info.type) || zarr::is_sized(info.type)) {  // written as JSON only
        const std::string shown = info.type == zarr::data_type::raw_bits ? "r24" : std::string(info.name);
        r = zarr3("read " + node + " --format raw --output " + q(dir / "v.bin"));
        if (zarr::is_sized(info.type)) {  // read out as each element's bytes (docs/decisions.md 58)
          BOOST_TEST(r.status == 0, r.err);
          r = zarr3("write " + node + " --format raw --input " + q(dir / "v.bin"));
        }
        BOOST_TEST(r.status != 0);
        BOOST_TEST(r.err.find("--format: expected json for an array of " + shown) != std::string::npos, r.err);
        ++types;
        continue;
      }
      // raw out and back in gives the same values.
      BOOST_TEST_REQUIRE(zarr3("read " + node + " --format raw --output " + q(dir / "v.bin")).status == 0);
      BOOST_TEST_REQUIRE(zarr3("write " + node + " --input " + q(dir / "v.bin")).status == 0);
      BOOST_TEST(zarr3("read " + node).out == all);
      ++types;
    }
  }
  BOOST_TEST(types == zarr::data_type_count);
}

BOOST_AUTO_TEST_CASE(datetime64_reads_as_counts_or_as_iso_8601_text) {
  // numpy.datetime64 with unit s and scale 10: 1 is 1970-01-01T00:00:10 (the README's
  // "Background" example); -1 is ten seconds before the epoch; "NaT" stays "NaT".
  const auto dir = zarr_test::scratch_dir();
  const auto node = q(dir / "t.zarr") + "#/t";
  zarr_test::spit(dir / "meta.json", R"({"zarr_format": 3, "node_type": "array", "shape": [4],
      "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 10}},
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}}, "chunk_key_encoding": {"name": "default"},
      "fill_value": "NaT", "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]})");
  BOOST_TEST_REQUIRE(zarr3("create " + node + " --metadata " + q(dir / "meta.json")).status == 0);
  zarr_test::spit(dir / "in.json", R"([1, -1, "NaT"])");
  const auto w = zarr3("write " + node + " --region 0:3 --input " + q(dir / "in.json"));
  BOOST_TEST_REQUIRE(w.status == 0, w.err);
  BOOST_TEST(zarr3("read " + node).out == "[1,-1,\"NaT\",\"NaT\"]\n");
  const auto iso = zarr3("read " + node + " --iso-8601");
  BOOST_TEST(iso.status == 0, iso.err);
  BOOST_TEST(iso.out == "[\"1970-01-01T00:00:10\",\"1969-12-31T23:59:50\",\"NaT\",\"NaT\"]\n");
  const auto info = zarr3("info " + node);
  BOOST_TEST(info.out.find("numpy.datetime64 [10s]") != std::string::npos, info.out);
  const auto raw = zarr3("read " + node + " --iso-8601 --format raw");
  BOOST_TEST(raw.status == 2);
  BOOST_TEST(raw.err.find("--iso-8601: expected --format json and a numpy.datetime64 array") != std::string::npos, raw.err);
  zarr_test::spit(dir / "bad.json", R"([1.5])");
  const auto bad = zarr3("write " + node + " --region 0:1 --input " + q(dir / "bad.json"));
  BOOST_TEST(bad.status == 1);
  BOOST_TEST(bad.err.find("or \"NaT\", for numpy.datetime64, got 1.5") != std::string::npos, bad.err);
}

BOOST_AUTO_TEST_CASE(json_input_is_rounded_once_from_its_decimal_text) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = dir / "r.zarr";
  struct row {
    const char* type;
    const char* input;
    const char* output;
  };
  const row rows[] = {
      {"float64", "[0.1000000000000000055511151231257827, 1.50e0, -0, 1E2, 2.4703282292062328e-324]", "[0.1,1.5,-0.0,100,5e-324]\n"},
      {"float32", "[0.1, 16777217, 1e-46, -1e-46, 3.4028235677973366e38]", "[0.1,16777216,0,-0.0,3.4028235e38]\n"},
      {"float16", "[65519.99, 0.1, \"0x7e01\", -0.0]", "[65500,0.1,\"0x7e01\",-0.0]\n"},
      {"float8_e4m3", "[1e-3, 239.9, \"-Infinity\", \"NaN\"]", "[2e-3,240,\"-Infinity\",\"NaN\"]\n"},
      {"int64", "[-9223372036854775808, 9223372036854775807, -0, 0]", "[-9223372036854775808,9223372036854775807,0,0]\n"},
      {"uint64", "[18446744073709551615, 9007199254740993, 0, 1]", "[18446744073709551615,9007199254740993,0,1]\n"},
      {"complex128", "[[0.1, -0.0], [\"NaN\", \"Infinity\"], [1e308, 5e-324], [0, 0]]", "[[0.1,-0.0],[\"NaN\",\"Infinity\"],[1e308,5e-324],[0,0]]\n"},
  };
  for (const auto& [type, input, output] : rows) {
    BOOST_TEST_CONTEXT(type) {
      const auto t = zarr::data_type_from_name(type);
      const auto node = q(store) + "#/" + type;
      const std::size_t n = std::string(output).starts_with("[[") ? 4 : static_cast<std::size_t>(std::count(output, output + std::strlen(output), ',') + 1);
      zarr_test::spit(dir / "meta.json", metadata(t, n));
      BOOST_TEST_REQUIRE(zarr3("create " + node + " --metadata " + q(dir / "meta.json")).status == 0);
      zarr_test::spit(dir / "in.json", input);
      const auto w = zarr3("write " + node + " --input " + q(dir / "in.json"));
      BOOST_TEST_REQUIRE(w.status == 0, w.err);
      BOOST_TEST(zarr3("read " + node).out == output);
    }
  }
}

BOOST_AUTO_TEST_CASE(json_input_the_type_cannot_hold_is_an_error) {
  const auto dir = zarr_test::scratch_dir();
  const auto store = dir / "e.zarr";
  struct row {
    const char* type;
    const char* input;
    const char* part;
  };
  const row rows[] = {
      {"float64", "[1, 1e309]", "element 1"},
      {"float32", "[3.5e38, 1]", "element 0"},
      {"float8_e4m3fnuz", "[1, \"Infinity\"]", "element 1"},
      {"float4_e2m1fn", "[\"NaN\", 1]", "element 0"},
      {"int4", "[7, 8]", "element 1"},
      {"uint2", "[3, -1]", "element 1"},
      {"int64", "[9223372036854775808, 0]", "element 0"},
      {"uint64", "[18446744073709551616, 0]", "element 0"},
      {"bool", "[true, 1]", "element 1"},
      {"complex64", "[[1, 2], 3]", "element 1"},
      {"int8", "[1, [2, 3]]", "element 1"},
      {"float8_e8m0fnu", "[1, 0]", "element 1"},
  };
  for (const auto& [type, input, part] : rows) {
    BOOST_TEST_CONTEXT(type) {
      const auto t = zarr::data_type_from_name(type);
      const auto node = q(store) + "#/" + type;
      zarr_test::spit(dir / "meta.json", metadata(t, 2));
      BOOST_TEST_REQUIRE(zarr3("create " + node + " --metadata " + q(dir / "meta.json")).status == 0);
      zarr_test::spit(dir / "in.json", input);
      const auto r = zarr3("write " + node + " --input " + q(dir / "in.json"));
      BOOST_TEST(r.status == 1);
      BOOST_TEST(r.err.find(part) != std::string::npos, r.err);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
