// zarr.array: arrays and groups in a store (Zarr v3 core spec "Hierarchy", "Array metadata",
// "Chunk encoding"): create, open, read and write any region, attributes, resize.
// Missing chunks read as the fill value; chunks that are all fill value are not stored
// (docs/decisions.md 25).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>
#include <boost/json/object.hpp>
export module zarr.array;

export import zarr.codec;
export import zarr.dtype;
export import zarr.error;
export import zarr.metadata;
export import zarr.nd;
export import zarr.store;

export namespace zarr {

struct write_options {
  // Store chunks that hold only the fill value (by default they are erased, docs/decisions.md 25).
  bool write_empty_chunks = false;
};

class array {
 public:
  // Writes the metadata of a new array at `path` ("" is the root, "a/b" a nested node),
  // creating missing parent groups. Everything is validated (the codec chain is resolved,
  // fill values checked) before anything is written. Throws already_exists when a node is
  // there, unless `overwrite`.
  static array create(std::shared_ptr<store> s, std::string_view path, const array_metadata& metadata,
                                    bool overwrite = false);
  // Opens the array at `path`: reads and validates zarr.json and resolves the codec chain.
  [[nodiscard]] static array open(std::shared_ptr<store> s, std::string_view path);

  [[nodiscard]] const array_metadata& metadata() const noexcept { return meta_; }
  [[nodiscard]] const std::vector<std::uint64_t>& shape() const noexcept { return meta_.shape; }
  [[nodiscard]] data_type type() const noexcept { return meta_.type; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const codec_chain& codecs() const noexcept { return *chain_; }
  [[nodiscard]] store& storage() const noexcept { return *store_; }

  // Reads `r` into `out`, C order, in the in-memory layout of zarr::scalar
  // (out.size() == r.num_elements() * info(type()).size).
  void read(const region& r, std::span<std::byte> out) const;
  // Writes `in` (C order, same layout) into `r`.
  void write(const region& r, std::span<const std::byte> in, const write_options& options = {});

  // Typed access: T must have the element size of the data type (e.g. float for float32,
  // std::uint8_t for the 8-bit and smaller types, std::uint16_t for bfloat16/float16 bits).
  template <class T>
  [[nodiscard]] std::vector<T> read(const region& r) const {
    check_element<T>();
    std::vector<T> out(r.num_elements());
    read(r, std::as_writable_bytes(std::span(out)));
    return out;
  }
  template <class T>
  void write(const region& r, std::span<const T> in, const write_options& options = {}) {
    check_element<T>();
    write(r, std::as_bytes(in), options);
  }

  // The store key of a chunk ("a/b/c/0/1").
  [[nodiscard]] std::string chunk_key(std::span<const std::uint64_t> chunk_index) const;
  // A whole chunk, decoded (fill value when absent).
  [[nodiscard]] bytes read_chunk(std::span<const std::uint64_t> chunk_index) const;

  // Replaces the attributes (rewrites zarr.json atomically).
  void set_attributes(const boost::json::object& attributes);
  // Changes the shape; chunks wholly outside the new shape are erased, and the parts of
  // border chunks outside it are reset to the fill value, so that growing again later
  // shows the fill value there, not stale data.
  void resize(std::span<const std::uint64_t> new_shape);

 private:
  array(std::shared_ptr<store> s, std::string path, array_metadata meta);
  template <class T>
  void check_element() const {
    static_assert(std::is_trivially_copyable_v<T>);
    if (sizeof(T) != static_cast<std::size_t>(info(meta_.type).size))
      throw error(errc::invalid_argument, "array \"" + path_ + "\": expected elements of " +
                                              std::to_string(info(meta_.type).size) + " bytes for " +
                                              std::string(name(meta_.type)) + ", got " + std::to_string(sizeof(T)));
  }
  void check_region(const region& r, std::uint64_t buffer_bytes) const;
  void write_metadata() const;
  // Decodes a stored chunk into `out` (a whole chunk); errors name the array and the key.
  void decode_chunk(const std::string& key, std::span<const std::byte> stored, std::span<std::byte> out) const;
  void store_chunk(const std::string& key, std::span<const std::byte> chunk, const write_options& options) const;

  std::shared_ptr<store> store_;
  std::string path_;
  array_metadata meta_;
  std::shared_ptr<const codec_chain> chain_;
};

class group {
 public:
  // Writes a group's zarr.json at `path`, creating missing parent groups.
  static group create(std::shared_ptr<store> s, std::string_view path,
                                    const boost::json::object& attributes = {}, bool overwrite = false);
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

// The metadata of whatever node is at `path`; not_found when there is none.
[[nodiscard]] node_metadata read_node_metadata(const store& s, std::string_view path);
// The store key prefix of a node: "" for the root, "a/b/" for "a/b".
[[nodiscard]] std::string node_prefix(std::string_view path);

}  // namespace zarr
