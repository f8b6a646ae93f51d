// zarr.metadata: the zarr.json documents of arrays and groups (Zarr v3 core spec "Array
// metadata", "Group metadata", "Extensions", "must_understand"), the regular and rectilinear
// (zarr-extensions chunk-grids/rectilinear) chunk grids and the `default` and `v2` chunk key
// encodings. Parsing validates every field and names it in
// errors; writing gives the canonical document.
module;
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
export module zarr.metadata;

export import zarr.dtype;
export import zarr.error;
export import zarr.nd;

export namespace zarr {

// Zarr v3 core spec "chunk_key_encoding": `default` ("c" + separator + indices; "c" for 0-d) or
// `v2` (indices joined by the separator; "0" for 0-d).
struct chunk_key_encoding {
  enum class kind : std::uint8_t { default_, v2 };
  kind encoding = kind::default_;
  char separator = '/';

  [[nodiscard]] std::string key(std::span<const std::uint64_t> chunk_index) const;
  [[nodiscard]] boost::json::value to_json() const;
  [[nodiscard]] static chunk_key_encoding parse(const boost::json::value& json, std::string_view where = "chunk_key_encoding");
};

// What a Zarr v2 `.zarray` (Zarr storage specification version 2, "Metadata") holds beyond
// the fields both versions share.
struct v2_array_fields {
  char order = 'C';               // 'C' or 'F': the layout of elements within a chunk
  char byte_order = '<';          // the dtype's: '<', '>' or '|' (one-byte types)
  boost::json::value filters;     // null or an array of numcodecs configurations {"id": ...}
  boost::json::value compressor;  // null or one numcodecs configuration
};

struct array_metadata {
  int zarr_format = 3;                     // 2: a `.zarray` (with `.zattrs`), 3: a zarr.json
  std::vector<std::uint64_t> shape;
  data_type type = data_type::float64;
  time_resolution time;                    // numpy.datetime64 and numpy.timedelta64: unit and scale factor
  element_layout layout{};                 // raw bits, fixed_length_utf32, struct: size (and fields) from the configuration
  std::vector<std::uint64_t> chunk_shape;  // the regular chunk grid (see chunk_edges)
  // The rectilinear chunk grid (zarr-extensions chunk-grids/rectilinear) instead of the
  // regular one: per dimension, the edge lengths listed (runs expanded), or none where one
  // integer was given, which chunk_shape[i] then holds (chunk_shape[i] is 0 where edges are
  // listed).
  bool rectilinear = false;
  std::vector<std::vector<std::uint64_t>> chunk_edges;
  chunk_key_encoding key_encoding;
  scalar fill_value;
  std::string fill_string;                 // string and bytes: the fill value's bytes (fill_value is unused)
  bool no_fill_value = false;              // Zarr v2 `"fill_value": null`: a missing chunk has no value
  boost::json::value codecs;               // as given; resolved by zarr::codec_chain (v2: from `v2`)
  v2_array_fields v2;                      // Zarr v2 only
  boost::json::object attributes;
  std::optional<std::vector<std::optional<std::string>>> dimension_names;
  boost::json::object extra;               // unknown members marked "must_understand": false
  std::string source;                      // the zarr.json text this was parsed from, if any

  // `source` is the document's text, when there is one: fill values are then rounded from
  // their exact decimal text (docs/decisions.md 1).
  [[nodiscard]] static array_metadata parse(const boost::json::value& json, std::string_view source = {});
  // Parses the text of a Zarr v2 `.zarray` with the node's attributes (its `.zattrs`). Errors
  // name the file and the field (".zarray: dtype: expected ..."). `codecs` stays null:
  // zarr::v2_codecs (zarr.metadata.v2) gives the chain that `order`, filters and compressor make.
  [[nodiscard]] static array_metadata parse_v2(std::string_view zarray_text, boost::json::object attributes = {});
  [[nodiscard]] boost::json::object to_json() const;
  // The document's text, with the fill value in its shortest exact form: the zarr.json, or
  // for zarr_format 2 the `.zarray` (attributes go to `.zattrs`).
  [[nodiscard]] std::string to_text() const;
  // The data type in full (type, time resolution, layout).
  [[nodiscard]] data_type_spec type_spec() const { return {type, time, layout}; }
  // Bytes per element in memory: the registry's, or the layout's for a sized type.
  [[nodiscard]] std::uint64_t element_size() const noexcept { return zarr::element_size(type, layout); }
  // The chunk grid, dimension by dimension.
  [[nodiscard]] std::vector<grid_axis> grid() const;
  // Chunks along each dimension that hold elements of the array (regular: ceil(shape / chunk_shape)).
  [[nodiscard]] std::vector<std::uint64_t> grid_shape() const;
};

struct group_metadata {
  int zarr_format = 3;        // 2: a `.zgroup` (attributes in `.zattrs`), 3: a zarr.json
  boost::json::object attributes;
  boost::json::object extra;  // consolidated_metadata and members marked "must_understand": false

  [[nodiscard]] static group_metadata parse(const boost::json::value& json);
  // A Zarr v2 `.zgroup` ({"zarr_format": 2}, nothing else) with the node's `.zattrs`.
  [[nodiscard]] static group_metadata parse_v2(std::string_view zgroup_text, boost::json::object attributes = {});
  [[nodiscard]] boost::json::object to_json() const;
  [[nodiscard]] std::string to_text() const;
};

using node_metadata = std::variant<array_metadata, group_metadata>;

// Parses JSON text like boost::json::parse, but with every number that has a fraction or
// an exponent rounded correctly to the nearest double (Boost.JSON 1.81's own conversion is
// not always). `what` names the document in errors (invalid_metadata).
[[nodiscard]] boost::json::value parse_json(std::string_view text, std::string_view what = "zarr.json");

// Parses a zarr.json document of either kind (the text, so that numbers keep their exact
// decimal form for fill values).
[[nodiscard]] node_metadata parse_node_metadata(std::string_view text);
// The text of a document, pretty enough for people, canonical for programs: two-space
// indents, doubles in their shortest round-trip form. `raw_members` replaces the value of
// top-level members with ready-made JSON text (the exact fill value).
[[nodiscard]] std::string serialize_metadata(
    const boost::json::object& document,
    std::span<const std::pair<std::string_view, std::string>> raw_members = {});

// The text of a Zarr v2 document (.zarray, .zgroup, .zattrs, .zmetadata): serialize_metadata's,
// every character past ASCII written as a \u escape, as Python's json.dumps writes it
// (zarr-python 2 reads these files as ASCII). Every v2 document we write goes through it.
[[nodiscard]] std::string serialize_v2_metadata(
    const boost::json::object& document,
    std::span<const std::pair<std::string_view, std::string>> raw_members = {});

// The file names of a node's documents in each version.
inline constexpr std::string_view zarr_json_key = "zarr.json", zarray_key = ".zarray", zgroup_key = ".zgroup",
                                  zattrs_key = ".zattrs";
// Parses a `.zattrs` document (a JSON object); errors name ".zattrs".
[[nodiscard]] boost::json::object parse_zattrs(std::string_view text);

// Checks a node name (Zarr v3 core spec "Node names"): non-empty, no "/", not only periods, no
// leading "__", not "zarr.json".
void validate_node_name(std::string_view name);
// Checks a node path "a/b/c" ("" is the root) name by name.
void validate_node_path(std::string_view path);

}  // namespace zarr

// What the two files of zarr.metadata share (metadata.cpp: zarr.json, chunk grids and key
// encodings; metadata/zarray.cpp: the Zarr v2 documents), not exported.
namespace zarr {
// Throws invalid_metadata: "<where>: expected <expected>, got <got's JSON or nothing>".
[[noreturn]] void bad(std::string_view where, std::string_view expected, const boost::json::value* got);
// The member `key` of `o`; an error naming it when absent (every caller's field is required).
const boost::json::value& member(const boost::json::object& o, std::string_view key);
// A JSON array of non-negative integers; errors name `where` and the index.
std::vector<std::uint64_t> integer_list(const boost::json::value& v, std::string_view where);
// The chunk grid of `m` against its shape (`chunks` names the grid's field in errors): same
// rank, positive edges, every size and the end of the grid within 64 bits.
void check_grid(const array_metadata& m, const std::string& chunks);
// The .zarray document of a zarr_format 2 array.
std::string zarray_text(const array_metadata& m);
}  // namespace zarr
