// zarr.fuzz.seeds DATA_DIR SEEDS_DIR CORPUS_DIR: writes the seed inputs of every fuzz target
// into SEEDS_DIR/<target>/ (emptied first) and creates the empty working corpus folders
// CORPUS_DIR/<target>/. DATA_DIR is the tests' unpacked data (tests/data/README.md). Seeds come
// from the interop corpus (DATA_DIR/interop/corpus-*: its zarr.json documents, chunk files and
// whole arrays), the fill-value vectors (DATA_DIR/vectors/fill) and data encoded here with the
// library's own encoders.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>
#include "../../src/cli/cli.hpp"
#include "../../src/cli/formats.hpp"
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.fill_value;
import zarr.store;
import zarr.codec;
import zarr.codec.packbits;
import zarr.codec.blosc;
import zarr.codec.crc32c;
import zarr.codec.gzip;
import zarr.codec.zstd;
import zarr.codec.zfp;
import zarr.codec.numcodecs_zfpy;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.bytes;
import zarr.nd;

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::size_t max_seed = 64 * 1024;  // larger seeds slow every mutation down

const std::vector<std::string> targets{"zarr_json", "fill_value", "region",   "gzip",     "zstd",       "blosc",
                                       "crc32c",    "bytes",      "packbits", "sharding", "array_read", "zfp",
                                       "conditional", "s3_xml",   "http_headers", "zarray", "numcodecs", "time", "vlen",
                                       "sized_value", "zip_directory", "zmetadata", "zfpy", "n5_default", "optional",
                                       "objects", "cli", "npy", "store_url"};

fs::path seeds_root;
int written = 0;

void seed(const std::string& target, const std::string& name, std::string_view content) {
  if (content.size() > max_seed) return;
  std::ofstream out(seeds_root / target / name, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  ++written;
}

std::string text_of(std::span<const std::byte> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string flat_name(const fs::path& relative) {
  auto s = relative.generic_string();
  for (auto& c : s)
    if (c == '/') c = '_';
  return s;
}

// Sample data: a ramp, zeros, text and pseudo-random bytes.
std::vector<zarr::bytes> samples() {
  std::vector<zarr::bytes> out;
  zarr::bytes ramp(300), zeros(1000, std::byte{0}), noise(500);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<std::byte>(i);
  std::uint32_t x = 12345;
  for (auto& b : noise) b = static_cast<std::byte>((x = x * 1103515245 + 12345) >> 24);
  const std::string_view text = R"({"zarr_format": 3, "node_type": "group", "attributes": {"a": [1, 2, 3]}})";
  out.push_back(ramp);
  out.push_back(zeros);
  out.push_back(noise);
  out.emplace_back(reinterpret_cast<const std::byte*>(text.data()), reinterpret_cast<const std::byte*>(text.data()) + text.size());
  out.emplace_back();
  return out;
}

// numcodecs.fuzz.cpp: a selector byte (the codec's place in its table), then its encoding.
void numcodecs_seeds(const zarr::bytes& sample, const std::string& n) {
  const auto codecs = zarr_fuzz::numcodecs_decoders();
  for (std::size_t c = 0; c < codecs.size(); ++c) {
    zarr::bytes in = sample;
    in.resize(in.size() / 4 * 4);  // shuffle's elements
    seed("numcodecs", "sample" + n + "_" + std::string(codecs[c]->name()) + std::to_string(c),
         std::string(1, static_cast<char>(c)) + text_of(codecs[c]->encode(in)));
  }
}

void zarray_seeds() {
  // sized_value: data type, value, then a byte order byte and stored bytes (the specs' examples).
  {
    const std::string sep(zarr_fuzz::record_separator);
    seed("sized_value", "r24", R"("r24")" + sep + "[1, 2, 255]" + sep + std::string("\x01\x01\x02\x03\x04\x05\x06", 7));
    seed("sized_value", "utf32_hi", R"({"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}})" + sep + R"("Hi")" + sep +
                                        std::string("\x00H\x00\x00\x00i\x00\x00\x00\x00\x00\x00\x00", 13));
    seed("sized_value", "struct_nested",
         R"({"name": "struct", "configuration": {"fields": [{"name": "point", "data_type": {"name": "struct", "configuration": {"fields": [{"name": "x", "data_type": "float32"}, {"name": "y", "data_type": "float32"}]}}}, {"name": "value", "data_type": "float64"}]}})" +
             sep + R"({"point": {"x": 1.0, "y": 2.0}, "value": 3.14})" + sep + std::string(33, '\x01'));
    seed("sized_value", "structured_tuples",
         R"({"name": "structured", "configuration": {"fields": [["x", "float32"], ["y", "int16"], ["b", "bool"], ["s", {"name": "fixed_length_utf32", "configuration": {"length_bytes": 4}}]]}})" +
             sep + R"("AACAPwEAAQAAAAA=")" + sep + std::string(12, '\x00'));
  }
  seed("zarray", "spec_example", R"({"chunks": [1000, 1000], "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5,
    "shuffle": 1}, "dtype": "<f8", "fill_value": "NaN", "filters": [{"id": "delta", "dtype": "<f8", "astype": "<f8"}],
    "order": "C", "shape": [10000, 10000], "zarr_format": 2})");
  seed("zarray", "filters", R"({"chunks": [3, 2], "compressor": {"id": "lzma", "format": 1, "check": -1, "preset": null,
    "filters": null}, "dtype": ">i2", "fill_value": null, "filters": [{"id": "astype", "encode_dtype": "|i1",
    "decode_dtype": ">i2"}, {"id": "shuffle", "elementsize": 1}, {"id": "crc32"}], "order": "F", "shape": [7, 5],
    "zarr_format": 2, "dimension_separator": "/"})");
  seed("zarray", "bool_packbits", R"({"chunks": [10], "compressor": {"id": "bz2", "level": 1}, "dtype": "|b1",
    "fill_value": true, "filters": [{"id": "packbits"}], "order": "C", "shape": [64], "zarr_format": 2})");
  seed("zarray", "complex", R"({"chunks": [], "compressor": {"id": "lz4", "acceleration": 1}, "dtype": "<c16",
    "fill_value": ["NaN", -1.5], "filters": [{"id": "quantize", "digits": 2, "dtype": "<f8"}], "order": "C",
    "shape": [], "zarr_format": 2})");
  seed("zarray", "zgroup", R"({"zarr_format": 2})");
}

void codec_seeds() {
  const auto data = samples();
  zarray_seeds();
  for (std::size_t i = 0; i < data.size(); ++i) {
    const auto n = std::to_string(i);
    seed("conditional", "sample" + n, text_of(zarr_fuzz::conditional_gzip_crc32c().encode(data[i])));
    numcodecs_seeds(data[i], n);
    for (int level : {0, 1, 9}) seed("gzip", "sample" + n + "_l" + std::to_string(level), text_of(zarr::gzip_codec({level}, "s").encode(data[i])));
    for (int level : {-5, 1, 19}) seed("zstd", "sample" + n + "_l" + std::to_string(level), text_of(zarr::zstd_codec({level, level > 0}, "s").encode(data[i])));
    for (const auto& [cname, name] : {std::pair{zarr::blosc_cname::lz4, "lz4"}, std::pair{zarr::blosc_cname::blosclz, "blosclz"},
                                       std::pair{zarr::blosc_cname::zstd, "zstd"}, std::pair{zarr::blosc_cname::zlib, "zlib"}})
      for (auto shuffle : {zarr::blosc_shuffle::noshuffle, zarr::blosc_shuffle::shuffle, zarr::blosc_shuffle::bitshuffle})
        seed("blosc", "sample" + n + "_" + name + std::to_string(static_cast<int>(shuffle)),
             text_of(zarr::blosc_codec({cname, 5, shuffle, 4, 0}, "s").encode(data[i])));
    seed("crc32c", "sample" + n, text_of(zarr::crc32c_codec("s").encode(data[i])));
  }
  // bytes: [type][flags] + data
  for (std::size_t t = 0; t < zarr::data_type_count; ++t)
    for (char flags : {0, 1, 5}) {
      if (zarr::is_variable_length(static_cast<zarr::data_type>(t)) || zarr::is_sized(static_cast<zarr::data_type>(t))) continue;
      std::string s{static_cast<char>(t), flags};
      s += text_of(data[0]).substr(0, 64);
      if (static_cast<zarr::data_type>(t) == zarr::data_type::bool_)
        for (std::size_t i = 2; i < s.size(); ++i) s[i] = static_cast<char>(s[i] & 1);
      seed("bytes", std::string(zarr::name(static_cast<zarr::data_type>(t))) + "_" + std::to_string(flags), s);
    }
  // packbits: [type][padding][first_bit][last_bit][flags] + a valid encoding of 16 elements
  struct pb { zarr::data_type type; int padding, first, last; };
  for (const auto& c : {pb{zarr::data_type::bool_, 0, 0xff, 0xff}, pb{zarr::data_type::int4, 1, 0, 3},
                        pb{zarr::data_type::uint2, 2, 0xff, 0xff}, pb{zarr::data_type::uint8, 0, 2, 6},
                        pb{zarr::data_type::int16, 2, 0, 10}, pb{zarr::data_type::uint32, 1, 0, 31},
                        pb{zarr::data_type::int64, 0, 3, 40}, pb{zarr::data_type::float32, 0, 0xff, 0xff},
                        pb{zarr::data_type::complex64, 2, 0xff, 0xff}, pb{zarr::data_type::float4_e2m1fn, 1, 0xff, 0xff},
                        pb{zarr::data_type::float6_e3m2fn, 0, 0xff, 0xff}, pb{zarr::data_type::bfloat16, 2, 0, 15}}) {
    zarr::packbits_configuration config;
    config.padding_encoding = static_cast<zarr::packbits_padding>(c.padding);
    if (c.first != 0xff) config.first_bit = static_cast<std::uint64_t>(c.first);
    if (c.last != 0xff) config.last_bit = static_cast<std::uint64_t>(c.last);
    const zarr::packbits_codec codec(config, {{16}, c.type, zarr::default_fill_value(c.type)}, "s");
    auto encoded = codec.encode(zarr::filled(16, zarr::default_fill_value(c.type)));
    const std::size_t skip_front = c.padding == 1 ? 1 : 0, skip_back = c.padding == 2 ? 1 : 0;
    for (std::size_t i = skip_front; i + skip_back < encoded.size(); ++i) encoded[i] = static_cast<std::byte>(i * 37 + 11);
    std::string s{static_cast<char>(c.type), static_cast<char>(c.padding), static_cast<char>(c.first), static_cast<char>(c.last), 0};
    seed("packbits", std::string(zarr::name(c.type)) + "_" + std::to_string(c.first) + "_" + std::to_string(c.last),
         s + text_of(encoded));
  }
}

// zfp: [type][mode][rank][dims...] + a valid stream of a smooth chunk, for each mode.
void zfp_seeds() {
  const zarr::data_type types[] = {zarr::data_type::int8,  zarr::data_type::uint16, zarr::data_type::int32,
                                   zarr::data_type::int64, zarr::data_type::uint64, zarr::data_type::float32,
                                   zarr::data_type::float64};
  const std::uint8_t type_bytes[] = {0, 3, 4, 6, 7, 8, 9};  // their places in zarr_fuzz::zfp_types
  for (std::size_t t = 0; t < std::size(types); ++t)
    for (std::uint8_t mode = 0; mode < 5; ++mode) {
      const auto config = zarr_fuzz::zfp_configuration_of(mode);
      const std::vector<std::uint64_t> shape{5, 6};
      const zarr::chunk_spec spec{shape, types[t], zarr::default_fill_value(types[t])};
      try {
        const zarr::zfp_codec codec(config, spec, "s");
        zarr::bytes chunk(static_cast<std::size_t>(spec.byte_size()));
        for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::byte>((i / 3) % 7 == 0 ? 0x3F : 0);
        const std::string head{static_cast<char>(type_bytes[t]), static_cast<char>(mode), 2, 4, 5};
        seed("zfp", std::string(zarr::name(types[t])) + "_" + std::to_string(mode), head + text_of(codec.encode(chunk)));
      } catch (const zarr::error&) {
        // fixed_accuracy on an integer type, or a float pattern that is not finite: no seed
      }
    }
}

// zfpy: [type][rank][dims...] + zfp's header and stream of a smooth chunk, in each zfp mode.
void zfpy_seeds() {
  for (const std::uint8_t t : {0, 4, 7, 8, 9}) {  // places in zarr_fuzz::zfp_types
    const auto type = zarr_fuzz::zfp_types[t];
    for (std::uint8_t mode = 0; mode < 5; ++mode) {
      try {
        const zarr::numcodecs_zfpy_codec codec(zarr_fuzz::zfp_configuration_of(mode), {},
                                               zarr::chunk_spec{{5, 6}, type, zarr::default_fill_value(type)}, "s");
        zarr::bytes chunk(static_cast<std::size_t>(codec.decoded().byte_size()));
        for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::byte>((i / 3) % 7 == 0 ? 0x3F : 0);
        const std::string head{static_cast<char>(t), 1, 4, 5};
        seed("zfpy", std::string(zarr::name(type)) + "_" + std::to_string(mode), head + text_of(codec.encode(chunk)));
      } catch (const zarr::error&) {
        // fixed_accuracy on an integer type: no seed
      }
    }
  }
}

// n5_default: [type][rank][dims...][gzip] + a block of the chunk, and the same values in a
// smaller block, as a writer that truncates edge blocks stores them.
void n5_default_seeds() {
  for (const std::uint8_t t : {1, 3, 9}) {  // places in zarr_fuzz::zfp_types
    const auto type = zarr_fuzz::zfp_types[t];
    for (const bool gzip : {false, true}) {
      const auto codec = zarr_fuzz::n5_default_codec_of(type, {3, 4}, gzip);
      const auto smaller = zarr_fuzz::n5_default_codec_of(type, {2, 4}, gzip);
      zarr::bytes chunk(static_cast<std::size_t>(codec.decoded().byte_size()));
      for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::byte>(i * 7);
      const std::string head{static_cast<char>(t), 1, 2, 3, static_cast<char>(gzip)};
      const auto name = std::string(zarr::name(type)) + (gzip ? "_gzip" : "");
      seed("n5_default", name, head + text_of(codec.encode(chunk)));
      seed("n5_default", name + "_truncated",
           head + text_of(smaller.encode(std::span(chunk).first(static_cast<std::size_t>(smaller.decoded().byte_size())))));
    }
  }
}

// optional: [selector][rank][dims...] + a chunk of every fourth element null, and one all null.
void optional_seeds() {
  for (std::uint8_t selector = 0; selector < 4; ++selector) {
    const auto codec = zarr_fuzz::optional_codec_of(selector, {3, 4});
    const auto size = static_cast<std::size_t>(codec.decoded().element_size());
    zarr::bytes chunk(static_cast<std::size_t>(codec.decoded().byte_size()), std::byte{0});  // (bytes(n) is not zeroed)
    for (std::size_t i = 0; i < 12; ++i) {
      if (i % 4 == 0) continue;
      for (std::size_t k = 0; k + 1 < size; ++k) chunk[i * size + k] = static_cast<std::byte>(i * 7 + k);
      if (selector == 2) chunk[i * size + size - 2] = std::byte{i % 3 == 0 ? std::uint8_t{0} : std::uint8_t{1}};
      if (selector == 3) chunk[i * size + size - 2] = std::byte{0x3f};  // a finite float64
      chunk[i * size + size - 1] = std::byte{1};
      if (selector == 2 && i % 3 == 0)
        for (std::size_t k = 0; k + 2 < size; ++k) chunk[i * size + k] = std::byte{0};
    }
    const std::string head{static_cast<char>(selector), 1, 3, 4};
    seed("optional", "case" + std::to_string(selector), head + text_of(codec.encode(chunk)));
    seed("optional", "case" + std::to_string(selector) + "_null",
         head + text_of(codec.encode(zarr::bytes(chunk.size(), std::byte{0}))));
  }
}

void sharding_seeds() {
  for (int selector = 0; selector < 48; ++selector) {
    const auto c = zarr_fuzz::sharding_case_of(static_cast<std::uint8_t>(selector));
    const zarr::chunk_spec spec{c.shape, c.type, zarr::default_fill_value(c.type)};
    const zarr::codec_chain chain(zarr::parse_json(c.codecs), spec);
    // Values 1, 2, ... with the first inner chunk left at the fill value (an empty index entry).
    zarr::bytes shard(static_cast<std::size_t>(spec.byte_size()), std::byte{0});
    const auto element = static_cast<std::size_t>(zarr::info(c.type).size);
    for (std::size_t i = shard.size() / 2; i < shard.size(); i += element) shard[i] = static_cast<std::byte>(i / element + 1);
    const auto encoded = chain.array_to_bytes().encode(shard);
    std::string s{static_cast<char>(selector)};
    for (std::size_t i = 0; i < c.shape.size(); ++i) s += {static_cast<char>(c.shape[i] / 2), static_cast<char>(1)};
    seed("sharding", "case" + std::to_string(selector), s + text_of(encoded));
  }
}

void fill_value_seeds(const fs::path& data) {
  const auto dir = data / "vectors" / "fill";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".csv") continue;
    zarr::data_type type;
    try {
      type = zarr::data_type_from_name(entry.path().stem().string());
    } catch (const zarr::error&) {
      continue;
    }
    // Up to 60 rows of each file, spread over it (some files have thousands).
    std::vector<std::string> lines;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    const std::size_t step = lines.size() / 60 + 1;
    for (std::size_t row = 1; row < lines.size(); row += step) {
      const auto& line = lines[row];
      const auto comma = line.find(',');
      if (line.empty() || comma == std::string::npos) continue;
      seed("fill_value", entry.path().stem().string() + "_" + std::to_string(row),
           std::string(1, static_cast<char>(type)) + line.substr(0, comma));
    }
  }
  for (const char* text : {R"([1.5, "NaN"])", R"(["0x7fc00001", -0.0])", R"([1e300, "-Infinity"])", "[0, 0]"})
    for (auto type : {zarr::data_type::complex64, zarr::data_type::complex128})
      seed("fill_value", std::string(zarr::name(type)) + "_" + std::to_string(written), std::string(1, static_cast<char>(type)) + text);
}

// time.fuzz.cpp: [type][unit][scale x4][unit][scale x4][count x8].
void time_seeds() {
  struct c { char type; zarr::time_unit from; std::uint32_t from_scale; zarr::time_unit to; std::uint32_t to_scale;
             std::int64_t count; };
  using u = zarr::time_unit;
  for (const auto& t : {c{0, u::s, 1, u::ms, 1, -3}, c{0, u::Y, 1, u::D, 1, 30}, c{1, u::Y, 1, u::M, 1, 2},
                        c{0, u::M, 3, u::D, 1, -7}, c{1, u::us, 10, u::ms, 1, 100}, c{0, u::as, 1, u::W, 1, INT64_MAX},
                        c{0, u::generic, 1, u::s, 1, 5}, c{0, u::D, 1, u::Y, 1, 10957}, c{1, u::ns, 7, u::s, 1, INT64_MIN}}) {
    std::string s{t.type, static_cast<char>(t.from)};
    for (int i = 0; i < 4; ++i) s += static_cast<char>((t.from_scale - 1) >> (8 * i));
    s += static_cast<char>(t.to);
    for (int i = 0; i < 4; ++i) s += static_cast<char>((t.to_scale - 1) >> (8 * i));
    for (int i = 0; i < 8; ++i) s += static_cast<char>(static_cast<std::uint64_t>(t.count) >> (8 * i));
    seed("time", "time" + std::to_string(written), s);
  }
}

void region_seeds() {
  struct r { std::vector<std::uint64_t> shape; const char* text; };
  for (const auto& c : {r{{10, 20}, "0:10,:"}, r{{10, 20}, ":,5:"}, r{{4, 5, 6}, "1:2,3:4,5:6"}, r{{}, ""},
                        r{{7}, ":"}, r{{~std::uint64_t{0}}, "18446744073709551615:"}, r{{3}, "0:4"},
                        r{{1000, 1000}, "100:900,-1:5"}}) {
    std::string s(1, static_cast<char>(c.shape.size()));
    for (auto d : c.shape) zarr_fuzz::put_dimension(s, d);
    seed("region", "region" + std::to_string(written), s + c.text);
  }
}

// The records of an array_read input for the array at the root of `s` (a Zarr v2 array: an
// empty first record, its `.zarray` among the keys).
std::string records_of(const zarr::store& s) {
  const auto doc = s.get("zarr.json");
  std::string out = doc ? text_of(*doc) : std::string();
  for (const auto& key : s.list("")) {
    if (key == "zarr.json") continue;
    out += std::string(zarr_fuzz::record_separator) + key + std::string(zarr_fuzz::record_separator) + text_of(*s.get(key));
  }
  return out;
}

// The cli target's inputs for an array_read input: each command, with `region` (its text
// after the command byte and the option bits).
void cli_seeds(const std::string& name, const std::string& records, const std::string& region) {
  const auto sep = std::string(zarr_fuzz::record_separator);
  const auto p = records.find(sep);
  const auto doc = records.substr(0, p), rest = p == std::string::npos ? std::string() : records.substr(p);
  for (char command = 0; command < 7; ++command)
    for (char bits : {0, 9})
      seed("cli", name + "_" + std::to_string(command) + "_" + std::to_string(bits),
           doc + sep + command + bits + (command == 4 && bits ? std::string() : region) + rest);
}

// An array of `doc` written by the library with a few values: the records of an array_read
// input (the metadata, then the keys and values of its store).
std::string written_array(const zarr::array_metadata& meta) {
  auto s = std::make_shared<zarr::memory_store>();
  auto arr = zarr::array::create(s, "", meta);
  const auto all = zarr::region::all(arr.shape());
  const auto n = static_cast<std::size_t>(all.num_elements());
  if (zarr::is_variable_length(arr.type())) {
    std::vector<std::string> values(n);
    for (std::size_t k = 0; k < n; ++k) values[k] = k % 3 ? std::string(k % 7, static_cast<char>('a' + k % 26)) : "";
    arr.write_strings(all, values);
  } else {
    const auto element = static_cast<std::size_t>(arr.metadata().element_size());
    std::vector<std::byte> values(n * element, std::byte{0});
    for (std::size_t k = 0; k < values.size() / 2; k += element) values[k] = static_cast<std::byte>(k % 7 == 0 ? 0 : k % 2);
    arr.write(all, values);
  }
  return records_of(*s);
}

// Arrays written by the library, for codecs the interop corpus does not have.
void library_array_seeds() {
  const std::string head = R"({"zarr_format": 3, "node_type": "array", "shape": [10, 7],
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 3]}},
      "chunk_key_encoding": {"name": "default"}, )";
  struct a { const char* type; const char* fill; const char* codecs; };
  const char* le = R"({"name": "bytes", "configuration": {"endian": "little"}})";
  const std::vector<a> arrays{
      {"uint16", "7", "[BYTES]"},
      {"int32", "-1", R"([{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip", "configuration": {"level": 1}}])"},
      {"float64", "0", R"([{"name": "scale_offset", "configuration": {"offset": -20, "scale": 4}}, {"name": "cast_value", "configuration": {"data_type": "uint8"}}, BYTES, {"name": "crc32c"}])"},
      {"int4", "0", R"([{"name": "packbits", "configuration": {"padding_encoding": "last_byte"}}])"},
      {"uint8", "0", R"([{"name": "reshape", "configuration": {"shape": [-1]}}, BYTES, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}])"},
      {"int16", "3", R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 1], "codecs": [BYTES, {"name": "gzip", "configuration": {"level": 1}}], "index_codecs": [BYTES, {"name": "crc32c"}], "index_location": "start"}}])"},
      {"bool", "false", R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3], "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1], "codecs": ["bytes"], "index_codecs": [BYTES]}}], "index_codecs": [BYTES]}}])"},
  };
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    std::string codecs = arrays[i].codecs;
    for (std::size_t p; (p = codecs.find("BYTES")) != std::string::npos;) codecs.replace(p, 5, le);
    const auto doc = head + R"("data_type": ")" + arrays[i].type + R"(", "fill_value": )" + arrays[i].fill +
                     R"(, "codecs": )" + codecs + "}";
    const auto records = written_array(zarr::array_metadata::parse(zarr::parse_json(doc), doc));
    seed("array_read", "library" + std::to_string(i), records);
    cli_seeds("library" + std::to_string(i), records, "1:7,2:");
    seed("zarr_json", "library" + std::to_string(i), records.substr(0, records.find(zarr_fuzz::record_separator)));
  }
  // Zarr v2 arrays: numcodecs filters and compressors, F order, "/" keys, a missing fill value.
  const std::vector<std::string> v2{
      R"({"chunks": [4, 3], "compressor": {"id": "zstd", "level": 1}, "dtype": "<u2", "fill_value": 7,
          "filters": null, "order": "C", "shape": [10, 7], "zarr_format": 2})",
      R"({"chunks": [3, 2], "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}, "dtype": ">i2",
          "fill_value": null, "filters": [{"id": "delta", "dtype": ">i2"}], "order": "F", "shape": [10, 7],
          "zarr_format": 2, "dimension_separator": "/"})",
      R"({"chunks": [5, 7], "compressor": {"id": "zlib", "level": 1}, "dtype": "|b1", "fill_value": true,
          "filters": [{"id": "packbits"}], "order": "C", "shape": [10, 7], "zarr_format": 2})",
  };
  for (std::size_t i = 0; i < v2.size(); ++i) {
    const auto records = written_array(zarr::array_metadata::parse_v2(v2[i]));
    seed("array_read", "library_v2_" + std::to_string(i), records);
    cli_seeds("library_v2_" + std::to_string(i), records, ":5,3:4");
  }
  // A rectilinear chunk grid (its edges as a list, an integer and runs) and strings.
  const std::vector<std::string> others{
      R"({"zarr_format": 3, "node_type": "array", "shape": [26, 10, 7], "data_type": "int16", "fill_value": -1,
          "chunk_grid": {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[16, 10], 4, [[1, 3], 3, 3]]}},
          "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}]})",
      R"({"zarr_format": 3, "node_type": "array", "shape": [9, 4], "data_type": "string", "fill_value": "",
          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 3]}},
          "chunk_key_encoding": {"name": "default", "configuration": {"separator": "."}}, "codecs": [{"name": "vlen-utf8"}, {"name": "gzip", "configuration": {"level": 1}}]})",
  };
  for (std::size_t i = 0; i < others.size(); ++i) {
    const auto records = written_array(zarr::array_metadata::parse(zarr::parse_json(others[i]), others[i]));
    seed("array_read", "library_grid_or_strings_" + std::to_string(i), records);
    cli_seeds("library_grid_or_strings_" + std::to_string(i), records, i == 0 ? "10:20,3:9,1:" : "2:7,1:");
  }
  // numcodecs.fixedscaleoffset: its chunks written by hand (int16 values, the most negative among them).
  const std::string fso = R"({"zarr_format": 3, "node_type": "array", "shape": [6], "data_type": "float64",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": 0.5,
      "codecs": [{"name": "numcodecs.fixedscaleoffset", "configuration": {"scale": 10, "offset": 1, "dtype": "<f8", "astype": "<i2"}}, )" +
                          std::string(le) + "]}";
  const std::string chunk("\x01\x00\x0a\x00\xf6\xff\x00\x80", 8);
  const auto sep = std::string(zarr_fuzz::record_separator);
  seed("array_read", "fixedscaleoffset", fso + sep + "c/0" + sep + chunk + sep + "c/1" + sep + chunk);
  seed("zarr_json", "fixedscaleoffset", fso);
}

// The interop corpus: every zarr.json, whole arrays, and chunk files by their last codec.
void corpus_seeds(const fs::path& data) {
  std::error_code ec;
  for (const auto& corpus : fs::directory_iterator(data / "interop", ec)) {
    if (!corpus.is_directory() || !corpus.path().filename().string().starts_with("corpus-")) continue;
    const auto store = corpus.path() / "store";
    for (const auto& entry : fs::recursive_directory_iterator(store, ec)) {
      if (entry.path().filename() != "zarr.json") continue;
      const auto dir = entry.path().parent_path();
      const auto name = corpus.path().filename().string() + "_" + flat_name(fs::relative(dir, store));
      const auto doc = read_file(entry.path());
      seed("zarr_json", name, doc);
      zarr::node_metadata node;
      try {
        node = zarr::parse_node_metadata(doc);
      } catch (const zarr::error&) {
        continue;
      }
      const auto* meta = std::get_if<zarr::array_metadata>(&node);
      if (meta == nullptr) continue;
      std::string records = doc;
      std::vector<fs::path> chunks;
      for (const auto& file : fs::recursive_directory_iterator(dir, ec))
        if (file.is_regular_file() && file.path().filename() != "zarr.json") chunks.push_back(file.path());
      const auto sep = std::string(zarr_fuzz::record_separator);
      for (const auto& c : chunks) records += sep + fs::relative(c, dir).generic_string() + sep + read_file(c);
      seed("array_read", name, records);
      // A chunk file is the output of the last codec: a seed for that codec's decoder.
      const auto& list = meta->codecs.as_array();
      const auto& last = list.back();
      const std::string last_name(last.is_string() ? last.as_string() : last.as_object().at("name").as_string());
      std::string target = last_name;
      std::string prefix;
      if (last_name == "bytes" && list.size() == 1) {
        const auto* config = last.is_object() ? last.as_object().if_contains("configuration") : nullptr;
        const bool big = config && config->as_object().if_contains("endian") &&
                         config->as_object().at("endian") == json::value("big");
        prefix = {static_cast<char>(meta->type), static_cast<char>(big ? 1 : 0)};
      } else if (last_name != "gzip" && last_name != "zstd" && last_name != "blosc" && last_name != "crc32c") {
        continue;
      }
      for (std::size_t i = 0; i < chunks.size() && i < 3; ++i)
        seed(target, name + "_" + flat_name(fs::relative(chunks[i], dir)), prefix + read_file(chunks[i]));
    }
  }
}

// npy: the type byte, rank and dimensions, then a header of ours; store_url: endpoints,
// buckets, prefixes, keys (spaces, non-ASCII) and zarr3 PATHs.
void npy_and_url_seeds() {
  const std::vector<std::vector<std::uint64_t>> shapes{{}, {10, 7}, {3, 200, 5}};
  for (auto type : {zarr::data_type::float64, zarr::data_type::bool_, zarr::data_type::uint16, zarr::data_type::complex64,
                    zarr::data_type::numpy_datetime64}) {
    for (const auto& shape : shapes) {
      std::string in{static_cast<char>(type), static_cast<char>(shape.size())};
      for (auto d : shape) zarr_fuzz::put_dimension(in, d);
      try {
        seed("npy", "ours" + std::to_string(written), in + zarr_cli::npy_header(type, {}, shape));
      } catch (const zarr::error&) {  // a type or resolution NumPy has not
      }
    }
  }
  const auto sep = std::string(zarr_fuzz::record_separator);
  const std::vector<std::string> urls{
      std::string(1, '\0') + "http://127.0.0.1:7480" + sep + "bucket" + sep + "data.zarr" + sep + "a b/\xc3\xbc/c/zarr.json" + sep +
          "s3://bucket/prefix#/a/b",
      std::string(1, '\3') + "https://s3.eu-west-1.amazonaws.com" + sep + "my.bucket-1" + sep + "" + sep + "~k_-.%/" + sep +
          "https://example.org/data.zarr.zip#/x",
      std::string(1, '\1') + "http://[::1]:9000" + sep + "b" + sep + "../p" + sep + "" + sep + "zip://data.zarr.zip",
  };
  for (std::size_t i = 0; i < urls.size(); ++i) seed("store_url", "url" + std::to_string(i), urls[i]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: zarr.fuzz.seeds DATA_DIR SEEDS_DIR CORPUS_DIR\n");
    return 2;
  }
  const fs::path data = argv[1];
  seeds_root = argv[2];
  try {
    for (const auto& t : targets) {
      fs::remove_all(seeds_root / t);
      fs::create_directories(seeds_root / t);
      fs::create_directories(fs::path(argv[3]) / t);
    }
    codec_seeds();
    sharding_seeds();
    zfp_seeds();
    zfpy_seeds();
    n5_default_seeds();
    optional_seeds();
    fill_value_seeds(data);
    region_seeds();
    time_seeds();
    library_array_seeds();
    corpus_seeds(data);
    npy_and_url_seeds();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zarr.fuzz.seeds: %s\n", e.what());
    return 1;
  }
  std::printf("zarr.fuzz.seeds: %d seeds for %zu targets in %s\n", written, targets.size(), seeds_root.c_str());
  return 0;
}
