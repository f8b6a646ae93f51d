// The data of the crash-safety and concurrency tests, shared by the tests and the writer
// process (crash_writer.cpp): arrays whose every chunk is one "generation" of content,
// so that a chunk mixing two writes, or cut short, is recognised.
#pragma once
#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.nd;

namespace zarr_test::generations {

// Three arrays of uint32 (fill value 0), 32 x 32, in one root group (small, so that
// the crash test's 200 writers, each killed within two generations, run quickly):
//   plain    chunks of 16 x 16, bytes only: a torn chunk shows in its values;
//   crc      chunks of 16 x 16, bytes -> zstd -> crc32c: a torn chunk fails to decode;
//   sharded  shards of 16 x 16 of inner chunks of 8 x 8 (bytes -> zstd, index with crc32c):
//            writing one inner chunk reads, modifies and rewrites its shard.
// A "unit" is what one write covers: a chunk of plain and crc, an inner chunk of sharded.
inline constexpr std::uint64_t side = 32;
inline const std::vector<std::string> array_names{"crc", "plain", "sharded"};

inline std::uint64_t unit_side(const std::string& name) { return name == "sharded" ? 8 : 16; }
inline std::uint64_t units_per_row(const std::string& name) { return side / unit_side(name); }
inline std::uint64_t unit_count(const std::string& name) { return units_per_row(name) * units_per_row(name); }
inline std::uint64_t unit_elements(const std::string& name) { return unit_side(name) * unit_side(name); }

// What crash_writer reports per generation in crash mode: one step per unit, one per
// array's attributes, one for the root group's.
inline std::uint64_t steps_per_generation() {
  std::uint64_t n = 1;
  for (const auto& name : array_names) n += unit_count(name) + 1;
  return n;
}

// The region of unit `u` (row-major over the units).
inline zarr::region unit_region(const std::string& name, std::uint64_t u) {
  const auto n = unit_side(name), row = u / units_per_row(name), col = u % units_per_row(name);
  return {{row * n, col * n}, {row * n + n, col * n + n}};
}

// The shard (of sharded) that holds unit `u`; for the other arrays the unit is its own chunk.
inline std::uint64_t storage_of(const std::string& name, std::uint64_t u) {
  if (name != "sharded") return u;
  const auto row = u / units_per_row(name), col = u % units_per_row(name);
  return (row / 2) * 2 + col / 2;
}

// Element i of unit u in generation g (g >= 1): the generation in the high 16 bits, so
// it can be read off any element; the low bits depend on the unit and on i, and how
// often they vary depends on g, so that compressed sizes (and shard layouts) change
// from one generation to the next.
inline std::uint32_t value(std::uint32_t g, std::uint64_t u, std::uint64_t i) {
  const auto period = 1 + g % 4;
  std::uint32_t low = static_cast<std::uint32_t>(u * 131 + 7);
  if (i % period == 0) {
    std::uint32_t h = static_cast<std::uint32_t>(g * 0x9E3779B1u ^ u * 0x85EBCA77u ^ i * 0xC2B2AE3Du);
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    low = h;
  }
  return (g << 16) | (low & 0xffff);
}

inline std::vector<std::uint32_t> unit_values(std::uint32_t g, const std::string& name, std::uint64_t u) {
  std::vector<std::uint32_t> v(unit_elements(name));
  for (std::uint64_t i = 0; i < v.size(); ++i) v[i] = value(g, u, i);
  return v;
}

// What a read of a unit holds: a generation (every element that generation's), never
// written (every element the fill value), or neither (torn).
struct unit_state {
  enum kind_t { generation, missing, torn } kind;
  std::uint32_t g = 0;
};

inline unit_state classify(std::span<const std::uint32_t> v, std::uint64_t u) {
  bool all_zero = true;
  for (auto x : v) all_zero = all_zero && x == 0;
  if (all_zero) return {unit_state::missing};
  const std::uint32_t g = v[0] >> 16;
  if (g == 0) return {unit_state::torn};
  for (std::uint64_t i = 0; i < v.size(); ++i)
    if (v[i] != value(g, u, i)) return {unit_state::torn, g};
  return {unit_state::generation, g};
}

inline zarr::array_metadata metadata_of(const std::string& name) {
  const char* codecs =
      name == "plain" ? R"([{"name": "bytes", "configuration": {"endian": "little"}}])"
      : name == "crc" ? R"([{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 1}}, {"name": "crc32c"}])"
                      : R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [8, 8],
                           "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                      {"name": "zstd", "configuration": {"level": 1}}],
                           "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                           "index_location": "end"}}])";
  const std::uint64_t chunk = 16;
  return zarr::array_metadata::parse(boost::json::object{
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {side, side}},
      {"data_type", "uint32"},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {chunk, chunk}}}}}},
      {"chunk_key_encoding", {{"name", "default"}}},
      {"fill_value", 0},
      {"codecs", boost::json::parse(codecs)},
      {"attributes", {{"generation", 0}}},
  });
}

// Attributes that record generation g; padded, so that a torn zarr.json would not parse.
inline boost::json::object attributes_of(std::uint32_t g) {
  return {{"generation", g}, {"padding", std::string(2000 + g % 7 * 100, 'x')}};
}

inline std::optional<std::uint32_t> generation_attribute(const boost::json::object& attributes) {
  const auto* g = attributes.if_contains("generation");
  if (g == nullptr || !g->is_number()) return std::nullopt;
  return g->to_number<std::uint32_t>();
}

// Creates the root group and the three arrays (generation 0: no chunks).
inline void create_layout(const std::shared_ptr<zarr::store>& s) {
  zarr::group::create(s, "", {{"generation", 0}});
  for (const auto& name : array_names) zarr::array::create(s, name, metadata_of(name));
}

// Writes generation g of unit u of array a.
inline void write_unit(zarr::array& a, std::uint32_t g, std::uint64_t u) {
  a.write<std::uint32_t>(unit_region(a.path(), u), unit_values(g, a.path(), u));
}

}  // namespace zarr_test::generations
