// zarr.cache: the LRU cache of derived values and the store chunk reader that uses it.
module;
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <unordered_map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
module zarr.cache;

namespace zarr {

cache::cache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}

std::shared_ptr<const cache::entry> cache::find(std::uint64_t store, std::string_view key, std::uint64_t owner) {
  const std::lock_guard lock(mutex_);
  const auto it = items_.find(id_view{store, owner, key});
  if (it == items_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  order_.splice(order_.begin(), order_, it->second);
  return it->second->e;
}

void cache::put(std::uint64_t store, std::string_view key, std::uint64_t owner, entry e, std::size_t size) {
  id name{store, owner, std::string(key)};
  const std::lock_guard lock(mutex_);
  put_locked(std::move(name), std::move(e), size);
}

bool cache::put_unless_written(std::uint64_t store, std::string_view key, std::uint64_t owner, entry e,
                               std::size_t size, std::uint64_t since) {
  id name{store, owner, std::string(key)};
  const std::lock_guard lock(mutex_);
  if (epoch_ != since) return false;
  put_locked(std::move(name), std::move(e), size);
  return true;
}

void cache::put_locked(id name, entry e, std::size_t size) {
  // What an entry costs besides its value: its id (key and two numbers), twice, and the bookkeeping.
  size += 2 * (name.key.size() + 16) + e.version.tag.size() + 128;
  if (const auto it = items_.find(name); it != items_.end()) erase_locked(it);
  if (size > capacity_) return;
  order_.push_front({name, std::make_shared<const entry>(std::move(e)), size});
  items_.emplace(std::move(name), order_.begin());
  stats_.bytes += size;
  while (stats_.bytes > capacity_) {
    stats_.bytes -= order_.back().size;
    items_.erase(order_.back().name);
    order_.pop_back();
  }
}

void cache::erase_locked(index::iterator it) {
  stats_.bytes -= it->second->size;
  order_.erase(it->second);
  items_.erase(it);
}

std::uint64_t cache::epoch() const {
  const std::lock_guard lock(mutex_);
  return epoch_;
}

void cache::forget_written(std::uint64_t store, std::string_view key, std::uint64_t owner) {
  const std::lock_guard lock(mutex_);
  ++epoch_;
  if (const auto it = items_.find(id_view{store, owner, key}); it != items_.end()) erase_locked(it);
}

void cache::drop(std::uint64_t store, std::string_view key, std::uint64_t owner) {
  const std::lock_guard lock(mutex_);
  const auto it = items_.find(id_view{store, owner, key});
  if (it == items_.end()) return;
  ++stats_.stale;
  erase_locked(it);
}

cache::statistics cache::stats() const {
  const std::lock_guard lock(mutex_);
  auto s = stats_;
  s.entries = items_.size();
  return s;
}

template <class F>
auto store_chunk_reader::from_snapshot(F&& f) const {
  try {
    return f();
  } catch (const value_changed&) {
    // Pinned by a cached entry that is now stale: drop it, so that the next reader makes it anew.
    if (pinned_by_) {
      stale_ = true;
      cache_->drop(store_.identity(), key_, *pinned_by_);
    }
    throw;
  }
}

std::optional<bytes> store_chunk_reader::read(byte_range range) const {
  if (!snapshot_taken_) {
    bytes part;
    snapshot_ = store_.snapshot_and_read(key_, range, part);
    snapshot_taken_ = true;
    if (!snapshot_) return std::nullopt;
    return part;
  }
  if (!snapshot_) return std::nullopt;
  return from_snapshot([&] { return snapshot_->get(range); });
}

bool store_chunk_reader::read_ranges(std::span<const byte_range> ranges, std::vector<bytes>& out) const {
  out.resize(ranges.size());
  std::size_t done = 0;
  if (!snapshot_taken_ && !ranges.empty()) {  // the first range takes the snapshot the others are read from
    snapshot_ = store_.snapshot_and_read(key_, ranges.front(), out.front());
    snapshot_taken_ = true;
    done = 1;
  }
  if (!snapshot_) return false;
  if (ranges.size() - done == 1) {
    from_snapshot([&] { snapshot_->get_into(ranges.back(), out.back()); });
  } else if (ranges.size() > done) {
    auto values = from_snapshot([&] { return snapshot_->get_ranges(ranges.subspan(done)); });
    std::move(values.begin(), values.end(), out.begin() + static_cast<std::ptrdiff_t>(done));
  }
  return true;
}

std::shared_ptr<const void> store_chunk_reader::derived(std::uint64_t owner, const std::function<derived_value()>& make) const {
  if (cache_ == nullptr) return make().value;
  if (auto found = cache_->find(store_.identity(), key_, owner)) {
    if (snapshot_taken_) {  // a snapshot already read from: the entry serves only if it is that version
      if (snapshot_ && snapshot_->is_version(found->version)) return found->value;
    } else {
      try {
        snapshot_ = store_.snapshot_at(key_, found->version);
        snapshot_taken_ = true;
        pinned_by_ = owner;
        return found->value;
      } catch (const value_changed&) {
        cache_->drop(store_.identity(), key_, owner);
      }
    }
  }
  auto made = make();
  if (made.value && snapshot_) {
    auto version = snapshot_->version();
    if (!version.absent()) cache_->put(store_.identity(), key_, owner, {made.value, std::move(version)}, made.size);
  }
  return std::move(made.value);
}

}  // namespace zarr
