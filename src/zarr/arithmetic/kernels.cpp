// zarr.arithmetic.kernels: blocked loops with branch-free fast paths that the compiler can
// vectorise, falling back to the scalar core (zarr::cast, zarr::arithmetic) per element;
// a block whose fast path flags an error is redone with the scalar core to find the first
// failing element (a hot loop never throws per element: it sets a flag, and only then
// is the first bad element looked for; docs/decisions.md 7-17).
module;
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
module zarr.arithmetic.kernels;

import zarr.bytes;

namespace zarr {

namespace {

constexpr std::size_t block = 1024;

template <int Size>
using storage = std::conditional_t<Size == 1, std::uint8_t,
                std::conditional_t<Size == 2, std::uint16_t, std::conditional_t<Size == 4, std::uint32_t, std::uint64_t>>>;

constexpr std::uint64_t width_mask(data_type t) noexcept {
  const int b = info(t).bits;
  return b >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1;
}

// Raw bits (masked) -> in-memory form of a value stored in an integer of the element's size.
constexpr std::uint64_t memory_form(data_type t, std::uint64_t raw) noexcept {
  const auto& i = info(t);
  if (i.kind == dtype_kind::signed_integer && i.bits < 8) return static_cast<std::uint64_t>(sign_extend(raw, i.bits)) & 0xff;
  return raw;
}

// Raw bits of a native element and back (floats by their bits, integers modulo 2^64).
template <class T>
std::uint64_t raw_of(T x) noexcept {
  if constexpr (std::is_floating_point_v<T>)
    return std::bit_cast<storage<sizeof(T)>>(x);
  else
    return static_cast<std::make_unsigned_t<T>>(x);
}
template <class T>
T of_raw(std::uint64_t r) noexcept {
  if constexpr (std::is_floating_point_v<T>)
    return std::bit_cast<T>(static_cast<storage<sizeof(T)>>(r));
  else
    return static_cast<T>(r);
}

// The loop skeleton. `fast(in, out, m)` converts m elements and returns true if any of them
// may have failed; `slow(raw_in)` is the scalar core, returning the in-memory result bits.
// Blocks are copied through aligned buffers, which also makes in-place operation safe.
template <class In, class Out, class Fast, class Slow>
kernel_result run_blocks(data_type from, const std::byte* in, std::byte* out, std::size_t n, Fast&& fast, Slow&& slow) {
  alignas(64) In tin[block];
  alignas(64) Out tout[block];
  const std::uint64_t mask = width_mask(from);
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t m = std::min(block, n - start);
    std::memcpy(tin, in + start * sizeof(In), m * sizeof(In));
    if (fast(static_cast<const In*>(tin), static_cast<Out*>(tout), m)) {
      for (std::size_t i = 0; i < m; ++i) {
        const std::uint64_t raw = raw_of(tin[i]) & mask;
        const numeric_result r = slow(raw);
        if (!r.ok()) {
          std::memcpy(out + start * sizeof(Out), tout, i * sizeof(Out));
          return {false, start + i, raw, r.error};
        }
        tout[i] = of_raw<Out>(r.bits);
      }
    }
    std::memcpy(out + start * sizeof(Out), tout, m * sizeof(Out));
  }
  return {};
}

// ---------------------------------------------------------------- cast: the generic path

// run_blocks with the scalar core as the fast path as well: for what has no vectorisable form.
template <class In, class Out, class Slow>
kernel_result scalar_blocks(data_type from, const std::byte* in, std::byte* out, std::size_t n, Slow&& slow) {
  const std::uint64_t mask = width_mask(from);
  auto fast = [&](const In* x, Out* y, std::size_t m) {
    bool bad = false;
    for (std::size_t i = 0; i < m; ++i) {
      const auto r = slow(static_cast<std::uint64_t>(x[i]) & mask);
      bad |= !r.ok();
      y[i] = static_cast<Out>(r.bits);
    }
    return bad;
  };
  return run_blocks<In, Out>(from, in, out, n, fast, slow);
}

template <class In, class Out>
kernel_result generic_cast(data_type from, const std::byte* in, data_type to, std::byte* out, std::size_t n,
                           rounding_mode mode, out_of_range_mode oor) {
  return scalar_blocks<In, Out>(from, in, out, n, [=](std::uint64_t raw) {
    auto r = cast(from, raw, to, mode, oor);
    r.bits = memory_form(to, r.bits);
    return r;
  });
}

// A byte table's results looked up a block at a time, with a flag per byte value that fails.
template <class Out>
kernel_result table_lookup(data_type from, const std::byte* in, std::byte* out, std::size_t n, const std::byte* results,
                           const numeric_errc* errors) {
  Out table[256];
  std::memcpy(table, results, sizeof table);
  std::uint8_t failed[256];
  for (unsigned b = 0; b < 256; ++b) failed[b] = errors[b] != numeric_errc::none;
  auto slow = [&](std::uint64_t raw) { return numeric_result{static_cast<std::uint64_t>(table[raw]), errors[raw], false}; };
  auto fast = [&](const std::uint8_t* x, Out* y, std::size_t m) {
    unsigned bad = 0;
    for (std::size_t i = 0; i < m; ++i) {
      y[i] = table[x[i]];
      bad |= failed[x[i]];
    }
    return bad != 0;
  };
  return run_blocks<std::uint8_t, Out>(from, in, out, n, fast, slow);
}

// ---------------------------------------------------------------- cast: fast paths

template <class Src>
struct ieee_source {
  using bits_type = std::conditional_t<sizeof(Src) == 4, std::uint32_t, std::uint64_t>;
  static constexpr int mantissa = sizeof(Src) == 4 ? 23 : 52;
  static constexpr int bias = sizeof(Src) == 4 ? 127 : 1023;
  static constexpr bits_type sign = bits_type{1} << (sizeof(Src) * 8 - 1);
  static constexpr bits_type inf = (sizeof(Src) == 4 ? bits_type{0xff} : bits_type{0x7ff}) << mantissa;
};

// float32/float64 to a narrower format (not e8m0fnu), nearest-even, error or clamp: integer
// rounding for normal results, one floating-point add for subnormal ones, selects for the rest.
template <class Src, float_format F>
struct narrow_float {
  using S = ieee_source<Src>;
  using U = typename S::bits_type;
  using Dst = storage<(F.bits() <= 8 ? 1 : F.bits() <= 16 ? 2 : 4)>;
  static constexpr int M = F.mantissa_bits;
  static constexpr int shift = S::mantissa - M;
  static constexpr int emin = 1 - F.bias;
  static constexpr U min_normal = U(emin + S::bias) << S::mantissa;
  static constexpr U rebias = U(S::bias - F.bias) << S::mantissa;
  static constexpr U max_mantissa = F.max_finite() & ((U{1} << M) - 1);
  static constexpr int max_exponent = static_cast<int>(F.max_finite() >> M) - F.bias;
  // max finite + half an ulp, as source bits: the first magnitude that overflows (max is odd).
  static constexpr U overflow_tie = (U(max_exponent + S::bias) << S::mantissa) | (max_mantissa << shift) | (U{1} << (shift - 1));
  static constexpr Src magic = std::bit_cast<Src>(U(emin - M + S::mantissa + S::bias) << S::mantissa);
  static constexpr bool fnuz = F.specials == float_specials::fnuz;
  static_assert(F.specials != float_specials::e8m0 && shift >= 1 && (max_mantissa & 1) == 1);

  static bool convert(const Src* x, Dst* y, std::size_t m, bool clamp) {
    unsigned bad = 0;
    const Dst overflow_value = static_cast<Dst>(clamp ? (F.has_infinity() ? F.infinity() : F.max_finite()) : 0);
    for (std::size_t i = 0; i < m; ++i) {
      const U u = std::bit_cast<U>(x[i]);
      const U a = u & ~S::sign;
      const Dst sign = (u & S::sign) != 0 ? static_cast<Dst>(F.sign_mask()) : Dst{0};
      const U at = a - rebias;
      const U normal = (at + ((U{1} << (shift - 1)) - 1) + ((at >> shift) & 1)) >> shift;
      const U sub = std::bit_cast<U>(static_cast<Src>(std::bit_cast<Src>(a) + magic)) - std::bit_cast<U>(magic);
      const U mag = a < min_normal ? sub : normal;
      const bool nan = a > S::inf, inf = a == S::inf, over = a >= overflow_tie && a < S::inf;
      Dst r = static_cast<Dst>(mag) | (fnuz && mag == 0 ? Dst{0} : sign);
      r = over ? static_cast<Dst>(overflow_value | sign) : r;
      if constexpr (F.has_infinity()) r = inf ? static_cast<Dst>(F.infinity() | sign) : r;
      if constexpr (F.has_nan())
        r = nan ? static_cast<Dst>(F.canonical_nan() | (F.specials == float_specials::ieee ? sign : Dst{0})) : r;
      bad |= static_cast<unsigned>(over && !clamp) | static_cast<unsigned>(!F.has_infinity() && inf) |
             static_cast<unsigned>(!F.has_nan() && nan);
      y[i] = r;
    }
    return bad != 0;
  }
};

// float32 (to 16-bit) and float64 (to 32-bit) integers, nearest-even, error or clamp: the
// 1.5·2^p trick rounds in the current (nearest-even) floating-point mode. Flags in `bad` a
// non-finite value and, unless clamping, one out of range.
template <class Src, class Int>
inline Int round_to_int(Src v, bool clamp, unsigned& bad) {
  constexpr Src lo = static_cast<Src>(std::numeric_limits<Int>::min()) - 1;
  constexpr Src hi = static_cast<Src>(std::numeric_limits<Int>::max()) + 1;
  constexpr Src magic = sizeof(Src) == 4 ? 12582912.0f : 6755399441055744.0;
  constexpr Src min = std::numeric_limits<Int>::min(), max = std::numeric_limits<Int>::max();
  const bool finite = std::fabs(v) <= std::numeric_limits<Src>::max();
  Src c = v < lo ? lo : v;
  c = c > hi ? hi : c;
  c = finite ? c : Src{0};
  const Src r = (c + magic) - magic;
  const bool below = r < min, above = r > max;
  bad |= static_cast<unsigned>(!finite) | static_cast<unsigned>(!clamp && (below || above));
  return static_cast<Int>(below ? min : above ? max : r);
}

template <class Src, class Int>
bool float_to_int(const Src* x, Int* y, std::size_t m, bool clamp) {
  unsigned bad = 0;
  for (std::size_t i = 0; i < m; ++i) y[i] = round_to_int<Src, Int>(x[i], clamp, bad);
  return bad != 0;
}

template <class Src, class Dst, class Fast>
kernel_result fast_cast(data_type from, const std::byte* in, data_type to, std::byte* out, std::size_t n,
                        rounding_mode mode, out_of_range_mode oor, Fast&& convert) {
  auto slow = [=](std::uint64_t raw) {
    auto r = cast(from, raw, to, mode, oor);
    r.bits = memory_form(to, r.bits);
    return r;
  };
  return run_blocks<Src, Dst>(from, in, out, n, convert, slow);
}

template <class Src, float_format F>
kernel_result narrow(data_type from, const std::byte* in, data_type to, std::byte* out, std::size_t n,
                     out_of_range_mode oor) {
  using K = narrow_float<Src, F>;
  const bool clamp = oor == out_of_range_mode::clamp;
  return fast_cast<Src, typename K::Dst>(from, in, to, out, n, rounding_mode::nearest_even, oor,
                                         [clamp](const Src* x, typename K::Dst* y, std::size_t m) { return K::convert(x, y, m, clamp); });
}

template <class Src>
kernel_result narrow_to(data_type from, const std::byte* in, data_type to, std::byte* out, std::size_t n,
                        out_of_range_mode oor, bool& handled) {
  handled = true;
  switch (to) {
#define ZARR_NARROW(T) \
  case data_type::T: return narrow<Src, info(data_type::T).format>(from, in, to, out, n, oor);
    ZARR_NARROW(float4_e2m1fn)
    ZARR_NARROW(float6_e2m3fn)
    ZARR_NARROW(float6_e3m2fn)
    ZARR_NARROW(float8_e3m4)
    ZARR_NARROW(float8_e4m3)
    ZARR_NARROW(float8_e4m3b11fnuz)
    ZARR_NARROW(float8_e4m3fnuz)
    ZARR_NARROW(float8_e5m2)
    ZARR_NARROW(float8_e5m2fnuz)
    ZARR_NARROW(bfloat16)
    ZARR_NARROW(float16)
#undef ZARR_NARROW
    case data_type::float32:
      if constexpr (sizeof(Src) == 8) return narrow<Src, info(data_type::float32).format>(from, in, to, out, n, oor);
      break;
    default: break;
  }
  handled = false;
  return {};
}

template <class Src, class Int>
kernel_result to_int(data_type from, const std::byte* in, data_type to, std::byte* out, std::size_t n,
                     out_of_range_mode oor) {
  const bool clamp = oor == out_of_range_mode::clamp;
  return fast_cast<Src, Int>(from, in, to, out, n, rounding_mode::nearest_even, oor,
                             [clamp](const Src* x, Int* y, std::size_t m) { return float_to_int<Src, Int>(x, y, m, clamp); });
}

template <class Src>
kernel_result float_to_integer(data_type from, const std::byte* in, data_type to, std::byte* out, std::size_t n,
                               out_of_range_mode oor, bool& handled) {
  handled = true;
  switch (to) {
    case data_type::int8: return to_int<Src, std::int8_t>(from, in, to, out, n, oor);
    case data_type::uint8: return to_int<Src, std::uint8_t>(from, in, to, out, n, oor);
    case data_type::int16: return to_int<Src, std::int16_t>(from, in, to, out, n, oor);
    case data_type::uint16: return to_int<Src, std::uint16_t>(from, in, to, out, n, oor);
    case data_type::int32:
      if constexpr (sizeof(Src) == 8) return to_int<Src, std::int32_t>(from, in, to, out, n, oor);
      break;
    case data_type::uint32:
      if constexpr (sizeof(Src) == 8) return to_int<Src, std::uint32_t>(from, in, to, out, n, oor);
      break;
    default: break;
  }
  handled = false;
  return {};
}

kernel_result widen_float32(const std::byte* in, std::byte* out, std::size_t n) {
  auto convert = [](const float* x, double* y, std::size_t m) {
    for (std::size_t i = 0; i < m; ++i) {
      const double d = x[i];
      const std::uint64_t nan = 0x7ff8000000000000u | (std::bit_cast<std::uint64_t>(d) & 0x8000000000000000u);
      y[i] = d != d ? std::bit_cast<double>(nan) : d;  // the canonical NaN, as zarr::cast gives
    }
    return false;
  };
  return fast_cast<float, double>(data_type::float32, in, data_type::float64, out, n, rounding_mode::nearest_even,
                                  out_of_range_mode::error, convert);
}

template <class In>
kernel_result generic_cast_to(data_type from, const std::byte* in, data_type to, std::byte* out, std::size_t n,
                              rounding_mode mode, out_of_range_mode oor) {
  switch (info(to).size) {
    case 1: return generic_cast<In, std::uint8_t>(from, in, to, out, n, mode, oor);
    case 2: return generic_cast<In, std::uint16_t>(from, in, to, out, n, mode, oor);
    case 4: return generic_cast<In, std::uint32_t>(from, in, to, out, n, mode, oor);
    default: return generic_cast<In, std::uint64_t>(from, in, to, out, n, mode, oor);
  }
}

std::size_t element_count(data_type t, std::span<const std::byte> in, std::span<std::byte> out, data_type out_type,
                          const char* what) {
  if (!is_numeric(t) || !is_numeric(out_type))
    throw error(errc::invalid_argument, std::string(what) + ": expected numeric data types, got " + std::string(name(t)) +
                                            " and " + std::string(name(out_type)));
  const auto in_size = static_cast<std::size_t>(info(t).size);
  const auto out_size = static_cast<std::size_t>(info(out_type).size);
  const std::size_t n = in.size() / in_size;
  if (in.size() % in_size != 0 || out.size() != n * out_size)
    throw error(errc::invalid_argument, std::string(what) + ": expected an output of " + std::to_string(n * out_size) +
                                            " bytes for " + std::to_string(in.size()) + " input bytes, got " +
                                            std::to_string(out.size()));
  const bool overlap = in.data() < out.data() + out.size() && out.data() < in.data() + in.size();
  if (overlap && !(in.data() == out.data() && in_size == out_size))
    throw error(errc::invalid_argument, std::string(what) + ": expected separate or identical buffers, got overlapping ones");
  return n;
}

// ---------------------------------------------------------------- scale_offset

enum class direction { encode, decode };

numeric_result scale_offset_one(data_type t, direction d, std::uint64_t x, std::uint64_t offset, std::uint64_t scale) {
  if (d == direction::encode) {
    const auto r = arithmetic(t, arith_op::subtract, x, offset);
    if (!r.ok()) return r;
    return arithmetic(t, arith_op::multiply, r.bits, scale);
  }
  const auto r = arithmetic(t, arith_op::divide, x, scale);
  if (!r.ok()) return r;
  return arithmetic(t, arith_op::add, r.bits, offset);
}

// Native integers: overflow builtins on the type itself, exact division on decode.
template <class T>
bool integer_scale_offset(const T* x, T* y, std::size_t m, direction d, T offset, T scale) {
  unsigned bad = 0;
  if (d == direction::encode) {
    for (std::size_t i = 0; i < m; ++i) {
      T a{}, b{};
      const bool o1 = __builtin_sub_overflow(x[i], offset, &a);
      const bool o2 = __builtin_mul_overflow(a, scale, &b);
      y[i] = b;
      bad |= static_cast<unsigned>(o1 | o2);
    }
  } else {
    if (scale == 0 || (std::is_signed_v<T> && scale == T(-1))) return true;  // the scalar core decides
    for (std::size_t i = 0; i < m; ++i) {
      const T q = static_cast<T>(x[i] / scale);
      const bool inexact = static_cast<T>(x[i] % scale) != 0;
      T b{};
      const bool o = __builtin_add_overflow(q, offset, &b);
      y[i] = b;
      bad |= static_cast<unsigned>(inexact | o);
    }
  }
  return bad != 0;
}

// float32 and float64 in their own arithmetic: each IEEE operation is rounded once, as the
// exact-then-rounded definition asks.
template <class T>
bool float_scale_offset(const T* x, T* y, std::size_t m, direction d, T offset, T scale) {
  using U = typename ieee_source<T>::bits_type;
  constexpr U canonical_nan = static_cast<U>(sizeof(T) == 4 ? 0x7fc00000u : 0x7ff8000000000000u);
  constexpr T max = std::numeric_limits<T>::max();
  unsigned bad = 0;
  const bool special_off = !(std::fabs(offset) <= max);
  const bool special_sc = !(std::fabs(scale) <= max) || scale == 0;
  if (special_off || special_sc) return true;  // the scalar core decides (metadata rejects these)
  for (std::size_t i = 0; i < m; ++i) {
    const T v = x[i];
    const bool v_finite = std::fabs(v) <= max;
    const T a = d == direction::encode ? v - offset : v / scale;
    const T b = d == direction::encode ? a * scale : a + offset;
    // Finite operands (offset and scale are finite and scale non-zero): an infinite result
    // is an overflow; NaN comes only from a NaN input.
    bad |= static_cast<unsigned>(std::fabs(b) > max && v_finite);
    y[i] = b != b ? std::bit_cast<T>(canonical_nan) : b;
  }
  return bad != 0;
}

template <class T>
kernel_result native_scale_offset(data_type t, direction d, const std::byte* in, std::byte* out, std::size_t n,
                                  std::uint64_t offset, std::uint64_t scale) {
  const T off = of_raw<T>(offset), sc = of_raw<T>(scale);
  auto slow = [=](std::uint64_t raw) { return scale_offset_one(t, d, raw, offset, scale); };
  auto fast = [=](const T* x, T* y, std::size_t m) {
    if constexpr (std::is_floating_point_v<T>)
      return float_scale_offset<T>(x, y, m, d, off, sc);
    else
      return integer_scale_offset<T>(x, y, m, d, off, sc);
  };
  return run_blocks<T, T>(t, in, out, n, fast, slow);
}

template <class B>
kernel_result generic_scale_offset(data_type t, direction d, const std::byte* in, std::byte* out, std::size_t n,
                                   std::uint64_t offset, std::uint64_t scale) {
  if (info(t).size == 1)
    return byte_table(t, t, [&](std::uint64_t raw) { return scale_offset_one(t, d, raw, offset, scale); })
        .apply({in, n}, {out, n});
  return scalar_blocks<B, B>(t, in, out, n, [=](std::uint64_t raw) {
    auto r = scale_offset_one(t, d, raw, offset, scale);
    r.bits = memory_form(t, r.bits);
    return r;
  });
}

kernel_result scale_offset(data_type t, direction d, std::span<const std::byte> in, std::span<std::byte> out,
                           std::uint64_t offset, std::uint64_t scale) {
  const std::size_t n = element_count(t, in, out, t, d == direction::encode ? "scale_offset encode" : "scale_offset decode");
  offset &= width_mask(t);
  scale &= width_mask(t);
  const std::byte* src = in.data();
  std::byte* dst = out.data();
  switch (t) {
    case data_type::int8: return native_scale_offset<std::int8_t>(t, d, src, dst, n, offset, scale);
    case data_type::int16: return native_scale_offset<std::int16_t>(t, d, src, dst, n, offset, scale);
    case data_type::int32: return native_scale_offset<std::int32_t>(t, d, src, dst, n, offset, scale);
    case data_type::int64: return native_scale_offset<std::int64_t>(t, d, src, dst, n, offset, scale);
    case data_type::uint8: return native_scale_offset<std::uint8_t>(t, d, src, dst, n, offset, scale);
    case data_type::uint16: return native_scale_offset<std::uint16_t>(t, d, src, dst, n, offset, scale);
    case data_type::uint32: return native_scale_offset<std::uint32_t>(t, d, src, dst, n, offset, scale);
    case data_type::uint64: return native_scale_offset<std::uint64_t>(t, d, src, dst, n, offset, scale);
    case data_type::float32: return native_scale_offset<float>(t, d, src, dst, n, offset, scale);
    case data_type::float64: return native_scale_offset<double>(t, d, src, dst, n, offset, scale);
    default: break;
  }
  switch (info(t).size) {
    case 1: return generic_scale_offset<std::uint8_t>(t, d, src, dst, n, offset, scale);
    default: return generic_scale_offset<std::uint16_t>(t, d, src, dst, n, offset, scale);
  }
}

// ---------------------------------------------------------------- fused steps


// One element through every step with the scalar core: its result bits (in-memory form of the
// last type), or the failing step with that step's input.
kernel_result one_through_steps(std::span<const element_step> steps, std::uint64_t raw, std::uint64_t& result) {
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const auto& st = steps[s];
    numeric_result r;
    switch (st.op) {
      case element_step::kind::cast: r = cast(st.from, raw, st.to, st.rounding, st.out_of_range); break;
      case element_step::kind::subtract_multiply:
        r = scale_offset_one(st.from, direction::encode, raw, st.offset & width_mask(st.from), st.scale & width_mask(st.from));
        break;
      case element_step::kind::divide_add:
        r = scale_offset_one(st.from, direction::decode, raw, st.offset & width_mask(st.from), st.scale & width_mask(st.from));
        break;
    }
    if (!r.ok()) return {false, 0, raw, r.error, s};
    raw = r.bits & width_mask(st.to);
  }
  result = memory_form(steps.back().to, raw);
  return {};
}

// The fused loop skeleton: `fast(in, out, start, m)` converts elements [start, start + m)
// straight between the caller's buffers and returns true if any may have failed; such a
// block is redone element by element with the scalar core.
template <class In, class Out, class Fast>
kernel_result run_fused(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n,
                        Fast&& fast) {
  const std::uint64_t mask = width_mask(steps.front().from);
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t m = std::min(block, n - start);
    if (!fast(in, out, start, m)) continue;
    for (std::size_t i = start; i < start + m; ++i) {
      const std::uint64_t raw = raw_of(load_element<In>(in, i)) & mask;
      std::uint64_t result = 0;
      if (auto r = one_through_steps(steps, raw, result); !r.ok) {
        r.index = i;
        return r;
      }
      store_element<Out>(out, i, of_raw<Out>(result));
    }
  }
  return {};
}

// (x - offset) * scale in T, then nearest-even to Int (error or clamp). Anything unusual (a
// NaN or infinite product, or out of range unless clamping) sends the block to the core, so
// the loop is a handful of vector instructions: no blends, which SSE2 lacks.
template <class T, class Int, bool Clamp>
kernel_result fused_encode_as(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n) {
  const T off = of_raw<T>(steps[0].offset), sc = of_raw<T>(steps[0].scale);
  constexpr T max = std::numeric_limits<T>::max();
  constexpr T magic = sizeof(T) == 4 ? 12582912.0f : 6755399441055744.0;
  constexpr T lo = std::numeric_limits<Int>::min(), hi = std::numeric_limits<Int>::max();
  const bool special = !(std::fabs(off) <= max) || !(std::fabs(sc) <= max) || sc == 0;
  return run_fused<T, Int>(steps, in, out, n, [=](const std::byte* x, std::byte* y, std::size_t start, std::size_t m) {
    if (special) return true;
    unsigned bad = 0;
    for (std::size_t i = start; i < start + m; ++i) {
      const T a = load_element<T>(x, i) - off;
      const T b = a * sc;
      const T r = (b + magic) - magic;  // nearest-even; |b| >= 2^23 (2^52) is out of range anyway
      if constexpr (Clamp)
        bad |= static_cast<unsigned>(!(std::fabs(b) <= max));
      else
        bad |= static_cast<unsigned>(!(r >= lo) | !(r <= hi));
      const T c = r > lo ? r : lo;  // NaN gives lo: the conversion below is always defined
      store_element<Int>(y, i, static_cast<Int>(c < hi ? c : hi));
    }
    return bad != 0;
  });
}

template <class T, class Int>
kernel_result fused_encode(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n) {
  return steps[1].out_of_range == out_of_range_mode::clamp ? fused_encode_as<T, Int, true>(steps, in, out, n)
                                                           : fused_encode_as<T, Int, false>(steps, in, out, n);
}

// Int to T (exact), then x / scale + offset in T.
template <class Int, class T>
kernel_result fused_decode(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n) {
  const T off = of_raw<T>(steps[1].offset), sc = of_raw<T>(steps[1].scale);
  constexpr T max = std::numeric_limits<T>::max();
  const bool special = !(std::fabs(off) <= max) || !(std::fabs(sc) <= max) || sc == 0;
  return run_fused<Int, T>(steps, in, out, n, [=](const std::byte* x, std::byte* y, std::size_t start, std::size_t m) {
    if (special) return true;
    unsigned bad = 0;
    for (std::size_t i = start; i < start + m; ++i) {
      const T a = static_cast<T>(load_element<Int>(x, i)) / sc;
      const T b = a + off;
      bad |= static_cast<unsigned>(!(std::fabs(b) <= max));
      store_element<T>(y, i, b);
    }
    return bad != 0;
  });
}

template <class T>
kernel_result fused_encode_to(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n,
                              bool& handled) {
  handled = true;
  switch (steps[1].to) {
    case data_type::int8: return fused_encode<T, std::int8_t>(steps, in, out, n);
    case data_type::uint8: return fused_encode<T, std::uint8_t>(steps, in, out, n);
    case data_type::int16: return fused_encode<T, std::int16_t>(steps, in, out, n);
    case data_type::uint16: return fused_encode<T, std::uint16_t>(steps, in, out, n);
    case data_type::int32:
      if constexpr (sizeof(T) == 8) return fused_encode<T, std::int32_t>(steps, in, out, n);
      break;
    case data_type::uint32:
      if constexpr (sizeof(T) == 8) return fused_encode<T, std::uint32_t>(steps, in, out, n);
      break;
    default: break;
  }
  handled = false;
  return {};
}

template <class T>
kernel_result fused_decode_from(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n,
                                bool& handled) {
  handled = true;
  switch (steps[0].from) {
    case data_type::int8: return fused_decode<std::int8_t, T>(steps, in, out, n);
    case data_type::uint8: return fused_decode<std::uint8_t, T>(steps, in, out, n);
    case data_type::int16: return fused_decode<std::int16_t, T>(steps, in, out, n);
    case data_type::uint16: return fused_decode<std::uint16_t, T>(steps, in, out, n);
    case data_type::int32:
      if constexpr (sizeof(T) == 8) return fused_decode<std::int32_t, T>(steps, in, out, n);
      break;
    case data_type::uint32:
      if constexpr (sizeof(T) == 8) return fused_decode<std::uint32_t, T>(steps, in, out, n);
      break;
    default: break;
  }
  handled = false;
  return {};
}

// The fused fast paths, when `steps` is one of them.
kernel_result fused(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n,
                    bool& handled) {
  handled = false;
  if (steps.size() != 2) return {};
  const auto& a = steps[0];
  const auto& b = steps[1];
  if (a.op == element_step::kind::subtract_multiply && b.op == element_step::kind::cast &&
      b.rounding == rounding_mode::nearest_even && b.out_of_range != out_of_range_mode::wrap) {
    if (a.from == data_type::float32) return fused_encode_to<float>(steps, in, out, n, handled);
    if (a.from == data_type::float64) return fused_encode_to<double>(steps, in, out, n, handled);
  }
  // Integers of up to 16 bits (float32) or 32 bits (float64) convert exactly, in any mode.
  if (a.op == element_step::kind::cast && b.op == element_step::kind::divide_add) {
    if (a.to == data_type::float32) return fused_decode_from<float>(steps, in, out, n, handled);
    if (a.to == data_type::float64) return fused_decode_from<double>(steps, in, out, n, handled);
  }
  return {};
}

// Any steps: block by block, each step's kernel between two cache-resident buffers.
kernel_result staged(std::span<const element_step> steps, const std::byte* in, std::byte* out, std::size_t n) {
  constexpr std::size_t chunk = 2048;
  alignas(64) std::byte buffers[2][chunk * 8];
  const auto run_one = [](const element_step& st, std::span<const std::byte> x, std::span<std::byte> y) {
    switch (st.op) {
      case element_step::kind::cast: return cast_elements(st.from, x, st.to, y, st.rounding, st.out_of_range);
      case element_step::kind::subtract_multiply: return scale_offset_encode(st.from, x, y, st.offset, st.scale);
      case element_step::kind::divide_add: return scale_offset_decode(st.from, x, y, st.offset, st.scale);
    }
    return kernel_result{};
  };
  const auto in_size = static_cast<std::size_t>(info(steps.front().from).size);
  for (std::size_t start = 0; start < n; start += chunk) {
    // A step failing at element k leaves the later steps only the elements before k, one of
    // which may fail earlier in element order: the last failure seen is the first element's.
    std::size_t m = std::min(chunk, n - start);
    kernel_result failure;
    const std::byte* x = in + start * in_size;
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const auto x_size = static_cast<std::size_t>(info(steps[s].from).size);
      const auto y_size = static_cast<std::size_t>(info(steps[s].to).size);
      std::byte* y = s + 1 == steps.size() ? out + start * y_size : buffers[s % 2];
      if (auto r = run_one(steps[s], {x, m * x_size}, {y, m * y_size}); !r.ok) {
        m = r.index;
        failure = r;
        failure.index += start;
        failure.step = s;
      }
      x = y;
    }
    if (!failure.ok) return failure;
  }
  return {};
}

}  // namespace

std::uint64_t load_raw(data_type t, const std::byte* p) noexcept {
  std::uint64_t v = 0;
  switch (info(t).size) {
    case 1: v = std::bit_cast<std::uint8_t>(*p); break;
    case 2: { std::uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
    case 4: { std::uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
    default: std::memcpy(&v, p, 8); break;
  }
  return v & width_mask(t);
}

void store_raw(data_type t, std::byte* p, std::uint64_t raw) noexcept {
  const std::uint64_t v = memory_form(t, raw & width_mask(t));
  switch (info(t).size) {
    case 1: *p = static_cast<std::byte>(v); break;
    case 2: { const auto x = static_cast<std::uint16_t>(v); std::memcpy(p, &x, 2); break; }
    case 4: { const auto x = static_cast<std::uint32_t>(v); std::memcpy(p, &x, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

kernel_result cast_elements(data_type from, std::span<const std::byte> in, data_type to, std::span<std::byte> out,
                            rounding_mode mode, out_of_range_mode oor) {
  const std::size_t n = element_count(from, in, out, to, "cast_value");
  const std::byte* src = in.data();
  std::byte* dst = out.data();
  if (n == 0) return {};
  const bool fast_modes = mode == rounding_mode::nearest_even && oor != out_of_range_mode::wrap;
  if (fast_modes && (from == data_type::float32 || from == data_type::float64)) {
    bool handled = false;
    kernel_result r = from == data_type::float32 ? narrow_to<float>(from, src, to, dst, n, oor, handled)
                                                 : narrow_to<double>(from, src, to, dst, n, oor, handled);
    if (handled) return r;
    r = from == data_type::float32 ? float_to_integer<float>(from, src, to, dst, n, oor, handled)
                                   : float_to_integer<double>(from, src, to, dst, n, oor, handled);
    if (handled) return r;
  }
  if (from == data_type::float32 && to == data_type::float64) return widen_float32(src, dst, n);
  switch (info(from).size) {
    case 1:
      if (n < 64) return generic_cast_to<std::uint8_t>(from, src, to, dst, n, mode, oor);
      return byte_table(from, to, [&](std::uint64_t raw) { return cast(from, raw, to, mode, oor); }).apply(in, out);
    case 2: return generic_cast_to<std::uint16_t>(from, src, to, dst, n, mode, oor);
    case 4: return generic_cast_to<std::uint32_t>(from, src, to, dst, n, mode, oor);
    default: return generic_cast_to<std::uint64_t>(from, src, to, dst, n, mode, oor);
  }
}

kernel_result byte_table::apply(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto out_size = static_cast<std::size_t>(info(to_).size);
  const std::size_t n = in.size();
  if (out.size() != n * out_size)
    throw error(errc::invalid_argument, "byte table: expected an output of " + std::to_string(n * out_size) + " bytes for " +
                                            std::to_string(n) + " input bytes, got " + std::to_string(out.size()));
  const auto* e = errors_.data();
  switch (out_size) {
    case 1: return table_lookup<std::uint8_t>(from_, in.data(), out.data(), n, results_.data(), e);
    case 2: return table_lookup<std::uint16_t>(from_, in.data(), out.data(), n, results_.data(), e);
    case 4: return table_lookup<std::uint32_t>(from_, in.data(), out.data(), n, results_.data(), e);
    default: return table_lookup<std::uint64_t>(from_, in.data(), out.data(), n, results_.data(), e);
  }
}

kernel_result scale_offset_encode(data_type t, std::span<const std::byte> in, std::span<std::byte> out,
                                  std::uint64_t offset, std::uint64_t scale) {
  return scale_offset(t, direction::encode, in, out, offset, scale);
}

kernel_result scale_offset_decode(data_type t, std::span<const std::byte> in, std::span<std::byte> out,
                                  std::uint64_t offset, std::uint64_t scale) {
  return scale_offset(t, direction::decode, in, out, offset, scale);
}

kernel_result run_steps(std::span<const element_step> steps, std::span<const std::byte> in, std::span<std::byte> out) {
  if (steps.empty()) throw error(errc::invalid_argument, "run_steps: expected at least one step");
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const auto& st = steps[s];
    const bool same = st.op == element_step::kind::cast || st.from == st.to;
    const bool chained = s == 0 || steps[s - 1].to == st.from;
    if (!is_numeric(st.from) || !is_numeric(st.to) || !same || !chained || info(st.to).size > 8)
      throw error(errc::invalid_argument, "run_steps: expected numeric steps, each taking the type the previous one gives");
  }
  const auto in_size = static_cast<std::size_t>(info(steps.front().from).size);
  const auto out_size = static_cast<std::size_t>(info(steps.back().to).size);
  const std::size_t n = in.size() / in_size;
  if (in.size() % in_size != 0 || out.size() != n * out_size)
    throw error(errc::invalid_argument, "run_steps: expected an output of " + std::to_string(n * out_size) + " bytes for " +
                                            std::to_string(in.size()) + " input bytes, got " + std::to_string(out.size()));
  if (in.data() < out.data() + out.size() && out.data() < in.data() + in.size())
    throw error(errc::invalid_argument, "run_steps: expected separate buffers, got overlapping ones");
  if (n == 0) return {};
  bool handled = false;
  if (auto r = fused(steps, in.data(), out.data(), n, handled); handled) return r;
  return staged(steps, in.data(), out.data(), n);
}

}  // namespace zarr
