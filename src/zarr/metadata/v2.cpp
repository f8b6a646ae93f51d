// zarr.metadata.v2: Zarr v2 `order`, `filters` and `compressor` as a Zarr v3 codec chain
// (Zarr storage specification version 2, "Metadata", "Filters"; numcodecs' codec
// configurations, https://numcodecs.readthedocs.io), and the way back from a Zarr v3 chain.
module;
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.metadata.v2;

import zarr.arithmetic;
import zarr.codec.cast_value;
import zarr.codec.fixedscaleoffset;
import zarr.codec.scale_offset;
import zarr.fill_value;
import zarr.sized;

namespace zarr {
namespace json = boost::json;

namespace {

json::object codec_object(std::string_view name, json::object configuration) {
  return json::object{{"name", name}, {"configuration", std::move(configuration)}};
}

}  // namespace

json::object numcodecs_to_v3(const json::object& config, std::string_view where) {
  const std::string id(config.at("id").as_string());
  const auto* entry = find_numcodecs(id);
  if (entry == nullptr)
    throw error(errc::unsupported, std::string(where) + ".id: expected a numcodecs codec this library has, got \"" + id + "\"");
  json::object rest = config;
  rest.erase("id");
  return codec_object(entry->name, entry->v2.from_v2 != nullptr ? entry->v2.from_v2(std::move(rest)) : std::move(rest));
}

json::array v2_codecs(const array_metadata& m) {
  json::array out;
  const auto rank = m.shape.size();
  if (m.v2.order == 'F' && rank > 1) {
    json::array order;
    for (std::size_t i = rank; i-- > 0;) order.push_back(i);
    out.push_back(codec_object("transpose", {{"order", std::move(order)}}));
  }
  char byte_order = m.v2.byte_order;
  bool bytes_done = false;
  const auto add_bytes = [&] {
    if (bytes_done) return;
    out.push_back(codec_object("bytes", {{"endian", byte_order == '>' ? "big" : "little"}}));
    bytes_done = true;
  };
  if (const auto* filters = m.v2.filters.if_array()) {
    for (std::size_t i = 0; i < filters->size(); ++i) {
      const auto where = ".zarray: filters[" + std::to_string(i) + "]";
      const auto& config = (*filters)[i].as_object();
      auto codec = numcodecs_to_v3(config, where);
      const auto kind = find_codec(codec.at("name").as_string())->kind;
      if (kind == codec_kind::array_to_array) {
        if (bytes_done)
          throw error(errc::unsupported, where + ": expected an array filter only before the byte filters (a Zarr v3 "
                                                 "chain cannot express it after one), got \"" +
                                             std::string(config.at("id").as_string()) + "\"");
        // The encoded array's bytes are in the byte order of what the filter makes.
        const auto* astype = config.if_contains(config.contains("encode_dtype") ? "encode_dtype" : "astype");
        if (astype != nullptr && astype->is_string())
          if (const auto t = parse_numpy_dtype(astype->as_string()); t && t->byte_order != '|') byte_order = t->byte_order;
      } else if (kind == codec_kind::bytes_to_bytes) {
        add_bytes();
      } else if (!bytes_done) {  // numcodecs.packbits: it makes the bytes itself
        bytes_done = true;
      } else {
        throw error(errc::unsupported, where + ": expected an array -> bytes filter only before the byte filters, got \"" +
                                           std::string(config.at("id").as_string()) + "\"");
      }
      out.push_back(std::move(codec));
    }
  }
  if (const auto* compressor = m.v2.compressor.if_object()) {
    auto codec = numcodecs_to_v3(*compressor, ".zarray: compressor");
    const auto kind = find_codec(codec.at("name").as_string())->kind;
    if (kind == codec_kind::array_to_bytes && !bytes_done) {  // numcodecs.zfpy: it compresses the array itself
      out.push_back(std::move(codec));
      return out;
    }
    add_bytes();
    if (kind != codec_kind::bytes_to_bytes)
      throw error(errc::unsupported, ".zarray: compressor: expected a bytes -> bytes codec after the byte filters, got \"" +
                                         std::string(codec.at("name").as_string()) + "\"");
    out.push_back(std::move(codec));
    return out;
  }
  add_bytes();
  return out;
}

// --- From Zarr v3 to v2 ----------------------------------------------------------------------

namespace {

// Whether Zarr v2 keeps the codec of this resolved name in `compressor` when it ends the chain.
bool is_compressor(std::string_view name) {
  const auto* entry = find_codec(name);
  return entry != nullptr && entry->v2.compressor;
}

const std::array<std::string_view, 4> numpy_type_keys{"dtype", "astype", "encode_dtype", "decode_dtype"};

bool is_numpy_type_key(std::string_view key) {
  for (const auto k : numpy_type_keys)
    if (k == key) return true;
  return false;
}

// A NumPy type string in byte order `order` ('|' for one-byte types); any other value as it is.
json::value in_byte_order(const json::value& v, char order) {
  const auto* s = v.if_string();
  const auto t = s != nullptr ? parse_numpy_dtype(*s) : std::nullopt;
  if (!t) return v;
  return json::value(*numpy_dtype_string(t->type, order));
}

// One resolved Zarr v3 codec as a numcodecs configuration, its NumPy type strings in `order`.
json::object to_numcodecs(const json::object& codec, const std::string& where, char order) {
  const std::string name(codec.at("name").as_string());
  const auto* entry = find_codec(name);
  if (entry == nullptr || entry->v2.id.empty())
    throw error(errc::unsupported, where + ": expected a codec that Zarr v2 (numcodecs) has, got \"" + name + "\" (" +
                                       std::string(entry != nullptr ? entry->v2.why_not : "numcodecs has no such codec") + ")");
  const auto* c = codec.if_contains("configuration");
  const json::object config = c != nullptr && c->is_object() ? c->as_object() : json::object{};
  json::object out{{"id", entry->v2.id}};
  for (const auto& [key, value] : entry->v2.to_v2 != nullptr ? entry->v2.to_v2(config) : config)
    out[key] = is_numpy_type_key(key) ? in_byte_order(value, order) : value;
  return out;
}

// A resolved chain in the form that two chains reading the same bytes share: each codec that
// Zarr v2 has as its numcodecs configuration (so `bitround` is `numcodecs.bitround`, and blosc's
// type size goes: numcodecs takes it from the data; it changes how well blosc compresses, not
// what it decodes to), NumPy type strings little-endian (the filters work on values in memory;
// the stored byte order is the `bytes` codec's).
json::value same_bytes_form(json::value chain) {
  for (auto& c : chain.as_array()) {
    const auto* entry = find_codec(c.at("name").as_string());
    if (entry != nullptr && !entry->v2.id.empty()) c = to_numcodecs(c.as_object(), "", '<');
  }
  return chain;
}

// The first value of `astype` (at most 16 bits: every one is tried) that numcodecs' decode of
// `fixedscaleoffset` (a Zarr v3 codec object) and the chain `pair` decode differently, with
// both answers; nothing when they agree on all (the same bits, or an error from both).
std::optional<std::string> first_decode_difference(const json::object& fixedscaleoffset, const json::array& pair,
                                                   const chunk_spec& decoded, data_type astype) {
  const auto size = static_cast<std::size_t>(info(astype).size);
  const std::size_t n = std::size_t{1} << info(astype).bits;
  const json::object bytes_codec{{"name", "bytes"}, {"configuration", json::object{{"endian", "little"}}}};
  const auto chains = [&](std::uint64_t elements) {
    chunk_spec s = decoded;
    s.shape = {elements};
    json::array theirs{fixedscaleoffset, bytes_codec}, ours = pair;
    ours.push_back(bytes_codec);
    return std::pair<codec_chain, codec_chain>{codec_chain(theirs, s), codec_chain(ours, s)};
  };
  const auto decode = [](const codec_chain& c, std::span<const std::byte> in) -> std::optional<bytes> {
    try {
      return c.decode(in);
    } catch (const error&) {
      return std::nullopt;
    }
  };
  bytes all(n * size);
  for (std::size_t e = 0; e < n; ++e) std::memcpy(all.data() + e * size, &e, size);  // little-endian hosts
  {
    const auto [theirs, ours] = chains(n);
    const auto a = decode(theirs, all), b = decode(ours, all);
    if (a && b && *a == *b) return std::nullopt;
  }
  const auto [theirs, ours] = chains(1);
  const auto text = [&](const std::optional<bytes>& v) {
    if (!v) return std::string("an error");
    std::uint64_t bits = 0;
    std::memcpy(&bits, v->data(), v->size());
    return format_value(decoded.type, bits);
  };
  for (std::size_t e = 0; e < n; ++e) {
    const std::span<const std::byte> one(all.data() + e * size, size);
    const auto a = decode(theirs, one), b = decode(ours, one);
    if (a.has_value() == b.has_value() && (!a || *a == *b)) continue;
    return "the encoded " + std::string(name(astype)) + " " + format_value(astype, e) + " decodes to " + text(a) +
           " in numcodecs (float64 arithmetic, rounded once to " + std::string(name(decoded.type)) + ") and to " + text(b) +
           " in scale_offset (" + std::string(name(decoded.type)) + " arithmetic)";
  }
  return std::nullopt;
}

}  // namespace

json::object scale_offset_to_fixedscaleoffset(const array_to_array_codec& scale_offset, const array_to_array_codec* next,
                                              std::size_t i, char byte_order) {
  const auto at = [](std::size_t k) { return "codecs[" + std::to_string(k) + "]"; };
  const auto refuse = [&](std::size_t k, const std::string& why) {
    return error(errc::unsupported, at(k) + ": expected a scale_offset and a cast_value that numcodecs.fixedscaleoffset "
                                            "reads and writes alike (docs/decisions.md 54), got " + why);
  };
  if (scale_offset.name() != "scale_offset") throw refuse(i, "\"" + std::string(scale_offset.name()) + "\"");
  const chunk_spec& decoded = scale_offset.decoded();
  const data_type dtype = decoded.type;
  const auto type_name = [](data_type t) { return std::string(name(t)); };
  if (dtype != data_type::float16 && dtype != data_type::float32 && dtype != data_type::float64)
    throw refuse(i, "a scale_offset on " + type_name(dtype) + " (numcodecs decodes through float64 and truncates to " +
                        "an integer dtype, where scale_offset divides exactly; only float16, float32 and float64 map)");
  if (next == nullptr || next->name() != "cast_value")
    throw refuse(i, "a scale_offset without a cast_value after it (numcodecs rounds (x - offset) * scale to an integer, "
                    "scale_offset alone does not)");
  // Each codec's configuration as its own type, parsed from the JSON it writes.
  const auto cast_json = next->to_json();
  const auto cast = cast_value_configuration::parse(
      {.configuration = cast_json.at("configuration"), .decoded = next->decoded(), .where = at(i + 1), .document = {}, .encoding = {}});
  const data_type astype = cast.data_type;
  if (!is_integer(astype) || !numpy_dtype_string(astype, '<'))
    throw refuse(i + 1, "a cast_value to " + type_name(astype) + " (numcodecs rounds to an integer before it casts; only "
                                                               "integer data types map)");
  if (cast.rounding != rounding_mode::nearest_even)
    throw refuse(i + 1, "rounding \"" + std::string(to_string(cast.rounding)) + "\" (numcodecs rounds half to even, np.around)");
  if (cast.out_of_range != out_of_range_mode::wrap)
    throw refuse(i + 1, "out_of_range " + (cast.out_of_range == out_of_range_mode::error ? std::string("absent")
                                                                                       : "\"" + std::string(to_string(cast.out_of_range)) + "\"") +
                            " (numcodecs.fixedscaleoffset reads as [scale_offset, cast_value] with out_of_range \"wrap\", decision 18)");
  if (!cast.encode_map.empty() || !cast.decode_map.empty())
    throw refuse(i + 1, "a scalar_map (numcodecs.fixedscaleoffset has none)");
  // offset and scale as Python floats holding the dtype's values exactly.
  const auto scale_offset_json = scale_offset.to_json();
  const auto config = scale_offset_configuration::parse(
      {.configuration = scale_offset_json.at("configuration"), .decoded = decoded, .where = at(i), .document = {}, .encoding = {}});
  const double offset = config.offset ? to_double(dtype, config.offset->value().raw()) : 0.0;
  const double scale = config.scale ? to_double(dtype, config.scale->value().raw()) : 1.0;
  const json::object v2{{"id", "fixedscaleoffset"},
                        {"offset", offset},
                        {"scale", scale},
                        {"dtype", *numpy_dtype_string(dtype, byte_order)},
                        {"astype", *numpy_dtype_string(astype, byte_order)}};
  json::object configuration = v2;
  configuration.erase("id");
  const json::object v3{{"name", "numcodecs.fixedscaleoffset"}, {"configuration", configuration}};
  // It must read as this very pair (decision 18's mapping), and numcodecs must compute the encode
  // in the dtype, as scale_offset does.
  const json::array pair{scale_offset.to_json(), next->to_json()};
  // The same pair with offset and scale given, as scale_offset reads the absent ones.
  const json::array explicit_pair{
      scale_offset_configuration{.offset = config.offset.value_or(scalar{dtype, {}}),
                                 .scale = config.scale.value_or(parse_fill_value(json::value(1), dtype))}
          .to_json(dtype, at(i)),
      next->to_json()};
  const codec_chain legacy(json::array{v3, json::object{{"name", "bytes"}, {"configuration", json::object{{"endian", "little"}}}}},
                           decoded);
  if (const auto reads_as = *legacy.array_to_array().at(0)->replacement(at(i)); reads_as != explicit_pair)
    throw refuse(i, json::serialize(explicit_pair) + ", which numcodecs.fixedscaleoffset " + json::serialize(configuration) +
                        " does not read as (it reads as " + json::serialize(reads_as) + ")");
  const auto types = numpy_encode_types(fixedscaleoffset_configuration::parse(
      {.configuration = json::value(configuration), .decoded = decoded, .where = at(i), .document = {}, .encoding = {}}));
  if (types.subtract != dtype || types.multiply != dtype)
    throw refuse(i, "offset " + format_value(data_type::float64, std::bit_cast<std::uint64_t>(offset)) + " and scale " +
                        format_value(data_type::float64, std::bit_cast<std::uint64_t>(scale)) + ", with which numcodecs computes (x - offset) * scale in " +
                        type_name(types.multiply) + ", scale_offset in " + type_name(dtype));
  // The decode: numcodecs computes e / scale + offset in float64 and rounds once to dtype;
  // scale_offset computes in dtype. The same for float64; for a narrower dtype, tried on every
  // value of astype.
  if (dtype != data_type::float64) {
    if (info(astype).bits > 16)
      throw refuse(i + 1, "a cast_value to " + type_name(astype) + " on " + type_name(dtype) + " (numcodecs decodes in " +
                              "float64, scale_offset in " + type_name(dtype) + ", and whether they agree is checked over " +
                              "every encoded value only up to 16 bits)");
    if (const auto d = first_decode_difference(v3, pair, decoded, astype))
      throw refuse(i, "values that numcodecs decodes differently: " + *d);
  }
  return v2;
}

v2_array_fields v3_codecs_to_v2(const array_metadata& m) {
  if (is_sized(m.type)) static_cast<void>(v2_sized_dtype(m.type_spec(), '<'));  // throws for a field NumPy lacks
  else if (!numpy_dtype_string(m.type, '<'))
    throw error(errc::unsupported, "data_type: expected a data type that Zarr v2 (NumPy) has, got " + std::string(name(m.type)));
  const chunk_spec spec{m.chunk_shape, m.type, m.fill_value, m.layout};
  const codec_chain chain(m.codecs, spec);
  const auto resolved = chain.to_json();  // every default made explicit
  const auto& codecs = resolved.as_array();
  const auto where = [](std::size_t i) { return "codecs[" + std::to_string(i) + "]"; };
  json::array expected = codecs;  // the chain that the v2 form must make again
  v2_array_fields out;
  // The byte order of the stored data: the `bytes` codec's (little when it has none: one byte).
  char order = '<';
  for (const auto& c : codecs)
    if (c.at("name") == "bytes")
      if (const auto* e = c.at("configuration").as_object().if_contains("endian"); e != nullptr && *e == "big") order = '>';
  out.byte_order = info(m.type).size <= 1 ? '|' : order;  // 0: string and bytes
  if (is_sized(m.type)) {  // raw bits and one-byte fields: no order; text and wider fields: the codec's
    const auto words = element_words(m.type, m.layout);
    const bool ordered = std::any_of(words.begin(), words.end(), [](const element_word& w) { return w.size > 1; });
    out.byte_order = ordered ? order : '|';
  }
  std::size_t i = 0;
  if (!codecs.empty() && codecs[0].at("name") == "transpose") {
    const auto& axes = codecs[0].at("configuration").at("order").as_array();
    bool identity = true, reversed = true;
    for (std::size_t d = 0; d < axes.size(); ++d) {
      const auto axis = axes[d].to_number<std::uint64_t>();
      identity = identity && axis == d;
      reversed = reversed && axis == axes.size() - 1 - d;
    }
    if (!identity && !reversed)
      throw error(errc::unsupported, where(0) + ": expected a transpose that reverses the axes (Zarr v2 order \"F\") or "
                                                "none, got the order " + json::serialize(axes) +
                                                " (Zarr v2 has only the orders \"C\" and \"F\")");
    if (!identity) out.order = 'F';
    else expected.erase(expected.begin());
    i = 1;
  }
  const std::size_t compressor_at =
      !codecs.empty() && is_compressor(codecs.back().at("name").as_string()) ? codecs.size() - 1 : codecs.size();
  json::array filters;
  std::vector<json::array> migrated;  // the [scale_offset, cast_value] pairs that became fixedscaleoffset
  const auto& a2a = chain.array_to_array();
  for (; i < codecs.size(); ++i) {
    const auto& c = codecs[i].as_object();
    if (c.at("name") == "bytes") continue;
    if (c.at("name") == "transpose")
      throw error(errc::unsupported, where(i) + ": expected a transpose only first (Zarr v2 order \"F\"), got one after " +
                                         std::string(codecs[i - 1].at("name").as_string()));
    if (c.at("name") == "scale_offset" && i < a2a.size()) {
      // The array -> array codecs come first in the resolved chain, in order (decision 54).
      filters.push_back(scale_offset_to_fixedscaleoffset(*a2a[i], i + 1 < a2a.size() ? a2a[i + 1].get() : nullptr, i, order));
      migrated.push_back(json::array{codecs[i], codecs[i + 1]});
      ++i;
      continue;
    }
    auto config = to_numcodecs(c, where(i), order);
    if (i == compressor_at) out.compressor = std::move(config);
    else filters.push_back(std::move(config));
  }
  if (!filters.empty()) out.filters = std::move(filters);
  // The Zarr v2 form must make this very chain again (decision 27's mapping).
  auto candidate = m;
  candidate.zarr_format = 2;
  candidate.v2 = out;
  auto back = codec_chain(v2_codecs(candidate), spec).to_json();
  // Each numcodecs.fixedscaleoffset stands for the pair it was made from, which
  // scale_offset_to_fixedscaleoffset checked reads and writes alike.
  if (!migrated.empty()) {
    json::array with_pairs;
    std::size_t k = 0;
    for (const auto& c : back.as_array()) {
      if (c.at("name") == "numcodecs.fixedscaleoffset" && k < migrated.size()) {
        for (const auto& p : migrated[k]) with_pairs.push_back(p);
        ++k;
      } else {
        with_pairs.push_back(c);
      }
    }
    back = std::move(with_pairs);
  }
  if (same_bytes_form(back) != same_bytes_form(expected))
    throw error(errc::unsupported, "codecs: expected a chain that Zarr v2 expresses exactly, got " + json::serialize(resolved) +
                                       " (its Zarr v2 form would read as " + json::serialize(back) + ")");
  return out;
}

}  // namespace zarr
