// zarr.array: reading and writing regions chunk by chunk (Zarr v3 core spec "Chunk encoding",
// "Hierarchy"; docs/decisions.md 25 for chunks that hold only the fill value).
module;
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>
#include <boost/json.hpp>
module zarr.array;

import zarr.async;
import zarr.parallel;

namespace zarr {
namespace json = boost::json;

namespace {

std::string text_of(const bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

// The node's documents: zarr.json, or for Zarr v2 the `.zarray`/`.zgroup` and `.zattrs` (written
// when there are attributes, erased when there are none).
template <class Metadata>
void write_documents(store& s, std::string_view path, const Metadata& m) {
  const auto prefix = node_prefix(path);
  // A group's own consolidated metadata goes too: it was read before this write.
  std::string text;
  if constexpr (std::is_same_v<Metadata, group_metadata>) {
    auto without = m;
    without.extra.erase("consolidated_metadata");
    text = without.to_text();
  } else {
    text = m.to_text();
  }
  drop_consolidated_metadata(s, path);
  if (m.zarr_format == 3) {
    s.set(prefix + std::string(zarr_json_key), std::as_bytes(std::span(text)));
    return;
  }
  constexpr bool is_array = std::is_same_v<Metadata, array_metadata>;
  s.set(prefix + std::string(is_array ? zarray_key : zgroup_key), std::as_bytes(std::span(text)));
  if (m.attributes.empty()) {
    s.erase(prefix + std::string(zattrs_key));
  } else {
    const auto attributes = serialize_v2_metadata(m.attributes);
    s.set(prefix + std::string(zattrs_key), std::as_bytes(std::span(attributes)));
  }
}

// Applies `change` to the node's metadata as stored now and writes it back: for Zarr v3 one
// read-modify-write of zarr.json (store::update), so that what another process changed meanwhile
// (a resize, the attributes) stays; `current` (this process's view, changed) when the document
// is missing or holds another kind of node. Zarr v2, whose attributes are a document of their
// own, writes `current` changed. Where the store cannot make updates atomic, metadata writes
// stay plain writes, from one process at a time (README, "Writing from many processes").
template <class Metadata, class Change>
void update_documents(store& s, std::string_view path, Metadata current, const Change& change) {
  change(current);
  if (current.zarr_format != 3) return write_documents(s, path, current);
  drop_consolidated_metadata(s, path);
  s.update(
      node_prefix(path) + std::string(zarr_json_key),
      [&](const bytes* doc, bytes& out) {
        auto m = current;
        if (doc != nullptr) {
          auto node = parse_node_metadata(text_of(*doc));
          if (auto* stored = std::get_if<Metadata>(&node)) {
            m = std::move(*stored);
            change(m);
          }
        }
        if constexpr (std::is_same_v<Metadata, group_metadata>) m.extra.erase("consolidated_metadata");
        const auto text = m.to_text();
        const auto* first = reinterpret_cast<const std::byte*>(text.data());
        out.assign(first, first + text.size());
        return false;
      },
      !s.atomic_updates());
}

// True when a node of either version has the key prefix `prefix` ("a/b/").
bool node_at(const store& s, const std::string& prefix) {
  for (const auto key : {zarr_json_key, zarray_key, zgroup_key})
    if (s.size(prefix + std::string(key))) return true;
  return false;
}
bool node_exists(const store& s, std::string_view path) { return node_at(s, node_prefix(path)); }

// Creates the groups above `path` that do not exist yet (the root included), in `zarr_format`.
void create_parents(store& s, std::string_view path, int zarr_format) {
  std::string parent;
  std::size_t pos = 0;
  group_metadata g;
  g.zarr_format = zarr_format;
  for (;;) {
    if (!node_exists(s, parent)) write_documents(s, parent, g);
    const auto slash = path.find('/', pos);
    if (slash == std::string_view::npos) return;
    parent = std::string(path.substr(0, slash));
    pos = slash + 1;
  }
}

// What opening `m`'s document would give (validated through its text).
array_metadata reparse(const array_metadata& m) {
  const auto text = m.to_text();
  if (m.zarr_format == 2) return array_metadata::parse_v2(text, m.attributes);
  auto out = array_metadata::parse(parse_json(text), text);
  return out;
}

// What the codec chain of a chunk of `shape` decodes to.
chunk_spec chunk_spec_of(const array_metadata& m, std::vector<std::uint64_t> shape) {
  return {std::move(shape), m.type, m.fill_value, m.layout, m.fill_string};
}

// The chunk shapes a rectilinear grid has (docs/decisions.md 50): every combination of the
// edge lengths each dimension lists, or of its step.
constexpr std::size_t max_chunk_shapes = 4096;
std::vector<std::vector<std::uint64_t>> chunk_shapes(const array_metadata& m) {
  std::vector<std::vector<std::uint64_t>> out{{}};
  for (std::size_t i = 0; i < m.shape.size(); ++i) {
    std::vector<std::uint64_t> edges = m.chunk_edges[i];
    if (edges.empty()) edges.push_back(m.chunk_shape[i]);
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    if (edges.size() > max_chunk_shapes / out.size())
      throw error(errc::unsupported, "chunk_grid: expected at most " + std::to_string(max_chunk_shapes) +
                                         " different chunk shapes, got more");
    std::vector<std::vector<std::uint64_t>> next;
    for (const auto& shape : out)
      for (auto e : edges) {
        next.push_back(shape);
        next.back().push_back(e);
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace

std::string node_prefix(std::string_view path) {
  validate_node_path(path);
  return path.empty() ? std::string() : std::string(path) + "/";
}

node_metadata read_node_metadata(const store& s, std::string_view path) {
  const auto prefix = node_prefix(path);
  try {
    if (const auto doc = s.get(prefix + std::string(zarr_json_key))) return parse_node_metadata(text_of(*doc));
    // Zarr storage specification version 2, "Hierarchies": `.zarray` or `.zgroup`, and `.zattrs`.
    const auto zarray = s.get(prefix + std::string(zarray_key));
    std::optional<bytes> zgroup;
    if (!zarray) zgroup = s.get(prefix + std::string(zgroup_key));
    if (!zarray && !zgroup)
      throw error(errc::not_found, "expected a zarr.json (or a Zarr v2 .zarray or .zgroup), got none");
    const auto zattrs = s.get(prefix + std::string(zattrs_key));
    auto attributes = zattrs ? parse_zattrs(text_of(*zattrs)) : json::object{};
    if (zarray) return array_metadata::parse_v2(text_of(*zarray), std::move(attributes));
    return group_metadata::parse_v2(text_of(*zgroup), std::move(attributes));
  } catch (const error& e) {
    throw error(e.code(), "node " + node_name_for_errors(path) + ": " + e.what());
  }
}

// --- array ---------------------------------------------------------------------------------

array::array(std::shared_ptr<store> s, std::string path, array_metadata meta, const array_options& options)
    : store_(std::move(s)), path_(std::move(path)), meta_(std::move(meta)), options_(options) {
  const encoding_options encoding{.inner_chunk_order = options.inner_chunk_order};
  try {
    if (meta_.zarr_format == 2) meta_.codecs = v2_codecs(meta_);
    grid_ = meta_.grid();
    if (meta_.rectilinear) {
      for (auto& shape : chunk_shapes(meta_)) {
        try {
          chains_[shape] =
              std::make_shared<const codec_chain>(meta_.codecs, chunk_spec_of(meta_, shape), "codecs", meta_.source, encoding);
        } catch (const error& e) {
          std::string dims;
          for (auto d : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
          throw error(e.code(), "for chunks of shape [" + dims + "]: " + e.what());
        }
      }
      chain_ = chains_.at(chunk_shape_of(std::vector<std::uint64_t>(meta_.shape.size(), 0)));
    } else {
      chain_ = std::make_shared<const codec_chain>(meta_.codecs, chunk_spec_of(meta_, meta_.chunk_shape), "codecs",
                                                   meta_.source, encoding);
    }
    if (meta_.zarr_format == 2) meta_.codecs = chain_->to_json();  // canonical: numcodecs.blosc as blosc
    if (options_.cache_chunks) {
      auto decoded_for = meta_.to_json();
      decoded_for.erase("attributes");
      decoded_for.erase("shape");  // a resize changes no chunk it leaves (and drops those it changes)
      decoded_for["codecs"] = chain_->to_json();
      chunk_fingerprint_ = path_ + "\n" + json::serialize(decoded_for);
    }
    opened_at_ = std::chrono::steady_clock::now();
  } catch (const error& e) {
    throw error(e.code(), "array " + node_name_for_errors(path_) + ": " + e.what());
  }
}

array array::create(std::shared_ptr<store> s, std::string_view path, const array_metadata& metadata, bool overwrite,
                    const array_options& options) {
  validate_node_path(path);
  // Round-trip the metadata through its JSON form, so that what is written is exactly
  // what a later open will see, then resolve the chain: all before writing anything.
  array a(std::move(s), std::string(path), reparse(metadata), options);
  a.meta_.codecs = a.chain_->to_json();  // choices made by codecs are recorded
  if (!overwrite && node_exists(*a.store_, path))
    throw error(errc::already_exists, "node " + node_name_for_errors(path) + ": expected no node, got an existing one");
  if (overwrite) {  // in one batch: many DELETEs in flight where the store can
    std::vector<store::set_item> erased;
    std::vector<std::string> keys = a.store_->list(node_prefix(path));
    for (const auto& key : keys) erased.push_back({.key = key, .value = {}, .erase = true});
    a.store_->set_many(erased);
    for (const auto& key : keys) a.forget_cached(key);
  }
  if (!path.empty()) create_parents(*a.store_, path, a.meta_.zarr_format);
  a.write_metadata();
  return a;
}

array array::open(std::shared_ptr<store> s, std::string_view path, const array_options& options) {
  auto node = read_node_metadata(*s, path);
  auto* meta = std::get_if<array_metadata>(&node);
  if (meta == nullptr) throw error(errc::not_found, "node " + node_name_for_errors(path) + ": expected an array, got a group");
  array a(std::move(s), std::string(path), std::move(*meta), options);
  return a;
}

void array::check_fill_value() const {
  if (meta_.no_fill_value && options_.strict_fill_value)
    throw error(errc::not_found, "expected a stored chunk (the array has no fill value, \"fill_value\": null, "
                                 "and was opened strict), got none");
}

void array::write_metadata() const { write_documents(*store_, path_, meta_); }

std::string array::chunk_key(std::span<const std::uint64_t> chunk_index) const {
  return node_prefix(path_) + meta_.key_encoding.key(chunk_index);
}

void array::check_region(const region& r) const {
  const auto where = "array " + node_name_for_errors(path_) + ": region";
  const auto rank = meta_.shape.size();
  if (r.start.size() != rank || r.stop.size() != rank)
    throw error(errc::invalid_argument, where + ": expected " + std::to_string(rank) + " dimensions, got " +
                                            std::to_string(r.start.size()));
  for (std::size_t i = 0; i < rank; ++i)
    if (r.start[i] > r.stop[i] || r.stop[i] > meta_.shape[i])
      throw error(errc::invalid_argument, where + "[" + std::to_string(i) + "]: expected start <= stop <= " +
                                              std::to_string(meta_.shape[i]) + ", got " + std::to_string(r.start[i]) +
                                              ":" + std::to_string(r.stop[i]));
}

void array::check_view(const region& r, const const_array_view& v, std::string_view what) const {
  check_fixed_size(what == "output" ? "read" : "write");
  const auto where = "array " + node_name_for_errors(path_) + ": " + std::string(what);
  if (v.strings)
    throw error(errc::invalid_argument, where + ": expected a view of elements, got one of strings (read_strings and "
                                                "write_strings take those)");
  const auto size = static_cast<std::size_t>(meta_.element_size());
  if (v.element_size != size)
    throw error(errc::invalid_argument, where + ": expected elements of " + std::to_string(size) + " bytes, got " +
                                            std::to_string(v.element_size));
  if (v.shape != r.extent() || v.strides.size() != v.shape.size())
    throw error(errc::invalid_argument, where + ": expected the region's extent as its shape");
  if (self_overlapping(v)) throw error(errc::invalid_argument, where + ": expected elements that share no bytes");
}

namespace {

// The shape of a C-order buffer for region r: its size checked against the element size.
std::vector<std::uint64_t> c_order_extent(const region& r, std::size_t buffer_bytes, std::uint64_t element_size,
                                          std::string_view path) {
  const auto expected = r.num_elements() * element_size;
  if (buffer_bytes != expected)
    throw error(errc::invalid_argument, "array " + node_name_for_errors(path) + ": region: expected a buffer of " +
                                            std::to_string(expected) + " bytes, got " + std::to_string(buffer_bytes));
  return r.extent();
}

}  // namespace

std::vector<std::uint64_t> array::chunk_shape_of(std::span<const std::uint64_t> chunk_index) const {
  std::vector<std::uint64_t> shape(grid_.size());
  for (std::size_t i = 0; i < grid_.size(); ++i) shape[i] = grid_[i].edge(chunk_index[i]);
  return shape;
}

const codec_chain& array::chain_of(std::span<const std::uint64_t> chunk_index) const {
  return chains_.empty() ? *chain_ : *chains_.at(chunk_shape_of(chunk_index));
}

void array::decode_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key,
                         std::span<const std::byte> stored, std::span<std::byte> out) const {
  naming_the_chunk(path_, key, [&] { chain_of(chunk_index).decode_into(stored, out); });
}

bytes array::read_chunk(std::span<const std::uint64_t> chunk_index) const {
  check_fixed_size("read_chunk");
  const auto key = chunk_key(chunk_index);
  const auto spec = chunk_spec_of(meta_, chunk_shape_of(chunk_index));
  const auto stored = store_->get(key);
  if (!stored) {
    naming_the_chunk(path_, key, [&] { check_fill_value(); });
    return filled(spec.num_elements(), meta_.fill_value);
  }
  bytes chunk(static_cast<std::size_t>(spec.byte_size()));
  decode_chunk(chunk_index, key, *stored, chunk);
  return chunk;
}

// Memory for one chunk being written: its elements' bytes, or std::string objects for the
// variable-length types.
struct chunk_memory {
  bytes elements;
  std::vector<std::string> strings;

  // The whole chunk of `spec` in C order: its elements not yet set, or empty strings.
  array_view whole(const chunk_spec& spec) {
    if (spec.variable_elements()) {
      strings.assign(static_cast<std::size_t>(spec.num_elements()), std::string());
      return strings_view(strings.data(), spec.shape);
    }
    elements.resize(static_cast<std::size_t>(spec.byte_size()));  // not zeroed
    return array_view::c_order(elements.data(), spec.shape, spec.view_element_size());
  }
  // Keeps what is worth keeping for the next chunk.
  void let_go() {
    let_go_if_large(elements);
    std::vector<std::string>().swap(strings);
  }
};

namespace {

// A whole chunk's elements (C order, no gaps), as bytes or as strings.
std::span<const std::byte> bytes_of(const const_array_view& chunk) {
  return {chunk.data, static_cast<std::size_t>(chunk.num_elements()) * chunk.element_size};
}
std::span<const std::string> strings_of(const const_array_view& chunk) {
  return {reinterpret_cast<const std::string*>(chunk.data), static_cast<std::size_t>(chunk.num_elements())};
}

}  // namespace

bool array::stored_as_absent(const const_array_view& chunk, const write_options& options) const {
  // Without a fill value (Zarr v2 null), every chunk written is stored.
  if (options.write_empty_chunks || meta_.no_fill_value) return false;
  if (!chunk.strings) return all_equal(bytes_of(chunk), meta_.fill_value);
  const auto strings = strings_of(chunk);
  return std::all_of(strings.begin(), strings.end(), [&](const std::string& e) { return e == meta_.fill_string; });
}

void array::encode_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, const const_array_view& chunk,
                         bytes& out) const {
  const auto& chain = chain_of(chunk_index);
  naming_the_chunk(path_, key, [&] {
    if (chunk.strings) out = chain.encode_elements(strings_of(chunk));
    else chain.encode_into(bytes_of(chunk), out);
  });
}

void array::store_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key,
                        const const_array_view& chunk, const write_options& options) const {
  if (stored_as_absent(chunk, options)) {
    store_->erase(key);
    return;
  }
  if (chain_of(chunk_index).identity()) {
    store_->set(key, bytes_of(chunk));
    return;
  }
  const thread_buffer<struct encoded_chunk_tag> encoded;
  encode_chunk(chunk_index, key, chunk, *encoded);
  store_->set(key, *encoded);
  let_go_if_large(*encoded);
}

// The stored chunk is read (with its version where the store has versions), decoded, changed
// and encoded again in `modify`, which the store calls again if another writer changed the
// chunk meanwhile (docs/decisions.md 64).
void array::update_chunk(std::span<const std::uint64_t> chunk_index, const std::string& key, bool create,
                         const write_options& options, const std::function<void(const array_view&)>& change) const {
  const auto spec = chunk_spec_of(meta_, chunk_shape_of(chunk_index));
  const auto& chain = chain_of(chunk_index);
  const thread_buffer<struct chunk_tag, chunk_memory> memory;
  store_->update(  // (store errors name the key, decoding errors the array and the chunk)
      key,
      [&](const bytes* current, bytes& out) {
        if (current == nullptr && !create) return true;  // absent, and to stay so
        // Where the stored bytes are the chunk itself (identity chain), it is assembled in `out`.
        if (chain.identity()) std::swap(memory->elements, out);
        const auto whole = memory->whole(spec);
        if (current == nullptr) fill(whole, spec);
        else if (spec.variable_elements()) naming_the_chunk(path_, key, [&] { chain.decode_elements(*current, memory->strings); });
        else decode_chunk(chunk_index, key, *current, memory->elements);
        change(whole);
        const bool absent = stored_as_absent(whole, options);
        if (chain.identity()) std::swap(memory->elements, out);
        if (absent && store_->erases_conditionally()) return true;
        if (!chain.identity()) encode_chunk(chunk_index, key, whole, out);
        return absent;
      },
      options_.single_writer);
  memory->let_go();
}

// The key's parts are parsed as decimal numbers within the grid, then the key is rebuilt
// from them: what is not exactly a chunk key ("c/01", "c/0/") is not one.
std::optional<std::vector<std::uint64_t>> array::chunk_index_of(std::string_view key) const {
  const auto prefix = node_prefix(path_);
  if (!key.starts_with(prefix)) return std::nullopt;
  std::string_view rest = key.substr(prefix.size());
  const char separator = meta_.key_encoding.separator;
  if (meta_.key_encoding.encoding == chunk_key_encoding::kind::default_) {
    if (!rest.starts_with('c')) return std::nullopt;
    rest.remove_prefix(std::min<std::size_t>(2, rest.size()));  // "c" and its separator
  }
  const auto grid = meta_.grid_shape();
  std::vector<std::uint64_t> index;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const auto end = std::min(rest.find(separator), rest.size());
    std::uint64_t v = 0;
    if (end == 0 || end > 20) return std::nullopt;
    for (char c : rest.substr(0, end))
      if (c < '0' || c > '9' || __builtin_mul_overflow(v, std::uint64_t{10}, &v) ||
          __builtin_add_overflow(v, static_cast<std::uint64_t>(c - '0'), &v))
        return std::nullopt;
    if (v >= grid[i]) return std::nullopt;
    index.push_back(v);
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  if (chunk_key(index) != key) return std::nullopt;
  return index;
}

void array::for_each_chunk(const std::function<void(std::span<const std::uint64_t>, const region&)>& f) const {
  for (const auto& key : store_->list(node_prefix(path_))) {
    const auto index = chunk_index_of(key);
    if (!index) continue;
    region r{std::vector<std::uint64_t>(index->size()), std::vector<std::uint64_t>(index->size())};
    for (std::size_t i = 0; i < index->size(); ++i) {
      r.start[i] = grid_[i].origin((*index)[i]);
      r.stop[i] = std::min(meta_.shape[i], r.start[i] + grid_[i].edge((*index)[i]));
    }
    f(*index, r);
  }
}

namespace {

// Writers of one chunk within this process take turns: a chunk (or shard) is read,
// modified and written back whole, so two concurrent partial writes of the same chunk
// would otherwise lose one of them. Striped by the hash of the key alone: two store
// objects may be the same directory (same keys of different stores only share a stripe).
std::array<std::mutex, 256>& chunk_stripes() {
  static std::array<std::mutex, 256> stripes;
  return stripes;
}
std::size_t stripe_of(const std::string& key) { return std::hash<std::string>{}(key) % chunk_stripes().size(); }

}  // namespace

std::mutex& chunk_lock(const std::string& key) { return chunk_stripes()[stripe_of(key)]; }

namespace {

// Where a write's part lies: whether the region covers every element of the chunk inside the
// array, and whether the chunk lies wholly inside the array.
struct coverage {
  bool covers = true;
  bool interior = true;
};
coverage coverage_of(const cell_part& part, std::span<const grid_axis> grid, std::span<const std::uint64_t> chunk_shape,
                     std::span<const std::uint64_t> array_shape) {
  coverage c;
  for (std::size_t i = 0; i < array_shape.size(); ++i) {
    const auto origin = grid[i].origin(part.cell[i]);
    const auto inside = std::min(array_shape[i] - origin, chunk_shape[i]);
    c.covers = c.covers && part.in_cell.start[i] == 0 && part.in_cell.stop[i] == inside;
    c.interior = c.interior && inside == chunk_shape[i];
  }
  return c;
}

// The bytes of the grid's largest chunk.
std::uint64_t largest_chunk_bytes(const array_metadata& m) {
  auto n = m.element_size();
  for (std::size_t i = 0; i < m.shape.size(); ++i) {
    auto edge = m.chunk_shape[i];
    if (m.rectilinear)
      for (auto e : m.chunk_edges[i]) edge = std::max(edge, e);
    n *= edge;
  }
  return n;
}

// How many chunks one batch of a read or write holds: four rounds of the requests a store
// keeps in flight, so that none waits, and at most about 256 MiB of decoded chunks.
std::size_t batch_size(std::size_t in_flight, std::uint64_t chunk_bytes) {
  const auto by_memory = (std::uint64_t{256} << 20) / std::max<std::uint64_t>(chunk_bytes, 1);
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(by_memory, 1, 4 * std::uint64_t{in_flight}));
}

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

}  // namespace

void array::read(const region& r, std::span<std::byte> out, const read_options& options) const {
  check_fixed_size("read");
  check_region(r);
  const auto size = static_cast<std::size_t>(meta_.element_size());
  read(r, array_view::c_order(out.data(), c_order_extent(r, out.size(), meta_.element_size(), path_), size), options);
}

void array::read(const region& r, const array_view& out, const read_options& options) const {
  check_region(r);
  check_view(r, out, "output");
  read_into(r, out, options);
}

// One call per chunk: the chain reads what the part of the region in that chunk needs and
// decodes it straight into its place in `out`; absent chunks are filled. Elements of the
// variable-length types take the same path, as a view of strings (no chunk cache: it holds
// fixed-size elements).
void array::read_into(const region& r, const array_view& out, const read_options& options) const {
  if (r.num_elements() == 0) return;
  const auto parts = cell_parts(grid_, r);
  chunk_progress progress(options.progress, parts.size(), path_);
  if (caches_chunks() && !out.strings) {
    read_cached(parts, out, [&] { progress.chunk_done(); });
    return;
  }
  if (store_->io_concurrency() > 1 && parts.size() > 1) {
    read_batched(parts, out, [&] { progress.chunk_done(); });
    return;
  }
  parallel_for(parts.size(), [&](std::size_t t) {
    read_part(parts[t], out);
    progress.chunk_done();
  });
}

void array::read_part(const cell_part& part, const array_view& out) const {
  const auto key = chunk_key(part.cell);
  const auto place = out.window(part.in_region, part.extent());
  naming_the_chunk(path_, key, [&] {
    // A cached shard index found changed by the read that it pinned is dropped: read once more,
    // anew (never the old index with the new bytes).
    for (bool again = false;; again = true) {
      const store_chunk_reader source(*store_, key, options_.cache.get());
      try {
        if (!chain_of(part.cell).reader(source)->read(part.in_cell, place)) {
          check_fill_value();
          fill(place, chain_of(part.cell).decoded());
        }
        return;
      } catch (const error&) {
        if (again || !source.found_stale()) throw;
      }
    }
  });
}

namespace {

// The owner of decoded chunks in a cache (cache::find's `owner`): one for the process, so
// that a write through any array drops what every other array read.
std::uint64_t decoded_chunks_owner() {
  static const derivation_owner owner;
  return owner.id();
}

// A decoded chunk in a cache: its elements (nothing: the chunk is absent), what it was decoded
// for (array::chunk_fingerprint_) and when its read started.
struct cached_chunk {
  std::string decoded_for;
  std::optional<bytes> elements;
  std::chrono::steady_clock::time_point read_at;
};

}  // namespace

bool array::caches_chunks() const noexcept {
  return options_.cache_chunks && options_.cache && !has_variable_elements(meta_.type, meta_.layout) &&
         largest_chunk_bytes(meta_) <= options_.cache->capacity() / 8;
}

void array::forget_cached(const std::string& key) const {
  if (options_.cache) options_.cache->forget_written(store_->identity(), key, decoded_chunks_owner());
}

// Chunks in the cache (decoded for this array, and read since it was opened unless the
// policy is never) serve their part at once; the others are fetched in batches of what the
// store keeps in flight, decoded whole, kept, and serve theirs (docs/decisions.md 78).
void array::read_cached(std::span<const cell_part> parts, const array_view& out,
                        const std::function<void()>& chunk_done) const {
  auto& c = *options_.cache;
  const auto owner = decoded_chunks_owner();
  const auto size = static_cast<std::size_t>(meta_.element_size());
  const auto held = [&](const std::string& key) -> std::shared_ptr<const cached_chunk> {
    auto found = c.find(store_->identity(), key, owner);
    if (!found) return nullptr;
    auto chunk = std::static_pointer_cast<const cached_chunk>(std::move(found->value));
    if (chunk->decoded_for != chunk_fingerprint_) return nullptr;
    if (options_.recheck_cached_chunks == recheck_cached::at_open && chunk->read_at < opened_at_) return nullptr;
    return chunk;
  };
  const auto serve = [&](const cell_part& part, const cached_chunk& chunk) {
    const auto place = out.window(part.in_region, part.extent());
    if (!chunk.elements) {
      naming_the_chunk(path_, chunk_key(part.cell), [&] { check_fill_value(); });
      fill(place, meta_.fill_value);
    } else {
      const auto whole = const_array_view::c_order(chunk.elements->data(), chunk_shape_of(part.cell), size);
      copy(whole.window(part.in_cell.start, part.extent()), place);
    }
    chunk_done();
  };
  struct fetch {
    const cell_part* part;
    bool serve;  // false: read ahead, only kept
  };
  std::vector<fetch> fetches;
  for (const auto& part : parts) {
    if (const auto chunk = held(chunk_key(part.cell)))
      serve(part, *chunk);
    else
      fetches.push_back({&part, true});
  }
  if (fetches.empty()) return;
  const auto around = options_.read_ahead_chunks > 0 ? chunks_around(parts, options_.read_ahead_chunks) : std::vector<cell_part>{};
  std::uint64_t ahead_bytes = 0;
  for (const auto& part : around) {
    ahead_bytes += chunk_spec_of(meta_, chunk_shape_of(part.cell)).byte_size();
    if (ahead_bytes > c.capacity() / 4) break;
    if (!held(chunk_key(part.cell))) fetches.push_back({&part, false});
  }

  const auto batch = batch_size(store_->io_concurrency(), largest_chunk_bytes(meta_));
  for (std::size_t first = 0; first < fetches.size(); first += batch) {
    const auto n = std::min(batch, fetches.size() - first);
    const auto since = c.epoch();
    const auto read_at = std::chrono::steady_clock::now();
    std::vector<store::get_item> items(n);
    for (std::size_t k = 0; k < n; ++k) items[k].key = chunk_key(fetches[first + k].part->cell);
    naming_the_array(path_, [&] { store_->get_many(items); });
    parallel_for(n, [&](std::size_t k) {
      const auto& [part, serves] = fetches[first + k];
      auto& item = items[k];
      auto chunk = std::make_shared<cached_chunk>(cached_chunk{chunk_fingerprint_, std::nullopt, read_at});
      if (item.found) {
        chunk->elements.emplace(static_cast<std::size_t>(chunk_spec_of(meta_, chunk_shape_of(part->cell)).byte_size()));
        decode_chunk(part->cell, item.key, item.value, *chunk->elements);
        item.value = bytes();
      }
      const auto bytes_held = chunk_fingerprint_.size() + (chunk->elements ? chunk->elements->size() : 0);
      c.put_unless_written(store_->identity(), item.key, owner, {chunk, {}}, bytes_held, since);
      if (serves) serve(*part, *chunk);
    });
  }
}

// The chunks within `reach` chunks of the box of chunks that `parts` meet, outside that box,
// in C order.
std::vector<cell_part> array::chunks_around(std::span<const cell_part> parts, std::uint64_t reach) const {
  const auto rank = meta_.shape.size();
  const auto cells = meta_.grid_shape();
  std::vector<std::uint64_t> lo(parts.front().cell), hi(parts.front().cell);
  for (const auto& part : parts)
    for (std::size_t i = 0; i < rank; ++i) {
      lo[i] = std::min(lo[i], part.cell[i]);
      hi[i] = std::max(hi[i], part.cell[i]);
    }
  region wider{std::vector<std::uint64_t>(rank), std::vector<std::uint64_t>(rank)};
  for (std::size_t i = 0; i < rank; ++i) {
    const auto first = lo[i] - std::min(lo[i], reach);
    const auto last = hi[i] + std::min(cells[i] - 1 - hi[i], reach);
    wider.start[i] = grid_[i].origin(first);
    wider.stop[i] = std::min(meta_.shape[i], grid_[i].origin(last) + grid_[i].edge(last));
  }
  auto around = cell_parts(grid_, wider);
  std::erase_if(around, [&](const cell_part& part) {
    for (std::size_t i = 0; i < rank; ++i)
      if (part.cell[i] < lo[i] || part.cell[i] > hi[i]) return false;
    return true;
  });
  return around;
}

// The chunks read whole stream: one store batch (store::get_many, on a thread of its own that
// only waits for the network) keeps its requests in flight as long as there are chunks to
// fetch, each next request starting as soon as one completes, while the decoding threads take
// the chunks in the order they arrive. At most `window` chunks are fetched and not yet decoded
// (or under way), so memory stays bounded. Parts of chunks that the chain reads by byte ranges
// (part of a shard: its index, then the inner chunks it needs) each go on a thread of their own
// (zarr.async's pool), so that every chunk's requests are in flight together.
void array::read_batched(std::span<const cell_part> parts, const array_view& out,
                         const std::function<void()>& chunk_done) const {
  std::vector<std::size_t> whole, pieces;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto key = chunk_key(parts[i].cell);
    const store_chunk_reader source(*store_, key);  // asked what it would read: nothing is read
    (chain_of(parts[i].cell).reader(source)->reads_whole(parts[i].in_cell) ? whole : pieces).push_back(i);
  }

  // They mostly wait for their requests: all of them at once, up to the store's requests in flight.
  for_each_waiting(pieces.size(), store_->io_concurrency(), [&](std::size_t t) {
    read_part(parts[pieces[t]], out);
    chunk_done();
  });
  if (whole.empty()) return;

  const auto window = batch_size(store_->io_concurrency(), largest_chunk_bytes(meta_));
  std::vector<store::get_item> items(whole.size());
  for (std::size_t k = 0; k < items.size(); ++k) items[k].key = chunk_key(parts[whole[k]].cell);
  alongside a;
  std::deque<std::size_t> arrived;      // fetched, not yet taken by a decoding thread (under a.mutex)
  std::atomic<std::size_t> decoded{0};  // chunks decoded (and their memory let go)
  a.run(
      [&] {
        naming_the_array(path_, [&] {
          store_->get_many(
              items,
              [&](std::size_t k) {
                a.leave_if_stopped();
                {
                  const std::lock_guard lock(a.mutex);
                  arrived.push_back(k);
                }
                a.changed.notify_one();
              },
              [&](std::size_t k) {
                a.leave_if_stopped();
                return k < decoded.load() + window;
              });
        });
      },
      [&] {
        parallel_for(items.size(), [&](std::size_t) {
          a.piece([&] {
            std::size_t k = 0;
            {
              std::unique_lock lock(a.mutex);
              a.changed.wait(lock, [&] { return !arrived.empty() || a.batch_over || a.stopped.load(); });
              if (arrived.empty()) return;  // the batch failed or was stopped
              k = arrived.front();
              arrived.pop_front();
            }
            const auto& part = parts[whole[k]];
            auto& item = items[k];
            const auto place = out.window(part.in_region, part.extent());
            naming_the_chunk(path_, item.key, [&] {
              if (!item.found) {
                check_fill_value();
                fill(place, chain_of(part.cell).decoded());
              } else {
                const buffer_chunk_reader source(std::span<const std::byte>(item.value));
                static_cast<void>(chain_of(part.cell).reader(source)->read(part.in_cell, place));
              }
            });
            item.value = bytes();
            ++decoded;
            chunk_done();
          });
        });
      });
}

void array::write(const region& r, std::span<const std::byte> in, const write_options& options) {
  check_fixed_size("write");
  check_region(r);
  const auto size = static_cast<std::size_t>(meta_.element_size());
  write(r, const_array_view::c_order(in.data(), c_order_extent(r, in.size(), meta_.element_size(), path_), size), options);
}

void array::write(const region& r, const const_array_view& in, const write_options& options) {
  check_region(r);
  check_view(r, in, "input");
  write_into(r, in, options);
}

const_array_view array::assembled(const cell_part& part, const const_array_view& source, chunk_memory& memory) const {
  const auto spec = chunk_spec_of(meta_, chunk_shape_of(part.cell));
  const auto [covers, interior] = coverage_of(part, grid_, spec.shape, meta_.shape);
  if (covers && interior && source.c_contiguous()) return source;
  const auto whole = memory.whole(spec);
  if (!interior) fill(whole, spec);  // (else every element is written below)
  copy(source, whole.window(part.in_cell.start, part.extent()));
  return whole;
}

// A chunk the region covers whole is encoded straight from `in` when its elements follow
// each other there; any other is assembled in memory of the thread's (from the stored chunk
// when the region covers only part of it: a read-modify-write), then encoded.
void array::write_into(const region& r, const const_array_view& in, const write_options& options) {
  if (r.num_elements() == 0) return;
  const auto parts = cell_parts(grid_, r);
  const at_scope_end forget{[&] {  // the chunks it changed, also when it failed half-way
    if (options_.cache)
      for (const auto& part : parts) forget_cached(chunk_key(part.cell));
  }};
  chunk_progress progress(options.progress, parts.size(), path_);
  const auto covers = [&](const cell_part& part) {
    return coverage_of(part, grid_, chunk_shape_of(part.cell), meta_.shape).covers;
  };
  const auto write_part = [&](const cell_part& part) {
    const auto key = chunk_key(part.cell);
    const auto source = in.window(part.in_region, part.extent());
    const std::lock_guard lock(chunk_lock(key));
    if (!covers(part)) {
      update_chunk(part.cell, key, true, options,
                   [&](const array_view& whole) { copy(source, whole.window(part.in_cell.start, source.shape)); });
    } else {
      const thread_buffer<struct chunk_tag, chunk_memory> memory;
      store_chunk(part.cell, key, assembled(part, source, *memory), options);
      memory->let_go();
    }
    progress.chunk_done();
  };
  if (store_->io_concurrency() > 1 && parts.size() > 1) {
    // The chunks covered whole in batches; the others each a read-modify-write.
    std::vector<cell_part> whole, partial;
    for (const auto& part : parts) (covers(part) ? whole : partial).push_back(part);
    write_batched(whole, in, options, [&] { progress.chunk_done(); });
    parallel_for(partial.size(), [&](std::size_t t) { write_part(partial[t]); });
    return;
  }
  parallel_for(parts.size(), [&](std::size_t t) { write_part(parts[t]); });
}

// The chunks the region covers whole stream, as reads do: one store batch (on a thread of its
// own) keeps its requests in flight for the whole write, storing each chunk as soon as the
// encoding threads have it ready and letting its memory go once stored, while the encoding
// threads assemble and encode the chunks in order into memory of their own, at most `window`
// chunks ahead of the last one stored (so memory stays bounded and no batch ever drains).
// First the chunks' stripes of chunk_lock are taken, in order: two writers never wait for each
// other in a circle.
void array::write_batched(std::span<const cell_part> parts, const const_array_view& in, const write_options& options,
                          const std::function<void()>& chunk_done) {
  if (parts.empty()) return;
  const auto window = batch_size(store_->io_concurrency(), largest_chunk_bytes(meta_));
  std::vector<std::string> keys;
  std::vector<std::size_t> stripes;
  for (const auto& part : parts) {
    keys.push_back(chunk_key(part.cell));
    stripes.push_back(stripe_of(keys.back()));
  }
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(stripes.size());
  for (const auto s : stripes) locks.emplace_back(chunk_stripes()[s]);

  std::vector<chunk_memory> held(parts.size());  // assembled or encoded chunks, until stored
  std::vector<store::set_item> items(parts.size());
  const auto ready = std::make_unique<std::atomic<bool>[]>(parts.size());  // items[k] is complete
  std::atomic<std::size_t> next{0};                                         // the next chunk to encode
  std::size_t stored = 0;                                                   // under a.mutex
  alongside a;
  a.run(
      [&] {
        // (Store errors name the key; a cancellation names the array already.)
        store_->set_many(
            items,
            [&](std::size_t k) {
              a.leave_if_stopped();
              held[k] = chunk_memory();
              {
                const std::lock_guard lock(a.mutex);
                ++stored;
              }
              a.changed.notify_all();
              chunk_done();
            },
            [&](std::size_t k) {
              a.leave_if_stopped();
              return ready[k].load();
            });
      },
      [&] {
        parallel_for(parts.size(), [&](std::size_t) {
          a.piece([&] {
            const auto k = next++;  // in order on every thread: the batch stores in order
            {
              std::unique_lock lock(a.mutex);
              a.changed.wait(lock, [&] { return k < stored + window || a.batch_over || a.stopped.load(); });
              if (a.batch_over || a.stopped.load()) return;
            }
            const auto& part = parts[k];
            const auto chunk = assembled(part, in.window(part.in_region, part.extent()), held[k]);
            items[k].key = keys[k];
            if (stored_as_absent(chunk, options)) {
              items[k].erase = true;
            } else if (chain_of(part.cell).identity()) {
              items[k].value = bytes_of(chunk);
            } else {
              bytes encoded;
              encode_chunk(part.cell, keys[k], chunk, encoded);
              held[k] = chunk_memory{.elements = std::move(encoded), .strings = {}};
              items[k].value = held[k].elements;
            }
            ready[k] = true;
          });
        });
      });
}

void array::set_attributes(const json::object& attributes) {
  update_documents(*store_, path_, meta_, [&](array_metadata& m) { m.attributes = attributes; });
  meta_.attributes = attributes;
}

void array::resize(std::span<const std::uint64_t> new_shape) {
  const auto where = "array " + node_name_for_errors(path_) + ": resize";
  if (new_shape.size() != meta_.shape.size())
    throw error(errc::invalid_argument, where + ": expected " + std::to_string(meta_.shape.size()) + " dimensions, got " +
                                            std::to_string(new_shape.size()));
  // The new shape must pass what opening the array would check (sizes within 64 bits).
  auto resized = meta_;
  resized.shape.assign(new_shape.begin(), new_shape.end());
  try {
    static_cast<void>(reparse(resized));
  } catch (const error& e) {
    throw error(errc::invalid_argument, where + ": " + e.what());
  }
  const auto old_meta = meta_;
  meta_.shape.assign(new_shape.begin(), new_shape.end());
  const auto rank = new_shape.size();
  // Visit every chunk of the old grid that reaches past the new shape.
  for_each_cell_part(std::span<const grid_axis>(grid_), region::all(old_meta.shape), [&](const cell_part& part) {
    bool outside = false, partial = false;
    const auto shape = chunk_shape_of(part.cell);
    for (std::size_t i = 0; i < rank; ++i) {
      const auto lo = grid_[i].origin(part.cell[i]);
      const auto hi = lo + shape[i];
      if (lo >= new_shape[i]) outside = true;
      else if (new_shape[i] < hi && new_shape[i] < old_meta.shape[i]) partial = true;
    }
    const auto key = chunk_key(part.cell);
    if (outside) {
      store_->erase(key);
      forget_cached(key);
      return;
    }
    if (!partial) return;
    std::vector<std::uint64_t> keep(rank);
    for (std::size_t i = 0; i < rank; ++i) keep[i] = std::min(shape[i], new_shape[i] - grid_[i].origin(part.cell[i]));
    const std::lock_guard lock(chunk_lock(key));  // a read-modify-write like write()'s
    const auto spec = chunk_spec_of(meta_, shape);
    update_chunk(part.cell, key, false, {}, [&](const array_view& whole) {
      // The part inside the new shape is kept, the rest reset to the fill value.
      chunk_memory fresh;
      const auto reset = fresh.whole(spec);
      fill(reset, spec);
      const std::vector<std::uint64_t> zero(rank, 0);
      copy(whole.window(zero, keep), reset.window(zero, keep));
      copy(reset, whole);
    });
    forget_cached(key);
  });
  update_documents(*store_, path_, meta_, [&](array_metadata& m) { m.shape.assign(new_shape.begin(), new_shape.end()); });
}

// --- group ---------------------------------------------------------------------------------

group::group(std::shared_ptr<store> s, std::string path, group_metadata meta)
    : store_(std::move(s)), path_(std::move(path)), meta_(std::move(meta)) {}

group group::create(std::shared_ptr<store> s, std::string_view path, const json::object& attributes, bool overwrite,
                    int zarr_format) {
  validate_node_path(path);
  if (zarr_format != 2 && zarr_format != 3)
    throw error(errc::invalid_argument, "group " + node_name_for_errors(path) + ": zarr_format: expected 2 or 3, got " +
                                            std::to_string(zarr_format));
  if (!overwrite && node_exists(*s, path))
    throw error(errc::already_exists, "node " + node_name_for_errors(path) + ": expected no node, got an existing one");
  if (!path.empty()) create_parents(*s, path, zarr_format);
  group_metadata meta;
  meta.zarr_format = zarr_format;
  meta.attributes = attributes;
  write_documents(*s, path, meta);
  return group(std::move(s), std::string(path), std::move(meta));
}

group group::open(std::shared_ptr<store> s, std::string_view path) {
  auto node = read_node_metadata(*s, path);
  auto* meta = std::get_if<group_metadata>(&node);
  if (meta == nullptr) throw error(errc::not_found, "node " + node_name_for_errors(path) + ": expected a group, got an array");
  return group(std::move(s), std::string(path), std::move(*meta));
}

std::vector<std::string> group::children() const {
  std::vector<std::string> out;
  const auto prefix = node_prefix(path_);
  for (const auto& name : store_->list_dir(prefix)) {
    if (name == zarr_json_key || name == zarray_key || name == zgroup_key || name == zattrs_key) continue;
    if (node_at(*store_, prefix + name + "/")) out.push_back(name);
  }
  return out;
}

void group::set_attributes(const json::object& attributes) {
  update_documents(*store_, path_, meta_, [&](group_metadata& m) { m.attributes = attributes; });
  meta_.attributes = attributes;
}

}  // namespace zarr
