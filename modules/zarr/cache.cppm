// zarr.cache: what codecs derive from stored values (a shard's decoded index) and, where an
// array asks for it, decoded chunks, kept between reads in a cache bounded in bytes and shared
// by the arrays opened with it; each entry with the version of the value it was read from
// (docs/decisions.md 69, 78). Stores hold bytes only.
module;
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
export module zarr.cache;

export import zarr.bytes;
export import zarr.store;

export namespace zarr {

// A thread-safe cache of derived values, least recently used first out once the bytes held
// pass the bound. An entry is keyed by the store (store::identity()), the key and the owner
// (chunk_reader::derived), and carries the version it was derived from: a later read pins that
// version (store::snapshot_at), so that a value changed since is noticed, never paired with it.
class cache {
 public:
  // Holds at most `capacity_bytes` (0: keeps nothing; an entry larger than the bound is not kept).
  explicit cache(std::size_t capacity_bytes);
  cache(const cache&) = delete;
  cache& operator=(const cache&) = delete;

  struct entry {
    std::shared_ptr<const void> value;
    value_version version;
  };
  // The entry, made the most recently used; null when absent.
  [[nodiscard]] std::shared_ptr<const entry> find(std::uint64_t store, std::string_view key, std::uint64_t owner);
  // Keeps `value` (of `size` bytes) at `version`, replacing what was there, then lets go of
  // the least recently used entries beyond the bound.
  void put(std::uint64_t store, std::string_view key, std::uint64_t owner, entry e, std::size_t size);
  // Forgets the entry (its value changed).
  void drop(std::uint64_t store, std::string_view key, std::uint64_t owner);

  // For entries that carry no version (decoded chunks): a writer calls forget_written after
  // it changed the key, and a reader that took epoch() before it read keeps what it read only
  // through put_unless_written, which refuses once any key was forgotten since. A read that
  // raced a write is then never kept: either its put comes first and the write's forget
  // drops it, or the forget comes first and the put is refused.
  [[nodiscard]] std::uint64_t epoch() const;
  void forget_written(std::uint64_t store, std::string_view key, std::uint64_t owner);
  // put(), unless forget_written was called since epoch() was `since`; false then.
  bool put_unless_written(std::uint64_t store, std::string_view key, std::uint64_t owner, entry e, std::size_t size,
                          std::uint64_t since);

  struct statistics {
    std::uint64_t hits = 0, misses = 0;
    std::uint64_t stale = 0;  // entries found changed and dropped
    std::size_t entries = 0, bytes = 0;
  };
  [[nodiscard]] statistics stats() const;
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

 private:
  // What an entry is found by; looked up by an id_view, with no string made.
  struct id {
    std::uint64_t store, owner;
    std::string key;
  };
  struct id_view {
    std::uint64_t store, owner;
    std::string_view key;
  };
  struct id_hash {
    using is_transparent = void;
    [[nodiscard]] std::size_t operator()(const id_view& v) const noexcept {
      return std::hash<std::string_view>()(v.key) ^ (v.store * 0x9e3779b97f4a7c15ULL) ^ (v.owner * 0xc2b2ae3d27d4eb4fULL);
    }
    [[nodiscard]] std::size_t operator()(const id& v) const noexcept { return (*this)(id_view{v.store, v.owner, v.key}); }
  };
  struct id_equal {
    using is_transparent = void;
    [[nodiscard]] static id_view view(const id& v) noexcept { return {v.store, v.owner, v.key}; }
    [[nodiscard]] static id_view view(const id_view& v) noexcept { return v; }
    template <class A, class B>
    [[nodiscard]] bool operator()(const A& a, const B& b) const noexcept {
      const auto x = view(a), y = view(b);
      return x.store == y.store && x.owner == y.owner && x.key == y.key;
    }
  };
  struct item {
    id name;
    std::shared_ptr<const entry> e;
    std::size_t size;
  };
  using index = std::unordered_map<id, std::list<item>::iterator, id_hash, id_equal>;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::list<item> order_;  // most recently used first
  index items_;
  statistics stats_;
  std::uint64_t epoch_ = 0;  // forget_written calls

  void put_locked(id name, entry e, std::size_t size);
  void erase_locked(index::iterator it);
};

// A stored chunk as the codecs read it from a store: whole into their buffer, or in byte
// ranges of one snapshot (a shard rewritten meanwhile would otherwise pair its old index
// with new inner chunks), taken at the first range read. With a cache, what codecs derive
// is kept there: a value found is pinned at its version without a request
// (store::snapshot_at), and one found changed is dropped and made anew.
class store_chunk_reader final : public chunk_reader {
 public:
  store_chunk_reader(const store& s, const std::string& key, cache* c = nullptr) : store_(s), key_(key), cache_(c) {}
  [[nodiscard]] bool read_all(bytes& out) const override { return store_.get_into(key_, out); }
  [[nodiscard]] std::optional<bytes> read(byte_range range) const override;
  [[nodiscard]] bool read_ranges(std::span<const byte_range> ranges, std::vector<bytes>& out) const override;
  [[nodiscard]] std::shared_ptr<const void> derived(std::uint64_t owner,
                                                    const std::function<derived_value()>& make) const override;
  // Whether a read failed because the value changed since a cached entry's version: the
  // entry is dropped, and reading again with a new reader reads the value anew.
  [[nodiscard]] bool found_stale() const noexcept { return stale_; }

 private:
  const store& store_;
  const std::string& key_;
  cache* cache_;
  mutable std::unique_ptr<const stored_value> snapshot_;
  mutable bool snapshot_taken_ = false;
  mutable std::optional<std::uint64_t> pinned_by_;  // the owner whose cached entry pinned the snapshot
  mutable bool stale_ = false;

  template <class F>
  auto from_snapshot(F&& f) const;
};

}  // namespace zarr
