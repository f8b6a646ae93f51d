// zarr.codec.fixedscaleoffset: numcodecs 0.11's FixedScaleOffset reproduced both ways.
//   numcodecs decode: dec = (enc / scale) + offset; dec.astype(dtype)
//   numcodecs encode: enc = np.around((arr - offset) * scale); enc.astype(astype)
// with scale and offset Python scalars, so NumPy 1.24's value-based promotion picks the
// arithmetic types (recorded per case in the FixedScaleOffset vectors, tests/data). Each operation
// is done natively in that type (float16 through float32, which rounds the same: float32 has
// more than twice float16's precision), so results and NaN payloads are NumPy's bit for bit;
// where NumPy's result is C undefined behaviour (NaN, infinity or out of range into an integer)
// or an overflow to infinity, we throw instead (docs/decisions.md 18, 54).
//
// Fill value (encoded().fill): what numcodecs' encode gives for the fill value,
// round_half_even((fill - offset) * scale) cast to astype, with NumPy's types for each step
// (integer steps wrap as NumPy's do, float steps overflow to infinity; casts to an integer
// astype wrap like cast_value's out_of_range "wrap", which is also what x86 NumPy gives within
// int32). Where that cast is undefined in C (NaN or infinity into an integer), the fill value
// is computed again in float64 throughout (the two-codec form's answer: a float16
// (0 - 1000) * 333.3 overflows, in float64 it does not); if that fails too (a NaN fill value
// with an integer astype), the array fails to open: nothing says what the fill value is stored
// as.
module;
#include <algorithm>
#include <bit>
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
#include <type_traits>
#include <utility>
#include <boost/json.hpp>
module zarr.codec.fixedscaleoffset;

import zarr.arithmetic;
import zarr.fill_value;

namespace zarr {
namespace json = boost::json;

namespace {


// ---------------------------------------------------------------- NumPy 1.24 promotion

data_type signed_of_bits(int bits) {
  switch (bits) {
    case 8: return data_type::int8;
    case 16: return data_type::int16;
    case 32: return data_type::int32;
    default: return data_type::int64;
  }
}
data_type float_of_bits(int bits) {
  return bits <= 16 ? data_type::float16 : bits <= 32 ? data_type::float32 : data_type::float64;
}
bool is_signed_integer(data_type t) { return info(t).kind == dtype_kind::signed_integer; }

// np.promote_types over int8..uint64, float16..float64.
data_type promote(data_type a, data_type b) {
  if (a == b) return a;
  const int ba = info(a).bits, bb = info(b).bits;
  if (is_float(a) && is_float(b)) return ba >= bb ? a : b;
  if (is_float(a) || is_float(b)) {
    const data_type f = is_float(a) ? a : b;
    const int ib = is_float(a) ? bb : ba;
    // The smallest float that holds every value of the integer type.
    const int need = ib <= 8 ? 16 : ib <= 16 ? 32 : 64;
    return float_of_bits(std::max(need, info(f).bits));
  }
  if (is_signed_integer(a) == is_signed_integer(b)) return ba >= bb ? a : b;
  const int bu = is_signed_integer(a) ? bb : ba, bs = is_signed_integer(a) ? ba : bb;
  if (bu < bs) return signed_of_bits(bs);
  if (bu < 64) return signed_of_bits(2 * bu);
  return data_type::float64;
}

// np.min_scalar_type of a Python scalar, and whether an unsigned result would fit the signed
// type of the same size (NumPy then promotes it as that signed type).
struct min_type {
  data_type type;
  bool small_unsigned;
};
min_type min_scalar_type(const python_number& n) {
  if (!n.is_integer) {
    // NumPy's thresholds, not the formats' exact limits.
    if (n.value > -65000 && n.value < 65000) return {data_type::float16, false};
    if (n.value > -3.4e38 && n.value < 3.4e38) return {data_type::float32, false};
    return {data_type::float64, false};
  }
  if (const auto* i = n.json.if_int64(); i != nullptr && *i < 0) {
    if (*i >= INT8_MIN) return {data_type::int8, false};
    if (*i >= INT16_MIN) return {data_type::int16, false};
    if (*i >= INT32_MIN) return {data_type::int32, false};
    return {data_type::int64, false};
  }
  const std::uint64_t u = n.json.is_uint64() ? n.json.get_uint64() : static_cast<std::uint64_t>(n.json.get_int64());
  if (u <= UINT8_MAX) return {data_type::uint8, u <= INT8_MAX};
  if (u <= UINT16_MAX) return {data_type::uint16, u <= INT16_MAX};
  if (u <= UINT32_MAX) return {data_type::uint32, u <= INT32_MAX};
  return {data_type::uint64, u <= INT64_MAX};
}

// The type of `array op scalar` under value-based casting: the scalar's own smallest type
// counts when its kind (integer < float) is not above the array's; else its default type.
data_type result_type(data_type array, const python_number& n) {
  if (!n.is_integer && is_integer(array)) return data_type::float64;
  auto m = min_scalar_type(n);
  if (m.small_unsigned && is_signed_integer(array)) m.type = signed_of_bits(info(m.type).bits);
  return promote(array, m.type);
}

// ---------------------------------------------------------------- float16 as NumPy does it

double round_half(double x) { return numpy_half_to_double(numpy_double_to_half(x)); }

// A value in the float type of `bits` bits (the Python scalar converted as NumPy does).
double in_float(int bits, double v) {
  if (bits == 64) return v;
  if (bits == 32) return static_cast<double>(static_cast<float>(v));
  return round_half(v);
}

// One operation in the float type of P bits, on doubles that hold values of that type.
template <int P>
double divide(double a, double b) {
  if constexpr (P == 64) return a / b;
  else if constexpr (P == 32) return static_cast<double>(static_cast<float>(a) / static_cast<float>(b));
  else return round_half(static_cast<double>(static_cast<float>(a) / static_cast<float>(b)));
}
template <int P>
double add(double a, double b) {
  if constexpr (P == 64) return a + b;
  else if constexpr (P == 32) return static_cast<double>(static_cast<float>(a) + static_cast<float>(b));
  else return round_half(static_cast<double>(static_cast<float>(a) + static_cast<float>(b)));
}

// ---------------------------------------------------------------- the decode loop

constexpr std::size_t block = 256;

struct half_bits {  // a float16 element, as its bits
  std::uint16_t v;
};

template <class A>
void load_block(const std::byte* src, double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    A a;
    std::memcpy(&a, src + i * sizeof(A), sizeof(A));
    if constexpr (std::is_same_v<A, half_bits>)
      x[i] = numpy_half_to_double(a.v);
    else
      x[i] = static_cast<double>(a);
  }
}

void load(data_type t, const std::byte* src, double* x, std::size_t n) {
  switch (t) {
    case data_type::int8: return load_block<std::int8_t>(src, x, n);
    case data_type::int16: return load_block<std::int16_t>(src, x, n);
    case data_type::int32: return load_block<std::int32_t>(src, x, n);
    case data_type::int64: return load_block<std::int64_t>(src, x, n);
    case data_type::uint8: return load_block<std::uint8_t>(src, x, n);
    case data_type::uint16: return load_block<std::uint16_t>(src, x, n);
    case data_type::float16: return load_block<half_bits>(src, x, n);
    case data_type::uint32: return load_block<std::uint32_t>(src, x, n);
    case data_type::uint64: return load_block<std::uint64_t>(src, x, n);
    case data_type::float32: return load_block<float>(src, x, n);
    case data_type::float64: return load_block<double>(src, x, n);
    default: return;
  }
}

template <int P1, int P2>
void compute_block(const double* x, double* y, std::size_t n, double scale, double offset) {
  for (std::size_t i = 0; i < n; ++i) y[i] = add<P2>(divide<P1>(x[i], scale), offset);
}

// Calls f.operator()<P1, P2>() with the two precisions as constants (16, 32 or 64 bits, P1 <= P2:
// the pairs NumPy's promotion gives), so that each loop is compiled for its pair.
template <class F>
void with_precisions(int p1, int p2, F&& f) {
  switch (p1 * 100 + p2) {
    case 1616: return f.template operator()<16, 16>();
    case 1632: return f.template operator()<16, 32>();
    case 1664: return f.template operator()<16, 64>();
    case 3232: return f.template operator()<32, 32>();
    case 3264: return f.template operator()<32, 64>();
    default: return f.template operator()<64, 64>();
  }
}

void compute(int p1, int p2, const double* x, double* y, std::size_t n, double scale, double offset) {
  with_precisions(p1, p2, [&]<int P1, int P2>() { compute_block<P1, P2>(x, y, n, scale, offset); });
}

// numcodecs' encode in float types P1 (x - offset) and P2 (* scale), each operation rounded
// once (a double holds both operands exactly, and its own rounding is harmless: it has more than
// twice the precision of float32), then np.around (half to even).
template <int P1, int P2>
void encode_block(const double* x, double* y, std::size_t n, double offset, double scale) {
  for (std::size_t i = 0; i < n; ++i) y[i] = std::nearbyint(in_float(P2, in_float(P1, x[i] - offset) * scale));
}

void encode_compute(int p1, int p2, const double* x, double* y, std::size_t n, double offset, double scale) {
  with_precisions(p1, p2, [&]<int P1, int P2>() { encode_block<P1, P2>(x, y, n, offset, scale); });
}

// ndarray.astype(D): truncation for integers (checked here), nearest-even for floats (an
// infinity from a finite input is an overflow). fail[i] = 1 for an element D cannot hold.
template <class D>
unsigned store_block(const double* x, const double* y, std::byte* dst, std::uint8_t* fail, std::size_t n) {
  unsigned bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    D d{};
    bool f = false;
    if constexpr (std::is_integral_v<D>) {
      const double t = std::trunc(y[i]);
      constexpr bool wide = sizeof(D) == 8;
      // 2^63 and 2^64 are exact doubles; narrower limits are exact too.
      const double lo = std::is_signed_v<D> ? (wide ? -9223372036854775808.0 : double(std::numeric_limits<D>::min())) : 0.0;
      const double hi_excl = wide ? (std::is_signed_v<D> ? 9223372036854775808.0 : 18446744073709551616.0)
                                  : double(std::numeric_limits<D>::max()) + 1.0;
      f = !(t >= lo && t < hi_excl);  // NaN fails too
      if (!f) d = static_cast<D>(t);
    } else if constexpr (std::is_same_v<D, half_bits>) {
      d.v = numpy_double_to_half(y[i]);
      f = (d.v & 0x7fffu) == 0x7c00u && !std::isinf(x[i]);
    } else {
      d = static_cast<D>(y[i]);
      f = std::isinf(d) && !std::isinf(x[i]);
    }
    fail[i] = static_cast<std::uint8_t>(f);
    bad |= static_cast<unsigned>(f);
    std::memcpy(dst + i * sizeof(D), &d, sizeof(D));
  }
  return bad;
}

unsigned store_elements(data_type t, const double* x, const double* y, std::byte* dst, std::uint8_t* fail, std::size_t n) {
  switch (t) {
    case data_type::int8: return store_block<std::int8_t>(x, y, dst, fail, n);
    case data_type::int16: return store_block<std::int16_t>(x, y, dst, fail, n);
    case data_type::int32: return store_block<std::int32_t>(x, y, dst, fail, n);
    case data_type::int64: return store_block<std::int64_t>(x, y, dst, fail, n);
    case data_type::uint8: return store_block<std::uint8_t>(x, y, dst, fail, n);
    case data_type::uint16: return store_block<std::uint16_t>(x, y, dst, fail, n);
    case data_type::uint32: return store_block<std::uint32_t>(x, y, dst, fail, n);
    case data_type::uint64: return store_block<std::uint64_t>(x, y, dst, fail, n);
    case data_type::float16: return store_block<half_bits>(x, y, dst, fail, n);
    case data_type::float32: return store_block<float>(x, y, dst, fail, n);
    default: return store_block<double>(x, y, dst, fail, n);
  }
}

// ---------------------------------------------------------------- configuration

python_number number_member(const codec_context& ctx, const json::object& config, std::string_view key) {
  const auto at = ctx.where + ".configuration." + std::string(key);
  const auto* v = config.if_contains(key);
  if (v == nullptr) throw error(errc::invalid_metadata, at + ": expected a JSON number, got nothing");
  python_number n;
  n.json = *v;
  if (const auto* i = v->if_int64()) {
    n.is_integer = true;
    n.value = static_cast<double>(*i);
  } else if (const auto* u = v->if_uint64()) {
    n.is_integer = true;
    n.value = static_cast<double>(*u);
  } else if (v->is_double()) {
    n.value = std::bit_cast<double>(parse_scalar(ctx, *v, at, data_type::float64).raw());
  } else {
    throw error(errc::invalid_metadata, at + ": expected a JSON number, got " + json::serialize(*v));
  }
  if (!std::isfinite(n.value)) throw error(errc::invalid_metadata, at + ": expected a finite number, got " + json::serialize(*v));
  if (key == "scale" && n.value == 0) throw error(errc::invalid_metadata, at + ": expected a non-zero number, got " + json::serialize(*v));
  return n;
}

data_type type_member(const json::value& v, const std::string& at) {
  const auto* s = v.if_string();
  if (s == nullptr) throw error(errc::invalid_metadata, at + ": expected a Zarr V2 data type string, got " + json::serialize(v));
  return parse_v2_data_type(*s, at);
}

// The Python scalar as a value of `t` (dtype of the two-codec form), or why it is not one.
std::optional<scalar> in_dtype(const codec_context& ctx, const python_number& n, const std::string& at, data_type t,
                               std::string& why) {
  try {
    if (is_integer(t) && !n.is_integer) {
      // 10.0 with an integer dtype: the value is an integer, which scale_offset can hold.
      if (n.value != std::trunc(n.value) || std::fabs(n.value) >= 9223372036854775808.0)
        throw error(errc::invalid_value, at + ": expected an integer for the data type " + std::string(zarr::name(t)) +
                                             ", got " + json::serialize(n.json));
      return parse_fill_value(json::value(static_cast<std::int64_t>(n.value)), t, at);
    }
    return parse_scalar(ctx, n.json, at, t);
  } catch (const error& e) {
    if (why.empty()) why = e.what();
    return std::nullopt;
  }
}

// ---------------------------------------------------------------- the fill value

// A value of NumPy type `type` as raw bits, for the few steps of numcodecs' encode.
struct typed {
  data_type type;
  std::uint64_t bits;
};

__int128 integer_value(const typed& v) {
  const int b = info(v.type).bits;
  if (is_signed_integer(v.type)) return sign_extend(v.bits, b);
  return static_cast<__int128>(v.bits);
}

typed python_in(const python_number& n, data_type t) {
  if (n.is_integer) {
    const exact_value e = n.json.is_uint64() ? exact_value::from_uint(n.json.get_uint64())
                                             : exact_value::from_int(n.json.get_int64());
    return {t, round_to(t, e, rounding_mode::nearest_even, out_of_range_mode::wrap).bits};
  }
  return {t, round_to(t, exact_value::from_double(n.value)).bits};
}

// a op b in NumPy type t: integers wrap, floats round once with IEEE results (an overflow
// gives an infinity, Inf - Inf a NaN), as NumPy computes them.
typed numpy_op(data_type t, arith_op op, const typed& a, const typed& b) {
  if (is_integer(t)) {
    const __int128 x = integer_value(a), y = integer_value(b);
    const __int128 r = op == arith_op::subtract ? x - y : x * y;
    return typed{t, static_cast<std::uint64_t>(r) & (info(t).bits >= 64 ? ~0ull : (1ull << info(t).bits) - 1)};
  }
  const auto& f = info(t).format;
  const auto r = arithmetic(t, op, a.bits, b.bits);
  switch (r.error) {
    case numeric_errc::none: return typed{t, r.bits};
    case numeric_errc::positive_overflow: return typed{t, f.infinity()};
    case numeric_errc::negative_overflow: return typed{t, f.infinity() | f.sign_mask()};
    default: return typed{t, f.canonical_nan()};
  }
}

std::optional<typed> convert(const typed& v, data_type to) {
  const auto r = cast(v.type, v.bits, to, rounding_mode::nearest_even,
                      // NumPy: integer casts wrap; float overflow gives an infinity
                      is_integer(to) ? out_of_range_mode::wrap : out_of_range_mode::clamp);
  if (!r.ok()) return std::nullopt;
  return typed{to, r.bits};
}

// numcodecs' encode of one value: round_half_even((x - offset) * scale) cast to astype, in
// NumPy's types; nothing where the cast is undefined (NaN or infinity into an integer).
std::optional<typed> encode_like_numcodecs(const fixedscaleoffset_configuration& c, const typed& x) {
  const data_type t1 = numpy_encode_types(c).subtract;
  const data_type t2 = numpy_encode_types(c).multiply;
  auto a = convert(x, t1);
  if (!a) return std::nullopt;
  const auto d = numpy_op(t1, arith_op::subtract, *a, python_in(c.offset, t1));
  auto e = convert(d, t2);
  if (!e) return std::nullopt;
  auto p = numpy_op(t2, arith_op::multiply, *e, python_in(c.scale, t2));
  if (is_float(t2)) {  // np.around: half to even (the default rounding mode)
    const double r = std::nearbyint(to_double(t2, p.bits));
    p.bits = round_to(t2, exact_value::from_double(r), rounding_mode::nearest_even, out_of_range_mode::clamp).bits;
  }
  return convert(p, c.astype);
}

// numcodecs' encode of one element whose arithmetic starts in an integer type (an integer dtype
// and offset): integer steps wrap as NumPy's do; the last cast wraps from an integer, and from a
// float gives nothing where C leaves it undefined (NaN, infinity, out of range) or where it
// overflows a float astype.
std::optional<std::uint64_t> encode_element(const fixedscaleoffset_configuration& c, const fixedscaleoffset_encode_types& t,
                                            const typed& x) {
  const auto a = convert(x, t.subtract);
  if (!a) return std::nullopt;
  const auto d = numpy_op(t.subtract, arith_op::subtract, *a, python_in(c.offset, t.subtract));
  const auto e = convert(d, t.multiply);
  if (!e) return std::nullopt;
  auto p = numpy_op(t.multiply, arith_op::multiply, *e, python_in(c.scale, t.multiply));
  if (is_float(t.multiply)) {  // np.around: half to even
    const double r = std::nearbyint(to_double(t.multiply, p.bits));
    p.bits = round_to(t.multiply, exact_value::from_double(r), rounding_mode::nearest_even, out_of_range_mode::clamp).bits;
  }
  if (is_integer(t.multiply) && is_integer(c.astype)) return convert(p, c.astype)->bits;
  const auto r = cast(t.multiply, p.bits, c.astype, rounding_mode::nearest_even, out_of_range_mode::error);
  if (!r.ok()) return std::nullopt;
  return r.bits;
}

// The same in float64 throughout: the two-codec form's answer, used where NumPy's narrow
// arithmetic overflowed (float16 * 333.3) and its cast is therefore undefined.
std::optional<typed> encode_in_float64(const fixedscaleoffset_configuration& c, const typed& x) {
  python_number offset = c.offset, scale = c.scale;
  offset.is_integer = scale.is_integer = false;  // as Python floats: float64 arithmetic
  fixedscaleoffset_configuration f = c;
  f.offset = offset;
  f.scale = scale;
  f.dtype = data_type::float64;
  auto v = convert(x, data_type::float64);
  if (!v) return std::nullopt;
  return encode_like_numcodecs(f, *v);
}

// The number as given: an integer, or the shortest decimal of the double.
std::string number_text(const python_number& n) {
  if (n.is_integer) return json::serialize(n.json);
  return format_value(data_type::float64, std::bit_cast<std::uint64_t>(n.value));
}

}  // namespace

data_type parse_v2_data_type(std::string_view text, std::string_view where) {
  if (const auto t = parse_numpy_dtype(text); t && (is_integer(t->type) || is_float(t->type))) return t->type;
  throw error(errc::invalid_metadata,
              std::string(where) + ": expected a Zarr V2 integer or float data type (\"<f8\", \"|u1\", \">i2\", " +
                  "\"float32\", ...), got \"" + std::string(text) + "\"");
}

fixedscaleoffset_configuration fixedscaleoffset_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"offset", "scale", "dtype", "astype"});
  fixedscaleoffset_configuration c;
  const auto at = ctx.where + ".configuration.";
  c.dtype_json = required_member(config, "dtype", ctx.where, "a Zarr V2 data type string");
  c.dtype = type_member(c.dtype_json, at + "dtype");
  c.astype = c.dtype;
  // "astype": null is numcodecs' default, the dtype itself.
  if (const auto* astype = config.if_contains("astype"); astype != nullptr && !astype->is_null()) {
    c.astype_json = *astype;
    c.astype = type_member(*astype, at + "astype");
  }
  c.offset = number_member(ctx, config, "offset");
  c.scale = number_member(ctx, config, "scale");
  c.offset_in_dtype = in_dtype(ctx, c.offset, at + "offset", c.dtype, c.not_in_dtype);
  c.scale_in_dtype = in_dtype(ctx, c.scale, at + "scale", c.dtype, c.not_in_dtype);
  if (c.scale_in_dtype && decode(c.dtype, c.scale_in_dtype->raw()).is_zero()) {
    c.scale_in_dtype.reset();
    c.not_in_dtype = at + "scale: expected a non-zero value of " + std::string(zarr::name(c.dtype)) + ", got " +
                     number_text(c.scale) + ", which rounds to 0";
  }
  return c;
}

fixedscaleoffset_encode_types numpy_encode_types(const fixedscaleoffset_configuration& c) {
  const data_type subtract = result_type(c.dtype, c.offset);
  return {subtract, result_type(subtract, c.scale)};
}

fixedscaleoffset_decode_types numpy_decode_types(const fixedscaleoffset_configuration& c) {
  // An integer array divided by anything is float64 (true_divide); a float one is promoted by
  // value with the scalar.
  const data_type divide = is_integer(c.astype) ? data_type::float64 : result_type(c.astype, c.scale);
  return {divide, result_type(divide, c.offset)};
}

fixedscaleoffset_codec::fixedscaleoffset_codec(const fixedscaleoffset_configuration& config, const chunk_spec& decoded,
                                               std::string where)
    : array_to_array_codec(std::move(where)), config_(config), types_(numpy_decode_types(config)), decoded_(decoded), encoded_(decoded) {
  if (decoded_.type != config_.dtype)
    throw error(errc::invalid_metadata, where_ + ".configuration.dtype: expected the data type the codec receives, " +
                                            std::string(zarr::name(decoded_.type)) + ", got " + json::serialize(config_.dtype_json) +
                                            " (" + std::string(zarr::name(config_.dtype)) + ")");
  encoded_.type = config_.astype;
  auto fill = encode_like_numcodecs(config_, {decoded_.type, decoded_.fill.raw()});
  if (!fill) fill = encode_in_float64(config_, {decoded_.type, decoded_.fill.raw()});
  if (!fill)
    throw error(errc::invalid_metadata,
                where_ + " (numcodecs.fixedscaleoffset): expected a fill value that numcodecs encodes to a value of " +
                    std::string(zarr::name(config_.astype)) + ", got " + format_value(decoded_.type, decoded_.fill.raw()) +
                    " (round((x - " + number_text(config_.offset) + ") * " + number_text(config_.scale) +
                    ") is not a number or infinite, which numcodecs casts to an integer in a way C leaves undefined)");
  encoded_.fill = scalar{config_.astype, {}};
  const auto v = fill->bits;
  std::memcpy(encoded_.fill.bits.data(), &v, static_cast<std::size_t>(info(config_.astype).size));
}

json::value fixedscaleoffset_codec::to_json() const {
  json::object config{{"offset", config_.offset.json}, {"scale", config_.scale.json}, {"dtype", config_.dtype_json}};
  if (!config_.astype_json.is_null()) config["astype"] = config_.astype_json;
  return json::object{{"name", "numcodecs.fixedscaleoffset"}, {"configuration", std::move(config)}};
}

bytes fixedscaleoffset_codec::do_encode(bytes in) const {
  const std::size_t n = decoded_.num_elements();
  const auto in_size = static_cast<std::size_t>(info(config_.dtype).size);
  const auto out_size = static_cast<std::size_t>(info(config_.astype).size);
  const auto t = numpy_encode_types(config_);
  bytes out(n * out_size);
  std::size_t bad = n;  // the first element numcodecs' encode leaves without a value
  bool not_a_number = false;
  if (is_float(t.subtract)) {
    const int p1 = info(t.subtract).bits, p2 = info(t.multiply).bits;
    const double offset = in_float(p1, config_.offset.value);
    const double scale = in_float(p2, config_.scale.value);
    double x[block], y[block];
    std::uint8_t fail[block];
    for (std::size_t start = 0; start < n && bad == n; start += block) {
      const std::size_t m = std::min(block, n - start);
      load(config_.dtype, in.data() + start * in_size, x, m);
      encode_compute(p1, p2, x, y, m, offset, scale);
      if (store_elements(config_.astype, x, y, out.data() + start * out_size, fail, m) == 0) continue;
      std::size_t i = 0;
      while (fail[i] == 0) ++i;
      bad = start + i;
      not_a_number = std::isnan(y[i]);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, in.data() + i * in_size, in_size);
      const auto r = encode_element(config_, t, {config_.dtype, bits});
      if (!r) {
        bad = i;
        break;
      }
      std::memcpy(out.data() + i * out_size, &*r, out_size);
    }
  }
  if (bad == n) return out;
  std::uint64_t bits = 0;
  std::memcpy(&bits, in.data() + bad * in_size, in_size);
  throw error(not_a_number ? errc::invalid_value : errc::out_of_range,
              where_ + " (numcodecs.fixedscaleoffset) encode, element " + std::to_string(bad) + ": expected round((x - " +
                  number_text(config_.offset) + ") * " + number_text(config_.scale) + ") (in " + std::string(zarr::name(t.multiply)) +
                  ", as numcodecs computes it) to be a value of " + std::string(zarr::name(config_.astype)) + ", got x = " +
                  format_value(config_.dtype, bits) +
                  (is_integer(config_.astype) ? " (not a number, infinite or out of range: NumPy's cast to an integer is undefined there)"
                                              : " (it overflows to infinity)"));
}

bytes fixedscaleoffset_codec::do_decode(bytes in) const {
  const std::size_t n = encoded_.num_elements();
  const auto in_size = static_cast<std::size_t>(info(config_.astype).size);
  const auto out_size = static_cast<std::size_t>(info(config_.dtype).size);
  const int p1 = info(types_.divide).bits, p2 = info(types_.add).bits;
  const double scale = in_float(p1, config_.scale.value);
  const double offset = in_float(p2, config_.offset.value);
  // In place when the output is not larger; otherwise into a new buffer.
  bytes out_buffer;
  if (out_size > in_size) out_buffer.resize(n * out_size);
  std::byte* out = out_size > in_size ? out_buffer.data() : in.data();
  double x[block], y[block];
  std::uint8_t fail[block];
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t m = std::min(block, n - start);
    load(config_.astype, in.data() + start * in_size, x, m);
    compute(p1, p2, x, y, m, scale, offset);
    // Blocks go front to back and out_size <= in_size in place: block `start`'s output never
    // overtakes input not yet loaded (x holds this block's input already).
    if (store_elements(config_.dtype, x, y, out + start * out_size, fail, m) == 0) continue;
    std::size_t i = 0;
    while (fail[i] == 0) ++i;
    const double v = x[i], r = y[i];
    const bool integer = is_integer(config_.dtype);
    const bool invalid = integer && !std::isfinite(r);
    const std::string input = format_value(data_type::float64, std::bit_cast<std::uint64_t>(v));
    throw error(invalid ? errc::invalid_value : errc::out_of_range,
                where_ + " (numcodecs.fixedscaleoffset) decode, element " + std::to_string(start + i) + ": expected x / " +
                    number_text(config_.scale) + " + " + number_text(config_.offset) + " (in " +
                    std::string(zarr::name(types_.add)) + ", as numcodecs computes it) to be a value of " +
                    std::string(zarr::name(config_.dtype)) + ", got x = " + input + " -> " +
                    format_value(data_type::float64, std::bit_cast<std::uint64_t>(r)) +
                    (invalid ? " (not a number into an integer type)" : " (out of range)"));
  }
  if (out_size > in_size) return out_buffer;
  in.resize(n * out_size);
  return in;
}

std::optional<json::array> fixedscaleoffset_codec::replacement(std::string_view where) const {
  return fixedscaleoffset_to_scale_offset(config_, where);
}

json::array fixedscaleoffset_to_scale_offset(const fixedscaleoffset_configuration& c, std::string_view where) {
  if (!c.offset_in_dtype || !c.scale_in_dtype)
    throw error(errc::unsupported, std::string(where) + ": expected scale and offset that are values of the data type " +
                                       std::string(zarr::name(c.dtype)) + " (scale_offset computes in it), got scale " +
                                       number_text(c.scale) + " and offset " + number_text(c.offset) + ": " + c.not_in_dtype);
  json::array out;
  out.push_back(json::object{{"name", "scale_offset"},
                             {"configuration", json::object{{"scale", fill_value_to_json(*c.scale_in_dtype)},
                                                            {"offset", fill_value_to_json(*c.offset_in_dtype)}}}});
  if (c.astype != c.dtype) {
    json::object cast{{"data_type", std::string(zarr::name(c.astype))}, {"rounding", "nearest-even"}};
    if (is_integer(c.astype)) cast["out_of_range"] = "wrap";
    out.push_back(json::object{{"name", "cast_value"}, {"configuration", std::move(cast)}});
  }
  return out;
}

std::unique_ptr<array_to_array_codec> make_fixedscaleoffset_codec(const codec_context& ctx) {
  return std::make_unique<fixedscaleoffset_codec>(fixedscaleoffset_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
