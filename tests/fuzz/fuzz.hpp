// Shared by the libFuzzer targets (tests/fuzz/*.fuzz.cpp) and the seed generator (seeds.cpp):
// property checks that abort (libFuzzer reports them like a crash), a reader for the selector
// bytes at the front of an input, and the input formats that both sides must agree on.
#pragma once
#include <boost/json.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json.hpp>
import zarr.error;
import zarr.dtype;
import zarr.sized;
import zarr.fill_value;
import zarr.codec;
import zarr.codec.conditional;
import zarr.codec.bz2;
import zarr.codec.checksum32;
import zarr.codec.lz4;
import zarr.codec.lzma;
import zarr.codec.shuffle;
import zarr.codec.zlib;
import zarr.codec.zfp;
import zarr.codec.n5_default;
import zarr.codec.optional;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.bytes;

namespace zarr_fuzz {

// A property every input must keep; a violation is a finding.
inline void expect(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "zarr fuzz: property violated: %s %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// A decoder may only refuse its input with zarr::error of code `code`.
inline void expect_code(const zarr::error& e, zarr::errc code) {
  expect(e.code() == code, "unexpected error code:", e.what());
}

inline bool same_bytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// Takes selector bytes off the front of the input; zeros once it runs out.
// A bytes -> bytes decoder on fuzzed bytes, its output capped at 1 MiB as a chain caps it at
// what the next codec takes: it decodes or refuses with corrupt_chunk, and what it decodes
// survives encode + decode unchanged.
inline void check_decoder(const zarr::bytes_to_bytes_codec& codec, std::span<const std::byte> stored) {
  constexpr std::uint64_t limit = std::uint64_t{1} << 20;
  zarr::bytes decoded;
  try {
    decoded = codec.decode(stored, limit);
  } catch (const zarr::error& e) {
    expect_code(e, zarr::errc::corrupt_chunk);
    return;
  }
  expect(same_bytes(codec.decode(codec.encode(decoded), limit), decoded), "round trip differs", codec.name());
}

// The numcodecs bytes -> bytes codecs of numcodecs.fuzz.cpp, in the order of its selector byte
// (the seeds put the same byte in front of each codec's output).
inline std::vector<std::unique_ptr<zarr::bytes_to_bytes_codec>> numcodecs_decoders() {
  std::vector<std::unique_ptr<zarr::bytes_to_bytes_codec>> out;
  out.push_back(std::make_unique<zarr::zlib_codec>(zarr::zlib_configuration{1}, "fuzz"));
  out.push_back(std::make_unique<zarr::bz2_codec>(zarr::bz2_configuration{1}, "fuzz"));
  for (int format : {1, 2})
    out.push_back(std::make_unique<zarr::lzma_codec>(
        zarr::lzma_configuration{.format = format, .check = -1, .preset = 1, .preset_given = true}, "fuzz"));
  out.push_back(std::make_unique<zarr::lz4_codec>(zarr::lz4_configuration{1}, "fuzz"));
  out.push_back(std::make_unique<zarr::checksum32_codec>(zarr::checksum32_kind::crc32, "fuzz"));
  out.push_back(std::make_unique<zarr::checksum32_codec>(zarr::checksum32_kind::adler32, "fuzz"));
  out.push_back(std::make_unique<zarr::shuffle_codec>(zarr::shuffle_configuration{4}, "fuzz"));
  out.push_back(std::make_unique<zarr::checksum32_codec>(zarr::checksum32_kind::fletcher32, "fuzz"));
  out.push_back(std::make_unique<zarr::checksum32_codec>(zarr::checksum32_kind::jenkins_lookup3, "fuzz", 0x12345678u));
  out.push_back(std::make_unique<zarr::checksum32_codec>(zarr::checksum32_kind::crc32c, "fuzz", 0, false));  // "location": "start"
  return out;
}

// An array -> bytes decoder on fuzzed bytes: it decodes to its chunk's size or refuses with
// corrupt_chunk, and what it decodes survives encode + decode unchanged.
inline void check_array_decoder(const zarr::array_to_bytes_codec& codec, std::span<const std::byte> stored) {
  zarr::bytes decoded;
  try {
    decoded = codec.decode(stored);
  } catch (const zarr::error& e) {
    expect_code(e, zarr::errc::corrupt_chunk);
    return;
  }
  expect(decoded.size() == codec.decoded().byte_size(), "decoded to the wrong size", codec.name());
  expect(same_bytes(codec.decode(codec.encode(decoded)), decoded), "round trip differs", codec.name());
}

class input {
 public:
  input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{byte()} << (8 * i);
    return v;
  }
  // A dimension: small (one byte below 0x80) or any 64-bit value (0x80 and eight bytes).
  std::uint64_t dimension() {
    const auto b = byte();
    return b < 0x80 ? b : u64();
  }
  [[nodiscard]] std::span<const std::byte> rest() const { return {reinterpret_cast<const std::byte*>(data_), size_}; }
  [[nodiscard]] std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};

// The writer's side of input::dimension.
inline void put_dimension(std::string& out, std::uint64_t d) {
  if (d < 0x80) {
    out += static_cast<char>(d);
    return;
  }
  out += static_cast<char>(0x80);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((d >> (8 * i)) & 0xff);
}

// --- array_read: a store in one input ------------------------------------------------------

// The records of an array_read input: the root zarr.json, then key and value in turns.
inline constexpr std::string_view record_separator = "\n--zarr-fuzz-record--\n";

inline std::vector<std::string_view> split_records(std::string_view text) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto p = text.find(record_separator);
    out.push_back(text.substr(0, p));
    if (p == std::string_view::npos) return out;
    text.remove_prefix(p + record_separator.size());
  }
}

// --- sharding: the shard layouts the sharding target decodes -------------------------------

// One layout per selector byte: where the index is, its codecs, the inner codecs, the shape.
struct sharding_case {
  std::string codecs;  // the `codecs` of an array whose chunk is one shard
  std::vector<std::uint64_t> shape;
  zarr::data_type type;
};

inline sharding_case sharding_case_of(std::uint8_t selector) {
  const bool index_at_start = (selector & 1) != 0;
  const bool index_crc = (selector & 2) != 0;
  const int inner = (selector >> 2) % 4;
  const int layout = (selector >> 4) % 3;
  const std::string le = R"({"name": "bytes", "configuration": {"endian": "little"}})";
  std::string inner_codecs = "[" + le + "]";
  if (inner == 1) inner_codecs = "[" + le + R"(, {"name": "crc32c"}])";
  if (inner == 2) inner_codecs = "[" + le + R"(, {"name": "gzip", "configuration": {"level": 1}}])";
  std::vector<std::uint64_t> shape{4, 4}, chunk{2, 2};
  auto type = zarr::data_type::uint16;
  if (layout == 1) shape = {8}, chunk = {2}, type = zarr::data_type::uint32;
  if (layout == 2) shape = {2, 4, 4}, chunk = {1, 2, 2}, type = zarr::data_type::uint8;
  const auto list = [](const std::vector<std::uint64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  if (inner == 3) {  // nested: each inner chunk is itself a shard of single elements
    std::vector<std::uint64_t> ones(chunk.size(), 1);
    inner_codecs = R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": )" + list(ones) +
                   R"(, "codecs": [)" + le + R"(], "index_codecs": [)" + le + "]}}]";
  }
  const std::string index_codecs = index_crc ? "[" + le + R"(, {"name": "crc32c"}])" : "[" + le + "]";
  return {R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": )" + list(chunk) + R"(, "codecs": )" +
              inner_codecs + R"(, "index_codecs": )" + index_codecs + R"(, "index_location": ")" +
              (index_at_start ? "start" : "end") + "\"}}]",
          shape, type};
}

// The ten types of 8 to 64 bits that zfp (through its promotions) and N5 take: the zfp, zfpy and
// n5_default targets pick one with a selector byte (their seeds name its place here).
inline constexpr zarr::data_type zfp_types[] = {zarr::data_type::int8,   zarr::data_type::uint8,  zarr::data_type::int16,
                                                zarr::data_type::uint16, zarr::data_type::int32,  zarr::data_type::uint32,
                                                zarr::data_type::int64,  zarr::data_type::uint64, zarr::data_type::float32,
                                                zarr::data_type::float64};

// The zfp configuration of a mode byte (0-4), with fixed parameters: for the zfp target and its seeds.
inline zarr::zfp_configuration zfp_configuration_of(std::uint8_t mode) {
  zarr::zfp_configuration config;
  config.mode = static_cast<zarr::zfp_mode>(mode % 5);
  config.rate = 8;
  config.precision = 16;
  config.tolerance = 0.01;
  config.minbits = 1;
  config.maxbits = 4096;
  config.maxprec = 40;
  config.minexp = -100;
  return config;
}

// The n5_default codec of the n5_default target and its seeds: a full transpose, big-endian
// bytes and, with `gzip`, gzip level 1.
inline zarr::n5_default_codec n5_default_codec_of(zarr::data_type type, const std::vector<std::uint64_t>& shape, bool gzip) {
  boost::json::array order;
  for (std::size_t i = shape.size(); i-- > 0;) order.push_back(static_cast<std::int64_t>(i));
  boost::json::array codecs{boost::json::object{{"name", "transpose"}, {"configuration", {{"order", order}}}},
                            boost::json::object{{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}};
  if (gzip) codecs.push_back(boost::json::object{{"name", "gzip"}, {"configuration", {{"level", 1}}}});
  return zarr::n5_default_codec(codecs, zarr::chunk_spec{shape, type, zarr::default_fill_value(type)}, "fuzz");
}

// The optional codec of the optional target and its seeds, by a selector (0-3): optional uint8
// (mask packbits, data bytes), optional int32 (mask bytes, data bytes then gzip), optional
// optional int16 (nested, the inner mask bytes and data big-endian), optional float64 (mask
// packbits then zstd, data bytes).
inline zarr::optional_codec optional_codec_of(std::uint8_t selector, const std::vector<std::uint64_t>& shape) {
  static constexpr const char* cases[][2] = {
      {R"({"name": "uint8"})", R"({"mask_codecs": [{"name": "packbits"}], "data_codecs": [{"name": "bytes"}]})"},
      {R"({"name": "int32"})", R"({"mask_codecs": [{"name": "bytes"}], "data_codecs": [{"name": "bytes",
          "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}]})"},
      {R"({"name": "optional", "configuration": {"name": "int16"}})",
       R"({"mask_codecs": [{"name": "packbits"}], "data_codecs": [{"name": "optional", "configuration": {"mask_codecs":
          [{"name": "bytes"}], "data_codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}}]})"},
      {R"({"name": "float64"})", R"({"mask_codecs": [{"name": "packbits"}, {"name": "zstd", "configuration": {"level": 1}}],
          "data_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]})"},
  };
  const auto& c = cases[selector % 4];
  const auto type = zarr::parse_data_type_spec(zarr::parse_json(std::string(R"({"name": "optional", "configuration": )") +
                                                                c[0] + "}", "fuzz"));
  const auto config = zarr::parse_json(c[1], "fuzz");
  return zarr::optional_codec(config.at("mask_codecs"), config.at("data_codecs"),
                              zarr::chunk_spec{shape, type.type, zarr::default_sized_fill_value(type), type.layout}, "fuzz");
}

// The conditional codec of the conditional target and its seeds: gzip then crc32c, 16 header bits.
inline const zarr::conditional_codec& conditional_gzip_crc32c() {
  static const auto config = zarr::parse_json(
      R"({"codecs": [{"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}], "header_bits": 16})");
  static const zarr::chunk_spec spec{{16}, zarr::data_type::uint8, zarr::default_fill_value(zarr::data_type::uint8)};
  static const zarr::conditional_codec codec({config, spec, "fuzz", {}});
  return codec;
}

// Whether the whole array `a`, with `stored` chunks in its store, is small enough to read in a
// fuzz run: at most 1 MiB, chunks of at most 1 MiB, and codecs that decode at most 64 MiB in
// all. zstd frames and blosc headers may claim all that the next codec takes: a chunk's size
// right after `bytes`, but after sharding the shard's bound (1 MiB of slack per inner chunk);
// every chain, zstd and blosc included, runs within that bound.
inline bool small_array(const zarr::array& a, std::uint64_t stored) {
  constexpr std::uint64_t max_bytes = std::uint64_t{1} << 20, max_decoded = std::uint64_t{64} << 20;
  const auto& m = a.metadata();
  // Bytes per element; a string (variable-length types) counts as 32.
  const auto element = zarr::has_variable_elements(a.type(), m.layout) ? 32 : m.element_size();
  const auto fits = [&](std::span<const std::uint64_t> shape) {
    std::uint64_t n = element;
    for (auto d : shape)
      if (__builtin_mul_overflow(n, d, &n) || n > max_bytes) return false;
    return true;
  };
  // The largest chunk (a rectilinear grid lists its edges; chunk_shape is 0 there).
  auto largest = m.chunk_shape;
  for (std::size_t i = 0; i < m.chunk_edges.size(); ++i)
    for (auto e : m.chunk_edges[i]) largest[i] = std::max(largest[i], e);
  if (!fits(a.shape()) || !fits(largest)) return false;
  // The most one codec may decode to: the largest encoded size of each proper prefix of the
  // chain (what the codec after it takes).
  const auto* codecs = m.codecs.if_array();
  if (codecs == nullptr) return true;
  const zarr::chunk_spec spec{largest, m.type, m.fill_value, m.layout};
  std::uint64_t bound = 0;
  for (std::size_t n = 1; n < codecs->size(); ++n) {
    try {
      const boost::json::array prefix(codecs->begin(), codecs->begin() + static_cast<std::ptrdiff_t>(n));
      bound = std::max(bound, zarr::codec_chain(prefix, spec).max_encoded_size());
    } catch (const zarr::error&) {  // array -> array codecs alone are no chain
    }
  }
  return bound <= max_decoded && bound * std::max<std::uint64_t>(stored, 1) <= max_decoded;
}

}  // namespace zarr_fuzz
