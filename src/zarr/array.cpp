// zarr.array: reading and writing regions chunk by chunk (Zarr v3 core spec "Chunk encoding",
// "Hierarchy"; docs/decisions.md 25 for chunks that hold only the fill value).
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>
#include <boost/json.hpp>
module zarr.array;

import zarr.parallel;

namespace zarr {
namespace json = boost::json;

namespace {

std::string text_of(const bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

void write_document(store& s, std::string_view path, const std::string& text) {
  s.set(node_prefix(path) + "zarr.json", std::as_bytes(std::span(text)));
}

// Creates the groups above `path` that do not exist yet (the root included).
void create_parents(store& s, std::string_view path) {
  std::string parent;
  std::size_t pos = 0;
  for (;;) {
    if (!s.get(node_prefix(parent) + "zarr.json")) write_document(s, parent, group_metadata{}.to_text());
    const auto slash = path.find('/', pos);
    if (slash == std::string_view::npos) return;
    parent = std::string(path.substr(0, slash));
    pos = slash + 1;
  }
}

std::string node_name_for_errors(std::string_view path) { return "\"/" + std::string(path) + "\""; }

// Buffers a thread reuses from chunk to chunk (stored bytes, a decoded chunk, an encoded
// one), so that memory is not allocated and faulted in again for every chunk; beyond
// kept_buffer_limit they are let go.
struct scratch {
  bytes stored;
  bytes chunk;
  bytes encoded;

  static scratch& of_this_thread() {
    thread_local scratch s;
    return s;
  }
  void trim() noexcept {
    let_go_if_large(stored);
    let_go_if_large(chunk);
    let_go_if_large(encoded);
  }
};

// Runs f, naming the array and the chunk in any error it throws.
template <class F>
void for_chunk(std::string_view path, const std::string& key, F&& f) {
  try {
    f();
  } catch (const error& e) {
    throw error(e.code(), "array " + node_name_for_errors(path) + ", chunk \"" + key + "\": " + e.what());
  }
}

// The fill value, as chunk_spec of the whole chunk.
chunk_spec chunk_spec_of(const array_metadata& m) { return {m.chunk_shape, m.type, m.fill_value}; }

}  // namespace

std::string node_prefix(std::string_view path) {
  validate_node_path(path);
  return path.empty() ? std::string() : std::string(path) + "/";
}

node_metadata read_node_metadata(const store& s, std::string_view path) {
  const auto doc = s.get(node_prefix(path) + "zarr.json");
  if (!doc) throw error(errc::not_found, "node " + node_name_for_errors(path) + ": expected a zarr.json, got none");
  try {
    return parse_node_metadata(text_of(*doc));
  } catch (const error& e) {
    throw error(e.code(), "node " + node_name_for_errors(path) + ": " + e.what());
  }
}

// --- array ---------------------------------------------------------------------------------

array::array(std::shared_ptr<store> s, std::string path, array_metadata meta)
    : store_(std::move(s)), path_(std::move(path)), meta_(std::move(meta)) {
  try {
    chain_ = std::make_shared<const codec_chain>(meta_.codecs, chunk_spec_of(meta_), "codecs", meta_.source);
  } catch (const error& e) {
    throw error(e.code(), "array " + node_name_for_errors(path_) + ": " + e.what());
  }
}

array array::create(std::shared_ptr<store> s, std::string_view path, const array_metadata& metadata, bool overwrite) {
  validate_node_path(path);
  // Round-trip the metadata through its JSON form, so that what is written is exactly
  // what a later open will see, then resolve the chain: all before writing anything.
  const auto text = metadata.to_text();
  auto meta = array_metadata::parse(parse_json(text), text);
  array a(std::move(s), std::string(path), std::move(meta));
  a.meta_.codecs = a.chain_->to_json();  // choices made by codecs are recorded
  if (!overwrite && a.store_->get(node_prefix(path) + "zarr.json"))
    throw error(errc::already_exists, "node " + node_name_for_errors(path) + ": expected no node, got an existing one");
  if (overwrite)
    for (const auto& key : a.store_->list(node_prefix(path))) a.store_->erase(key);
  if (!path.empty()) create_parents(*a.store_, path);
  a.write_metadata();
  return a;
}

array array::open(std::shared_ptr<store> s, std::string_view path) {
  auto node = read_node_metadata(*s, path);
  auto* meta = std::get_if<array_metadata>(&node);
  if (meta == nullptr) throw error(errc::not_found, "node " + node_name_for_errors(path) + ": expected an array, got a group");
  return array(std::move(s), std::string(path), std::move(*meta));
}

void array::write_metadata() const { write_document(*store_, path_, meta_.to_text()); }

std::string array::chunk_key(std::span<const std::uint64_t> chunk_index) const {
  return node_prefix(path_) + meta_.key_encoding.key(chunk_index);
}

void array::check_region(const region& r, std::uint64_t buffer_bytes) const {
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
  const auto expected = r.num_elements() * static_cast<std::uint64_t>(info(meta_.type).size);
  if (buffer_bytes != expected)
    throw error(errc::invalid_argument, where + ": expected a buffer of " + std::to_string(expected) + " bytes, got " +
                                            std::to_string(buffer_bytes));
}

void array::decode_chunk(const std::string& key, std::span<const std::byte> stored, std::span<std::byte> out) const {
  for_chunk(path_, key, [&] { chain_->decode_into(stored, out); });
}

bytes array::read_chunk(std::span<const std::uint64_t> chunk_index) const {
  const auto key = chunk_key(chunk_index);
  const auto stored = store_->get(key);
  if (!stored) return filled(chunk_spec_of(meta_).num_elements(), meta_.fill_value);
  bytes chunk(static_cast<std::size_t>(chunk_spec_of(meta_).byte_size()));
  decode_chunk(key, *stored, chunk);
  return chunk;
}

void array::store_chunk(const std::string& key, std::span<const std::byte> chunk, const write_options& options) const {
  if (!options.write_empty_chunks && all_equal(chunk, meta_.fill_value)) {
    store_->erase(key);
    return;
  }
  if (chain_->identity()) {
    store_->set(key, chunk);
    return;
  }
  auto& encoded = scratch::of_this_thread().encoded;
  for_chunk(path_, key, [&] { chain_->encode_into(chunk, encoded); });
  store_->set(key, encoded);
}

namespace {

// The chunks a region meets, each with the part of the region inside it: collected first,
// so that they can be processed in parallel.
struct chunk_tasks {
  std::size_t rank;
  std::size_t count = 0;
  std::vector<std::uint64_t> data;  // per task: index, lo, hi (rank values each)

  chunk_tasks(std::span<const std::uint64_t> chunk_shape, const region& r) : rank(chunk_shape.size()) {
    for_each_cell(chunk_shape, r, [&](std::span<const std::uint64_t> index, std::span<const std::uint64_t> lo,
                                      std::span<const std::uint64_t> hi) {
      data.insert(data.end(), index.begin(), index.end());
      data.insert(data.end(), lo.begin(), lo.end());
      data.insert(data.end(), hi.begin(), hi.end());
      ++count;
    });
  }
  [[nodiscard]] std::size_t size() const noexcept { return count; }
  [[nodiscard]] std::span<const std::uint64_t> index(std::size_t t) const { return {data.data() + 3 * rank * t, rank}; }
  [[nodiscard]] std::span<const std::uint64_t> lo(std::size_t t) const { return {data.data() + 3 * rank * t + rank, rank}; }
  [[nodiscard]] std::span<const std::uint64_t> hi(std::size_t t) const { return {data.data() + 3 * rank * t + 2 * rank, rank}; }
};

// Writers of one chunk within this process take turns: a chunk (or shard) is read,
// modified and written back whole, so two concurrent partial writes of the same chunk
// would otherwise lose one of them. Striped by the hash of the key alone: two store
// objects may be the same directory (same keys of different stores only share a stripe).
std::mutex& chunk_lock(const std::string& key) {
  static std::array<std::mutex, 256> stripes;
  return stripes[std::hash<std::string>{}(key) % stripes.size()];
}

}  // namespace

void array::read(const region& r, std::span<std::byte> out) const {
  check_region(r, out.size());
  if (r.num_elements() == 0) return;
  const auto size = static_cast<std::size_t>(info(meta_.type).size);
  const auto extent_out = r.extent();
  const auto rank = meta_.shape.size();
  // With only an array -> bytes codec (other than plain bytes), it may read just the bytes
  // it needs for part of a chunk, and decodes a whole chunk into place (sharding).
  const bool partial = chain_->array_to_array().empty() && chain_->bytes_to_bytes().empty() && !chain_->identity();
  const chunk_tasks tasks(meta_.chunk_shape, r);
  parallel_for(tasks.size(), [&](std::size_t t) {
    const auto index = tasks.index(t), lo = tasks.lo(t), hi = tasks.hi(t);
    std::vector<std::uint64_t> in_chunk(rank), in_out(rank), extent(rank), stop(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      in_chunk[i] = lo[i] - index[i] * meta_.chunk_shape[i];
      in_out[i] = lo[i] - r.start[i];
      extent[i] = hi[i] - lo[i];
      stop[i] = in_chunk[i] + extent[i];
    }
    const auto key = chunk_key(index);
    const region box{in_chunk, stop};
    if (partial && !box.covers(meta_.chunk_shape)) {
      // The array -> bytes codec reads what it needs and decodes straight into `out`, from
      // one version of the value: a shard rewritten meanwhile would pair the old index
      // with the new inner chunks.
      const auto value = store_->snapshot(key);
      const range_reader reader = [&](std::optional<byte_range> range) -> std::optional<bytes> {
        if (!value) return std::nullopt;
        return value->get(range);
      };
      bool found = false;
      for_chunk(path_, key, [&] { found = chain_->array_to_bytes().decode_region(reader, box, out.data(), extent_out, in_out); });
      if (!found) fill_box(out.data(), extent_out, in_out, extent, meta_.fill_value);
      return;
    }
    auto& s = scratch::of_this_thread();
    if (!store_->get_into(key, s.stored)) {
      fill_box(out.data(), extent_out, in_out, extent, meta_.fill_value);
      return;
    }
    const auto chunk_bytes = static_cast<std::size_t>(chunk_spec_of(meta_).byte_size());
    // A whole chunk whose rows follow each other in `out` is decoded in place.
    bool contiguous = box.covers(meta_.chunk_shape);
    for (std::size_t i = 1; i < rank && contiguous; ++i) contiguous = extent[i] == extent_out[i];
    const std::byte* chunk = s.stored.data();
    if (!chain_->identity() || s.stored.size() != chunk_bytes) {
      if (contiguous) {
        std::uint64_t offset = 0;
        for (std::size_t i = 0; i < rank; ++i) offset = offset * extent_out[i] + in_out[i];
        decode_chunk(key, s.stored, out.subspan(static_cast<std::size_t>(offset) * size, chunk_bytes));
        s.trim();
        return;
      }
      if (partial) {
        // A whole chunk (shard) through the array -> bytes codec alone: into its place.
        for_chunk(path_, key, [&] { chain_->array_to_bytes().decode_placed(s.stored, out.data(), extent_out, in_out); });
        s.trim();
        return;
      }
      s.chunk.resize(chunk_bytes);
      decode_chunk(key, s.stored, s.chunk);
      chunk = s.chunk.data();
    }
    copy_box(chunk, meta_.chunk_shape, in_chunk, out.data(), extent_out, in_out, extent, size);
    s.trim();
  });
}

void array::write(const region& r, std::span<const std::byte> in, const write_options& options) {
  check_region(r, in.size());
  if (r.num_elements() == 0) return;
  const auto size = static_cast<std::size_t>(info(meta_.type).size);
  const auto extent_in = r.extent();
  const auto rank = meta_.shape.size();
  const auto chunk_elements = chunk_spec_of(meta_).num_elements();
  const chunk_tasks tasks(meta_.chunk_shape, r);
  parallel_for(tasks.size(), [&](std::size_t t) {
    const auto index = tasks.index(t), lo = tasks.lo(t), hi = tasks.hi(t);
    std::vector<std::uint64_t> in_chunk(rank), in_in(rank), extent(rank);
    bool covers = true;    // the region covers every element of the chunk inside the array
    bool interior = true;  // the chunk lies wholly inside the array
    for (std::size_t i = 0; i < rank; ++i) {
      in_chunk[i] = lo[i] - index[i] * meta_.chunk_shape[i];
      in_in[i] = lo[i] - r.start[i];
      extent[i] = hi[i] - lo[i];
      const auto chunk_lo = index[i] * meta_.chunk_shape[i];
      const auto chunk_hi = std::min(meta_.shape[i], chunk_lo + meta_.chunk_shape[i]);
      covers = covers && lo[i] == chunk_lo && hi[i] == chunk_hi;
      interior = interior && chunk_hi - chunk_lo == meta_.chunk_shape[i];
    }
    const auto key = chunk_key(index);
    const std::lock_guard lock(chunk_lock(key));
    auto& s = scratch::of_this_thread();
    auto& chunk = s.chunk;
    chunk.resize(static_cast<std::size_t>(chunk_elements) * size);  // not zeroed
    if (covers && interior) {
      // every byte is written below
    } else if (!covers && store_->get_into(key, s.stored)) {
      decode_chunk(key, s.stored, chunk);
    } else {
      fill_box(chunk.data(), meta_.chunk_shape, std::vector<std::uint64_t>(rank, 0), meta_.chunk_shape, meta_.fill_value);
    }
    copy_box(in.data(), extent_in, in_in, chunk.data(), meta_.chunk_shape, in_chunk, extent, size);
    store_chunk(key, chunk, options);
    s.trim();
  });
}

void array::set_attributes(const json::object& attributes) {
  meta_.attributes = attributes;
  write_metadata();
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
    const auto text = resized.to_text();
    static_cast<void>(array_metadata::parse(parse_json(text), text));
  } catch (const error& e) {
    throw error(errc::invalid_argument, where + ": " + e.what());
  }
  const auto old_meta = meta_;
  meta_.shape.assign(new_shape.begin(), new_shape.end());
  const auto rank = new_shape.size();
  // Visit every stored chunk of the old grid that reaches past the new shape.
  const auto chunk_elements = chunk_spec_of(meta_).num_elements();
  const auto size = static_cast<std::size_t>(info(meta_.type).size);
  region all_old = region::all(old_meta.shape);
  for_each_cell(old_meta.chunk_shape, all_old, [&](std::span<const std::uint64_t> index, std::span<const std::uint64_t>,
                                                 std::span<const std::uint64_t>) {
    bool outside = false, partial = false;
    for (std::size_t i = 0; i < rank; ++i) {
      const auto lo = index[i] * meta_.chunk_shape[i];
      const auto hi = lo + meta_.chunk_shape[i];
      if (lo >= new_shape[i]) outside = true;
      else if (new_shape[i] < hi && new_shape[i] < old_meta.shape[i]) partial = true;
    }
    const auto key = chunk_key(index);
    if (outside) {
      store_->erase(key);
      return;
    }
    if (!partial) return;
    const std::lock_guard lock(chunk_lock(key));  // a read-modify-write like write()'s
    const auto stored = store_->get(key);
    if (!stored) return;
    bytes chunk(static_cast<std::size_t>(chunk_spec_of(meta_).byte_size()));
    decode_chunk(key, *stored, chunk);
    // Reset the part outside the new shape to the fill value.
    auto fresh = filled(chunk_elements, meta_.fill_value);
    std::vector<std::uint64_t> zero(rank, 0), keep(rank);
    for (std::size_t i = 0; i < rank; ++i)
      keep[i] = std::min(meta_.chunk_shape[i], new_shape[i] - index[i] * meta_.chunk_shape[i]);
    copy_box(chunk.data(), meta_.chunk_shape, zero, fresh.data(), meta_.chunk_shape, zero, keep, size);
    store_chunk(key, fresh, {});
  });
  write_metadata();
}

// --- group ---------------------------------------------------------------------------------

group::group(std::shared_ptr<store> s, std::string path, group_metadata meta)
    : store_(std::move(s)), path_(std::move(path)), meta_(std::move(meta)) {}

group group::create(std::shared_ptr<store> s, std::string_view path, const json::object& attributes, bool overwrite) {
  validate_node_path(path);
  if (!overwrite && s->get(node_prefix(path) + "zarr.json"))
    throw error(errc::already_exists, "node " + node_name_for_errors(path) + ": expected no node, got an existing one");
  if (!path.empty()) create_parents(*s, path);
  group_metadata meta;
  meta.attributes = attributes;
  write_document(*s, path, meta.to_text());
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
    if (name == "zarr.json") continue;
    if (store_->size(prefix + name + "/zarr.json")) out.push_back(name);
  }
  return out;
}

void group::set_attributes(const json::object& attributes) {
  meta_.attributes = attributes;
  write_document(*store_, path_, meta_.to_text());
}

}  // namespace zarr
