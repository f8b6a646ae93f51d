// zarr.fill_value: the JSON form of fill values (and of every scalar given in metadata:
// scale_offset's scale/offset, cast_value's scalar_map) for every data type, per
// core-v3.md "Permitted fill values", each datatype-*.md "Fill value representation" and
// DECISIONS.md 1-6: decimals rounded once, straight to the type; hex bit patterns;
// "NaN", "Infinity", "-Infinity" where the type has them.
module;
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.fill_value;

export import zarr.dtype;
export import zarr.error;

export namespace zarr {

// Parses `json` as a value of `type`. Throws zarr::error (invalid_value) naming `where`
// ("fill_value", "codecs[0].configuration.scale") and the offending JSON.
[[nodiscard]] scalar parse_fill_value(const boost::json::value& json, data_type type,
                                      std::string_view where = "fill_value");

// The canonical JSON form: the shortest decimal that reads back to the same value, an
// exact integer, true/false, "NaN"/"Infinity"/"-Infinity", a hex string for values with
// no other form (non-canonical NaNs), [re, im] for complex.
[[nodiscard]] boost::json::value fill_value_to_json(const scalar& value);

// The default fill value of a type when a user gives none: zero (false), or for
// float8_e8m0fnu, which has no zero, 1.0 (0x7f).
[[nodiscard]] scalar default_fill_value(data_type type) noexcept;

}  // namespace zarr
