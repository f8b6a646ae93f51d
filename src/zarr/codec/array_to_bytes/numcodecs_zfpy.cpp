// zarr.codec.numcodecs_zfpy: numcodecs' configuration read into the zfp codec's, as
// zfpy.compress_numpy applies it: tolerance if >= 0, else rate if >= 0, else precision if >= 0,
// else none (zfp's defaults: minbits 1, maxbits 16658, maxprec 64, minexp -1074); numcodecs
// passes only the parameter of its mode (`compression_kwargs`).
module;
#include <zfp.h>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.numcodecs_zfpy;

namespace zarr {
namespace json = boost::json;

namespace {

// A parameter of the configuration: absent or a number (negative: not set, numcodecs' -1).
double parameter(const json::object& config, std::string_view key, const std::string& where) {
  const auto* v = config.if_contains(key);
  if (v == nullptr) return -1;
  if (!v->is_number())
    throw error(errc::invalid_metadata, where + ".configuration." + std::string(key) + ": expected a number, got " +
                                            json::serialize(*v));
  return v->to_number<double>();
}

zfp_configuration parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"mode", "tolerance", "rate", "precision", "compression_kwargs"});
  const auto& mode = required_member(config, "mode", ctx.where, "an integer");
  const auto m = non_negative_integer(mode);
  if (!m || *m < 2 || *m > 5)
    throw error(errc::invalid_metadata, ctx.where + ".configuration.mode: expected 2 (fixed rate), 3 (fixed precision), "
                                                    "4 (fixed accuracy) or 5 (reversible), got " + json::serialize(mode));
  if (const auto* k = config.if_contains("compression_kwargs"); k != nullptr && !k->is_object())
    throw error(errc::invalid_metadata, ctx.where + ".configuration.compression_kwargs: expected an object, got " +
                                            json::serialize(*k));
  const double tolerance = parameter(config, "tolerance", ctx.where);
  const double rate = parameter(config, "rate", ctx.where);
  const double precision = parameter(config, "precision", ctx.where);
  zfp_configuration c;
  // zfp's defaults, which a stream keeps when no parameter is set: those of a new stream.
  c.mode = zfp_mode::expert;
  {
    zfp_stream* fresh = zfp_stream_open(nullptr);
    unsigned minbits = 0, maxbits = 0, maxprec = 0;
    int minexp = 0;
    zfp_stream_params(fresh, &minbits, &maxbits, &maxprec, &minexp);
    zfp_stream_close(fresh);
    c.minbits = minbits;
    c.maxbits = maxbits;
    c.maxprec = maxprec;
    c.minexp = minexp;
  }
  const auto bad = [&](std::string_view key, std::string_view expected) {
    return error(errc::invalid_metadata, ctx.where + ".configuration." + std::string(key) + ": expected " +
                                             std::string(expected) + ", got " + json::serialize(config.at(key)));
  };
  switch (*m) {
    case 2:
      if (rate >= 0) {
        if (!(rate > 0) || rate > 64) throw bad("rate", "a number above 0 and at most 64");
        c.mode = zfp_mode::fixed_rate;
        c.rate = rate;
      }
      break;
    case 3:
      if (precision >= 0) {
        if (precision > 64 || precision != std::floor(precision)) throw bad("precision", "an integer from 0 to 64");
        c.mode = zfp_mode::fixed_precision;
        c.precision = static_cast<std::uint64_t>(precision);
      }
      break;
    case 4:
      if (tolerance >= 0) {
        if (!std::isfinite(tolerance)) throw bad("tolerance", "a finite number");
        c.mode = zfp_mode::fixed_accuracy;
        c.tolerance = tolerance;
      }
      break;
    default: c.mode = zfp_mode::reversible; break;
  }
  return c;
}

}  // namespace

numcodecs_zfpy_codec::numcodecs_zfpy_codec(const zfp_configuration& config, json::object configuration,
                                           const chunk_spec& decoded, std::string where)
    : zfp_codec(config, decoded, std::move(where), true), configuration_(std::move(configuration)) {}

json::value numcodecs_zfpy_codec::to_json() const {
  return json::object{{"name", "numcodecs.zfpy"}, {"configuration", configuration_}};
}

std::unique_ptr<array_to_bytes_codec> make_numcodecs_zfpy_codec(const codec_context& ctx) {
  const auto config = parse(ctx);
  return std::make_unique<numcodecs_zfpy_codec>(config, configuration_object(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
