// zarr.nd: boxes of N-dimensional arrays, views of arrays in memory with any strides (C or
// Fortran order, a window of a larger array), and copying and filling them. Arrays use it
// for regions of chunks, sharding for inner chunks of shards.
module;
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>
export module zarr.nd;

export import zarr.bytes;
import zarr.dtype;

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
  // Whether `shape` is this box's extent (as many dimensions, each as long).
  [[nodiscard]] bool has_extent(std::span<const std::uint64_t> shape) const noexcept {
    if (shape.size() != start.size()) return false;
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (shape[i] != stop[i] - start[i]) return false;
    return true;
  }
  [[nodiscard]] bool covers(std::span<const std::uint64_t> shape) const noexcept {
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (start[i] != 0 || stop[i] != shape[i]) return false;
    return true;
  }
};

// Destinations of at least this many bytes are written around the cache (non-temporal
// stores): larger than the caches, they would go back to memory anyway.
inline constexpr std::uint64_t streaming_destination = std::uint64_t{32} << 20;

// An array in memory: element (i0, i1, ...) at data + i0 * strides[0] + i1 * strides[1] + ...
// bytes. Byte is std::byte (a destination) or const std::byte (a source). The elements of the
// variable-length types (string, bytes) are std::string objects (`strings`), copied as such.
template <class Byte>
struct basic_array_view {
  Byte* data = nullptr;
  std::vector<std::uint64_t> shape;
  std::vector<std::int64_t> strides;  // in bytes
  std::size_t element_size = 1;
  // Rows copied into this view bypass the cache: set by c_order/f_order for views of
  // streaming_destination bytes or more, and kept by window().
  bool streaming = false;
  bool strings = false;

  // The whole buffer `data` as an array of `shape`, C order (last index fastest).
  [[nodiscard]] static basic_array_view c_order(Byte* data, std::span<const std::uint64_t> shape, std::size_t element_size) {
    return ordered(data, shape, element_size, false);
  }
  // The same in Fortran order (first index fastest).
  [[nodiscard]] static basic_array_view f_order(Byte* data, std::span<const std::uint64_t> shape, std::size_t element_size) {
    return ordered(data, shape, element_size, true);
  }
  // The box [start, start + extent) of this view, as a view of its own.
  [[nodiscard]] basic_array_view window(std::span<const std::uint64_t> start, std::span<const std::uint64_t> extent) const {
    basic_array_view w{data, {extent.begin(), extent.end()}, strides, element_size, streaming, strings};
    for (std::size_t i = 0; i < start.size(); ++i)
      w.data += static_cast<std::int64_t>(start[i]) * strides[i];
    return w;
  }
  // The box at `start` of the extent of `sized_as`; window(box) is the box `box`.
  [[nodiscard]] basic_array_view window(std::span<const std::uint64_t> start, const region& sized_as) const {
    auto w = window(start, std::span<const std::uint64_t>());
    w.shape.resize(sized_as.start.size());
    for (std::size_t i = 0; i < w.shape.size(); ++i) w.shape[i] = sized_as.stop[i] - sized_as.start[i];
    return w;
  }
  [[nodiscard]] basic_array_view window(const region& box) const { return window(box.start, box); }
  // The same window, with no copy made when it is all of this view: this view then, else the
  // window, made in `made`.
  [[nodiscard]] const basic_array_view& window(std::span<const std::uint64_t> start, const region& sized_as,
                                               std::optional<basic_array_view>& made) const {
    bool all = sized_as.has_extent(shape);
    for (std::size_t i = 0; all && i < start.size(); ++i) all = start[i] == 0;
    return all ? *this : made.emplace(window(start, sized_as));
  }
  [[nodiscard]] std::uint64_t num_elements() const noexcept {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  // True when the elements follow each other in C order, with no gaps.
  [[nodiscard]] bool c_contiguous() const noexcept {
    auto expected = static_cast<std::int64_t>(element_size);
    for (std::size_t i = shape.size(); i-- > 0;) {
      if (shape[i] != 1 && strides[i] != expected) return false;
      expected *= static_cast<std::int64_t>(shape[i]);
    }
    return true;
  }
  operator basic_array_view<const std::byte>() const
    requires(!std::is_const_v<Byte>)
  {
    return {data, shape, strides, element_size, streaming, strings};
  }

 private:
  static basic_array_view ordered(Byte* data, std::span<const std::uint64_t> shape, std::size_t element_size,
                                  bool fortran) {
    basic_array_view v{data, {shape.begin(), shape.end()}, std::vector<std::int64_t>(shape.size()), element_size, false, false};
    auto stride = static_cast<std::int64_t>(element_size);
    for (std::size_t k = 0; k < shape.size(); ++k) {
      const auto i = fortran ? k : shape.size() - 1 - k;
      v.strides[i] = stride;
      stride *= static_cast<std::int64_t>(shape[i]);
    }
    v.streaming = static_cast<std::uint64_t>(stride) >= streaming_destination;
    return v;
  }
};
using array_view = basic_array_view<std::byte>;
using const_array_view = basic_array_view<const std::byte>;

// `data`, std::string objects in C order, as an array of `shape`.
[[nodiscard]] inline array_view strings_view(std::string* data, std::span<const std::uint64_t> shape) {
  auto v = array_view::c_order(reinterpret_cast<std::byte*>(data), shape, sizeof(std::string));
  v.strings = true;
  return v;
}
[[nodiscard]] inline const_array_view strings_view(const std::string* data, std::span<const std::uint64_t> shape) {
  auto v = const_array_view::c_order(reinterpret_cast<const std::byte*>(data), shape, sizeof(std::string));
  v.strings = true;
  return v;
}

// Copies every element of `src` into `dst`, of the same shape and element size. Dimensions
// that are contiguous in both are merged, rows of adjacent elements copied with memcpy (or
// streamed, see array_view::streaming).
void copy(const const_array_view& src, const array_view& dst);

// Sets every element of `dst` to `value`.
void fill(const array_view& dst, const scalar& value);
// Sets every element of `dst`, a view of strings, to `value`.
void fill(const array_view& dst, const std::string& value);

// Whether two elements of `v` share bytes (a destination must not).
[[nodiscard]] bool self_overlapping(const const_array_view& v) noexcept;

// A buffer of `n` elements all equal to `value`.
[[nodiscard]] bytes filled(std::uint64_t n, const scalar& value);

// Whether every element of `data` equals `value` bit for bit.
[[nodiscard]] bool all_equal(std::span<const std::byte> data, const scalar& value) noexcept;

// One dimension of a grid of cells: cells of `step` elements, or, when `ends` is not empty,
// cell k spanning [ends[k - 1], ends[k]) (from 0 for k = 0): the rectilinear chunk grid's
// edge lengths, summed.
struct grid_axis {
  std::uint64_t step = 0;
  std::vector<std::uint64_t> ends;

  [[nodiscard]] std::uint64_t cell_of(std::uint64_t i) const noexcept {
    if (ends.empty()) return i / step;
    std::size_t lo = 0, hi = ends.size();  // the first end above i
    while (lo < hi) {
      const auto mid = lo + (hi - lo) / 2;
      if (ends[mid] > i) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  [[nodiscard]] std::uint64_t origin(std::uint64_t cell) const noexcept {
    if (ends.empty()) return cell * step;
    return cell == 0 ? 0 : ends[static_cast<std::size_t>(cell - 1)];
  }
  [[nodiscard]] std::uint64_t edge(std::uint64_t cell) const noexcept {
    return ends.empty() ? step : ends[static_cast<std::size_t>(cell)] - origin(cell);
  }
};

// The part of a region `r` that lies in one cell of a grid (a chunk of an array, an inner
// chunk of a shard).
struct cell_part {
  std::vector<std::uint64_t> cell;       // the cell's index in the grid
  region in_cell;                        // the part, in the cell's own coordinates
  std::vector<std::uint64_t> in_region;  // where the part starts, relative to r.start
};

// What a walk of cells works in: kept by the thread (one per depth, as f may walk again) so
// that its vectors are allocated once.
struct cell_walk {
  std::vector<std::uint64_t> cell;
  cell_part part;
};

// Calls f(part) for every cell that meets `r`, in C order of the cells, of the grid whose cell
// c along dimension i starts at origin(i, c) and has edge(i, c) elements, and where cell_of(i,
// x) holds element x. `part` is a cell_part& that f may change or move from: it is set anew for
// every call.
template <class CellOf, class Origin, class Edge, class F>
void for_each_cell_part_of(std::size_t rank, CellOf&& cell_of, Origin&& origin, Edge&& edge, const region& r, F&& f) {
  for (std::size_t i = 0; i < rank; ++i)
    if (r.start[i] == r.stop[i]) return;
  const thread_buffer<cell_walk, cell_walk> walk;
  auto& cell = walk->cell;
  auto& part = walk->part;
  cell.resize(rank);
  for (std::size_t i = 0; i < rank; ++i) cell[i] = cell_of(i, r.start[i]);
  for (;;) {
    part.cell.assign(cell.begin(), cell.end());
    part.in_cell.start.resize(rank);
    part.in_cell.stop.resize(rank);
    part.in_region.resize(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      const auto lo_cell = origin(i, cell[i]);
      const auto hi_cell = lo_cell + edge(i, cell[i]);
      const auto lo = r.start[i] > lo_cell ? r.start[i] : lo_cell;
      const auto hi = r.stop[i] < hi_cell ? r.stop[i] : hi_cell;
      part.in_cell.start[i] = lo - lo_cell;
      part.in_cell.stop[i] = hi - lo_cell;
      part.in_region[i] = lo - r.start[i];
    }
    f(part);
    std::size_t i = rank;
    for (; i > 0; --i) {  // the next cell: the last dimension whose cell ends before r does moves on
      const auto d = i - 1;
      if (origin(d, cell[d]) + edge(d, cell[d]) < r.stop[d]) {
        ++cell[d];
        break;
      }
      cell[d] = cell_of(d, r.start[d]);
    }
    if (i == 0) return;
  }
}

// The same for the regular grid of cells of `cell_shape`.
template <class F>
void for_each_cell_part(std::span<const std::uint64_t> cell_shape, const region& r, F&& f) {
  for_each_cell_part_of(
      cell_shape.size(), [&](std::size_t i, std::uint64_t x) { return x / cell_shape[i]; },
      [&](std::size_t i, std::uint64_t c) { return c * cell_shape[i]; }, [&](std::size_t i, std::uint64_t) { return cell_shape[i]; },
      r, f);
}

// The same for a grid given axis by axis.
template <class F>
void for_each_cell_part(std::span<const grid_axis> grid, const region& r, F&& f) {
  for_each_cell_part_of(
      grid.size(), [&](std::size_t i, std::uint64_t x) { return grid[i].cell_of(x); },
      [&](std::size_t i, std::uint64_t c) { return grid[i].origin(c); },
      [&](std::size_t i, std::uint64_t c) { return grid[i].edge(c); }, r, f);
}

// The same, collected (to be processed in parallel).
[[nodiscard]] std::vector<cell_part> cell_parts(std::span<const std::uint64_t> cell_shape, const region& r);
[[nodiscard]] std::vector<cell_part> cell_parts(std::span<const grid_axis> grid, const region& r);

// The same, in a vector the thread keeps for its next walk at the same depth: the parts are
// assigned in place, with no allocation once their vectors are large enough (a read of one
// chunk after another). More than `kept_at_most` parts are let go of afterwards.
class kept_cell_parts {
 public:
  kept_cell_parts(std::span<const std::uint64_t> cell_shape, const region& r);
  kept_cell_parts(std::span<const grid_axis> grid, const region& r);
  ~kept_cell_parts();
  kept_cell_parts(const kept_cell_parts&) = delete;
  kept_cell_parts& operator=(const kept_cell_parts&) = delete;

  [[nodiscard]] std::span<const cell_part> all() const noexcept { return {parts_->data(), size_}; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const cell_part& operator[](std::size_t i) const noexcept { return (*parts_)[i]; }

 private:
  static constexpr std::size_t kept_at_most = 64;
  thread_buffer<kept_cell_parts, std::vector<cell_part>> parts_;
  std::size_t size_ = 0;  // the first size_ of *parts_ are this walk's
};

}  // namespace zarr
