// zarr.codec.bitround: numcodecs 0.11's BitRound.encode on the bits of each float, as its
// NumPy code does it in the signed integer of the same width (wrapping):
//   b += ((b >> maskbits) & 1) + (1 << (maskbits - 1)) - 1;  b &= ~0 << maskbits
// (zarr-extensions codecs/bitround; numcodecs documentation, "BitRound").
module;
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

int mantissa_bits(data_type t) {
  switch (t) {
    case data_type::float16: return 10;
    case data_type::float32: return 23;
    case data_type::float64: return 52;
    default: return -1;
  }
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

std::unique_ptr<array_to_array_codec> make(std::string_view registry_name, int min_keepbits, const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"keepbits"});
  const auto keepbits = static_cast<int>(integer_member(config, "keepbits", min_keepbits, 52, std::nullopt, ctx.where));
  return std::make_unique<bitround_codec>(registry_name, keepbits, ctx.decoded, ctx.where);
}

}  // namespace

bitround_codec::bitround_codec(std::string_view registry_name, int keepbits, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), name_(registry_name), keepbits_(keepbits), spec_(decoded) {
  const int bits = mantissa_bits(decoded.type);
  if (bits < 0)
    throw error(errc::unsupported, label() + ": expected float16, float32 or float64 data, got " + std::string(zarr::name(decoded.type)));
  if (keepbits > bits)
    throw error(errc::invalid_metadata, where_ + ".configuration.keepbits: expected at most " + std::to_string(bits) +
                                            " (the mantissa bits of " + std::string(zarr::name(decoded.type)) + "), got " +
                                            std::to_string(keepbits));
}

json::value bitround_codec::to_json() const {
  return json::object{{"name", name_}, {"configuration", json::object{{"keepbits", keepbits_}}}};
}

bytes bitround_codec::do_encode(bytes in) const {
  const int maskbits = mantissa_bits(spec_.type) - keepbits_;
  if (maskbits == 0) return in;
  const auto n = static_cast<std::size_t>(spec_.num_elements());
  switch (info(spec_.type).size) {
    case 2: round_bits<std::uint16_t>(in.data(), n, maskbits); break;
    case 4: round_bits<std::uint32_t>(in.data(), n, maskbits); break;
    default: round_bits<std::uint64_t>(in.data(), n, maskbits); break;
  }
  return in;
}

std::unique_ptr<array_to_array_codec> make_bitround_codec(const codec_context& ctx) { return make("bitround", 1, ctx); }

std::unique_ptr<array_to_array_codec> make_numcodecs_bitround_codec(const codec_context& ctx) {
  return make("numcodecs.bitround", 0, ctx);
}

}  // namespace zarr
