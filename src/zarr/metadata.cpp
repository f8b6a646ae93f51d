// zarr.metadata: parsing, validating and writing zarr.json (Zarr v3 core spec "Metadata",
// "Extensions", "Node names"; chunk-grids/regular-grid; chunk-key-encodings/{default,v2}).
module;
#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>
#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>
module zarr.metadata;

import zarr.codec;
import zarr.fill_value;
import zarr.sized;
import zarr.text;

namespace zarr {
namespace json = boost::json;

// (bad, member, integer_list and check_grid are shared with metadata/zarray.cpp: declared in
// zarr.metadata's part that is not exported.)
[[noreturn]] void bad(std::string_view where, std::string_view expected, const json::value* got) {
  throw error(errc::invalid_metadata, std::string(where) + ": expected " + std::string(expected) + ", got " +
                                          (got ? json::serialize(*got) : std::string("nothing")));
}

const json::value& member(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) bad(key, "a value (the field is required)", nullptr);
  return *v;
}

namespace {

std::uint64_t non_negative(const json::value& v, std::string_view where) {
  if (const auto* i = v.if_int64(); i && *i >= 0) return static_cast<std::uint64_t>(*i);
  if (const auto* u = v.if_uint64()) return *u;
  bad(where, "a non-negative integer", &v);
}

}  // namespace

std::vector<std::uint64_t> integer_list(const json::value& v, std::string_view where) {
  const auto* a = v.if_array();
  if (a == nullptr) bad(where, "an array of integers", &v);
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < a->size(); ++i)
    out.push_back(non_negative((*a)[i], std::string(where) + "[" + std::to_string(i) + "]"));
  return out;
}

namespace {

// An extension object or short-hand name: {"name": ..., "configuration": {...}} or "name".
// Returns the name and the configuration (an empty object when absent). `must_understand`
// must be absent or true where the spec does not allow false.
std::pair<std::string, json::object> extension(const json::value& v, std::string_view where) {
  if (const auto* s = v.if_string()) return {std::string(*s), {}};
  const auto* o = v.if_object();
  if (o == nullptr) bad(where, "an object or a name", &v);
  const auto* n = o->if_contains("name");
  if (n == nullptr || !n->is_string()) bad(std::string(where) + ".name", "a string", n);
  json::object configuration;
  for (const auto& [key, value] : *o) {
    if (key == "name") continue;
    if (key == "configuration") {
      if (!value.is_object()) bad(std::string(where) + ".configuration", "an object", &value);
      configuration = value.as_object();
    } else if (key == "must_understand") {
      if (value != json::value(true)) bad(std::string(where) + ".must_understand", "true (this extension point must be understood)", &value);
    } else {
      throw error(errc::invalid_metadata, std::string(where) + ": expected only name and configuration, got \"" +
                                              std::string(key) + "\"");
    }
  }
  return {std::string(n->as_string()), std::move(configuration)};
}

void only_keys(const json::object& o, std::initializer_list<std::string_view> allowed, std::string_view where) {
  for (const auto& [key, value] : o)
    if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end())
      throw error(errc::invalid_metadata, std::string(where) + "." + std::string(key) + ": expected no such key");
}

// A member this library does not know: allowed only as {"must_understand": false, ...}.
void unknown_member(json::object& extra, std::string_view key, const json::value& value) {
  const auto* o = value.if_object();
  const auto* mu = o ? o->if_contains("must_understand") : nullptr;
  if (mu == nullptr || *mu != json::value(false))
    throw error(errc::unsupported, std::string(key) + ": expected a known field, or an object with \"must_understand\": false, got " +
                                       json::serialize(value));
  extra[key] = value;
}

}  // namespace

// The chunk grid against the shape (`chunks` names the grid's field): same rank, positive
// edges, a rectilinear grid's edges reaching the shape, and every size and the end of the
// grid within 64 bits.
void check_grid(const array_metadata& m, const std::string& chunks) {
  const auto rank = m.shape.size();
  if (m.chunk_shape.size() != rank || (m.rectilinear && m.chunk_edges.size() != rank))
    throw error(errc::invalid_metadata, chunks + ": expected " + std::to_string(rank) + " dimensions (the rank of shape), got " +
                                            std::to_string(m.rectilinear ? m.chunk_edges.size() : m.chunk_shape.size()));
  // Element counts and byte sizes must be representable (a hostile document could claim
  // a chunk of 2^70 bytes).
  const auto checked_product = [&](const std::vector<std::uint64_t>& dims, std::uint64_t factor, std::string_view what) {
    std::uint64_t n = factor;
    for (auto d : dims)
      if (__builtin_mul_overflow(n, d, &n))
        throw error(errc::invalid_metadata, std::string(what) + ": expected a size that fits in 64 bits, got one that overflows");
    return n;
  };
  checked_product(m.shape, m.element_size(), "shape");
  std::vector<std::uint64_t> largest(rank);  // the largest chunk's shape
  for (std::size_t i = 0; i < rank; ++i) {
    const auto where = chunks + "[" + std::to_string(i) + "]";
    if (m.rectilinear && !m.chunk_edges[i].empty()) {
      // Listed edges: their sum (where the last chunk ends) must reach the shape.
      std::uint64_t end = 0;
      for (auto e : m.chunk_edges[i]) {
        if (e == 0) throw error(errc::invalid_metadata, where + ": expected positive edge lengths, got 0");
        if (__builtin_add_overflow(end, e, &end))
          throw error(errc::invalid_metadata, where + ": expected edge lengths whose sum fits in 64 bits, got more");
        largest[i] = std::max(largest[i], e);
      }
      if (end < m.shape[i])
        throw error(errc::invalid_metadata, where + ": expected edge lengths that add up to at least the shape (" +
                                                std::to_string(m.shape[i]) + "), got " + std::to_string(end));
      continue;
    }
    if (m.chunk_shape[i] == 0) throw error(errc::invalid_metadata, where + ": expected a positive integer, got 0");
    largest[i] = m.chunk_shape[i];
    // The end of the grid, ceil(shape / chunk) * chunk, where the last chunk ends.
    const std::uint64_t count = m.shape[i] / m.chunk_shape[i] + (m.shape[i] % m.chunk_shape[i] != 0);
    std::uint64_t end = 0;
    if (__builtin_mul_overflow(count, m.chunk_shape[i], &end))
      throw error(errc::invalid_metadata, where + ": expected chunks that end within 2^64 - 1 elements (shape " +
                                              std::to_string(m.shape[i]) + "), got chunks of " + std::to_string(m.chunk_shape[i]));
  }
  checked_product(largest, m.element_size(), chunks);
}

namespace {

// Edges a rectilinear grid may list along one dimension, runs expanded (docs/decisions.md 50):
// a run [1, 2^60] would otherwise take all memory.
constexpr std::uint64_t max_listed_edges = std::uint64_t{1} << 20;

// The rectilinear chunk grid's configuration (zarr-extensions chunk-grids/rectilinear,
// "Configuration"): kind "inline" and, per dimension, one integer (a regular step) or a list
// of edge lengths and [value, count] runs.
void parse_rectilinear(const json::object& config, array_metadata& m) {
  only_keys(config, {"kind", "chunk_shapes"}, "chunk_grid.configuration");
  const auto* kind = config.if_contains("kind");
  if (kind == nullptr || !kind->is_string()) bad("chunk_grid.configuration.kind", "\"inline\"", kind);
  if (kind->as_string() != "inline")
    throw error(errc::unsupported, "chunk_grid.configuration.kind: expected \"inline\" (the only kind defined), got " +
                                       json::serialize(*kind));
  const std::string where = "chunk_grid.configuration.chunk_shapes";
  const auto* shapes = config.if_contains("chunk_shapes");
  if (shapes == nullptr || !shapes->is_array()) bad(where, "an array with an entry per dimension", shapes);
  const auto& list = shapes->as_array();
  m.rectilinear = true;
  m.chunk_shape.assign(list.size(), 0);
  m.chunk_edges.assign(list.size(), {});
  const auto positive = [](const json::value& v, const std::string& at) {
    const auto n = non_negative(v, at);
    if (n == 0) throw error(errc::invalid_metadata, at + ": expected a positive integer, got 0");
    return n;
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto at = where + "[" + std::to_string(i) + "]";
    if (!list[i].is_array()) {
      m.chunk_shape[i] = positive(list[i], at);
      continue;
    }
    auto& edges = m.chunk_edges[i];
    const auto& items = list[i].as_array();
    if (items.empty()) bad(at, "an integer or a non-empty array of edge lengths", &list[i]);
    for (std::size_t k = 0; k < items.size(); ++k) {
      const auto item_at = at + "[" + std::to_string(k) + "]";
      std::uint64_t value = 0, count = 1;
      if (const auto* run = items[k].if_array()) {
        if (run->size() != 2) bad(item_at, "an edge length or a run [edge length, count]", &items[k]);
        value = positive((*run)[0], item_at + "[0]");
        count = positive((*run)[1], item_at + "[1]");
      } else {
        value = positive(items[k], item_at);
      }
      if (count > max_listed_edges - edges.size())
        throw error(errc::unsupported, at + ": expected at most " + std::to_string(max_listed_edges) +
                                           " edge lengths, got more");
      edges.insert(edges.end(), static_cast<std::size_t>(count), value);
    }
  }
}

// The configuration as written: an integer where one was given, otherwise the edge lengths
// with every run of two or more equal ones as [value, count].
json::object rectilinear_configuration(const array_metadata& m) {
  json::array shapes;
  for (std::size_t i = 0; i < m.chunk_shape.size(); ++i) {
    if (m.chunk_edges[i].empty()) {
      shapes.push_back(m.chunk_shape[i]);
      continue;
    }
    json::array items;
    const auto& edges = m.chunk_edges[i];
    for (std::size_t k = 0; k < edges.size();) {
      std::size_t n = 1;
      while (k + n < edges.size() && edges[k + n] == edges[k]) ++n;
      if (n == 1) items.push_back(edges[k]);
      else items.push_back(json::array{edges[k], n});
      k += n;
    }
    shapes.push_back(std::move(items));
  }
  return {{"kind", "inline"}, {"chunk_shapes", std::move(shapes)}};
}

int expect_format(const json::object& o) {
  const auto& v = member(o, "zarr_format");
  if (v != json::value(3)) bad("zarr_format", "3", &v);
  return 3;
}

}  // namespace

// --- chunk key encoding ------------------------------------------------------------------

std::string chunk_key_encoding::key(std::span<const std::uint64_t> index) const {
  std::string out = encoding == kind::default_ ? "c" : "";
  if (index.empty()) return encoding == kind::default_ ? out : "0";
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (i > 0 || encoding == kind::default_) out += separator;
    out += std::to_string(index[i]);
  }
  return out;
}

json::value chunk_key_encoding::to_json() const {
  return json::object{{"name", encoding == kind::default_ ? "default" : "v2"},
                      {"configuration", {{"separator", std::string(1, separator)}}}};
}

chunk_key_encoding chunk_key_encoding::parse(const json::value& v, std::string_view where) {
  auto [name, configuration] = extension(v, where);
  chunk_key_encoding out;
  if (name == "default") {
    out = {kind::default_, '/'};
  } else if (name == "v2") {
    out = {kind::v2, '.'};
  } else {
    throw error(errc::unsupported, std::string(where) + ".name: expected \"default\" or \"v2\", got \"" + name + "\"");
  }
  const auto at = std::string(where) + ".configuration";
  only_keys(configuration, {"separator"}, at);
  if (const auto* s = configuration.if_contains("separator")) {
    if (*s == json::value("/")) out.separator = '/';
    else if (*s == json::value(".")) out.separator = '.';
    else bad(at + ".separator", "\"/\" or \".\"", s);
  }
  return out;
}

// --- arrays --------------------------------------------------------------------------------

namespace {

// The chain of a legacy structured array resolved for its first chunk (datatype-structured.md):
// its JSON, in which the bytes codec states its byte order (little-endian without `endian`;
// struct, as we write it, needs it: docs/decisions.md 57), and that byte order, in which a
// base64 fill value is packed.
std::pair<json::value, endian> resolve_legacy_structured(const array_metadata& m) {
  std::vector<std::uint64_t> shape;
  for (std::size_t i = 0; i < m.shape.size(); ++i)
    shape.push_back(i < m.chunk_edges.size() && !m.chunk_edges[i].empty() ? m.chunk_edges[i].front() : m.chunk_shape[i]);
  const codec_chain chain(m.codecs, chunk_spec{shape, m.type, default_sized_fill_value(m.type_spec()), m.layout, {}}, "codecs",
                          m.source);
  return {chain.to_json(), chain.array_to_bytes().byte_order().value_or(endian::little)};
}

}  // namespace

array_metadata array_metadata::parse(const json::value& v, std::string_view source) {
  const auto* o = v.if_object();
  if (o == nullptr) bad("zarr.json", "an object", &v);
  expect_format(*o);
  if (const auto& t = member(*o, "node_type"); t != json::value("array")) bad("node_type", "\"array\"", &t);
  array_metadata m;
  m.source = std::string(source);
  m.shape = integer_list(member(*o, "shape"), "shape");
  const auto spec = parse_data_type_spec(member(*o, "data_type"), "data_type");
  m.type = spec.type;
  m.time = spec.time;
  m.layout = spec.layout;

  auto [grid, grid_config] = extension(member(*o, "chunk_grid"), "chunk_grid");
  if (grid == "rectilinear") {
    parse_rectilinear(grid_config, m);
    check_grid(m, "chunk_grid.configuration.chunk_shapes");
  } else if (grid == "regular") {
    only_keys(grid_config, {"chunk_shape"}, "chunk_grid.configuration");
    const auto* cs = grid_config.if_contains("chunk_shape");
    if (cs == nullptr) bad("chunk_grid.configuration.chunk_shape", "an array of integers", nullptr);
    m.chunk_shape = integer_list(*cs, "chunk_grid.configuration.chunk_shape");
    check_grid(m, "chunk_grid.configuration.chunk_shape");
  } else {
    throw error(errc::unsupported, "chunk_grid.name: expected \"regular\" or \"rectilinear\", got \"" + grid + "\"");
  }

  m.key_encoding = chunk_key_encoding::parse(member(*o, "chunk_key_encoding"));
  m.codecs = member(*o, "codecs");
  if (!m.codecs.is_array() || m.codecs.as_array().empty()) bad("codecs", "a non-empty array of codecs", &m.codecs);
  const auto& fill = member(*o, "fill_value");
  const auto fill_text = source.empty() ? std::nullopt : json_source_text(source, "/fill_value");
  if (has_variable_elements(m.type, m.layout)) {
    m.fill_value = scalar{m.type, {}};
    m.fill_string = parse_variable_value(fill, m.type_spec(), "fill_value");
  } else if (is_sized(m.type)) {
    // A legacy structured base64 fill value is packed in the bytes codec's byte order
    // (datatype-structured.md); parse_sized_fill_value reads base64 as little-endian and checks
    // each field's value, so a big-endian one is turned little-endian first.
    json::value given = fill;
    auto order = endian::little;
    if (m.layout.legacy_structured) std::tie(m.codecs, order) = resolve_legacy_structured(m);
    if (order == endian::big && fill.is_string())
      if (auto packed = base64_decode(fill.as_string()); packed && packed->size() == m.layout.size) {
        for (const auto& w : element_words(m.type, m.layout))
          for (std::uint64_t k = 0; k < w.count && w.size > 1; ++k) {
            auto* p = packed->data() + w.offset + k * w.size;
            std::reverse(p, p + w.size);
          }
        given = json::string(base64_encode(*packed));
      }
    m.fill_value = parse_sized_fill_value(given, spec, "fill_value");
  } else {
    m.fill_value = fill_text ? parse_fill_value_text(*fill_text, m.type, "fill_value")
                             : parse_fill_value(fill, m.type, "fill_value");
  }
  for (const auto& [key, value] : *o) {
    if (key == "zarr_format" || key == "node_type" || key == "shape" || key == "data_type" || key == "chunk_grid" ||
        key == "chunk_key_encoding" || key == "fill_value" || key == "codecs")
      continue;
    if (key == "attributes") {
      if (!value.is_object()) bad("attributes", "an object", &value);
      m.attributes = value.as_object();
    } else if (key == "storage_transformers") {
      const auto* a = value.if_array();
      if (a == nullptr) bad("storage_transformers", "an array", &value);
      if (!a->empty())
        throw error(errc::unsupported, "storage_transformers: expected none (no storage transformer is supported), got " +
                                           json::serialize(value));
    } else if (key == "dimension_names") {
      if (value.is_null()) continue;  // as some writers spell "no names": absent, and never written
      const auto* a = value.if_array();
      if (a == nullptr) bad("dimension_names", "an array of strings or nulls", &value);
      if (a->size() != m.shape.size())
        throw error(errc::invalid_metadata, "dimension_names: expected " + std::to_string(m.shape.size()) +
                                                " names (the rank of shape), got " + std::to_string(a->size()));
      std::vector<std::optional<std::string>> names;
      for (std::size_t i = 0; i < a->size(); ++i) {
        const auto& n = (*a)[i];
        if (n.is_null()) names.emplace_back();
        else if (n.is_string()) names.emplace_back(std::string(n.as_string()));
        else bad("dimension_names[" + std::to_string(i) + "]", "a string or null", &n);
      }
      m.dimension_names = std::move(names);
    } else {
      unknown_member(m.extra, key, value);
    }
  }
  return m;
}

json::object array_metadata::to_json() const {
  json::array shape_json, chunks_json;
  for (auto d : shape) shape_json.push_back(d);
  for (auto d : chunk_shape) chunks_json.push_back(d);
  json::object grid{{"name", "regular"}, {"configuration", {{"chunk_shape", std::move(chunks_json)}}}};
  if (rectilinear) grid = {{"name", "rectilinear"}, {"configuration", rectilinear_configuration(*this)}};
  json::object o{
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", std::move(shape_json)},
      {"data_type", zarr::to_json(type_spec())},
      {"chunk_grid", std::move(grid)},
      {"chunk_key_encoding", key_encoding.to_json()},
      {"fill_value", has_variable_elements(type, layout) ? variable_value_to_json(fill_string, type_spec())
                     : is_sized(type)           ? sized_value_to_json(fill_value.bytes(), type_spec())
                                                : fill_value_to_json(fill_value)},
      {"codecs", codecs},
      {"attributes", attributes},
  };
  if (dimension_names) {
    json::array names;
    for (const auto& n : *dimension_names) names.push_back(n ? json::value(*n) : json::value(nullptr));
    o["dimension_names"] = std::move(names);
  }
  for (const auto& [key, value] : extra) o[key] = value;
  return o;
}

std::string array_metadata::to_text() const {
  if (zarr_format == 2) return zarray_text(*this);
  if (has_variable_elements(type, layout)) return serialize_metadata(to_json());
  const std::pair<std::string_view, std::string> fill{
      "fill_value", is_sized(type) ? sized_value_to_json_text(fill_value.bytes(), type_spec()) : fill_value_to_json_text(fill_value)};
  return serialize_metadata(to_json(), std::span(&fill, 1));
}

std::vector<grid_axis> array_metadata::grid() const {
  std::vector<grid_axis> g(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    g[i].step = chunk_shape[i];
    if (rectilinear)
      for (auto e : chunk_edges[i]) g[i].ends.push_back((g[i].ends.empty() ? 0 : g[i].ends.back()) + e);
  }
  return g;
}

std::vector<std::uint64_t> array_metadata::grid_shape() const {
  std::vector<std::uint64_t> g(shape.size());
  const auto axes = grid();
  for (std::size_t i = 0; i < shape.size(); ++i) g[i] = shape[i] == 0 ? 0 : axes[i].cell_of(shape[i] - 1) + 1;
  return g;
}

// --- groups --------------------------------------------------------------------------------

group_metadata group_metadata::parse(const json::value& v) {
  const auto* o = v.if_object();
  if (o == nullptr) bad("zarr.json", "an object", &v);
  expect_format(*o);
  if (const auto& t = member(*o, "node_type"); t != json::value("group")) bad("node_type", "\"group\"", &t);
  group_metadata g;
  for (const auto& [key, value] : *o) {
    if (key == "zarr_format" || key == "node_type") continue;
    if (key == "attributes") {
      if (!value.is_object()) bad("attributes", "an object", &value);
      g.attributes = value.as_object();
    } else if (key == "consolidated_metadata") {
      // Zarr v3 core spec "Additional fields": accepted on groups; we do not use it.
      if (!value.is_object() && !value.is_null()) bad("consolidated_metadata", "an object", &value);
      g.extra[key] = value;
    } else {
      unknown_member(g.extra, key, value);
    }
  }
  return g;
}

std::string group_metadata::to_text() const {
  if (zarr_format == 2) return serialize_v2_metadata(json::object{{"zarr_format", 2}});
  return serialize_metadata(to_json());
}

json::object group_metadata::to_json() const {
  json::object o{{"zarr_format", 3}, {"node_type", "group"}, {"attributes", attributes}};
  for (const auto& [key, value] : extra) o[key] = value;
  return o;
}

namespace {

// Builds a json::value like Boost.JSON's own parser, converting numbers with a fraction or
// an exponent with std::from_chars (correctly rounded) from their full text.
class exact_handler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  json::value_stack stack;
  std::string number;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) { return true; }
  bool on_object_end(std::size_t n, json::error_code&) { stack.push_object(n); return true; }
  bool on_array_begin(json::error_code&) { return true; }
  bool on_array_end(std::size_t n, json::error_code&) { stack.push_array(n); return true; }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) { stack.push_chars(s); return true; }
  bool on_key(json::string_view s, std::size_t, json::error_code&) { stack.push_key(s); return true; }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) { stack.push_chars(s); return true; }
  bool on_string(json::string_view s, std::size_t, json::error_code&) { stack.push_string(s); return true; }
  bool on_number_part(json::string_view s, json::error_code&) { number.append(s.data(), s.size()); return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code&) { number.clear(); stack.push_int64(i); return true; }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) { number.clear(); stack.push_uint64(u); return true; }
  bool on_double(double d, json::string_view s, json::error_code&) {
    number.append(s.data(), s.size());
    double exact = d;
    const auto [end, err] = std::from_chars(number.data(), number.data() + number.size(), exact);
    // Out of range: from_chars leaves `exact` alone; Boost.JSON's infinity or zero stays.
    if (err == std::errc::result_out_of_range) exact = d;
    (void)end;
    number.clear();
    stack.push_double(exact);
    return true;
  }
  bool on_bool(bool b, json::error_code&) { stack.push_bool(b); return true; }
  bool on_null(json::error_code&) { stack.push_null(); return true; }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

}  // namespace

json::value parse_json(std::string_view text, std::string_view what) {
  json::parse_options options;
  options.max_depth = 64;
  json::basic_parser<exact_handler> parser(options);
  parser.handler().stack.reset();
  json::error_code ec;
  const auto n = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && n < text.size()) ec = json::error::extra_data;
  if (ec)
    throw error(errc::invalid_metadata, std::string(what) + ": expected a JSON document, got a parse error (" + ec.message() + ")");
  return parser.handler().stack.release();
}

node_metadata parse_node_metadata(std::string_view text) {
  const auto v = parse_json(text, "zarr.json");
  const auto* o = v.if_object();
  if (o == nullptr) bad("zarr.json", "an object", &v);
  const auto* t = o->if_contains("node_type");
  if (t != nullptr && *t == json::value("group")) return group_metadata::parse(v);
  if (t != nullptr && *t == json::value("array")) return array_metadata::parse(v, text);
  bad("node_type", "\"array\" or \"group\"", t);
}

std::string serialize_metadata(const json::object& document,
                               std::span<const std::pair<std::string_view, std::string>> raw_members) {
  // Indented two spaces per level, one member per line: readable, and stable for diffs.
  std::string out;
  const auto scalar_text = [](const json::value& v) {
    if (const auto* d = v.if_double(); d && std::isfinite(*d)) {
      char buffer[32];
      const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, *d);
      std::string text(buffer, end);
      // keep it a JSON number with a fraction or exponent, as it was a double
      if (text.find_first_of(".e") == std::string::npos) text += ".0";
      return text;
    }
    // A number beyond the range of a double (an attribute 1e400) was read as an infinity: a
    // JSON number that reads back as the same infinity keeps the text valid JSON.
    if (const auto* d = v.if_double(); d && std::isinf(*d)) return std::string(*d < 0 ? "-1e999" : "1e999");
    return json::serialize(v);
  };
  const auto write = [&](auto&& self, const json::value& v, int depth) -> void {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    if (const auto* o = v.if_object(); o && !o->empty()) {
      out += "{\n";
      bool first = true;
      for (const auto& [key, value] : *o) {
        if (!first) out += ",\n";
        first = false;
        out += pad + "  " + json::serialize(json::string(key)) + ": ";
        const auto raw = depth == 0 ? std::find_if(raw_members.begin(), raw_members.end(),
                                                   [&](const auto& m) { return m.first == std::string_view(key); })
                                    : raw_members.end();
        if (raw != raw_members.end()) out += raw->second;
        else self(self, value, depth + 1);
      }
      out += "\n" + pad + "}";
    } else if (const auto* a = v.if_array(); a && !a->empty() &&
                                               std::any_of(a->begin(), a->end(), [](const json::value& e) { return e.is_structured(); })) {
      out += "[\n";
      for (std::size_t i = 0; i < a->size(); ++i) {
        out += pad + "  ";
        self(self, (*a)[i], depth + 1);
        out += i + 1 < a->size() ? ",\n" : "\n";
      }
      out += pad + "]";
    } else if (const auto* a = v.if_array()) {
      out += "[";
      for (std::size_t i = 0; i < a->size(); ++i) {
        if (i) out += ", ";
        self(self, (*a)[i], depth + 1);
      }
      out += "]";
    } else if (v.is_object()) {
      out += "{}";
    } else {
      out += scalar_text(v);
    }
  };
  write(write, document, 0);
  out += "\n";
  return out;
}

// --- node names ------------------------------------------------------------------------------

void validate_node_name(std::string_view name) {
  const auto bad_name = [&](std::string_view why) {
    throw error(errc::invalid_key, "node name \"" + std::string(name) + "\": expected a name " + std::string(why));
  };
  if (name.empty()) bad_name("that is not empty");
  if (name.find('/') != std::string_view::npos) bad_name("without '/'");
  if (name.find_first_not_of('.') == std::string_view::npos) bad_name("that is not only periods");
  if (name.starts_with("__")) bad_name("that does not start with \"__\"");
  if (name == "zarr.json") bad_name("other than \"zarr.json\"");
  if (name.find('\0') != std::string_view::npos || name.find('\\') != std::string_view::npos)
    bad_name("without NUL or backslash");
}

void validate_node_path(std::string_view path) {
  if (path.empty()) return;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto end = std::min(path.find('/', start), path.size());
    validate_node_name(path.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace zarr
