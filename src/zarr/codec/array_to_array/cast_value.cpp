// zarr.codec.cast_value: configuration parsing, the fill-value round trip, and the per-chunk
// loops (zarr-extensions codecs/cast_value "Procedure"; docs/decisions.md 7-13). The cast itself is the
// bulk kernel zarr::cast_elements; scalar_map is applied around it: 8-bit sources go through
// a 256-entry table with the map folded in, wider sources are scanned for keys segment by
// segment, and only segments holding keys are copied with each key replaced by 1 (which casts
// exactly to every type) before the kernel runs, then patched with the mapped outputs.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.cast_value;

import zarr.arithmetic.kernels;
import zarr.fill_value;

namespace zarr {
namespace json = boost::json;

namespace {

// Elements per segment of the scalar_map path: the copy stays in L2.
constexpr std::size_t segment = 16384;

bool is_nan_raw(data_type t, std::uint64_t raw) noexcept {
  return is_float(t) && decode(t, raw).kind == value_class::nan;
}

// Same value for the fill-value round trip: NaN equals NaN, otherwise the bits (every
// non-NaN value of these types has exactly one encoding, so +0 and -0 differ).
bool same_value(data_type t, std::uint64_t a, std::uint64_t b) noexcept {
  if (is_nan_raw(t, a) || is_nan_raw(t, b)) return is_nan_raw(t, a) && is_nan_raw(t, b);
  return a == b;
}

std::string shown(data_type t, std::uint64_t raw) { return format_value(t, raw) + " (" + std::string(zarr::name(t)) + ")"; }

// The checks that make a configuration usable for an array type; errors name the JSON.
void check_types(data_type array_type, const cast_value_configuration& c, const std::string& where) {
  if (!is_numeric(c.data_type))
    throw error(errc::invalid_metadata, where + ".configuration.data_type: expected an integer or floating-point data " +
                                            "type (cast_value converts numbers), got \"" + std::string(zarr::name(c.data_type)) + "\"");
  if (!is_numeric(array_type))
    throw error(errc::invalid_metadata, where + " (cast_value): expected an input of an integer or floating-point " +
                                            "data type (cast_value converts numbers), got " + std::string(zarr::name(array_type)));
  if (c.out_of_range == out_of_range_mode::wrap && !is_integer(c.data_type))
    throw error(errc::invalid_metadata, where + ".configuration.out_of_range: expected \"clamp\" or no out_of_range for " +
                                            "the floating-point data_type " + std::string(zarr::name(c.data_type)) +
                                            " (\"wrap\" is for integer targets only), got \"wrap\"");
}

std::vector<scalar_map_entry> parse_entries(const codec_context& ctx, const json::value& v, const std::string& at,
                                            data_type from, data_type to) {
  const auto* list = v.if_array();
  if (list == nullptr)
    throw error(errc::invalid_metadata, at + ": expected an array of [input, output] pairs, got " + json::serialize(v));
  std::vector<scalar_map_entry> out;
  out.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto here = at + "[" + std::to_string(i) + "]";
    const auto* pair = (*list)[i].if_array();
    if (pair == nullptr || pair->size() != 2)
      throw error(errc::invalid_metadata, here + ": expected an [input, output] pair, got " + json::serialize((*list)[i]));
    const auto scalar_at = [&](std::size_t k, data_type t) {
      try {
        return parse_scalar(ctx, (*pair)[k], here + "[" + std::to_string(k) + "]", t);
      } catch (const error& e) {
        // A scalar_map entry that its type cannot hold makes the metadata invalid (docs/decisions.md 11).
        throw error(errc::invalid_metadata, e.what());
      }
    };
    out.push_back({scalar_at(0, from), scalar_at(1, to)});
  }
  return out;
}

// The entries as JSON pairs, each value converted exactly (`at`: "...scalar_map.encode").
json::array entries_to_json(const std::vector<scalar_map_entry>& entries, data_type from, data_type to, const std::string& at) {
  json::array out;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto here = at + "[" + std::to_string(i) + "]";
    out.push_back(json::array{fill_value_to_json(convert_value(entries[i].in.value(), from, here + "[0]")),
                              fill_value_to_json(convert_value(entries[i].out.value(), to, here + "[1]"))});
  }
  return out;
}

// What a wide (16- to 64-bit) source element is tested against: IEEE NaN (for a NaN key) and
// the raw keys. Keys of 16- to 64-bit types are their raw bits in memory, so it compares
// elements as unsigned integers.
template <class U>
struct key_test {
  bool nan_key;
  U magnitude_mask;  // all bits but the sign
  U infinity;        // magnitudes above are NaN
  std::vector<U> keys;
  // The outputs as the bytes of one element of the target type in memory, held in a uint64
  // (int2/int4 sign-extended): copying their first bytes writes the element.
  std::uint64_t nan_image = 0;
  std::vector<std::uint64_t> images;

  key_test(data_type from, data_type to, const scalar_lookup& m) : nan_key(m.has_nan_key()) {
    const auto& f = info(from).format;
    magnitude_mask = static_cast<U>(static_cast<U>(~U{0}) >> 1);
    infinity = is_float(from) ? static_cast<U>(f.infinity()) : static_cast<U>(~U{0});
    const auto image = [to](std::uint64_t raw) {
      std::byte memory[8] = {};
      store_raw(to, memory, raw);
      std::uint64_t out = 0;
      std::memcpy(&out, memory, sizeof out);
      return out;
    };
    nan_image = image(m.nan_output());
    for (auto k : m.keys()) keys.push_back(static_cast<U>(k));
    for (auto o : m.outputs()) images.push_back(image(o));
  }
  [[nodiscard]] bool is_nan(U x) const noexcept { return (x & magnitude_mask) > infinity; }
  [[nodiscard]] bool operator()(U x) const noexcept {
    bool hit = nan_key && is_nan(x);
    for (const U k : keys) hit |= x == k;
    return hit;
  }
  // The image of the mapped output of `x`, if a key matches (scalar_lookup::find without
  // decoding).
  [[nodiscard]] std::optional<std::uint64_t> find_image(U x) const noexcept {
    if (nan_key && is_nan(x)) return nan_image;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == x) return images[i];
    return std::nullopt;
  }
};


// The first element of p[0, n) that matches a key, or n. Blocks are tested without branches.
template <class U>
std::size_t first_key(const key_test<U>& test, const std::byte* p, std::size_t n) noexcept {
  constexpr std::size_t step = 256;
  for (std::size_t s = 0; s < n; s += step) {
    const std::size_t e = std::min(n, s + step);
    bool any = false;
    for (std::size_t i = s; i < e; ++i) any |= test(load_element<U>(p, i));
    if (any)
      for (std::size_t i = s; i < e; ++i)
        if (test(load_element<U>(p, i))) return i;
  }
  return n;
}

}  // namespace

// ---------------------------------------------------------------- configuration

cast_value_configuration cast_value_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"data_type", "rounding", "out_of_range", "scalar_map"});
  cast_value_configuration out;
  const auto at = ctx.where + ".configuration.";
  out.data_type = parse_data_type(required_member(config, "data_type", ctx.where, "a data type"), at + "data_type");
  if (const auto* r = config.if_contains("rounding")) {
    if (!r->is_string())
      throw error(errc::invalid_metadata, at + "rounding: expected a string, got " + json::serialize(*r));
    out.rounding = parse_rounding_mode(r->as_string(), at + "rounding");
  }
  if (const auto* o = config.if_contains("out_of_range")) {
    if (!o->is_string())
      throw error(errc::invalid_metadata, at + "out_of_range: expected a string, got " + json::serialize(*o));
    out.out_of_range = parse_out_of_range_mode(o->as_string(), at + "out_of_range");
  }
  check_types(ctx.decoded.type, out, ctx.where);
  if (const auto* m = config.if_contains("scalar_map")) {
    const auto map_at = at + "scalar_map";
    const auto* map = m->if_object();
    if (map == nullptr)
      throw error(errc::invalid_metadata, map_at + ": expected an object with \"encode\" and/or \"decode\", got " +
                                              json::serialize(*m));
    for (const auto& [key, value] : *map) {
      if (key == "encode")
        out.encode_map = parse_entries(ctx, value, map_at + ".encode", ctx.decoded.type, out.data_type);
      else if (key == "decode")
        out.decode_map = parse_entries(ctx, value, map_at + ".decode", out.data_type, ctx.decoded.type);
      else
        throw error(errc::invalid_metadata, map_at + "." + std::string(key) +
                                                ": expected no such key (scalar_map has only \"encode\" and \"decode\")");
    }
  }
  return out;
}

// ---------------------------------------------------------------- scalar_map lookups

scalar_lookup::scalar_lookup(data_type from, const std::vector<scalar_map_entry>& entries) : from_(from) {
  for (const auto& e : entries) {
    const auto in = e.in.value().raw();
    if (is_nan_raw(from, in)) {
      if (!nan_key_) {
        nan_key_ = true;
        nan_out_ = e.out.value().raw();
      }
    } else if (std::find(keys_.begin(), keys_.end(), in) == keys_.end()) {  // the first occurrence wins
      keys_.push_back(in);
      outs_.push_back(e.out.value().raw());
    }
  }
}

std::optional<std::uint64_t> scalar_lookup::find(std::uint64_t raw) const noexcept {
  if (nan_key_ && is_nan_raw(from_, raw)) return nan_out_;
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == raw) return outs_[i];
  return std::nullopt;
}

// ---------------------------------------------------------------- the codec

namespace {

numeric_result cast_one(data_type from, data_type to, rounding_mode mode, out_of_range_mode oor,
                        const scalar_lookup& map, std::uint64_t raw) noexcept {
  if (const auto mapped = map.find(raw)) return {*mapped, numeric_errc::none, false};
  return cast(from, raw, to, mode, oor);
}

}  // namespace

cast_value_codec::cast_value_codec(const cast_value_configuration& config, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), config_(config), decoded_(decoded), encoded_(decoded) {
  check_types(decoded_.type, config_, where_);
  encoded_.type = config_.data_type;
  const auto exact = [&](std::vector<scalar_map_entry>& entries, data_type from, data_type to, const char* key) {
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto here = where_ + ".configuration.scalar_map." + key + "[" + std::to_string(i) + "]";
      entries[i] = {convert_value(entries[i].in.value(), from, here + "[0]"), convert_value(entries[i].out.value(), to, here + "[1]")};
    }
  };
  exact(config_.encode_map, decoded_.type, config_.data_type, "encode");
  exact(config_.decode_map, config_.data_type, decoded_.type, "decode");
  const auto setup = [&](direction& d, data_type from, data_type to, const std::vector<scalar_map_entry>& entries,
                         const char* verb) {
    d.from = from;
    d.to = to;
    d.rounding = config_.rounding;
    d.out_of_range = config_.out_of_range;
    d.map = scalar_lookup(from, entries);
    d.one = round_to(from, exact_value::from_uint(1)).bits;
    d.verb = verb;
    if (info(from).size == 1)
      d.table.emplace(from, to, [&](std::uint64_t raw) { return cast_one(from, to, d.rounding, d.out_of_range, d.map, raw); });
  };
  setup(encode_, decoded_.type, config_.data_type, config_.encode_map, "encoding");
  setup(decode_, config_.data_type, decoded_.type, config_.decode_map, "decoding");

  // The fill value: cast like the elements, and it must come back unchanged (docs/decisions.md 13).
  const auto fill = decoded_.fill.type == decoded_.type ? decoded_.fill.raw() : 0;
  const auto there = cast_one(encode_.from, encode_.to, encode_.rounding, encode_.out_of_range, encode_.map, fill);
  if (!there.ok())
    throw error(errc::invalid_metadata, where_ + " (cast_value): expected a fill value that casts to " +
                                            std::string(zarr::name(config_.data_type)) + ", got " + shown(decoded_.type, fill) + ": " +
                                            std::string(to_string(there.error)));
  encoded_.fill = scalar{config_.data_type, {}};
  store_raw(config_.data_type, encoded_.fill.bits.data(), there.bits);
  const auto back = cast_one(decode_.from, decode_.to, decode_.rounding, decode_.out_of_range, decode_.map, there.bits);
  if (!back.ok() || !same_value(decoded_.type, back.bits, fill))
    throw error(errc::invalid_metadata,
                where_ + " (cast_value): expected a fill value that survives the round trip " +
                    std::string(zarr::name(decoded_.type)) + " -> " + std::string(zarr::name(config_.data_type)) + " -> " +
                    std::string(zarr::name(decoded_.type)) + ", got " + shown(decoded_.type, fill) + " -> " +
                    format_value(config_.data_type, there.bits) + " -> " +
                    (back.ok() ? format_value(decoded_.type, back.bits) : std::string(to_string(back.error))));
}

json::value cast_value_configuration::to_json(zarr::data_type type, std::string_view where) const {
  const auto at = std::string(where) + ".configuration.scalar_map.";
  json::object c;
  c["data_type"] = zarr::to_json(data_type);
  c["rounding"] = std::string(to_string(rounding));
  if (out_of_range != out_of_range_mode::error) c["out_of_range"] = std::string(to_string(out_of_range));
  if (!encode_map.empty() || !decode_map.empty()) {
    json::object map;
    if (!encode_map.empty()) map["encode"] = entries_to_json(encode_map, type, data_type, at + "encode");
    if (!decode_map.empty()) map["decode"] = entries_to_json(decode_map, data_type, type, at + "decode");
    c["scalar_map"] = std::move(map);
  }
  return json::object{{"name", "cast_value"}, {"configuration", std::move(c)}};
}

json::value cast_value_codec::to_json() const { return config_.to_json(decoded_.type, where_); }

bytes cast_value_codec::do_encode(bytes in) const {
  return run(encode_, std::move(in));
}

bytes cast_value_codec::do_decode(bytes in) const {
  return run(decode_, std::move(in));
}

std::optional<element_step> cast_value_codec::step(bool encoding) const {
  const auto& d = encoding ? encode_ : decode_;
  if (!d.map.empty()) return std::nullopt;
  element_step s;
  s.op = element_step::kind::cast;
  s.from = d.from;
  s.to = d.to;
  s.rounding = d.rounding;
  s.out_of_range = d.out_of_range;
  return s;
}

void cast_value_codec::throw_step_error(const kernel_result& r, bool encoding) const {
  const auto& d = encoding ? encode_ : decode_;
  throw_cast_error(d.from, r.value, d.to, {0, r.error, false},
                   where_ + " (cast_value), " + d.verb + " element " + std::to_string(r.index));
}

bytes cast_value_codec::run(const direction& d, bytes in) const {
  const auto in_size = static_cast<std::size_t>(info(d.from).size);
  const auto out_size = static_cast<std::size_t>(info(d.to).size);
  const std::size_t n = in.size() / in_size;
  const auto fail = [&](std::size_t index, std::uint64_t raw, numeric_errc why) {
    throw_step_error({false, index, raw, why}, &d == &encode_);
  };
  const auto check = [&](const kernel_result& r, std::size_t base) {
    if (!r.ok) fail(base + r.index, r.value, r.error);
  };
  bytes out;
  if (d.table) {  // one-byte sources: the table holds the map and every cast result
    if (out_size != 1) out.resize(n * out_size);
    check(d.table->apply(in, out_size == 1 ? std::span(in) : std::span(out)), 0);
    return out_size == 1 ? std::move(in) : std::move(out);
  }
  if (out_size != in_size || !d.map.empty()) out.resize(n * out_size);
  if (d.map.empty()) {
    if (out_size == in_size) {  // in place
      check(cast_elements(d.from, in, d.to, in, d.rounding, d.out_of_range), 0);
      return in;
    }
    check(cast_elements(d.from, in, d.to, out, d.rounding, d.out_of_range), 0);
    return out;
  }
  // scalar_map with a 16- to 64-bit source: segments without keys go straight through the
  // kernel; a segment with keys is copied with each key replaced by 1 (branch-free, noting
  // where the keys were), cast, then the keys' outputs are written over.
  const auto mapped = [&]<class U>(U*) {
    const key_test<U> test(d.from, d.to, d.map);
    const auto one = static_cast<U>(d.one);
    std::vector<U> local;
    std::vector<std::uint32_t> hits;
    for (std::size_t start = 0; start < n; start += segment) {
      const std::size_t m = std::min(segment, n - start);
      const std::byte* src = in.data() + start * sizeof(U);
      std::byte* dst = out.data() + start * out_size;
      const std::span<std::byte> dst_span(dst, m * out_size);
      const std::size_t first = first_key(test, src, m);
      if (first == m) {
        check(cast_elements(d.from, {src, m * sizeof(U)}, d.to, dst_span, d.rounding, d.out_of_range), start);
        continue;
      }
      local.resize(m);
      hits.resize(m);
      std::memcpy(local.data(), src, m * sizeof(U));
      std::size_t count = 0;
      for (std::size_t i = first; i < m; ++i) {
        const U x = local[i];
        const bool hit = test(x);
        local[i] = hit ? one : x;
        hits[count] = static_cast<std::uint32_t>(i);
        count += hit ? 1 : 0;
      }
      check(cast_elements(d.from, std::as_bytes(std::span(local)), d.to, dst_span, d.rounding, d.out_of_range), start);
      const auto patch = [&]<class Out>(Out*) {
        for (std::size_t j = 0; j < count; ++j) {
          const std::size_t i = hits[j];
          if (const auto image = test.find_image(load_element<U>(src, i)))
            std::memcpy(dst + i * sizeof(Out), &*image, sizeof(Out));
        }
      };
      switch (out_size) {
        case 1: patch(static_cast<std::uint8_t*>(nullptr)); break;
        case 2: patch(static_cast<std::uint16_t*>(nullptr)); break;
        case 4: patch(static_cast<std::uint32_t*>(nullptr)); break;
        default: patch(static_cast<std::uint64_t*>(nullptr)); break;
      }
    }
  };
  switch (in_size) {
    case 2: mapped(static_cast<std::uint16_t*>(nullptr)); break;
    case 4: mapped(static_cast<std::uint32_t*>(nullptr)); break;
    default: mapped(static_cast<std::uint64_t*>(nullptr)); break;
  }
  return out;
}

std::unique_ptr<array_to_array_codec> make_cast_value_codec(const codec_context& ctx) {
  return std::make_unique<cast_value_codec>(cast_value_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
