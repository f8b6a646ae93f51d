// zarr.dtype: name lookup and the JSON form of data types (Zarr v3 core spec "Data types";
// each zarr-extensions data-types/* "Data type name" and schema.json: configuration, if any, is empty;
// numpy.datetime64 and numpy.timedelta64 take {"unit", "scale_factor"}: datatype-numpy.datetime64.md).
module;
#include <bit>
#include <charconv>
#include <cstdint>
#include <memory>
#include <vector>
#include <optional>
#include <string>
#include <string_view>
#include <boost/json.hpp>
module zarr.dtype;

import zarr.error;
import zarr.sized;

namespace zarr {

bool operator==(const element_layout& a, const element_layout& b) noexcept {
  const bool same_fields = a.fields.get() == b.fields.get() || (a.fields && b.fields && *a.fields == *b.fields) ||
                           (!a.fields && b.fields->empty()) || (!b.fields && a.fields->empty());
  return a.size == b.size && same_fields && a.legacy_structured == b.legacy_structured;
}

data_type data_type_from_name(std::string_view name) {
  for (const auto& row : data_types)
    if (row.name == name && row.kind != dtype_kind::sized) return row.type;  // sized: parse_data_type_spec
  if (name == "complex_float32") return data_type::complex64;
  if (name == "complex_float64") return data_type::complex128;
  if (name == "variable_length_bytes") return data_type::bytes;  // zarr-python 3.1's name (docs/decisions.md 68)
  throw error(errc::unsupported, "data_type: expected a supported data type, got \"" + std::string(name) + "\"");
}

namespace {

constexpr std::string_view unit_names[] = {"generic", "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"};

// The configuration of a time type: {"unit": ..., "scale_factor": ...}, both required, nothing else.
time_resolution parse_time_configuration(const boost::json::value* config, std::string_view type_name,
                                         const std::string& at) {
  const auto* o = config ? config->if_object() : nullptr;
  if (o == nullptr)
    throw error(errc::invalid_metadata, at + ".configuration: expected {\"unit\": ..., \"scale_factor\": ...} for " +
                                            std::string(type_name) + ", got " +
                                            (config ? boost::json::serialize(*config) : std::string("nothing")));
  time_resolution r;
  const auto* unit = o->if_contains("unit");
  const auto* scale = o->if_contains("scale_factor");
  if (unit == nullptr || !unit->is_string() || !time_unit_from_name(unit->as_string()))
    throw error(errc::invalid_metadata,
                at + ".configuration.unit: expected one of \"Y\", \"M\", \"W\", \"D\", \"h\", \"m\", \"s\", \"ms\", "
                     "\"us\", \"\u03bcs\", \"ns\", \"ps\", \"fs\", \"as\", \"generic\", got " +
                    (unit ? boost::json::serialize(*unit) : std::string("nothing")));
  r.unit = *time_unit_from_name(unit->as_string());
  const auto* i = scale ? scale->if_int64() : nullptr;
  const auto* u = scale ? scale->if_uint64() : nullptr;
  const std::int64_t v = i ? *i : u && *u <= INT64_MAX ? static_cast<std::int64_t>(*u) : 0;
  if ((i == nullptr && u == nullptr) || v < 1 || v > 2147483647)
    throw error(errc::invalid_metadata, at + ".configuration.scale_factor: expected an integer from 1 to 2147483647, got " +
                                            (scale ? boost::json::serialize(*scale) : std::string("nothing")));
  r.scale_factor = static_cast<std::uint32_t>(v);
  for (const auto& [key, value] : *o)
    if (key != "unit" && key != "scale_factor")
      throw error(errc::invalid_metadata, at + ".configuration: expected only unit and scale_factor, got \"" +
                                              std::string(key) + "\"");
  return r;
}

}  // namespace

std::string_view time_unit_name(time_unit u) noexcept { return unit_names[static_cast<std::size_t>(u)]; }

std::optional<time_unit> time_unit_from_name(std::string_view name) noexcept {
  if (name == "\u03bcs") return time_unit::us;
  for (std::size_t i = 0; i < std::size(unit_names); ++i)
    if (unit_names[i] == name) return static_cast<time_unit>(i);
  return std::nullopt;
}

data_type_spec parse_data_type_spec(const boost::json::value& json, std::string_view where) {
  const std::string at(where);
  // Raw bits, fixed_length_utf32 and struct: their size is in their name or configuration (zarr.sized).
  const boost::json::value* sized_name = json.is_string() ? &json : nullptr;
  if (const auto* o = json.if_object()) sized_name = o->if_contains("name");
  if (sized_name != nullptr && sized_name->is_string() && is_sized_type_name(sized_name->as_string()))
    return parse_sized_data_type(json, where);
  if (const auto* s = json.if_string()) {
    data_type t{};
    try {
      t = data_type_from_name(*s);
    } catch (const error& e) {
      throw error(e.code(), at + ": expected a supported data type, got \"" + std::string(*s) + "\"");
    }
    if (is_time(t)) static_cast<void>(parse_time_configuration(nullptr, *s, at));  // throws: it needs one
    return {t, {}};
  }
  const auto* object = json.if_object();
  if (object == nullptr)
    throw error(errc::invalid_metadata, at + ": expected a string or an object, got " + boost::json::serialize(json));
  const auto* n = object->if_contains("name");
  if (n == nullptr || !n->is_string())
    throw error(errc::invalid_metadata, at + ".name: expected a string, got " +
                                            (n ? boost::json::serialize(*n) : std::string("nothing")));
  // The name first: a data type we do not have is named as such, whatever its configuration
  // holds.
  data_type_spec spec;
  try {
    spec.type = data_type_from_name(n->as_string());
  } catch (const error& e) {
    throw error(e.code(), at + ".name: expected a supported data type, got \"" + std::string(n->as_string()) + "\"");
  }
  for (const auto& [key, value] : *object) {
    if (key == "name") continue;
    if (key == "must_understand") {
      // A data type must always be understood (Zarr v3 core spec "must_understand").
      if (value != boost::json::value(true))
        throw error(errc::invalid_metadata, at + ".must_understand: expected true, got " + boost::json::serialize(value));
      continue;
    }
    if (key == "configuration") {
      if (is_time(spec.type)) continue;
      const auto* config = value.if_object();
      if (config == nullptr)
        throw error(errc::invalid_metadata, at + ".configuration: expected an object, got " + boost::json::serialize(value));
      if (!config->empty())
        throw error(errc::invalid_metadata, at + ".configuration: expected no keys, got \"" +
                                                std::string(config->begin()->key()) + "\"");
      continue;
    }
    throw error(errc::invalid_metadata, at + ": expected only name and configuration, got \"" + std::string(key) + "\"");
  }
  if (is_time(spec.type)) spec.time = parse_time_configuration(object->if_contains("configuration"), name(spec.type), at);
  return spec;
}

data_type parse_data_type(const boost::json::value& json, std::string_view where) {
  return parse_data_type_spec(json, where).type;
}

boost::json::value to_json(const data_type_spec& t) {
  if (is_sized(t.type)) return sized_data_type_to_json(t);
  if (!is_time(t.type)) return to_json(t.type);
  const boost::json::object configuration{{"unit", time_unit_name(t.time.unit)},
                                          {"scale_factor", static_cast<std::int64_t>(t.time.scale_factor)}};
  return boost::json::object{{"name", name(t.type)}, {"configuration", configuration}};
}

boost::json::value to_json(data_type t) { return boost::json::string(name(t)); }

namespace {

// The types NumPy has: kind character and size of the type string, and the plain name.
struct numpy_row {
  data_type type;
  std::string_view code;
  std::string_view plain;
};
constexpr numpy_row numpy_types[] = {
    {data_type::bool_, "b1", "bool"},          {data_type::int8, "i1", "int8"},
    {data_type::int16, "i2", "int16"},         {data_type::int32, "i4", "int32"},
    {data_type::int64, "i8", "int64"},         {data_type::uint8, "u1", "uint8"},
    {data_type::uint16, "u2", "uint16"},       {data_type::uint32, "u4", "uint32"},
    {data_type::uint64, "u8", "uint64"},       {data_type::float16, "f2", "float16"},
    {data_type::float32, "f4", "float32"},     {data_type::float64, "f8", "float64"},
    {data_type::complex64, "c8", "complex64"}, {data_type::complex128, "c16", "complex128"},
};

}  // namespace

namespace {

// "M8[10us]", "m8", "M8[generic]": the time types' NumPy codes.
std::optional<numpy_dtype> parse_numpy_time(std::string_view code, char order) noexcept {
  if (code.size() < 2 || (code[0] != 'M' && code[0] != 'm') || code[1] != '8') return std::nullopt;
  numpy_dtype d{code[0] == 'M' ? data_type::numpy_datetime64 : data_type::numpy_timedelta64, order, {}};
  code.remove_prefix(2);
  if (code.empty()) return d;
  if (code.front() != '[' || code.back() != ']') return std::nullopt;
  code = code.substr(1, code.size() - 2);
  std::size_t digits = 0;
  while (digits < code.size() && code[digits] >= '0' && code[digits] <= '9') ++digits;
  if (digits > 0) {
    std::uint64_t scale = 0;
    const auto r = std::from_chars(code.data(), code.data() + digits, scale);
    if (r.ec != std::errc{} || scale < 1 || scale > 2147483647) return std::nullopt;
    d.time.scale_factor = static_cast<std::uint32_t>(scale);
  }
  const auto unit = time_unit_from_name(code.substr(digits));
  if (!unit || (*unit == time_unit::generic && digits > 0)) return std::nullopt;
  d.time.unit = *unit;
  return d;
}

}  // namespace

std::optional<numpy_dtype> parse_numpy_dtype(std::string_view text) noexcept {
  constexpr char native = std::endian::native == std::endian::little ? '<' : '>';
  for (const auto& row : numpy_types)
    if (text == row.plain) return numpy_dtype{row.type, info(row.type).size == 1 ? '|' : native, {}};
  if (text.empty()) return std::nullopt;
  char order = text[0];
  std::string_view code = text.substr(1);
  if (order == '=') order = native;
  if (order != '<' && order != '>' && order != '|') {
    order = native;  // "f4": NumPy reads it as native order
    code = text;
  }
  if (auto time = parse_numpy_time(code, order == '|' ? native : order)) return time;
  for (const auto& row : numpy_types)
    if (code == row.code) {
      // NumPy reads '|' on a multi-byte type ("|f4") as native order, and so do we.
      const bool one_byte = info(row.type).size == 1;
      return numpy_dtype{row.type, one_byte ? '|' : order == '|' ? native : order, {}};
    }
  return std::nullopt;
}

std::optional<std::string> numpy_dtype_string(data_type t, char byte_order, time_resolution time) {
  if (is_time(t)) {
    std::string s{byte_order == '>' ? '>' : '<', t == data_type::numpy_datetime64 ? 'M' : 'm', '8'};
    if (time.unit == time_unit::generic) return s;
    return s + "[" + (time.scale_factor == 1 ? std::string() : std::to_string(time.scale_factor)) +
           std::string(time_unit_name(time.unit)) + "]";
  }
  if (is_variable_length(t)) return "|O";  // NumPy's object type; the vlen filter says which
  for (const auto& row : numpy_types)
    if (row.type == t) return (info(t).size == 1 ? '|' : byte_order) + std::string(row.code);
  return std::nullopt;
}

}  // namespace zarr
