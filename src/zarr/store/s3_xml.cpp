// zarr.store.s3: the small XML parser for S3's answers (XML 1.0: elements, attributes skipped,
// character data, the five predefined entities, character references, comments, CDATA,
// processing instructions) and the two documents read with it: ListObjectsV2's
// ListBucketResult and the Error document. Fuzzed by tests/fuzz/s3_xml.fuzz.cpp.
module;
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
module zarr.store.s3;

import zarr.error;

namespace zarr {

namespace {

constexpr int max_depth = 64;

[[noreturn]] void malformed(std::string_view what, std::size_t at) {
  throw error(errc::io, "XML document: expected " + std::string(what) + ", got something else at byte " +
                            std::to_string(at));
}

bool is_name_char(char c) {
  return c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '>' && c != '/' && c != '=' && c != '<' &&
         c != '"' && c != '\'' && c != '&';
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void append_utf8(std::string& out, std::uint32_t cp, std::size_t at) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) malformed("a valid character reference", at);
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class parser {
 public:
  explicit parser(std::string_view text) : s_(text) {}

  xml_element document() {
    skip_misc();
    if (!at("<") || at("<!")) malformed("a root element", pos_);
    auto root = element(1);
    skip_misc();
    if (pos_ != s_.size()) malformed("the end of the document after the root element", pos_);
    return root;
  }

 private:
  [[nodiscard]] bool at(std::string_view what) const { return s_.substr(pos_).starts_with(what); }

  void skip_past(std::string_view end, std::string_view what) {
    const auto p = s_.find(end, pos_);
    if (p == std::string_view::npos) malformed(what, s_.size());
    pos_ = p + end.size();
  }

  // Space, comments and processing instructions (the declaration) around the root.
  void skip_misc() {
    for (;;) {
      while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
      if (at("<?")) {
        skip_past("?>", "the end of a processing instruction");
      } else if (at("<!--")) {
        skip_past("-->", "the end of a comment");
      } else {
        return;
      }
    }
  }

  std::string name() {
    const auto start = pos_;
    while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
    if (pos_ == start) malformed("a name", start);
    auto n = s_.substr(start, pos_ - start);
    if (const auto colon = n.rfind(':'); colon != std::string_view::npos) n.remove_prefix(colon + 1);
    if (n.empty()) malformed("a name after the namespace prefix", start);  // "<F:>" names nothing
    return std::string(n);
  }

  void reference(std::string& out) {
    const auto start = pos_;
    const auto semi = s_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) malformed("an entity ending with ';'", start);
    const auto ref = s_.substr(pos_ + 1, semi - pos_ - 1);
    pos_ = semi + 1;
    if (ref == "amp") return out.push_back('&');
    if (ref == "lt") return out.push_back('<');
    if (ref == "gt") return out.push_back('>');
    if (ref == "quot") return out.push_back('"');
    if (ref == "apos") return out.push_back('\'');
    if (ref.size() < 2 || ref[0] != '#') malformed("a predefined entity or a character reference", start);
    const bool hex = ref[1] == 'x';
    const auto digits = ref.substr(hex ? 2 : 1);
    std::uint32_t cp = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
    if (digits.empty() || r.ec != std::errc{} || r.ptr != digits.data() + digits.size())
      malformed("a character reference", start);
    append_utf8(out, cp, start);
  }

  // At '<' of a start tag.
  xml_element element(int depth) {
    if (depth > max_depth) malformed("at most 64 levels of nesting", pos_);
    ++pos_;
    xml_element e;
    e.name = name();
    // Attributes: skipped, quotes respected.
    for (;;) {
      if (pos_ >= s_.size()) malformed("the end of a start tag", pos_);
      const char c = s_[pos_];
      if (c == '>') {
        ++pos_;
        break;
      }
      if (c == '/') {
        if (!at("/>")) malformed("'/>'", pos_);
        pos_ += 2;
        return e;
      }
      if (c == '"' || c == '\'') {
        const auto close = s_.find(c, pos_ + 1);
        if (close == std::string_view::npos) malformed("the end of an attribute value", pos_);
        pos_ = close + 1;
        continue;
      }
      if (c == '<') malformed("an attribute or the end of a start tag", pos_);
      ++pos_;
    }
    // Content, up to the matching end tag.
    for (;;) {
      if (pos_ >= s_.size()) malformed("the end tag of <" + e.name + ">", pos_);
      const char c = s_[pos_];
      if (c == '&') {
        reference(e.text);
      } else if (c != '<') {
        e.text += c;
        ++pos_;
      } else if (at("<![CDATA[")) {
        const auto start = pos_ + 9;
        skip_past("]]>", "the end of a CDATA section");
        e.text.append(s_.substr(start, pos_ - 3 - start));
      } else if (at("<!--")) {
        skip_past("-->", "the end of a comment");
      } else if (at("<?")) {
        skip_past("?>", "the end of a processing instruction");
      } else if (at("</")) {
        pos_ += 2;
        const auto at_name = pos_;
        if (name() != e.name) malformed("the end tag of <" + e.name + ">", at_name);
        while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
        if (!at(">")) malformed("'>'", pos_);
        ++pos_;
        return e;
      } else if (at("<!")) {
        malformed("no document type declaration", pos_);
      } else {
        e.children.push_back(element(depth + 1));
      }
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

const xml_element* xml_element::child(std::string_view child_name) const noexcept {
  for (const auto& c : children)
    if (c.name == child_name) return &c;
  return nullptr;
}

xml_element parse_xml(std::string_view text) { return parser(text).document(); }

list_objects_page parse_list_objects_v2(std::string_view text) {
  const auto root = parse_xml(text);
  if (root.name != "ListBucketResult")
    throw error(errc::io, "ListObjectsV2 answer: expected <ListBucketResult>, got <" + root.name + ">");
  list_objects_page page;
  for (const auto& c : root.children) {
    if (c.name == "Contents") {
      const auto* key = c.child("Key");
      if (key == nullptr || key->text.empty())
        throw error(errc::io, "ListObjectsV2 answer: expected a <Key> in every <Contents>, got none");
      page.keys.push_back(key->text);
    } else if (c.name == "CommonPrefixes") {
      const auto* prefix = c.child("Prefix");
      if (prefix == nullptr || prefix->text.empty())
        throw error(errc::io, "ListObjectsV2 answer: expected a <Prefix> in every <CommonPrefixes>, got none");
      page.common_prefixes.push_back(prefix->text);
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
