// libFuzzer target: opening and reading a whole array from a hostile store. Input: records
// separated by zarr_fuzz::record_separator: the root zarr.json, then store key and value in
// turns (chunks, shards), put in a memory store. A valid array of at most 1 MiB (and chunks of
// at most 1 MiB) is read whole and in part; each read succeeds or throws zarr::error, and a
// partial read succeeds where the whole read does, and agrees with it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json.hpp>
#include "fuzz.hpp"

namespace {

constexpr std::uint64_t max_bytes = std::uint64_t{1} << 20;

// Bytes of `shape` elements of `element` bytes, when at most max_bytes.
bool small_enough(std::span<const std::uint64_t> shape, std::uint64_t element) {
  std::uint64_t n = element;
  for (auto d : shape)
    if (__builtin_mul_overflow(n, d, &n) || n > max_bytes) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  zarr::set_concurrency(1);  // reproducible runs
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto records = zarr_fuzz::split_records({reinterpret_cast<const char*>(data), size});
  auto store = std::make_shared<zarr::memory_store>();
  store->set("zarr.json", std::as_bytes(std::span(records[0])));
  for (std::size_t i = 1; i + 1 < records.size(); i += 2) {
    try {
      store->set(records[i], std::as_bytes(std::span(records[i + 1])));
    } catch (const zarr::error& e) {
      zarr_fuzz::expect_code(e, zarr::errc::invalid_key);
    }
  }
  try {
    const auto a = zarr::array::open(store, "");
    // zstd frames and blosc headers may claim what the next codec can take: the chunk's size
    // right after `bytes`, but after sharding the shard's bound (1 MiB of slack per inner
    // chunk), more than this fuzzer's memory limit. The zstd and blosc targets (capped at
    // 1 MiB) and the codec tests of the chain's bounds cover them.
    const auto codecs = boost::json::serialize(a.metadata().codecs);
    if (codecs.find("\"zstd\"") != std::string::npos || codecs.find("\"blosc\"") != std::string::npos) return 0;
    const auto element = static_cast<std::uint64_t>(zarr::info(a.type()).size);
    // The largest chunk (a rectilinear grid lists its edges; chunk_shape is 0 there).
    auto largest = a.metadata().chunk_shape;
    for (std::size_t i = 0; i < a.metadata().chunk_edges.size(); ++i)
      for (auto e : a.metadata().chunk_edges[i]) largest[i] = std::max(largest[i], e);
    if (!small_enough(a.shape(), element) || !small_enough(largest, element)) return 0;
    const auto all = zarr::region::all(a.shape());
    std::vector<std::byte> whole(static_cast<std::size_t>(all.num_elements() * element));
    bool whole_ok = true;
    try {
      a.read(all, whole);
    } catch (const zarr::error&) {
      whole_ok = false;
    }
    // The middle of the array: partial chunks, and sharding's partial reads.
    zarr::region middle = all;
    for (std::size_t i = 0; i < a.shape().size(); ++i) {
      middle.start[i] = a.shape()[i] / 3;
      middle.stop[i] = a.shape()[i] - a.shape()[i] / 4;
    }
    std::vector<std::byte> part(static_cast<std::size_t>(middle.num_elements() * element));
    try {
      a.read(middle, part);
    } catch (const zarr::error& e) {
      zarr_fuzz::expect(!whole_ok, "a partial read fails where the whole read succeeds:", e.what());
      throw;
    }
    if (whole_ok && !part.empty()) {
      std::vector<std::byte> expected(part.size());
      const auto size = static_cast<std::size_t>(element);
      zarr::copy(zarr::const_array_view::c_order(whole.data(), a.shape(), size).window(middle.start, middle.extent()),
                 zarr::array_view::c_order(expected.data(), middle.extent(), size));
      zarr_fuzz::expect(zarr_fuzz::same_bytes(expected, part), "a partial read differs from the whole read");
    }
  } catch (const zarr::error&) {
  }
  return 0;
}
