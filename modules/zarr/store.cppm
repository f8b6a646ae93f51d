// zarr.store: the abstract store interface of Zarr v3 core spec "Abstract store interface":
// get (whole or a byte range), set, erase, list by prefix. Keys are validated before
// they reach a store (docs/decisions.md 24).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
export module zarr.store;

import zarr.error;

export namespace zarr {

// An allocator that leaves new elements uninitialised, so that a buffer about to be
// overwritten by a decoder is not first filled with zeros.
template <class T>
struct default_init_allocator : std::allocator<T> {
  template <class U>
  struct rebind { using other = default_init_allocator<U>; };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) { ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...); }
};

// Bytes as stored: a chunk, a shard, a metadata document.
using bytes = std::vector<std::byte, default_init_allocator<std::byte>>;

// Buffers a thread keeps from chunk to chunk give their memory back beyond this much.
inline constexpr std::size_t kept_buffer_limit = std::size_t{64} << 20;
inline void let_go_if_large(bytes& b) noexcept {
  if (b.capacity() > kept_buffer_limit) bytes().swap(b);
}

// A byte range of a stored value: [offset, offset + length), or the last `length` bytes.
struct byte_range {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool suffix = false;

  [[nodiscard]] static byte_range last(std::uint64_t n) noexcept { return {0, n, true}; }
};

// Checks a store key: no empty, "." or ".." segments, no leading "/", no backslash, no NUL.
// Throws zarr::error (invalid_key) naming the key.
void validate_key(std::string_view key);

// The [offset, length) that `range` selects in a value of `size` bytes; throws
// zarr::error (corrupt_chunk, naming the key) when the range reaches past the end.
[[nodiscard]] std::pair<std::uint64_t, std::uint64_t> resolve_range(std::string_view key, byte_range range,
                                                                     std::uint64_t size);

// One version of a stored value, for several reads that must agree (a shard's index,
// then its inner chunks): later writes of the key do not show through it.
class stored_value {
 public:
  virtual ~stored_value() = default;
  // The whole value, or a byte range of it (past the end: corrupt_chunk).
  [[nodiscard]] virtual bytes get(std::optional<byte_range> range) const = 0;
};

// A stored_value over bytes in memory, shared with whoever else holds them.
[[nodiscard]] std::unique_ptr<const stored_value> in_memory_value(std::string key, std::shared_ptr<const bytes> value);

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
};

}  // namespace zarr
