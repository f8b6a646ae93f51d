// The array core's property test, for any store: random shapes, chunkings (regular, or
// rectilinear in every form of its spec), codec chains and regions, written and read back
// against a plain in-memory model of the array. Run on the memory and directory stores
// (array.test.cpp, rectilinear.test.cpp) and on S3 (store/s3.test.cpp).
#pragma once
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.dtype;
import zarr.fill_value;
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.nd;

namespace zarr_test {

namespace json = boost::json;

inline json::value regular_grid(const std::vector<std::uint64_t>& chunks) {
  json::array c;
  for (auto d : chunks) c.push_back(d);
  return {{"name", "regular"}, {"configuration", {{"chunk_shape", c}}}};
}

inline zarr::array_metadata metadata_with_grid(const std::vector<std::uint64_t>& shape, const json::value& grid,
                                               zarr::data_type type, json::value codecs, json::value fill = 0) {
  json::array s;
  for (auto d : shape) s.push_back(d);
  return zarr::array_metadata::parse(json::object{
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", s},
      {"data_type", zarr::to_json(type)},
      {"chunk_grid", grid},
      {"chunk_key_encoding", {{"name", "default"}}},
      {"fill_value", fill},
      {"codecs", codecs},
  });
}

inline zarr::array_metadata metadata(std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks,
                                     zarr::data_type type, json::value codecs, json::value fill = 0) {
  return metadata_with_grid(shape, regular_grid(chunks), type, std::move(codecs), std::move(fill));
}

// A random rectilinear grid for `shape` (zarr-extensions chunk-grids/rectilinear): per
// dimension one integer, or edge lengths (multiples of step[i]) listed one by one or as
// [value, count] runs, summing to at least the shape, sometimes with chunks past it.
template <class Pick>
json::value random_rectilinear_grid(const std::vector<std::uint64_t>& shape, const std::vector<std::uint64_t>& step,
                                    Pick&& pick) {
  json::array shapes;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (pick(0, 3) == 0) {
      shapes.push_back(step[i] * pick(1, 3));
      continue;
    }
    json::array items;
    std::uint64_t sum = 0;
    const auto overflow = pick(0, 2) == 0 ? step[i] * pick(1, 4) : 0;
    while (sum < shape[i] + overflow || items.empty()) {
      const auto edge = step[i] * pick(1, 4);
      const auto count = pick(0, 2) == 0 ? pick(1, 3) : 1;
      if (count == 1) items.push_back(edge);
      else items.push_back(json::array{edge, count});
      sum += edge * count;
    }
    shapes.push_back(std::move(items));
  }
  return {{"name", "rectilinear"}, {"configuration", {{"kind", "inline"}, {"chunk_shapes", shapes}}}};
}

// C-order strides of a shape.
inline std::vector<std::uint64_t> strides(const std::vector<std::uint64_t>& shape) {
  std::vector<std::uint64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// Calls f(array_offset, region_offset) for every element of region r of an array of `shape`.
template <class F>
void each_element(const std::vector<std::uint64_t>& shape, const zarr::region& r, F&& f) {
  const auto st = strides(shape);
  const auto ext = r.extent();
  const auto n = r.num_elements();
  std::vector<std::uint64_t> pos(shape.size(), 0);
  for (std::uint64_t k = 0; k < n; ++k) {
    std::uint64_t off = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) off += (r.start[i] + pos[i]) * st[i];
    f(off, k);
    for (std::size_t i = shape.size(); i-- > 0;) {
      if (++pos[i] < ext[i]) break;
      pos[i] = 0;
    }
  }
}

// Stores for the property test: memory for even trials, a directory under `dir` for odd ones.
inline std::function<std::shared_ptr<zarr::store>(int)> memory_or_directory(const std::filesystem::path& dir) {
  return [dir](int trial) -> std::shared_ptr<zarr::store> {
    if (trial % 2 == 0) return std::make_shared<zarr::memory_store>();
    return std::make_shared<zarr::filesystem_store>(dir / std::to_string(trial));
  };
}

// `trials` random arrays, each in the store that store_for(trial) gives, 10 region writes and
// reads each.
inline void random_regions_match_a_plain_model(const std::function<std::shared_ptr<zarr::store>(int)>& store_for,
                                              int trials, bool rectilinear = false) {
  std::mt19937_64 rng(20261130);
  const auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); };
  const std::vector<zarr::data_type> types{zarr::data_type::uint8, zarr::data_type::int16, zarr::data_type::uint32,
                                           zarr::data_type::int64, zarr::data_type::float32, zarr::data_type::float64,
                                           zarr::data_type::complex64};
  const std::vector<const char*> chains{
      R"([{"name": "bytes", "configuration": {"endian": "little"}}])",
      R"([{"name": "bytes", "configuration": {"endian": "big"}}])",
      R"([{"name": "transpose", "configuration": {"order": "REVERSED"}}, {"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])",
      R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}])",
      R"([{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "zstd", "configuration": {"level": 3, "checksum": true}}])",
      R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}])",
  };
  for (int trial = 0; trial < trials; ++trial) {
    const auto rank = static_cast<std::size_t>(pick(0, 3));
    std::vector<std::uint64_t> shape(rank), chunks(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      shape[i] = pick(0, 12);
      chunks[i] = pick(1, 6);
    }
    const auto type = types[pick(0, types.size() - 1)];
    std::string chain = chains[pick(0, chains.size() - 1)];
    json::value grid = regular_grid(chunks);
    if (rectilinear) {
      // Edges are multiples of step[i]; a third of the arrays shard with inner chunks of step.
      std::vector<std::uint64_t> step(rank);
      for (auto& s : step) s = pick(1, 2);
      grid = random_rectilinear_grid(shape, step, pick);
      if (pick(0, 2) == 0) {
        json::array inner;
        for (auto s : step) inner.push_back(s);
        chain = R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": )" + json::serialize(inner) +
                R"(, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}],)"
                R"( "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "index_location": ")" +
                (pick(0, 1) ? "start" : "end") + R"("}}])";
      }
    }
    if (auto p = chain.find("\"REVERSED\""); p != std::string::npos) {
      std::string order = "[";
      for (std::size_t i = 0; i < rank; ++i) order += (i ? "," : "") + std::to_string(rank - 1 - i);
      chain.replace(p, 10, order + "]");
    }
    const auto s = store_for(trial);
    BOOST_TEST_CONTEXT("trial " << trial << " type " << zarr::name(type) << " grid " << grid << " chain " << chain) {
      auto a = zarr::array::create(s, "p", metadata_with_grid(shape, grid, type, json::parse(chain),
                                                              zarr::fill_value_to_json(zarr::default_fill_value(type))));
      const auto size = static_cast<std::size_t>(zarr::info(type).size);
      std::uint64_t n = 1;
      for (auto d : shape) n *= d;
      std::vector<std::byte> model(n * size, std::byte{0});
      for (int op = 0; op < 10; ++op) {
        zarr::region r{std::vector<std::uint64_t>(rank), std::vector<std::uint64_t>(rank)};
        for (std::size_t i = 0; i < rank; ++i) {
          r.start[i] = pick(0, shape[i]);
          r.stop[i] = pick(r.start[i], shape[i]);
        }
        std::vector<std::byte> data(r.num_elements() * size);
        if (op % 2 == 0) {
          // Random bytes, some runs of zeros so that whole chunks become fill again.
          const bool zeros = pick(0, 3) == 0;
          for (auto& b : data) b = zeros ? std::byte{0} : static_cast<std::byte>(pick(0, 255));
          a.write(r, data);
          each_element(shape, r, [&](std::uint64_t off, std::uint64_t k) {
            std::memcpy(model.data() + off * size, data.data() + k * size, size);
          });
        } else {
          zarr::array::open(s, "p").read(r, data);
          bool same = true;
          each_element(shape, r, [&](std::uint64_t off, std::uint64_t k) {
            same = same && std::memcmp(model.data() + off * size, data.data() + k * size, size) == 0;
          });
          BOOST_TEST(same, "read of region differs from the model at op " << op);
        }
      }
    }
  }
}

}  // namespace zarr_test
