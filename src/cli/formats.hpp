// zarr3's value formats: json (one flat JSON array, C order), raw (the `bytes` codec's
// little-endian layout) and npy (NumPy .npy version 1.0), to and from the in-memory layout
// of zarr::scalar.
#pragma once
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>
import zarr;

namespace zarr_cli {

enum class value_format : std::uint8_t { json, raw, npy };

// "json", "raw", "npy"; usage_error otherwise. `fallback_path` picks one from a file name
// (.npy, .raw/.bin, else json) when `text` is absent.
[[nodiscard]] value_format parse_format(const std::optional<std::string>& text, std::string_view fallback_path);

// --- json ---------------------------------------------------------------------------------

// Writes elements as JSON texts (canonical: the shortest decimal that reads back exactly,
// the same text as zarr::fill_value_to_json_text), caching the texts of small types.
class json_element_writer {
 public:
  explicit json_element_writer(zarr::data_type type);
  // numpy.datetime64 as ISO 8601 strings ("2001-01-01T00:00:00.500", "NaT": zarr::datetime_iso8601)
  // of resolution `r` instead of counts.
  json_element_writer(zarr::data_type type, zarr::time_resolution r);
  // Raw bits, fixed_length_utf32 and struct (and every other type): the canonical JSON value
  // of zarr.sized (an array of byte values, a string, an object).
  explicit json_element_writer(const zarr::data_type_spec& spec);
  // Appends the text of the element at `p` (in-memory layout) to `out`.
  void append(std::string& out, const std::byte* p);

 private:
  zarr::data_type type_;
  std::optional<zarr::time_resolution> iso_;
  std::vector<std::string> cache_;  // per bit pattern, for types of at most 16 bits
  std::optional<zarr::data_type_spec> sized_;
};

// The canonical JSON text of one float32/float64 value (exposed for tests).
[[nodiscard]] std::string float_json_text(double v);
[[nodiscard]] std::string float_json_text(float v);

// Reads the elements of one flat JSON array text, one after another.
class json_element_reader {
 public:
  // `where` names the input in errors.
  json_element_reader(std::string_view text, zarr::data_type type, std::string where);
  // Any type, with its parameters (the sized types need their layout).
  json_element_reader(std::string_view text, const zarr::data_type_spec& spec, std::string where);
  // Parses the next `n` elements into `out` (n * element size bytes); throws zarr::error
  // (invalid_value) naming the element index and its text when one cannot be represented
  // or when the array has fewer elements.
  void read(std::uint64_t n, std::byte* out);
  // Checks that the array ends here (no more elements).
  void finish();

 private:
  [[nodiscard]] std::string_view next_token();
  void parse_element(std::string_view token, std::byte* out);
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint64_t index_ = 0;
  zarr::data_type type_;
  std::string where_;
  bool closed_ = false;
  std::optional<zarr::data_type_spec> sized_;
};

// --- raw ----------------------------------------------------------------------------------

// In-memory layout -> raw (little-endian; one byte per element for types of 8 bits or
// fewer, the value in the low bits, upper bits zero), in place; the sized types as they are.
void to_raw(std::span<std::byte> data, zarr::data_type type);
// raw -> in-memory layout, in place (upper bits of sub-byte values ignored). Throws
// zarr::error for a bool byte that is not 0 or 1, naming the element (counted from `first`).
void from_raw(std::span<std::byte> data, zarr::data_type type, std::uint64_t first, std::string_view where);

// --- npy ----------------------------------------------------------------------------------

// The NumPy dtype string ("<f8", "|b1", "<M8[10s]") of a type NumPy has; nullopt otherwise.
// `time` is the resolution of numpy.datetime64 and numpy.timedelta64 (ignored for the others).
[[nodiscard]] std::optional<std::string> npy_descr(zarr::data_type type, zarr::time_resolution time = {});
// A version 1.0 header for C-order data of `shape`; throws zarr::error (unsupported) for
// types NumPy has not, suggesting raw or json.
[[nodiscard]] std::string npy_header(zarr::data_type type, zarr::time_resolution time,
                                     std::span<const std::uint64_t> shape);
// The same for the sized types (raw bits, fixed_length_utf32, struct): NumPy's "|V3", "<U4" or
// structured dtype, as Zarr v2 writes it (zarr::v2_sized_dtype), little-endian like raw.
[[nodiscard]] std::string npy_header(const zarr::data_type_spec& spec, std::span<const std::uint64_t> shape);
// Reads a header from `in` and checks its dtype and shape against `type` (and `time`) and
// `shape`; returns whether the data need their bytes swapped (big-endian data).
bool read_npy_header(std::istream& in, zarr::data_type type, zarr::time_resolution time,
                     std::span<const std::uint64_t> shape, std::string_view where);
// Reverses the bytes of every element (for big-endian npy data).
void swap_elements(std::span<std::byte> data, zarr::data_type type);

}  // namespace zarr_cli
