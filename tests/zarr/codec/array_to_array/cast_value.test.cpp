// The cast_value codec: every cell of vectors/cast/ (tests/data) through the codec, the spec's
// examples end to end, scalar_map semantics and its fast paths against a per-element
// reference, the fill-value round trip, and each configuration error.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "../codec_test.hpp"
#include "../../arithmetic/cast_vectors.hpp"
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZARR_TEST_ASAN 1
#include <sanitizer/asan_interface.h>
#endif
#endif
import zarr.error;
import zarr.dtype;
import zarr.arithmetic;
import zarr.arithmetic.kernels;
import zarr.codec;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;
namespace json = boost::json;

namespace {

// A chunk spec whose fill value is 1, which every numeric type holds and every cast keeps.
zarr::chunk_spec spec_one(std::uint64_t n, data_type t) {
  auto s = spec({n}, t);
  zarr::store_raw(t, s.fill.bits.data(), zarr::round_to(t, zarr::exact_value::from_uint(1)).bits);
  return s;
}

std::string cast_json(std::string_view configuration) {
  return R"([{"name":"cast_value","configuration":)" + std::string(configuration) +
         R"(},{"name":"bytes","configuration":{"endian":"little"}}])";
}

std::string column_configuration(std::string_view target, const cast_column& c) {
  std::string out = R"({"data_type":")" + std::string(target) + R"(","rounding":")" +
                    std::string(zarr::to_string(c.mode)) + "\"";
  if (c.oor != zarr::out_of_range_mode::error) out += R"(,"out_of_range":")" + std::string(zarr::to_string(c.oor)) + "\"";
  return out + "}";
}

const zarr::array_to_array_codec& first(const zarr::codec_chain& c) { return *c.array_to_array().front(); }

// A chunk of raw values of type t in the in-memory layout.
zarr::bytes chunk_of(data_type t, const std::vector<std::uint64_t>& raw) {
  const auto size = static_cast<std::size_t>(zarr::info(t).size);
  zarr::bytes out(raw.size() * size);
  for (std::size_t i = 0; i < raw.size(); ++i) zarr::store_raw(t, out.data() + i * size, raw[i]);
  return out;
}

std::uint64_t raw_at(data_type t, const zarr::bytes& b, std::size_t i) {
  return zarr::load_raw(t, b.data() + i * static_cast<std::size_t>(zarr::info(t).size));
}

// Runs f, which must throw zarr::error; returns it (or nothing, after failing the test).
template <class F>
std::optional<zarr::error> thrown(F&& f) {
  try {
    f();
  } catch (const zarr::error& e) {
    return e;
  }
  return std::nullopt;
}

std::uint64_t f64(double d) { return std::bit_cast<std::uint64_t>(d); }

// Each failing cell costs one exception. Under AddressSanitizer with its detection of stack
// use after return, a throw costs ~0.4 ms (the fake stack it keeps is garbage-collected on
// every throw), so such a run checks every 16th failing cell of each group, about 21000
// throws. Every other run checks all 337555: the CTest test zarr.tests.codec.cast_value_every_cell
// runs this one case with that detection off (ASAN_OPTIONS, tests/CMakeLists.txt) and with
// ZARR_CAST_VALUE_EVERY_CELL=1, which makes sampling an error.
std::size_t failing_stride() {
#ifdef ZARR_TEST_ASAN
  if (__asan_get_current_fake_stack() != nullptr) return 16;
#endif
  return 1;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cast_value_codec)

// ---------------------------------------------------------------- the shared vectors

BOOST_AUTO_TEST_CASE(encodes_every_cell_of_every_cast_table_in_every_mode) {
  std::size_t cells = 0, errors = 0, chunks = 0, sampled_out = 0;
  const auto stride = failing_stride();
  const char* every_cell = std::getenv("ZARR_CAST_VALUE_EVERY_CELL");
  BOOST_TEST_REQUIRE((every_cell == nullptr || std::string_view(every_cell) != "1" || stride == 1),
                     "ZARR_CAST_VALUE_EVERY_CELL=1, yet AddressSanitizer's fake stack would make this run sample "
                     "the failing cells (run it with ASAN_OPTIONS=detect_stack_use_after_return=0)");
  for (const char* target : cast_targets) {
    const auto to = zarr::data_type_from_name(target);
    const auto table = read_vectors(std::string("cast/") + target + ".csv");
    const auto columns = cast_columns(table);
    BOOST_TEST(columns.size() == (zarr::is_integer(to) ? 15u : 10u));
    // Rows grouped by source type: (raw bits, row).
    std::map<data_type, std::vector<std::pair<std::uint64_t, std::size_t>>> by_source;
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
      const auto sources = cast_sources(table.rows[r][0], table.rows[r][1]);
      BOOST_TEST_REQUIRE(!sources.empty(), target << ": no source type holds " << table.rows[r][1]);
      for (const auto& [from, bits] : sources) by_source[from].emplace_back(bits, r);
    }
    int bad = 0;
    for (const auto& [from, items] : by_source) {
      for (const auto& c : columns) {
        const auto configuration = cast_json(column_configuration(target, c));
        std::vector<std::uint64_t> ok_in;
        std::vector<std::string_view> ok_cell;
        std::vector<std::pair<std::uint64_t, std::string_view>> failing;
        for (const auto& [bits, r] : items) {
          const auto cell = table.rows[r][c.index];
          if (cell == "OUT_OF_RANGE" || cell == "INVALID") {
            failing.emplace_back(bits, cell);
          } else {
            ok_in.push_back(bits);
            ok_cell.push_back(cell);
          }
        }
        const auto describe = [&](std::uint64_t bits) {
          return std::string(target) + " from " + std::string(zarr::name(from)) + " " + zarr::format_value(from, bits) +
                 " " + std::string(table.header[c.index]);
        };
        // Every convertible row in one chunk.
        if (!ok_in.empty()) {
          const auto chain = zarr_test::chain(configuration, spec_one(ok_in.size(), from));
          ++chunks;
          const auto out = first(chain).encode(chunk_of(from, ok_in));
          for (std::size_t i = 0; i < ok_in.size(); ++i) {
            ++cells;
            const zarr::numeric_result got{raw_at(to, out, i), zarr::numeric_errc::none, false};
            if (!matches(to, got, ok_cell[i]) && ++bad <= 10)
              BOOST_ERROR(describe(ok_in[i]) << ": got " << zarr::format_value(to, got.bits) << ", expected " << ok_cell[i]);
          }
        }
        if (failing.empty()) continue;
        // Every failing row alone: the codec throws for it with the right code.
        const auto single = zarr_test::chain(configuration, spec_one(1, from));
        for (std::size_t k = 0; k < failing.size(); ++k) {
          const auto& [bits, cell] = failing[k];
          if (k % stride != 0) {
            ++sampled_out;
            continue;
          }
          ++cells;
          ++errors;
          const auto e = thrown([&] { (void)first(single).encode(chunk_of(from, {bits})); });
          const auto code = cell == "OUT_OF_RANGE" ? errc::out_of_range : errc::invalid_value;
          if ((!e || e->code() != code || std::string_view(e->what()).find("element 0:") == std::string_view::npos) &&
              ++bad <= 10)
            BOOST_ERROR(describe(bits) << ": expected " << cell << ", got " << (e ? e->what() : "no error"));
        }
        // And one failing row among the convertible ones: the message names its index.
        if (!ok_in.empty()) {
          auto values = ok_in;
          const auto at = values.size() / 2;
          values.insert(values.begin() + static_cast<std::ptrdiff_t>(at), failing.front().first);
          const auto chain = zarr_test::chain(configuration, spec_one(values.size(), from));
          const auto e = thrown([&] { (void)first(chain).encode(chunk_of(from, values)); });
          const auto where = "codecs[0] (cast_value), encoding element " + std::to_string(at) + ":";
          if ((!e || std::string_view(e->what()).find(where) == std::string_view::npos) && ++bad <= 10)
            BOOST_ERROR(describe(failing.front().first) << " at " << at << ": got " << (e ? e->what() : "no error"));
        }
      }
    }
    BOOST_TEST(bad == 0, target << ": " << bad << " mismatches");
  }
  BOOST_TEST_MESSAGE("cast_value cells checked through the codec: " << cells << " (" << errors << " errors) in "
                                                                   << chunks << " chunks; failing cells left out: "
                                                                   << sampled_out << (stride == 1 ? " (every cell)" : " (sampled)"));
  // Every (source, mode, out_of_range) cell of the 26 tables, int64/uint64 rows once per
  // integer type that holds them: the same cells as the engine test.
  BOOST_TEST(cells + sampled_out == 2'537'425u);
  if (stride == 1) BOOST_TEST((errors == 337'555u && sampled_out == 0u));
}

// ---------------------------------------------------------------- the spec's examples

BOOST_AUTO_TEST_CASE(stores_float64_as_uint8_keeping_nan_through_scalar_map_in_a_filesystem_store) {
  const auto dir = scratch_dir();
  auto store = std::make_shared<zarr::filesystem_store>(dir / "data.zarr");
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
      "shape": [10], "data_type": "float64", "fill_value": "NaN",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint8",
                   "scalar_map": {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}}},
                 {"name": "bytes"}]})"));
  auto a = zarr::array::create(store, "scaled", meta);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> values{0, 1, nan, 254, 17, -0.0, nan, 3};
  a.write<double>({{1}, {9}}, values);
  // The stored chunks hold the uint8 values, 255 for NaN (element 0 was never written: fill).
  const auto chunk0 = store->get("scaled/c/0");
  BOOST_TEST_REQUIRE(chunk0.has_value());
  BOOST_TEST(same(*chunk0, octets({255, 0, 1, 255})));
  const auto back = zarr::array::open(store, "scaled").read<double>({{0}, {10}});
  const std::vector<double> expected{nan, 0, 1, nan, 254, 17, 0, nan, 3, nan};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i]))
      BOOST_TEST(std::isnan(back[i]), "element " << i);
    else
      BOOST_TEST(back[i] == expected[i], "element " << i);
  }
  // -0.0 is stored as 0 and reads back as +0 (uint8 has no -0).
  BOOST_TEST(!std::signbit(back[6]));
  // A value uint8 cannot hold is an error naming the array, the chunk, the element and value.
  ZARR_CHECK_ERROR(a.write<double>({{4}, {6}}, std::vector<double>{5, 256}), errc::out_of_range,
                   "encoding element 1: expected a value within the range of uint8, got 256 (float64)");
  ZARR_CHECK_ERROR(a.write<double>({{4}, {5}}, std::vector<double>{-1}), errc::out_of_range, "array \"/scaled\"");
  // The codec is recorded in its canonical form.
  const auto reopened = zarr::array::open(store, "scaled");
  const auto codec = reopened.metadata().codecs.as_array()[0];
  BOOST_TEST(codec.at("configuration").at("rounding") == "nearest-even");
  BOOST_TEST(json::serialize(codec.at("configuration").at("scalar_map")) ==
             R"({"encode":[["NaN",255]],"decode":[[255,"NaN"]]})");
}

BOOST_AUTO_TEST_CASE(models_numpy_casts_as_in_the_spec_example) {
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
      "shape": [12], "data_type": "float64", "fill_value": 0,
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [12]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "towards-zero",
                   "out_of_range": "wrap",
                   "scalar_map": {"encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]]}}},
                 "bytes"]})"));
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "numpy.zarr");
  auto a = zarr::array::create(store, "n", meta);
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> in{std::numeric_limits<double>::quiet_NaN(), inf, -inf, 3.7, -3.7, -1.5, 255.9, 256.5,
                               1e300, -0.0, 513, -256};
  a.write<double>({{0}, {12}}, in);
  const auto stored = store->get("n/c/0");
  BOOST_TEST_REQUIRE(stored.has_value());
  // NaN, ±Inf -> 0; truncation towards zero, then modulo 256.
  BOOST_TEST(same(*stored, octets({0, 0, 0, 3, 253, 255, 255, 0, 0, 0, 1, 0})));
  const auto back = zarr::array::open(store, "n").read<double>({{0}, {12}});
  BOOST_TEST(back == (std::vector<double>{0, 0, 0, 3, 253, 255, 255, 0, 0, 0, 1, 0}), boost::test_tools::per_element());
}

// ---------------------------------------------------------------- scalar_map semantics

BOOST_AUTO_TEST_CASE(uses_the_first_occurrence_of_a_repeated_key) {
  const auto c = chain(cast_json(R"({"data_type":"uint8","scalar_map":{
      "encode":[[1.0, 10], [2.0, 30], [1.0, 20]], "decode":[[7, 1.5], [7, 2.5]]}})"),
                       spec({4}, data_type::float64));
  const auto out = first(c).encode(to_bytes(std::vector<double>{1.0, 2.0, 3.0, 0.0}));
  BOOST_TEST(same(out, octets({10, 30, 3, 0})));
  BOOST_TEST(from_bytes<double>(first(c).decode(octets({7, 10, 0, 1}))) == (std::vector<double>{1.5, 10, 0, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(matches_every_nan_payload_with_a_nan_key) {
  // float64 (64-bit scan), float32, float16 and bfloat16 (16-bit), float8_e4m3 (table).
  {
    const auto c = chain(cast_json(R"({"data_type":"uint8","scalar_map":{"encode":[["NaN", 7]]}})"),
                         spec({4}, data_type::float64));
    const auto out = first(c).encode(chunk_of(data_type::float64, {0x7ff8000000000000, 0x7ff0000000000001,
                                                                     0xfff8000000000123, f64(2)}));
    BOOST_TEST(same(out, octets({7, 7, 7, 2})));
  }
  {  // a NaN key written as a hex pattern matches the canonical NaN too
    const auto c = chain(cast_json(R"({"data_type":"int8","scalar_map":{"encode":[["0x7fc00001", -1]]}})"),
                         spec({3}, data_type::float32));
    const auto out = first(c).encode(chunk_of(data_type::float32, {0x7fc00000, 0xffffffff, 0x3f800000}));
    BOOST_TEST(same(out, octets({0xff, 0xff, 1})));
  }
  for (auto t : {data_type::float16, data_type::bfloat16}) {
    const auto c = chain(cast_json(R"({"data_type":"int4","scalar_map":{"encode":[["NaN", -8]]}})"), spec({3}, t));
    const auto nan = t == data_type::float16 ? 0x7e00 : 0x7fc0;
    const auto out = first(c).encode(chunk_of(t, {static_cast<std::uint64_t>(nan), static_cast<std::uint64_t>(nan | 0x8001), 0}));
    BOOST_TEST(same(out, octets({0xf8, 0xf8, 0})), zarr::name(t));
  }
  {
    const auto c = chain(cast_json(R"({"data_type":"uint4","scalar_map":{"encode":[["NaN", 15]]}})"),
                         spec({4}, data_type::float8_e4m3));
    const auto out = first(c).encode(octets({0x7f, 0xff, 0x79, 0x38}));  // NaNs, 1.0
    BOOST_TEST(same(out, octets({15, 15, 15, 1})));
  }
}

BOOST_AUTO_TEST_CASE(keeps_zero_and_negative_zero_apart_as_keys) {
  const auto c = chain(cast_json(R"({"data_type":"int8","scalar_map":{"encode":[[-0.0, 5]]}})"),
                       spec({3}, data_type::float64));
  BOOST_TEST(same(first(c).encode(to_bytes(std::vector<double>{-0.0, 0.0, 1.0})), octets({5, 0, 1})));
  // (fill values 1: a fill value 0 would map to 9 and not come back)
  const auto d = chain(cast_json(R"({"data_type":"int8","scalar_map":{"encode":[[0.0, 9]]}})"),
                       spec_one(2, data_type::float32));
  BOOST_TEST(same(first(d).encode(to_bytes(std::vector<float>{-0.0f, 0.0f})), octets({0, 9})));
  // decode: an int8 0 maps to -0.0 while 1 casts normally
  const auto e = chain(cast_json(R"({"data_type":"int8","scalar_map":{"decode":[[0, -0.0]]}})"),
                       spec_one(2, data_type::float16));
  const auto out = first(e).decode(octets({0, 1}));
  BOOST_TEST(raw_at(data_type::float16, out, 0) == 0x8000u);
  BOOST_TEST(raw_at(data_type::float16, out, 1) == 0x3c00u);
}

BOOST_AUTO_TEST_CASE(maps_values_before_any_range_check) {
  const auto c = chain(cast_json(R"({"data_type":"uint8","scalar_map":{"encode":[[300, 255], [1.5, 200]]}})"),
                       spec({4}, data_type::float64));
  // 300 would be out of range, 1.5 would round to 2: both are mapped instead.
  BOOST_TEST(same(first(c).encode(to_bytes(std::vector<double>{300, 1.5, 2.5, 0})), octets({255, 200, 2, 0})));
  ZARR_CHECK_ERROR(first(c).encode(to_bytes(std::vector<double>{300, 1, 301, 0})), errc::out_of_range,
                   "codecs[0] (cast_value), encoding element 2: expected a value within the range of uint8, got 301 (float64)");
  const auto d = chain(cast_json(R"({"data_type":"uint8"})"), spec({2}, data_type::float64));
  ZARR_CHECK_ERROR(first(d).encode(to_bytes(std::vector<double>{1, std::nan("")})), errc::invalid_value,
                   "encoding element 1: expected a finite number representable in uint8, got NaN (float64)");
}

// A per-element reference of the spec's procedure: the first matching entry, else the cast.
struct reference {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> entries;  // raw in, raw out, in order
  data_type from, to;
  zarr::rounding_mode mode;
  zarr::out_of_range_mode oor;
  zarr::numeric_result operator()(std::uint64_t x) const {
    const bool x_nan = zarr::is_float(from) && zarr::decode(from, x).kind == zarr::value_class::nan;
    for (const auto& [in, out] : entries) {
      const bool in_nan = zarr::is_float(from) && zarr::decode(from, in).kind == zarr::value_class::nan;
      if (in_nan ? x_nan : in == x) return {out, zarr::numeric_errc::none, false};
    }
    return zarr::cast(from, x, to, mode, oor);
  }
};

BOOST_AUTO_TEST_CASE(applies_scalar_map_on_every_path_like_an_element_by_element_reference) {
  // Chunks of 40000 elements span three segments of the wide-source path; keys, NaNs and
  // casts that fail without the map are scattered through them.
  struct trial {
    data_type from, to;
    const char* configuration;
    std::vector<std::pair<double, double>> map;  // used to build `reference`
    bool nan_key;
    double nan_out;
  };
  const std::vector<trial> trials{
      {data_type::float64, data_type::uint8, R"("data_type":"uint8","scalar_map":{"encode":[["NaN",0],[300,255],[-1,254]]})",
       {{300, 255}, {-1, 254}}, true, 0},
      {data_type::float32, data_type::int16, R"("data_type":"int16","rounding":"towards-zero","scalar_map":{"encode":[[0.5,7],["NaN",-1]]})",
       {{0.5, 7}}, true, -1},
      {data_type::float16, data_type::float8_e4m3, R"("data_type":"float8_e4m3","out_of_range":"clamp","scalar_map":{"encode":[["NaN",0],[1,2]]})",
       {{1, 2}}, true, 0},
      {data_type::bfloat16, data_type::float32, R"("data_type":"float32","scalar_map":{"encode":[["NaN",-1.5]]})", {}, true, -1.5},
      {data_type::int32, data_type::uint8, R"("data_type":"uint8","scalar_map":{"encode":[[-1,255],[1000,254]]})",
       {{-1, 255}, {1000, 254}}, false, 0},
      {data_type::int64, data_type::float16, R"("data_type":"float16","scalar_map":{"encode":[[70000,"Infinity"]]})",
       {{70000, INFINITY}}, false, 0},
      {data_type::uint8, data_type::float32, R"("data_type":"float32","scalar_map":{"encode":[[255,"NaN"]]})",
       {{255, NAN}}, false, 0},
      {data_type::int4, data_type::uint2, R"("data_type":"uint2","out_of_range":"clamp","scalar_map":{"encode":[[-8,3]]})",
       {{-8, 3}}, false, 0},
  };
  std::mt19937_64 gen(7);
  for (const auto& t : trials) {
    reference ref{{}, t.from, t.to, zarr::rounding_mode::nearest_even, zarr::out_of_range_mode::error};
    const auto cfg = json::parse(std::string("{") + t.configuration + "}").as_object();
    if (const auto* r = cfg.if_contains("rounding")) ref.mode = *zarr::rounding_mode_from_name(r->as_string());
    if (const auto* o = cfg.if_contains("out_of_range")) ref.oor = *zarr::out_of_range_mode_from_name(o->as_string());
    const auto raw_of = [](data_type type, double v) { return zarr::round_to(type, zarr::exact_value::from_double(v)).bits; };
    std::vector<std::uint64_t> keys;
    if (t.nan_key) {
      ref.entries.emplace_back(raw_of(t.from, NAN), raw_of(t.to, t.nan_out));
      keys.push_back(raw_of(t.from, NAN));
    }
    for (const auto& [in, out] : t.map) {
      ref.entries.emplace_back(raw_of(t.from, in), raw_of(t.to, out));
      keys.push_back(raw_of(t.from, in));
    }
    // Values: mostly small numbers that cast, a few keys (NaN with random payloads).
    constexpr std::size_t n = 40000;
    std::vector<std::uint64_t> values(n);
    for (auto& v : values) {
      const auto pick = gen() % 16;
      if (pick < 2 && !keys.empty()) {
        v = keys[gen() % keys.size()];
        if (t.nan_key && v == keys.front() && zarr::info(t.from).bits >= 16)
          v |= gen() & ((std::uint64_t{1} << (zarr::info(t.from).format.mantissa_bits - 1)) - 1);  // another NaN
      } else {
        v = raw_of(t.from, static_cast<double>(gen() % 4));
      }
    }
    const auto c = chain(cast_json(std::string("{") + t.configuration + "}"), spec({n}, t.from));
    const auto out = first(c).encode(chunk_of(t.from, values));
    int bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = ref(values[i]);
      BOOST_TEST_REQUIRE(r.ok());
      const auto got = raw_at(t.to, out, i);
      const bool same_value = zarr::is_float(t.to) && zarr::decode(t.to, r.bits).kind == zarr::value_class::nan
                                  ? zarr::decode(t.to, got).kind == zarr::value_class::nan
                                  : got == r.bits;
      if (!same_value && ++bad <= 5)
        BOOST_ERROR(zarr::name(t.from) << " -> " << zarr::name(t.to) << " element " << i << ": "
                                       << zarr::format_value(t.from, values[i]) << " gave "
                                       << zarr::format_value(t.to, got) << ", expected " << zarr::format_value(t.to, r.bits));
    }
    BOOST_TEST(bad == 0);
    // One value that neither the map nor the cast converts, late in the third segment
    // (where there is one: clamp and float targets convert everything but NaN).
    std::optional<std::uint64_t> unconvertible;
    for (double v : {1e6, -1e6, 100.0, -5.0, 7.0})
      if (const auto x = raw_of(t.from, v); !ref(x).ok()) {
        unconvertible = x;
        break;
      }
    if (!unconvertible) continue;
    values[39000] = *unconvertible;
    values[39001] = *unconvertible;
    ZARR_CHECK_ERROR(first(c).encode(chunk_of(t.from, values)), zarr::to_errc(ref(*unconvertible).error),
                     "encoding element 39000: ");
  }
}

// ---------------------------------------------------------------- fill values

BOOST_AUTO_TEST_CASE(casts_the_fill_value_in_both_directions) {
  auto s = spec({4}, data_type::float64);
  s.fill = zarr::scalar::of(data_type::float64, 0.5);
  const auto c = chain(cast_json(R"({"data_type":"float16"})"), s);
  BOOST_TEST(first(c).encoded().type == data_type::float16);
  BOOST_TEST(first(c).encoded().fill.raw() == 0x3800u);  // 0.5
  auto u = spec({4}, data_type::uint8);
  u.fill = zarr::scalar::of(data_type::uint8, std::uint8_t{7});
  const auto d = chain(cast_json(R"({"data_type":"float32"})"), u);
  BOOST_TEST(first(d).encoded().fill.as<float>() == 7.0f);
  // NaN through a map in both directions
  auto n = spec({4}, data_type::float32);
  n.fill = zarr::scalar::of(data_type::float32, std::numeric_limits<float>::quiet_NaN());
  const auto e = chain(cast_json(R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",255]],"decode":[[255,"NaN"]]}})"), n);
  BOOST_TEST(first(e).encoded().fill.raw() == 255u);
  // -0.0 keeps its sign into a float type
  auto z = spec({4}, data_type::float64);
  z.fill = zarr::scalar::of(data_type::float64, -0.0);
  BOOST_TEST(first(chain(cast_json(R"({"data_type":"float32"})"), z)).encoded().fill.raw() == 0x80000000u);
}

BOOST_AUTO_TEST_CASE(rejects_a_fill_value_that_does_not_survive_the_round_trip) {
  auto s = spec({4}, data_type::float64);
  s.fill = zarr::scalar::of(data_type::float64, 0.5);
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"int32"})"), s), errc::invalid_metadata,
                   "codecs[0] (cast_value): expected a fill value that survives the round trip float64 -> int32 -> "
                   "float64, got 0.5 (float64) -> 0 -> 0");
  auto i = spec({4}, data_type::int32);
  i.fill = zarr::scalar::of(data_type::int32, std::int32_t{300});
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8"})"), i), errc::invalid_metadata,
                   "codecs[0] (cast_value): expected a fill value that casts to uint8, got 300 (int32): positive overflow");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","out_of_range":"clamp"})"), i), errc::invalid_metadata,
                   "got 300 (int32) -> 255 -> 255");
  auto n = spec({4}, data_type::float32);
  n.fill = zarr::scalar::of(data_type::float32, std::numeric_limits<float>::quiet_NaN());
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8"})"), n), errc::invalid_metadata, "got NaN (float32)");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","scalar_map":{"encode":[["NaN",255]]}})"), n),
                   errc::invalid_metadata, "got NaN (float32) -> 255 -> 255");
  auto z = spec({4}, data_type::float64);
  z.fill = zarr::scalar::of(data_type::float64, -0.0);
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"int8"})"), z), errc::invalid_metadata, "got -0 (float64) -> 0 -> 0");
}

BOOST_AUTO_TEST_CASE(checks_the_fill_value_when_an_array_is_created_or_opened) {
  const auto text = [](std::string_view fill) {
    return R"({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float64", "fill_value": )" +
           std::string(fill) + R"(, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default"},
        "codecs": [{"name": "cast_value", "configuration": {"data_type": "int16"}},
                   {"name": "bytes", "configuration": {"endian": "little"}}]})";
  };
  auto store = std::make_shared<zarr::memory_store>();
  ZARR_CHECK_ERROR(zarr::array::create(store, "bad", zarr::array_metadata::parse(zarr::parse_json(text("0.5")))),
                   errc::invalid_metadata, "array \"/bad\": codecs[0] (cast_value): expected a fill value that survives");
  BOOST_TEST(!store->get("bad/zarr.json").has_value());
  // A document written by someone else fails when it is opened.
  const auto bad = text("2.25");
  store->set("other/zarr.json", octets(bad));
  ZARR_CHECK_ERROR(zarr::array::open(store, "other"), errc::invalid_metadata, "got 2.25 (float64) -> 2 -> 2");
  // One that round-trips works, and unwritten chunks read as the fill value.
  auto a = zarr::array::create(store, "good", zarr::array_metadata::parse(zarr::parse_json(text("-7"))));
  a.write<double>({{0}, {1}}, std::vector<double>{12});
  BOOST_TEST(zarr::array::open(store, "good").read<double>({{0}, {4}}) == (std::vector<double>{12, -7, -7, -7}),
             boost::test_tools::per_element());
}

// ---------------------------------------------------------------- configuration errors

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_keys) {
  const auto f = spec({2}, data_type::float64);
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","round":"towards-zero"})"), f), errc::invalid_metadata,
                   "codecs[0].configuration.round: expected no such key");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","scalar_map":{"encode":[],"both":[]}})"), f),
                   errc::invalid_metadata, "codecs[0].configuration.scalar_map.both: expected no such key");
}

BOOST_AUTO_TEST_CASE(rejects_a_missing_or_malformed_configuration) {
  const auto f = spec({2}, data_type::float64);
  ZARR_CHECK_ERROR(chain(R"(["cast_value","bytes"])", f), errc::invalid_metadata,
                   "codecs[0].configuration.data_type: expected a data type, got nothing");
  ZARR_CHECK_ERROR(chain(cast_json("3"), f), errc::invalid_metadata, "codecs[0].configuration: expected an object");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":8})"), f), errc::invalid_metadata, "codecs[0].configuration.data_type");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint7"})"), f), errc::unsupported, "codecs[0].configuration.data_type");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","rounding":1})"), f), errc::invalid_metadata,
                   "codecs[0].configuration.rounding: expected a string, got 1");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","rounding":"up"})"), f), errc::invalid_metadata,
                   "codecs[0].configuration.rounding: expected one of");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","rounding":"Nearest-Even"})"), f), errc::invalid_metadata,
                   "codecs[0].configuration.rounding");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","out_of_range":null})"), f), errc::invalid_metadata,
                   "codecs[0].configuration.out_of_range: expected a string, got null");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","out_of_range":"saturate"})"), f), errc::invalid_metadata,
                   "codecs[0].configuration.out_of_range: expected \"clamp\" or \"wrap\", got \"saturate\"");
}

BOOST_AUTO_TEST_CASE(rejects_wrap_with_a_float_data_type) {
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"float32","out_of_range":"wrap"})"), spec({2}, data_type::float64)),
                   errc::invalid_metadata, "codecs[0].configuration.out_of_range: expected \"clamp\" or no out_of_range");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"float8_e4m3","out_of_range":"wrap"})"), spec({2}, data_type::int8)),
                   errc::invalid_metadata, "(\"wrap\" is for integer targets only)");
  // wrap into any integer type is fine, also when decoding to a float array type
  BOOST_CHECK_NO_THROW(chain(cast_json(R"({"data_type":"int2","out_of_range":"wrap"})"), spec({2}, data_type::float32)));
}

BOOST_AUTO_TEST_CASE(rejects_types_that_are_not_numbers) {
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"bool"})"), spec({2}, data_type::float64)), errc::invalid_metadata,
                   "codecs[0].configuration.data_type: expected an integer or floating-point data type");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":{"name":"complex64"}})"), spec({2}, data_type::float32)),
                   errc::invalid_metadata, "got \"complex64\"");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8"})"), spec({2}, data_type::bool_)), errc::invalid_metadata,
                   "codecs[0] (cast_value): expected an input of an integer or floating-point data type");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"float64"})"), spec({2}, data_type::complex128)),
                   errc::invalid_metadata, "got complex128");
  // the object form of data_type is accepted
  const auto c = chain(cast_json(R"({"data_type":{"name":"bfloat16"}})"), spec({2}, data_type::float32));
  BOOST_TEST(first(c).encoded().type == data_type::bfloat16);
}

BOOST_AUTO_TEST_CASE(rejects_malformed_scalar_maps) {
  const auto f = spec({2}, data_type::float64);
  const auto bad = [&](std::string_view map, std::string_view part) {
    ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","scalar_map":)" + std::string(map) + "}"), f),
                     errc::invalid_metadata, part);
  };
  bad("[]", "codecs[0].configuration.scalar_map: expected an object");
  bad(R"({"encode":{"NaN":0}})", "codecs[0].configuration.scalar_map.encode: expected an array of [input, output] pairs");
  bad(R"({"decode":7})", "codecs[0].configuration.scalar_map.decode: expected an array");
  bad(R"({"encode":[["NaN",0],["NaN"]]})", "codecs[0].configuration.scalar_map.encode[1]: expected an [input, output] pair");
  bad(R"({"encode":[[1,2,3]]})", "codecs[0].configuration.scalar_map.encode[0]: expected an [input, output] pair");
  bad(R"({"encode":[0]})", "codecs[0].configuration.scalar_map.encode[0]: expected an [input, output] pair, got 0");
}

BOOST_AUTO_TEST_CASE(rejects_scalar_map_entries_their_types_cannot_hold) {
  const auto i = spec({2}, data_type::int32);
  const auto bad = [&](std::string_view map, std::string_view part) {
    ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"uint8","scalar_map":)" + std::string(map) + "}"), i),
                     errc::invalid_metadata, part);
  };
  // encode: keys are int32, values uint8; decode: keys uint8, values int32
  bad(R"({"encode":[[0,0],[1.5,3]]})", "codecs[0].configuration.scalar_map.encode[1][0]");
  bad(R"({"encode":[[0,0],[1,300]]})", "codecs[0].configuration.scalar_map.encode[1][1]");
  bad(R"({"encode":[["NaN",0]]})", "codecs[0].configuration.scalar_map.encode[0][0]");
  bad(R"({"decode":[[-1,0]]})", "codecs[0].configuration.scalar_map.decode[0][0]");
  bad(R"({"decode":[[1,"Infinity"]]})", "codecs[0].configuration.scalar_map.decode[0][1]");
  bad(R"({"decode":[[1,3000000000]]})", "codecs[0].configuration.scalar_map.decode[0][1]");
  // float types: beyond the finite range, a NaN where the type has none
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"float8_e4m3","scalar_map":{"encode":[[1, 250]]}})"),
                         spec({2}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.scalar_map.encode[0][1]");
  ZARR_CHECK_ERROR(chain(cast_json(R"({"data_type":"float4_e2m1fn","scalar_map":{"decode":[["NaN", 0]]}})"),
                         spec({2}, data_type::float32)),
                   errc::invalid_metadata, "codecs[0].configuration.scalar_map.decode[0][0]");
}

BOOST_AUTO_TEST_CASE(reads_scalar_map_entries_exactly_from_the_document_text) {
  // float32 max + 1/2 ulp, the overflow tie: out of range when read exactly from the text.
  // Boost.JSON alone holds it as a double whose shortest decimal lies just below the tie,
  // which would give float32 max.
  const std::string text = R"({"codecs": [{"name": "cast_value", "configuration": {"data_type": "float32",
      "scalar_map": {"encode": [[1, 340282356779733661637539395458142568448]]}}},
      {"name": "bytes", "configuration": {"endian": "little"}}]})";
  const auto doc = json::parse(text);
  ZARR_CHECK_ERROR(zarr::codec_chain(doc.at("codecs"), spec({2}, data_type::float64), "codecs", text),
                   errc::invalid_metadata, "codecs[0].configuration.scalar_map.encode[0][1]");
  const zarr::codec_chain without_text(doc.at("codecs"), spec({2}, data_type::float64));
  const auto out = first(without_text).encode(to_bytes(std::vector<double>{1, 2}));
  BOOST_TEST(raw_at(data_type::float32, out, 0) == 0x7f7fffffu);
}

BOOST_AUTO_TEST_CASE(names_its_position_inside_a_shard) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[2],
      "codecs":[{"name":"cast_value","configuration":{"data_type":"uint8","scalar_map":{"encode":[[0.5,-1]]}}},"bytes"],
      "index_codecs":["bytes"]}}])",
                         spec({4}, data_type::float64)),
                   errc::invalid_metadata, "codecs[0].configuration.codecs[0].configuration.scalar_map.encode[0][1]");
}

BOOST_AUTO_TEST_CASE(writes_its_canonical_configuration) {
  const auto c = chain(cast_json(R"({"data_type":{"name":"int8"},"out_of_range":"wrap",
      "scalar_map":{"decode":[[-128,"NaN"]],"encode":[["NaN",-128],[2,1]]}})"),
                       spec({2}, data_type::float32));
  BOOST_TEST(json::serialize(first(c).to_json()) ==
             R"({"name":"cast_value","configuration":{"data_type":"int8","rounding":"nearest-even","out_of_range":"wrap",)"
             R"("scalar_map":{"encode":[["NaN",-128],[2,1]],"decode":[[-128,"NaN"]]}}})");
  // and the same configuration reads back to the same codec
  const auto again = chain("[" + json::serialize(first(c).to_json()) + R"(,"bytes"])", spec({2}, data_type::float32));
  BOOST_TEST(json::serialize(first(again).to_json()) == json::serialize(first(c).to_json()));
}

BOOST_AUTO_TEST_SUITE_END()
