// zarr.element: exact element conversions between data types (the typed layer of
// zarr::array's read<T> and write<T>, and of typed fill values).
module;
#include <bit>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
module zarr.element;

import zarr.fill_value;

namespace zarr {

// Typed access copies buffers of the value types as they are when the type is the array's:
// their object representation must be the in-memory layout of zarr::scalar (the bits in the
// low bits of one byte, or 16 bits; sub-byte signed integers sign-extended in one byte).
static_assert(std::bit_cast<std::uint8_t>(float8_e4m3::from_bits(0x38)) == 0x38);
static_assert(std::bit_cast<std::uint8_t>(float4_e2m1fn::from_bits(0xf)) == 0x0f);
static_assert(std::bit_cast<std::uint8_t>(float6_e3m2fn::from_bits(0x21)) == 0x21);
static_assert(std::bit_cast<std::uint16_t>(bfloat16::from_bits(0x3f80)) == 0x3f80);
static_assert(std::bit_cast<std::uint16_t>(float16::from_bits(0xfc00)) == 0xfc00);
static_assert(std::bit_cast<std::int8_t>(int4::from_bits(0xd)) == -3);
static_assert(std::bit_cast<std::int8_t>(int2::from_bits(0x2)) == -2);
static_assert(std::bit_cast<std::uint8_t>(uint4::from_bits(0xf)) == 15);
static_assert(has_element_layout<float8_e8m0fnu> && has_element_layout<uint2> && has_element_layout<std::complex<double>>);
static_assert(has_element_layout<datetime64> && has_element_layout<timedelta64>);
static_assert(has_element_layout<complex_value<bfloat16>> && has_element_layout<complex_value<float4_e2m1fn>> &&
              data_type_of<complex_value<float8_e5m2fnuz>> == data_type::complex_float8_e5m2fnuz);

namespace {

// The raw bits of element `i` of a buffer of `size`-byte elements (native order).
std::uint64_t load_bits(const std::byte* p, int size) noexcept {
  switch (size) {
    case 1: return std::to_integer<std::uint8_t>(*p);
    case 2: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

void store_bits(std::byte* p, int size, std::uint64_t bits) noexcept {
  switch (size) {
    case 1: *p = static_cast<std::byte>(bits); break;
    case 2: { const auto v = static_cast<std::uint16_t>(bits); std::memcpy(p, &v, 2); break; }
    case 4: { const auto v = static_cast<std::uint32_t>(bits); std::memcpy(p, &v, 4); break; }
    default: std::memcpy(p, &bits, 8); break;
  }
}

// The exact value of raw bits of a numeric type or bool (0 or 1).
exact_value value_of(data_type t, std::uint64_t bits) noexcept {
  if (t == data_type::bool_) return exact_value::from_uint(bits & 1);
  return decode(t, bits);
}

// `v` in `to` exactly, as in-memory bits (sub-byte signed integers sign-extended), or why not.
numeric_result exactly(const exact_value& v, data_type to) noexcept {
  if (to == data_type::bool_) {
    // 0 and 1 only: through uint8, then range-checked.
    auto r = round_to(data_type::uint8, v);
    if (r.ok() && !r.inexact && r.bits > 1) return {0, numeric_errc::positive_overflow, false};
    return r;
  }
  auto r = round_to(to, v);
  if (r.ok() && info(to).kind == dtype_kind::signed_integer && info(to).bits < 8)
    r.bits = static_cast<std::uint64_t>(sign_extend(r.bits, info(to).bits)) & 0xff;
  return r;
}

bool is_exact(const numeric_result& r) noexcept { return r.ok() && !r.inexact; }

std::string text_of(data_type t, std::span<const std::byte> element) {
  scalar s{t, {}};
  std::memcpy(s.bits.data(), element.data(), element.size());
  if (is_numeric(t)) return format_value(t, s.raw());
  return fill_value_to_json_text(s);
}

[[noreturn]] void throw_failure(data_type from, std::span<const std::byte> value, data_type to,
                                numeric_errc reason, const std::string& where) {
  if (is_time(from) != is_time(to) || (is_time(from) && from != to))
    throw error(errc::unsupported, where + ": expected " + std::string(name(to)) + " values, got " +
                                       std::string(name(from)) + " (a time type converts only to itself: " +
                                       "zarr::datetime64 or zarr::timedelta64 hold the counts)");
  const auto code = reason == numeric_errc::none ? errc::invalid_value : to_errc(reason);
  throw error(code, where + ": expected a value that " + std::string(name(to)) + " holds exactly, got " +
                        text_of(from, value) + " (" + std::string(name(from)) + ")");
}

}  // namespace

std::optional<conversion_failure> convert_elements(data_type from, std::span<const std::byte> in, data_type to,
                                                   std::span<std::byte> out) noexcept {
  const int in_size = info(from).size, out_size = info(to).size;
  if (in_size == 0 || out_size == 0) return in.empty() ? std::nullopt : std::optional(conversion_failure{0, numeric_errc::none});
  const std::size_t n = in.size() / static_cast<std::size_t>(in_size);
  if (from == to) {
    if (n > 0) std::memcpy(out.data(), in.data(), in.size());
    return std::nullopt;
  }
  if (is_time(from) || is_time(to)) return n == 0 ? std::nullopt : std::optional(conversion_failure{0, numeric_errc::none});
  const bool complex_in = info(from).kind == dtype_kind::complex, complex_out = info(to).kind == dtype_kind::complex;
  if (complex_in || complex_out) {
    // Component by component (each in the float type of its components); a real value has
    // imaginary part +0, and a complex value becomes real only when its imaginary part is zero.
    const data_type f = complex_component(from), g = complex_component(to);
    const int fs = complex_in ? in_size / 2 : in_size, gs = complex_out ? out_size / 2 : out_size;
    for (std::size_t i = 0; i < n; ++i) {
      const std::byte* p = in.data() + i * static_cast<std::size_t>(in_size);
      std::byte* q = out.data() + i * static_cast<std::size_t>(out_size);
      const exact_value re = complex_in ? decode(f, load_bits(p, fs)) : value_of(from, load_bits(p, in_size));
      const exact_value im = complex_in ? decode(f, load_bits(p + fs, fs)) : exact_value{};
      if (!complex_out && !im.is_zero()) return conversion_failure{i, numeric_errc::none};
      const auto r = exactly(re, complex_out ? g : to);
      if (!is_exact(r)) return conversion_failure{i, r.error};
      store_bits(q, gs, r.bits);
      if (complex_out) {
        const auto j = exactly(im, g);
        if (!is_exact(j)) return conversion_failure{i, j.error};
        store_bits(q + gs, gs, j.bits);
      }
    }
    return std::nullopt;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = exactly(value_of(from, load_bits(in.data() + i * in_size, in_size)), to);
    if (!is_exact(r)) return conversion_failure{i, r.error};
    store_bits(out.data() + i * out_size, out_size, r.bits);
  }
  return std::nullopt;
}

void convert_elements(data_type from, std::span<const std::byte> in, data_type to, std::span<std::byte> out,
                      std::string_view where) {
  if ((is_sized(from) || is_sized(to) || is_variable_length(from) || is_variable_length(to)) && from != to)
    throw error(errc::unsupported, std::string(where) + ": expected " + std::string(name(to)) + " values, got " +
                                       std::string(name(from)) + " (raw bits, fixed_length_utf32 and struct elements " +
                                       "convert to nothing else: read and write their bytes)");
  if (is_sized(from) || is_variable_length(from)) {  // the same type: the bytes as they are
    if (in.size() != out.size())
      throw error(errc::invalid_argument, std::string(where) + ": expected buffers of the same size, got " +
                                              std::to_string(in.size()) + " and " + std::to_string(out.size()) + " bytes");
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    return;
  }
  const auto n = in.size() / static_cast<std::size_t>(info(from).size);
  if (in.size() % static_cast<std::size_t>(info(from).size) != 0 || out.size() != n * static_cast<std::size_t>(info(to).size))
    throw error(errc::invalid_argument, std::string(where) + ": expected buffers of the same number of elements, got " +
                                            std::to_string(in.size()) + " bytes of " + std::string(name(from)) + " and " +
                                            std::to_string(out.size()) + " bytes of " + std::string(name(to)));
  if (const auto failure = convert_elements(from, in, to, out)) {
    const auto size = static_cast<std::size_t>(info(from).size);
    throw_failure(from, in.subspan(failure->index * size, size), to, failure->reason,
                  std::string(where) + ", element " + std::to_string(failure->index));
  }
}

scalar convert_value(const scalar& value, data_type to, std::string_view where) {
  scalar out{to, {}};
  if (const auto failure = convert_elements(value.type, value.bytes(), to, out.bytes()))
    throw_failure(value.type, value.bytes(), to, failure->reason, std::string(where));
  return out;
}

}  // namespace zarr
