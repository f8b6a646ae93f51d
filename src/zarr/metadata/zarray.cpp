// zarr.metadata: the Zarr v2 documents of a node (Zarr storage specification version 2,
// "Metadata": .zarray, .zgroup, .zattrs), parsed into and written from the same metadata types
// as zarr.json. The codecs of a .zarray and the way back from a Zarr v3 chain are
// zarr.metadata.v2's (metadata/v2.cpp).
module;
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <boost/json.hpp>
module zarr.metadata;

import zarr.fill_value;
import zarr.sized;
import zarr.text;

namespace zarr {
namespace json = boost::json;

namespace {

// Runs f, naming the Zarr v2 document `file` in any error it throws.
template <class F>
auto in_v2_file(std::string_view file, F&& f) {
  try {
    return f();
  } catch (const error& e) {
    throw error(e.code(), std::string(file) + ": " + e.what());
  }
}

const json::object& v2_object(const json::value& v, int format) {
  const auto* o = v.if_object();
  if (o == nullptr) bad("document", "an object", &v);
  if (format != 0) {
    const auto& f = member(*o, "zarr_format");
    if (f != json::value(format)) bad("zarr_format", std::to_string(format), &f);
  }
  return *o;
}

// `filters` or `compressor`: null, or numcodecs configurations with a string "id".
void check_numcodecs(const json::value& v, const std::string& where) {
  const auto* o = v.if_object();
  const auto* id = o ? o->if_contains("id") : nullptr;
  if (id == nullptr || !id->is_string()) bad(where, "a numcodecs configuration {\"id\": \"<codec>\", ...}", &v);
}

}  // namespace

json::object parse_zattrs(std::string_view text) {
  return in_v2_file(zattrs_key, [&] {
    const auto v = parse_json(text, "document");
    if (!v.is_object()) bad("document", "an object of attributes", &v);
    return v.as_object();
  });
}

namespace {

// NumPy's object type "|O" holds what its first filter says (numcodecs' "object codec"): vlen-utf8
// strings or vlen-bytes byte strings, categorize's, pickle's, json2's or msgpack2's strings
// (docs/decisions.md 62, 73, 74, 75); nothing for any other.
std::optional<numpy_dtype> object_dtype(const json::value& filters) {
  const auto* a = filters.if_array();
  const auto* first = a != nullptr && !a->empty() ? a->front().if_object() : nullptr;
  const auto* id = first != nullptr ? first->if_contains("id") : nullptr;
  if (id != nullptr && (*id == "vlen-utf8" || *id == "categorize" || *id == "pickle" || *id == "json2" ||
                        *id == "msgpack2")) return numpy_dtype{data_type::string, '|', {}};
  if (id != nullptr && *id == "vlen-bytes") return numpy_dtype{data_type::bytes, '|', {}};
  return std::nullopt;
}

// The fill value of an object array (docs/decisions.md 61): a string for strings; 0, which
// zarr-python 2 writes for object arrays when none is given, is the empty string or byte string.
std::string v2_object_fill_value(const json::value& fill, data_type type) {
  if (fill == json::value(0)) return {};
  if (type == data_type::string && fill.is_string()) return std::string(fill.as_string());
  throw error(errc::invalid_value, type == data_type::string
                                       ? "fill_value: expected null, 0 or a string for vlen-utf8 strings, got " + json::serialize(fill)
                                       : "fill_value: expected null or 0 for vlen-bytes byte strings, got " + json::serialize(fill));
}

}  // namespace

// Zarr storage specification version 2, "Metadata": every key required but
// dimension_separator; other keys are ignored ("SHOULD be ignored by implementations").
array_metadata array_metadata::parse_v2(std::string_view text, json::object attributes) {
  return in_v2_file(zarray_key, [&] {
    const auto v = parse_json(text, "document");
    const auto& o = v2_object(v, 2);
    array_metadata m;
    m.zarr_format = 2;
    m.source = std::string(text);
    m.attributes = std::move(attributes);
    m.shape = integer_list(member(o, "shape"), "shape");
    m.chunk_shape = integer_list(member(o, "chunks"), "chunks");
    const auto& dtype = member(o, "dtype");
    // "<U12", "|V8" and structured dtypes: fixed_length_utf32, raw bits, struct (zarr.sized).
    char sized_order = '|';
    const auto sized = parse_v2_sized_dtype(dtype, sized_order, "dtype");
    if (sized) {
      m.type = sized->type;
      m.layout = sized->layout;
      m.v2.byte_order = sized_order;
    } else if (!dtype.is_string())
      throw error(errc::unsupported, "dtype: expected a NumPy type string or a structured dtype (a list of fields), got " +
                                         json::serialize(dtype));
    if (!sized) {
      auto t = parse_numpy_dtype(dtype.as_string());
      if (!t && dtype.as_string() == "|O") t = object_dtype(member(o, "filters"));
      if (!t)
        throw error(errc::unsupported, "dtype: expected a supported NumPy type string (\"<i4\", \">f8\", \"|u1\", \"|b1\", "
                                       "\"<c16\", \"<U8\", \"|V4\", ...) or a structured dtype, got " + json::serialize(dtype));
      m.type = t->type;
      m.time = t->time;
      m.v2.byte_order = t->byte_order;
    }
    check_grid(m, "chunks");
    const auto& fill = member(o, "fill_value");
    if (fill.is_null()) {
      m.no_fill_value = true;
      m.fill_value = is_sized(m.type) ? default_sized_fill_value(m.type_spec()) : default_fill_value(m.type);
    } else if (is_sized(m.type)) {
      m.fill_value = parse_v2_sized_fill_value(fill, m.type_spec(), m.v2.byte_order, "fill_value");
    } else if (is_variable_length(m.type)) {
      m.fill_value = scalar{m.type, {}};
      m.fill_string = v2_object_fill_value(fill, m.type);
    } else {
      const auto fill_text = json_source_text(text, "/fill_value");
      m.fill_value = fill_text ? parse_fill_value_text(*fill_text, m.type, "fill_value")
                               : parse_fill_value(fill, m.type, "fill_value");
    }
    const auto& order = member(o, "order");
    if (order != json::value("C") && order != json::value("F")) bad("order", "\"C\" or \"F\"", &order);
    m.v2.order = order.as_string()[0];
    m.v2.compressor = member(o, "compressor");
    if (!m.v2.compressor.is_null()) check_numcodecs(m.v2.compressor, "compressor");
    const auto& filters = member(o, "filters");
    if (!filters.is_null()) {
      const auto* a = filters.if_array();
      if (a == nullptr) bad("filters", "null or an array of numcodecs configurations", &filters);
      for (std::size_t i = 0; i < a->size(); ++i) check_numcodecs((*a)[i], "filters[" + std::to_string(i) + "]");
      if (!a->empty()) m.v2.filters = filters;
    }
    m.key_encoding = {chunk_key_encoding::kind::v2, '.'};
    if (const auto* sep = o.if_contains("dimension_separator")) {
      if (*sep == json::value("/")) m.key_encoding.separator = '/';
      else if (*sep != json::value(".")) bad("dimension_separator", "\".\" or \"/\"", sep);
    }
    return m;
  });
}

namespace {

// The way back (docs/decisions.md 61): an empty byte string is written as 0, what zarr-python 2
// writes itself; Zarr v2 has no form for another byte string.
std::string v2_object_fill_value_text(const array_metadata& m) {
  if (m.type == data_type::string) return json::serialize(json::value(m.fill_string));
  if (m.fill_string.empty()) return "0";
  throw error(errc::unsupported, ".zarray: fill_value: expected an empty byte string (Zarr v2 has no form for another "
                                 "bytes fill value), got " + std::to_string(m.fill_string.size()) + " bytes");
}

// `json` (serialized JSON, valid UTF-8) with every character past ASCII written as a \u escape
// (two, a surrogate pair, past U+FFFF): zarr-python 2 reads .zarray as ASCII, as Python's
// json.dumps writes it. Such characters can only be inside strings, where the escape means the same.
std::string ascii_json(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size();) {
    if (static_cast<unsigned char>(json[i]) < 0x80) out += json[i++];
    else append_json_escape(out, next_code_point(json, i));
  }
  return out;
}


}  // namespace

std::string zarray_text(const array_metadata& m) {
  std::optional<json::value> dtype;  // a type string, or the fields of a structured dtype
  if (is_sized(m.type)) dtype = v2_sized_dtype(m.type_spec(), m.v2.byte_order);
  else if (const auto s = numpy_dtype_string(m.type, m.v2.byte_order == '>' ? '>' : '<', m.time)) dtype = json::string(*s);
  if (!dtype)
    throw error(errc::unsupported, ".zarray: dtype: expected a data type that Zarr v2 (NumPy) has, got " +
                                       std::string(name(m.type)));
  if (m.v2.order != 'C' && m.v2.order != 'F')
    throw error(errc::invalid_metadata, ".zarray: order: expected 'C' or 'F', got '" + std::string(1, m.v2.order) + "'");
  if (m.rectilinear)
    throw error(errc::unsupported, ".zarray: chunks: expected a regular chunk grid (Zarr v2 has no other), got a rectilinear one");
  json::array shape, chunks;
  for (auto d : m.shape) shape.push_back(d);
  for (auto d : m.chunk_shape) chunks.push_back(d);
  const json::object o{
      {"chunks", std::move(chunks)},
      {"compressor", m.v2.compressor},
      {"dimension_separator", std::string(1, m.key_encoding.separator)},
      {"dtype", *dtype},
      {"fill_value", nullptr},
      {"filters", m.v2.filters},
      {"order", std::string(1, m.v2.order)},
      {"shape", std::move(shape)},
      {"zarr_format", 2},
  };
  const std::pair<std::string_view, std::string> fill{
      "fill_value", m.no_fill_value                ? std::string("null")
                    : is_variable_length(m.type) ? v2_object_fill_value_text(m)
                    : is_sized(m.type)           ? v2_sized_fill_value_text(m.fill_value, m.type_spec(), m.v2.byte_order)
                    : is_time(m.type) ? std::to_string(m.fill_value.as<std::int64_t>())  // zarr-python 2 writes NaT so
                                      : fill_value_to_json_text(m.fill_value)};
  return serialize_v2_metadata(o, std::span(&fill, 1));
}

std::string serialize_v2_metadata(const json::object& document,
                                  std::span<const std::pair<std::string_view, std::string>> raw_members) {
  return ascii_json(serialize_metadata(document, raw_members));
}

group_metadata group_metadata::parse_v2(std::string_view text, json::object attributes) {
  return in_v2_file(zgroup_key, [&] {
    const auto v = parse_json(text, "document");
    const auto& o = v2_object(v, 2);
    // "Other keys MUST NOT be present within the metadata object."
    for (const auto& [key, value] : o)
      if (key != "zarr_format") throw error(errc::invalid_metadata, std::string(key) + ": expected no such key");
    group_metadata g;
    g.zarr_format = 2;
    g.attributes = std::move(attributes);
    return g;
  });
}

}  // namespace zarr
