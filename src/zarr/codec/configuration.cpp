// zarr.codec: the configuration helpers every codec's parse uses (members, their ranges, the
// keys allowed, scalars read exactly from the document's text).
module;
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <boost/json.hpp>
module zarr.codec;

import zarr.fill_value;

namespace zarr {
namespace json = boost::json;

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

const json::object& configuration_object(const codec_context& ctx, std::initializer_list<std::string_view> allowed) {
  const auto& config = configuration_object(ctx);
  reject_unknown_keys(config, allowed, ctx.where);
  return config;
}

const json::value& required_member(const json::object& config, std::string_view key, std::string_view where,
                                   std::string_view expected) {
  const auto* v = config.if_contains(key);
  if (v == nullptr)
    throw error(errc::invalid_metadata, std::string(where) + ".configuration." + std::string(key) + ": expected " +
                                            std::string(expected) + ", got nothing");
  return *v;
}

std::optional<std::uint64_t> non_negative_integer(const json::value& v) noexcept {
  if (const auto* i = v.if_int64(); i != nullptr && *i >= 0) return static_cast<std::uint64_t>(*i);
  if (const auto* u = v.if_uint64()) return *u;
  return std::nullopt;
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
