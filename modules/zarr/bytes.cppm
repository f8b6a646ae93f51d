// zarr.bytes: the byte buffers that stores, codecs and arrays pass around, the byte ranges
// of stored values, and buffers a thread keeps from chunk to chunk.
module;
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
export module zarr.bytes;

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

// A uint64 as eight little-endian bytes at `p`, and back.
inline void store_le64(std::byte* p, std::uint64_t v) noexcept {
  if constexpr (std::endian::native != std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}
[[nodiscard]] inline std::uint64_t load_le64(const std::byte* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native != std::endian::little) v = __builtin_bswap64(v);
  return v;
}

// Buffers a thread keeps from chunk to chunk give their memory back beyond this much.
inline constexpr std::size_t kept_buffer_limit = std::size_t{64} << 20;
inline void let_go_if_large(bytes& b) noexcept {
  if (b.capacity() > kept_buffer_limit) bytes().swap(b);
}
// The same for the elements of a variable-length type, their own memory counted: kept, they
// are assigned again in place (short ones without any allocation).
inline void let_go_if_large(std::vector<std::string>& strings) noexcept {
  auto held = strings.capacity() * sizeof(std::string);
  for (const auto& s : strings)
    if (s.capacity() > std::string().capacity()) held += s.capacity();
  if (held > kept_buffer_limit) std::vector<std::string>().swap(strings);
}

// The element of type T at index i of a byte buffer (any alignment), and the inverse.
template <class T>
[[nodiscard]] T load_element(const std::byte* p, std::size_t i) noexcept {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void store_element(std::byte* p, std::size_t i, T v) noexcept {
  std::memcpy(p + i * sizeof(T), &v, sizeof(T));
}

// A byte range of a stored value: [offset, offset + length), or the last `length` bytes.
struct byte_range {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool suffix = false;

  [[nodiscard]] static byte_range last(std::uint64_t n) noexcept { return {0, n, true}; }
};

// The [offset, length) that `range` selects in a value of `size` bytes; throws
// zarr::error (corrupt_chunk, naming the key) when the range reaches past the end.
[[nodiscard]] inline std::pair<std::uint64_t, std::uint64_t> resolve_range(std::string_view key, byte_range range,
                                                                            std::uint64_t size) {
  const std::uint64_t offset = range.suffix ? size - std::min(range.length, size) : range.offset;
  if (range.length > size || offset > size - range.length)
    throw error(errc::corrupt_chunk, "store key \"" + std::string(key) + "\": expected a byte range within " +
                                         std::to_string(size) + " bytes, got " +
                                         (range.suffix ? "the last " + std::to_string(range.length)
                                                       : std::to_string(range.offset) + "+" + std::to_string(range.length)));
  return {offset, range.length};
}

// A stored chunk (or shard) as the codecs read it: whole, into a buffer whose memory they
// reuse, or in byte ranges, all of which come from one version of the value.
class chunk_reader {
 public:
  virtual ~chunk_reader() = default;
  // The whole value into `out`; false when it is absent.
  [[nodiscard]] virtual bool read_all(bytes& out) const = 0;
  // A byte range of the value (past its end: corrupt_chunk); nothing when it is absent.
  [[nodiscard]] virtual std::optional<bytes> read(byte_range range) const = 0;
  // Several byte ranges of the value, of one version, into `out` (one buffer per range, whose
  // memory is used again); false when it is absent. A reader over a store reached by network
  // keeps them in flight together; this default reads them one after the other.
  [[nodiscard]] virtual bool read_ranges(std::span<const byte_range> ranges, std::vector<bytes>& out) const {
    out.resize(ranges.size());
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      auto value = read(ranges[i]);
      if (!value) return false;
      out[i] = std::move(*value);
    }
    return true;
  }
  // What a codec derives from this version of the value (a shard's decoded index), made by
  // `make` from reads of this reader. Where the reader is given a cache (zarr.cache), it is
  // made once per version and kept there, with the version it was read at; `owner` (a
  // derivation_owner's id) keeps apart what different codecs derive. `make` returns a null
  // value when the value is absent; null is never kept.
  struct derived_value {
    std::shared_ptr<const void> value;
    std::size_t size = 0;  // bytes it holds, for a cache bounded in bytes
  };
  [[nodiscard]] virtual std::shared_ptr<const void> derived(std::uint64_t owner,
                                                            const std::function<derived_value()>& make) const {
    static_cast<void>(owner);
    return make().value;
  }
  // The whole value, when it is already in memory and present (bytes fetched beforehand): read
  // without a copy. Nothing otherwise.
  [[nodiscard]] virtual const std::span<const std::byte>* in_memory() const noexcept { return nullptr; }
  // Whether reading a byte range of this value reads all of what is stored (a value decoded
  // from a compressed one), so that reading in part saves nothing.
  [[nodiscard]] virtual bool ranges_read_whole() const noexcept { return false; }
};

// Byte ranges of one value at most this far apart are read with one request: reading the gap
// costs less than another request (a system call; on object storage, a round trip)
// (docs/decisions.md 38).
inline constexpr std::uint64_t range_merge_gap = std::uint64_t{64} << 10;

// An id for chunk_reader::derived, unique in the process and never reused (a codec's
// address could be, by a codec that derives something else).
class derivation_owner {
 public:
  derivation_owner() : id_(next().fetch_add(1, std::memory_order_relaxed)) {}
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }

 private:
  static std::atomic<std::uint64_t>& next() {
    static std::atomic<std::uint64_t> n{1};
    return n;
  }
  std::uint64_t id_;
};

// A chunk_reader over bytes in memory, or over an absent chunk.
class buffer_chunk_reader final : public chunk_reader {
 public:
  explicit buffer_chunk_reader(std::optional<std::span<const std::byte>> value) : value_(value) {}
  [[nodiscard]] const std::span<const std::byte>* in_memory() const noexcept override { return value_ ? &*value_ : nullptr; }
  [[nodiscard]] bool read_all(bytes& out) const override {
    if (!value_) return false;
    out.assign(value_->begin(), value_->end());
    return true;
  }
  [[nodiscard]] std::optional<bytes> read(byte_range range) const override {
    if (!value_) return std::nullopt;
    const auto [offset, length] = resolve_range("chunk", range, value_->size());
    const auto part = value_->subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    return bytes(part.begin(), part.end());
  }

 private:
  std::optional<std::span<const std::byte>> value_;
};

// The byte range [offset, offset + length) of what another reader reads, as a value of its own
// (an inner chunk of a shard); `whole` must outlive it.
class byte_range_reader final : public chunk_reader {
 public:
  byte_range_reader(const chunk_reader& whole, std::uint64_t offset, std::uint64_t length)
      : whole_(whole), offset_(offset), length_(length) {}
  [[nodiscard]] bool read_all(bytes& out) const override {
    auto value = whole_.read(byte_range{offset_, length_, false});
    if (!value) return false;
    out = std::move(*value);
    return true;
  }
  [[nodiscard]] std::optional<bytes> read(byte_range range) const override {
    const auto [offset, length] = resolve_range("byte range", range, length_);
    return whole_.read(byte_range{offset_ + offset, length, false});
  }
  [[nodiscard]] bool read_ranges(std::span<const byte_range> ranges, std::vector<bytes>& out) const override {
    std::vector<byte_range> in_whole;
    in_whole.reserve(ranges.size());
    for (const auto& range : ranges) {
      const auto [offset, length] = resolve_range("byte range", range, length_);
      in_whole.push_back(byte_range{offset_ + offset, length, false});
    }
    return whole_.read_ranges(in_whole, out);
  }
  [[nodiscard]] bool ranges_read_whole() const noexcept override { return whole_.ranges_read_whole(); }

 private:
  const chunk_reader& whole_;
  std::uint64_t offset_, length_;
};

// A T that this thread keeps from one chunk to the next, so that its memory is not
// allocated and faulted in again each time. Each nesting depth has its own (a shard's
// inner chunks may be shards again, decoded on the same thread); Tag keeps different uses
// apart. Held from construction to destruction.
template <class Tag, class T = bytes>
class thread_buffer {
 public:
  thread_buffer() {
    if (levels().size() <= depth()) levels().resize(depth() + 1);  // references stay valid
    value_ = &levels()[depth()++];
  }
  ~thread_buffer() { --depth(); }
  thread_buffer(const thread_buffer&) = delete;
  thread_buffer& operator=(const thread_buffer&) = delete;
  T& operator*() const noexcept { return *value_; }
  T* operator->() const noexcept { return value_; }

 private:
  static std::deque<T>& levels() {
    thread_local std::deque<T> l;
    return l;
  }
  static std::size_t& depth() {
    thread_local std::size_t d = 0;
    return d;
  }
  T* value_;
};

}  // namespace zarr
