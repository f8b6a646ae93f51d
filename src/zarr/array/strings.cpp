// zarr.array: the elements of the variable-length data types, string and bytes
// (zarr-extensions data-types/string, data-types/bytes), through the vlen-utf8 / vlen-bytes
// codecs. Their elements differ in length, so they travel as std::string, not in the
// fixed-size buffers of every other type: reads and writes take the one path of every type
// with a view of strings (array_view::strings), after the checks here.
module;
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>
module zarr.array;

import zarr.sized;

namespace zarr {

void array::check_fixed_size(std::string_view what) const {
  if (has_variable_elements(meta_.type, meta_.layout))
    throw error(errc::invalid_argument, "array " + node_name_for_errors(path_) + ": " + std::string(what) +
                                            ": expected an array of fixed-size elements, got data type " +
                                            std::string(name(meta_.type)) + " (use read_strings and write_strings)");
}

void array::check_variable_length(std::string_view what) const {
  if (!has_variable_elements(meta_.type, meta_.layout))
    throw error(errc::invalid_argument, "array " + node_name_for_errors(path_) + ": " + std::string(what) +
                                            ": expected data type string or bytes (or an optional one), got " +
                                            (is_sized(meta_.type) ? sized_type_name(meta_.type_spec()) : std::string(name(meta_.type))));
}

std::vector<std::string> array::read_strings(const region& r, const read_options& options) const {
  check_variable_length("read_strings");
  check_region(r);
  std::vector<std::string> out(static_cast<std::size_t>(r.num_elements()));
  read_into(r, strings_view(out.data(), r.extent()), options);
  return out;
}

// Every value is checked before anything is stored.
void array::write_strings(const region& r, std::span<const std::string> in, const write_options& options) {
  check_variable_length("write_strings");
  check_region(r);
  const auto where = "array " + node_name_for_errors(path_);
  if (in.size() != r.num_elements())
    throw error(errc::invalid_argument, where + ": region: expected " + std::to_string(r.num_elements()) + " elements, got " +
                                            std::to_string(in.size()));
  const auto spec = meta_.type_spec();  // text is UTF-8, an optional element ends in its validity byte
  for (std::size_t i = 0; i < in.size(); ++i) {
    try {
      check_variable_value(in[i], spec);
    } catch (const error& e) {
      throw error(errc::invalid_argument, where + ": element " + std::to_string(i) + ": " + e.what());
    }
  }
  try {  // a value no chunk may hold (no numcodecs.categorize label) stores nothing
    chain_->check_elements(in);
  } catch (const error& e) {
    throw error(e.code(), where + ": " + e.what());
  }
  write_into(r, strings_view(in.data(), r.extent()), options);
}

}  // namespace zarr
