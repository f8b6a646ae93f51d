// zarr.sized: the data types whose element size comes from their configuration, not from the
// registry: raw bits r8, r16, ... (Zarr v3 core spec "Data types", "Permitted fill values";
// datatype-r.md), fixed_length_utf32 (datatype-fixed_length_utf32.md), struct with its legacy
// name structured (datatype-struct.md, datatype-structured.md) and optional (datatype-optional.md). Their JSON forms, their values
// as JSON, UTF-32 text, and the words of an element that the bytes codec orders and checks.
module;
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.sized;

export import zarr.dtype;
export import zarr.error;

export namespace zarr {

// The largest element of a sized type, and the deepest nesting of structs we read
// (docs/decisions.md 59): a configuration past either is refused before anything is allocated.
inline constexpr std::uint64_t max_element_size = std::uint64_t{1} << 24;
inline constexpr int max_struct_depth = 16;

// "r8", "r16", ... (an "r" and digits), "fixed_length_utf32", "struct", "structured", "optional".
[[nodiscard]] bool is_sized_type_name(std::string_view name) noexcept;

// Parses a `data_type` member that names a sized type: "r16", {"name": "r16"},
// {"name": "fixed_length_utf32", "configuration": {"length_bytes": 48}},
// {"name": "struct", "configuration": {"fields": [{"name": "x", "data_type": "float32"}, ...]}}
// or the legacy {"name": "structured", "configuration": {"fields": [["x", "float32"], ...]}}.
// Errors name `where` and the field ("data_type.configuration.fields[1].name: ...").
[[nodiscard]] data_type_spec parse_sized_data_type(const boost::json::value& json, std::string_view where = "data_type");
// The canonical JSON form ("r16"; the object with its configuration; a legacy structured type is
// written as struct with field objects: docs/decisions.md 57).
[[nodiscard]] boost::json::value sized_data_type_to_json(const data_type_spec& spec);
// "r16", "fixed_length_utf32", "struct", "optional uint8": how messages name the type.
[[nodiscard]] std::string sized_type_name(const data_type_spec& spec);

// An optional type (datatype-optional.md) in memory: the value, laid out as the type it wraps,
// then one validity byte (docs/decisions.md 71). The wrapped type is any of fixed size but
// optional inside a struct (the bytes codec has no encoding of it); optional types nest.
[[nodiscard]] const data_type_spec& optional_value_type(const element_layout& layout);
// Whether an element of an optional type holds a value: its validity byte, 1 or 0. Any other is
// an error (invalid_value) that says what was expected, for the caller to name the element.
[[nodiscard]] bool optional_has_value(std::span<const std::byte> element);
// The same for an optional type of variable-length elements (an optional string): the wrapped
// element then 1, or 0 alone.
[[nodiscard]] bool optional_has_value(std::string_view element);

// An element of a type whose elements differ in length (has_variable_elements: string, bytes, an
// optional one) from its JSON value, as array::read_strings holds it: the text, the bytes, or
// for an optional type the wrapped element then its validity byte ("ab\x01"; null is "\x00"
// alone). Errors (invalid_value) name `where`.
[[nodiscard]] std::string parse_variable_value(const boost::json::value& json, const data_type_spec& spec,
                                               std::string_view where);
// Its JSON value (an optional one null, or an array of one value); what optional_has_value throws
// for an optional element that does not end in a validity byte 0 or 1, or is null with more.
[[nodiscard]] boost::json::value variable_value_to_json(std::string_view element, const data_type_spec& spec);
// Throws what variable_value_to_json would for `element`, and (invalid_value) for text that is
// not UTF-8 in a string; the message says what was expected, for the caller to name the element.
void check_variable_value(std::string_view element, const data_type_spec& spec);

// One value as JSON: raw bits an array of its byte values (0 to 255, element_size() of them),
// fixed_length_utf32 a string of at most length_bytes / 4 code points, optional null or an array
// of one value of the wrapped type (its value bytes zero when null), struct an object with a
// value for every field (a legacy structured type also takes a base64 string of the packed bytes,
// little-endian). The value goes to `out` (element_size() bytes, the in-memory layout: code
// units and fields in native byte order). Errors (invalid_value) name `where`.
void parse_sized_value(const boost::json::value& json, const data_type_spec& spec, std::span<std::byte> out,
                       std::string_view where);
// The value's JSON text, canonical: numbers of struct fields as fill_value_to_json_text writes them.
[[nodiscard]] std::string sized_value_to_json_text(std::span<const std::byte> value, const data_type_spec& spec);
// The same as a JSON value.
[[nodiscard]] boost::json::value sized_value_to_json(std::span<const std::byte> value, const data_type_spec& spec);

// Zarr v2 (Zarr storage specification version 2, "Data type encoding": NumPy's dtypes): "<U12" is
// fixed_length_utf32 of 48 bytes, "|V8" is r64, a structured dtype [["x", "<f4"], ["y", "<i2"]] a
// struct (fields of NumPy type strings or nested lists; no subarray shapes). `byte_order` receives
// '<' or '>' (or '|' when no field has more than one byte); fields of more than one byte must all
// have the same order (docs/decisions.md 57). Nothing when `dtype` is none of these forms;
// errors (unsupported, invalid_metadata) name `where` for one that is malformed.
[[nodiscard]] std::optional<data_type_spec> parse_v2_sized_dtype(const boost::json::value& dtype, char& byte_order,
                                                                 std::string_view where = "dtype");
// The NumPy dtype of a sized type in `byte_order` ('<' or '>'): "<U12", "|V8" or a list of fields.
// Throws unsupported for a field type NumPy lacks.
[[nodiscard]] boost::json::value v2_sized_dtype(const data_type_spec& spec, char byte_order);
// A v2 fill value as zarr-python 2 writes it: a string for "<U"; for "|V" and structured dtypes,
// base64 of the element's bytes in `byte_order`.
[[nodiscard]] scalar parse_v2_sized_fill_value(const boost::json::value& fill, const data_type_spec& spec, char byte_order,
                                               std::string_view where = "fill_value");
[[nodiscard]] std::string v2_sized_fill_value_text(const scalar& fill, const data_type_spec& spec, char byte_order);

// Fill values: a scalar whose `wide` bytes hold the value.
[[nodiscard]] scalar parse_sized_fill_value(const boost::json::value& json, const data_type_spec& spec,
                                            std::string_view where = "fill_value");
// Zeros (an optional type: null), or for a struct each field's default (float8_e8m0fnu: 1).
[[nodiscard]] scalar default_sized_fill_value(const data_type_spec& spec);

// UTF-8 text as `out.size() / 4` UTF-32 code units in native byte order, zero padded. Errors
// (invalid_value) name `where`: text that is not UTF-8, more code points than fit.
void utf32_from_utf8(std::string_view utf8, std::span<std::byte> out, std::string_view where);
// The UTF-8 text of native-order UTF-32 code units, trailing U+0000 removed. A code unit that is
// no Unicode scalar value (a surrogate, or above U+10FFFF) is an error naming `where`.
[[nodiscard]] std::string utf8_from_utf32(std::span<const std::byte> value, std::string_view where);
// The index of the first code unit (native order) that is no Unicode scalar value, or -1.
[[nodiscard]] std::int64_t invalid_code_unit_at(std::span<const std::byte> units) noexcept;

// A value inside an element that the bytes codec handles one by one: `count` words of `size`
// bytes from `offset` (swapped when the byte order is not native), of type `type` (bool is
// checked, the sub-byte types normalised, fixed_length_utf32's code units checked). Raw bits
// have none: their bytes are opaque.
struct element_word {
  std::uint64_t offset = 0;
  std::uint32_t size = 1;
  std::uint64_t count = 1;
  data_type type = data_type::uint8;
};
// The words of one element of `type` with `layout`, in order.
[[nodiscard]] std::vector<element_word> element_words(data_type type, const element_layout& layout);

}  // namespace zarr
