// zarr3 info, tree and verify: looking at what is stored.
#include <boost/json.hpp>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>
#include <variant>
#include "cli.hpp"

namespace zarr_cli {

namespace json = boost::json;

namespace {

std::string join_path(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "/" + name;
}

struct storage_summary {
  std::uint64_t chunks_total = 1;
  std::uint64_t chunks_stored = 0;
  std::uint64_t stored_bytes = 0;
  std::uint64_t decoded_bytes = 0;  // of the stored chunks, decoded
  bool listed = true;               // false: the store cannot list (HTTP), the counts are unknown
};

storage_summary summarize(const zarr::array& a) {
  storage_summary s;
  for (const auto n : a.metadata().grid_shape()) s.chunks_total *= n;
  const auto grid = a.metadata().grid();
  try {
    a.for_each_chunk([&](std::span<const std::uint64_t> index, const zarr::region&) {
      ++s.chunks_stored;
      s.stored_bytes += a.storage().size(a.chunk_key(index)).value_or(0);
      std::uint64_t chunk_bytes = a.metadata().element_size();  // each chunk its own shape (rectilinear)
      for (const auto n : chunk_shape_at(grid, index)) chunk_bytes *= n;
      s.decoded_bytes += chunk_bytes;
    });
  } catch (const zarr::error& e) {
    if (e.code() != zarr::errc::unsupported) throw;
    s.chunks_stored = s.stored_bytes = s.decoded_bytes = 0;
    s.listed = false;
  }
  return s;
}

std::string ratio_text(const storage_summary& s) {
  if (s.stored_bytes == 0 || s.decoded_bytes == 0) return "-";  // 0: string and bytes, of no fixed size
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << static_cast<double>(s.decoded_bytes) / static_cast<double>(s.stored_bytes);
  return os.str();
}

std::string key_encoding_text(const zarr::chunk_key_encoding& k) {
  return std::string(k.encoding == zarr::chunk_key_encoding::kind::default_ ? "default" : "v2") + ", separator \"" +
         std::string(1, k.separator) + "\"";
}

// The fill value's exact JSON text; null for a Zarr v2 array without one.
std::string fill_value_text(const zarr::array_metadata& m) {
  if (m.no_fill_value) return "null";
  if (zarr::has_variable_elements(m.type, m.layout)) return json::serialize(zarr::variable_value_to_json(m.fill_string, m.type_spec()));
  if (zarr::is_sized(m.type)) return zarr::sized_value_to_json_text(m.fill_value.bytes(), m.type_spec());
  return zarr::fill_value_to_json_text(m.fill_value);
}

// What a chunk never written reads as when the array has no fill value (Zarr v2 null).
std::string missing_chunks_text(const zarr::array_metadata& m) {
  if (!m.no_fill_value) return "";
  if (strict_fill_value()) return " (missing chunks are refused: --strict-fill-value)";
  return zarr::is_variable_length(m.type) || m.type == zarr::data_type::fixed_length_utf32
             ? " (missing chunks read as \"\", the type's zero; --strict-fill-value refuses them)"
             : " (missing chunks read as the type's zero; --strict-fill-value refuses them)";
}

void print_array_info(const location& where, const zarr::array& a, bool as_json) {
  const auto& m = a.metadata();
  const auto s = summarize(a);
  const auto codecs = a.codecs().to_json();
  if (as_json) {
    json::object o;
    o["path"] = "/" + where.node;
    o["zarr_format"] = m.zarr_format;
    o["node_type"] = "array";
    o["data_type"] = zarr::to_json(zarr::data_type_spec{a.type(), a.metadata().time});
    o["shape"] = json::value_from(m.shape);
    // A rectilinear grid has no one chunk shape: its configuration instead.
    o["chunk_shape"] = m.rectilinear ? json::value(nullptr) : json::value_from(m.chunk_shape);
    if (m.rectilinear) o["chunk_grid"] = m.to_json().at("chunk_grid");
    o["grid_shape"] = json::value_from(m.grid_shape());
    o["chunk_key_encoding"] = m.key_encoding.to_json();
    o["fill_value"] = nullptr;  // replaced by its exact text below
    if (m.no_fill_value) o["missing_chunks_read_as"] = strict_fill_value() ? json::value(nullptr) : json::value("zero");
    o["codecs"] = codecs;
    if (m.dimension_names) {
      json::array names;
      for (const auto& n : *m.dimension_names) names.push_back(n ? json::value(*n) : json::value(nullptr));
      o["dimension_names"] = std::move(names);
    }
    o["attributes"] = m.attributes;
    o["chunks_total"] = s.chunks_total;
    const auto known = [&](std::uint64_t v) { return s.listed ? json::value(v) : json::value(nullptr); };
    o["chunks_stored"] = known(s.chunks_stored);
    o["stored_bytes"] = known(s.stored_bytes);
    o["decoded_bytes"] = known(s.decoded_bytes);
    o["compression_ratio"] = s.stored_bytes == 0 ? json::value(nullptr)
                                                 : json::value(static_cast<double>(s.decoded_bytes) / static_cast<double>(s.stored_bytes));
    const std::pair<std::string_view, std::string> raw[] = {{"fill_value", fill_value_text(m)}};
    std::cout << zarr::serialize_metadata(o, raw) << "\n";
    return;
  }
  std::cout << "array " << where.display() << "\n"
            << "  format           Zarr v" << m.zarr_format
            << (m.zarr_format == 2 ? std::string(" (.zarray: dtype \"") +
                                         (zarr::is_sized(m.type) ? json::serialize(zarr::v2_sized_dtype(m.type_spec(), m.v2.byte_order))
                                                                 : *zarr::numpy_dtype_string(m.type, m.v2.byte_order, m.time)) +
                                         "\", order \"" + m.v2.order + "\")"
                                   : std::string())
            << "\n"
            << "  data type        " << (zarr::is_sized(a.type()) ? json::serialize(zarr::to_json(m.type_spec())) : std::string(zarr::name(a.type())))
            << (zarr::is_time(a.type()) ? " " + zarr::resolution_text(a.metadata().time) : std::string()) << "\n"
            << "  shape            " << shape_text(m.shape) << "\n"
            << (m.rectilinear ? "  chunk grid       " : "  chunk shape      ") << chunk_grid_text(m) << " (grid " << shape_text(m.grid_shape()) << ", "
            << s.chunks_total << " chunks)\n"
            << "  chunk keys       " << key_encoding_text(m.key_encoding) << "\n"
            << "  fill value       " << fill_value_text(m) << missing_chunks_text(m) << "\n";
  bool first = true;
  for (const auto& c : codecs.as_array()) {
    const auto* config = c.as_object().if_contains("configuration");
    std::cout << (first ? "  codecs           " : "                   ") << c.at("name").as_string().c_str()
              << (config ? " " + json::serialize(*config) : std::string()) << "\n";
    first = false;
  }
  if (m.dimension_names) {
    std::cout << "  dimension names  ";
    for (std::size_t i = 0; i < m.dimension_names->size(); ++i)
      std::cout << (i ? ", " : "") << ((*m.dimension_names)[i] ? *(*m.dimension_names)[i] : std::string("(none)"));
    std::cout << "\n";
  }
  std::cout << "  attributes       " << json::serialize(m.attributes) << "\n";
  if (!s.listed) {
    std::cout << "  stored chunks    unknown (the store cannot list its keys)\n";
    return;
  }
  std::cout << "  stored chunks    " << s.chunks_stored << " of " << s.chunks_total << "\n"
            << "  stored bytes     " << s.stored_bytes << "\n"
            << "  decoded bytes    " << s.decoded_bytes << " (the stored chunks, decoded)\n"
            << "  compression      " << ratio_text(s) << "\n";
}

}  // namespace

// -------------------------------------------------------------------------------- info

int run_info(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("info", argv, {{}, {"--json"}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto store = open_store_for_reading(where);
  const auto node = zarr::read_node_metadata(*store, where.node);
  if (std::holds_alternative<zarr::array_metadata>(node)) {
    print_array_info(where, zarr::array::open(store, where.node, array_open_options()), args.has("--json"));
    return exit_ok;
  }
  const auto g = zarr::group::open(store, where.node);
  const auto children = g.children();
  if (args.has("--json")) {
    json::object o;
    o["path"] = "/" + where.node;
    o["node_type"] = "group";
    o["attributes"] = g.metadata().attributes;
    o["children"] = json::value_from(children);
    std::cout << zarr::serialize_metadata(o) << "\n";
    return exit_ok;
  }
  std::cout << "group " << where.display() << "\n"
            << "  attributes       " << json::serialize(g.metadata().attributes) << "\n"
            << "  children         " << children.size() << "\n";
  for (const auto& c : children) std::cout << "    " << c << "\n";
  return exit_ok;
}

// -------------------------------------------------------------------------------- tree

namespace {

// One line per node: "name  array float32 [10, 20] chunks [5, 5]" or "name  group".
std::string node_line(const zarr::store& s, const std::string& path, bool& bad) {
  try {
    const auto node = zarr::read_node_metadata(s, path);
    if (const auto* m = std::get_if<zarr::array_metadata>(&node)) {
      const auto type = zarr::is_sized(m->type) ? zarr::sized_type_name(m->type_spec()) : std::string(zarr::name(m->type));
      return "array " + type + " " + shape_text(m->shape) + " chunks " + chunk_grid_text(*m);
    }
    return "group";
  } catch (const zarr::error& e) {
    bad = true;
    return std::string("(invalid: ") + e.what() + ")";
  }
}

void print_children(const std::shared_ptr<zarr::store>& s, const std::string& path, const std::string& indent,
                    bool& bad) {
  std::vector<std::string> children;
  try {
    children = zarr::group::open(s, path).children();
  } catch (const zarr::error& e) {
    if (e.code() == zarr::errc::unsupported) throw;  // a store that cannot list (HTTP)
    return;  // an array, or a node already reported as invalid
  }
  for (std::size_t i = 0; i < children.size(); ++i) {
    const bool last = i + 1 == children.size();
    const auto child = join_path(path, children[i]);
    std::cout << indent << (last ? "└── " : "├── ") << children[i] << "  " << node_line(*s, child, bad) << "\n";
    print_children(s, child, indent + (last ? "    " : "│   "), bad);
  }
}

}  // namespace

int run_tree(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("tree", argv, {{}, {}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto store = open_store_for_reading(where);
  static_cast<void>(zarr::read_node_metadata(*store, where.node));  // the node itself must be valid
  bool bad = false;
  std::cout << where.display() << "  " << node_line(*store, where.node, bad) << "\n";
  print_children(store, where.node, "", bad);
  if (bad) throw zarr::error(zarr::errc::invalid_metadata, "some nodes have invalid metadata (marked above)");
  return exit_ok;
}

// ------------------------------------------------------------------------- consolidate

int run_consolidate(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("consolidate", argv, {{}, {}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto store = open_store(where, false);
  const auto nodes = zarr::consolidate_metadata(store, where.node);
  const auto g = zarr::group::open(store, where.node);
  std::cout << "consolidated the metadata of " << nodes << " nodes below " << where.display() << " into "
            << zarr::node_prefix(where.node) << (g.metadata().zarr_format == 2 ? ".zmetadata" : "zarr.json (consolidated_metadata)")
            << "\n";
  return exit_ok;
}

// ------------------------------------------------------------------------------ verify

int run_verify(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("verify", argv, {{}, {}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto store = open_store(where, false);
  static_cast<void>(zarr::read_node_metadata(*store, where.node));

  // Collect the arrays and their stored chunks first, so that progress can be shown.
  std::vector<std::string> problems;
  std::vector<std::pair<zarr::array, std::vector<std::string>>> arrays;
  std::uint64_t total = 0;
  const auto visit = [&](auto&& self, const std::string& path) -> void {
    const auto shown = location{where.root, path}.display();
    std::optional<zarr::node_metadata> node;
    try {
      node = zarr::read_node_metadata(*store, path);
      if (std::holds_alternative<zarr::array_metadata>(*node)) {
        auto a = zarr::array::open(store, path, array_open_options());
        auto keys = stored_chunk_keys(a);
        total += keys.size();
        arrays.emplace_back(std::move(a), std::move(keys));
        return;
      }
    } catch (const std::exception& e) {
      problems.push_back(shown + ": " + e.what());
      return;
    }
    for (const auto& child : zarr::group::open(store, path).children()) self(self, join_path(path, child));
  };
  visit(visit, where.node);

  progress bar("verify", total);
  std::uint64_t checked = 0;
  for (const auto& [a, keys] : arrays) {
    // Each chunk decoded by the chain of its own shape (a rectilinear grid's chunks differ).
    const auto grid = a.metadata().grid();
    std::map<std::vector<std::uint64_t>, zarr::codec_chain> chains;
    const auto& meta = a.metadata();
    for (const auto& key : keys) {
      try {
        const auto stored = store->get(key);
        if (!stored) throw zarr::error(zarr::errc::not_found, "listed but cannot be read");
        const auto shape = chunk_shape_at(grid, a.chunk_index_of(key).value());
        const zarr::codec_chain* chain = &a.codecs();
        if (meta.rectilinear) {
          auto it = chains.find(shape);
          if (it == chains.end())
            it = chains.try_emplace(shape, meta.codecs, zarr::chunk_spec{shape, meta.type, meta.fill_value, meta.layout}, "codecs",
                                    meta.source).first;
          chain = &it->second;
        }
        if (zarr::has_variable_elements(a.type(), meta.layout)) {  // string, bytes (optional too): every element, checked
          std::vector<std::string> elements(static_cast<std::size_t>(chain->decoded().num_elements()));
          chain->decode_elements(*stored, elements);
          ++checked;
          bar.advance();
          continue;
        }
        std::uint64_t chunk_bytes = meta.element_size();
        for (const auto n : shape) chunk_bytes *= n;
        const auto decoded = chain->decode(*stored);
        if (decoded.size() != chunk_bytes)
          throw zarr::error(zarr::errc::corrupt_chunk, "expected " + std::to_string(chunk_bytes) + " decoded bytes, got " +
                                                           std::to_string(decoded.size()));
      } catch (const std::exception& e) {
        problems.push_back(location{where.root, a.path()}.display() + ", chunk \"" + key + "\": " + e.what());
      }
      ++checked;
      bar.advance();
    }
  }
  for (const auto& p : problems) std::cout << "BAD " << p << "\n";
  std::cout << "checked " << checked << " chunks in " << arrays.size() << " arrays: " << problems.size() << " bad\n";
  if (!problems.empty())
    throw zarr::error(zarr::errc::corrupt_chunk, std::to_string(problems.size()) + " bad chunk" +
                                                     (problems.size() == 1 ? "" : "s") + " or nodes (listed on stdout)");
  return exit_ok;
}

}  // namespace zarr_cli
