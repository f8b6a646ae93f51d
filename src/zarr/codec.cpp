// zarr.codec: building and running a codec chain (core-v3.md "Codecs", "Determination of
// encoded representations"), and the configuration helpers every codec uses.
module;
#include <algorithm>
#include <cstring>
#include <vector>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json.hpp>
module zarr.codec;

import zarr.fill_value;

namespace zarr {
namespace json = boost::json;

namespace {

std::string kind_name(codec_kind k) {
  switch (k) {
    case codec_kind::array_to_array: return "array -> array";
    case codec_kind::array_to_bytes: return "array -> bytes";
    case codec_kind::bytes_to_bytes: return "bytes -> bytes";
  }
  return "?";
}

}  // namespace

codec_chain::codec_chain(const json::value& codecs, const chunk_spec& decoded, std::string_view where,
                         std::string_view document)
    : decoded_(decoded) {
  const std::string at(where);
  const auto* list = codecs.if_array();
  if (list == nullptr) throw error(errc::invalid_metadata, at + ": expected an array, got " + json::serialize(codecs));
  if (list->empty()) throw error(errc::invalid_metadata, at + ": expected at least an array -> bytes codec, got []");
  const json::value null;
  chunk_spec current = decoded;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto here = at + "[" + std::to_string(i) + "]";
    const auto& item = (*list)[i];
    const json::value* configuration = &null;
    std::string name;
    if (const auto* s = item.if_string()) {
      name = *s;
    } else if (const auto* o = item.if_object()) {
      const auto* n = o->if_contains("name");
      if (n == nullptr || !n->is_string())
        throw error(errc::invalid_metadata, here + ".name: expected a string, got " + (n ? json::serialize(*n) : "nothing"));
      name = n->as_string();
      bool optional = false;
      for (const auto& [key, value] : *o) {
        if (key == "name") continue;
        if (key == "configuration") {
          configuration = &value;
        } else if (key == "must_understand") {
          if (!value.is_bool())
            throw error(errc::invalid_metadata, here + ".must_understand: expected a boolean, got " + json::serialize(value));
          optional = !value.as_bool();
        } else {
          throw error(errc::invalid_metadata, here + ": expected only name, configuration and must_understand, got \"" +
                                                  std::string(key) + "\"");
        }
      }
      // core-v3.md "must_understand": an extension marked false is one implementations may
      // ignore; an unknown one is skipped, a known one is used.
      if (optional && find_codec(name) == nullptr) {
        skipped_.push_back(item);
        continue;
      }
    } else {
      throw error(errc::invalid_metadata, here + ": expected a codec object or name, got " + json::serialize(item));
    }
    const auto* entry = find_codec(name);
    if (entry == nullptr) throw error(errc::unsupported, here + ".name: expected a supported codec, got \"" + name + "\"");
    const codec_context ctx{*configuration, current, here, document};
    const auto order_error = [&](std::string_view expected) {
      return error(errc::invalid_metadata, here + " (" + name + "): expected " + std::string(expected) + ", got an " +
                                               kind_name(entry->kind) + " codec");
    };
    switch (entry->kind) {
      case codec_kind::array_to_array: {
        if (a2b_) throw order_error("a bytes -> bytes codec after the array -> bytes codec");
        auto c = entry->make_array_to_array(ctx);
        current = c->encoded();
        a2a_.push_back(std::move(c));
        break;
      }
      case codec_kind::array_to_bytes:
        if (a2b_) throw order_error("a bytes -> bytes codec after the array -> bytes codec");
        a2b_ = entry->make_array_to_bytes(ctx);
        break;
      case codec_kind::bytes_to_bytes:
        if (!a2b_) throw order_error("an array -> array or array -> bytes codec before any bytes -> bytes codec");
        b2b_.push_back(entry->make_bytes_to_bytes(ctx));
        break;
    }
  }
  if (!a2b_) throw error(errc::invalid_metadata, at + ": expected exactly one array -> bytes codec, got none");
}

bytes codec_chain::encode(bytes chunk) const {
  for (const auto& c : a2a_) chunk = c->encode(std::move(chunk));
  auto out = a2b_->encode(chunk);
  for (const auto& c : b2b_) out = c->encode(out);
  return out;
}

bytes codec_chain::decode(std::span<const std::byte> stored) const {
  bytes buffer;
  std::span<const std::byte> in = stored;
  for (auto it = b2b_.rbegin(); it != b2b_.rend(); ++it) {
    buffer = (*it)->decode(in);
    in = buffer;
  }
  auto array = a2b_->decode(in);
  for (auto it = a2a_.rbegin(); it != a2a_.rend(); ++it) array = (*it)->decode(std::move(array));
  return array;
}

std::optional<std::uint64_t> codec_chain::encoded_size() const noexcept {
  auto size = a2b_->encoded_size();
  for (const auto& c : b2b_) {
    if (!size) return std::nullopt;
    size = c->encoded_size(*size);
  }
  return size;
}

json::value codec_chain::to_json() const {
  json::array out;
  for (const auto& c : a2a_) out.push_back(c->to_json());
  out.push_back(a2b_->to_json());
  for (const auto& c : b2b_) out.push_back(c->to_json());
  for (const auto& c : skipped_) out.push_back(c);  // kept, so that a rewrite loses nothing
  return out;
}

bool array_to_bytes_codec::decode_region(const range_reader& reader, const region& r, std::span<std::byte> out) const {
  const auto stored = reader(std::nullopt);
  if (!stored) return false;
  const auto chunk = decode(*stored);
  const auto& spec = decoded();
  if (chunk.size() != spec.byte_size())
    throw error(errc::corrupt_chunk, "expected " + std::to_string(spec.byte_size()) + " decoded bytes, got " +
                                         std::to_string(chunk.size()));
  if (r.covers(spec.shape)) {
    std::memcpy(out.data(), chunk.data(), out.size());
  } else {
    const auto extent = r.extent();
    const std::vector<std::uint64_t> zero(extent.size(), 0);
    copy_box(chunk.data(), spec.shape, r.start, out.data(), extent, zero, extent, static_cast<std::size_t>(info(spec.type).size));
  }
  return true;
}

std::string json_pointer_of(std::string_view where) {
  std::string out = "/";
  for (char c : where) {
    if (c == '.' || c == '[') out += '/';
    else if (c != ']') out += c;
  }
  return out;
}

scalar parse_scalar(const codec_context& ctx, const json::value& v, std::string_view where, data_type type) {
  if (!ctx.document.empty())
    if (const auto text = json_source_text(ctx.document, json_pointer_of(where)))
      return parse_fill_value_text(*text, type, where);
  return parse_fill_value(v, type, where);
}

const json::object& configuration_object(const codec_context& ctx) {
  static const json::object empty;
  if (ctx.configuration.is_null()) return empty;
  if (const auto* o = ctx.configuration.if_object()) return *o;
  throw error(errc::invalid_metadata, ctx.where + ".configuration: expected an object, got " + json::serialize(ctx.configuration));
}

void reject_unknown_keys(const json::object& config, std::initializer_list<std::string_view> allowed,
                         std::string_view where) {
  for (const auto& [key, value] : config)
    if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end())
      throw error(errc::invalid_metadata, std::string(where) + ".configuration." + std::string(key) +
                                              ": expected no such key (unknown configuration key)");
}

std::int64_t integer_member(const json::object& config, std::string_view key, std::int64_t min, std::int64_t max,
                            std::optional<std::int64_t> fallback, std::string_view where) {
  const auto at = std::string(where) + ".configuration." + std::string(key);
  const auto* v = config.if_contains(key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    throw error(errc::invalid_metadata, at + ": expected an integer, got nothing");
  }
  std::optional<std::int64_t> n;
  if (const auto* i = v->if_int64()) n = *i;
  if (const auto* u = v->if_uint64(); u && *u <= static_cast<std::uint64_t>(INT64_MAX)) n = static_cast<std::int64_t>(*u);
  if (!n || *n < min || *n > max)
    throw error(errc::invalid_metadata, at + ": expected an integer from " + std::to_string(min) + " to " +
                                            std::to_string(max) + ", got " + json::serialize(*v));
  return *n;
}

}  // namespace zarr
