// zarr.text: checks and encodings of text that the variable-length data types need: UTF-8
// validity (zarr-extensions data-types/string: "variable-length UTF8 strings"), code points
// read and written as UTF-8 (RFC 3629) and as JSON escapes (RFC 8259, section 7), and base64
// (data-types/bytes "Fill value encoding"; RFC 4648, section 4, with padding).
module;
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
export module zarr.text;

export namespace zarr {

// The offset of the first byte of `s` that does not begin or continue a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF); nothing
// when all of `s` is UTF-8.
[[nodiscard]] std::optional<std::size_t> invalid_utf8_at(std::string_view s) noexcept;
// The same for messages: "expected UTF-8, got the byte 0xff at offset 3", or nothing.
[[nodiscard]] std::optional<std::string> utf8_problem(std::string_view s);

// The code point of the UTF-8 sequence that begins at s[i], with `i` moved past it; `s` is
// UTF-8 (invalid_utf8_at(s) is nothing) and i < s.size().
[[nodiscard]] std::uint32_t next_code_point(std::string_view s, std::size_t& i) noexcept;
// The code point `c` (at most U+10FFFF) appended to `out` as UTF-8.
void append_utf8(std::string& out, std::uint32_t c);
// The code point `c` appended to `out` as JSON's escape, the way Python's json.dumps writes
// it: \u and four lowercase hexadecimal digits, two of them (a surrogate pair) past U+FFFF.
void append_json_escape(std::string& out, std::uint32_t c);

// `data` in base64 with padding ("AQID" for 01 02 03).
[[nodiscard]] std::string base64_encode(std::string_view data);
// The bytes `text` encodes in base64 with padding; nothing for any other text (a character
// outside the alphabet, a length not a multiple of 4, padding other than at the end, or
// padding bits that are not zero, so that each byte string has exactly one form).
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view text);

}  // namespace zarr
