// zarr.array: arrays and groups in a store (Zarr v3 core spec "Hierarchy", "Array metadata",
// "Chunk encoding"): create, open, read and write any region, attributes, resize.
// Missing chunks read as the fill value; chunks that are all fill value are not stored
// (docs/decisions.md 25).
module;
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>
#include <boost/json/object.hpp>
export module zarr.array;

export import zarr.codec;
export import zarr.dtype;
export import zarr.element;
export import zarr.error;
export import zarr.metadata;
export import zarr.metadata.v2;
export import zarr.nd;
export import zarr.store;
export import zarr.cache;

namespace zarr {
// Memory for one chunk being written: its elements' bytes, or std::string objects for the
// variable-length types.
struct chunk_memory {
  bytes elements;
  std::vector<std::string> strings;

  // The whole chunk of `spec` in C order, its elements not yet set (in `elements`, or in
  // `into`; strings as an earlier chunk left them): the caller sets every one.
  array_view whole(const chunk_spec& spec) { return whole(spec, elements); }
  array_view whole(const chunk_spec& spec, bytes& into) {
    if (spec.variable_elements()) {
      strings.resize(static_cast<std::size_t>(spec.num_elements()));
      return strings_view(strings.data(), spec.shape);
    }
    into.resize(static_cast<std::size_t>(spec.byte_size()));  // not zeroed
    return array_view::c_order(into.data(), spec.shape, spec.view_element_size());
  }
  // Keeps what is worth keeping for the next chunk.
  void let_go() {
    let_go_if_large(elements);
    let_go_if_large(strings);
  }
};
}  // namespace zarr

export namespace zarr {

// Called after each chunk of a read or write with the number of chunks done and their
// total; returning false cancels the operation, which then throws zarr::error (cancelled).
// Calls come one at a time, from whichever thread finished the chunk. Chunks written before
// a cancelled write stopped stay written.
using progress_callback = std::function<bool(std::uint64_t done, std::uint64_t total)>;

struct read_options {
  progress_callback progress = nullptr;
};

struct write_options {
  // Store chunks that hold only the fill value (by default they are erased, docs/decisions.md 25).
  bool write_empty_chunks = false;
  progress_callback progress = nullptr;
};

// Which chunks a cache holds are read from the store again instead of served from memory
// (array_options::recheck_cached_chunks).
enum class recheck_cached {
  at_open,  // those read before the array was opened: an open sees what others wrote before it
  never,    // none: for data that only this process changes, or nobody
};

// How an array is opened or created. A partial write (a region covering a chunk or shard in
// part) is a read-modify-write of the stored chunk through store::update: atomic on the
// filesystem and memory stores and on S3 servers that honour conditional writes. Elsewhere
// it fails (unsupported, naming what the store lacks) unless `single_writer`: the caller
// promises that no other process or machine writes the array meanwhile.
// The bound of the cache an array keeps when given none (array_options::cache): the indexes of
// 1,024 shards of 1,024 inner chunks.
inline constexpr std::size_t own_cache_bytes = std::size_t{16} << 20;

struct array_options {
  bool single_writer = false;
  // A Zarr v2 array with `"fill_value": null`: by default a chunk never written reads as the
  // data type's zero ("" for strings), as zarrs and zarr-python 3 read it (docs/decisions.md
  // 26); strict refuses such a read (not_found), the spec calling those values undefined.
  bool strict_fill_value = false;
  // Keeps decoded shard indexes between reads, each with the version of the shard it was read
  // from; may be shared by many arrays (`std::make_shared<zarr::cache>(256 << 20)`). Without
  // one, the array has one of its own of own_cache_bytes; a cache of 0 bytes keeps nothing, so
  // that a read of part of a shard reads its index every time (docs/decisions.md 69).
  std::shared_ptr<zarr::cache> cache = nullptr;
  // Also keeps the chunks this array reads, decoded, in `cache` (the array's own when none is
  // given; chunks of at most an eighth of its bound), so that a region read again, or one that shares chunks with a region read
  // before (the windows of a map viewer), costs no request and no decoding. Such a chunk is
  // read whole, a shard too. Writes through any array that shares the cache drop what they
  // change; what other processes write is seen as `recheck_cached_chunks` says
  // (docs/decisions.md 78).
  bool cache_chunks = false;
  recheck_cached recheck_cached_chunks = recheck_cached::at_open;
  // With cache_chunks: a read that must fetch chunks also fetches, in the same batch, the
  // chunks up to this many chunks around its region that the cache does not hold (at most a
  // quarter of the cache), so that the next window of a viewer that pans finds them. More
  // requests and bytes, no more round trips.
  std::uint64_t read_ahead_chunks = 0;
  // The order of inner chunks in the shards this array writes (codec_chain's encoding_options):
  // Morton order keeps a box of neighbouring inner chunks in few byte ranges, so that a
  // remote read of it takes fewer requests. Any reader reads either.
  chunk_order inner_chunk_order = chunk_order::c;
};

class array {
 public:
  // Writes the metadata of a new array at `path` ("" is the root, "a/b" a nested node),
  // creating missing parent groups (of the array's zarr_format: a Zarr v2 array gets a
  // `.zarray`, its parents `.zgroup`s). Everything is validated (the codec chain is resolved,
  // fill values checked) before anything is written. Throws already_exists when a node is
  // there, unless `overwrite`.
  static array create(std::shared_ptr<store> s, std::string_view path, const array_metadata& metadata,
                      bool overwrite = false, const array_options& options = {});
  // Opens the array at `path`: reads and validates its zarr.json (else its Zarr v2 `.zarray`
  // and `.zattrs`) and resolves the codec chain.
  [[nodiscard]] static array open(std::shared_ptr<store> s, std::string_view path, const array_options& options = {});

  [[nodiscard]] const array_metadata& metadata() const noexcept { return meta_; }
  [[nodiscard]] const std::vector<std::uint64_t>& shape() const noexcept { return meta_.shape; }
  [[nodiscard]] data_type type() const noexcept { return meta_.type; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // (With a rectilinear chunk grid: the chain of chunk 0, 0, ...)
  [[nodiscard]] const codec_chain& codecs() const noexcept { return *chain_; }
  [[nodiscard]] store& storage() const noexcept { return *store_; }

  // Reads `r` into `out`, C order, in the in-memory layout of zarr::scalar
  // (out.size() == r.num_elements() * metadata().element_size()).
  void read(const region& r, std::span<std::byte> out, const read_options& options = {}) const;
  // Reads `r` into a view of the caller's memory of r's extent, with any strides (Fortran
  // order, a window of a larger array), without an intermediate copy.
  void read(const region& r, const array_view& out, const read_options& options = {}) const;
  // Writes `in` (C order, same layout) into `r`.
  void write(const region& r, std::span<const std::byte> in, const write_options& options = {});
  // Writes a view of the caller's memory of r's extent, with any strides.
  void write(const region& r, const const_array_view& in, const write_options& options = {});

  // Typed access (zarr.element): T is any element type (bool, the integers, float, double,
  // std::complex<float/double>, zarr::bfloat16, zarr::float8_e4m3, zarr::int4, ...). For the
  // array's own type the bytes are copied as they are; for another type every value is
  // converted exactly (zarr::convert_elements): an element without an exact counterpart is a
  // zarr::error naming the array, the element index (C order within `r`) and its value. A
  // write converts everything before it stores anything.
  template <element T>
  [[nodiscard]] std::vector<T> read(const region& r) const {
    static_assert(has_element_layout<T>);
    check_region(r);
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs bits: through bytes
      std::vector<std::byte> flags(r.num_elements());
      read_as(r, data_type::bool_, flags);
      std::vector<bool> out(flags.size());
      for (std::size_t i = 0; i < flags.size(); ++i) out[i] = flags[i] != std::byte{0};
      return out;
    } else {
      std::vector<T> out(r.num_elements());
      read_as(r, data_type_of<T>, std::as_writable_bytes(std::span(out)));
      return out;
    }
  }
  template <element T>
  void write(const region& r, std::span<const T> in, const write_options& options = {}) {
    static_assert(has_element_layout<T>);
    write_as(r, data_type_of<T>, std::as_bytes(in), options);
  }

  // The same typed access with the element type known at run time (the C API's): `out` and
  // `in` hold r.num_elements() values of `t` in its in-memory layout (zarr::scalar).
  void read_as(const region& r, data_type t, std::span<std::byte> out, const read_options& options = {}) const {
    if (t == meta_.type) return read(r, out, options);
    check_region(r);
    std::vector<std::byte> raw(r.num_elements() * meta_.element_size());
    read(r, std::span(raw), options);
    convert_elements(meta_.type, raw, t, out, element_where());
  }
  void write_as(const region& r, data_type t, std::span<const std::byte> in, const write_options& options = {}) {
    if (t == meta_.type) return write(r, in, options);
    check_region(r);
    const auto size = static_cast<std::uint64_t>(info(t).size);
    if (size == 0 || in.size() != r.num_elements() * size)
      throw error(errc::invalid_argument, element_where() + ": region: expected " + std::to_string(r.num_elements()) +
                                              " elements of " + std::string(name(t)) + ", got " +
                                              std::to_string(in.size()) + " bytes");
    std::vector<std::byte> raw(r.num_elements() * meta_.element_size());
    convert_elements(t, in, meta_.type, std::span(raw), element_where());
    write(r, std::span<const std::byte>(raw), options);
  }

  // Asynchronous reads and writes: they return at once and run on a thread of zarr.async's
  // pool (at most zarr::async_threads() at once, the rest wait in order), so that one thread
  // can keep many in flight. `out`/`in` must stay valid until the operation ends; the array
  // may go (the operation holds a copy). `done` is called once on the pool's thread with
  // nothing on success, else the zarr::error (cancelled when the progress callback said stop).
  using completion = std::function<void(std::exception_ptr)>;
  void read_async(const region& r, data_type t, std::span<std::byte> out, read_options options, completion done) const;
  void write_async(const region& r, data_type t, std::span<const std::byte> in, write_options options,
                   completion done);
  // The same with a future (get() rethrows the error), in the array's own layout.
  [[nodiscard]] std::future<void> read_async(const region& r, std::span<std::byte> out, read_options options = {}) const;
  [[nodiscard]] std::future<void> write_async(const region& r, std::span<const std::byte> in,
                                              write_options options = {});

  // The variable-length data types (string: UTF-8 text, bytes: byte strings): their elements,
  // C order within `r` (src/zarr/array/strings.cpp). Every other read and write of such an
  // array is an error (invalid_argument) that points here, and these are one for any other
  // type. A string that is not UTF-8 is an error naming its element, before anything is stored.
  [[nodiscard]] std::vector<std::string> read_strings(const region& r, const read_options& options = {}) const;
  void write_strings(const region& r, std::span<const std::string> in, const write_options& options = {});

  // The store key of a chunk ("a/b/c/0/1").
  [[nodiscard]] std::string chunk_key(std::span<const std::uint64_t> chunk_index) const;
  // A whole chunk, decoded (fill value when absent; with a Zarr v2 `"fill_value": null`, zeros,
  // or an error when opened strict).
  [[nodiscard]] bytes read_chunk(std::span<const std::uint64_t> chunk_index) const;
  // The index of the chunk that a store key names; nothing for any other key.
  [[nodiscard]] std::optional<std::vector<std::uint64_t>> chunk_index_of(std::string_view key) const;
  // Calls f(chunk index, the chunk's region of the array) for every stored chunk, in the
  // order of their keys. The region is cut at the array's shape.
  void for_each_chunk(const std::function<void(std::span<const std::uint64_t>, const region&)>& f) const;

  // Replaces the attributes (rewrites zarr.json atomically).
  void set_attributes(const boost::json::object& attributes);
  // Changes the shape; chunks wholly outside the new shape are erased, and the parts of
  // border chunks outside it are reset to the fill value, so that growing again later
  // shows the fill value there, not stale data.
  void resize(std::span<const std::uint64_t> new_shape);

 private:
  array(std::shared_ptr<store> s, std::string path, array_metadata meta, const array_options& options);
  // `array "/path"`, for element errors.
  [[nodiscard]] std::string element_where() const { return "array \"/" + path_ + "\""; }
  void check_region(const region& r) const;
  // A caller's view for region r: its shape, element size and no element sharing bytes.
  void check_view(const region& r, const const_array_view& v, std::string_view what) const;
  void write_metadata() const;
  // Throws not_found when the array has no fill value and was opened strict (for a missing
  // chunk, which then has no value).
  void check_fill_value() const;
  // The shape of a chunk (with a rectilinear grid, chunks differ) and the chain that encodes it.
  [[nodiscard]] std::vector<std::uint64_t> chunk_shape_of(std::span<const std::uint64_t> chunk_index) const;
  [[nodiscard]] const codec_chain& chain_of(std::span<const std::uint64_t> chunk_index) const;
  // Decodes a stored chunk into `out` (a whole chunk); errors name the array and the key.
  void decode_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, std::span<const std::byte> stored,
                    std::span<std::byte> out) const;
  // Below, a whole chunk is a C-order view of all of it: of its elements, or of its strings for
  // the variable-length types (array_view::strings).
  // The whole chunk of `part` with `source` (the part's elements) in its place: `source` itself
  // when it is the whole chunk in C order, else assembled in `memory`, the fill value around it.
  [[nodiscard]] const_array_view assembled(const cell_part& part, const const_array_view& source,
                                           chunk_memory& memory) const;
  // Encodes a whole chunk into `out`; errors name the array and the key.
  void encode_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, const const_array_view& chunk,
                    bytes& out) const;
  // Stores a whole chunk, or erases its key when stored_as_absent.
  void store_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, const const_array_view& chunk,
                   const write_options& options) const;
  // One read-modify-write of a chunk's key (store::update): `change` applied to the whole
  // chunk as stored (the fill value where it is missing; unless `create`, a missing chunk stays
  // missing), which is then stored, or erased when stored_as_absent.
  void update_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, bool create,
                    const write_options& options, const std::function<void(const array_view&)>& change) const;
  // Whether a whole chunk is erased rather than stored (docs/decisions.md 25).
  [[nodiscard]] bool stored_as_absent(const const_array_view& chunk, const write_options& options) const;
  // Errors for the wrong path: `what` ("read") of a variable-length array, or `what`
  // ("read_strings") of any other.
  void check_fixed_size(std::string_view what) const;
  void check_variable_length(std::string_view what) const;
  // Writes `in` (checked), a view of the extent of region `r` (checked), of elements or of
  // strings.
  void write_into(const region& r, const const_array_view& in, const write_options& options);
  // Reads region `r` (checked) into `out`: a view of its extent, of elements or of strings.
  void read_into(const region& r, const array_view& out, const read_options& options) const;
  // Reads the part of one chunk that `part` says into its place in `out`, the chain reading
  // from the store what it needs.
  void read_part(const cell_part& part, const array_view& out) const;
  // Decoded chunks in the cache (array_options::cache_chunks, docs/decisions.md 78).
  [[nodiscard]] bool caches_chunks() const noexcept;
  void read_cached(std::span<const cell_part> parts, const array_view& out, const std::function<void()>& chunk_done) const;
  [[nodiscard]] std::vector<cell_part> chunks_around(std::span<const cell_part> parts, std::uint64_t reach) const;
  // Drops the decoded chunk at `key` from the cache (it is written, or being written).
  void forget_cached(const std::string& key) const;
  // Reads and writes through a store that keeps many requests in flight (store::io_concurrency):
  // the chunks of a region go in batches (store::get_many, set_many) while the threads of
  // zarr::concurrency() decode and encode. `chunk_done` is called after each chunk.
  void read_batched(std::span<const cell_part> parts, const array_view& out,
                    const std::function<void()>& chunk_done) const;
  void write_batched(std::span<const cell_part> parts, const const_array_view& in, const write_options& options,
                     const std::function<void()>& chunk_done);

  std::shared_ptr<store> store_;
  std::string path_;
  array_metadata meta_;
  array_options options_;
  std::vector<grid_axis> grid_;
  std::shared_ptr<const codec_chain> chain_;
  // With a rectilinear grid: a chain per chunk shape, all resolved when the array is opened.
  std::map<std::vector<std::uint64_t>, std::shared_ptr<const codec_chain>> chains_;
  // With cache_chunks: what a cached chunk must have been decoded for (path, data type, fill
  // value, chunk grid, codecs), and when the array was opened.
  std::string chunk_fingerprint_;
  std::chrono::steady_clock::time_point opened_at_;
  // Whether options_.cache may hold decoded chunks: the caller's (other arrays may keep them
  // there), or the array's own with cache_chunks.
  bool cache_may_hold_chunks_ = true;
};

class group {
 public:
  // Writes a group's zarr.json (zarr_format 2: `.zgroup`, and `.zattrs` when there are
  // attributes) at `path`, creating missing parent groups of the same format.
  static group create(std::shared_ptr<store> s, std::string_view path, const boost::json::object& attributes = {},
                      bool overwrite = false, int zarr_format = 3);
  [[nodiscard]] static group open(std::shared_ptr<store> s, std::string_view path);

  [[nodiscard]] const group_metadata& metadata() const noexcept { return meta_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // The names of the child nodes (arrays and groups), sorted.
  [[nodiscard]] std::vector<std::string> children() const;
  void set_attributes(const boost::json::object& attributes);

 private:
  group(std::shared_ptr<store> s, std::string path, group_metadata meta);
  std::shared_ptr<store> store_;
  std::string path_;
  group_metadata meta_;
};

// The metadata of whatever node is at `path`: its zarr.json, else its Zarr v2 `.zarray` or
// `.zgroup` with `.zattrs`; not_found when there is none.
[[nodiscard]] node_metadata read_node_metadata(const store& s, std::string_view path);
// The store key prefix of a node: "" for the root, "a/b/" for "a/b".
[[nodiscard]] std::string node_prefix(std::string_view path);

// Consolidated metadata: the documents of every node below a group in one key, so that a
// hierarchy opens with one read (Zarr v2: zarr-python's `.zmetadata`; Zarr v3: the
// `consolidated_metadata` member of the group's zarr.json, {"kind": "inline",
// "must_understand": false, "metadata": {"a": {...}, "a/b": {...}}}, as zarr-python 3 writes it).
// Writes it for the group at `path`, in the group's format. Later metadata writes through this
// library (create, set_attributes, resize) remove it from every group above the node they
// change, so that it is never stale: consolidate again afterwards. Returns the number of nodes
// below the group that it holds.
std::size_t consolidate_metadata(const std::shared_ptr<store>& s, std::string_view path = "");
// A store that answers every metadata document below the group at `path` (zarr.json, .zarray,
// .zgroup, .zattrs, and listing the nodes) from the group's consolidated metadata, read here
// with one get (two for Zarr v2: zarr.json, then .zmetadata); chunks come from `s`. Writes go
// to `s` and update what it answers. not_found when the group has none.
[[nodiscard]] std::shared_ptr<store> open_consolidated(std::shared_ptr<store> s, std::string_view path = "");

}  // namespace zarr

namespace zarr {
// Removes the consolidated metadata of every group above the node at `path`, and a Zarr v2
// `.zmetadata` of the node itself (src/zarr/array/consolidated.cpp; called for every
// metadata write).
void drop_consolidated_metadata(store& s, std::string_view path);

// What the module's files share (src/zarr/array.cpp, src/zarr/array/*.cpp).
// `"/a/b"`: a node as messages name it.
inline std::string node_name_for_errors(std::string_view path) { return "\"/" + std::string(path) + "\""; }

// Runs f, naming the array and the chunk in any error it throws.
template <class F>
void naming_the_chunk(std::string_view path, const std::string& key, F&& f) {
  try {
    f();
  } catch (const error& e) {
    throw error(e.code(), "array " + node_name_for_errors(path) + ", chunk \"" + key + "\": " + e.what());
  }
}

// What the codec chain of a chunk of `shape` decodes to.
chunk_spec chunk_spec_of(const array_metadata& m, std::vector<std::uint64_t> shape) {
  return {std::move(shape), m.type, m.fill_value, m.layout, m.fill_string};
}

// The shape of a C-order buffer for region r: its size checked against the element size.
std::vector<std::uint64_t> c_order_extent(const region& r, std::size_t buffer_bytes, std::uint64_t element_size,
                                          std::string_view path);
// The bytes of the grid's largest chunk.
std::uint64_t largest_chunk_bytes(const array_metadata& m);
// How many chunks one batch of a read or write holds: four rounds of the requests a store
// keeps in flight, so that none waits, and at most about 256 MiB of decoded chunks.
std::size_t batch_size(std::size_t in_flight, std::uint64_t chunk_bytes);

// Calls f when it goes out of scope.
template <class F>
struct at_scope_end {
  F f;
  ~at_scope_end() { f(); }
};

// Runs f, naming the array in any error it throws (store errors name the key themselves).
template <class F>
void naming_the_array(std::string_view path, F&& f) {
  try {
    f();
  } catch (const error& e) {
    throw error(e.code(), "array " + node_name_for_errors(path) + ": " + e.what());
  }
}

// What a store batch running on a thread of its own shares with the threads that decode (or
// encode) alongside it: a flag that stops both sides at the first failure of either, and a
// condition to wait on for the other side's progress.
struct alongside {
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<bool> stopped{false};
  bool batch_over = false;  // under mutex

  // Thrown from the batch's callbacks to leave it once the other side has failed.
  struct stop_batch {};

  void stop() {
    {
      const std::lock_guard lock(mutex);
      stopped = true;
    }
    changed.notify_all();
  }
  void leave_if_stopped() const {
    if (stopped.load()) throw stop_batch{};
  }
  // Runs `batch` on a thread of its own and `work` on this one; either failing stops the
  // other. The error of `work` is thrown first, else that of `batch`.
  template <class Batch, class Work>
  void run(Batch&& batch, Work&& work) {
    std::exception_ptr batch_failure;
    {
      const std::jthread io([&] {
        try {
          batch();
        } catch (const stop_batch&) {
        } catch (...) {
          batch_failure = std::current_exception();
          stop();
        }
        {
          const std::lock_guard lock(mutex);
          batch_over = true;
        }
        changed.notify_all();
      });
      try {
        work();
      } catch (...) {
        stop();
        throw;  // (the batch thread is joined first: it leaves at its next callback)
      }
    }
    if (batch_failure) std::rethrow_exception(batch_failure);
  }
  // For a piece of `work`: runs f, stopping the batch if it throws.
  template <class F>
  void piece(F&& f) {
    try {
      f();
    } catch (...) {
      stop();
      throw;
    }
  }
};

// Counts the chunks of a read or write and reports them to the caller's callback.
class chunk_progress {
 public:
  chunk_progress(const progress_callback& callback, std::uint64_t total, std::string_view path)
      : callback_(callback), total_(total), path_(path) {}
  void chunk_done() {
    if (!callback_) return;
    const std::lock_guard lock(mutex_);
    if (!callback_(++done_, total_))
      throw error(errc::cancelled, "array " + node_name_for_errors(path_) + ": cancelled after " + std::to_string(done_) +
                                       " of " + std::to_string(total_) + " chunks");
  }

 private:
  const progress_callback& callback_;
  std::uint64_t total_;
  std::string_view path_;
  std::uint64_t done_ = 0;
  std::mutex mutex_;
};

// Writers of one chunk within this process take turns (the chunk's stripe of a lock).
std::mutex& chunk_lock(const std::string& key);
}  // namespace zarr
