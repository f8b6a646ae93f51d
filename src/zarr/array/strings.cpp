// zarr.array: the elements of the variable-length data types, string and bytes
// (zarr-extensions data-types/string, data-types/bytes), through the vlen-utf8 / vlen-bytes
// codecs. Their elements differ in length, so they travel as std::string, not in the
// fixed-size buffers of every other type: a read is the one read path with a view of strings
// (array_view::strings); a write goes chunk by chunk here, with the same chunk walk, keys,
// locking and rule for chunks of only the fill value (docs/decisions.md 25).
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
module zarr.array;

import zarr.parallel;
import zarr.sized;

namespace zarr {

namespace {

std::uint64_t element_count(std::span<const std::uint64_t> shape) {
  std::uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

// Calls f(a, b) for each element of a box of `extent`, where a is its C-order index in an array
// of shape `a_shape` in which the box starts at `a_start`, and b the same in `b_shape`, `b_start`.
template <class F>
void for_each_element_pair(std::span<const std::uint64_t> extent, std::span<const std::uint64_t> a_shape,
                           std::span<const std::uint64_t> a_start, std::span<const std::uint64_t> b_shape,
                           std::span<const std::uint64_t> b_start, F&& f) {
  const std::size_t rank = extent.size();
  if (element_count(extent) == 0) return;
  if (rank == 0) return f(std::uint64_t{0}, std::uint64_t{0});
  std::vector<std::uint64_t> a_stride(rank, 1), b_stride(rank, 1);
  for (std::size_t i = rank - 1; i-- > 0;) {
    a_stride[i] = a_stride[i + 1] * a_shape[i + 1];
    b_stride[i] = b_stride[i + 1] * b_shape[i + 1];
  }
  std::vector<std::uint64_t> at(rank, 0);  // the position in the box, last dimension aside
  for (;;) {
    std::uint64_t a = 0, b = 0;
    for (std::size_t i = 0; i < rank; ++i) {
      a += (a_start[i] + at[i]) * a_stride[i];
      b += (b_start[i] + at[i]) * b_stride[i];
    }
    for (std::uint64_t k = 0; k < extent[rank - 1]; ++k) f(a + k, b + k);
    std::size_t i = rank - 1;
    for (; i-- > 0;) {
      if (++at[i] < extent[i]) break;
      at[i] = 0;
    }
    if (i == static_cast<std::size_t>(-1)) return;
  }
}

// Calls f(part) for each chunk part of `r` on the decoding threads, reporting each chunk done.
template <class F>
void for_each_part_in_parallel(std::span<const grid_axis> grid, const region& r, const progress_callback& callback,
                               std::string_view path, F&& f) {
  const auto parts = cell_parts(grid, r);
  chunk_progress progress(callback, parts.size(), path);
  parallel_for(parts.size(), [&](std::size_t t) {
    f(parts[t]);
    progress.chunk_done();
  });
}

}  // namespace

void array::check_fixed_size(std::string_view what) const {
  if (has_variable_elements(meta_.type, meta_.layout))
    throw error(errc::invalid_argument, "array " + node_name_for_errors(path_) + ": " + std::string(what) +
                                            ": expected an array of fixed-size elements, got data type " +
                                            std::string(name(meta_.type)) + " (use read_strings and write_strings)");
}

void array::check_variable_length(std::string_view what) const {
  if (!has_variable_elements(meta_.type, meta_.layout))
    throw error(errc::invalid_argument, "array " + node_name_for_errors(path_) + ": " + std::string(what) +
                                            ": expected data type string or bytes (or an optional one), got " +
                                            (is_sized(meta_.type) ? sized_type_name(meta_.type_spec()) : std::string(name(meta_.type))));
}

std::vector<std::string> array::read_strings(const region& r, const read_options& options) const {
  check_variable_length("read_strings");
  check_region(r);
  std::vector<std::string> out(static_cast<std::size_t>(r.num_elements()));
  read_into(r, strings_view(out.data(), r.extent()), options);
  return out;
}

// Every value is checked before anything is stored; a chunk the region covers in part is one
// read-modify-write (update_strings), as write() does for fixed-size elements.
void array::write_strings(const region& r, std::span<const std::string> in, const write_options& options) {
  check_variable_length("write_strings");
  check_region(r);
  const auto where = "array " + node_name_for_errors(path_);
  if (in.size() != r.num_elements())
    throw error(errc::invalid_argument, where + ": region: expected " + std::to_string(r.num_elements()) + " elements, got " +
                                            std::to_string(in.size()));
  const auto spec = meta_.type_spec();  // text is UTF-8, an optional element ends in its validity byte
  for (std::size_t i = 0; i < in.size(); ++i) {
    try {
      check_variable_value(in[i], spec);
    } catch (const error& e) {
      throw error(errc::invalid_argument, where + ": element " + std::to_string(i) + ": " + e.what());
    }
  }
  try {  // a value no chunk may hold (no numcodecs.categorize label) stores nothing
    chain_->check_elements(in);
  } catch (const error& e) {
    throw error(e.code(), where + ": " + e.what());
  }
  if (in.empty()) return;
  const auto extent = r.extent();
  for_each_part_in_parallel(grid_, r, options.progress, path_, [&](const cell_part& part) {
    const auto key = chunk_key(part.cell);
    const auto shape = chunk_shape_of(part.cell);
    const auto write_part = [&](std::vector<std::string>& chunk) {
      for_each_element_pair(part.extent(), shape, part.in_cell.start, extent, part.in_region,
                            [&](std::uint64_t c, std::uint64_t i) { chunk[c] = in[i]; });
    };
    const std::lock_guard lock(chunk_lock(key));
    if (!part.in_cell.covers(shape)) return update_strings(part.cell, key, true, options, write_part);
    std::vector<std::string> chunk(static_cast<std::size_t>(element_count(shape)));
    write_part(chunk);
    naming_the_chunk(path_, key, [&] {
      if (stored_as_absent(chunk, options)) return store_->erase(key);
      store_->set(key, chain_of(part.cell).encode_elements(chunk));
    });
  });
}

bool array::stored_as_absent(std::span<const std::string> chunk, const write_options& options) const {
  if (options.write_empty_chunks || meta_.no_fill_value) return false;
  return std::all_of(chunk.begin(), chunk.end(), [&](const std::string& e) { return e == meta_.fill_string; });
}

// The stored chunk (the fill value where it is missing, or, unless `create`, nothing is done
// then) is decoded, changed and encoded in store::update's `modify`, called again if another
// writer changed the chunk meanwhile (docs/decisions.md 64).
void array::update_strings(std::span<const std::uint64_t> chunk_index, const std::string& key, bool create,
                           const write_options& options, const std::function<void(std::vector<std::string>&)>& change) const {
  const auto shape = chunk_shape_of(chunk_index);
  const auto& chain = chain_of(chunk_index);
  store_->update(
      key,
      [&](const bytes* current, bytes& out) {
        if (current == nullptr && !create) return true;  // absent, and to stay so
        std::vector<std::string> chunk(static_cast<std::size_t>(element_count(shape)), meta_.fill_string);
        naming_the_chunk(path_, key, [&] {
          if (current != nullptr) chain.decode_elements(*current, chunk);
        });
        change(chunk);
        const bool absent = stored_as_absent(chunk, options);
        if (absent && store_->erases_conditionally()) return true;
        naming_the_chunk(path_, key, [&] { out = chain.encode_elements(chunk); });
        return absent;
      },
      options_.single_writer);
}

void array::reset_strings_outside(std::span<const std::uint64_t> chunk_index, std::span<const std::uint64_t> keep) {
  const auto key = chunk_key(chunk_index);
  const auto shape = chunk_shape_of(chunk_index);
  const std::lock_guard lock(chunk_lock(key));
  update_strings(chunk_index, key, false, {}, [&](std::vector<std::string>& chunk) {
    std::vector<std::string> fresh(chunk.size(), meta_.fill_string);
    const std::vector<std::uint64_t> zero(shape.size(), 0);
    for_each_element_pair(keep, shape, zero, shape, zero,
                          [&](std::uint64_t from, std::uint64_t to) { fresh[to] = std::move(chunk[from]); });
    chunk = std::move(fresh);
  });
}

}  // namespace zarr
