// zarr.nd: copying and filling views of arrays.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <span>
#include <string>
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

// Elements one by one along a row whose elements are not adjacent in src or dst.
template <std::size_t Size>
void copy_elements(const std::byte* src, std::int64_t src_step, std::byte* dst, std::int64_t dst_step, std::uint64_t n) {
  for (std::uint64_t k = 0; k < n; ++k, src += src_step, dst += dst_step) std::memcpy(dst, src, Size);
}

void copy_strided_row(const std::byte* src, std::int64_t src_step, std::byte* dst, std::int64_t dst_step, std::uint64_t n,
                      std::size_t size) {
  switch (size) {
    case 1: return copy_elements<1>(src, src_step, dst, dst_step, n);
    case 2: return copy_elements<2>(src, src_step, dst, dst_step, n);
    case 4: return copy_elements<4>(src, src_step, dst, dst_step, n);
    case 8: return copy_elements<8>(src, src_step, dst, dst_step, n);
    case 16: return copy_elements<16>(src, src_step, dst, dst_step, n);
    default:
      for (std::uint64_t k = 0; k < n; ++k, src += src_step, dst += dst_step) std::memcpy(dst, src, size);
  }
}

// The same for std::string objects, assigned.
void copy_strings(const std::byte* src, std::int64_t src_step, std::byte* dst, std::int64_t dst_step, std::uint64_t n) {
  for (std::uint64_t k = 0; k < n; ++k, src += src_step, dst += dst_step)
    *reinterpret_cast<std::string*>(dst) = *reinterpret_cast<const std::string*>(src);
}

}  // namespace

// Dimensions of extent 1 are dropped and neighbours that are contiguous in both views are
// merged, so that a box of whole trailing dimensions becomes one long row. The innermost
// dimension is the one with the smallest destination stride, so Fortran-order views copy
// rows too.
void copy(const const_array_view& src, const array_view& dst) {
  const std::size_t size = dst.element_size;
  for (auto e : dst.shape)
    if (e == 0) return;
  struct dim {
    std::uint64_t n;
    std::int64_t s, d;
  };
  std::vector<dim> dims;
  for (std::size_t i = 0; i < dst.shape.size(); ++i)
    if (dst.shape[i] != 1) dims.push_back({dst.shape[i], src.strides[i], dst.strides[i]});
  // Innermost last: sort by the destination's stride (stable, so C order stays as it is).
  for (std::size_t i = 1; i < dims.size(); ++i)  // an insertion sort: few dimensions, and stable
    for (std::size_t j = i; j > 0 && std::llabs(dims[j - 1].d) < std::llabs(dims[j].d); --j) std::swap(dims[j - 1], dims[j]);
  std::vector<dim> merged;
  for (const auto& d : dims) {
    if (!merged.empty()) {
      auto& outer = merged.back();
      if (outer.s == d.s * static_cast<std::int64_t>(d.n) && outer.d == d.d * static_cast<std::int64_t>(d.n)) {
        outer = {outer.n * d.n, d.s, d.d};
        continue;
      }
    }
    merged.push_back(d);
  }
  if (merged.empty()) merged.push_back({1, 0, 0});
  const auto inner = merged.back();
  merged.pop_back();
  const bool rows = !dst.strings && inner.s == static_cast<std::int64_t>(size) && inner.d == static_cast<std::int64_t>(size);
  const std::size_t row_bytes = static_cast<std::size_t>(inner.n) * size;
  const bool streaming = rows && dst.streaming && row_bytes >= 64;
  std::vector<std::uint64_t> pos(merged.size(), 0);
  const std::byte* from = src.data;
  std::byte* to = dst.data;
  for (;;) {
    if (streaming) stream_copy(to, from, row_bytes);
    else if (rows) std::memcpy(to, from, row_bytes);
    else if (dst.strings) copy_strings(from, inner.s, to, inner.d, inner.n);
    else copy_strided_row(from, inner.s, to, inner.d, inner.n, size);
    std::size_t i = merged.size();
    while (i > 0) {
      auto& m = merged[i - 1];
      from += m.s;
      to += m.d;
      if (++pos[i - 1] < m.n) break;
      from -= m.s * static_cast<std::int64_t>(m.n);
      to -= m.d * static_cast<std::int64_t>(m.n);
      pos[i - 1] = 0;
      --i;
    }
    if (i == 0) break;
  }
  if (streaming) store_fence();
}

// One row of `value` is built, then copied into every row (source strides 0 elsewhere).
void fill(const array_view& dst, const scalar& value) {
  if (dst.num_elements() == 0) return;
  const auto rank = dst.shape.size();
  // The row runs along the dimension of the smallest destination stride.
  std::size_t along = 0;
  for (std::size_t i = 1; i < rank; ++i)
    if (std::llabs(dst.strides[i]) < std::llabs(dst.strides[along])) along = i;
  const auto row = filled(rank == 0 ? 1 : dst.shape[along], value);
  const_array_view src{row.data(), dst.shape, std::vector<std::int64_t>(rank, 0), dst.element_size, false};
  if (rank > 0) src.strides[along] = static_cast<std::int64_t>(dst.element_size);
  copy(src, dst);
}

void fill(const array_view& dst, const std::string& value) {
  const auto rank = dst.shape.size();
  const const_array_view src{reinterpret_cast<const std::byte*>(&value), dst.shape, std::vector<std::int64_t>(rank, 0),
                             dst.element_size, false, true};
  copy(src, dst);
}

bool self_overlapping(const const_array_view& v) noexcept {
  if (v.c_contiguous()) return false;  // (the usual case, without the sort below)
  // Sorted by stride, each dimension must step past everything the smaller ones reach.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> dims;  // |stride|, extent
  for (std::size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] == 0) return false;
    if (v.shape[i] > 1) dims.emplace_back(static_cast<std::uint64_t>(std::llabs(v.strides[i])), v.shape[i]);
  }
  std::sort(dims.begin(), dims.end());
  std::uint64_t reach = v.element_size;  // bytes spanned by the dimensions so far
  for (const auto& [stride, n] : dims) {
    if (stride < reach) return true;
    reach = stride * (n - 1) + reach;
  }
  return false;
}

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

// The first element against `value`, then the buffer against itself one element on: every
// element equals the one before it. One memcmp over the whole buffer, not one per element.
bool all_equal(std::span<const std::byte> data, const scalar& value) noexcept {
  const auto v = value.bytes();
  if (data.size() < v.size()) return true;
  if (std::memcmp(data.data(), v.data(), v.size()) != 0) return false;
  return std::memcmp(data.data(), data.data() + v.size(), data.size() - v.size()) == 0;
}

namespace {

// How many cells of a grid meet `r` (at most a million, for reserving room): the product over
// dimensions of the cells holding its first and last element, and those between.
template <class CellOf>
std::size_t cells_meeting(const region& r, CellOf&& cell_of) {
  constexpr std::uint64_t most = 1 << 20;
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < r.start.size(); ++i) {
    if (r.start[i] == r.stop[i]) return 0;
    n = std::min(most, n * std::min(most, cell_of(i, r.stop[i] - 1) - cell_of(i, r.start[i]) + 1));
  }
  return static_cast<std::size_t>(n);
}

}  // namespace

std::vector<cell_part> cell_parts(std::span<const std::uint64_t> cell_shape, const region& r) {
  std::vector<cell_part> parts;
  parts.reserve(cells_meeting(r, [&](std::size_t i, std::uint64_t x) { return x / cell_shape[i]; }));
  for_each_cell_part(cell_shape, r, [&](cell_part& p) { parts.push_back(std::move(p)); });
  return parts;
}

std::vector<cell_part> cell_parts(std::span<const grid_axis> grid, const region& r) {
  std::vector<cell_part> parts;
  parts.reserve(cells_meeting(r, [&](std::size_t i, std::uint64_t x) { return grid[i].cell_of(x); }));
  for_each_cell_part(grid, r, [&](cell_part& p) { parts.push_back(std::move(p)); });
  return parts;
}

namespace {

// Copies `p` into the next of `kept`, assigned in place (its vectors keep their memory).
void keep_part(std::vector<cell_part>& kept, std::size_t& size, const cell_part& p) {
  if (size == kept.size()) kept.push_back(p);
  else kept[size] = p;
  ++size;
}

}  // namespace

kept_cell_parts::kept_cell_parts(std::span<const std::uint64_t> cell_shape, const region& r) {
  for_each_cell_part(cell_shape, r, [&](const cell_part& p) { keep_part(*parts_, size_, p); });
}

kept_cell_parts::kept_cell_parts(std::span<const grid_axis> grid, const region& r) {
  for_each_cell_part(grid, r, [&](const cell_part& p) { keep_part(*parts_, size_, p); });
}

kept_cell_parts::~kept_cell_parts() {
  if (parts_->size() > kept_at_most) std::vector<cell_part>().swap(*parts_);
}

}  // namespace zarr
