// zarr.nd: copying and filling boxes of C-order arrays.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>
module zarr.nd;

namespace zarr {

namespace {

// The box copy with explicit source strides (in elements; the last one must be 1), so that a
// source stride of 0 repeats one row into every row of the box.
void copy_rows(const std::byte* src, std::span<const std::uint64_t> src_stride, std::span<const std::uint64_t> src_start,
               std::byte* dst, std::span<const std::uint64_t> dst_shape, std::span<const std::uint64_t> dst_start,
               std::span<const std::uint64_t> extent, std::size_t size) {
  const std::size_t rank = extent.size();
  for (auto e : extent)
    if (e == 0) return;
  if (rank == 0) {
    std::memcpy(dst, src, size);
    return;
  }
  std::vector<std::uint64_t> dst_stride(rank);
  dst_stride[rank - 1] = 1;
  for (std::size_t i = rank - 1; i > 0; --i) dst_stride[i - 1] = dst_stride[i] * dst_shape[i];
  const std::size_t row = static_cast<std::size_t>(extent[rank - 1]) * size;
  std::vector<std::uint64_t> pos(rank, 0);
  for (;;) {
    std::uint64_t s = 0, d = 0;
    for (std::size_t i = 0; i < rank; ++i) {
      s += (src_start[i] + pos[i]) * src_stride[i];
      d += (dst_start[i] + pos[i]) * dst_stride[i];
    }
    std::memcpy(dst + d * size, src + s * size, row);
    std::size_t i = rank - 1;
    while (i > 0) {
      if (++pos[i - 1] < extent[i - 1]) break;
      pos[i - 1] = 0;
      --i;
    }
    if (i == 0) return;
  }
}

}  // namespace

// Rows of the last dimension are copied with memcpy.
void copy_box(const std::byte* src, std::span<const std::uint64_t> src_shape, std::span<const std::uint64_t> src_start,
              std::byte* dst, std::span<const std::uint64_t> dst_shape, std::span<const std::uint64_t> dst_start,
              std::span<const std::uint64_t> extent, std::size_t size) {
  std::vector<std::uint64_t> src_stride(extent.size(), 1);
  for (std::size_t i = src_stride.size(); i-- > 1;) src_stride[i - 1] = src_stride[i] * src_shape[i];
  copy_rows(src, src_stride, src_start, dst, dst_shape, dst_start, extent, size);
}

// A buffer of `n` elements all equal to `value`.
bytes filled(std::uint64_t n, const scalar& value) {
  const auto v = value.bytes();
  bytes out(static_cast<std::size_t>(n) * v.size());
  if (std::all_of(v.begin(), v.end(), [](std::byte b) { return b == std::byte{0}; })) {
    std::memset(out.data(), 0, out.size());
  } else {
    for (std::size_t i = 0; i < out.size(); i += v.size()) std::memcpy(out.data() + i, v.data(), v.size());
  }
  return out;
}

// One row of `value` is built, then copied into every row of the box (source stride 0).
void fill_box(std::byte* dst, std::span<const std::uint64_t> dst_shape, std::span<const std::uint64_t> dst_start,
              std::span<const std::uint64_t> extent, const scalar& value) {
  const std::size_t rank = extent.size();
  const auto row = filled(rank == 0 ? 1 : extent.back(), value);
  std::vector<std::uint64_t> stride(rank, 0), start(rank, 0);
  if (rank > 0) stride.back() = 1;
  copy_rows(row.data(), stride, start, dst, dst_shape, dst_start, extent, value.bytes().size());
}

bool all_equal(std::span<const std::byte> data, const scalar& value) noexcept {
  const auto v = value.bytes();
  for (std::size_t i = 0; i < data.size(); i += v.size())
    if (std::memcmp(data.data() + i, v.data(), v.size()) != 0) return false;
  return true;
}

}  // namespace zarr
