// zarr.store.s3: the XML of S3's answers, read with expat (XML 1.0: entities, character
// references, CDATA, comments, namespaces), and the two documents read with it: ListObjectsV2's
// ListBucketResult (requested with encoding-type=url, so keys of any bytes travel
// percent-encoded) and the Error document. A document type declaration is refused: S3 sends
// none, and refusing it rules out entity expansion. Fuzzed by tests/fuzz/s3_xml.fuzz.cpp.
module;
#include <expat.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
module zarr.store.s3;

import zarr.error;

namespace zarr {

namespace {

constexpr std::size_t max_depth = 64;

// The tree expat's callbacks build: the open elements from the root down.
struct builder {
  XML_Parser parser = nullptr;
  xml_element root;
  std::vector<xml_element*> open;
  bool has_root = false;
  std::string failure;  // set when a callback stopped the parser

  void stop(std::string why) {
    if (failure.empty()) failure = std::move(why);
    XML_StopParser(parser, XML_FALSE);
  }
};

// The local name of "prefix:local" (S3 declares its namespace as the default one; a prefix,
// declared or not, is dropped); empty for a prefix with nothing after it.
std::string local_name(const XML_Char* name) {
  const std::string_view s(name);
  const auto colon = s.find(':');
  return std::string(colon == std::string_view::npos ? s : s.substr(colon + 1));
}

void on_start(void* data, const XML_Char* name, const XML_Char** /*attributes*/) {
  auto& b = *static_cast<builder*>(data);
  auto local = local_name(name);
  if (local.empty()) return b.stop("a name after the namespace prefix");
  if (b.open.empty()) {
    if (b.has_root) return b.stop("one root element");
    b.has_root = true;
    b.root.name = std::move(local);
    b.open.push_back(&b.root);
    return;
  }
  if (b.open.size() >= max_depth) return b.stop("at most 64 levels of nesting");
  auto& children = b.open.back()->children;
  children.push_back(xml_element{std::move(local), {}, {}});
  b.open.push_back(&children.back());
}

void on_end(void* data, const XML_Char* /*name*/) {
  auto& b = *static_cast<builder*>(data);
  if (!b.open.empty()) b.open.pop_back();
}

void on_text(void* data, const XML_Char* s, int length) {
  auto& b = *static_cast<builder*>(data);
  if (!b.open.empty()) b.open.back()->text.append(s, static_cast<std::size_t>(length));
}

void on_doctype(void* data, const XML_Char* /*name*/, const XML_Char* /*sysid*/, const XML_Char* /*pubid*/,
                int /*has_internal_subset*/) {
  static_cast<builder*>(data)->stop("no document type declaration");
}

// Percent-decoding of encoding-type=url's values (RFC 3986 escapes; '+' is a space there).
std::string url_decoded(std::string_view s, std::string_view what) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] != '%') {
      out += s[i];
    } else {
      const int hi = i + 2 < s.size() ? hex(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? hex(s[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        throw error(errc::io, "ListObjectsV2 answer: expected a percent-encoded " + std::string(what) + ", got \"" +
                                  std::string(s) + "\"");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return out;
}

}  // namespace

const xml_element* xml_element::child(std::string_view child_name) const noexcept {
  for (const auto& c : children)
    if (c.name == child_name) return &c;
  return nullptr;
}

xml_element parse_xml(std::string_view text) {
  const std::unique_ptr<std::remove_pointer_t<XML_Parser>, void (*)(XML_Parser)> parser(XML_ParserCreate(nullptr),
                                                                                       XML_ParserFree);
  if (!parser) throw error(errc::io, "XML document: expected memory for a parser, got none");
  builder b;
  b.parser = parser.get();
  XML_SetUserData(parser.get(), &b);
  XML_SetElementHandler(parser.get(), on_start, on_end);
  XML_SetCharacterDataHandler(parser.get(), on_text);
  XML_SetStartDoctypeDeclHandler(parser.get(), on_doctype);
  // expat takes an int length: feed a large document in pieces.
  constexpr std::size_t piece = std::size_t{1} << 30;
  std::size_t at = 0;
  do {
    const std::size_t n = std::min(piece, text.size() - at);
    const bool last = at + n == text.size();
    if (XML_Parse(parser.get(), text.data() + at, static_cast<int>(n), last ? XML_TRUE : XML_FALSE) != XML_STATUS_OK) {
      const auto line = XML_GetCurrentLineNumber(parser.get());
      const auto column = XML_GetCurrentColumnNumber(parser.get());
      const std::string place = " at line " + std::to_string(line) + ", column " + std::to_string(column);
      if (!b.failure.empty()) throw error(errc::io, "XML document: expected " + b.failure + ", got something else" + place);
      throw error(errc::io, "XML document: expected well-formed XML, got " +
                                std::string(XML_ErrorString(XML_GetErrorCode(parser.get()))) + place);
    }
    at += n;
  } while (at < text.size());
  if (!b.has_root) throw error(errc::io, "XML document: expected a root element, got none");
  return std::move(b.root);
}

list_objects_page parse_list_objects_v2(std::string_view text) {
  const auto root = parse_xml(text);
  if (root.name != "ListBucketResult")
    throw error(errc::io, "ListObjectsV2 answer: expected <ListBucketResult>, got <" + root.name + ">");
  const auto* encoding = root.child("EncodingType");
  const bool url = encoding != nullptr && encoding->text == "url";
  if (encoding != nullptr && !url)
    throw error(errc::io, "ListObjectsV2 answer: expected <EncodingType> url, got \"" + encoding->text + "\"");
  const auto value = [&](const std::string& s, std::string_view what) { return url ? url_decoded(s, what) : s; };
  list_objects_page page;
  for (const auto& c : root.children) {
    if (c.name == "Contents") {
      const auto* key = c.child("Key");
      if (key == nullptr || key->text.empty())
        throw error(errc::io, "ListObjectsV2 answer: expected a <Key> in every <Contents>, got none");
      page.keys.push_back(value(key->text, "<Key>"));
    } else if (c.name == "CommonPrefixes") {
      const auto* prefix = c.child("Prefix");
      if (prefix == nullptr || prefix->text.empty())
        throw error(errc::io, "ListObjectsV2 answer: expected a <Prefix> in every <CommonPrefixes>, got none");
      page.common_prefixes.push_back(value(prefix->text, "<Prefix>"));
    } else if (c.name == "IsTruncated") {
      if (c.text != "true" && c.text != "false")
        throw error(errc::io, "ListObjectsV2 answer: expected <IsTruncated> true or false, got \"" + c.text + "\"");
      page.truncated = c.text == "true";
    } else if (c.name == "NextContinuationToken") {
      page.next_continuation_token = c.text;
    }
  }
  if (page.truncated && page.next_continuation_token.empty())
    throw error(errc::io, "ListObjectsV2 answer: expected a <NextContinuationToken> with <IsTruncated>true, got none");
  return page;
}

std::optional<s3_error_document> parse_s3_error(std::string_view text) {
  try {
    const auto root = parse_xml(text);
    if (root.name != "Error") return std::nullopt;
    s3_error_document out;
    if (const auto* code = root.child("Code")) out.code = code->text;
    if (const auto* message = root.child("Message")) out.message = message->text;
    return out;
  } catch (const error&) {
    return std::nullopt;
  }
}

}  // namespace zarr
