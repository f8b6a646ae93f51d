// zarr.codec.scale_offset: parsing offset/scale with the fill-value rules of the array's type,
// transforming the fill value at build time, and running the bulk kernels of
// zarr.arithmetic.kernels in place over whole chunks (zarr-extensions codecs/scale_offset).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.scale_offset;

import zarr.arithmetic;
import zarr.arithmetic.kernels;
import zarr.fill_value;

namespace zarr {
namespace json = boost::json;

namespace {

// Reads `key` as a value of `type`; nothing when absent. Rejects what docs/decisions.md 16 rejects.
std::optional<scalar> scalar_member(const codec_context& ctx, const json::object& config, std::string_view key,
                                    data_type type) {
  const auto* v = config.if_contains(key);
  if (v == nullptr) return std::nullopt;
  const auto at = ctx.where + ".configuration." + std::string(key);
  const scalar s = parse_scalar(ctx, *v, at, type);
  const auto value = decode(type, s.raw());
  if (value.kind != value_class::finite)
    throw error(errc::invalid_metadata, at + ": expected a finite value, got " + format_value(type, s.raw()));
  if (key == "scale" && value.is_zero())
    throw error(errc::invalid_metadata, at + ": expected a non-zero value, got " + format_value(type, s.raw()));
  return s;
}

void check_supported(data_type t, const std::string& where) {
  if (!scale_offset_supports(t))
    throw error(errc::invalid_metadata, where + " (scale_offset): expected an integer or floating-point data type, got " +
                                            std::string(zarr::name(t)));
}

// "(x - 1000) * 1", "x / 0.1 + 5": the operation, for messages.
// Without an offset (float8_e8m0fnu, which has no zero to subtract): "x * 2", "x / 2".
std::string formula(data_type t, bool encoding, bool has_offset, std::uint64_t offset, std::uint64_t scale) {
  const auto o = format_value(t, offset), s = format_value(t, scale);
  if (!has_offset) return encoding ? "x * " + s : "x / " + s;
  return encoding ? "(x - " + o + ") * " + s : "x / " + s + " + " + o;
}

std::string why(data_type t, const kernel_result& r) {
  const bool unsigned_negative = info(t).kind == dtype_kind::unsigned_integer && r.error == numeric_errc::negative_overflow;
  return std::string(to_string(r.error)) + (unsigned_negative ? ": a negative intermediate" : "");
}

// In place over the buffer.
kernel_result run(data_type t, bool encoding, std::span<std::byte> buffer, std::uint64_t offset, std::uint64_t scale) {
  return encoding ? scale_offset_encode(t, buffer, buffer, offset, scale)
                  : scale_offset_decode(t, buffer, buffer, offset, scale);
}

}  // namespace

bool scale_offset_supports(data_type t) noexcept { return is_integer(t) || is_float(t); }

scale_offset_configuration scale_offset_configuration::parse(const codec_context& ctx) {
  check_supported(ctx.decoded.type, ctx.where);
  const auto& config = configuration_object(ctx);
  reject_unknown_keys(config, {"offset", "scale"}, ctx.where);
  scale_offset_configuration out;
  out.offset = scalar_member(ctx, config, "offset", ctx.decoded.type);
  out.scale = scalar_member(ctx, config, "scale", ctx.decoded.type);
  return out;
}

scale_offset_codec::scale_offset_codec(const scale_offset_configuration& config, const chunk_spec& decoded,
                                       std::string where)
    : config_(config), decoded_(decoded), encoded_(decoded), where_(std::move(where)) {
  const auto t = decoded_.type;
  check_supported(t, where_);
  if ((config_.offset && config_.offset->type != t) || (config_.scale && config_.scale->type != t))
    throw error(errc::invalid_argument, where_ + " (scale_offset): expected offset and scale of type " +
                                            std::string(zarr::name(t)));
  const auto& f = info(t).format;
  identity_ = !config_.offset && !config_.scale;
  if (config_.offset) {
    encode_offset_ = decode_offset_ = config_.offset->raw();
  } else if (is_float(t)) {
    // x - (+0) and x + (-0) give x back for every x, -0 included.
    encode_offset_ = 0;
    decode_offset_ = f.has_negative_zero() ? f.sign_mask() : 0;
    offset_table_ = f.specials == float_specials::e8m0;  // no zero at all: skip the operation
  }
  if (config_.scale) {
    scale_ = config_.scale->raw();
  } else {
    scale_ = is_float(t) ? round_to(t, exact_value::from_uint(1)).bits : 1;
  }
  // The fill value passes through the codec like an element (spec "Fill value handling").
  if (!identity_) {
    bytes fill(decoded_.fill.bytes().begin(), decoded_.fill.bytes().end());
    if (decoded_.fill.type != t)
      throw error(errc::invalid_argument, where_ + " (scale_offset): expected a fill value of type " + std::string(zarr::name(t)));
    if (const auto r = transform(fill, true); !r.ok)
      throw error(errc::invalid_metadata,
                  where_ + " (scale_offset): expected a fill value that the codec can encode, got " +
                      format_value(t, decoded_.fill.raw()) + ", for which " +
                      formula(t, true, !offset_table_, encode_offset_, scale_) + " is not a value of " +
                      std::string(zarr::name(t)) + " (" + why(t, r) + ")");
    std::copy(fill.begin(), fill.end(), encoded_.fill.bits.begin());
  }
}

kernel_result scale_offset_codec::transform(std::span<std::byte> buffer, bool encoding) const {
  const auto t = decoded_.type;
  const auto offset = encoding ? encode_offset_ : decode_offset_;
  kernel_result r;
  if (offset_table_) {
    // float8_e8m0fnu with no offset: only x * scale or x / scale, through a table of all 256
    // byte values (the in-memory form is one byte).
    std::uint8_t table[256];
    numeric_errc failed[256];
    for (unsigned b = 0; b < 256; ++b) {
      const auto v = arithmetic(t, encoding ? arith_op::multiply : arith_op::divide, b, scale_);
      table[b] = static_cast<std::uint8_t>(v.bits);
      failed[b] = v.error;
    }
    // Check first, so that the failing element's value is still there to report.
    unsigned bad = 0;
    for (auto x : buffer) bad |= static_cast<unsigned>(failed[std::to_integer<std::uint8_t>(x)] != numeric_errc::none);
    if (bad != 0) {
      for (std::size_t i = 0; i < buffer.size(); ++i) {
        const auto b = std::to_integer<std::uint8_t>(buffer[i]);
        if (failed[b] != numeric_errc::none) {
          r = {false, i, b, failed[b]};
          break;
        }
      }
    } else {
      for (auto& x : buffer) x = static_cast<std::byte>(table[std::to_integer<std::uint8_t>(x)]);
    }
  } else {
    r = run(t, encoding, buffer, offset, scale_);
  }
  return r;
}

std::optional<element_step> scale_offset_codec::step(bool encoding) const {
  if (identity_ || offset_table_) return std::nullopt;
  const auto t = decoded_.type;
  element_step s;
  s.op = encoding ? element_step::kind::scale_offset_encode : element_step::kind::scale_offset_decode;
  s.from = s.to = t;
  s.offset = encoding ? encode_offset_ : decode_offset_;
  s.scale = scale_;
  return s;
}

void scale_offset_codec::throw_step_error(const kernel_result& r, bool encoding) const {
  const auto t = decoded_.type;
  throw error(to_errc(r.error), where_ + " (scale_offset) " + (encoding ? "encode" : "decode") + ", element " +
                                    std::to_string(r.index) + ": expected " +
                                    formula(t, encoding, !offset_table_, encoding ? encode_offset_ : decode_offset_, scale_) +
                                    " to be a value of " + std::string(zarr::name(t)) + ", got x = " +
                                    format_value(t, r.value) + " (" + why(t, r) + ")");
}

json::value scale_offset_codec::to_json() const {
  json::object config;
  if (config_.offset) config["offset"] = fill_value_to_json(*config_.offset);
  if (config_.scale) config["scale"] = fill_value_to_json(*config_.scale);
  return json::object{{"name", "scale_offset"}, {"configuration", std::move(config)}};
}

bytes scale_offset_codec::encode(bytes in) const {
  if (in.size() != decoded_.byte_size())
    throw error(errc::invalid_argument, where_ + " (scale_offset): expected a chunk of " +
                                            std::to_string(decoded_.byte_size()) + " bytes, got " + std::to_string(in.size()));
  if (identity_) return in;
  if (const auto r = transform(in, true); !r.ok) throw_step_error(r, true);
  return in;
}

bytes scale_offset_codec::decode(bytes in) const {
  if (in.size() != encoded_.byte_size())
    throw error(errc::invalid_argument, where_ + " (scale_offset): expected a chunk of " +
                                            std::to_string(encoded_.byte_size()) + " bytes, got " + std::to_string(in.size()));
  if (identity_) return in;
  if (const auto r = transform(in, false); !r.ok) throw_step_error(r, false);
  return in;
}

std::unique_ptr<array_to_array_codec> make_scale_offset_codec(const codec_context& ctx) {
  return std::make_unique<scale_offset_codec>(scale_offset_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
