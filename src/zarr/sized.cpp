// zarr.sized: raw bits, fixed_length_utf32, struct (structured) and optional: parsing their
// configuration, their values as JSON, UTF-32 text (Zarr v3 core spec "Data types" and "Permitted
// fill values"; datatype-r.md, datatype-fixed_length_utf32.md, datatype-struct.md,
// datatype-structured.md, datatype-optional.md "Configuration parameters" and "Permitted fill
// values"; docs/decisions.md 55-59, 71).
module;
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json.hpp>
module zarr.sized;

import zarr.fill_value;
import zarr.text;

namespace zarr {
namespace json = boost::json;

namespace {

std::string shown(const json::value& v) {
  auto s = json::serialize(v);
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}
std::string shown(const json::value* v) { return v ? shown(*v) : std::string("nothing"); }

[[noreturn]] void bad_metadata(const std::string& where, std::string_view expected, const json::value* got) {
  throw error(errc::invalid_metadata, where + ": expected " + std::string(expected) + ", got " + shown(got));
}
[[noreturn]] void bad_value(const std::string& where, std::string_view expected, const std::string& got) {
  throw error(errc::invalid_value, where + ": expected " + std::string(expected) + ", got " + got);
}

bool is_raw_name(std::string_view name) noexcept {
  return name.size() >= 2 && name[0] == 'r' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "r<N>": N a positive multiple of 8 (Zarr v3 core spec "Data types"), written without leading zeros.
data_type_spec parse_raw(std::string_view name, const std::string& where) {
  const std::string expected = "r followed by a positive multiple of 8 up to " + std::to_string(8 * max_element_size) +
                               " (no leading zero)";
  std::uint64_t bits = 0;
  const auto digits = name.substr(1);
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
  if (r.ec != std::errc{} || r.ptr != digits.data() + digits.size() || digits[0] == '0' || bits == 0 || bits % 8 != 0 ||
      bits / 8 > max_element_size)
    throw error(errc::invalid_metadata, where + ": expected " + expected + ", got \"" + std::string(name) + "\"");
  data_type_spec spec;
  spec.type = data_type::raw_bits;
  spec.layout.size = bits / 8;
  return spec;
}

// The configuration object of a sized type, with only the keys `allowed`.
const json::object* configuration_of(const json::object& o, const std::string& where, std::initializer_list<std::string_view> allowed,
                                     bool required) {
  const auto* config = o.if_contains("configuration");
  if (config == nullptr) {
    if (required) bad_metadata(where + ".configuration", "an object", nullptr);
    return nullptr;
  }
  const auto* c = config->if_object();
  if (c == nullptr) bad_metadata(where + ".configuration", "an object", config);
  for (const auto& [key, value] : *c)
    if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end()) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      throw error(errc::invalid_metadata, where + ".configuration: expected " + (list.empty() ? "no keys" : "only " + list) +
                                              ", got \"" + std::string(key) + "\"");
    }
  return c;
}

data_type_spec parse_spec(const json::value& v, const std::string& where, int depth);

// Appends a field after the others, at `offset`, which moves past it; the struct may not grow
// past max_element_size bytes (an error naming `where`).
void append_field(std::vector<struct_field>& fields, std::string name, data_type_spec spec, std::uint64_t& offset,
                  const std::string& where) {
  const auto size = spec.element_size();
  if (size > max_element_size - offset)
    throw error(errc::invalid_metadata, where + ": expected a struct of at most " + std::to_string(max_element_size) +
                                            " bytes, got more");
  fields.push_back({std::move(name), std::move(spec), offset});
  offset += size;
}

// The struct of `fields`, `size` bytes.
data_type_spec struct_spec(std::shared_ptr<std::vector<struct_field>> fields, std::uint64_t size, bool legacy) {
  data_type_spec spec;
  spec.type = data_type::struct_;
  spec.layout.size = size;
  spec.layout.fields = std::move(fields);
  spec.layout.legacy_structured = legacy;
  return spec;
}

data_type_spec parse_struct(const json::object* config, const std::string& where, int depth, bool legacy) {
  if (depth >= max_struct_depth)
    throw error(errc::invalid_metadata, where + ": expected structs nested at most " + std::to_string(max_struct_depth) +
                                            " deep, got deeper");
  const auto at = where + ".configuration.fields";
  const auto* fields = config ? config->if_contains("fields") : nullptr;
  const auto* list = fields ? fields->if_array() : nullptr;
  if (list == nullptr || list->empty()) bad_metadata(at, "a non-empty array of fields", fields);
  auto out = std::make_shared<std::vector<struct_field>>();
  out->reserve(std::min<std::size_t>(list->size(), 4096));
  std::set<std::string, std::less<>> names;
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto here = at + "[" + std::to_string(i) + "]";
    const auto& item = (*list)[i];
    const json::value* name = nullptr;
    const json::value* type = nullptr;
    if (const auto* o = item.if_object()) {
      name = o->if_contains("name");
      type = o->if_contains("data_type");
      for (const auto& [key, value] : *o)
        if (key != "name" && key != "data_type")
          throw error(errc::invalid_metadata, here + ": expected only name and data_type, got \"" + std::string(key) + "\"");
    } else if (const auto* a = item.if_array(); legacy && a != nullptr && a->size() == 2) {
      name = &(*a)[0];  // the legacy tuple form [name, data_type] (datatype-structured.md)
      type = &(*a)[1];
    } else {
      bad_metadata(here, legacy ? "{\"name\": ..., \"data_type\": ...} or [name, data_type]" : "{\"name\": ..., \"data_type\": ...}",
                   &item);
    }
    if (name == nullptr || !name->is_string() || name->as_string().empty())
      bad_metadata(here + ".name", "a non-empty string", name);
    const std::string field_name(name->as_string());
    if (!names.insert(field_name).second)
      throw error(errc::invalid_metadata, here + ".name: expected a name no other field of the struct has, got \"" +
                                              field_name + "\"");
    if (type == nullptr) bad_metadata(here + ".data_type", "a data type", nullptr);
    auto spec = parse_spec(*type, here + ".data_type", depth + 1);
    if (is_variable_length(spec.type))
      throw error(errc::invalid_metadata, here + ".data_type: expected a data type of fixed size, got " +
                                              std::string(zarr::name(spec.type)));
    if (spec.type == data_type::optional)  // the bytes codec has no encoding of one (docs/decisions.md 71)
      throw error(errc::unsupported, here + ".data_type: expected a data type the bytes codec encodes, got " +
                                         sized_type_name(spec));
    append_field(*out, field_name, std::move(spec), offset, here + ".data_type");
  }
  return struct_spec(std::move(out), offset, legacy);
}

// {"name": "optional", "configuration": <the wrapped type's own form>}: the configuration is a
// data type object ({"name": "uint8", "configuration": {}}), an optional one too.
data_type_spec parse_optional(const json::object& o, const std::string& where, int depth) {
  if (depth >= max_struct_depth)
    throw error(errc::invalid_metadata, where + ": expected optional types nested at most " +
                                            std::to_string(max_struct_depth) + " deep, got deeper");
  const auto* config = o.if_contains("configuration");
  const auto* c = config ? config->if_object() : nullptr;
  if (c == nullptr || !c->contains("name")) bad_metadata(where + ".configuration", "a data type object {\"name\": ...}", config);
  for (const auto& [key, value] : *c)
    if (key != "name" && key != "configuration")
      throw error(errc::invalid_metadata, where + ".configuration: expected only name and configuration, got \"" +
                                              std::string(key) + "\"");
  auto inner = parse_spec(*config, where + ".configuration", depth + 1);
  const bool variable = has_variable_elements(inner.type, inner.layout);
  auto fields = std::make_shared<std::vector<struct_field>>();
  std::uint64_t size = 0;
  append_field(*fields, "", std::move(inner), size, where + ".configuration");
  if (size >= max_element_size)
    throw error(errc::invalid_metadata, where + ": expected an element of at most " + std::to_string(max_element_size) +
                                            " bytes, got more");
  data_type_spec spec;
  spec.type = data_type::optional;
  spec.layout.size = variable ? 0 : size + 1;  // the validity byte; elements of no fixed size as string's
  spec.layout.fields = std::move(fields);
  return spec;
}

data_type_spec parse_spec(const json::value& v, const std::string& where, int depth) {
  const json::string* name = v.if_string();
  const json::object* o = v.if_object();
  if (o != nullptr) {
    const auto* n = o->if_contains("name");
    if (n != nullptr && n->is_string()) name = &n->as_string();
  }
  if (name == nullptr || !is_sized_type_name(*name)) return parse_data_type_spec(v, where);
  if (o == nullptr) {
    if (is_raw_name(*name)) return parse_raw(*name, where);
    throw error(errc::invalid_metadata, where + ": expected {\"name\": \"" + std::string(*name) +
                                            "\", \"configuration\": {...}}, got \"" + std::string(*name) + "\"");
  }
  for (const auto& [key, value] : *o) {
    if (key == "name" || key == "configuration") continue;
    if (key == "must_understand") {
      if (value != json::value(true)) bad_metadata(where + ".must_understand", "true", &value);
      continue;
    }
    throw error(errc::invalid_metadata, where + ": expected only name and configuration, got \"" + std::string(key) + "\"");
  }
  if (is_raw_name(*name)) {
    static_cast<void>(configuration_of(*o, where, {}, false));
    return parse_raw(*name, where + ".name");
  }
  if (*name == "optional") return parse_optional(*o, where, depth);
  if (*name == "fixed_length_utf32") {
    const auto* c = configuration_of(*o, where, {"length_bytes"}, true);
    const auto* l = c->if_contains("length_bytes");
    const auto* i = l ? l->if_int64() : nullptr;
    const auto* u = l ? l->if_uint64() : nullptr;
    const std::uint64_t n = i && *i > 0 ? static_cast<std::uint64_t>(*i) : u ? *u : 0;
    if (n == 0 || n % 4 != 0 || n > max_element_size)
      bad_metadata(where + ".configuration.length_bytes",
                   "a positive multiple of 4 up to " + std::to_string(max_element_size), l);
    data_type_spec spec;
    spec.type = data_type::fixed_length_utf32;
    spec.layout.size = n;
    return spec;
  }
  return parse_struct(configuration_of(*o, where, {"fields"}, true), where, depth, *name == "structured");
}

// Code points of UTF-8 text (already checked to be UTF-8).
std::vector<std::uint32_t> code_points(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) out.push_back(next_code_point(s, i));
  return out;
}

bool is_scalar_value(std::uint32_t c) noexcept { return c <= 0x10ffff && (c < 0xd800 || c > 0xdfff); }

std::uint32_t load_unit(const std::byte* p) noexcept {
  std::uint32_t c;
  std::memcpy(&c, p, 4);
  return c;
}

const std::vector<struct_field>& fields_of(const data_type_spec& spec) {
  static const std::vector<struct_field> none;
  return spec.layout.fields ? *spec.layout.fields : none;
}

scalar scalar_at(data_type t, std::span<const std::byte> value, std::uint64_t offset) {
  scalar s{t, {}};
  std::memcpy(s.bits.data(), value.data() + offset, static_cast<std::size_t>(info(t).size));
  return s;
}

// Swaps the multi-byte words of a packed little-endian struct value to native order (a no-op here
// on little-endian machines).
void little_endian_to_native(std::span<std::byte> value, const data_type_spec& spec) {
  if constexpr (std::endian::native == std::endian::little) return;
  for (const auto& w : element_words(spec.type, spec.layout))
    for (std::uint64_t k = 0; k < w.count && w.size > 1; ++k) {
      auto* p = value.data() + w.offset + k * w.size;
      std::reverse(p, p + w.size);
    }
}

}  // namespace

bool is_sized_type_name(std::string_view name) noexcept {
  return is_raw_name(name) || name == "fixed_length_utf32" || name == "struct" || name == "structured" || name == "optional";
}

data_type_spec parse_sized_data_type(const json::value& json, std::string_view where) {
  return parse_spec(json, std::string(where), 0);
}

json::value sized_data_type_to_json(const data_type_spec& spec) {
  switch (spec.type) {
    case data_type::raw_bits: return json::string("r" + std::to_string(8 * spec.layout.size));
    case data_type::fixed_length_utf32:
      return json::object{{"name", "fixed_length_utf32"},
                          {"configuration", json::object{{"length_bytes", spec.layout.size}}}};
    case data_type::optional: {
      auto inner = to_json(optional_value_type(spec.layout));
      if (inner.is_string()) inner = json::object{{"name", inner}};
      return json::object{{"name", "optional"}, {"configuration", std::move(inner)}};
    }
    default: {
      json::array fields;
      for (const auto& f : fields_of(spec)) fields.push_back(json::object{{"name", f.name}, {"data_type", to_json(f.type)}});
      return json::object{{"name", "struct"}, {"configuration", json::object{{"fields", std::move(fields)}}}};
    }
  }
}

std::string sized_type_name(const data_type_spec& spec) {
  if (spec.type == data_type::raw_bits) return "r" + std::to_string(8 * spec.layout.size);
  if (spec.type == data_type::optional) {
    const auto& inner = optional_value_type(spec.layout);
    return "optional " + (is_sized(inner.type) ? sized_type_name(inner) : std::string(name(inner.type)));
  }
  return std::string(name(spec.type));
}

bool optional_has_value(std::span<const std::byte> element) {
  const auto valid = element.empty() ? 0u : std::to_integer<unsigned>(element.back());
  if (element.empty() || valid > 1)
    throw error(errc::invalid_value, "expected a validity byte of 0 (no value) or 1 (a value), got " +
                                         (element.empty() ? std::string("none") : std::to_string(valid)));
  return valid == 1;
}

bool optional_has_value(std::string_view element) {
  const auto valid = element.empty() ? 2u : static_cast<unsigned char>(element.back());
  if (valid > 1 || (valid == 0 && element.size() != 1))
    throw error(errc::invalid_value, "expected an element that ends in a validity byte, 1 after a value or 0 alone "
                                     "(null), got " + (element.empty() ? std::string("an empty one")
                                                                       : std::to_string(element.size()) +
                                                                             " bytes ending in " + std::to_string(valid)));
  return valid == 1;
}

std::string parse_variable_value(const json::value& v, const data_type_spec& spec, std::string_view where) {
  if (spec.type != data_type::optional) return parse_variable_fill_value(v, spec.type, where);
  if (v.is_null()) return std::string(1, '\0');
  const auto* list = v.if_array();
  if (list == nullptr || list->size() != 1)
    bad_value(std::string(where), "null or an array of one value (" + sized_type_name(spec) + ")", shown(v));
  return parse_variable_value((*list)[0], optional_value_type(spec.layout), std::string(where) + "[0]") + '\1';
}

json::value variable_value_to_json(std::string_view element, const data_type_spec& spec) {
  if (spec.type != data_type::optional) return variable_fill_value_to_json(element, spec.type);
  if (!optional_has_value(element)) return nullptr;
  return json::array{variable_value_to_json(element.substr(0, element.size() - 1), optional_value_type(spec.layout))};
}

void check_variable_value(std::string_view element, const data_type_spec& spec) {
  if (spec.type == data_type::string) {
    if (const auto problem = utf8_problem(element)) throw error(errc::invalid_value, *problem);
    return;
  }
  if (spec.type == data_type::optional && optional_has_value(element))
    check_variable_value(element.substr(0, element.size() - 1), optional_value_type(spec.layout));
}

const data_type_spec& optional_value_type(const element_layout& layout) {
  if (!layout.fields || layout.fields->size() != 1)
    throw error(errc::invalid_argument, "an optional data type without the type it wraps");
  return layout.fields->front().type;
}

void utf32_from_utf8(std::string_view utf8, std::span<std::byte> out, std::string_view where) {
  if (const auto problem = utf8_problem(utf8)) bad_value(std::string(where), "UTF-8 text", *problem);
  const auto points = code_points(utf8);
  const auto capacity = out.size() / 4;
  if (points.size() > capacity)
    bad_value(std::string(where), "at most " + std::to_string(capacity) + " code points (fixed_length_utf32 of " +
                                      std::to_string(out.size()) + " bytes)",
              std::to_string(points.size()));
  std::fill(out.begin(), out.end(), std::byte{0});
  if (!points.empty()) std::memcpy(out.data(), points.data(), points.size() * 4);
}

std::int64_t invalid_code_unit_at(std::span<const std::byte> units) noexcept {
  for (std::size_t i = 0; i + 4 <= units.size(); i += 4)
    if (!is_scalar_value(load_unit(units.data() + i))) return static_cast<std::int64_t>(i / 4);
  return -1;
}

std::string utf8_from_utf32(std::span<const std::byte> value, std::string_view where) {
  std::size_t n = value.size() / 4;
  while (n > 0 && load_unit(value.data() + (n - 1) * 4) == 0) --n;
  std::string out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = load_unit(value.data() + i * 4);
    if (!is_scalar_value(c)) {
      char hex[16];
      const auto r = std::to_chars(hex, hex + sizeof hex, c, 16);
      throw error(errc::invalid_value, std::string(where) + ": code point " + std::to_string(i) +
                                           ": expected a Unicode scalar value (no surrogate, at most 0x10ffff), got 0x" +
                                           std::string(hex, r.ptr));
    }
    append_utf8(out, c);
  }
  return out;
}

namespace {

// Checks the fields of a struct value given as packed bytes (a legacy structured base64 fill
// value): text fields must hold Unicode scalar values and bool fields 0 or 1, as the object form
// requires; an error (invalid_value) names the field.
void check_packed_fields(std::span<const std::byte> value, const data_type_spec& spec, const std::string& where) {
  for (const auto& f : fields_of(spec)) {
    const auto here = where + "." + f.name;
    const auto bytes = value.subspan(static_cast<std::size_t>(f.offset), static_cast<std::size_t>(f.type.element_size()));
    if (f.type.type == data_type::struct_) {
      check_packed_fields(bytes, f.type, here);
    } else if (f.type.type == data_type::fixed_length_utf32) {
      if (const auto i = invalid_code_unit_at(bytes); i >= 0)
        bad_value(here, "Unicode scalar values (no surrogate, at most 0x10ffff)", "another at code point " + std::to_string(i));
    } else if (f.type.type == data_type::bool_ && std::to_integer<unsigned>(bytes[0]) > 1) {
      bad_value(here, "a bool (0 or 1)", std::to_string(std::to_integer<unsigned>(bytes[0])));
    }
  }
}

}  // namespace

void parse_sized_value(const json::value& v, const data_type_spec& spec, std::span<std::byte> out, std::string_view where) {
  const std::string at(where);
  const auto size = spec.element_size();
  if (out.size() != size)
    throw error(errc::invalid_argument, at + ": expected a buffer of " + std::to_string(size) + " bytes, got " +
                                            std::to_string(out.size()));
  switch (spec.type) {
    case data_type::raw_bits: {
      // Zarr v3 core spec "Permitted fill values": "An array of integers ... each integer is in the
      // range [0, 255]", one per byte (docs/decisions.md 55).
      const auto* list = v.if_array();
      if (list == nullptr || list->size() != size)
        bad_value(at, "an array of " + std::to_string(size) + " integers from 0 to 255 (" + sized_type_name(spec) + ")",
                  shown(v));
      for (std::size_t i = 0; i < list->size(); ++i) {
        const auto& item = (*list)[i];
        const auto* n = item.if_int64();
        const auto* u = item.if_uint64();
        if (!((n != nullptr && *n >= 0 && *n <= 255) || (u != nullptr && *u <= 255)))
          bad_value(at + "[" + std::to_string(i) + "]", "an integer from 0 to 255", shown(item));
        out[i] = static_cast<std::byte>(n != nullptr ? *n : static_cast<std::int64_t>(*u));
      }
      return;
    }
    case data_type::fixed_length_utf32: {
      const auto* s = v.if_string();
      if (s == nullptr) bad_value(at, "a string (fixed_length_utf32)", shown(v));
      utf32_from_utf8(*s, out, at);
      return;
    }
    case data_type::optional: {
      // datatype-optional.md "Permitted fill values": null (no value), or a one-element array
      // holding a value of the wrapped type.
      const auto& inner = optional_value_type(spec.layout);
      const auto value = out.first(out.size() - 1);
      std::fill(out.begin(), out.end(), std::byte{0});
      if (v.is_null()) return;
      const auto* list = v.if_array();
      if (list == nullptr || list->size() != 1)
        bad_value(at, "null or an array of one value (" + sized_type_name(spec) + ")", shown(v));
      if (is_sized(inner.type)) {
        parse_sized_value((*list)[0], inner, value, at + "[0]");
      } else {
        const auto s = parse_fill_value((*list)[0], inner.type, at + "[0]");
        std::memcpy(value.data(), s.bytes().data(), value.size());
      }
      out.back() = std::byte{1};
      return;
    }
    default: break;
  }
  if (spec.layout.legacy_structured) {
    if (const auto* s = v.if_string()) {  // datatype-structured.md "Base64-encoded fill values"
      const auto bytes = base64_decode(*s);
      if (!bytes || bytes->size() != size)
        bad_value(at, "base64 text of " + std::to_string(size) + " bytes (the packed fields) or an object", shown(v));
      std::memcpy(out.data(), bytes->data(), size);
      little_endian_to_native(out, spec);
      check_packed_fields(out, spec, at);
      return;
    }
  }
  const auto* o = v.if_object();
  if (o == nullptr) bad_value(at, "an object with a value for each field (struct)", shown(v));
  const auto& fields = fields_of(spec);
  for (const auto& member : *o) {
    const std::string_view key(member.key());
    if (std::none_of(fields.begin(), fields.end(), [&](const struct_field& f) { return f.name == key; }))
      bad_value(at, "only the struct's fields", "\"" + std::string(key) + "\"");
  }
  for (const auto& f : fields) {
    const auto here = at + "." + f.name;
    const auto* fv = o->if_contains(f.name);
    if (fv == nullptr) bad_value(here, "a value (every field needs one)", "nothing");
    const auto field_bytes = out.subspan(static_cast<std::size_t>(f.offset), static_cast<std::size_t>(f.type.element_size()));
    if (is_sized(f.type.type)) {
      parse_sized_value(*fv, f.type, field_bytes, here);
    } else {
      const auto s = parse_fill_value(*fv, f.type.type, here);
      std::memcpy(field_bytes.data(), s.bytes().data(), field_bytes.size());
    }
  }
}

std::string sized_value_to_json_text(std::span<const std::byte> value, const data_type_spec& spec) {
  switch (spec.type) {
    case data_type::raw_bits: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i)
        out += (i > 0 ? "," : "") + std::to_string(std::to_integer<unsigned>(value[i]));
      return out + "]";
    }
    case data_type::fixed_length_utf32:
      return json::serialize(json::string(utf8_from_utf32(value, "fixed_length_utf32")));
    case data_type::optional: {
      if (!optional_has_value(value)) return "null";
      const auto& inner = optional_value_type(spec.layout);
      const auto v = value.first(value.size() - 1);
      return "[" + (is_sized(inner.type) ? sized_value_to_json_text(v, inner) : fill_value_to_json_text(scalar_at(inner.type, v, 0))) +
             "]";
    }
    default: break;
  }
  std::string out = "{";
  bool first = true;
  for (const auto& f : fields_of(spec)) {
    out += (first ? "" : ",") + json::serialize(json::string(f.name)) + ":";
    first = false;
    const auto bytes = value.subspan(static_cast<std::size_t>(f.offset), static_cast<std::size_t>(f.type.element_size()));
    out += is_sized(f.type.type) ? sized_value_to_json_text(bytes, f.type)
                                 : fill_value_to_json_text(scalar_at(f.type.type, value, f.offset));
  }
  return out + "}";
}

json::value sized_value_to_json(std::span<const std::byte> value, const data_type_spec& spec) {
  switch (spec.type) {
    case data_type::raw_bits: {
      json::array out;
      for (auto b : value) out.push_back(std::to_integer<unsigned>(b));
      return out;
    }
    case data_type::fixed_length_utf32: return json::string(utf8_from_utf32(value, "fixed_length_utf32"));
    case data_type::optional: {
      if (!optional_has_value(value)) return nullptr;
      const auto& inner = optional_value_type(spec.layout);
      const auto v = value.first(value.size() - 1);
      return json::array{is_sized(inner.type) ? sized_value_to_json(v, inner) : fill_value_to_json(scalar_at(inner.type, v, 0))};
    }
    default: break;
  }
  json::object out;
  for (const auto& f : fields_of(spec)) {
    const auto bytes = value.subspan(static_cast<std::size_t>(f.offset), static_cast<std::size_t>(f.type.element_size()));
    out[f.name] = is_sized(f.type.type) ? sized_value_to_json(bytes, f.type)
                                        : fill_value_to_json(scalar_at(f.type.type, value, f.offset));
  }
  return out;
}

scalar parse_sized_fill_value(const json::value& v, const data_type_spec& spec, std::string_view where) {
  scalar s{spec.type, {}};
  s.wide.resize(static_cast<std::size_t>(spec.element_size()));
  parse_sized_value(v, spec, s.wide, where);
  return s;
}

namespace {
void default_into(std::span<std::byte> out, const data_type_spec& spec) {
  std::fill(out.begin(), out.end(), std::byte{0});
  if (spec.type == data_type::optional) return;  // null: every byte 0
  for (const auto& f : fields_of(spec)) {
    const auto bytes = out.subspan(static_cast<std::size_t>(f.offset), static_cast<std::size_t>(f.type.element_size()));
    if (is_sized(f.type.type)) {
      default_into(bytes, f.type);
    } else {
      const auto d = default_fill_value(f.type.type);
      std::memcpy(bytes.data(), d.bytes().data(), bytes.size());
    }
  }
}

void words_into(std::vector<element_word>& out, data_type type, const element_layout& layout, std::uint64_t base) {
  switch (type) {
    case data_type::raw_bits: return;  // opaque bytes (docs/decisions.md 55)
    case data_type::fixed_length_utf32: out.push_back({base, 4, layout.size / 4, type}); return;
    case data_type::optional: return;  // no bytes codec encoding (docs/decisions.md 71)
    case data_type::struct_:
      if (layout.fields)
        for (const auto& f : *layout.fields) words_into(out, f.type.type, f.type.layout, base + f.offset);
      return;
    default: break;
  }
  const auto& i = info(type);
  if (i.kind == dtype_kind::complex)
    out.push_back({base, static_cast<std::uint32_t>(i.size / 2), 2, complex_component(type)});
  else
    out.push_back({base, static_cast<std::uint32_t>(i.size), 1, type});
}
}  // namespace

scalar default_sized_fill_value(const data_type_spec& spec) {
  scalar s{spec.type, {}};
  s.wide.resize(static_cast<std::size_t>(spec.element_size()));
  default_into(s.wide, spec);
  return s;
}

std::vector<element_word> element_words(data_type type, const element_layout& layout) {
  std::vector<element_word> out;
  words_into(out, type, layout, 0);
  return out;
}

// --- Zarr v2 -------------------------------------------------------------------------------

namespace {

// "<U12", ">U3": fixed_length_utf32; "|V8": raw bits. The count after the kind, positive, no
// leading zero, within max_element_size.
std::optional<data_type_spec> parse_numpy_sized_string(std::string_view text, char& order, const std::string& where) {
  if (text.size() < 3 || (text[0] != '<' && text[0] != '>' && text[0] != '|') || (text[1] != 'U' && text[1] != 'V'))
    return std::nullopt;
  const auto digits = text.substr(2);
  std::uint64_t n = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  const std::uint64_t unit = text[1] == 'U' ? 4 : 1;
  if (r.ec != std::errc{} || r.ptr != digits.data() + digits.size() || digits[0] == '0' || n == 0 || n > max_element_size / unit)
    throw error(errc::invalid_metadata, where + ": expected a positive count of at most " + std::to_string(max_element_size / unit) +
                                            " after " + std::string(text.substr(0, 2)) + ", got \"" + std::string(text) + "\"");
  data_type_spec spec;
  spec.type = text[1] == 'U' ? data_type::fixed_length_utf32 : data_type::raw_bits;
  spec.layout.size = n * unit;
  order = text[1] == 'U' ? (text[0] == '|' ? '<' : text[0]) : '|';
  return spec;
}

// Merges a field's byte order into the struct's: '|' takes the other; '<' and '>' must agree.
void merge_order(char& into, char field, const std::string& where) {
  if (field == '|') return;
  if (into != '|' && into != field)
    throw error(errc::unsupported, where + ": expected every field in one byte order (the bytes codec has one), got both '<' and '>'");
  into = field;
}

data_type_spec parse_v2_struct(const json::array& list, char& order, const std::string& where, int depth) {
  if (depth >= max_struct_depth)
    throw error(errc::invalid_metadata, where + ": expected structs nested at most " + std::to_string(max_struct_depth) +
                                            " deep, got deeper");
  if (list.empty()) bad_metadata(where, "a non-empty list of fields", nullptr);
  auto out = std::make_shared<std::vector<struct_field>>();
  std::set<std::string, std::less<>> names;
  std::uint64_t offset = 0;
  order = '|';
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto here = where + "[" + std::to_string(i) + "]";
    const auto* item = list[i].if_array();
    if (item != nullptr && item->size() == 3)
      throw error(errc::unsupported, here + ": expected [name, dtype] (subarray fields are not supported), got " + shown(list[i]));
    if (item == nullptr || item->size() != 2 || !(*item)[0].is_string() || (*item)[0].as_string().empty())
      bad_metadata(here, "[name, dtype] with a non-empty name", &list[i]);
    const std::string field_name((*item)[0].as_string());
    if (!names.insert(field_name).second)
      throw error(errc::invalid_metadata, here + ": expected a name no other field of the struct has, got \"" + field_name + "\"");
    const auto& dt = (*item)[1];
    char field_order = '|';
    data_type_spec spec;
    if (const auto* nested = dt.if_array()) {
      spec = parse_v2_struct(*nested, field_order, here + "[1]", depth + 1);
    } else if (const auto* text = dt.if_string()) {
      if (auto sized = parse_numpy_sized_string(*text, field_order, here + "[1]")) {
        spec = std::move(*sized);
      } else if (const auto t = parse_numpy_dtype(*text); t && !is_variable_length(t->type)) {
        spec.type = t->type;
        spec.time = t->time;
        field_order = info(t->type).size > 1 ? t->byte_order : '|';
      } else {
        throw error(errc::unsupported, here + "[1]: expected a NumPy type string of fixed size, got " + shown(dt));
      }
    } else {
      bad_metadata(here + "[1]", "a NumPy type string or a list of fields", &dt);
    }
    merge_order(order, field_order, here);
    append_field(*out, field_name, std::move(spec), offset, here);
  }
  return struct_spec(std::move(out), offset, false);
}

// Between native order and `order` ('>' or '<'): swaps each multi-byte word where they differ.
void to_order(std::span<std::byte> value, const data_type_spec& spec, char order) {
  const char native = std::endian::native == std::endian::little ? '<' : '>';
  if (order == '|' || order == native) return;
  for (const auto& w : element_words(spec.type, spec.layout))
    for (std::uint64_t k = 0; k < w.count && w.size > 1; ++k) {
      auto* p = value.data() + w.offset + k * w.size;
      std::reverse(p, p + w.size);
    }
}

}  // namespace

std::optional<data_type_spec> parse_v2_sized_dtype(const json::value& dtype, char& byte_order, std::string_view where) {
  const std::string at(where);
  if (const auto* list = dtype.if_array()) return parse_v2_struct(*list, byte_order, at, 0);
  if (const auto* text = dtype.if_string()) return parse_numpy_sized_string(*text, byte_order, at);
  return std::nullopt;
}

json::value v2_sized_dtype(const data_type_spec& spec, char byte_order) {
  const char order = byte_order == '>' ? '>' : '<';
  switch (spec.type) {
    case data_type::optional: throw error(errc::unsupported, "dtype: expected a data type that NumPy has, got " + sized_type_name(spec));
    case data_type::raw_bits: return json::string("|V" + std::to_string(spec.layout.size));
    case data_type::fixed_length_utf32: return json::string(std::string(1, order) + "U" + std::to_string(spec.layout.size / 4));
    default: break;
  }
  json::array fields;
  for (const auto& f : fields_of(spec)) {
    json::value dt;
    if (is_sized(f.type.type)) {
      dt = v2_sized_dtype(f.type, order);
    } else if (const auto s = numpy_dtype_string(f.type.type, order, f.type.time); s && !is_variable_length(f.type.type)) {
      dt = json::string(*s);
    } else {
      throw error(errc::unsupported, "dtype: field \"" + f.name + "\": expected a data type that NumPy has, got " +
                                         std::string(name(f.type.type)));
    }
    fields.push_back(json::array{json::string(f.name), std::move(dt)});
  }
  return fields;
}

scalar parse_v2_sized_fill_value(const json::value& fill, const data_type_spec& spec, char byte_order, std::string_view where) {
  if (spec.type == data_type::fixed_length_utf32) return parse_sized_fill_value(fill, spec, where);
  // "|V" and structured: zarr-python 2 writes base64 of the element's bytes (numpy.void).
  const auto size = static_cast<std::size_t>(spec.element_size());
  const auto* text = fill.if_string();
  const auto decoded = text != nullptr ? base64_decode(*text) : std::nullopt;
  if (!decoded || decoded->size() != size)
    bad_value(std::string(where), "base64 text of " + std::to_string(size) + " bytes (Zarr v2, NumPy void)", shown(fill));
  scalar s{spec.type, {}};
  s.wide.resize(size);
  std::memcpy(s.wide.data(), decoded->data(), size);
  to_order(s.wide, spec, byte_order);
  // The fields must hold values of their types (a bool 0 or 1, text of scalar values).
  if (spec.type == data_type::struct_) {
    const auto back = sized_value_to_json(s.wide, spec);
    std::vector<std::byte> again(size);
    parse_sized_value(back, spec, again, where);
  }
  return s;
}

std::string v2_sized_fill_value_text(const scalar& fill, const data_type_spec& spec, char byte_order) {
  if (spec.type == data_type::fixed_length_utf32) return sized_value_to_json_text(fill.bytes(), spec);
  std::vector<std::byte> bytes(fill.bytes().begin(), fill.bytes().end());
  to_order(bytes, spec, byte_order == '>' ? '>' : '<');
  return json::serialize(json::string(base64_encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()})));
}

}  // namespace zarr
