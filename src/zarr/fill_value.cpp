// zarr.fill_value: fill values to and from JSON for every data type (Zarr v3 core spec "Permitted
// fill values", zarr-extensions data-types/* "Fill value representation", docs/decisions.md 1-6). A decimal is
// rounded once, straight from its text to the type, with exact integer arithmetic.
module;
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>
#include <boost/json.hpp>
#include <boost/multiprecision/cpp_int.hpp>
module zarr.fill_value;

import zarr.text;

namespace zarr {
namespace json = boost::json;
using boost::multiprecision::cpp_int;

namespace {

// ------------------------------------------------------------------ decimal numbers

// A JSON number as sign, significant digits and a power of ten: digits * 10^exponent.
struct decimal {
  bool negative = false;
  std::string digits;  // no leading or trailing zeros; empty for zero
  std::int64_t exponent = 0;
};

// Every tie and grid point of every format here (float64's included) has fewer than 800
// significant digits, so digits beyond this many only matter as "some are not zero":
// they are replaced by one sticky 1, which keeps the value between the same neighbours.
constexpr std::size_t max_digits = 1024;
// Exponents are read up to this size; beyond it every value overflows or rounds to zero.
constexpr std::int64_t exponent_cap = 1'000'000'000'000;
// Values of at least 10^(max_decimal_exponent + 1) overflow every format (float64 max is
// below 1.8e308), values below 10^min_decimal_exponent round to zero in every format (float64's
// smallest subnormal is 4.9e-324); both bounds are kept well clear of the edges.
constexpr std::int64_t max_decimal_exponent = 400;
constexpr std::int64_t min_decimal_exponent = -400;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

void strip_trailing_zeros(decimal& d) {
  const auto last = d.digits.find_last_not_of('0');
  const std::size_t keep = last == std::string::npos ? 0 : last + 1;
  d.exponent += static_cast<std::int64_t>(d.digits.size() - keep);
  d.digits.resize(keep);
  if (d.digits.empty()) d.exponent = 0;
}

// Reads the JSON number grammar -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, exactly.
std::optional<decimal> parse_decimal(std::string_view s) {
  decimal d;
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    d.negative = true;
    ++i;
  }
  const std::size_t int_start = i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else {
    if (i >= s.size() || !is_digit(s[i])) return std::nullopt;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  const std::string_view int_part = s.substr(int_start, i - int_start);
  std::string_view frac_part;
  if (i < s.size() && s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return std::nullopt;
    frac_part = s.substr(start, i - start);
  }
  std::int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negative_exp = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative_exp = s[i++] == '-';
    const std::size_t start = i;
    for (; i < s.size() && is_digit(s[i]); ++i)
      if (exp < exponent_cap) exp = exp * 10 + (s[i] - '0');
    if (i == start) return std::nullopt;
    if (negative_exp) exp = -exp;
  }
  if (i != s.size()) return std::nullopt;

  std::string all;
  all.reserve(int_part.size() + frac_part.size());
  all.append(int_part).append(frac_part);
  const auto first = all.find_first_not_of('0');
  if (first == std::string::npos) return d;  // zero, with the text's sign
  d.digits = all.substr(first);
  d.exponent = exp - static_cast<std::int64_t>(frac_part.size());
  if (d.digits.size() > max_digits) {
    const bool sticky = d.digits.find_first_not_of('0', max_digits) != std::string::npos;
    d.exponent += static_cast<std::int64_t>(d.digits.size() - max_digits);
    d.digits.resize(max_digits);
    if (sticky) {
      d.digits.push_back('1');
      d.exponent -= 1;
    }
  }
  strip_trailing_zeros(d);
  return d;
}

// The decimal exponent of the leading digit: the value lies in [10^lead, 10^(lead+1)).
std::int64_t leading_exponent(const decimal& d) {
  return d.exponent + static_cast<std::int64_t>(d.digits.size()) - 1;
}

// Rounds d once, half to even, on the grid of `f`: unbounded above (then checked against max
// finite), gradual underflow below; float8_e8m0fnu's grid continues below 2^-127, which is
// then checked, and its ties go up because 2^(k+1) is the even neighbour of 2^k.
rounded_number round_decimal(const decimal& d, const float_format& f) {
  const bool e8m0 = f.specials == float_specials::e8m0;
  const rounded_number zero{d.negative && f.has_negative_zero() ? f.sign_mask() : 0, rounding_status::ok};
  if (e8m0 && (d.negative || d.digits.empty())) return {0, rounding_status::out_of_range};
  if (d.digits.empty()) return zero;
  const std::int64_t lead = leading_exponent(d);
  if (lead > max_decimal_exponent) return {0, rounding_status::overflow};
  if (lead < min_decimal_exponent) return e8m0 ? rounded_number{0, rounding_status::out_of_range} : zero;

  // value = num / den exactly
  cpp_int num(d.digits);
  cpp_int den = 1;
  if (d.exponent >= 0)
    num *= boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(d.exponent));
  else
    den = boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(-d.exponent));
  // k = floor(log2(value))
  std::int64_t k = static_cast<std::int64_t>(boost::multiprecision::msb(num)) -
                   static_cast<std::int64_t>(boost::multiprecision::msb(den));
  if (k >= 0 ? num < (den << static_cast<unsigned>(k)) : (num << static_cast<unsigned>(-k)) < den) --k;

  const int m = f.mantissa_bits;
  std::int64_t quantum = k - m;  // the value's grid spacing is 2^quantum
  if (!e8m0) quantum = std::max<std::int64_t>(quantum, 1 - f.bias - m);
  if (quantum >= 0)
    den <<= static_cast<unsigned>(quantum);
  else
    num <<= static_cast<unsigned>(-quantum);
  cpp_int q;
  cpp_int r;
  boost::multiprecision::divide_qr(num, den, q, r);
  r <<= 1;
  const int half = r.compare(den);
  auto n = q.convert_to<std::uint64_t>();  // at most 2^(m+1)
  if (half > 0 || (half == 0 && (n & 1) != 0)) ++n;

  if (n == 0) return zero;  // below half the smallest subnormal
  if (n == std::uint64_t{1} << (m + 1)) {  // rounded up into the next binade
    n >>= 1;
    ++quantum;
  }
  std::int64_t biased = 0;
  std::uint64_t mantissa = n;
  if (n >= std::uint64_t{1} << m) {
    biased = quantum + m + f.bias;
    mantissa = n - (std::uint64_t{1} << m);
  }
  if (biased < 0) return {0, rounding_status::out_of_range};  // e8m0 below 2^-127
  if (biased >= (std::int64_t{1} << f.exponent_bits)) return {0, rounding_status::overflow};
  const std::uint64_t magnitude = (static_cast<std::uint64_t>(biased) << m) | mantissa;
  if (magnitude > f.max_finite()) return {0, rounding_status::overflow};
  return {magnitude | (d.negative ? f.sign_mask() : 0), rounding_status::ok};
}

// ------------------------------------------------------------------ float bits

bool is_nan(std::uint64_t bits, const float_format& f) {
  switch (f.specials) {
    case float_specials::ieee: {
      const std::uint64_t mantissa_mask = (std::uint64_t{1} << f.mantissa_bits) - 1;
      return (bits & f.infinity()) == f.infinity() && (bits & mantissa_mask) != 0;
    }
    case float_specials::fnuz: return bits == f.sign_mask();
    case float_specials::e8m0: return bits == f.canonical_nan();
    case float_specials::fn_nan: return (bits & ~f.sign_mask()) == f.canonical_nan();
    case float_specials::fn: return false;
  }
  return false;
}

bool is_infinity(std::uint64_t bits, const float_format& f) {
  return f.has_infinity() && (bits & ~f.sign_mask()) == f.infinity();
}

// The exact value of finite, non-NaN bits: every format here fits in a double.
double value_of(std::uint64_t bits, const float_format& f) {
  const int m = f.mantissa_bits;
  const std::uint64_t magnitude = bits & ~f.sign_mask();
  const auto biased = static_cast<int>(magnitude >> m);
  const std::uint64_t mantissa = magnitude & ((std::uint64_t{1} << m) - 1);
  double v = 0;
  if (f.specials == float_specials::e8m0)
    v = std::ldexp(1.0, biased - f.bias);
  else if (biased == 0)
    v = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - m);
  else
    v = std::ldexp(static_cast<double>(mantissa | (std::uint64_t{1} << m)), biased - f.bias - m);
  return (bits & f.sign_mask()) != 0 ? -v : v;
}

std::string hex_text(std::uint64_t bits, int bytes) {
  std::string s(static_cast<std::size_t>(2 * bytes), '0');
  static constexpr char digits[] = "0123456789abcdef";
  for (auto i = s.size(); i-- > 0; bits >>= 4) s[i] = digits[bits & 0xf];
  return "0x" + s;
}

// A decimal as JSON number text: plain or with an exponent, whichever is shorter (plain on a tie).
std::string number_text(const decimal& d) {
  const std::string sign = d.negative ? "-" : "";
  if (d.digits.empty()) return sign.empty() ? "0" : "-0.0";
  const auto n = static_cast<std::int64_t>(d.digits.size());
  const std::int64_t lead = leading_exponent(d);
  std::string plain;
  if (d.exponent >= 0)
    plain = d.digits + std::string(static_cast<std::size_t>(d.exponent), '0');
  else if (lead >= 0)
    plain = d.digits.substr(0, static_cast<std::size_t>(lead + 1)) + "." + d.digits.substr(static_cast<std::size_t>(lead + 1));
  else
    plain = "0." + std::string(static_cast<std::size_t>(-lead - 1), '0') + d.digits;
  std::string exponent_form = d.digits.substr(0, 1);
  if (n > 1) exponent_form += "." + d.digits.substr(1);
  exponent_form += "e" + std::to_string(lead);
  return sign + (exponent_form.size() < plain.size() ? exponent_form : plain);
}

// A decimal as JSON number text: plain or with an exponent, whichever is shorter (plain on a tie).
// The shortest JSON number text that rounds back to `bits` (finite, non-zero, not NaN).
// Among the decimals of p significant digits only the two around the exact value can round
// back to it. Fewer digits can still make a longer text (96 has two digits, 1e2 one), so
// every p is tried while it can still give a shorter text; on equal length, fewer digits
// and then the nearer decimal win.
std::string shortest_text(std::uint64_t bits, const float_format& f) {
  const double v = value_of(bits, f);
  // The exact decimal expansion (a double has at most 767 significant digits).
  char buffer[900];
  const int written = std::snprintf(buffer, sizeof buffer, "%.800e", std::fabs(v));
  const std::string_view text(buffer, static_cast<std::size_t>(written));
  const auto e = text.find('e');
  std::string exact;
  exact.push_back(text[0]);
  exact.append(text.substr(2, e - 2));
  std::int64_t lead = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(), lead);
  exact.resize(exact.find_last_not_of('0') + 1);

  const bool negative = v < 0;
  std::string best;
  for (std::size_t p = 1; p < exact.size() && (best.empty() || p < best.size()); ++p) {
    decimal below{negative, exact.substr(0, p), lead - static_cast<std::int64_t>(p) + 1};
    decimal above = below;
    auto i = above.digits.size();
    while (i > 0 && above.digits[i - 1] == '9') above.digits[--i] = '0';
    if (i == 0)
      above.digits.insert(above.digits.begin(), '1');
    else
      ++above.digits[i - 1];
    const std::string_view rest = std::string_view(exact).substr(p);
    const bool above_is_nearer = rest[0] > '5' || (rest[0] == '5' && rest.size() > 1);
    strip_trailing_zeros(below);
    strip_trailing_zeros(above);
    for (const decimal* c : above_is_nearer ? std::initializer_list<const decimal*>{&above, &below}
                                            : std::initializer_list<const decimal*>{&below, &above}) {
      const auto r = round_decimal(*c, f);
      if (r.status != rounding_status::ok || r.bits != bits) continue;
      std::string candidate = number_text(*c);
      if (best.empty() || candidate.size() < best.size()) best = std::move(candidate);
    }
  }
  std::string all_digits = number_text({negative, exact, lead - static_cast<std::int64_t>(exact.size()) + 1});
  return best.empty() || all_digits.size() < best.size() ? all_digits : best;
}

// The JSON text of float bits: a number, or a string ("NaN", "Infinity", hex).
std::string float_text(std::uint64_t bits, const float_format& f, int bytes) {
  if (is_nan(bits, f)) return '"' + (bits == f.canonical_nan() ? std::string("NaN") : hex_text(bits, bytes)) + '"';
  if (is_infinity(bits, f)) return (bits & f.sign_mask()) != 0 ? "\"-Infinity\"" : "\"Infinity\"";
  if ((bits & ~f.sign_mask()) == 0 && f.specials != float_specials::e8m0)
    return (bits & f.sign_mask()) != 0 ? "-0.0" : "0";
  return shortest_text(bits, f);
}

// ------------------------------------------------------------------ reading JSON

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// The end of the JSON value starting at `i` of valid JSON text `s`.
std::size_t skip_value(std::string_view s, std::size_t i) {
  int depth = 0;
  bool in_string = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[': case '{': ++depth; break;
      case ']': case '}':
        if (depth == 0) return i;
        if (--depth == 0) return i + 1;
        break;
      case ',': case ' ': case '\t': case '\r': case '\n':
        if (depth == 0) return i;
        break;
      default: break;
    }
  }
  return i;
}

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  return i;
}

// The source texts of the elements of the valid JSON array text `s`.
std::vector<std::string_view> array_elements(std::string_view s) {
  std::vector<std::string_view> elements;
  std::size_t i = skip_space(s, 1);
  while (i < s.size() && s[i] != ']') {
    const std::size_t end = skip_value(s, i);
    elements.push_back(s.substr(i, end - i));
    i = skip_space(s, end);
    if (i < s.size() && s[i] == ',') i = skip_space(s, i + 1);
  }
  return elements;
}

// The Boost.JSON value of the JSON text `source` (trimmed), built so that every number in it
// has its own source text: numbers and arrays are split here, the rest is Boost.JSON's.
// Numbers that Boost.JSON refuses (exponents beyond its range, 1e-999999999999) are still
// numbers: they stand as the double 0, which only says "not an integer literal".
std::optional<json::value> value_from_source(std::string_view source) {
  if (source.empty()) return std::nullopt;
  if (source[0] == '[') {
    json::array a;
    std::size_t i = skip_space(source, 1);
    if (i < source.size() && source[i] == ']') return i + 1 == source.size() ? std::optional<json::value>(a) : std::nullopt;
    while (i < source.size()) {
      const std::size_t end = skip_value(source, i);
      auto element = value_from_source(source.substr(i, end - i));
      if (!element) return std::nullopt;
      a.push_back(std::move(*element));
      i = skip_space(source, end);
      if (i >= source.size()) return std::nullopt;
      if (source[i] == ']') return i + 1 == source.size() ? std::optional<json::value>(std::move(a)) : std::nullopt;
      if (source[i] != ',') return std::nullopt;
      i = skip_space(source, i + 1);
    }
    return std::nullopt;
  }
  std::error_code ec;
  json::value v = json::parse(source, ec);
  if (!ec) return v;
  if (parse_decimal(source)) return json::value(0.0);
  return std::nullopt;
}

// One JSON value being read, with its source text when the caller gave text: numbers are
// then read from it, not from the double Boost.JSON made of them.
struct item {
  const json::value& value;
  std::string_view source;  // trimmed; empty when unknown

  [[nodiscard]] std::string shown() const {
    std::string s = source.empty() ? json::serialize(value) : std::string(source);
    if (s.size() > 80) s = s.substr(0, 77) + "...";
    return s;
  }
  // The decimal text of a number, or nullopt for a double that is not finite.
  [[nodiscard]] std::optional<std::string> number() const {
    if (!source.empty()) return std::string(source);
    if (const auto* i = value.if_int64()) return std::to_string(*i);
    if (const auto* u = value.if_uint64()) return std::to_string(*u);
    const double d = value.get_double();
    if (!std::isfinite(d)) return std::nullopt;
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, d);
    return std::string(buffer, result.ptr);
  }
};

[[noreturn]] void fail(std::string_view where, const std::string& expected, const item& got) {
  throw error(errc::invalid_value, std::string(where) + ": expected " + expected + ", got " + got.shown());
}

std::string what_a_float_is(const float_format& f, std::string_view type_name) {
  std::string s = "a number, ";
  if (f.has_nan()) s += "\"NaN\", ";
  if (f.has_infinity()) s += "\"Infinity\", \"-Infinity\", ";
  s += "or \"0x\" and the hex digits of a bit pattern below 2^" + std::to_string(f.bits()) + " for " +
       std::string(type_name);
  if (!f.has_infinity()) s += std::string(" (") + (f.has_nan() ? "it has no infinity" : "it has no NaN and no infinity") + ")";
  return s;
}

std::optional<std::uint64_t> parse_hex(std::string_view s, int bits) {
  if (s.size() < 3 || s[0] != '0' || s[1] != 'x') return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s.substr(2)) {
    int digit = 0;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return std::nullopt;
    if ((v >> 60) != 0) return std::nullopt;
    v = v << 4 | static_cast<std::uint64_t>(digit);
  }
  if (bits < 64 && (v >> bits) != 0) return std::nullopt;
  return v;
}

std::uint64_t parse_float(const item& it, const float_format& f, std::string_view type_name, std::string_view where) {
  if (const auto* s = it.value.if_string()) {
    const std::string_view text = *s;
    if (text == "NaN" && f.has_nan()) return f.canonical_nan();
    if ((text == "Infinity" || text == "+Infinity") && f.has_infinity()) return f.infinity();
    if (text == "-Infinity" && f.has_infinity()) return f.infinity() | f.sign_mask();
    if (const auto bits = parse_hex(text, f.bits())) return *bits;
    fail(where, what_a_float_is(f, type_name), it);
  }
  if (!it.value.is_number()) fail(where, what_a_float_is(f, type_name), it);
  const auto text = it.number();
  const auto d = text ? parse_decimal(*text) : std::nullopt;
  const auto r = d ? round_decimal(*d, f) : rounded_number{0, rounding_status::overflow};
  switch (r.status) {
    case rounding_status::ok: return r.bits;
    case rounding_status::overflow:
      fail(where,
           "a number whose magnitude rounds to at most " + float_text(f.max_finite(), f, 8) + ", the largest finite " +
               std::string(type_name) + (f.has_infinity() ? " (write \"Infinity\" or \"-Infinity\" for infinity)" : ""),
           it);
    case rounding_status::out_of_range:
      fail(where, "a positive number that rounds to at least 2^-127 for " + std::string(type_name) + ", which has no zero",
           it);
    case rounding_status::not_a_number: break;
  }
  fail(where, what_a_float_is(f, type_name), it);
}

template <class T>
void store(scalar& s, std::size_t offset, T v) {
  std::memcpy(s.bits.data() + offset, &v, sizeof v);
}

void store_float_bits(scalar& s, std::size_t offset, int size, std::uint64_t bits) {
  switch (size) {
    case 1: store(s, offset, static_cast<std::uint8_t>(bits)); break;
    case 2: store(s, offset, static_cast<std::uint16_t>(bits)); break;
    case 4: store(s, offset, static_cast<std::uint32_t>(bits)); break;
    default: store(s, offset, bits); break;
  }
}

std::uint64_t load_float_bits(const scalar& s, std::size_t offset, int size) {
  auto load = [&]<class T>(T) {
    T v;
    std::memcpy(&v, s.bits.data() + offset, sizeof v);
    return static_cast<std::uint64_t>(v);
  };
  switch (size) {
    case 1: return load(std::uint8_t{});
    case 2: return load(std::uint16_t{});
    case 4: return load(std::uint32_t{});
    default: return load(std::uint64_t{});
  }
}

scalar parse(const item& it, data_type type, std::string_view where) {
  const auto& t = info(type);
  scalar s{type, {}};
  switch (t.kind) {
    case dtype_kind::boolean: {
      const auto* b = it.value.if_bool();
      if (b == nullptr) fail(where, "true or false", it);
      store(s, 0, static_cast<std::uint8_t>(*b ? 1 : 0));
      return s;
    }
    case dtype_kind::time:  // an int64 count or "NaT" (datatype-numpy.datetime64.md, "Fill value representation")
      if (const auto* text = it.value.if_string(); text != nullptr && *text == "NaT") {
        store(s, 0, not_a_time);
        return s;
      }
      [[fallthrough]];
    case dtype_kind::signed_integer:
    case dtype_kind::unsigned_integer: {
      const std::string range = "an integer (no fraction, no exponent) from " + std::to_string(t.min) + " to " +
                                std::to_string(t.max) + (t.kind == dtype_kind::time ? ", or \"NaT\"," : "") + " for " +
                                std::string(t.name);
      // Boost.JSON stores an integer literal as int64 or uint64 when it fits, anything
      // else (1.0, 1e3, integers beyond uint64) as a double.
      std::int64_t v = 0;
      if (const auto* i = it.value.if_int64()) {
        v = *i;
        if (v < t.min || (v > 0 && static_cast<std::uint64_t>(v) > t.max)) fail(where, range, it);
      } else if (const auto* u = it.value.if_uint64()) {
        if (*u > t.max) fail(where, range, it);
        v = static_cast<std::int64_t>(*u);  // two's complement bits, as stored below
      } else {
        fail(where, range, it);
      }
      switch (t.size) {
        case 1: store(s, 0, static_cast<std::int8_t>(v)); break;
        case 2: store(s, 0, static_cast<std::int16_t>(v)); break;
        case 4: store(s, 0, static_cast<std::int32_t>(v)); break;
        default: store(s, 0, v); break;
      }
      return s;
    }
    case dtype_kind::floating:
      store_float_bits(s, 0, t.size, parse_float(it, t.format, t.name, where));
      return s;
    case dtype_kind::complex: {
      const auto* a = it.value.if_array();
      if (a == nullptr || a->size() != 2)
        fail(where, "[real, imaginary] for " + std::string(t.name), it);
      const auto sources = it.source.empty() ? std::vector<std::string_view>(2) : array_elements(it.source);
      const int part = t.size / 2;
      const std::string_view component = name(complex_component(type));
      for (std::size_t i = 0; i < 2; ++i) {
        const std::string at = std::string(where) + "[" + std::to_string(i) + "]";
        store_float_bits(s, i * static_cast<std::size_t>(part), part,
                         parse_float(item{(*a)[i], sources.at(i)}, t.format, component, at));
      }
      return s;
    }
    case dtype_kind::variable:
      throw error(errc::invalid_argument, std::string(where) + ": a value of " + std::string(t.name) +
                                              " is a string, not a scalar (parse_variable_fill_value)");
    case dtype_kind::sized:
      throw error(errc::invalid_argument, std::string(where) + ": a value of " + std::string(t.name) +
                                              " needs the type's configuration (zarr.sized: parse_sized_value)");
  }
  return s;
}

// A canonical JSON text as a Boost.JSON value: numbers as an integer where they are one,
// else as the nearest double (which reads back to the same value of the type).
json::value value_of_text(std::string_view text) {
  if (text.front() == '"') return json::string(text.substr(1, text.size() - 2));
  if (text.find_first_of(".eE") == std::string_view::npos) {
    std::int64_t i = 0;
    if (std::from_chars(text.data(), text.data() + text.size(), i).ec == std::errc{}) return i;
    std::uint64_t u = 0;
    if (std::from_chars(text.data(), text.data() + text.size(), u).ec == std::errc{}) return u;
  }
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);
  return d;
}

}  // namespace

// ------------------------------------------------------------------ the interface

rounded_number round_json_number(std::string_view text, const float_format& format) {
  const auto d = parse_decimal(text);
  if (!d) return {};
  return round_decimal(*d, format);
}

scalar parse_fill_value(const json::value& json, data_type type, std::string_view where) {
  return parse(item{json, {}}, type, where);
}

scalar parse_fill_value_text(std::string_view json_text, data_type type, std::string_view where) {
  const std::string_view source = trim(json_text);
  const auto v = value_from_source(source);
  if (!v) {
    const std::string shown = source.size() > 80 ? std::string(source.substr(0, 77)) + "..." : std::string(source);
    throw error(errc::invalid_value, std::string(where) + ": expected JSON, got " + shown);
  }
  return parse(item{*v, source}, type, where);
}

std::string fill_value_to_json_text(const scalar& value) {
  const auto& t = info(value.type);
  switch (t.kind) {
    case dtype_kind::boolean: return value.bits[0] != std::byte{0} ? "true" : "false";
    case dtype_kind::signed_integer: {
      std::uint64_t raw = value.raw();
      if (t.bits < 64 && (raw >> (t.bits - 1)) != 0) raw |= ~std::uint64_t{0} << t.bits;  // sign-extend
      return std::to_string(static_cast<std::int64_t>(raw));
    }
    case dtype_kind::unsigned_integer: return std::to_string(value.raw());
    case dtype_kind::time: {
      const auto count = value.as<std::int64_t>();
      return count == not_a_time ? "\"NaT\"" : std::to_string(count);
    }
    case dtype_kind::floating: {
      const std::uint64_t mask = t.bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << t.bits) - 1;
      return float_text(load_float_bits(value, 0, t.size) & mask, t.format, t.size);
    }
    case dtype_kind::complex: {
      const int part = t.size / 2;
      const int bits = t.format.bits();  // each component's; a sub-byte one in the low bits of its byte
      const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
      return "[" + float_text(load_float_bits(value, 0, part) & mask, t.format, part) + "," +
             float_text(load_float_bits(value, static_cast<std::size_t>(part), part) & mask, t.format, part) + "]";
    }
    case dtype_kind::variable: break;  // no scalar value: variable_fill_value_to_json
    case dtype_kind::sized: break;     // needs the configuration: zarr.sized's sized_value_to_json
  }
  return "null";
}

json::value fill_value_to_json(const scalar& value) {
  const std::string text = fill_value_to_json_text(value);
  const auto& t = info(value.type);
  if (t.kind == dtype_kind::boolean) return value.bits[0] != std::byte{0};
  if (t.kind == dtype_kind::complex) {
    const auto parts = array_elements(text);
    return json::array{value_of_text(parts.at(0)), value_of_text(parts.at(1))};
  }
  return value_of_text(text);
}

std::string parse_variable_fill_value(const json::value& v, data_type type, std::string_view where) {
  const auto shown = [&] { return json::serialize(v); };
  if (type == data_type::string) {
    const auto* text = v.if_string();
    if (text == nullptr)
      throw error(errc::invalid_value, std::string(where) + ": expected a string for string, got " + shown());
    return std::string(*text);  // Boost.JSON has checked that it is UTF-8
  }
  if (const auto* text = v.if_string()) {
    if (auto decoded = base64_decode(*text)) return std::move(*decoded);
    throw error(errc::invalid_value, std::string(where) + ": expected base64 text (padded, RFC 4648) for bytes, got " +
                                         shown());
  }
  const auto* list = v.if_array();
  if (list == nullptr)
    throw error(errc::invalid_value, std::string(where) + ": expected an array of integers from 0 to 255 or a base64 "
                                                          "string for bytes, got " + shown());
  std::string out;
  out.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& item = (*list)[i];
    const auto* n = item.if_int64();
    const auto* u = item.if_uint64();
    const bool in_range = (n != nullptr && *n >= 0 && *n <= 255) || (u != nullptr && *u <= 255);
    if (!in_range)
      throw error(errc::invalid_value, std::string(where) + "[" + std::to_string(i) +
                                           "]: expected an integer from 0 to 255, got " + json::serialize(item));
    out += static_cast<char>(n != nullptr ? *n : static_cast<std::int64_t>(*u));
  }
  return out;
}

json::value variable_fill_value_to_json(std::string_view value, data_type type) {
  return json::string(type == data_type::string ? std::string(value) : base64_encode(value));
}

scalar default_fill_value(data_type type) noexcept {
  scalar s{type, {}};
  if (type == data_type::float8_e8m0fnu) s.bits[0] = std::byte{0x7f};
  if (type == data_type::complex_float8_e8m0fnu) s.bits[0] = s.bits[1] = std::byte{0x7f};  // [1, 1]
  return s;
}

std::optional<std::string_view> json_source_text(std::string_view document, std::string_view json_pointer) {
  std::error_code ec;
  json::parse_options options;
  options.max_depth = 64;  // as zarr::parse_json: Boost.JSON's default of 32 would refuse valid documents
  json::parse(document, ec, {}, options);
  if (ec) return std::nullopt;
  if (!json_pointer.empty() && json_pointer[0] != '/') return std::nullopt;
  std::size_t i = skip_space(document, 0);
  std::string_view rest = json_pointer;
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '/'
    const auto slash = rest.find('/');
    std::string token;
    for (std::size_t j = 0; j < std::min(slash, rest.size()); ++j) {
      if (rest[j] == '~' && j + 1 < rest.size() && (rest[j + 1] == '0' || rest[j + 1] == '1'))
        token.push_back(rest[++j] == '0' ? '~' : '/');
      else
        token.push_back(rest[j]);
    }
    rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);

    const char open = document[i];
    if (open != '{' && open != '[') return std::nullopt;
    std::size_t index = 0;
    if (open == '[') {
      const auto r = std::from_chars(token.data(), token.data() + token.size(), index);
      if (token.empty() || r.ec != std::errc{} || r.ptr != token.data() + token.size() ||
          (token.size() > 1 && token[0] == '0'))
        return std::nullopt;
    }
    i = skip_space(document, i + 1);
    for (std::size_t n = 0;; ++n) {
      if (document[i] == ']' || document[i] == '}') return std::nullopt;
      bool found = false;
      if (open == '{') {
        const std::size_t key_end = skip_value(document, i);
        found = json::parse(document.substr(i, key_end - i)).as_string() == token;
        i = skip_space(document, skip_space(document, key_end) + 1);  // past the ':'
      } else {
        found = n == index;
      }
      if (found) break;
      i = skip_space(document, skip_value(document, i));
      if (document[i] == ',') i = skip_space(document, i + 1);
    }
  }
  return document.substr(i, skip_value(document, i) - i);
}

}  // namespace zarr
