// zarr.store: the abstract store interface of Zarr v3 core spec "Abstract store interface":
// get (whole or a byte range), set, erase, list by prefix. Keys are validated before
// they reach a store (docs/decisions.md 24). Values carry versions, so that a
// read-modify-write of a key (store::update) loses no other writer's update.
module;
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
export module zarr.store;

export import zarr.bytes;
import zarr.error;

export namespace zarr {

// Checks a store key: no empty, "." or ".." segments, no leading "/", no backslash, no NUL.
// Throws zarr::error (invalid_key) naming the key.
void validate_key(std::string_view key);

// The version of a stored value, opaque: the same while the value stays the same (on disk the
// file's identity, size and modification time; on S3 the ETag). An empty tag: the key is absent.
struct value_version {
  std::string tag;
  [[nodiscard]] bool absent() const noexcept { return tag.empty(); }
  friend bool operator==(const value_version&, const value_version&) = default;
};

// What a read pinned to a version (store::snapshot_at, a snapshot's later reads) throws when
// the value is no longer that version: rewritten or erased since (on S3, HTTP 412). Its code
// is io; a reader that cached something derived from the old version drops it and reads anew.
class value_changed : public error {
 public:
  using error::error;
  explicit value_changed(const std::string& message) : error(errc::io, message) {}
};

// One version of a stored value, for several reads that must agree (a shard's index,
// then its inner chunks): later writes of the key do not show through it.
class stored_value {
 public:
  virtual ~stored_value() = default;
  // The whole value, or a byte range of it (past the end: corrupt_chunk).
  [[nodiscard]] virtual bytes get(std::optional<byte_range> range) const = 0;
  // The same into `out`, whose memory a store reading from a file uses again.
  virtual void get_into(std::optional<byte_range> range, bytes& out) const { out = get(range); }
  // Several byte ranges of it: in flight together where the store is reached by network. This
  // default reads them one after the other.
  [[nodiscard]] virtual std::vector<bytes> get_ranges(std::span<const byte_range> ranges) const {
    std::vector<bytes> out;
    out.reserve(ranges.size());
    for (const auto& range : ranges) out.push_back(get(range));
    return out;
  }
  // The version this value is (empty: the store has no versions for it).
  [[nodiscard]] virtual value_version version() const { return {}; }
  // Whether it is `v`: what version() == v says, where a store can tell without a copy.
  [[nodiscard]] virtual bool is_version(const value_version& v) const { return version() == v; }
};

// A stored_value over bytes in memory, shared with whoever else holds them.
[[nodiscard]] std::unique_ptr<const stored_value> in_memory_value(std::string key, std::shared_ptr<const bytes> value);

// A value (nothing when absent) with its version.
struct versioned_value {
  std::optional<bytes> value;
  value_version version;
};

// A read-modify-write of one key: gets the current value (null when the key is absent) and
// puts the new one into `out`; returns true when the key may be erased instead (a store erases
// it where it can do so conditionally, else stores `out`). It may be called more than once
// (each time with the value read anew), so it must depend on nothing but its input.
using update_function = std::function<bool(const bytes* current, bytes& out)>;

// How often store::update tries again after another writer changed the key, and how long it
// waits between tries: doubling from `first_delay`, or from the time the last try took when
// that is longer, capped at `max_delay` or 32 such tries' time when that is longer (slow round
// trips spread the writers of a busy key out); each wait a random part of that ("full jitter").
struct update_policy {
  unsigned max_attempts = 200;
  std::chrono::microseconds first_delay{500};
  std::chrono::microseconds max_delay{50000};
};

class store {
 public:
  virtual ~store() = default;

  // The whole value, or nothing when the key is absent.
  [[nodiscard]] virtual std::optional<bytes> get(std::string_view key) const = 0;
  // Part of a value; a range past the end is an error (corrupt_chunk), not a short read.
  [[nodiscard]] virtual std::optional<bytes> get(std::string_view key, byte_range range) const = 0;
  // The whole value into `out` (resized; a store may reuse its memory), false when absent.
  [[nodiscard]] virtual bool get_into(std::string_view key, bytes& out) const;
  // The value as it is now, for several reads; nothing when absent. This default reads
  // it whole; stores that can read parts override it.
  [[nodiscard]] virtual std::unique_ptr<const stored_value> snapshot(std::string_view key) const;
  // The same, and the range `first` of it into `part`: one request where a store can (an
  // object store's ranged GET that also pins the version read). This default takes the
  // snapshot, then reads the range.
  [[nodiscard]] virtual std::unique_ptr<const stored_value> snapshot_and_read(std::string_view key, byte_range first,
                                                                     bytes& part) const;
  // The value pinned at `version` (a snapshot's version(), read before), without a request
  // where the store can: an object store sends If-Match with every later read. This call or a
  // later read throws value_changed when the value is no longer that version (absent
  // included). This default takes a snapshot and compares its version.
  [[nodiscard]] virtual std::unique_ptr<const stored_value> snapshot_at(std::string_view key,
                                                                       const value_version& version) const;
  // An id of this store object, unique in the process and never reused: what a cache keys on.
  [[nodiscard]] std::uint64_t identity() const noexcept { return identity_.id(); }
  // The value's size in bytes, or nothing when absent.
  [[nodiscard]] virtual std::optional<std::uint64_t> size(std::string_view key) const = 0;
  // Stores a value; a reader sees either the old or the new value, never a mix.
  virtual void set(std::string_view key, std::span<const std::byte> value) = 0;
  // Removes a key; removing an absent key is not an error.
  virtual void erase(std::string_view key) = 0;
  // Every key that starts with `prefix`, sorted.
  [[nodiscard]] virtual std::vector<std::string> list(std::string_view prefix) const = 0;
  // The names directly below `prefix` (which is "" or ends with "/"): keys and "folders".
  [[nodiscard]] virtual std::vector<std::string> list_dir(std::string_view prefix) const;

  // Batches: many keys read or written at once, so that a store reached over a network keeps
  // many requests in flight (io_concurrency()) apart from the threads that encode and decode.
  // Items start in index order. `done(i)`, when given, is called on the calling thread as item
  // i completes (items complete in any order), one call at a time. `ready(i)`, when given, is
  // asked on the calling thread before item i starts: while it answers false, item i and those
  // after it wait (it is asked again as other items complete, and at least every millisecond),
  // so that a caller can stream: keep a window of values in memory while other threads decode
  // them, or store values while other threads are still encoding the ones after. The first
  // failure (or an exception from `done` or `ready`) stops the batch: items not yet started
  // are not, and that error is thrown (items already done stay done).
  // These defaults go one item after the other through get_into, set and erase.
  struct get_item {
    std::string key;
    bytes value;         // the whole value, when found
    bool found = false;  // false: the key is absent
  };
  struct set_item {
    std::string key;
    std::span<const std::byte> value;  // not copied: must live until set_many returns
    bool erase = false;                // erase the key instead of storing `value`
  };
  using item_done = std::function<void(std::size_t)>;
  using item_ready = std::function<bool(std::size_t)>;
  virtual void get_many(std::span<get_item> items, const item_done& done = {}, const item_ready& ready = {}) const;
  // (An item's key, value and erase may change until ready(i) has answered true.)
  virtual void set_many(std::span<const set_item> items, const item_done& done = {}, const item_ready& ready = {});
  // How many requests of a batch this store keeps in flight at once; 1 (local stores) means
  // that batching gains nothing, and callers keep to their one-key-at-a-time paths.
  [[nodiscard]] virtual std::size_t io_concurrency() const noexcept { return 1; }

  // Versions and conditional writes (docs/decisions.md 64).
  // The whole value with its version. This default has no versions: an empty tag either way.
  [[nodiscard]] virtual versioned_value get_versioned(std::string_view key) const;
  // Stores `value` only when the key is still at `expected` (absent() expected: still absent);
  // false, with nothing stored, when another writer changed it since. This default throws
  // unsupported.
  [[nodiscard]] virtual bool set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected);
  // Erases the key only when it is still at `expected`; false when it changed (an absent key
  // that was expected absent: true). This default throws unsupported.
  [[nodiscard]] virtual bool erase_if(std::string_view key, const value_version& expected);
  // Whether erase_if holds against other writers (an S3 server may honour conditions on PUT
  // and not on DELETE); update() stores instead of erasing where not.
  [[nodiscard]] virtual bool erases_conditionally() const { return atomic_updates(); }
  // Whether set_if and erase_if hold against every other writer, in this process and others
  // (an S3 server that ignores conditions cannot: asked once, then known).
  [[nodiscard]] virtual bool atomic_updates() const { return false; }
  // What is missing when atomic_updates() is false, for error messages ("conditional writes
  // (If-Match, If-None-Match) honoured by the server").
  [[nodiscard]] virtual std::string missing_update_ability() const { return "versions and conditional writes"; }
  // Reads `key`, calls `modify`, and writes its result only if no other writer changed the key
  // meanwhile; otherwise reads again and retries (as `policy` says, then an error (io)
  // naming the key). Where the store cannot make updates atomic (atomic_updates() false) this
  // throws unsupported naming the missing ability, unless `single_writer`: the caller promises
  // that nobody else writes the key, and the update is a plain read then write.
  virtual void update(std::string_view key, const update_function& modify, bool single_writer = false,
                      const update_policy& policy = {});
  // The error update() throws when the store cannot make updates atomic.
  [[noreturn]] void fail_not_atomic(std::string_view key) const;

 private:
  derivation_owner identity_;
};

}  // namespace zarr
