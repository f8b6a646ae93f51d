// zarr.text: UTF-8 validation (RFC 3629, section 4's syntax), code points as UTF-8 and as JSON
// escapes (RFC 8259, section 7), and base64 (RFC 4648, section 4).
module;
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
module zarr.text;

namespace zarr {

std::optional<std::size_t> invalid_utf8_at(std::string_view s) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(s[i]); };
  std::size_t i = 0;
  while (i < s.size()) {
    const std::uint8_t b = byte(i);
    if (b < 0x80) {
      ++i;
      continue;
    }
    // The length of the sequence and the range its second byte must fall in (RFC 3629,
    // "UTF8-2" to "UTF8-4"): this excludes overlong forms, surrogates and values past U+10FFFF.
    std::size_t n = 0;
    std::uint8_t lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) n = 2;
    else if (b == 0xE0) n = 3, lo = 0xA0;
    else if (b >= 0xE1 && b <= 0xEC) n = 3;
    else if (b == 0xED) n = 3, hi = 0x9F;
    else if (b >= 0xEE && b <= 0xEF) n = 3;
    else if (b == 0xF0) n = 4, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3) n = 4;
    else if (b == 0xF4) n = 4, hi = 0x8F;
    else return i;
    if (i + 1 >= s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return i;
    for (std::size_t k = 2; k < n; ++k)
      if (i + k >= s.size() || (byte(i + k) & 0xC0) != 0x80) return i;
    i += n;
  }
  return std::nullopt;
}

std::optional<std::string> utf8_problem(std::string_view s) {
  const auto at = invalid_utf8_at(s);
  if (!at) return std::nullopt;
  constexpr std::string_view digits = "0123456789abcdef";
  const auto b = static_cast<std::uint8_t>(s[*at]);
  return "expected UTF-8, got the byte 0x" + std::string{digits[b >> 4], digits[b & 15]} + " at offset " + std::to_string(*at);
}

std::uint32_t next_code_point(std::string_view s, std::size_t& i) noexcept {
  const auto b = static_cast<std::uint8_t>(s[i]);
  const std::size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  std::uint32_t c = n == 1 ? b : b & (0x7Fu >> n);  // the lead byte's payload bits
  for (std::size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<std::uint8_t>(s[i + k]) & 0x3Fu);
  i += n;
  return c;
}

void append_utf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
    return;
  }
  constexpr std::uint32_t lead[] = {0, 0, 0xC0, 0xE0, 0xF0};  // by the sequence's length
  const int n = c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  out += static_cast<char>(lead[n] | (c >> (6 * (n - 1))));
  for (int k = n - 2; k >= 0; --k) out += static_cast<char>(0x80 | ((c >> (6 * k)) & 0x3F));
}

void append_json_escape(std::string& out, std::uint32_t c) {
  constexpr std::string_view digits = "0123456789abcdef";
  const auto unit = [&](std::uint32_t u) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += digits[(u >> shift) & 15];
  };
  if (c < 0x10000) {
    unit(c);
  } else {
    unit(0xD800 + ((c - 0x10000) >> 10));
    unit(0xDC00 + ((c - 0x10000) & 0x3FF));
  }
}

namespace {
constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> decoding_table() {
  std::array<std::int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (std::size_t i = 0; i < alphabet.size(); ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
  return t;
}
constexpr auto sextet_of = decoding_table();
}  // namespace

std::string base64_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < data.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, data.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k)
      group = group << 8 | (k < n ? static_cast<std::uint8_t>(data[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? alphabet[(group >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::size_t padding = 0;
    if (last) padding = text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      std::int8_t v = 0;
      if (k < 4 - padding) {
        v = sextet_of[static_cast<unsigned char>(text[i + k])];
        if (v < 0) return std::nullopt;
      }
      group = group << 6 | static_cast<std::uint32_t>(v);
    }
    const std::size_t n = 3 - padding;
    if ((group & ((std::uint32_t{1} << (8 * (3 - n))) - 1)) != 0) return std::nullopt;  // bits past the data
    for (std::size_t k = 0; k < n; ++k) out += static_cast<char>((group >> (16 - 8 * k)) & 0xFF);
  }
  return out;
}

}  // namespace zarr
