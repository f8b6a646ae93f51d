// zarr.codec.packbits: word-at-a-time bit packing (zarr-extensions codecs/packbits, docs/decisions.md 22).
// Components go through a 64-bit accumulator that is stored eight bytes at a time; the 1-,
// 2- and 4-bit cases of one-byte types gather eight elements from one 64-bit load with
// shifts and masks, and decode through a 256-row table; full-width types are a memcpy.
module;
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.packbits;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr bool little_host = std::endian::native == std::endian::little;

// The packed sequence is little-endian: sequence bit j is bit j % 8 of byte j / 8 (words go
// through zarr.bytes' load_le64 and store_le64).
// Up to eight bytes at `p` (fewer at the end of the input), zero-extended.
inline std::uint64_t load_le64_tail(const std::byte* p, std::size_t available) noexcept {
  if (available >= 8) return load_le64(p);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < available; ++i) v |= std::uint64_t{static_cast<std::uint8_t>(p[i])} << (8 * i);
  return v;
}

constexpr std::uint64_t low_mask(int bits) noexcept { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

// A component's value from its `b` packed bits: shifted back to `first`, then sign-extended
// from bit `first + b - 1` (signed integers) or zero-extended.
template <bool Signed>
inline std::uint64_t widen(std::uint64_t x, int first, int b) noexcept {
  const std::uint64_t y = x << first;
  if constexpr (Signed) {
    const int s = 64 - first - b;
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(y << s) >> s);
  } else {
    return y;
  }
}

// Packs bits [first, first + b) of `count` components of type U.
template <class U>
void pack_generic(const std::byte* in, std::uint64_t count, int first, int b, std::byte* out) noexcept {
  const std::uint64_t mask = low_mask(b);
  std::uint64_t acc = 0;
  int filled = 0;  // valid bits in acc, < 64 between components
  for (std::uint64_t i = 0; i < count; ++i) {
    U u;
    std::memcpy(&u, in + i * sizeof(U), sizeof(U));
    const std::uint64_t x = (static_cast<std::uint64_t>(u) >> first) & mask;
    acc |= x << filled;
    filled += b;
    if (filled >= 64) {
      store_le64(out, acc);
      out += 8;
      filled -= 64;
      acc = filled == 0 ? 0 : x >> (b - filled);  // the bits of x that did not fit
    }
  }
  for (int i = 0; i < filled; i += 8) {
    *out++ = static_cast<std::byte>(acc & 0xFF);
    acc >>= 8;
  }
}

// The inverse: `count` components of type U from the packed bits at `in` (`size` bytes).
template <class U, bool Signed>
void unpack_generic(const std::byte* in, std::size_t size, std::uint64_t count, int first, int b,
                    std::byte* out) noexcept {
  const std::uint64_t mask = low_mask(b);
  std::uint64_t acc = 0;
  int avail = 0;  // unread bits in acc (the rest of acc is zero)
  std::size_t pos = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t x;
    if (avail >= b) {
      x = acc & mask;
      acc = b == 64 ? 0 : acc >> b;
      avail -= b;
    } else {
      const std::uint64_t w = load_le64_tail(in + pos, size - pos);
      pos += 8;
      x = (acc | (w << avail)) & mask;
      const int used = b - avail;  // bits of w taken, 1..64
      acc = used == 64 ? 0 : w >> used;
      avail = 64 - used;
    }
    const auto u = static_cast<U>(widen<Signed>(x, first, b));
    std::memcpy(out + i * sizeof(U), &u, sizeof(U));
  }
}

// K = 1, 2 or 4 bits of one-byte elements: one 64-bit load gathers eight elements into
// K bytes. The tail (fewer than eight elements) goes through pack_generic.
template <int K>
void pack_small(const std::byte* in, std::uint64_t count, int first, std::byte* out) noexcept {
  constexpr std::uint64_t lanes = K == 1 ? 0x0101010101010101 : K == 2 ? 0x0303030303030303 : 0x0F0F0F0F0F0F0F0F;
  const std::uint64_t groups = count / 8;
  for (std::uint64_t g = 0; g < groups; ++g) {
    std::uint64_t x = (load_le64(in + g * 8) >> first) & lanes;  // element j in the low K bits of byte j
    if constexpr (K == 1) {
      // Bit 8j moves to bit 56 + j; the products of distinct bits never meet, so no carries.
      out[g] = static_cast<std::byte>((x * 0x0102040810204080) >> 56);
    } else if constexpr (K == 2) {
      x = (x | x >> 6) & 0x000F000F000F000F;
      x = (x | x >> 12) & 0x000000FF000000FF;
      x = (x | x >> 24) & 0xFFFF;
      out[g * 2] = static_cast<std::byte>(x);
      out[g * 2 + 1] = static_cast<std::byte>(x >> 8);
    } else {
      x = (x | x >> 4) & 0x00FF00FF00FF00FF;
      x = (x | x >> 8) & 0x0000FFFF0000FFFF;
      x = (x | x >> 16) & 0xFFFFFFFF;
      for (int i = 0; i < 4; ++i) out[g * 4 + i] = static_cast<std::byte>(x >> (8 * i));
    }
  }
  pack_generic<std::uint8_t>(in + groups * 8, count - groups * 8, first, K, out + groups * K);
}

template <int K>
void unpack_small(const std::byte* in, std::size_t size, std::uint64_t count, const std::uint8_t* table, int first,
                  bool is_signed, std::byte* out) noexcept {
  constexpr std::uint64_t per_byte = 8 / K;
  const std::uint64_t full = count / per_byte;  // packed bytes that hold per_byte whole elements
  for (std::uint64_t i = 0; i < full; ++i)
    std::memcpy(out + i * per_byte, table + static_cast<std::size_t>(in[i]) * 8, per_byte);
  if (is_signed)
    unpack_generic<std::uint8_t, true>(in + full, size - full, count - full * per_byte, first, K, out + full * per_byte);
  else
    unpack_generic<std::uint8_t, false>(in + full, size - full, count - full * per_byte, first, K, out + full * per_byte);
}

template <class U>
void unpack_any(const std::byte* in, std::size_t size, std::uint64_t count, int first, int b, bool is_signed,
                std::byte* out) noexcept {
  if (is_signed)
    unpack_generic<U, true>(in, size, count, first, b, out);
  else
    unpack_generic<U, false>(in, size, count, first, b, out);
}

// The index of the first of `count` integer components that bits [first, last] cannot hold
// (it would decode to another value), or `count` when all fit.
template <class S>
std::uint64_t first_unrepresentable(const std::byte* in, std::uint64_t count, int first, int last) noexcept {
  static_assert(sizeof(S) <= 8);
  bool bad = false;
  const auto round_trip = [&](S s) {
    if constexpr (std::is_signed_v<S>) {
      const auto v = static_cast<std::int64_t>(s);
      const int shift = 63 - last;
      const auto kept = static_cast<std::uint64_t>(v) & ~low_mask(first);
      return static_cast<std::int64_t>(kept << shift) >> shift == v;
    } else {
      const auto v = static_cast<std::uint64_t>(s);
      return (v & ~low_mask(first) & low_mask(last + 1)) == v;
    }
  };
  for (std::uint64_t i = 0; i < count; ++i) {  // no early exit: the loop vectorises
    S s;
    std::memcpy(&s, in + i * sizeof(S), sizeof(S));
    bad |= !round_trip(s);
  }
  if (!bad) return count;
  for (std::uint64_t i = 0; i < count; ++i) {
    S s;
    std::memcpy(&s, in + i * sizeof(S), sizeof(S));
    if (!round_trip(s)) return i;
  }
  return count;
}

template <class S>
std::string component_text(const std::byte* p) {
  S s;
  std::memcpy(&s, p, sizeof(S));
  return std::to_string(s);
}

std::string supported_types() {
  return "bool, int2, int4, int8, int16, int32, int64, uint2, uint4, uint8, uint16, uint32, uint64, float4_e2m1fn, "
         "float6_e2m3fn, float6_e3m2fn, the float8 types, bfloat16, float16, float32, float64, the complex types of "
         "these floats, numpy.datetime64 or numpy.timedelta64";
}

// Integers whose values the kept bits must hold: the integer types and the time types (int64).
bool packs_integers(data_type t) noexcept { return is_integer(t) || is_time(t); }

std::optional<std::uint64_t> bit_member(const json::object& config, std::string_view key, const std::string& where) {
  const auto* v = config.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (const auto* i = v->if_int64(); i != nullptr && *i >= 0) return static_cast<std::uint64_t>(*i);
  if (const auto* u = v->if_uint64()) return *u;
  throw error(errc::invalid_metadata, where + ".configuration." + std::string(key) +
                                          ": expected a non-negative integer or null, got " + json::serialize(*v));
}

}  // namespace

std::optional<packbits_layout> packbits_layout_of(data_type type) noexcept {
  switch (type) {
    case data_type::bool_: return packbits_layout{1, 1, 1};
    case data_type::int2: case data_type::uint2: return packbits_layout{1, 2, 1};
    case data_type::int4: case data_type::uint4: case data_type::float4_e2m1fn: return packbits_layout{1, 4, 1};
    case data_type::float6_e2m3fn: case data_type::float6_e3m2fn: return packbits_layout{1, 6, 1};
    // The float8 types and float16 are not in the spec's list: their bit patterns, as the
    // bytes codec lays them out, like the other full-width types (docs/decisions.md 31).
    case data_type::int8: case data_type::uint8: case data_type::float8_e3m4: case data_type::float8_e4m3:
    case data_type::float8_e4m3b11fnuz: case data_type::float8_e4m3fnuz: case data_type::float8_e5m2:
    case data_type::float8_e5m2fnuz: case data_type::float8_e8m0fnu: return packbits_layout{1, 8, 1};
    case data_type::int16: case data_type::uint16: case data_type::bfloat16: case data_type::float16:
      return packbits_layout{1, 16, 2};
    case data_type::int32: case data_type::uint32: case data_type::float32: return packbits_layout{1, 32, 4};
    case data_type::int64: case data_type::uint64: case data_type::float64: return packbits_layout{1, 64, 8};
    case data_type::complex64: return packbits_layout{2, 32, 4};
    case data_type::complex128: return packbits_layout{2, 64, 8};
    case data_type::complex_float4_e2m1fn: return packbits_layout{2, 4, 1};
    case data_type::complex_float6_e2m3fn: case data_type::complex_float6_e3m2fn: return packbits_layout{2, 6, 1};
    // As zarrs writes them (docs/decisions.md 68): the complex float8, float16 and bfloat16 types
    // as each component's bits, the time types as the int64 they are.
    case data_type::complex_float8_e3m4: case data_type::complex_float8_e4m3: case data_type::complex_float8_e4m3b11fnuz:
    case data_type::complex_float8_e4m3fnuz: case data_type::complex_float8_e5m2: case data_type::complex_float8_e5m2fnuz:
    case data_type::complex_float8_e8m0fnu: return packbits_layout{2, 8, 1};
    case data_type::complex_float16: case data_type::complex_bfloat16: return packbits_layout{2, 16, 2};
    case data_type::numpy_datetime64: case data_type::numpy_timedelta64: return packbits_layout{1, 64, 8};
    default: return std::nullopt;
  }
}

packbits_configuration packbits_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx);
  // schema.json spells the keys start_/end_; the README (and docs/decisions.md 22) first_/last_.
  for (const auto& [schema_name, readme_name] : {std::pair{"start_bit", "first_bit"}, std::pair{"end_bit", "last_bit"}})
    if (config.contains(schema_name))
      throw error(errc::invalid_metadata, ctx.where + ".configuration." + schema_name + ": expected \"" + readme_name +
                                              "\" (the README's name for this key; schema.json's \"" + schema_name +
                                              "\" is not accepted, docs/decisions.md 22), got \"" + schema_name + "\"");
  reject_unknown_keys(config, {"padding_encoding", "first_bit", "last_bit"}, ctx.where);
  packbits_configuration out;
  if (const auto* p = config.if_contains("padding_encoding")) {
    const auto at = ctx.where + ".configuration.padding_encoding";
    const auto* s = p->if_string();
    if (s != nullptr && *s == "none") {
      out.padding_encoding = packbits_padding::none;
    } else if (s != nullptr && *s == "first_byte") {
      out.padding_encoding = packbits_padding::first_byte;
    } else if (s != nullptr && *s == "last_byte") {
      out.padding_encoding = packbits_padding::last_byte;
    } else if (s != nullptr && (*s == "start_byte" || *s == "end_byte")) {
      throw error(errc::invalid_metadata, at + ": expected \"none\", \"first_byte\" or \"last_byte\" (schema.json's \"" +
                                              std::string(*s) + "\" is the README's \"" +
                                              (*s == "start_byte" ? "first_byte" : "last_byte") +
                                              "\", docs/decisions.md 22), got " + json::serialize(*p));
    } else {
      throw error(errc::invalid_metadata, at + ": expected \"none\", \"first_byte\" or \"last_byte\", got " + json::serialize(*p));
    }
  }
  out.first_bit = bit_member(config, "first_bit", ctx.where);
  out.last_bit = bit_member(config, "last_bit", ctx.where);
  return out;
}

packbits_codec::packbits_codec(const packbits_configuration& config, const chunk_spec& decoded, std::string where)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded), padding_(config.padding_encoding) {
  const auto type_name = std::string(zarr::name(decoded_.type));
  const auto layout = packbits_layout_of(decoded_.type);
  if (!layout)
    throw error(errc::invalid_metadata, label() + ": expected a data type packbits supports (" +
                                            supported_types() + "), got " + type_name);
  layout_ = *layout;
  const int n = layout_.bits;
  const auto component = layout_.components == 2 ? " component" : "";
  const auto first = config.first_bit.value_or(0);
  if (first >= static_cast<std::uint64_t>(n))
    throw error(errc::invalid_metadata, where_ + ".configuration.first_bit: expected an integer from 0 to " +
                                            std::to_string(n - 1) + " (a " + type_name + component + " has " +
                                            std::to_string(n) + " bits), got " + std::to_string(first));
  const auto last = config.last_bit.value_or(static_cast<std::uint64_t>(n - 1));
  if (last >= static_cast<std::uint64_t>(n))
    throw error(errc::invalid_metadata, where_ + ".configuration.last_bit: expected an integer from first_bit to " +
                                            std::to_string(n - 1) + " (a " + type_name + component + " has " +
                                            std::to_string(n) + " bits), got " + std::to_string(last));
  if (last < first)
    throw error(errc::invalid_metadata, where_ + ".configuration.last_bit: expected last_bit >= first_bit (" +
                                            std::to_string(first) + "), got " + std::to_string(last));
  first_ = static_cast<int>(first);
  last_ = static_cast<int>(last);
  is_signed_ = info(decoded_.type).kind == dtype_kind::signed_integer || is_time(decoded_.type);

  const std::uint64_t bits = decoded_.num_elements() * static_cast<std::uint64_t>(bits_per_element());
  packed_bytes_ = (bits + 7) / 8;
  padding_bits_ = static_cast<int>(packed_bytes_ * 8 - bits);
  size_ = packed_bytes_ + (padding_ == packbits_padding::none ? 0 : 1);

  // Chunks are filled with the fill value where nothing was written: it must pack exactly.
  if (packs_integers(decoded_.type) && (first_ > 0 || last_ < n - 1)) {
    const auto fill = decoded_.fill.bytes();
    try {
      check_representable(fill);
    } catch (const error& e) {
      throw error(errc::invalid_metadata, where_ + ".configuration: expected bits " + std::to_string(first_) + ".." +
                                              std::to_string(last_) + " to hold the fill value of the array (" +
                                              e.what() + ")");
    }
  }

  const int k = bits_per_element();
  if (layout_.component_size == 1 && layout_.components == 1 && (k == 1 || k == 2 || k == 4)) {
    // Row v: the 8 / k elements that packed byte v holds, one decoded byte each.
    unpack_table_.assign(256 * 8, 0);
    for (unsigned v = 0; v < 256; ++v)
      for (int e = 0; e < 8 / k; ++e) {
        const std::uint64_t x = (v >> (e * k)) & low_mask(k);
        unpack_table_[v * 8 + static_cast<unsigned>(e)] =
            static_cast<std::uint8_t>(is_signed_ ? widen<true>(x, first_, k) : widen<false>(x, first_, k));
      }
  }
}

void packbits_codec::check_representable(std::span<const std::byte> array) const {
  const std::uint64_t count = array.size() / static_cast<std::size_t>(layout_.component_size);
  std::uint64_t bad = count;
  std::string value;
  const auto* p = array.data();
  const auto find = [&]<class S>() {
    bad = first_unrepresentable<S>(p, count, first_, last_);
    if (bad != count) value = component_text<S>(p + bad * sizeof(S));
  };
  switch (layout_.component_size) {
    case 1: is_signed_ ? find.operator()<std::int8_t>() : find.operator()<std::uint8_t>(); break;
    case 2: is_signed_ ? find.operator()<std::int16_t>() : find.operator()<std::uint16_t>(); break;
    case 4: is_signed_ ? find.operator()<std::int32_t>() : find.operator()<std::uint32_t>(); break;
    default: is_signed_ ? find.operator()<std::int64_t>() : find.operator()<std::uint64_t>(); break;
  }
  if (bad == count) return;
  // The values that decode to themselves: multiples of 2^first_bit within the range of the kept bits.
  std::string range;
  if (is_signed_) {
    const auto lo = static_cast<std::int64_t>(~std::uint64_t{0} << last_);
    const auto hi = static_cast<std::int64_t>((std::uint64_t{1} << last_) - (std::uint64_t{1} << first_));
    range = std::to_string(lo) + " to " + std::to_string(hi);
  } else {
    const std::uint64_t hi = (last_ == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (last_ + 1)) - 1) & ~low_mask(first_);
    range = "0 to " + std::to_string(hi);
  }
  if (first_ > 0) range = "a multiple of " + std::to_string(std::uint64_t{1} << first_) + " from " + range;
  throw error(errc::out_of_range, label() + ": expected element " + std::to_string(bad) + " to fit in bits " +
                                      std::to_string(first_) + ".." + std::to_string(last_) + " of " +
                                      std::string(zarr::name(decoded_.type)) + " (" + range + "), got " + value);
}

json::value packbits_configuration::to_json() const {
  const char* padding = padding_encoding == packbits_padding::first_byte ? "first_byte"
                        : padding_encoding == packbits_padding::last_byte ? "last_byte"
                                                                          : "none";
  json::object config{{"padding_encoding", padding}};
  if (first_bit) config["first_bit"] = *first_bit;
  if (last_bit) config["last_bit"] = *last_bit;
  return json::object{{"name", "packbits"}, {"configuration", std::move(config)}};
}

json::value packbits_codec::to_json() const {
  return packbits_configuration{padding_, static_cast<std::uint64_t>(first_), static_cast<std::uint64_t>(last_)}.to_json();
}

void packbits_codec::do_encode_into(std::span<const std::byte> array, bytes& out) const {
  const auto size = array.size();
  if (packs_integers(decoded_.type) && (first_ > 0 || last_ < layout_.bits - 1)) check_representable(array);
  out.resize(size_);
  std::byte* packed = out.data() + (padding_ == packbits_padding::first_byte ? 1 : 0);
  const std::uint64_t count = decoded_.num_elements() * static_cast<std::uint64_t>(layout_.components);
  const int b = last_ - first_ + 1;
  const int k = bits_per_element();
  const auto* in = array.data();
  if (b == layout_.component_size * 8 && little_host) {
    if (size != 0) std::memcpy(packed, in, size);  // every bit: the `bytes` codec's little-endian layout
  } else if (!unpack_table_.empty()) {
    if (k == 1) pack_small<1>(in, count, first_, packed);
    else if (k == 2) pack_small<2>(in, count, first_, packed);
    else pack_small<4>(in, count, first_, packed);
  } else {
    switch (layout_.component_size) {
      case 1: pack_generic<std::uint8_t>(in, count, first_, b, packed); break;
      case 2: pack_generic<std::uint16_t>(in, count, first_, b, packed); break;
      case 4: pack_generic<std::uint32_t>(in, count, first_, b, packed); break;
      default: pack_generic<std::uint64_t>(in, count, first_, b, packed); break;
    }
  }
  if (padding_ == packbits_padding::first_byte) out.front() = static_cast<std::byte>(padding_bits_);
  if (padding_ == packbits_padding::last_byte) out.back() = static_cast<std::byte>(padding_bits_);
}

void packbits_codec::do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const {
  if (encoded.size() != size_)
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(size_) + " bytes (" +
                                         std::to_string(decoded_.num_elements()) + " elements of " +
                                         std::to_string(bits_per_element()) + " bits" +
                                         (padding_ == packbits_padding::none ? "" : " and a padding byte") + "), got " +
                                         std::to_string(encoded.size()));
  auto packed = encoded;
  if (padding_ != packbits_padding::none) {
    const bool at_front = padding_ == packbits_padding::first_byte;
    const auto stored = static_cast<unsigned>(at_front ? encoded.front() : encoded.back());
    if (stored != static_cast<unsigned>(padding_bits_))
      throw error(errc::corrupt_chunk, label() + ": expected " + (at_front ? "a first" : "a last") +
                                           " byte of " + std::to_string(padding_bits_) + " padding bits, got " +
                                           std::to_string(stored));
    packed = at_front ? encoded.subspan(1) : encoded.first(encoded.size() - 1);
  }
  const std::uint64_t count = decoded_.num_elements() * static_cast<std::uint64_t>(layout_.components);
  const int b = last_ - first_ + 1;
  const int k = bits_per_element();
  const auto* in = packed.data();
  const auto size = packed.size();
  if (b == layout_.component_size * 8 && little_host) {
    if (size != 0) std::memcpy(out.data(), in, size);
  } else if (!unpack_table_.empty()) {
    const auto* table = unpack_table_.data();
    if (k == 1) unpack_small<1>(in, size, count, table, first_, is_signed_, out.data());
    else if (k == 2) unpack_small<2>(in, size, count, table, first_, is_signed_, out.data());
    else unpack_small<4>(in, size, count, table, first_, is_signed_, out.data());
  } else {
    switch (layout_.component_size) {
      case 1: unpack_any<std::uint8_t>(in, size, count, first_, b, is_signed_, out.data()); break;
      case 2: unpack_any<std::uint16_t>(in, size, count, first_, b, is_signed_, out.data()); break;
      case 4: unpack_any<std::uint32_t>(in, size, count, first_, b, is_signed_, out.data()); break;
      default: unpack_any<std::uint64_t>(in, size, count, first_, b, is_signed_, out.data()); break;
    }
  }
}

std::unique_ptr<array_to_bytes_codec> make_packbits_codec(const codec_context& ctx) {
  return std::make_unique<packbits_codec>(packbits_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
