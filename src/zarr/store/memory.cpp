// zarr.store.memory: an ordered map of keys to values under one mutex.
module;
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
module zarr.store.memory;

import zarr.error;

namespace zarr {

std::optional<bytes> memory_store::get(std::string_view key) const {
  validate_key(key);
  const std::lock_guard lock(mutex_);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::optional<bytes> memory_store::get(std::string_view key, byte_range range) const {
  validate_key(key);
  const std::lock_guard lock(mutex_);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  const auto [offset, length] = resolve_range(key, range, it->second.size());
  const auto* first = it->second.data() + offset;
  return bytes(first, first + length);
}

std::optional<std::uint64_t> memory_store::size(std::string_view key) const {
  validate_key(key);
  const std::lock_guard lock(mutex_);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second.size();
}

void memory_store::set(std::string_view key, std::span<const std::byte> value) {
  validate_key(key);
  bytes copy(value.begin(), value.end());
  const std::lock_guard lock(mutex_);
  values_.insert_or_assign(std::string(key), std::move(copy));
}

void memory_store::erase(std::string_view key) {
  validate_key(key);
  const std::lock_guard lock(mutex_);
  if (const auto it = values_.find(key); it != values_.end()) values_.erase(it);
}

std::vector<std::string> memory_store::list(std::string_view prefix) const {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> keys;
  for (auto it = values_.lower_bound(prefix); it != values_.end() && it->first.starts_with(prefix); ++it)
    keys.push_back(it->first);
  return keys;
}

}  // namespace zarr
