// zarr.codec.zfp: zarr-extensions codecs/zfp over the zfp C library (zfp_compress and
// zfp_decompress on a contiguous field, no header), with the spec's promotions of the 8- and
// 16-bit integers to int32.
module;
#include <zfp.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.zfp;

namespace zarr {
namespace json = boost::json;

namespace {

// How a data type reaches zfp: as itself, or as an int32/int64 stand-in.
struct zfp_layout {
  zfp_type type = zfp_type_none;
  int bits = 0;              // of the array's element
  bool is_unsigned = false;  // offset by 2^(bits - 1) into the signed range
};

std::optional<zfp_layout> layout_of(data_type t) noexcept {
  switch (t) {
    case data_type::int8: return zfp_layout{zfp_type_int32, 8, false};
    case data_type::uint8: return zfp_layout{zfp_type_int32, 8, true};
    case data_type::int16: return zfp_layout{zfp_type_int32, 16, false};
    case data_type::uint16: return zfp_layout{zfp_type_int32, 16, true};
    case data_type::int32: return zfp_layout{zfp_type_int32, 32, false};
    case data_type::uint32: return zfp_layout{zfp_type_int32, 32, true};
    case data_type::int64: return zfp_layout{zfp_type_int64, 64, false};
    case data_type::uint64: return zfp_layout{zfp_type_int64, 64, true};
    // The spec's "datetime64 -> int64": the time types are int64 counts, compressed as such.
    case data_type::numpy_datetime64: case data_type::numpy_timedelta64: return zfp_layout{zfp_type_int64, 64, false};
    case data_type::float32: return zfp_layout{zfp_type_float, 32, false};
    case data_type::float64: return zfp_layout{zfp_type_double, 64, false};
    default: return std::nullopt;
  }
}

constexpr std::string_view mode_names[] = {"reversible", "fixed_rate", "fixed_precision", "fixed_accuracy", "expert"};

// The zfp objects of one call, freed on every path out.
struct zfp_handles {
  zfp_stream* stream = zfp_stream_open(nullptr);
  zfp_field* field = zfp_field_alloc();
  bitstream* bits = nullptr;
  zfp_handles() = default;
  zfp_handles(const zfp_handles&) = delete;
  zfp_handles& operator=(const zfp_handles&) = delete;
  ~zfp_handles() {
    if (bits != nullptr) stream_close(bits);
    zfp_field_free(field);
    zfp_stream_close(stream);
  }
};

// The field of a chunk: x is the last (fastest) dimension; a 0-d chunk is one value in 1-d.
void set_field(zfp_field* f, zfp_type type, const std::vector<std::uint64_t>& shape, void* data) {
  zfp_field_set_type(f, type);
  zfp_field_set_pointer(f, data);
  const auto n = [&](std::size_t from_last) { return static_cast<std::size_t>(shape[shape.size() - 1 - from_last]); };
  switch (shape.size()) {
    case 0: zfp_field_set_size_1d(f, 1); break;
    case 1: zfp_field_set_size_1d(f, n(0)); break;
    case 2: zfp_field_set_size_2d(f, n(0), n(1)); break;
    case 3: zfp_field_set_size_3d(f, n(0), n(1), n(2)); break;
    default: zfp_field_set_size_4d(f, n(0), n(1), n(2), n(3)); break;
  }
}

void set_mode(zfp_stream* s, const zfp_configuration& c, zfp_type type, std::size_t rank) {
  switch (c.mode) {
    case zfp_mode::reversible: zfp_stream_set_reversible(s); break;
    case zfp_mode::fixed_rate:
      zfp_stream_set_rate(s, c.rate, type, static_cast<unsigned>(rank == 0 ? 1 : rank), zfp_false);
      break;
    case zfp_mode::fixed_precision: zfp_stream_set_precision(s, static_cast<unsigned>(c.precision)); break;
    case zfp_mode::fixed_accuracy: zfp_stream_set_accuracy(s, c.tolerance); break;
    case zfp_mode::expert:
      zfp_stream_set_params(s, static_cast<unsigned>(c.minbits), static_cast<unsigned>(c.maxbits),
                            static_cast<unsigned>(c.maxprec), static_cast<int>(c.minexp));
      break;
  }
}

// The spec's promotion of an N-bit integer (N < 32) to int32, and its demotion back
// (clamped, as the spec writes it); 32- and 64-bit unsigned integers are offset by half
// their range into the signed type of their size.
template <class S, class U>
void promote(const std::byte* in, std::size_t n, const zfp_layout& l, S* out) noexcept {
  const int shift = static_cast<int>(sizeof(S) * 8) - 1 - l.bits;
  for (std::size_t i = 0; i < n; ++i) {
    if (l.bits == 8) {
      if (l.is_unsigned) out[i] = static_cast<S>((S{static_cast<std::uint8_t>(in[i])} - 0x80) * (S{1} << shift));
      else out[i] = static_cast<S>(S{static_cast<std::int8_t>(in[i])} * (S{1} << shift));
    } else if (l.bits == 16) {
      std::uint16_t u;
      std::memcpy(&u, in + 2 * i, 2);
      if (l.is_unsigned) out[i] = static_cast<S>((S{u} - 0x8000) * (S{1} << shift));
      else out[i] = static_cast<S>(S{static_cast<std::int16_t>(u)} * (S{1} << shift));
    } else {
      U u;
      std::memcpy(&u, in + sizeof(U) * i, sizeof(U));
      u ^= U{1} << (sizeof(U) * 8 - 1);
      std::memcpy(out + i, &u, sizeof(U));
    }
  }
}

template <class S, class U>
void demote(const S* in, std::size_t n, const zfp_layout& l, std::byte* out) noexcept {
  const int shift = static_cast<int>(sizeof(S) * 8) - 1 - l.bits;
  for (std::size_t i = 0; i < n; ++i) {
    if (l.bits == 8 || l.bits == 16) {
      const S half = S{1} << (l.bits - 1);
      S v = in[i] >> shift;  // arithmetic shift
      if (l.is_unsigned) v = std::clamp<S>(v + half, 0, 2 * half - 1);
      else v = std::clamp<S>(v, -half, half - 1);
      const auto u = static_cast<std::uint16_t>(v);
      if (l.bits == 8) out[i] = static_cast<std::byte>(u);
      else std::memcpy(out + 2 * i, &u, 2);
    } else {
      U u;
      std::memcpy(&u, in + i, sizeof(U));
      u ^= U{1} << (sizeof(U) * 8 - 1);
      std::memcpy(out + sizeof(U) * i, &u, sizeof(U));
    }
  }
}

bool staged(const zfp_layout& l) noexcept { return l.type != zfp_type_float && l.type != zfp_type_double && (l.bits < 32 || l.is_unsigned); }

// The first element of `n` floats of type F that is not finite, or n.
template <class F>
std::size_t first_not_finite(const std::byte* in, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    F v;
    std::memcpy(&v, in + i * sizeof(F), sizeof(F));
    if (!std::isfinite(v)) return i;
  }
  return n;
}

double number(const json::object& config, std::string_view key, const std::string& where) {
  const auto& v = required_member(config, key, where, "a number");
  if (!v.is_number()) throw error(errc::invalid_metadata, where + ".configuration." + std::string(key) + ": expected a number, got " + json::serialize(v));
  return v.to_number<double>();
}

std::uint64_t count(const json::object& config, std::string_view key, const std::string& where, std::uint64_t most) {
  const auto& v = required_member(config, key, where, "a non-negative integer");
  const auto n = non_negative_integer(v);
  if (!n || *n > most)
    throw error(errc::invalid_metadata, where + ".configuration." + std::string(key) + ": expected an integer from 0 to " +
                                            std::to_string(most) + ", got " + json::serialize(v));
  return *n;
}

// The stream's bound under the mode of the header that opens it, after checking that the header
// is zfp's and describes the chunk (`decoded`: type, rank, sizes).
std::uint64_t header_bound(std::span<const std::byte> encoded, const zfp_layout& l, const chunk_spec& decoded,
                           const std::string& label) {
  // The header from a zero-padded copy of the stream's first bytes (it is at most 148 bits).
  std::array<std::byte, ZFP_HEADER_MAX_BITS / 8 + 16> head{};
  if (!encoded.empty()) std::memcpy(head.data(), encoded.data(), std::min(encoded.size(), head.size() - 8));
  zfp_handles h;
  h.bits = stream_open(head.data(), head.size());
  zfp_stream_set_bit_stream(h.stream, h.bits);
  zfp_stream_rewind(h.stream);
  if (encoded.empty() || zfp_read_header(h.stream, h.field, ZFP_HEADER_FULL) == 0)
    throw error(errc::corrupt_chunk, label + ": expected zfp's header (magic \"zfp\", codec version " +
                                         std::to_string(ZFP_CODEC) + ", field, mode), got " + std::to_string(encoded.size()) +
                                         " bytes that do not start with one");
  const zfp_handles chunk;
  set_field(chunk.field, l.type, decoded.shape, nullptr);
  if (zfp_field_metadata(h.field) != zfp_field_metadata(chunk.field))
    throw error(errc::corrupt_chunk, label + ": expected zfp's header to describe the chunk (" +
                                         std::string(zarr::name(decoded.type)) + ", " + std::to_string(decoded.num_elements()) +
                                         " values in " + std::to_string(decoded.shape.size()) +
                                         " dimensions), got a header of another field");
  return zfp_stream_maximum_size(h.stream, h.field);
}

}  // namespace

zfp_configuration zfp_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx);
  const auto& mode = required_member(config, "mode", ctx.where, "a string");
  zfp_configuration c;
  std::size_t m = std::size(mode_names);
  for (std::size_t i = 0; i < std::size(mode_names); ++i)
    if (mode.is_string() && mode.as_string() == mode_names[i]) m = i;
  if (m == std::size(mode_names))
    throw error(errc::invalid_metadata, ctx.where + ".configuration.mode: expected \"reversible\", \"fixed_rate\", "
                                                    "\"fixed_precision\", \"fixed_accuracy\" or \"expert\", got " +
                                            json::serialize(mode));
  c.mode = static_cast<zfp_mode>(m);
  switch (c.mode) {
    case zfp_mode::reversible: reject_unknown_keys(config, {"mode"}, ctx.where); break;
    case zfp_mode::fixed_rate:
      reject_unknown_keys(config, {"mode", "rate"}, ctx.where);
      c.rate = number(config, "rate", ctx.where);
      if (!(c.rate > 0) || c.rate > 64)
        throw error(errc::invalid_metadata, ctx.where + ".configuration.rate: expected a number above 0 and at most 64, got " +
                                                json::serialize(config.at("rate")));
      break;
    case zfp_mode::fixed_precision:
      reject_unknown_keys(config, {"mode", "precision"}, ctx.where);
      c.precision = count(config, "precision", ctx.where, 64);
      break;
    case zfp_mode::fixed_accuracy:
      reject_unknown_keys(config, {"mode", "tolerance"}, ctx.where);
      c.tolerance = number(config, "tolerance", ctx.where);
      if (!(c.tolerance >= 0) || !std::isfinite(c.tolerance))
        throw error(errc::invalid_metadata, ctx.where + ".configuration.tolerance: expected a finite number of at least 0, got " +
                                                json::serialize(config.at("tolerance")));
      break;
    case zfp_mode::expert: {
      reject_unknown_keys(config, {"mode", "minbits", "maxbits", "maxprec", "minexp"}, ctx.where);
      c.minbits = count(config, "minbits", ctx.where, ZFP_MAX_BITS);
      c.maxbits = count(config, "maxbits", ctx.where, ZFP_MAX_BITS);
      c.maxprec = count(config, "maxprec", ctx.where, ZFP_MAX_PREC);
      const auto& e = required_member(config, "minexp", ctx.where, "an integer");
      if (!e.is_int64() || e.as_int64() < ZFP_MIN_EXP || e.as_int64() > 1024)
        throw error(errc::invalid_metadata, ctx.where + ".configuration.minexp: expected an integer from " +
                                                std::to_string(ZFP_MIN_EXP) + " to 1024, got " + json::serialize(e));
      c.minexp = e.as_int64();
      zfp_handles h;
      if (c.minbits > c.maxbits || c.maxbits == 0 || c.maxprec == 0 ||
          !zfp_stream_set_params(h.stream, static_cast<unsigned>(c.minbits), static_cast<unsigned>(c.maxbits),
                                 static_cast<unsigned>(c.maxprec), static_cast<int>(c.minexp)))
        throw error(errc::invalid_metadata, ctx.where + ".configuration: expected 1 <= minbits <= maxbits and maxprec >= 1 "
                                                        "(parameters zfp accepts), got " + json::serialize(config));
      break;
    }
  }
  return c;
}

json::value zfp_configuration::to_json() const {
  json::object o{{"mode", mode_names[static_cast<std::size_t>(mode)]}};
  switch (mode) {
    case zfp_mode::reversible: break;
    case zfp_mode::fixed_rate: o["rate"] = rate; break;
    case zfp_mode::fixed_precision: o["precision"] = precision; break;
    case zfp_mode::fixed_accuracy: o["tolerance"] = tolerance; break;
    case zfp_mode::expert:
      o["minbits"] = minbits;
      o["maxbits"] = maxbits;
      o["maxprec"] = maxprec;
      o["minexp"] = minexp;
      break;
  }
  return o;
}

zfp_codec::zfp_codec(const zfp_configuration& config, const chunk_spec& decoded, std::string where, bool header)
    : array_to_bytes_codec(std::move(where)), header_(header), config_(config), decoded_(decoded) {
  const auto l = layout_of(decoded_.type);
  if (!l)
    throw error(errc::unsupported, label() + ": expected int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, "
                                             "float64, numpy.datetime64 or numpy.timedelta64, got " + std::string(zarr::name(decoded_.type)));
  if (decoded_.shape.size() > 4)
    throw error(errc::unsupported, label() + ": expected a chunk of at most 4 dimensions, got " +
                                       std::to_string(decoded_.shape.size()));
  if (config_.mode == zfp_mode::fixed_accuracy && l->type != zfp_type_float && l->type != zfp_type_double)
    throw error(errc::unsupported, label() + ": expected float32 or float64 in fixed_accuracy mode (zfp has no such mode "
                                             "for integers), got " + std::string(zarr::name(decoded_.type)));
  zfp_handles h;
  set_field(h.field, l->type, decoded_.shape, nullptr);
  set_mode(h.stream, config_, l->type, decoded_.shape.size());
  max_size_ = zfp_stream_maximum_size(h.stream, h.field);
}

json::value zfp_codec::to_json() const { return json::object{{"name", "zfp"}, {"configuration", config_.to_json()}}; }

void zfp_codec::do_encode_into(std::span<const std::byte> array, bytes& out) const {
  const auto l = *layout_of(decoded_.type);
  const auto n = static_cast<std::size_t>(decoded_.num_elements());
  if (config_.mode != zfp_mode::reversible && (l.type == zfp_type_float || l.type == zfp_type_double)) {
    const auto bad = l.type == zfp_type_float ? first_not_finite<float>(array.data(), n) : first_not_finite<double>(array.data(), n);
    if (bad != n)
      throw error(errc::invalid_value, label() + ": element " + std::to_string(bad) + ": expected a finite value (zfp's " +
                                           std::string(mode_names[static_cast<std::size_t>(config_.mode)]) +
                                           " mode does not keep NaN or infinity), got " +
                                           (l.type == zfp_type_float ? std::to_string(load_element<float>(array.data(), bad))
                                                                     : std::to_string(load_element<double>(array.data(), bad))));
  }
  std::vector<std::int32_t> staged32;
  std::vector<std::int64_t> staged64;
  void* data = const_cast<std::byte*>(array.data());  // zfp_compress only reads the field
  if (staged(l)) {
    if (l.type == zfp_type_int32) {
      staged32.resize(n);
      promote<std::int32_t, std::uint32_t>(array.data(), n, l, staged32.data());
      data = staged32.data();
    } else {
      staged64.resize(n);
      promote<std::int64_t, std::uint64_t>(array.data(), n, l, staged64.data());
      data = staged64.data();
    }
  }
  zfp_handles h;
  set_field(h.field, l.type, decoded_.shape, data);
  set_mode(h.stream, config_, l.type, decoded_.shape.size());
  out.resize(static_cast<std::size_t>(max_size_));
  h.bits = stream_open(out.data(), out.size());
  zfp_stream_set_bit_stream(h.stream, h.bits);
  zfp_stream_rewind(h.stream);
  if (header_ && zfp_write_header(h.stream, h.field, ZFP_HEADER_FULL) == 0)
    throw error(errc::invalid_value, label() + ": zfp could not write its header for the chunk");
  const auto size = zfp_compress(h.stream, h.field);
  if (size == 0) throw error(errc::invalid_value, label() + ": zfp could not compress the chunk");
  out.resize(size);
}

void zfp_codec::do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const {
  const auto l = *layout_of(decoded_.type);
  const auto n = static_cast<std::size_t>(decoded_.num_elements());
  const auto bound = header_ ? header_bound(encoded, l, decoded_, label()) : max_size_;
  if (encoded.size() > bound)
    throw error(errc::corrupt_chunk, label() + ": expected at most " + std::to_string(bound) + " bytes (zfp's bound for " +
                                         "this chunk), got " + std::to_string(encoded.size()));
  // zfp reads whole words and trusts the stream to end where the data does: it reads from a
  // copy zero-padded to the largest valid stream, so a short stream cannot make it read past
  // the buffer, and is found short afterwards.
  const thread_buffer<struct zfp_stream_tag> stream;
  stream->assign(static_cast<std::size_t>(bound) + 8, std::byte{0});
  if (!encoded.empty()) std::memcpy(stream->data(), encoded.data(), encoded.size());
  std::vector<std::int32_t> staged32;
  std::vector<std::int64_t> staged64;
  void* data = out.data();
  if (staged(l)) {
    if (l.type == zfp_type_int32) staged32.resize(n), data = staged32.data();
    else staged64.resize(n), data = staged64.data();
  }
  zfp_handles h;
  set_field(h.field, l.type, decoded_.shape, data);
  set_mode(h.stream, config_, l.type, decoded_.shape.size());
  h.bits = stream_open(stream->data(), stream->size());
  zfp_stream_set_bit_stream(h.stream, h.bits);
  zfp_stream_rewind(h.stream);
  if (header_) {
    const zfp_handles scratch;  // its field takes the header's, checked equal to the chunk's by header_bound
    static_cast<void>(zfp_read_header(h.stream, scratch.field, ZFP_HEADER_FULL));  // sets the stream's mode
  }
  const auto consumed = zfp_decompress(h.stream, h.field);
  if (consumed == 0 || consumed > encoded.size())
    throw error(errc::corrupt_chunk, label() + ": expected a zfp stream of the chunk's " + std::to_string(n) +
                                         " values, got one that ends early (" + std::to_string(encoded.size()) + " bytes)");
  if (l.type == zfp_type_int32 && staged(l)) demote<std::int32_t, std::uint32_t>(staged32.data(), n, l, out.data());
  else if (staged(l)) demote<std::int64_t, std::uint64_t>(staged64.data(), n, l, out.data());
}

std::unique_ptr<array_to_bytes_codec> make_zfp_codec(const codec_context& ctx) {
  return std::make_unique<zfp_codec>(zfp_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
