// zarr.store.memory: an ordered map of keys to shared, immutable values under one mutex.
module;
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
module zarr.store.memory;

import zarr.error;

namespace zarr {

std::unique_ptr<const stored_value> memory_store::snapshot(std::string_view key) const {
  validate_key(key);
  std::shared_ptr<const bytes> value;
  {
    const std::lock_guard lock(mutex_);
    const auto it = values_.find(key);
    if (it == values_.end()) return nullptr;
    value = it->second.value;
  }
  return in_memory_value(std::string(key), std::move(value));
}

std::optional<bytes> memory_store::get(std::string_view key) const {
  const auto value = snapshot(key);
  if (!value) return std::nullopt;
  return value->get(std::nullopt);
}

std::optional<bytes> memory_store::get(std::string_view key, byte_range range) const {
  const auto value = snapshot(key);
  if (!value) return std::nullopt;
  return value->get(range);
}

std::optional<std::uint64_t> memory_store::size(std::string_view key) const {
  validate_key(key);
  const std::lock_guard lock(mutex_);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second.value->size();
}

void memory_store::set(std::string_view key, std::span<const std::byte> value) {
  validate_key(key);
  auto copy = std::make_shared<const bytes>(value.begin(), value.end());
  const std::lock_guard lock(mutex_);
  values_.insert_or_assign(std::string(key), entry{std::move(copy), ++generations_});
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

value_version memory_store::version_of(const std::map<std::string, entry, std::less<>>::const_iterator& it) const {
  if (it == values_.end()) return {};
  return {std::to_string(it->second.generation)};
}

versioned_value memory_store::get_versioned(std::string_view key) const {
  validate_key(key);
  std::shared_ptr<const bytes> value;
  value_version version;
  {
    const std::lock_guard lock(mutex_);
    const auto it = values_.find(key);
    version = version_of(it);
    if (it != values_.end()) value = it->second.value;
  }
  if (!value) return {};
  return {.value = *value, .version = std::move(version)};
}

bool memory_store::set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected) {
  validate_key(key);
  auto copy = std::make_shared<const bytes>(value.begin(), value.end());
  const std::lock_guard lock(mutex_);
  if (version_of(values_.find(key)) != expected) return false;
  values_.insert_or_assign(std::string(key), entry{std::move(copy), ++generations_});
  return true;
}

bool memory_store::erase_if(std::string_view key, const value_version& expected) {
  validate_key(key);
  const std::lock_guard lock(mutex_);
  const auto it = values_.find(key);
  if (version_of(it) != expected) return false;
  if (it != values_.end()) values_.erase(it);
  return true;
}

}  // namespace zarr
