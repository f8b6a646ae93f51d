// libFuzzer target: opening and reading a whole array from a hostile store. Input: records
// separated by zarr_fuzz::record_separator: the root zarr.json, then store key and value in
// turns (chunks, shards), put in a memory store. An empty first record puts no zarr.json: the
// key records then make a Zarr v2 array (`.zarray`, `.zattrs`, its chunks). An array small
// enough (zarr_fuzz::small_array: every chain, zstd and blosc included) is read whole and in
// part (as bytes, or as strings for the variable-length types); each read succeeds or throws
// zarr::error, and a partial read succeeds where the whole read does, and agrees with it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.parallel;
import zarr.store.memory;
import zarr.nd;

namespace {

// The string reads (string, bytes, Zarr v2 object arrays): the same checks, element by element.
void check_strings(const zarr::array& a, const zarr::region& all, const zarr::region& middle) {
  std::optional<std::vector<std::string>> whole;
  try {
    whole = a.read_strings(all);
  } catch (const zarr::error&) {
  }
  std::vector<std::string> part;
  try {
    part = a.read_strings(middle);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(!whole, "a partial read fails where the whole read succeeds:", e.what());
    throw;
  }
  if (!whole) return;
  zarr_fuzz::expect(whole->size() == all.num_elements() && part.size() == middle.num_elements(),
                    "a string read returned a wrong number of elements");
  const auto rank = middle.start.size();
  std::vector<std::uint64_t> at = middle.start;  // C order over the middle
  for (std::size_t k = 0; k < part.size(); ++k) {
    std::uint64_t flat = 0;
    for (std::size_t i = 0; i < rank; ++i) flat = flat * a.shape()[i] + at[i];
    zarr_fuzz::expect(part[k] == (*whole)[flat], "a partial string read differs from the whole read");
    for (std::size_t i = rank; i-- > 0;) {
      if (++at[i] < middle.stop[i]) break;
      at[i] = middle.start[i];
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  zarr::set_concurrency(1);  // reproducible runs
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto records = zarr_fuzz::split_records({reinterpret_cast<const char*>(data), size});
  auto store = std::make_shared<zarr::memory_store>();
  if (!records[0].empty()) store->set("zarr.json", std::as_bytes(std::span(records[0])));
  for (std::size_t i = 1; i + 1 < records.size(); i += 2) {
    try {
      store->set(records[i], std::as_bytes(std::span(records[i + 1])));
    } catch (const zarr::error& e) {
      zarr_fuzz::expect_code(e, zarr::errc::invalid_key);
    }
  }
  try {
    const auto a = zarr::array::open(store, "");
    if (!zarr_fuzz::small_array(a, (records.size() - 1) / 2)) return 0;
    const auto all = zarr::region::all(a.shape());
    // The middle of the array: partial chunks, and sharding's partial reads.
    zarr::region middle = all;
    for (std::size_t i = 0; i < a.shape().size(); ++i) {
      middle.start[i] = a.shape()[i] / 3;
      middle.stop[i] = a.shape()[i] - a.shape()[i] / 4;
    }
    if (zarr::has_variable_elements(a.type(), a.metadata().layout)) {
      check_strings(a, all, middle);
      return 0;
    }
    const auto element = a.metadata().element_size();
    std::vector<std::byte> whole(static_cast<std::size_t>(all.num_elements() * element));
    bool whole_ok = true;
    try {
      a.read(all, whole);
    } catch (const zarr::error&) {
      whole_ok = false;
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
