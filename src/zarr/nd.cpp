// zarr.nd: copying and filling boxes of C-order arrays.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
module zarr.nd;

namespace zarr {

namespace {

// Copies n bytes with non-temporal stores for the whole 64-byte lines of `dst` (the head and
// tail around them with memcpy): the rows go to memory without first being read into the
// cache, and do not evict what is in it. The caller fences once after its last row.
void stream_copy(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
#if defined(__SSE2__)
  const auto head = std::min(n, static_cast<std::size_t>(-reinterpret_cast<std::uintptr_t>(dst) & 63));
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  for (; n >= 64; n -= 64, dst += 64, src += 64) {
    const auto* s = reinterpret_cast<const __m128i*>(src);
    auto* d = reinterpret_cast<__m128i*>(dst);
    const __m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1), c = _mm_loadu_si128(s + 2), e = _mm_loadu_si128(s + 3);
    _mm_stream_si128(d, a);
    _mm_stream_si128(d + 1, b);
    _mm_stream_si128(d + 2, c);
    _mm_stream_si128(d + 3, e);
  }
#endif
  std::memcpy(dst, src, n);
}

void store_fence() noexcept {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Destinations of at least this many bytes are written around the cache: larger than the
// caches, they would be written back to memory anyway (a reader of a whole array into a new
// buffer, not a gather into a chunk buffer that a codec reads next).
constexpr std::uint64_t streaming_destination = std::uint64_t{32} << 20;

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
  // Rows shorter than a cache line would leave lines partly written: copied as usual.
  const bool streaming = row >= 64 && dst_stride[0] * dst_shape[0] * size >= streaming_destination;
  // The outer dimensions are walked with `pos`; the last but one by pointer steps.
  const std::uint64_t rows = rank >= 2 ? extent[rank - 2] : 1;
  const std::size_t src_step = rank >= 2 ? static_cast<std::size_t>(src_stride[rank - 2]) * size : 0;
  const std::size_t dst_step = rank >= 2 ? static_cast<std::size_t>(dst_stride[rank - 2]) * size : 0;
  const std::size_t outer = rank >= 2 ? rank - 2 : 0;
  std::vector<std::uint64_t> pos(outer, 0);
  for (;;) {
    std::uint64_t s = 0, d = 0;
    for (std::size_t i = 0; i < rank; ++i) {
      const auto p = i < outer ? pos[i] : 0;
      s += (src_start[i] + p) * src_stride[i];
      d += (dst_start[i] + p) * dst_stride[i];
    }
    const std::byte* from = src + s * size;
    std::byte* to = dst + d * size;
    if (streaming)
      for (std::uint64_t k = 0; k < rows; ++k, from += src_step, to += dst_step) stream_copy(to, from, row);
    else
      for (std::uint64_t k = 0; k < rows; ++k, from += src_step, to += dst_step) std::memcpy(to, from, row);
    std::size_t i = outer;
    while (i > 0) {
      if (++pos[i - 1] < extent[i - 1]) break;
      pos[i - 1] = 0;
      --i;
    }
    if (i == 0) break;
  }
  if (streaming) store_fence();
}

}  // namespace

// Rows of the last dimension are copied with memcpy (or streamed, see copy_rows).
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
