// zarr.nd: boxes of N-dimensional C-order arrays, and copying and filling them. Used by
// arrays (regions of chunks) and by sharding (inner chunks of shards).
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>
export module zarr.nd;

import zarr.dtype;
import zarr.store;

export namespace zarr {

// A box of an array: [start[i], stop[i]) in every dimension.
struct region {
  std::vector<std::uint64_t> start;
  std::vector<std::uint64_t> stop;

  [[nodiscard]] static region all(std::span<const std::uint64_t> shape) {
    return {std::vector<std::uint64_t>(shape.size(), 0), std::vector<std::uint64_t>(shape.begin(), shape.end())};
  }
  [[nodiscard]] std::vector<std::uint64_t> extent() const {
    std::vector<std::uint64_t> e(start.size());
    for (std::size_t i = 0; i < e.size(); ++i) e[i] = stop[i] - start[i];
    return e;
  }
  [[nodiscard]] std::uint64_t num_elements() const noexcept {
    std::uint64_t n = 1;
    for (std::size_t i = 0; i < start.size(); ++i) n *= stop[i] - start[i];
    return n;
  }
  [[nodiscard]] bool covers(std::span<const std::uint64_t> shape) const noexcept {
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (start[i] != 0 || stop[i] != shape[i]) return false;
    return true;
  }
};

// Copies the box `extent` from `src` (C order, shape src_shape, box at src_start) to `dst`
// (shape dst_shape, box at dst_start); elements of `size` bytes. Rows of the last
// dimension are copied with memcpy; into a destination of 32 MiB or more, rows of 64 bytes
// or more are written with non-temporal stores (not read into the cache first).
void copy_box(const std::byte* src, std::span<const std::uint64_t> src_shape, std::span<const std::uint64_t> src_start,
              std::byte* dst, std::span<const std::uint64_t> dst_shape, std::span<const std::uint64_t> dst_start,
              std::span<const std::uint64_t> extent, std::size_t size);

// Sets every element of the box to `value`.
void fill_box(std::byte* dst, std::span<const std::uint64_t> dst_shape, std::span<const std::uint64_t> dst_start,
              std::span<const std::uint64_t> extent, const scalar& value);

// A buffer of `n` elements all equal to `value`.
[[nodiscard]] bytes filled(std::uint64_t n, const scalar& value);

// Whether every element of `data` equals `value` bit for bit.
[[nodiscard]] bool all_equal(std::span<const std::byte> data, const scalar& value) noexcept;

// Calls f(cell_index, lo, hi) for every cell of a regular grid with cells of `cell_shape`
// that meets `r`, where [lo, hi) is the part of `r` inside that cell, in the coordinates of
// `r`'s array. Cells are visited in C order.
template <class F>
void for_each_cell(std::span<const std::uint64_t> cell_shape, const region& r, F&& f) {
  const auto rank = cell_shape.size();
  for (std::size_t i = 0; i < rank; ++i)
    if (r.start[i] == r.stop[i]) return;
  std::vector<std::uint64_t> first(rank), last(rank), lo(rank), hi(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    first[i] = r.start[i] / cell_shape[i];
    last[i] = (r.stop[i] - 1) / cell_shape[i];
  }
  auto index = first;
  for (;;) {
    for (std::size_t i = 0; i < rank; ++i) {
      lo[i] = std::max(r.start[i], index[i] * cell_shape[i]);
      hi[i] = std::min(r.stop[i], (index[i] + 1) * cell_shape[i]);
    }
    f(std::span<const std::uint64_t>(index), std::span<const std::uint64_t>(lo), std::span<const std::uint64_t>(hi));
    std::size_t i = rank;
    while (i > 0) {
      if (++index[i - 1] <= last[i - 1]) break;
      index[i - 1] = first[i - 1];
      --i;
    }
    if (i == 0) return;
  }
}

}  // namespace zarr
