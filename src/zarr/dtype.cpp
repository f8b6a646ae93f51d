// zarr.dtype: name lookup and the JSON form of data types (Zarr v3 core spec "Data types";
// each zarr-extensions data-types/* "Data type name" and schema.json: configuration, if any, is empty).
module;
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

}  // namespace zarr
