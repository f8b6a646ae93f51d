// zarr.codec.bytes: byte order conversion, and the one-byte layouts of the small types
// (Zarr v3 codecs/bytes; zarr-extensions data-types/int2 etc. "Codec compatibility / bytes"). A
// complex type's byte order applies to each component: none for one-byte components
// (datatype-complex_float8_e4m3.md: "The "endian" parameter has no effect"). Raw bits are opaque
// bytes, fixed_length_utf32 4-byte code units, a struct each field in turn (docs/decisions.md 55-57).
module;
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.bytes;

import zarr.sized;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr endian native_endian = std::endian::native == std::endian::little ? endian::little : endian::big;

// Reverses the bytes of every `Word` of `in` into `out` (n words). Loads and stores go
// through memcpy, so the loop has no alignment requirement and vectorises.
template <class Word>
void swap_words(std::byte* out, const std::byte* in, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    Word w;
    std::memcpy(&w, in + i * sizeof(Word), sizeof(Word));
    if constexpr (sizeof(Word) == 2) w = __builtin_bswap16(w);
    else if constexpr (sizeof(Word) == 4) w = __builtin_bswap32(w);
    else w = __builtin_bswap64(w);
    std::memcpy(out + i * sizeof(Word), &w, sizeof(Word));
  }
}

void swap_components(std::byte* out, const std::byte* in, std::size_t size, int component) noexcept {
  switch (component) {
    case 2: swap_words<std::uint16_t>(out, in, size / 2); break;
    case 4: swap_words<std::uint32_t>(out, in, size / 4); break;
    case 8: swap_words<std::uint64_t>(out, in, size / 8); break;
    default:
      if (size != 0) std::memcpy(out, in, size);
      break;
  }
}

// The bytes that the byte order applies to: the element, or each component of a complex type
// (complex_float8_e4m3: two one-byte values, "The "endian" parameter has no effect").
int word_size(data_type t) noexcept {
  const auto& i = info(t);
  return i.kind == dtype_kind::complex ? i.size / 2 : i.size;
}

// The bits of each one-byte word that hold the value: 1 to 8 (complex_float4_e2m1fn: 4 per component).
int word_bits(data_type t) noexcept {
  const auto& i = info(t);
  return i.kind == dtype_kind::complex ? i.format.bits() : i.bits;
}

// The in-memory byte of a one-byte word from its stored byte: the upper bits that the
// type does not use are ignored (sign extension of int2/int4 from their top value bit).
void normalise_small(std::byte* out, const std::byte* in, std::size_t n, data_type t) noexcept {
  const auto* src = reinterpret_cast<const std::uint8_t*>(in);
  auto* dst = reinterpret_cast<std::uint8_t*>(out);
  const int bits = word_bits(t);
  if (info(t).kind == dtype_kind::signed_integer) {
    const int shift = 8 - bits;
    for (std::size_t i = 0; i < n; ++i)
      dst[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(static_cast<std::uint8_t>(src[i] << shift)) >> shift);
  } else {
    const auto mask = static_cast<std::uint8_t>((1u << bits) - 1);
    for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>(src[i] & mask);
  }
}

// Copies one-byte words, normalising the types narrower than 8 bits.
void copy_one_byte(std::byte* out, const std::byte* in, std::size_t n, data_type t) noexcept {
  if (word_bits(t) < 8 && t != data_type::bool_)
    normalise_small(out, in, n, t);
  else if (n != 0)
    std::memcpy(out, in, n);
}

// --- the sized types: the words of each element (zarr.sized element_words) ---------------

bool needs_byte_order(const std::vector<element_word>& words) noexcept {
  return std::any_of(words.begin(), words.end(), [](const element_word& w) { return w.size > 1; });
}

// Swaps the multi-byte words of every element (when `swap`) and normalises the sub-byte ones.
void order_words(std::span<std::byte> data, std::uint64_t element_size, const std::vector<element_word>& words, bool swap) noexcept {
  if (element_size == 0 || words.empty()) return;
  const std::uint64_t n = data.size() / element_size;
  for (std::uint64_t e = 0; e < n; ++e) {
    std::byte* element = data.data() + e * element_size;
    for (const auto& w : words) {
      std::byte* p = element + w.offset;
      if (w.size > 1) {
        if (swap)
          for (std::uint64_t k = 0; k < w.count; ++k) std::reverse(p + k * w.size, p + (k + 1) * w.size);
      } else if (w.type != data_type::bool_ && info(w.type).bits < 8) {
        normalise_small(p, p, static_cast<std::size_t>(w.count), w.type);
      }
    }
  }
}

// The first element (in native order) holding a bool other than 0 or 1 (when `bools`) or a
// fixed_length_utf32 code unit that is no Unicode scalar value: its index and what it holds.
std::optional<std::pair<std::uint64_t, std::string>> first_bad_word(std::span<const std::byte> data, std::uint64_t element_size,
                                                                    const std::vector<element_word>& words, bool bools) {
  if (element_size == 0) return std::nullopt;
  const std::uint64_t n = data.size() / element_size;
  for (std::uint64_t e = 0; e < n; ++e) {
    const std::byte* element = data.data() + e * element_size;
    for (const auto& w : words) {
      const std::byte* p = element + w.offset;
      if (bools && w.type == data_type::bool_ && std::to_integer<unsigned>(*p) > 1)
        return std::pair{e, "a bool (0 or 1) at byte " + std::to_string(w.offset) + ", got " +
                                std::to_string(std::to_integer<unsigned>(*p))};
      if (w.type == data_type::fixed_length_utf32) {
        const auto at = invalid_code_unit_at({p, static_cast<std::size_t>(w.count * 4)});
        if (at >= 0) {
          std::uint32_t c;
          std::memcpy(&c, p + at * 4, 4);
          char hex[16];
          const auto r = std::to_chars(hex, hex + sizeof hex, c, 16);
          return std::pair{e, "Unicode scalar values (no surrogate, at most 0x10ffff) in fixed_length_utf32, got 0x" +
                                  std::string(hex, r.ptr) + " at code point " + std::to_string(at)};
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bytes_configuration bytes_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"endian"});
  bytes_configuration out{.endian = std::nullopt};
  if (const auto* e = config.if_contains("endian")) {
    const auto* s = e->if_string();
    if (s != nullptr && *s == "little") {
      out.endian = zarr::endian::little;
    } else if (s != nullptr && *s == "big") {
      out.endian = zarr::endian::big;
    } else {
      throw error(errc::invalid_metadata, ctx.where + ".configuration.endian: expected \"little\" or \"big\", got " +
                                              json::serialize(*e));
    }
  }
  return out;
}

bytes_codec::bytes_codec(const bytes_configuration& config, const chunk_spec& decoded, std::string where)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded) {
  if (decoded_.type == data_type::optional)  // datatype-optional.md "Codec Compatibility" (docs/decisions.md 71)
    throw error(errc::unsupported, label() + ": expected a data type the bytes codec encodes, got " +
                                       sized_type_name({decoded_.type, {}, decoded_.layout}) +
                                       " (encoded by the optional codec)");
  if (is_sized(decoded_.type)) {
    if (!needs_byte_order(element_words(decoded_.type, decoded_.layout))) return;  // raw bits, one-byte fields
    // A legacy structured array without `endian` is little-endian (datatype-structured.md).
    if (!config.endian && !decoded_.layout.legacy_structured)
      throw error(errc::invalid_metadata, where_ + ".configuration.endian: expected \"little\" or \"big\" (required for " +
                                              sized_type_name({decoded_.type, {}, decoded_.layout}) + "), got nothing");
    endian_ = config.endian.value_or(endian::little);
    return;
  }
  if (word_size(decoded_.type) > 1) {
    if (!config.endian)
      throw error(errc::invalid_metadata, where_ + ".configuration.endian: expected \"little\" or \"big\" (required for " +
                                              std::string(zarr::name(decoded_.type)) + "), got nothing");
    endian_ = config.endian;
  }
}

json::value bytes_configuration::to_json() const {
  json::object config;
  if (endian) config["endian"] = *endian == zarr::endian::little ? "little" : "big";
  return json::object{{"name", "bytes"}, {"configuration", std::move(config)}};
}

json::value bytes_codec::to_json() const { return bytes_configuration{.endian = endian_}.to_json(); }

bool bytes_codec::as_is() const noexcept {
  if (is_sized(decoded_.type)) {
    const auto words = element_words(decoded_.type, decoded_.layout);
    return std::all_of(words.begin(), words.end(), [&](const element_word& w) {
      if (w.type == data_type::fixed_length_utf32 || w.type == data_type::bool_) return false;  // checked each time
      return w.size > 1 ? *endian_ == native_endian : info(w.type).bits >= 8;
    });
  }
  if (word_size(decoded_.type) == 1) return word_bits(decoded_.type) == 8 && decoded_.type != data_type::bool_;
  return *endian_ == native_endian;
}

void bytes_codec::do_encode_into(std::span<const std::byte> array, bytes& out) const {
  out.resize(array.size());
  if (is_sized(decoded_.type)) {
    const auto words = element_words(decoded_.type, decoded_.layout);
    if (const auto bad = first_bad_word(array, decoded_.element_size(), words, false))
      throw error(errc::invalid_value, label() + ": element " + std::to_string(bad->first) + ": expected " + bad->second);
    if (!array.empty()) std::memcpy(out.data(), array.data(), array.size());
    order_words(out, decoded_.element_size(), words, endian_ && *endian_ != native_endian);
    return;
  }
  if (word_size(decoded_.type) == 1)
    copy_one_byte(out.data(), array.data(), array.size(), decoded_.type);
  else
    swap_components(out.data(), array.data(), array.size(),
                    *endian_ == native_endian ? 1 : word_size(decoded_.type));
}

void bytes_codec::do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const {
  const auto size = decoded_.byte_size();
  if (encoded.size() != size)
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(size) + " bytes, got " +
                                         std::to_string(encoded.size()));
  if (const auto bad = decode_values(encoded, out)) throw bad_element(bad->first, bad->second);
}

std::optional<std::pair<std::uint64_t, std::string>> bytes_codec::decode_values(std::span<const std::byte> encoded,
                                                                                   std::span<std::byte> out) const {
  if (is_sized(decoded_.type)) {
    const auto words = element_words(decoded_.type, decoded_.layout);
    if (!encoded.empty()) std::memcpy(out.data(), encoded.data(), encoded.size());
    order_words(out, decoded_.element_size(), words, endian_ && *endian_ != native_endian);
    return first_bad_word(out, decoded_.element_size(), words, true);
  }
  if (decoded_.type == data_type::bool_) {
    // Only 0 and 1 are booleans (Zarr v3 codecs/bytes); anything else is not data this codec wrote.
    std::uint8_t any = 0;
    for (auto b : encoded) any |= static_cast<std::uint8_t>(b);
    if (any > 1) {
      for (std::size_t i = 0; i < encoded.size(); ++i)
        if (static_cast<std::uint8_t>(encoded[i]) > 1)
          return std::pair{std::uint64_t{i}, "a bool (0 or 1), got " + std::to_string(static_cast<unsigned>(encoded[i]))};
    }
  }
  if (word_size(decoded_.type) == 1)
    copy_one_byte(out.data(), encoded.data(), encoded.size(), decoded_.type);
  else
    swap_components(out.data(), encoded.data(), encoded.size(),
                    *endian_ == native_endian ? 1 : word_size(decoded_.type));
  return std::nullopt;
}

error bytes_codec::bad_element(std::uint64_t element, const std::string& expected) const {
  return error(errc::corrupt_chunk, label() + ": element " + std::to_string(element) + ": expected " + expected);
}

namespace {

// Reads a box of the stored C-order array: the runs of consecutive elements it spans
// (neighbours merged), gathered into a C-order buffer of the box, then decoded in place.
class bytes_reader final : public array_reader {
 public:
  bytes_reader(const bytes_codec& codec, const chunk_reader& source) : codec_(codec), source_(source) {}

  [[nodiscard]] bool read(const region& box, const array_view& out) const override {
    const auto& spec = codec_.decoded();
    const auto size = static_cast<std::size_t>(spec.element_size());
    if (box.covers(spec.shape))
      return with_whole_value(source_, [&](std::span<const std::byte> stored) { codec_.decode_into(stored, out); });
    // The box in runs: dimensions from `k` on are one run each (the box covers those after k).
    const auto n = spec.shape.size();
    const auto extent = box.extent();
    std::size_t k = n;
    std::uint64_t run = size;  // bytes
    while (k > 0) {
      --k;
      run *= extent[k];
      if (box.start[k] != 0 || box.stop[k] != spec.shape[k]) break;
    }
    std::vector<std::uint64_t> stride(n, size);  // bytes between neighbours along each dimension
    for (std::size_t i = n; i-- > 1;) stride[i - 1] = stride[i] * spec.shape[i];
    std::vector<std::uint64_t> offsets;  // of each run, increasing
    std::vector<std::uint64_t> at(k, 0);
    for (;;) {
      std::uint64_t offset = 0;
      for (std::size_t i = 0; i < n; ++i) offset += (box.start[i] + (i < k ? at[i] : 0)) * stride[i];
      offsets.push_back(offset);
      std::size_t d = k;
      while (d > 0 && ++at[d - 1] == extent[d - 1]) at[--d] = 0;
      if (d == 0) break;
    }
    const thread_buffer<struct bytes_box_tag> gathered;
    gathered->resize(offsets.size() * static_cast<std::size_t>(run));
    for (std::size_t first = 0; first < offsets.size();) {
      auto last = first;
      while (last + 1 < offsets.size() && offsets[last + 1] <= offsets[last] + run + range_merge_gap) ++last;
      const auto start = offsets[first];
      const auto part = source_.read(byte_range{start, offsets[last] + run - start, false});
      if (!part) {
        if (first == 0) return false;
        throw error(errc::corrupt_chunk, "the chunk vanished while reading");
      }
      for (auto i = first; i <= last; ++i)
        std::memcpy(gathered->data() + i * run, part->data() + (offsets[i] - start), static_cast<std::size_t>(run));
      first = last + 1;
    }
    const bool direct = out.c_contiguous();
    const thread_buffer<struct bytes_decoded_tag> decoded;
    if (!direct) decoded->resize(gathered->size());
    const std::span<std::byte> into = direct ? std::span(out.data, gathered->size()) : std::span<std::byte>(*decoded);
    if (const auto bad = codec_.decode_values(*gathered, into)) {
      // The element's index in the chunk, from its index in the box.
      auto e = bad->first;
      std::uint64_t index = 0, scale = 1;
      for (std::size_t i = n; i-- > 0;) {
        index += (box.start[i] + e % extent[i]) * scale;
        e /= extent[i];
        scale *= spec.shape[i];
      }
      throw codec_.bad_element(index, bad->second);
    }
    if (!direct) copy(const_array_view::c_order(decoded->data(), extent, size), out);
    let_go_if_large(*gathered);
    let_go_if_large(*decoded);
    return true;
  }

  [[nodiscard]] bool reads_whole(const region& box) const override {
    return box.covers(codec_.decoded().shape) || source_.ranges_read_whole();
  }

 private:
  const bytes_codec& codec_;
  const chunk_reader& source_;
};

}  // namespace

std::unique_ptr<array_reader> bytes_codec::reader(const chunk_reader& source) const {
  return std::make_unique<bytes_reader>(*this, source);
}

std::unique_ptr<array_to_bytes_codec> make_bytes_codec(const codec_context& ctx) {
  return std::make_unique<bytes_codec>(bytes_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
