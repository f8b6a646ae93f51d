// zarr.fill_value: the JSON form of fill values (and of every scalar given in metadata:
// scale_offset's scale/offset, cast_value's scalar_map) for every data type, per
// Zarr v3 core spec "Permitted fill values", each zarr-extensions data-types/* "Fill value representation" and
// docs/decisions.md 1-6: decimals rounded once, straight to the type; hex bit patterns;
// "NaN", "Infinity", "-Infinity" where the type has them.
module;
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.fill_value;

export import zarr.dtype;
export import zarr.error;
import zarr.text;

export namespace zarr {

// Parses `json` as a value of `type`. Throws zarr::error (invalid_value) naming `where`
// ("fill_value", "codecs[0].configuration.scale") and the offending JSON.
//
// Exact for everything but a JSON number that Boost.JSON stored as a double (a number with a
// fraction or an exponent, or an integer beyond uint64): Boost.JSON 1.81 keeps neither the
// text nor, always, the correctly rounded double. Such a double is read as its shortest
// round-trip decimal, which is the written text whenever that had at most 15 significant
// digits and Boost.JSON rounded it correctly (1.81 is sometimes one ulp off for float64).
// Boost.JSON also reads -0 as the integer 0, so it gives +0 here. For exact results from any
// text, hand the source text to parse_fill_value_text (json_source_text cuts it out of a
// document).
[[nodiscard]] scalar parse_fill_value(const boost::json::value& json, data_type type,
                                      std::string_view where = "fill_value");

// Parses the JSON text of one value (`-0.1`, `"NaN"`, `[1e-50, "0x7fc00001"]`) as a value of
// `type`, exactly: each number is rounded once from its decimal text. Same errors as above;
// text that is not JSON is an error too.
[[nodiscard]] scalar parse_fill_value_text(std::string_view json_text, data_type type,
                                           std::string_view where = "fill_value");

// The canonical JSON form: the shortest decimal that reads back to the same value, an
// exact integer, true/false, "NaN"/"Infinity"/"-Infinity", a hex string for values with
// no other form (non-canonical NaNs), [re, im] for complex.
// Float values are held as the double nearest to that shortest decimal (an integer when it
// is one), so that they read back to the same value; Boost.JSON 1.81 prints doubles in its
// own style (0.1 as 1E-1), so the text it writes is not always the shortest one.
[[nodiscard]] boost::json::value fill_value_to_json(const scalar& value);

// The canonical JSON text itself, for writers that splice it into a document: the
// shortest decimal, plain or with an exponent, whichever is shorter ("0.1", "57344",
// "1e-7"; "-0.0" for negative zero), "\"NaN\"", "\"0x7fc00001\"", "[1.5,\"NaN\"]".
[[nodiscard]] std::string fill_value_to_json_text(const scalar& value);

// The default fill value of a type when a user gives none: zero (false), or for
// float8_e8m0fnu, which has no zero, 1.0 (0x7f), and [1, 1] for complex_float8_e8m0fnu.
[[nodiscard]] scalar default_fill_value(data_type type) noexcept;

// The fill value of `string` or `bytes` (zarr-extensions data-types/string "Permitted fill
// values": a JSON string; data-types/bytes "Fill value encoding": an array of integers 0 to
// 255 or a base64 string): the value's bytes. Errors name `where` like parse_fill_value.
[[nodiscard]] std::string parse_variable_fill_value(const boost::json::value& json, data_type type,
                                                    std::string_view where = "fill_value");
// The canonical JSON form: the string itself; for bytes, base64 (the shorter form).
[[nodiscard]] boost::json::value variable_fill_value_to_json(std::string_view value, data_type type);

// The core of number parsing, without exceptions: how a JSON number text rounds to a format.
enum class rounding_status : std::uint8_t {
  ok,            // `bits` holds the value rounded once, half to even
  overflow,      // the rounded magnitude is beyond the largest finite value
  out_of_range,  // float8_e8m0fnu only: zero, negative, or rounds below 2^-127
  not_a_number,  // the text is not a JSON number
};
struct rounded_number {
  std::uint64_t bits = 0;  // sign bit most significant, as in a hex fill value
  rounding_status status = rounding_status::not_a_number;
};

// Rounds the JSON number `text` ("-1.5e-7") once, half to even, to `format`. Zero, and
// values that round to zero, keep the text's sign where the format has -0. float8_e8m0fnu's
// ties (1.5 * 2^k) go up: 2^(k+1) is its even neighbour.
[[nodiscard]] rounded_number round_json_number(std::string_view text, const float_format& format);

// The source text of the value at `json_pointer` (RFC 6901: "/fill_value",
// "/codecs/0/configuration/scale") inside the JSON `document`, or nullopt if the document is
// not JSON or has no such value. The view points into `document`.
[[nodiscard]] std::optional<std::string_view> json_source_text(std::string_view document,
                                                               std::string_view json_pointer);

}  // namespace zarr
