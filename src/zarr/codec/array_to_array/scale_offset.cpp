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
  const auto& config = configuration_object(ctx, {"offset", "scale"});
  scale_offset_configuration out;
  out.offset = scalar_member(ctx, config, "offset", ctx.decoded.type);
  out.scale = scalar_member(ctx, config, "scale", ctx.decoded.type);
  return out;
}

scale_offset_codec::scale_offset_codec(const scale_offset_configuration& config, const chunk_spec& decoded,
                                       std::string where)
    : array_to_array_codec(std::move(where)), config_(config), decoded_(decoded), encoded_(decoded) {
  const auto t = decoded_.type;
  check_supported(t, where_);
  if (config_.offset) config_.offset = convert_value(config_.offset->value(), t, where_ + ".configuration.offset");
  if (config_.scale) config_.scale = convert_value(config_.scale->value(), t, where_ + ".configuration.scale");
  const auto& f = info(t).format;
  identity_ = !config_.offset && !config_.scale;
  if (config_.offset) {
    encode_offset_ = decode_offset_ = config_.offset->value().raw();
  } else if (is_float(t)) {
    // x - (+0) and x + (-0) give x back for every x, -0 included.
    encode_offset_ = 0;
    decode_offset_ = f.has_negative_zero() ? f.sign_mask() : 0;
    scale_only_ = f.specials == float_specials::e8m0;  // no zero at all: skip the operation
  }
  if (config_.scale) {
    scale_ = config_.scale->value().raw();
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
                      formula(t, true, !scale_only_, encode_offset_, scale_) + " is not a value of " +
                      std::string(zarr::name(t)) + " (" + why(t, r) + ")");
    std::copy(fill.begin(), fill.end(), encoded_.fill.bits.begin());
  }
}

kernel_result scale_offset_codec::transform(std::span<std::byte> buffer, bool encoding) const {
  const auto t = decoded_.type;
  const auto offset = encoding ? encode_offset_ : decode_offset_;
  kernel_result r;
  if (scale_only_) {
    // float8_e8m0fnu has no zero to subtract or add: only x * scale or x / scale.
    const auto op = encoding ? arith_op::multiply : arith_op::divide;
    r = byte_table(t, t, [&](std::uint64_t x) { return arithmetic(t, op, x, scale_); }).apply(buffer, buffer);
  } else {
    r = run(t, encoding, buffer, offset, scale_);
  }
  return r;
}

std::optional<element_step> scale_offset_codec::step(bool encoding) const {
  if (identity_ || scale_only_) return std::nullopt;
  const auto t = decoded_.type;
  element_step s;
  s.op = encoding ? element_step::kind::subtract_multiply : element_step::kind::divide_add;
  s.from = s.to = t;
  s.offset = encoding ? encode_offset_ : decode_offset_;
  s.scale = scale_;
  return s;
}

void scale_offset_codec::throw_step_error(const kernel_result& r, bool encoding) const {
  const auto t = decoded_.type;
  throw error(to_errc(r.error), where_ + " (scale_offset) " + (encoding ? "encode" : "decode") + ", element " +
                                    std::to_string(r.index) + ": expected " +
                                    formula(t, encoding, !scale_only_, encoding ? encode_offset_ : decode_offset_, scale_) +
                                    " to be a value of " + std::string(zarr::name(t)) + ", got x = " +
                                    format_value(t, r.value) + " (" + why(t, r) + ")");
}

json::value scale_offset_configuration::to_json(data_type type, std::string_view where) const {
  const auto at = std::string(where) + ".configuration.";
  json::object config;
  if (offset) config["offset"] = fill_value_to_json(convert_value(offset->value(), type, at + "offset"));
  if (scale) config["scale"] = fill_value_to_json(convert_value(scale->value(), type, at + "scale"));
  return json::object{{"name", "scale_offset"}, {"configuration", std::move(config)}};
}

json::value scale_offset_codec::to_json() const { return config_.to_json(decoded_.type, where_); }

bytes scale_offset_codec::do_encode(bytes in) const {
  if (identity_) return in;
  if (const auto r = transform(in, true); !r.ok) throw_step_error(r, true);
  return in;
}

bytes scale_offset_codec::do_decode(bytes in) const {
  if (identity_) return in;
  if (const auto r = transform(in, false); !r.ok) throw_step_error(r, false);
  return in;
}

std::unique_ptr<array_to_array_codec> make_scale_offset_codec(const codec_context& ctx) {
  return std::make_unique<scale_offset_codec>(scale_offset_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
