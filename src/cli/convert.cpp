// zarr3 convert: copies an array into a new one, re-encoding it (codecs, chunk shape) and
// converting its values where that is exact. Works block by block: bounded memory.
#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include "cli.hpp"

namespace zarr_cli {

namespace json = boost::json;

namespace {

using zarr::data_type;
using zarr::dtype_kind;

// Whether every value of `from` converts exactly to `to`, or is checked value by value.
bool convertible(data_type from, data_type to) {
  if (from == to) return true;
  if (zarr::is_integer(from) && zarr::is_integer(to)) return true;  // checked per value
  if (to == data_type::float64 && (zarr::is_integer(from) || zarr::is_float(from))) return true;
  return from == data_type::complex64 && to == data_type::complex128;
}

// The v2 dtype of `m` as text ("<f4", "<U8", a structured list), for the printed mappings.
std::string v2_dtype_text(const zarr::array_metadata& m, char order, zarr::time_resolution time) {
  if (zarr::is_sized(m.type)) {
    const auto d = zarr::v2_sized_dtype(m.type_spec(), order);
    return d.is_string() ? std::string(d.as_string()) : json::serialize(d);
  }
  return *zarr::numpy_dtype_string(m.type, order, time);
}

// The fill value's JSON text, for messages.
std::string fill_text(const zarr::array_metadata& m) {
  if (zarr::has_variable_elements(m.type, m.layout)) return json::serialize(zarr::variable_value_to_json(m.fill_string, m.type_spec()));
  if (zarr::is_sized(m.type)) return zarr::sized_value_to_json_text(m.fill_value.bytes(), m.type_spec());
  return zarr::fill_value_to_json_text(m.fill_value);
}

// The exact value of float bits of any format (every one fits a double).
double decode_float(std::uint64_t bits, const zarr::float_format& f) {
  if (f.specials == zarr::float_specials::e8m0)
    return bits == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, static_cast<int>(bits) - f.bias);
  const bool negative = (bits & f.sign_mask()) != 0;
  const std::uint64_t magnitude = bits & ~f.sign_mask();
  const std::uint64_t e = magnitude >> f.mantissa_bits;
  const std::uint64_t m = magnitude & ((std::uint64_t{1} << f.mantissa_bits) - 1);
  double v = 0;
  if (f.specials == zarr::float_specials::ieee && e == (std::uint64_t{1} << f.exponent_bits) - 1)
    v = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  else if (f.specials == zarr::float_specials::fnuz && bits == f.sign_mask())
    return std::numeric_limits<double>::quiet_NaN();
  else if (f.specials == zarr::float_specials::fn_nan && magnitude == f.canonical_nan())
    return std::numeric_limits<double>::quiet_NaN();
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mantissa_bits);
  else
    v = std::ldexp(static_cast<double>(m | (std::uint64_t{1} << f.mantissa_bits)), static_cast<int>(e) - f.bias - f.mantissa_bits);
  return negative ? -v : v;
}

// Converts one element; false when the value has no exact equivalent in `to`.
bool convert_element(data_type from, data_type to, const std::byte* in, std::byte* out) {
  const auto& f = zarr::info(from);
  const auto& t = zarr::info(to);
  if (from == to) {
    std::memcpy(out, in, static_cast<std::size_t>(f.size));
    return true;
  }
  if (from == data_type::complex64) {  // to complex128
    float c[2];
    std::memcpy(c, in, sizeof c);
    const double d[2] = {c[0], c[1]};
    std::memcpy(out, d, sizeof d);
    return true;
  }
  if (f.kind == dtype_kind::floating) {  // to float64
    double v = 0;
    if (from == data_type::float32) {
      float x;
      std::memcpy(&x, in, sizeof x);
      v = x;
    } else {
      std::uint64_t bits = 0;
      std::memcpy(&bits, in, static_cast<std::size_t>(f.size));
      if (f.bits < 64) bits &= (std::uint64_t{1} << f.bits) - 1;
      v = decode_float(bits, f.format);
    }
    std::memcpy(out, &v, sizeof v);
    return true;
  }
  // From an integer: its value, widened.
  bool negative = false;
  std::uint64_t magnitude = 0;  // two's complement bits when negative
  if (f.kind == dtype_kind::signed_integer) {
    std::int64_t v = 0;
    switch (f.size) {
      case 1: { std::int8_t x; std::memcpy(&x, in, 1); v = x; break; }
      case 2: { std::int16_t x; std::memcpy(&x, in, 2); v = x; break; }
      case 4: { std::int32_t x; std::memcpy(&x, in, 4); v = x; break; }
      default: std::memcpy(&v, in, 8); break;
    }
    negative = v < 0;
    magnitude = static_cast<std::uint64_t>(v);
  } else {
    std::memcpy(&magnitude, in, static_cast<std::size_t>(f.size));  // little-endian host: the low bytes
    if (f.size < 8) magnitude &= (std::uint64_t{1} << (8 * f.size)) - 1;
  }
  if (to == data_type::float64) {
    const double d = negative ? static_cast<double>(static_cast<std::int64_t>(magnitude)) : static_cast<double>(magnitude);
    const bool exact = negative ? (d >= -9223372036854775808.0 && static_cast<std::int64_t>(d) == static_cast<std::int64_t>(magnitude))
                                : (d < 18446744073709551616.0 && static_cast<std::uint64_t>(d) == magnitude);
    if (!exact) return false;
    std::memcpy(out, &d, sizeof d);
    return true;
  }
  // To an integer type: in range?
  if (negative ? static_cast<std::int64_t>(magnitude) < t.min : magnitude > t.max) return false;
  std::memcpy(out, &magnitude, static_cast<std::size_t>(t.size));  // two's complement, little-endian
  return true;
}

std::string coordinates(std::span<const std::uint64_t> start, std::span<const std::uint64_t> extent, std::uint64_t i) {
  std::vector<std::uint64_t> at(start.size());
  for (std::size_t d = start.size(); d-- > 0;) {
    at[d] = start[d] + i % extent[d];
    i /= extent[d];
  }
  std::string s = "[";
  for (std::size_t d = 0; d < at.size(); ++d) s += (d ? ", " : "") + std::to_string(at[d]);
  return s + "]";
}

// A Zarr v2 array's metadata as Zarr v3 (docs/decisions.md 29): the codec chain it reads
// with, `_ARRAY_DIMENSIONS` as dimension_names, the default chunk key encoding, a fill value
// (zero when it had none). Returns what was mapped, one line each.
std::vector<std::string> v2_to_v3(zarr::array_metadata& meta, const zarr::array& src) {
  std::vector<std::string> mapped;
  const auto& v2 = meta.v2;
  if (v2.order == 'F' && meta.shape.size() > 1) mapped.push_back("order \"F\" -> transpose " +
                                                                  json::serialize(src.codecs().array_to_array().front()->to_json().at("configuration").at("order")));
  // The chain holds, in order, [transpose,] the filters and the compressor with `bytes` among
  // them (unless packbits makes the bytes): pair them up.
  const auto chain = src.codecs().to_json().as_array();
  std::size_t next = v2.order == 'F' && meta.shape.size() > 1 ? 1 : 0;
  const auto pair_up = [&](const json::value& config, const std::string& what) {
    if (next < chain.size() && chain[next].at("name") == "bytes") ++next;
    mapped.push_back(what + " \"" + std::string(config.at("id").as_string()) + "\" -> " +
                     std::string(chain.at(next++).at("name").as_string()));
  };
  if (const auto* filters = v2.filters.if_array())
    for (std::size_t i = 0; i < filters->size(); ++i) pair_up((*filters)[i], "filters[" + std::to_string(i) + "]");
  if (v2.compressor.is_object()) pair_up(v2.compressor, "compressor");
  mapped.push_back("dtype \"" + v2_dtype_text(meta, v2.byte_order, meta.time) + "\" -> " + std::string(zarr::name(meta.type)) +
                   (zarr::info(meta.type).size > 1 || v2.byte_order != '|' ? std::string(", bytes ") + (v2.byte_order == '>' ? "big" : "little") + "-endian"
                                                   : std::string()));
  meta.codecs = src.codecs().to_json();
  if (meta.no_fill_value) {
    mapped.push_back("fill_value null -> " + fill_text(meta) + " (Zarr v3 needs one)");
    meta.no_fill_value = false;
  }
  if (const auto* names = meta.attributes.if_contains("_ARRAY_DIMENSIONS"); names && names->is_array() &&
      names->as_array().size() == meta.shape.size() &&
      std::all_of(names->as_array().begin(), names->as_array().end(), [](const json::value& n) { return n.is_string(); })) {
    std::vector<std::optional<std::string>> dims;
    for (const auto& n : names->as_array()) dims.emplace_back(std::string(n.as_string()));
    mapped.push_back("attributes._ARRAY_DIMENSIONS -> dimension_names " + json::serialize(*names));
    meta.dimension_names = std::move(dims);
    meta.attributes.erase("_ARRAY_DIMENSIONS");
  }
  mapped.push_back("dimension_separator \"" + std::string(1, meta.key_encoding.separator) +
                   "\" keys -> chunk_key_encoding default (\"c/...\")");
  meta.key_encoding = {};
  meta.zarr_format = 3;
  meta.v2 = {};
  meta.source.clear();
  return mapped;
}

// A Zarr v3 array's metadata as Zarr v2 (docs/decisions.md 40): the chain as order, filters and
// compressor (zarr::v3_codecs_to_v2), dimension_names as `_ARRAY_DIMENSIONS`, the v2 chunk keys
// ("." between indices unless the array had the v2 encoding with "/"). Returns what was mapped.
std::vector<std::string> v3_to_v2(zarr::array_metadata& meta) {
  if (meta.rectilinear)
    throw zarr::error(zarr::errc::unsupported, "chunk_grid: expected a regular grid (Zarr v2 has no other), got a "
                                               "rectilinear one (give --chunks)");
  std::vector<std::string> mapped;
  const auto fields = zarr::v3_codecs_to_v2(meta);
  // The resolved chain holds, in order, [transpose,] the filters and the compressor, with
  // `bytes` among them (unless numcodecs.packbits makes the bytes): pair them up.
  const auto chain = zarr::codec_chain(meta.codecs, {meta.chunk_shape, meta.type, meta.fill_value, meta.layout}).to_json().as_array();
  std::size_t next = 0;
  if (!chain.empty() && chain[0].at("name") == "transpose") {
    mapped.push_back(json::serialize(chain[0]) + " -> order \"" + std::string(1, fields.order) + "\"");
    next = 1;
  }
  const auto pair_up = [&](const json::value& config, const std::string& what) {
    while (chain.at(next).at("name") == "bytes") ++next;
    std::string from(chain.at(next++).at("name").as_string());
    // A scale_offset and its cast_value make one fixedscaleoffset (docs/decisions.md 54).
    if (from == "scale_offset" && config.at("id") == "fixedscaleoffset") from += " + " + std::string(chain.at(next++).at("name").as_string());
    mapped.push_back(from + " -> " + what + " " + json::serialize(config));
  };
  if (const auto* filters = fields.filters.if_array())
    for (std::size_t i = 0; i < filters->size(); ++i) pair_up((*filters)[i], "filters[" + std::to_string(i) + "]");
  if (fields.compressor.is_object()) pair_up(fields.compressor, "compressor");
  const auto dtype = v2_dtype_text(meta, fields.byte_order, {});
  mapped.push_back(std::string(zarr::name(meta.type)) +
                   (zarr::info(meta.type).size > 1 || (zarr::is_sized(meta.type) && fields.byte_order != '|') ? std::string(", bytes ") + (fields.byte_order == '>' ? "big" : "little") + "-endian"
                                                   : std::string()) +
                   " -> dtype \"" + dtype + "\"");
  const auto fill = zarr::fill_value_to_json_text(meta.fill_value);
  if (fill.find("0x") != std::string::npos)
    throw zarr::error(zarr::errc::unsupported, "fill_value " + fill + ": expected a value that Zarr v2 can write (\"NaN\", "
                                               "\"Infinity\", \"-Infinity\" or a number), got a NaN with a payload");
  if (meta.dimension_names) {
    json::array names;
    bool any = false;
    for (const auto& n : *meta.dimension_names) {
      any = any || n.has_value();
      names.push_back(n ? json::value(*n) : json::value());
    }
    if (any) {
      if (std::any_of(names.begin(), names.end(), [](const json::value& n) { return n.is_null(); }))
        throw zarr::error(zarr::errc::unsupported, "dimension_names: expected a name for every dimension or none (Zarr v2 "
                                                   "keeps them as attributes._ARRAY_DIMENSIONS, strings only), got " +
                                                       json::serialize(names));
      if (const auto* old = meta.attributes.if_contains("_ARRAY_DIMENSIONS"); old != nullptr && *old != names)
        throw zarr::error(zarr::errc::invalid_metadata, "dimension_names " + json::serialize(names) +
                                                            ": expected the same as attributes._ARRAY_DIMENSIONS, got " +
                                                            json::serialize(*old));
      mapped.push_back("dimension_names " + json::serialize(names) + " -> attributes._ARRAY_DIMENSIONS");
      meta.attributes["_ARRAY_DIMENSIONS"] = std::move(names);
    }
  }
  const char separator = meta.key_encoding.encoding == zarr::chunk_key_encoding::kind::v2 ? meta.key_encoding.separator : '.';
  mapped.push_back("chunk_key_encoding " + json::serialize(meta.key_encoding.to_json()) + " -> dimension_separator \"" +
                   std::string(1, separator) + "\"");
  for (const auto& [key, value] : meta.extra)
    mapped.push_back(std::string(key) + " (an extension that need not be understood) -> dropped (Zarr v2 has no place for it)");
  meta.zarr_format = 2;
  meta.v2 = fields;
  meta.codecs = nullptr;
  meta.dimension_names.reset();
  meta.key_encoding = {zarr::chunk_key_encoding::kind::v2, separator};
  meta.extra = {};
  meta.source.clear();
  return mapped;
}

// Whether no chunk of `a` that meets `r` is stored.
bool no_chunk_stored(const zarr::array& a, const zarr::region& r) {
  bool none = true;
  zarr::for_each_cell_part(std::span<const zarr::grid_axis>(a.metadata().grid()), r, [&](const zarr::cell_part& part) {
    if (none && a.storage().size(a.chunk_key(part.cell))) none = false;
  });
  return none;
}

// One dimension of the blocks convert copies: whole destination chunks (`d`) that span at
// least one whole source chunk (`s`), over an array of `extent` elements there.
zarr::grid_axis block_axis(const zarr::grid_axis& s, const zarr::grid_axis& d, std::uint64_t extent) {
  if (s.ends.empty() && d.ends.empty()) return {d.step * ((s.step + d.step - 1) / d.step), {}};
  zarr::grid_axis b{1, {}};
  for (std::uint64_t lo = 0; lo < extent;) {
    // The end of the source chunk that holds lo, then of the destination chunk there.
    const auto sc = s.cell_of(lo);
    const auto hi = std::min(extent, s.origin(sc) + s.edge(sc));
    const auto dc = d.cell_of(hi - 1);
    b.ends.push_back(d.origin(dc) + d.edge(dc));
    lo = b.ends.back();
  }
  return b;
}

std::string value_text(data_type type, const std::byte* p) {
  zarr::scalar s{type, {}};
  std::memcpy(s.bits.data(), p, static_cast<std::size_t>(zarr::info(type).size));
  return zarr::fill_value_to_json_text(s);
}

// --data-type: the new type (exact conversions only) and the fill value in it.
void change_data_type(zarr::array_metadata& meta, data_type from, const std::string& name) {
  data_type to{};
  try {
    to = zarr::data_type_from_name(name);
  } catch (const zarr::error& e) {
    throw usage_error(std::string("--data-type: ") + e.what());
  }
  if (from != to && (zarr::is_variable_length(from) || zarr::is_variable_length(to)))
    throw zarr::error(zarr::errc::unsupported, "--data-type: converting " + std::string(zarr::name(from)) + " to " +
                                                   std::string(zarr::name(to)) + ": expected the same type");
  if (!convertible(from, to))
    throw zarr::error(zarr::errc::unsupported,
                      "--data-type: converting " + std::string(zarr::name(from)) + " to " + std::string(zarr::name(to)) +
                          " needs rounding; for now only identical types, integer to integer, integer or float to "
                          "float64 and complex64 to complex128 are supported (value by value, exactly)");
  zarr::scalar fill{to, {}};
  if (from != to && !convert_element(from, to, meta.fill_value.bits.data(), fill.bits.data()))
    throw zarr::error(zarr::errc::out_of_range, "fill_value " + zarr::fill_value_to_json_text(meta.fill_value) +
                                                    ": expected a value that " + std::string(zarr::name(to)) + " holds exactly");
  meta.type = to;
  meta.fill_value = fill;
}

// --chunks: a regular grid of these chunks.
void change_chunks(zarr::array_metadata& meta, const std::string& chunks) {
  auto shape = parse_shape_list(chunks, "--chunks");
  if (shape.size() != meta.shape.size())
    throw usage_error("--chunks \"" + chunks + "\": expected " + std::to_string(meta.shape.size()) + " sizes, got " +
                      std::to_string(shape.size()));
  meta.chunk_shape = std::move(shape);
  meta.rectilinear = false;  // a regular grid replaces a rectilinear one
  meta.chunk_edges.clear();
}

// Without --codecs, a legacy numcodecs.fixedscaleoffset (read only) becomes [scale_offset,
// cast_value] (docs/decisions.md 18); the other codecs stay. True when one was replaced.
bool migrate_legacy_codecs(zarr::array_metadata& meta, const zarr::array& src) {
  bool migrated = false;
  boost::json::array codecs;
  std::size_t a2a = 0;  // position among the source chain's array -> array codecs
  for (const auto& c : meta.codecs.as_array()) {
    const auto* name = c.is_string() ? &c : c.is_object() ? c.as_object().if_contains("name") : nullptr;
    const auto* entry = name && name->is_string() ? zarr::find_codec(name->as_string()) : nullptr;
    if (entry && entry->kind == zarr::codec_kind::array_to_array) {
      const auto& codec = *src.codecs().array_to_array().at(a2a++);
      if (auto replacement = codec.replacement("codecs[" + std::to_string(a2a - 1) + "]")) {
        for (auto& r : *replacement) codecs.push_back(std::move(r));
        migrated = true;
        continue;
      }
    }
    codecs.push_back(c);
  }
  meta.codecs = std::move(codecs);
  return migrated;
}

// What copying the values found.
struct copy_outcome {
  double largest_change = 0;       // of a value read back through migrated codecs
  std::uint64_t left_missing = 0;  // blocks of a source without a fill value that has no chunk there
};

// Copies every value of `src` into `dst` (of type meta.type), block by block: blocks of whole
// destination chunks that span at least one source chunk.
copy_outcome copy_values(const zarr::array& src, zarr::array& dst, const zarr::array_metadata& meta, bool migrated) {
  copy_outcome outcome;
  const auto from = src.type();
  const auto rank = meta.shape.size();
  const auto src_grid = src.metadata().grid(), dst_grid = meta.grid();
  std::vector<zarr::grid_axis> block(rank);
  for (std::size_t i = 0; i < rank; ++i) block[i] = block_axis(src_grid[i], dst_grid[i], meta.shape[i]);
  const auto all = zarr::region::all(meta.shape);
  std::uint64_t blocks = 1;
  for (std::size_t i = 0; i < rank; ++i)
    blocks *= block[i].ends.empty() ? (meta.shape[i] + block[i].step - 1) / block[i].step : block[i].ends.size();
  if (all.num_elements() == 0) blocks = 0;
  progress bar("convert", blocks);
  const auto in_size = static_cast<std::size_t>(src.metadata().element_size());
  const auto out_size = static_cast<std::size_t>(meta.element_size());
  zarr::bytes in, out;
  const auto copy_block = [&](const zarr::region& r) {
    // A v2 source without a fill value has no values where it has no chunks: they stay
    // missing (docs/decisions.md 41).
    if (src.metadata().no_fill_value && no_chunk_stored(src, r)) {
      ++outcome.left_missing;
      bar.advance();
      return;
    }
    if (zarr::has_variable_elements(from, src.metadata().layout)) {
      dst.write_strings(r, src.read_strings(r));
      bar.advance();
      return;
    }
    const auto n = static_cast<std::size_t>(r.num_elements());
    in.resize(n * in_size);
    src.read(r, in);
    if (from == meta.type) {
      dst.write(r, in);
      if (migrated) {
        // What the two-codec form reads back may differ from numcodecs' decode by the
        // rounding of its arithmetic in dtype (docs/decisions.md 20): measure the change.
        out.resize(in.size());
        dst.read(r, out);
        for (std::size_t i = 0; i < n; ++i) {
          const auto a = zarr::to_double(from, zarr::load_raw(from, in.data() + i * in_size));
          const auto b = zarr::to_double(from, zarr::load_raw(from, out.data() + i * in_size));
          if (a != b && !(std::isnan(a) && std::isnan(b))) outcome.largest_change = std::max(outcome.largest_change, std::abs(a - b));
        }
      }
    } else {
      out.resize(n * out_size);
      for (std::size_t i = 0; i < n; ++i)
        if (!convert_element(from, meta.type, in.data() + i * in_size, out.data() + i * out_size))
          throw zarr::error(zarr::errc::out_of_range,
                            "array \"/" + src.path() + "\", element " + coordinates(r.start, r.extent(), i) + ": " +
                                value_text(from, in.data() + i * in_size) + " has no exact " +
                                std::string(zarr::name(meta.type)) + " equivalent");
      dst.write(r, out);
    }
    bar.advance();
  };
  if (rank == 0) {
    copy_block(all);
  } else {
    zarr::for_each_cell_part(std::span<const zarr::grid_axis>(block), all, [&](const zarr::cell_part& part) {
      zarr::region r{part.in_region, part.in_region};
      for (std::size_t i = 0; i < r.stop.size(); ++i) r.stop[i] += part.in_cell.stop[i] - part.in_cell.start[i];
      copy_block(r);
    });
  }
  return outcome;
}

}  // namespace

int run_convert(std::span<const std::string_view> argv) {
  const auto args =
      parse_arguments("convert", argv, {{"--codecs", "--chunks", "--data-type", "--format"}, {"--overwrite"}, 2, 2});
  const auto src_at = parse_location(args.positionals[0]);
  const auto dst_at = parse_location(args.positionals[1]);
  current_target() = src_at.display() + " -> " + dst_at.display();
  const auto src = zarr::array::open(open_store_for_reading(src_at), src_at.node, array_open_options());

  auto meta = src.metadata();
  const auto from = src.type();
  const auto format = args.get("--format").value_or("3");
  if (format != "2" && format != "3") throw usage_error("--format " + format + ": expected 2 or 3");
  std::vector<std::string> mapped;
  const bool to_v2 = format == "2" && meta.zarr_format == 3;
  if (format == "3" && meta.zarr_format == 2) mapped = v2_to_v3(meta, src);
  if (const auto name = args.get("--data-type")) change_data_type(meta, from, *name);
  if (const auto chunks = args.get("--chunks")) change_chunks(meta, *chunks);
  bool migrated = false;
  if (const auto file = args.get("--codecs")) {
    const auto text = read_text_file(*file, "codecs file");
    auto codecs = zarr::parse_json(text, *file);
    if (!codecs.is_array())
      throw zarr::error(zarr::errc::invalid_metadata, "codecs file \"" + *file + "\": expected a JSON array of codecs");
    meta.codecs = std::move(codecs);
  } else if (meta.zarr_format == 3 && !to_v2) {
    migrated = migrate_legacy_codecs(meta, src);
  }
  if (to_v2) {
    try {
      mapped = v3_to_v2(meta);
    } catch (const zarr::error& e) {
      throw zarr::error(e.code(), std::string("--format 2: ") + e.what());
    }
  }
  // Validate the new array completely before creating anything.
  // (A rectilinear grid's chains, one per chunk shape, are validated by array::create.)
  if (meta.zarr_format == 3 && !meta.rectilinear) static_cast<void>(zarr::codec_chain(meta.codecs, {meta.chunk_shape, meta.type, meta.fill_value, meta.layout}));
  if (!src_at.remote() && !dst_at.remote() && std::filesystem::exists(dst_at.root) && std::filesystem::exists(src_at.root) &&
      std::filesystem::equivalent(src_at.root, dst_at.root) && src_at.node == dst_at.node)
    throw usage_error("zarr3 convert: SRC and DST are the same node");

  auto dst = zarr::array::create(open_store(dst_at, true), dst_at.node, meta, args.has("--overwrite"));
  copy_outcome outcome;
  try {
    outcome = copy_values(src, dst, meta, migrated);
  } catch (...) {
    // Leave no half-converted array behind: its chunks and its zarr.json go.
    for (const auto& key : stored_chunk_keys(dst)) dst.storage().erase(key);
    for (const auto document : {zarr::zarr_json_key, zarr::zarray_key, zarr::zattrs_key})
      dst.storage().erase(zarr::node_prefix(dst_at.node) + std::string(document));
    throw;
  }
  std::cout << "converted " << src_at.display() << " (" << zarr::name(from) << ") to " << dst_at.display() << " ("
            << zarr::name(meta.type) << ")\n";
  for (const auto& line : mapped) std::cout << "mapped " << line << "\n";
  if (outcome.left_missing != 0)
    std::cout << "left " << outcome.left_missing << " blocks of chunks missing: the source has no chunk there and no fill value"
              << (meta.no_fill_value ? std::string()
                                     : ", so they read as the fill value " + fill_text(meta))
              << "\n";
  if (to_v2 && meta.v2.compressor.is_object())
    std::cout << "note: netCDF readers without compression filters (Debian's netcdf-c, ncdump, nccopy) read this "
                 "compressed array as garbage without an error; for them, convert with --codecs FILE holding "
                 "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]\n";
  if (migrated)
    std::cout << "migrated numcodecs.fixedscaleoffset to scale_offset + cast_value; largest change of a value: "
              << outcome.largest_change << "\n";
  return exit_ok;
}

}  // namespace zarr_cli
