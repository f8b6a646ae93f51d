// The zfp codec: streams compared byte for byte with the zfp command-line tool (Debian's zfp,
// the same modes given as its flags), the spec's promotions of small integers written out
// here, exact round trips in reversible mode, and the errors of bad configurations and streams.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

zarr::codec_chain zfp(std::string_view configuration, std::vector<std::uint64_t> shape, data_type type) {
  return chain(std::string(R"([{"name":"zfp","configuration":)") + std::string(configuration) + "}]", spec(std::move(shape), type));
}

bool have_zfp_tool() {
  static const bool yes = std::system("command -v zfp >/dev/null 2>&1") == 0;
  return yes;
}

void write_file(const std::filesystem::path& p, std::span<const std::byte> b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

zarr::bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return octets(s);
}

// The zfp tool's stream for `raw` (no header), its `type` and `dims` flags ("-t f32 -2 8 6")
// and mode flags ("-r 8"); and what it decompresses that stream to.
struct tool_result {
  zarr::bytes stream, decoded;
};
tool_result zfp_tool(std::span<const std::byte> raw, const std::string& type_and_dims, const std::string& mode) {
  const auto dir = scratch_dir();
  write_file(dir / "in.raw", raw);
  const auto base = "zfp -q " + type_and_dims + " " + mode;
  const auto compress = base + " -i '" + (dir / "in.raw").string() + "' -z '" + (dir / "out.zfp").string() + "'";
  const auto decompress = base + " -z '" + (dir / "out.zfp").string() + "' -o '" + (dir / "out.raw").string() + "'";
  BOOST_TEST_REQUIRE(std::system(compress.c_str()) == 0, compress);
  BOOST_TEST_REQUIRE(std::system(decompress.c_str()) == 0, decompress);
  return {read_file(dir / "out.zfp"), read_file(dir / "out.raw")};
}

template <class T>
zarr::bytes smooth(std::size_t n, double scale, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(scale * (std::sin(0.1 * static_cast<double>(i)) + noise(gen)));
  return to_bytes(v);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(zfp_codec)

// Every mode, as the zfp tool compresses the same values with the same parameters: the same
// stream byte for byte (shape [ny, nx] is the tool's "nx ny"), and the same values back.
BOOST_AUTO_TEST_CASE(writes_and_reads_what_the_zfp_tool_writes_and_reads) {
  if (!have_zfp_tool()) return peer_missing("the zfp command-line tool (Debian package zfp) is not installed");
  struct row {
    std::string configuration;
    std::vector<std::uint64_t> shape;
    data_type type;
    std::string tool_type_and_dims, tool_mode;
  };
  const std::vector<row> rows{
      {R"({"mode":"reversible"})", {6, 8}, data_type::int32, "-t i32 -2 8 6", "-R"},
      {R"({"mode":"reversible"})", {3, 5, 7}, data_type::float64, "-t f64 -3 7 5 3", "-R"},
      {R"({"mode":"fixed_rate","rate":8})", {6, 8}, data_type::float32, "-t f32 -2 8 6", "-r 8"},
      {R"({"mode":"fixed_rate","rate":12.5})", {40}, data_type::float64, "-t f64 -1 40", "-r 12.5"},
      {R"({"mode":"fixed_precision","precision":20})", {2, 3, 4, 5}, data_type::float64, "-t f64 -4 5 4 3 2", "-p 20"},
      {R"({"mode":"fixed_precision","precision":12})", {9, 9}, data_type::int64, "-t i64 -2 9 9", "-p 12"},
      {R"({"mode":"fixed_accuracy","tolerance":0.01})", {4, 6, 5}, data_type::float32, "-t f32 -3 5 6 4", "-a 0.01"},
      {R"({"mode":"expert","minbits":1,"maxbits":900,"maxprec":30,"minexp":-20})", {10, 7}, data_type::float64,
       "-t f64 -2 7 10", "-c 1 900 30 -20"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.configuration << " on " << zarr::name(r.type)) {
      std::size_t n = 1;
      for (auto e : r.shape) n *= static_cast<std::size_t>(e);
      const auto raw = r.type == data_type::float32   ? smooth<float>(n, 100, 1)
                       : r.type == data_type::float64 ? smooth<double>(n, 1000, 2)
                       : r.type == data_type::int32   ? smooth<std::int32_t>(n, 1e6, 3)
                                                      : smooth<std::int64_t>(n, 1e12, 4);
      const auto tool = zfp_tool(raw, r.tool_type_and_dims, r.tool_mode);
      const auto c = zfp(r.configuration, r.shape, r.type);
      BOOST_TEST(same(c.encode(raw), tool.stream));
      BOOST_TEST(same(c.decode(tool.stream), tool.decoded));
      if (r.tool_mode == "-R") BOOST_TEST(same(tool.decoded, raw));
    }
  }
}

// int8/int16/uint8/uint16 become int32 by the spec's formulas, written out here: the stream is
// the zfp tool's for those int32 values; reversible mode gives every value back.
BOOST_AUTO_TEST_CASE(promotes_small_integers_as_the_spec_writes) {
  if (!have_zfp_tool()) return peer_missing("the zfp command-line tool (Debian package zfp) is not installed");
  std::vector<std::int8_t> i8(256);
  std::vector<std::uint8_t> u8(256);
  std::vector<std::int16_t> i16(256);
  std::vector<std::uint16_t> u16(256);
  std::vector<std::int32_t> p_i8(256), p_u8(256), p_i16(256), p_u16(256);
  for (int k = 0; k < 256; ++k) {
    i8[k] = static_cast<std::int8_t>(k - 128);
    u8[k] = static_cast<std::uint8_t>(k);
    i16[k] = static_cast<std::int16_t>((k - 128) * 256 + k);
    u16[k] = static_cast<std::uint16_t>(k * 257);
    // int with N bits: (int32_t)v << (31 - N); uint: ((int32_t)v - (1 << (N - 1))) << (31 - N)
    p_i8[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(std::int32_t{i8[k]}) << 23);
    p_u8[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(std::int32_t{u8[k]} - 128) << 23);
    p_i16[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(std::int32_t{i16[k]}) << 15);
    p_u16[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(std::int32_t{u16[k]} - 32768) << 15);
  }
  const auto check = [&](data_type t, const zarr::bytes& raw, const std::vector<std::int32_t>& promoted) {
    BOOST_TEST_CONTEXT(zarr::name(t)) {
      const auto tool = zfp_tool(to_bytes(promoted), "-t i32 -2 16 16", "-R");
      const auto c = zfp(R"({"mode":"reversible"})", {16, 16}, t);
      BOOST_TEST(same(c.encode(raw), tool.stream));
      BOOST_TEST(same(c.decode(tool.stream), raw));
    }
  };
  check(data_type::int8, to_bytes(i8), p_i8);
  check(data_type::uint8, to_bytes(u8), p_u8);
  check(data_type::int16, to_bytes(i16), p_i16);
  check(data_type::uint16, to_bytes(u16), p_u16);
}

// numpy.datetime64 and numpy.timedelta64 as int64 (the spec: "datetime64 -> int64"): the zfp
// tool's int64 stream for the same counts, and every count (NaT, INT64_MIN, included) back.
BOOST_AUTO_TEST_CASE(compresses_the_time_types_as_the_int64_they_are) {
  if (!have_zfp_tool()) return peer_missing("the zfp command-line tool (Debian package zfp) is not installed");
  auto counts = from_bytes<std::int64_t>(smooth<std::int64_t>(96, 1e15, 6));
  counts[5] = INT64_MIN;  // NaT
  counts[6] = INT64_MAX;
  for (const auto type : {data_type::numpy_datetime64, data_type::numpy_timedelta64})
    for (const std::string mode : {"-R", "-p 40"}) {
      BOOST_TEST_CONTEXT(zarr::name(type) << " " << mode) {
        const auto tool = zfp_tool(to_bytes(counts), "-t i64 -2 12 8", mode);
        const auto c = zfp(mode == "-R" ? R"({"mode":"reversible"})" : R"({"mode":"fixed_precision","precision":40})", {8, 12}, type);
        BOOST_TEST(same(c.encode(to_bytes(counts)), tool.stream));
        BOOST_TEST(same(c.decode(tool.stream), tool.decoded));
        if (mode == "-R") BOOST_TEST(same(tool.decoded, to_bytes(counts)));
      }
    }
}

// uint32 and uint64 are offset by half their range (docs/decisions.md 33): every value,
// the extremes included, comes back in reversible mode.
BOOST_AUTO_TEST_CASE(round_trips_unsigned_32_and_64_bit_integers_exactly) {
  const std::vector<std::uint32_t> u32{0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 12345, 0xDEADBEEF, 7};
  const std::vector<std::uint64_t> u64{0, 1, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, ~std::uint64_t{0}, 99, 0xDEADBEEFCAFEF00D, 3};
  BOOST_TEST(same(zfp(R"({"mode":"reversible"})", {8}, data_type::uint32).decode(
                      zfp(R"({"mode":"reversible"})", {8}, data_type::uint32).encode(to_bytes(u32))),
                  to_bytes(u32)));
  BOOST_TEST(same(zfp(R"({"mode":"reversible"})", {2, 4}, data_type::uint64).decode(
                      zfp(R"({"mode":"reversible"})", {2, 4}, data_type::uint64).encode(to_bytes(u64))),
                  to_bytes(u64)));
  // reversible mode keeps every float bit pattern: NaN payloads, infinities, -0, subnormals
  const std::vector<std::uint32_t> floats{0x7FC00001, 0xFFC12345, 0x7F800000, 0xFF800000, 0x80000000, 0x00000001,
                                          0x3F800000, 0x7F7FFFFF};
  const auto f = zfp(R"({"mode":"reversible"})", {8}, data_type::float32);
  BOOST_TEST(same(f.decode(f.encode(to_bytes(floats))), to_bytes(floats)));
  // the offset is what makes the order of values survive a lossy mode: a ramp stays a ramp
  std::vector<std::uint32_t> ramp(64);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = 0x7FFF0000u + static_cast<std::uint32_t>(i) * 0x1000u;
  const auto c = zfp(R"({"mode":"fixed_precision","precision":28})", {64}, data_type::uint32);
  const auto back = from_bytes<std::uint32_t>(c.decode(c.encode(to_bytes(ramp))));
  for (std::size_t i = 0; i < ramp.size(); ++i)
    BOOST_TEST(std::llabs(static_cast<long long>(back[i]) - static_cast<long long>(ramp[i])) < 0x100);
}

BOOST_AUTO_TEST_CASE(through_an_array_with_a_sharded_layout) {
  auto store = std::make_shared<zarr::memory_store>();
  auto a = zarr::array::create(store, "z", zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3,
      "node_type": "array", "shape": [30, 20], "data_type": "float64", "fill_value": 0,
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10, 20]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [5, 5],
        "codecs": [{"name": "zfp", "configuration": {"mode": "reversible"}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}]})")));
  const auto values = from_bytes<double>(smooth<double>(600, 3.5, 9));
  a.write<double>({{0, 0}, {30, 20}}, values);
  BOOST_TEST((a.read<double>({{0, 0}, {30, 20}}) == values));
  const auto part = a.read<double>({{12, 3}, {14, 4}});
  BOOST_TEST(part[0] == values[12 * 20 + 3]);
  BOOST_TEST(part[1] == values[13 * 20 + 3]);
}

BOOST_AUTO_TEST_CASE(refuses_values_a_lossy_mode_cannot_keep) {
  std::vector<float> v(16, 1.0f);
  v[5] = std::numeric_limits<float>::quiet_NaN();
  ZARR_CHECK_ERROR(zfp(R"({"mode":"fixed_rate","rate":8})", {16}, data_type::float32).encode(to_bytes(v)), errc::invalid_value,
                   "codecs[0] (zfp): element 5: expected a finite value (zfp's fixed_rate mode does not keep NaN or infinity), got nan");
  v[5] = -std::numeric_limits<float>::infinity();
  ZARR_CHECK_ERROR(zfp(R"({"mode":"fixed_accuracy","tolerance":0.1})", {16}, data_type::float32).encode(to_bytes(v)),
                   errc::invalid_value, "element 5: expected a finite value");
}

BOOST_AUTO_TEST_CASE(refuses_bad_configurations) {
  const auto bad = [](std::string_view config, data_type t, errc code, std::string_view message) {
    ZARR_CHECK_ERROR(zfp(config, {4, 4}, t), code, message);
  };
  bad("{}", data_type::float32, errc::invalid_metadata, "codecs[0].configuration.mode: expected a string, got nothing");
  bad(R"({"mode":"lossless"})", data_type::float32, errc::invalid_metadata,
      "codecs[0].configuration.mode: expected \"reversible\", \"fixed_rate\", \"fixed_precision\", \"fixed_accuracy\" or \"expert\", got \"lossless\"");
  bad(R"({"mode":"fixed_rate"})", data_type::float32, errc::invalid_metadata, "codecs[0].configuration.rate: expected a number, got nothing");
  bad(R"({"mode":"fixed_rate","rate":0})", data_type::float32, errc::invalid_metadata, "rate: expected a number above 0 and at most 64, got 0");
  bad(R"({"mode":"fixed_precision","precision":65})", data_type::float32, errc::invalid_metadata,
      "precision: expected an integer from 0 to 64, got 65");
  bad(R"({"mode":"fixed_accuracy","tolerance":-1})", data_type::float32, errc::invalid_metadata,
      "tolerance: expected a finite number of at least 0, got -1");
  bad(R"({"mode":"reversible","rate":8})", data_type::float32, errc::invalid_metadata, "codecs[0].configuration.rate");
  bad(R"({"mode":"expert","minbits":10,"maxbits":5,"maxprec":64,"minexp":-1074})", data_type::float64, errc::invalid_metadata,
      "expected 1 <= minbits <= maxbits and maxprec >= 1");
  bad(R"({"mode":"expert","minbits":1,"maxbits":5,"maxprec":64})", data_type::float64, errc::invalid_metadata,
      "codecs[0].configuration.minexp: expected an integer, got nothing");
  bad(R"({"mode":"fixed_accuracy","tolerance":0.5})", data_type::int32, errc::unsupported,
      "codecs[0] (zfp): expected float32 or float64 in fixed_accuracy mode");
  bad(R"({"mode":"reversible"})", data_type::bool_, errc::unsupported, "codecs[0] (zfp): expected int8, int16");
  ZARR_CHECK_ERROR(zfp(R"({"mode":"reversible"})", {2, 1, 2, 1, 2}, data_type::float32), errc::unsupported,
                   "codecs[0] (zfp): expected a chunk of at most 4 dimensions, got 5");
}

// zfp trusts its stream to hold the data; a stream cut short, or longer than any valid one,
// is refused without reading past the bytes given.
BOOST_AUTO_TEST_CASE(refuses_streams_cut_short_or_too_long) {
  const auto c = zfp(R"({"mode":"reversible"})", {8, 8}, data_type::float64);
  const auto stream = c.encode(smooth<double>(64, 10, 5));
  for (const std::size_t keep : {std::size_t{0}, std::size_t{8}, stream.size() / 2, stream.size() - 8})
    BOOST_TEST_CONTEXT("kept " << keep << " of " << stream.size() << " bytes")
    ZARR_CHECK_ERROR(c.decode(std::span(stream).first(keep)), errc::corrupt_chunk, "ends early");
  zarr::bytes huge(static_cast<std::size_t>(c.max_encoded_size()) + 1);
  ZARR_CHECK_ERROR(c.decode(huge), errc::corrupt_chunk, "zfp's bound");
}

BOOST_AUTO_TEST_SUITE_END()
