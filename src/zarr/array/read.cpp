// zarr.array: reading regions, one call per chunk through the chain's readers, in batches on
// object stores, and through a cache of decoded chunks (Zarr v3 core spec "Chunk encoding";
// docs/decisions.md 63, 78).
module;
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
module zarr.array;

import zarr.async;
import zarr.parallel;

namespace zarr {

void array::read(const region& r, std::span<std::byte> out, const read_options& options) const {
  check_fixed_size("read");
  check_region(r);
  const auto size = static_cast<std::size_t>(meta_.element_size());
  read_into(r, array_view::c_order(out.data(), c_order_extent(r, out.size(), meta_.element_size(), path_), size), options);
}

void array::read(const region& r, const array_view& out, const read_options& options) const {
  check_region(r);
  check_view(r, out, "output");
  read_into(r, out, options);
}

// One call per chunk: the chain reads what the part of the region in that chunk needs and
// decodes it straight into its place in `out`; absent chunks are filled. Elements of the
// variable-length types take the same path, as a view of strings (no chunk cache: it holds
// fixed-size elements).
void array::read_into(const region& r, const array_view& out, const read_options& options) const {
  if (r.num_elements() == 0) return;
  const kept_cell_parts parts(grid_, r);
  chunk_progress progress(options.progress, parts.size(), path_);
  if (caches_chunks() && !out.strings) {
    read_cached(parts.all(), out, [&] { progress.chunk_done(); });
    return;
  }
  if (store_->io_concurrency() > 1 && parts.size() > 1) {
    read_batched(parts.all(), out, [&] { progress.chunk_done(); });
    return;
  }
  parallel_for(parts.size(), [&](std::size_t t) {
    read_part(parts[t], out);
    progress.chunk_done();
  });
}

void array::read_part(const cell_part& part, const array_view& out) const {
  const auto key = chunk_key(part.cell);
  std::optional<array_view> window;
  const auto& place = out.window(part.in_region, part.in_cell, window);
  naming_the_chunk(path_, key, [&] {
    // A cached shard index found changed by the read that it pinned is dropped: read once more,
    // anew (never the old index with the new bytes).
    for (bool again = false;; again = true) {
      const store_chunk_reader source(*store_, key, options_.cache.get());
      try {
        if (!chain_of(part.cell).reader(source)->read(part.in_cell, place)) {
          check_fill_value();
          fill(place, chain_of(part.cell).decoded());
        }
        return;
      } catch (const error&) {
        if (again || !source.found_stale()) throw;
      }
    }
  });
}

namespace {

// The owner of decoded chunks in a cache (cache::find's `owner`): one for the process, so
// that a write through any array drops what every other array read.
std::uint64_t decoded_chunks_owner() {
  static const derivation_owner owner;
  return owner.id();
}

// A decoded chunk in a cache: its elements (nothing: the chunk is absent), what it was decoded
// for (array::chunk_fingerprint_) and when its read started.
struct cached_chunk {
  std::string decoded_for;
  std::optional<bytes> elements;
  std::chrono::steady_clock::time_point read_at;
};

}  // namespace

bool array::caches_chunks() const noexcept {
  return options_.cache_chunks && !has_variable_elements(meta_.type, meta_.layout) &&
         largest_chunk_bytes(meta_) <= options_.cache->capacity() / 8;
}

void array::forget_cached(const std::string& key) const {
  if (!cache_may_hold_chunks_) return;
  options_.cache->forget_written(store_->identity(), key, decoded_chunks_owner());
}

// Chunks in the cache (decoded for this array, and read since it was opened unless the
// policy is never) serve their part at once; the others are fetched in batches of what the
// store keeps in flight, decoded whole, kept, and serve theirs (docs/decisions.md 78).
void array::read_cached(std::span<const cell_part> parts, const array_view& out,
                        const std::function<void()>& chunk_done) const {
  auto& c = *options_.cache;
  const auto owner = decoded_chunks_owner();
  const auto size = static_cast<std::size_t>(meta_.element_size());
  const auto held = [&](const std::string& key) -> std::shared_ptr<const cached_chunk> {
    auto found = c.find(store_->identity(), key, owner);
    if (!found) return nullptr;
    auto chunk = std::static_pointer_cast<const cached_chunk>(found->value);
    if (chunk->decoded_for != chunk_fingerprint_) return nullptr;
    if (options_.recheck_cached_chunks == recheck_cached::at_open && chunk->read_at < opened_at_) return nullptr;
    return chunk;
  };
  const auto serve = [&](const cell_part& part, const cached_chunk& chunk) {
    const auto place = out.window(part.in_region, part.in_cell);
    if (!chunk.elements) {
      naming_the_chunk(path_, chunk_key(part.cell), [&] { check_fill_value(); });
      fill(place, meta_.fill_value);
    } else {
      const auto whole = const_array_view::c_order(chunk.elements->data(), chunk_shape_of(part.cell), size);
      copy(whole.window(part.in_cell), place);
    }
    chunk_done();
  };
  struct fetch {
    const cell_part* part;
    bool serve;  // false: read ahead, only kept
  };
  std::vector<fetch> fetches;
  for (const auto& part : parts) {
    if (const auto chunk = held(chunk_key(part.cell)))
      serve(part, *chunk);
    else
      fetches.push_back({&part, true});
  }
  if (fetches.empty()) return;
  const auto around = options_.read_ahead_chunks > 0 ? chunks_around(parts, options_.read_ahead_chunks) : std::vector<cell_part>{};
  std::uint64_t ahead_bytes = 0;
  for (const auto& part : around) {
    ahead_bytes += chunk_spec_of(meta_, chunk_shape_of(part.cell)).byte_size();
    if (ahead_bytes > c.capacity() / 4) break;
    if (!held(chunk_key(part.cell))) fetches.push_back({&part, false});
  }

  const auto batch = batch_size(store_->io_concurrency(), largest_chunk_bytes(meta_));
  for (std::size_t first = 0; first < fetches.size(); first += batch) {
    const auto n = std::min(batch, fetches.size() - first);
    const auto since = c.epoch();
    const auto read_at = std::chrono::steady_clock::now();
    std::vector<store::get_item> items(n);
    for (std::size_t k = 0; k < n; ++k) items[k].key = chunk_key(fetches[first + k].part->cell);
    naming_the_array(path_, [&] { store_->get_many(items); });
    parallel_for(n, [&](std::size_t k) {
      const auto& [part, serves] = fetches[first + k];
      auto& item = items[k];
      auto chunk = std::make_shared<cached_chunk>(cached_chunk{chunk_fingerprint_, std::nullopt, read_at});
      if (item.found) {
        chunk->elements.emplace(static_cast<std::size_t>(chunk_spec_of(meta_, chunk_shape_of(part->cell)).byte_size()));
        decode_chunk(part->cell, item.key, item.value, *chunk->elements);
        item.value = bytes();
      }
      const auto bytes_held = chunk_fingerprint_.size() + (chunk->elements ? chunk->elements->size() : 0);
      c.put_unless_written(store_->identity(), item.key, owner, {chunk, {}}, bytes_held, since);
      if (serves) serve(*part, *chunk);
    });
  }
}

// The chunks within `reach` chunks of the box of chunks that `parts` meet, outside that box,
// in C order.
std::vector<cell_part> array::chunks_around(std::span<const cell_part> parts, std::uint64_t reach) const {
  const auto rank = meta_.shape.size();
  const auto cells = meta_.grid_shape();
  std::vector<std::uint64_t> lo(parts.front().cell), hi(parts.front().cell);
  for (const auto& part : parts)
    for (std::size_t i = 0; i < rank; ++i) {
      lo[i] = std::min(lo[i], part.cell[i]);
      hi[i] = std::max(hi[i], part.cell[i]);
    }
  region wider{std::vector<std::uint64_t>(rank), std::vector<std::uint64_t>(rank)};
  for (std::size_t i = 0; i < rank; ++i) {
    const auto first = lo[i] - std::min(lo[i], reach);
    const auto last = hi[i] + std::min(cells[i] - 1 - hi[i], reach);
    wider.start[i] = grid_[i].origin(first);
    wider.stop[i] = std::min(meta_.shape[i], grid_[i].origin(last) + grid_[i].edge(last));
  }
  auto around = cell_parts(grid_, wider);
  std::erase_if(around, [&](const cell_part& part) {
    for (std::size_t i = 0; i < rank; ++i)
      if (part.cell[i] < lo[i] || part.cell[i] > hi[i]) return false;
    return true;
  });
  return around;
}

// The chunks read whole stream: one store batch (store::get_many, on a thread of its own that
// only waits for the network) keeps its requests in flight as long as there are chunks to
// fetch, each next request starting as soon as one completes, while the decoding threads take
// the chunks in the order they arrive. At most `window` chunks are fetched and not yet decoded
// (or under way), so memory stays bounded. Parts of chunks that the chain reads by byte ranges
// (part of a shard: its index, then the inner chunks it needs) each go on a thread of their own
// (zarr.async's pool), so that every chunk's requests are in flight together.
void array::read_batched(std::span<const cell_part> parts, const array_view& out,
                         const std::function<void()>& chunk_done) const {
  std::vector<std::size_t> whole, pieces;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto key = chunk_key(parts[i].cell);
    const store_chunk_reader source(*store_, key);  // asked what it would read: nothing is read
    (chain_of(parts[i].cell).reader(source)->reads_whole(parts[i].in_cell) ? whole : pieces).push_back(i);
  }

  // They mostly wait for their requests: all of them at once, up to the store's requests in flight.
  for_each_waiting(pieces.size(), store_->io_concurrency(), [&](std::size_t t) {
    read_part(parts[pieces[t]], out);
    chunk_done();
  });
  if (whole.empty()) return;

  const auto window = batch_size(store_->io_concurrency(), largest_chunk_bytes(meta_));
  std::vector<store::get_item> items(whole.size());
  for (std::size_t k = 0; k < items.size(); ++k) items[k].key = chunk_key(parts[whole[k]].cell);
  alongside a;
  std::deque<std::size_t> arrived;      // fetched, not yet taken by a decoding thread (under a.mutex)
  std::atomic<std::size_t> decoded{0};  // chunks decoded (and their memory let go)
  a.run(
      [&] {
        naming_the_array(path_, [&] {
          store_->get_many(
              items,
              [&](std::size_t k) {
                a.leave_if_stopped();
                {
                  const std::lock_guard lock(a.mutex);
                  arrived.push_back(k);
                }
                a.changed.notify_one();
              },
              [&](std::size_t k) {
                a.leave_if_stopped();
                return k < decoded.load() + window;
              });
        });
      },
      [&] {
        parallel_for(items.size(), [&](std::size_t) {
          a.piece([&] {
            std::size_t k = 0;
            {
              std::unique_lock lock(a.mutex);
              a.changed.wait(lock, [&] { return !arrived.empty() || a.batch_over || a.stopped.load(); });
              if (arrived.empty()) return;  // the batch failed or was stopped
              k = arrived.front();
              arrived.pop_front();
            }
            const auto& part = parts[whole[k]];
            auto& item = items[k];
            const auto place = out.window(part.in_region, part.in_cell);
            naming_the_chunk(path_, item.key, [&] {
              if (!item.found) {
                check_fill_value();
                fill(place, chain_of(part.cell).decoded());
              } else {
                const buffer_chunk_reader source(std::span<const std::byte>(item.value));
                static_cast<void>(chain_of(part.cell).reader(source)->read(part.in_cell, place));
              }
            });
            item.value = bytes();
            ++decoded;
            chunk_done();
          });
        });
      });
}

}  // namespace zarr
