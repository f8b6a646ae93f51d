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

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const bytes>, std::less<>> values_;  // never changed once stored
};

}  // namespace zarr
