// The arrays and values of the many-writers tests (many_writers.test.cpp) and of their writer
// processes (crash_writer.cpp "element" and "region"): 4 x 4 arrays that are one shard, one
// plain chunk, and one plain chunk of strings ("strings", values element_value as decimal
// text), a 10 x 12 array whose shards do not line up with the regions written; the stores
// they live in (a directory, or an S3 bucket and prefix).
#pragma once
#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
import zarr.store;
import zarr.metadata;
import zarr.store.filesystem;
import zarr.store.s3;

namespace zarr_test::many_writers {

inline constexpr std::uint64_t side = 4;  // "shard" and "chunk": side x side, one chunk

inline zarr::array_metadata metadata_of(std::string_view name) {
  const bool model = name == "model";
  const bool strings = name == "strings";
  const char* codecs =
      strings         ? R"([{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 1}}])"
      : name == "chunk" ? R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}])"
      : model         ? R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [3, 4],
                           "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                      {"name": "zstd", "configuration": {"level": 1}}],
                           "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])"
                      : R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
                           "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                      {"name": "zstd", "configuration": {"level": 1}}],
                           "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])";
  const std::uint64_t rows = model ? 10 : side, cols = model ? 12 : side;
  const std::uint64_t chunk_rows = model ? 6 : side, chunk_cols = model ? 8 : side;
  return zarr::array_metadata::parse(boost::json::object{
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {rows, cols}},
      {"data_type", strings ? "string" : "uint32"},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {chunk_rows, chunk_cols}}}}}},
      {"chunk_key_encoding", {{"name", "default"}}},
      {"fill_value", strings ? boost::json::value("") : boost::json::value(0)},
      {"codecs", boost::json::parse(codecs)},
  });
}

// What writer `element` (0..15, row-major) stores at its n-th write (n = 1, 2, ...).
inline std::uint32_t element_value(std::uint64_t element, std::uint32_t n) {
  return static_cast<std::uint32_t>((element + 1) * 1000 + n);
}

// The value that a region writer with `seed` stores at (row, col) of the model array.
inline std::uint32_t region_value(std::uint64_t seed, std::uint64_t row, std::uint64_t col) {
  return static_cast<std::uint32_t>((seed * 2654435761u + row * 131 + col * 7 + 1) & 0xffffffffu);
}

// A store named by text: "http://host:port/bucket/prefix" is an S3 bucket (credentials from
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), anything else a directory.
inline std::shared_ptr<zarr::store> open_store(const std::string& text) {
  if (!text.starts_with("http://")) return std::make_shared<zarr::filesystem_store>(text, false);
  const auto host_end = text.find('/', 7);
  const auto bucket_end = text.find('/', host_end + 1);
  zarr::s3_options o;
  o.endpoint = text.substr(0, host_end);
  o.bucket = text.substr(host_end + 1, bucket_end == std::string::npos ? std::string::npos : bucket_end - host_end - 1);
  if (bucket_end != std::string::npos) o.prefix = text.substr(bucket_end + 1);
  o.region = "us-east-1";
  return std::make_shared<zarr::s3_store>(o);
}

}  // namespace zarr_test::many_writers
