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
// Trailing dimensions that both arrays hold whole are merged into longer rows first.
void copy_box(const std::byte* src, std::span<const std::uint64_t> src_shape, std::span<const std::uint64_t> src_start,
              std::byte* dst, std::span<const std::uint64_t> dst_shape, std::span<const std::uint64_t> dst_start,
              std::span<const std::uint64_t> extent, std::size_t size) {
  std::size_t rank = extent.size();
  std::vector<std::uint64_t> s_shape(src_shape.begin(), src_shape.end()), s_start(src_start.begin(), src_start.end());
  std::vector<std::uint64_t> d_shape(dst_shape.begin(), dst_shape.end()), d_start(dst_start.begin(), dst_start.end());
  std::vector<std::uint64_t> ext(extent.begin(), extent.end());
  while (rank >= 2 && ext[rank - 1] == s_shape[rank - 1] && ext[rank - 1] == d_shape[rank - 1]) {
    // The last dimension is whole in both (so its starts are 0): fold it into the one before.
    const auto n = ext[rank - 1];
    s_shape[rank - 2] *= n;
    d_shape[rank - 2] *= n;
    s_start[rank - 2] *= n;
    d_start[rank - 2] *= n;
    ext[rank - 2] *= n;
    --rank;
  }
  s_shape.resize(rank);
  s_start.resize(rank);
  d_shape.resize(rank);
  d_start.resize(rank);
  ext.resize(rank);
  std::vector<std::uint64_t> src_stride(rank, 1);
  for (std::size_t i = rank; i-- > 1;) src_stride[i - 1] = src_stride[i] * s_shape[i];
  copy_rows(src, src_stride, s_start, dst, d_shape, d_start, ext, size);
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

// The first element against `value`, then the buffer against itself one element on: every
// element equals the one before it. One memcmp over the whole buffer, not one per element.
bool all_equal(std::span<const std::byte> data, const scalar& value) noexcept {
  const auto v = value.bytes();
  if (data.size() < v.size()) return true;
  if (std::memcmp(data.data(), v.data(), v.size()) != 0) return false;
  return std::memcmp(data.data(), data.data() + v.size(), data.size() - v.size()) == 0;
}

}  // namespace zarr
