// zarr.dtype: name lookup and the JSON form of data types (Zarr v3 core spec "Data types";
// each zarr-extensions data-types/* "Data type name" and schema.json: configuration, if any, is empty).
module;
#include <bit>
#include <optional>
#include <string>
#include <string_view>
#include <boost/json.hpp>
module zarr.dtype;

import zarr.error;

namespace zarr {

data_type data_type_from_name(std::string_view name) {
  for (const auto& row : data_types)
    if (row.name == name) return row.type;
  if (name == "complex_float32") return data_type::complex64;
  if (name == "complex_float64") return data_type::complex128;
  throw error(errc::unsupported, "data_type: expected a supported data type, got \"" + std::string(name) + "\"");
}

data_type parse_data_type(const boost::json::value& json, std::string_view where) {
  const std::string at(where);
  if (const auto* s = json.if_string()) {
    try {
      return data_type_from_name(*s);
    } catch (const error& e) {
      throw error(e.code(), at + ": expected a supported data type, got \"" + std::string(*s) + "\"");
    }
  }
  const auto* object = json.if_object();
  if (object == nullptr)
    throw error(errc::invalid_metadata, at + ": expected a string or an object, got " + boost::json::serialize(json));
  const auto* n = object->if_contains("name");
  if (n == nullptr || !n->is_string())
    throw error(errc::invalid_metadata, at + ".name: expected a string, got " +
                                            (n ? boost::json::serialize(*n) : std::string("nothing")));
  // The name first: a data type we do not have is named as such, whatever its configuration
  // holds (zarr-python writes {"name": "numpy.datetime64", "configuration": {"unit": ...}}).
  const auto type = parse_data_type(*n, at + ".name");
  for (const auto& [key, value] : *object) {
    if (key == "name") continue;
    if (key == "must_understand") {
      // A data type must always be understood (Zarr v3 core spec "must_understand").
      if (value != boost::json::value(true))
        throw error(errc::invalid_metadata, at + ".must_understand: expected true, got " + boost::json::serialize(value));
      continue;
    }
    if (key == "configuration") {
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
  return type;
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

std::optional<numpy_dtype> parse_numpy_dtype(std::string_view text) noexcept {
  constexpr char native = std::endian::native == std::endian::little ? '<' : '>';
  for (const auto& row : numpy_types)
    if (text == row.plain) return numpy_dtype{row.type, info(row.type).size == 1 ? '|' : native};
  if (text.empty()) return std::nullopt;
  char order = text[0];
  std::string_view code = text.substr(1);
  if (order == '=') order = native;
  if (order != '<' && order != '>' && order != '|') {
    order = native;  // "f4": NumPy reads it as native order
    code = text;
  }
  for (const auto& row : numpy_types)
    if (code == row.code) {
      // NumPy reads '|' on a multi-byte type ("|f4") as native order, and so do we.
      const bool one_byte = info(row.type).size == 1;
      return numpy_dtype{row.type, one_byte ? '|' : order == '|' ? native : order};
    }
  return std::nullopt;
}

std::optional<std::string> numpy_dtype_string(data_type t, char byte_order) {
  for (const auto& row : numpy_types)
    if (row.type == t) return (info(t).size == 1 ? '|' : byte_order) + std::string(row.code);
  return std::nullopt;
}

}  // namespace zarr
