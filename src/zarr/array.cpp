// zarr.array: arrays and groups as nodes (Zarr v3 core spec "Hierarchy", "Node names"): their
// documents, creating and opening them, the chunk grid and keys, resizing. Reading regions is in
// src/zarr/array/read.cpp, writing them in src/zarr/array/write.cpp.
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>
#include <boost/json.hpp>
module zarr.array;

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
  if (!options_.cache) {
    options_.cache = std::make_shared<cache>(own_cache_bytes);
    cache_may_hold_chunks_ = options_.cache_chunks;
  }
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
  const auto where = [&] { return "array " + node_name_for_errors(path_) + ": region"; };
  const auto rank = meta_.shape.size();
  if (r.start.size() != rank || r.stop.size() != rank)
    throw error(errc::invalid_argument, where() + ": expected " + std::to_string(rank) + " dimensions, got " +
                                            std::to_string(r.start.size()));
  for (std::size_t i = 0; i < rank; ++i)
    if (r.start[i] > r.stop[i] || r.stop[i] > meta_.shape[i])
      throw error(errc::invalid_argument, where() + "[" + std::to_string(i) + "]: expected start <= stop <= " +
                                              std::to_string(meta_.shape[i]) + ", got " + std::to_string(r.start[i]) +
                                              ":" + std::to_string(r.stop[i]));
}

void array::check_view(const region& r, const const_array_view& v, std::string_view what) const {
  check_fixed_size(what == "output" ? "read" : "write");
  const auto where = [&] { return "array " + node_name_for_errors(path_) + ": " + std::string(what); };
  if (v.strings)
    throw error(errc::invalid_argument, where() + ": expected a view of elements, got one of strings (read_strings and "
                                                "write_strings take those)");
  const auto size = static_cast<std::size_t>(meta_.element_size());
  if (v.element_size != size)
    throw error(errc::invalid_argument, where() + ": expected elements of " + std::to_string(size) + " bytes, got " +
                                            std::to_string(v.element_size));
  if (!r.has_extent(v.shape) || v.strides.size() != v.shape.size())
    throw error(errc::invalid_argument, where() + ": expected the region's extent as its shape");
  if (self_overlapping(v)) throw error(errc::invalid_argument, where() + ": expected elements that share no bytes");
}

std::vector<std::uint64_t> c_order_extent(const region& r, std::size_t buffer_bytes, std::uint64_t element_size,
                                          std::string_view path) {
  const auto expected = r.num_elements() * element_size;
  if (buffer_bytes != expected)
    throw error(errc::invalid_argument, "array " + node_name_for_errors(path) + ": region: expected a buffer of " +
                                            std::to_string(expected) + " bytes, got " + std::to_string(buffer_bytes));
  return r.extent();
}

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

std::size_t batch_size(std::size_t in_flight, std::uint64_t chunk_bytes) {
  const auto by_memory = (std::uint64_t{256} << 20) / std::max<std::uint64_t>(chunk_bytes, 1);
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(by_memory, 1, 4 * std::uint64_t{in_flight}));
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
