// zarr.store.memory: a store that keeps every value in memory (Zarr v3 core spec "Store
// implementations"). Safe to use from several threads at once.
module;
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
export module zarr.store.memory;

export import zarr.store;

export namespace zarr {

class memory_store final : public store {
 public:
  [[nodiscard]] std::optional<bytes> get(std::string_view key) const override;
  [[nodiscard]] std::optional<bytes> get(std::string_view key, byte_range range) const override;
  // Shares the value: a later set of the key stores a new one, this one stays.
  [[nodiscard]] std::unique_ptr<const stored_value> snapshot(std::string_view key) const override;
  [[nodiscard]] std::optional<std::uint64_t> size(std::string_view key) const override;
  void set(std::string_view key, std::span<const std::byte> value) override;
  void erase(std::string_view key) override;
  [[nodiscard]] std::vector<std::string> list(std::string_view prefix) const override;

  // Versions are generations: a number counted up by every write of the store. Conditional
  // writes are checked and done under the store's mutex: atomic.
  [[nodiscard]] versioned_value get_versioned(std::string_view key) const override;
  [[nodiscard]] bool set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected) override;
  [[nodiscard]] bool erase_if(std::string_view key, const value_version& expected) override;
  [[nodiscard]] bool atomic_updates() const override { return true; }

 private:
  struct entry {
    std::shared_ptr<const bytes> value;  // never changed once stored
    std::uint64_t generation = 0;
  };
  // The version of an entry, or of an absent key (end()); under mutex_.
  [[nodiscard]] value_version version_of(const std::map<std::string, entry, std::less<>>::const_iterator& it) const;

  mutable std::mutex mutex_;
  std::map<std::string, entry, std::less<>> values_;
  std::uint64_t generations_ = 0;  // the last generation given
};

}  // namespace zarr
