// zarr.array: writing regions: chunks the region covers whole assembled (or taken straight from
// the caller's memory) and encoded, in batches on object stores; the others a read-modify-write
// of the stored chunk (Zarr v3 core spec "Chunk encoding"; docs/decisions.md 25 for chunks that
// hold only the fill value, 64 for concurrent writers).
module;
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
module zarr.array;

import zarr.parallel;

namespace zarr {

namespace {

// A whole chunk's elements (C order, no gaps), as bytes or as strings.
std::span<const std::byte> bytes_of(const const_array_view& chunk) {
  return {chunk.data, static_cast<std::size_t>(chunk.num_elements()) * chunk.element_size};
}
std::span<const std::string> strings_of(const const_array_view& chunk) {
  return {reinterpret_cast<const std::string*>(chunk.data), static_cast<std::size_t>(chunk.num_elements())};
}

}  // namespace

bool array::stored_as_absent(const const_array_view& chunk, const write_options& options) const {
  // Without a fill value (Zarr v2 null), every chunk written is stored.
  if (options.write_empty_chunks || meta_.no_fill_value) return false;
  if (!chunk.strings) return all_equal(bytes_of(chunk), meta_.fill_value);
  const auto strings = strings_of(chunk);
  return std::all_of(strings.begin(), strings.end(), [&](const std::string& e) { return e == meta_.fill_string; });
}

void array::encode_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, const const_array_view& chunk,
                         bytes& out) const {
  const auto& chain = chain_of(chunk_index);
  naming_the_chunk(path_, key, [&] {
    if (chunk.strings) out = chain.encode_elements(strings_of(chunk));
    else chain.encode_into(bytes_of(chunk), out);
  });
}

void array::store_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key,
                        const const_array_view& chunk, const write_options& options) const {
  if (stored_as_absent(chunk, options)) {
    store_->erase(key);
    return;
  }
  if (chain_of(chunk_index).identity()) {
    store_->set(key, bytes_of(chunk));
    return;
  }
  const thread_buffer<struct encoded_chunk_tag> encoded;
  encode_chunk(chunk_index, key, chunk, *encoded);
  store_->set(key, *encoded);
  let_go_if_large(*encoded);
}

// The stored chunk is read (with its version where the store has versions), decoded, changed
// and encoded again in `modify`, which the store calls again if another writer changed the
// chunk meanwhile (docs/decisions.md 64).
void array::update_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, bool create,
                         const write_options& options, const std::function<void(const array_view&)>& change) const {
  const auto spec = chunk_spec_of(meta_, chunk_shape_of(chunk_index));
  const auto& chain = chain_of(chunk_index);
  const thread_buffer<struct chunk_tag, chunk_memory> memory;
  store_->update(  // (store errors name the key, decoding errors the array and the chunk)
      key,
      [&](const bytes* current, bytes& out) {
        if (current == nullptr && !create) return true;  // absent, and to stay so
        // Where the stored bytes are the chunk itself (identity chain), it is assembled in `out`.
        auto& elements = chain.identity() ? out : memory->elements;
        const auto whole = memory->whole(spec, elements);
        if (current == nullptr) fill(whole, spec);
        else if (spec.variable_elements()) naming_the_chunk(path_, key, [&] { chain.decode_elements(*current, memory->strings); });
        else decode_chunk(chunk_index, key, *current, elements);
        change(whole);
        const bool absent = stored_as_absent(whole, options);
        if (absent && store_->erases_conditionally()) return true;
        if (!chain.identity()) encode_chunk(chunk_index, key, whole, out);
        return absent;
      },
      options_.single_writer);
  memory->let_go();
}

namespace {

// Writers of one chunk within this process take turns: a chunk (or shard) is read,
// modified and written back whole, so two concurrent partial writes of the same chunk
// would otherwise lose one of them. Striped by the hash of the key alone: two store
// objects may be the same directory (same keys of different stores only share a stripe).
std::array<std::mutex, 256>& chunk_stripes() {
  static std::array<std::mutex, 256> stripes;
  return stripes;
}
std::size_t stripe_of(const std::string& key) { return std::hash<std::string>{}(key) % chunk_stripes().size(); }

}  // namespace

std::mutex& chunk_lock(const std::string& key) { return chunk_stripes()[stripe_of(key)]; }

namespace {

// Where a write's part lies: whether the region covers every element of the chunk inside the
// array, and whether the chunk lies wholly inside the array.
struct coverage {
  bool covers = true;
  bool interior = true;
};
coverage coverage_of(const cell_part& part, std::span<const grid_axis> grid, std::span<const std::uint64_t> chunk_shape,
                     std::span<const std::uint64_t> array_shape) {
  coverage c;
  for (std::size_t i = 0; i < array_shape.size(); ++i) {
    const auto origin = grid[i].origin(part.cell[i]);
    const auto inside = std::min(array_shape[i] - origin, chunk_shape[i]);
    c.covers = c.covers && part.in_cell.start[i] == 0 && part.in_cell.stop[i] == inside;
    c.interior = c.interior && inside == chunk_shape[i];
  }
  return c;
}

}  // namespace

void array::write(const region& r, std::span<const std::byte> in, const write_options& options) {
  check_fixed_size("write");
  check_region(r);
  const auto size = static_cast<std::size_t>(meta_.element_size());
  write_into(r, const_array_view::c_order(in.data(), c_order_extent(r, in.size(), meta_.element_size(), path_), size), options);
}

void array::write(const region& r, const const_array_view& in, const write_options& options) {
  check_region(r);
  check_view(r, in, "input");
  write_into(r, in, options);
}

const_array_view array::assembled(const cell_part& part, const const_array_view& source, chunk_memory& memory) const {
  const auto spec = chunk_spec_of(meta_, chunk_shape_of(part.cell));
  const auto [covers, interior] = coverage_of(part, grid_, spec.shape, meta_.shape);
  if (covers && interior && source.c_contiguous()) return source;
  const auto whole = memory.whole(spec);
  if (!interior) fill(whole, spec);  // (else every element is written below)
  copy(source, whole.window(part.in_cell));
  return whole;
}

// A chunk the region covers whole is encoded straight from `in` when its elements follow
// each other there; any other is assembled in memory of the thread's (from the stored chunk
// when the region covers only part of it: a read-modify-write), then encoded.
void array::write_into(const region& r, const const_array_view& in, const write_options& options) {
  if (r.num_elements() == 0) return;
  const auto parts = cell_parts(grid_, r);
  const at_scope_end forget{[&] {  // the chunks it changed, also when it failed half-way
    for (const auto& part : parts) forget_cached(chunk_key(part.cell));
  }};
  chunk_progress progress(options.progress, parts.size(), path_);
  const auto covers = [&](const cell_part& part) {
    return coverage_of(part, grid_, chunk_shape_of(part.cell), meta_.shape).covers;
  };
  const auto write_part = [&](const cell_part& part) {
    const auto key = chunk_key(part.cell);
    const auto source = in.window(part.in_region, part.in_cell);
    const std::lock_guard lock(chunk_lock(key));
    if (!covers(part)) {
      update_chunk(part.cell, key, true, options,
                   [&](const array_view& whole) { copy(source, whole.window(part.in_cell.start, source.shape)); });
    } else {
      const thread_buffer<struct chunk_tag, chunk_memory> memory;
      store_chunk(part.cell, key, assembled(part, source, *memory), options);
      memory->let_go();
    }
    progress.chunk_done();
  };
  if (store_->io_concurrency() > 1 && parts.size() > 1) {
    // The chunks covered whole in batches; the others each a read-modify-write.
    std::vector<cell_part> whole, partial;
    for (const auto& part : parts) (covers(part) ? whole : partial).push_back(part);
    write_batched(whole, in, options, [&] { progress.chunk_done(); });
    parallel_for(partial.size(), [&](std::size_t t) { write_part(partial[t]); });
    return;
  }
  parallel_for(parts.size(), [&](std::size_t t) { write_part(parts[t]); });
}

// The chunks the region covers whole stream, as reads do: one store batch (on a thread of its
// own) keeps its requests in flight for the whole write, storing each chunk as soon as the
// encoding threads have it ready and letting its memory go once stored, while the encoding
// threads assemble and encode the chunks in order into memory of their own, at most `window`
// chunks ahead of the last one stored (so memory stays bounded and no batch ever drains).
// First the chunks' stripes of chunk_lock are taken, in order: two writers never wait for each
// other in a circle.
void array::write_batched(std::span<const cell_part> parts, const const_array_view& in, const write_options& options,
                          const std::function<void()>& chunk_done) {
  if (parts.empty()) return;
  const auto window = batch_size(store_->io_concurrency(), largest_chunk_bytes(meta_));
  std::vector<std::string> keys;
  std::vector<std::size_t> stripes;
  for (const auto& part : parts) {
    keys.push_back(chunk_key(part.cell));
    stripes.push_back(stripe_of(keys.back()));
  }
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(stripes.size());
  for (const auto s : stripes) locks.emplace_back(chunk_stripes()[s]);

  std::vector<chunk_memory> held(parts.size());  // assembled or encoded chunks, until stored
  std::vector<store::set_item> items(parts.size());
  const auto ready = std::make_unique<std::atomic<bool>[]>(parts.size());  // items[k] is complete
  std::atomic<std::size_t> next{0};                                         // the next chunk to encode
  std::size_t stored = 0;                                                   // under a.mutex
  alongside a;
  a.run(
      [&] {
        // (Store errors name the key; a cancellation names the array already.)
        store_->set_many(
            items,
            [&](std::size_t k) {
              a.leave_if_stopped();
              held[k] = chunk_memory();
              {
                const std::lock_guard lock(a.mutex);
                ++stored;
              }
              a.changed.notify_all();
              chunk_done();
            },
            [&](std::size_t k) {
              a.leave_if_stopped();
              return ready[k].load();
            });
      },
      [&] {
        parallel_for(parts.size(), [&](std::size_t) {
          a.piece([&] {
            const auto k = next++;  // in order on every thread: the batch stores in order
            {
              std::unique_lock lock(a.mutex);
              a.changed.wait(lock, [&] { return k < stored + window || a.batch_over || a.stopped.load(); });
              if (a.batch_over || a.stopped.load()) return;
            }
            const auto& part = parts[k];
            const auto chunk = assembled(part, in.window(part.in_region, part.in_cell), held[k]);
            items[k].key = keys[k];
            if (stored_as_absent(chunk, options)) {
              items[k].erase = true;
            } else if (chain_of(part.cell).identity()) {
              items[k].value = bytes_of(chunk);
            } else {
              bytes encoded;
              encode_chunk(part.cell, keys[k], chunk, encoded);
              held[k] = chunk_memory{.elements = std::move(encoded), .strings = {}};
              items[k].value = held[k].elements;
            }
            ready[k] = true;
          });
        });
      });
}

}  // namespace zarr
