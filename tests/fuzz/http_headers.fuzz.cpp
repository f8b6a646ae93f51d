// libFuzzer target: the HTTP header parsers of zarr.store.http (parse_header_line,
// parse_content_range) and percent_encode. Input: one selector byte, then the text. What
// parses is consistent and prints back to what parses the same; encoded text decodes back.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include "fuzz.hpp"
import zarr.store.http;

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto which = in.byte() % 3;
  const auto text = in.text();
  if (which == 0) {
    if (const auto h = zarr::parse_header_line(text)) {
      zarr_fuzz::expect(!h->name.empty() && h->name.find(':') == std::string::npos, "a header name with ':'");
      for (char c : h->name) zarr_fuzz::expect(c < 'A' || c > 'Z', "an upper-case header name", h->name);
    }
  } else if (which == 1) {
    if (const auto r = zarr::parse_content_range(text)) {
      zarr_fuzz::expect(r->first <= r->last, "a range that ends before it starts");
      zarr_fuzz::expect(!r->total || r->last < *r->total, "a range past the size");
      const auto again = zarr::parse_content_range("bytes " + std::to_string(r->first) + "-" + std::to_string(r->last) +
                                                   "/" + (r->total ? std::to_string(*r->total) : std::string("*")));
      zarr_fuzz::expect(again && again->first == r->first && again->last == r->last && again->total == r->total,
                        "a printed range reads back differently");
    }
  } else {
    const bool keep_slash = text.size() % 2 == 0;
    const auto encoded = zarr::percent_encode(text, keep_slash);
    std::string decoded;
    for (std::size_t i = 0; i < encoded.size(); ++i) {
      if (encoded[i] != '%') {
        decoded += encoded[i];
        continue;
      }
      const int hi = i + 1 < encoded.size() ? hex_value(encoded[i + 1]) : -1;
      const int lo = i + 2 < encoded.size() ? hex_value(encoded[i + 2]) : -1;
      zarr_fuzz::expect(hi >= 0 && lo >= 0, "an escape that is not two upper-case hex digits", encoded);
      decoded += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    zarr_fuzz::expect(decoded == text, "percent-encoding does not decode back", encoded);
  }
  return 0;
}
