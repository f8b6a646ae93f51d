// zarr.codec.bitround: numcodecs 0.11's BitRound.encode on the bits of each float component, as
// its NumPy code does it in the signed integer of the same width (wrapping):
//   b += ((b >> maskbits) & 1) + (1 << (maskbits - 1)) - 1;  b &= ~0 << maskbits
// and on integers (the time types as int64) the same rounding of the bits below the `keepbits`
// from the most significant set bit, a carry out of the type rounding down instead (decision 68)
// (zarr-extensions codecs/bitround; numcodecs documentation, "BitRound").
module;
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.bitround;

namespace zarr {
namespace json = boost::json;

namespace {

// The spec's floating-point types (float16/32/64, bfloat16 and the complex types of them; a
// complex value is its two components): the bytes of one component, else 0.
int float_component_size(data_type t) {
  const auto& i = info(t);
  const int size = i.kind == dtype_kind::complex ? i.size / 2 : i.kind == dtype_kind::floating ? i.size : 0;
  return size >= 2 && i.format.specials == float_specials::ieee ? size : 0;
}

// The spec's integer types: int8-64, uint8-64 and the time types (int64 counts).
bool rounds_as_integer(data_type t) {
  const auto& i = info(t);
  return i.kind == dtype_kind::time ||
         ((i.kind == dtype_kind::signed_integer || i.kind == dtype_kind::unsigned_integer) && i.bits >= 8);
}

// The bits the rounding works on: the mantissa of a float, the width of an integer.
int round_bits_of(data_type t) {
  if (float_component_size(t) != 0) return info(t).format.mantissa_bits;
  if (rounds_as_integer(t)) return info(t).size * 8;
  return -1;
}

template <class U>
void round_bits(std::byte* data, std::size_t n, int maskbits) {
  const U mask = static_cast<U>(~U{0} << maskbits);
  const U half_quantum1 = static_cast<U>((U{1} << (maskbits - 1)) - 1);
  for (std::size_t i = 0; i < n; ++i) {
    U b;
    std::memcpy(&b, data + i * sizeof(U), sizeof(U));
    b = static_cast<U>(b + ((b >> maskbits) & 1) + half_quantum1);  // the shifted-out sign bits are masked by & 1
    b = static_cast<U>(b & mask);
    std::memcpy(data + i * sizeof(U), &b, sizeof(U));
  }
}

// Each element's bits (two's complement for the signed types) rounded half to even to `keepbits`
// bits from its most significant set bit; where rounding up carries out of the type, the
// largest value with those bits (what zarrs computes with a saturating add).
template <class U>
void round_from_msb(std::byte* data, std::size_t n, int keepbits) {
  for (std::size_t i = 0; i < n; ++i) {
    U b;
    std::memcpy(&b, data + i * sizeof(U), sizeof(U));
    const auto width = static_cast<int>(std::bit_width(b));
    if (width <= keepbits) continue;
    const int maskbits = width - keepbits;
    const U add = static_cast<U>(((b >> maskbits) & 1) + ((U{1} << (maskbits - 1)) - 1));
    b = static_cast<U>((b > static_cast<U>(~U{0} - add) ? static_cast<U>(~U{0}) : static_cast<U>(b + add)) &
                       static_cast<U>(~U{0} << maskbits));
    std::memcpy(data + i * sizeof(U), &b, sizeof(U));
  }
}

std::unique_ptr<array_to_array_codec> make(std::string_view registry_name, int min_keepbits, const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"keepbits"});
  const auto keepbits = static_cast<int>(integer_member(config, "keepbits", min_keepbits, 64, std::nullopt, ctx.where));
  return std::make_unique<bitround_codec>(registry_name, keepbits, ctx.decoded, ctx.where);
}

}  // namespace

bitround_codec::bitround_codec(std::string_view registry_name, int keepbits, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), name_(registry_name), keepbits_(keepbits), spec_(decoded) {
  const int bits = round_bits_of(decoded.type);
  if (bits < 0)
    throw error(errc::unsupported, label() +
                                       ": expected a float16, float32, float64 or bfloat16 type, a complex type of them, an "
                                       "8- to 64-bit integer or a time type, got " +
                                       std::string(zarr::name(decoded.type)));
  if (keepbits < 1 && rounds_as_integer(decoded.type))  // numcodecs.bitround's 0 means nothing for integers
    throw error(errc::invalid_metadata, where_ + ".configuration.keepbits: expected at least 1 for an integer type, got " +
                                            std::to_string(keepbits));
  if (keepbits > bits)
    throw error(errc::invalid_metadata, where_ + ".configuration.keepbits: expected at most " + std::to_string(bits) + " (the " +
                                            (rounds_as_integer(decoded.type) ? "bits" : "mantissa bits") + " of " +
                                            std::string(zarr::name(decoded.type)) + "), got " + std::to_string(keepbits));
}

json::value bitround_codec::to_json() const {
  return json::object{{"name", name_}, {"configuration", json::object{{"keepbits", keepbits_}}}};
}

bytes bitround_codec::do_encode(bytes in) const {
  const auto n = static_cast<std::size_t>(spec_.num_elements());
  if (rounds_as_integer(spec_.type)) {
    switch (info(spec_.type).size) {
      case 1: round_from_msb<std::uint8_t>(in.data(), n, keepbits_); break;
      case 2: round_from_msb<std::uint16_t>(in.data(), n, keepbits_); break;
      case 4: round_from_msb<std::uint32_t>(in.data(), n, keepbits_); break;
      default: round_from_msb<std::uint64_t>(in.data(), n, keepbits_); break;
    }
    return in;
  }
  const int maskbits = round_bits_of(spec_.type) - keepbits_;
  if (maskbits == 0) return in;
  const int size = float_component_size(spec_.type);
  const std::size_t components = in.size() / static_cast<std::size_t>(size);
  switch (size) {
    case 2: round_bits<std::uint16_t>(in.data(), components, maskbits); break;
    case 4: round_bits<std::uint32_t>(in.data(), components, maskbits); break;
    default: round_bits<std::uint64_t>(in.data(), components, maskbits); break;
  }
  return in;
}

std::unique_ptr<array_to_array_codec> make_bitround_codec(const codec_context& ctx) { return make("bitround", 1, ctx); }

std::unique_ptr<array_to_array_codec> make_numcodecs_bitround_codec(const codec_context& ctx) {
  return make("numcodecs.bitround", 0, ctx);
}

}  // namespace zarr
