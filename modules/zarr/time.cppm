// zarr.time: the counts of numpy.datetime64 and numpy.timedelta64 (zarr-extensions
// datatype-numpy.datetime64.md, datatype-numpy.timedelta64.md: an int64 count of
// `scale_factor` units, INT64_MIN is NaT; NumPy's datetime documentation is authoritative):
// exact conversion between resolutions, and the ISO 8601 text of a datetime64 as NumPy's
// datetime_as_string writes it (docs/decisions.md 46).
module;
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
export module zarr.time;

export import zarr.dtype;
export import zarr.error;

export namespace zarr {

// Converts counts of `type` (numpy.datetime64 or numpy.timedelta64) from resolution `from` to
// `to`, exactly: NaT stays NaT; any other value must be a whole number of `to`'s units and
// fit in int64 without becoming NaT. Years and months have no fixed length: they convert to
// each other (a year is 12 months), and for datetime64 to and from the other units by the
// proleptic Gregorian calendar (2000 [Y] is 10957 [D]; 10958 [D] is no whole number of [Y]);
// a timedelta64 in years or months converts to nothing else. The generic unit holds only NaT.
// Errors (invalid_value; out_of_range beyond int64) name `where`, the element and the value:
// `array "/t", element 3: expected a value that [s] holds exactly, got 1500 [ms]`.
void convert_time_counts(data_type type, std::span<const std::int64_t> in, time_resolution from,
                         std::span<std::int64_t> out, time_resolution to, std::string_view where);

// One count; the error names `where` without an element.
[[nodiscard]] std::int64_t convert_time_count(data_type type, std::int64_t count, time_resolution from,
                                              time_resolution to, std::string_view where);

// "[ms]", "[10us]", "[generic]": a resolution as NumPy writes it in a dtype.
[[nodiscard]] std::string resolution_text(time_resolution r);

// The ISO 8601 text of a datetime64 count, as NumPy's datetime_as_string gives it: "NaT";
// the year with at least four digits ("0005", "-001", "10000"), then as many fields as the
// unit has ("1970-01" for M, "1970-01-01" for W and D, "1970-01-01T00" for h, through
// "1970-01-01T00:00:00.000000000000000001" for as), UTC without a zone suffix. Years beyond
// int64 are written in full (NumPy wraps them). A generic count other than NaT is an error
// (invalid_value) naming `where`.
[[nodiscard]] std::string datetime_iso8601(std::int64_t count, time_resolution r, std::string_view where = "value");

}  // namespace zarr
