// zarr3's value formats: json, raw and npy (see formats.hpp).
#include <boost/json.hpp>
#include "formats.hpp"

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>
#include "cli.hpp"

namespace zarr_cli {

namespace {

using zarr::data_type;
using zarr::dtype_kind;

[[noreturn]] void fail(zarr::errc code, const std::string& message) { throw zarr::error(code, message); }

std::string shown(std::string_view token) {
  return token.size() > 80 ? std::string(token.substr(0, 77)) + "..." : std::string(token);
}

// --- canonical float text -----------------------------------------------------------------

// Digits d1 d2 ... dn times 10^(lead - n + 1), as JSON number text: plain or with an exponent,
// whichever is shorter (plain on a tie) -- the rule of zarr::fill_value_to_json_text.
std::string number_text(bool negative, std::string_view digits, int lead) {
  const int n = static_cast<int>(digits.size());
  const int exponent = lead - n + 1;
  std::string plain;
  if (exponent >= 0)
    plain = std::string(digits) + std::string(static_cast<std::size_t>(exponent), '0');
  else if (lead >= 0)
    plain = std::string(digits.substr(0, static_cast<std::size_t>(lead + 1))) + "." +
            std::string(digits.substr(static_cast<std::size_t>(lead + 1)));
  else
    plain = "0." + std::string(static_cast<std::size_t>(-lead - 1), '0') + std::string(digits);
  std::string exponent_form(digits.substr(0, 1));
  if (n > 1) exponent_form += "." + std::string(digits.substr(1));
  exponent_form += "e" + std::to_string(lead);
  return (negative ? "-" : "") + (exponent_form.size() < plain.size() ? exponent_form : plain);
}

std::string hex_text(std::uint64_t bits, int bytes) {
  std::string s(static_cast<std::size_t>(2 * bytes), '0');
  static constexpr char hex[] = "0123456789abcdef";
  for (auto i = s.size(); i-- > 0; bits >>= 4) s[i] = hex[bits & 0xf];
  return "\"0x" + s + "\"";
}

// Whether v (finite, positive) lies exactly halfway between the decimals below and above
// (digit strings of the same length, times 10^exponent): 2v == below + above.
template <class F>
bool is_tie(F v, const std::string& below, const std::string& above, int exponent) {
  using boost::multiprecision::cpp_int;
  int e2 = 0;
  const F fraction = std::frexp(v, &e2);
  constexpr int digits = std::numeric_limits<F>::digits;
  cpp_int lhs(static_cast<std::uint64_t>(std::ldexp(fraction, digits)));  // v = lhs * 2^(e2 - digits)
  cpp_int rhs = cpp_int(below) + cpp_int(above);                          // below + above = rhs * 10^exponent
  const int shift = e2 - digits + 1;                                      // 2v = lhs * 2^shift
  if (shift >= 0) lhs <<= shift; else rhs <<= -shift;
  if (exponent >= 0) rhs *= boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(exponent));
  else lhs *= boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(-exponent));
  return lhs == rhs;
}

// A cheap necessary condition for is_tie: v rounded to one more digit than `below` has
// reads as `below` followed by 5.
template <class F>
bool halfway_digits(F v, const std::string& below) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(v), std::chars_format::scientific,
                               static_cast<int>(below.size()));
  std::string got;
  for (const char* p = buffer; p != r.ptr && *p != 'e'; ++p)
    if (*p != '.') got.push_back(*p);
  return got == below + "5";
}

template <class F, class U>
std::string float_text(F v) {
  const auto bits = std::bit_cast<U>(v);
  constexpr int mantissa = std::numeric_limits<F>::digits - 1;
  constexpr U canonical_nan = (static_cast<U>(~U{0} >> 1) >> (mantissa - 1)) << (mantissa - 1);
  if (std::isnan(v)) return bits == canonical_nan ? std::string("\"NaN\"") : hex_text(bits, sizeof(F));
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0";
  // The shortest digits that read back to v (std::to_chars), then laid out like the library.
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<std::size_t>(r.ptr - buffer));
  const bool negative = text.front() == '-';
  if (negative) text.remove_prefix(1);
  const auto e = text.find('e');
  std::string digits;
  for (const char c : text.substr(0, e))
    if (c != '.') digits.push_back(c);
  digits.resize(std::max<std::size_t>(1, digits.find_last_not_of('0') + 1));
  int lead = 0;
  const auto exp_text = text.substr(e + 1);
  std::from_chars(exp_text.data() + (exp_text.front() == '+' ? 1 : 0), exp_text.data() + exp_text.size(), lead);
  // On an exact tie between two decimals of as many digits that both read back, the
  // library keeps the one of smaller magnitude; std::to_chars may have taken the other.
  if (digits.size() > 1 || digits[0] > '1') {
    std::string below = digits;
    --below.back();
    const int exponent = lead - static_cast<int>(digits.size()) + 1;
    const std::string below_text = (negative ? "-" : "") + below + "e" + std::to_string(exponent);
    F back{};
    const auto r = std::from_chars(below_text.data(), below_text.data() + below_text.size(), back);
    if (r.ec == std::errc{} && back == v && halfway_digits(v, below) && is_tie(std::fabs(v), below, digits, exponent)) {
      below.resize(std::max<std::size_t>(1, below.find_last_not_of('0') + 1));
      return number_text(negative, below, lead);
    }
  }
  return number_text(negative, digits, lead);
}

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

template <class T>
void append_integer(std::string& out, T v) {
  char buffer[24];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, r.ptr);
}

// --- parsing one element ------------------------------------------------------------------

bool is_json_integer(std::string_view s) {
  std::size_t i = s.starts_with('-') ? 1 : 0;
  if (i >= s.size()) return false;
  if (s[i] == '0') return i + 1 == s.size();
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const auto start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// The fast paths: plain integers and decimal floats of the common types. Returns false
// when the token needs the library's exact parser (which also words the errors).
bool parse_fast(std::string_view token, data_type type, std::byte* out) {
  const auto& t = zarr::info(type);
  const char* first = token.data();
  const char* last = first + token.size();
  switch (t.kind) {
    case dtype_kind::boolean:
      if (token == "true" || token == "false") {
        store(out, static_cast<std::uint8_t>(token == "true"));
        return true;
      }
      return false;
    case dtype_kind::signed_integer:
    case dtype_kind::unsigned_integer: {
      if (!is_json_integer(token)) return false;
      if (t.kind == dtype_kind::signed_integer) {
        std::int64_t v = 0;
        if (std::from_chars(first, last, v).ec != std::errc{} || v < t.min || (v > 0 && static_cast<std::uint64_t>(v) > t.max))
          return false;
        switch (t.size) {
          case 1: store(out, static_cast<std::int8_t>(v)); break;
          case 2: store(out, static_cast<std::int16_t>(v)); break;
          case 4: store(out, static_cast<std::int32_t>(v)); break;
          default: store(out, v); break;
        }
      } else {
        std::uint64_t v = 0;
        if (token.starts_with('-') || std::from_chars(first, last, v).ec != std::errc{} || v > t.max) return false;
        switch (t.size) {
          case 1: store(out, static_cast<std::uint8_t>(v)); break;
          case 2: store(out, static_cast<std::uint16_t>(v)); break;
          case 4: store(out, static_cast<std::uint32_t>(v)); break;
          default: store(out, v); break;
        }
      }
      return true;
    }
    case dtype_kind::floating: {
      if ((type != data_type::float32 && type != data_type::float64) || !is_json_number(token)) return false;
      if (type == data_type::float64) {
        double v = 0;
        const auto r = std::from_chars(first, last, v);
        if (r.ec != std::errc{} || r.ptr != last || !std::isfinite(v) || (v != 0 && std::fabs(v) < std::numeric_limits<double>::min()))
          return false;
        store(out, v);
      } else {
        float v = 0;
        const auto r = std::from_chars(first, last, v);
        if (r.ec != std::errc{} || r.ptr != last || !std::isfinite(v) || (v != 0 && std::fabs(v) < std::numeric_limits<float>::min()))
          return false;
        store(out, v);
      }
      return true;
    }
    case dtype_kind::complex:
    case dtype_kind::time:
    case dtype_kind::variable:
    case dtype_kind::sized: return false;
  }
  return false;
}

}  // namespace

std::string float_json_text(double v) { return float_text<double, std::uint64_t>(v); }
std::string float_json_text(float v) { return float_text<float, std::uint32_t>(v); }

value_format parse_format(const std::optional<std::string>& text, std::string_view fallback_path) {
  if (!text) {
    if (fallback_path.ends_with(".npy")) return value_format::npy;
    if (fallback_path.ends_with(".raw") || fallback_path.ends_with(".bin")) return value_format::raw;
    return value_format::json;
  }
  if (*text == "json") return value_format::json;
  if (*text == "raw") return value_format::raw;
  if (*text == "npy") return value_format::npy;
  throw usage_error("--format: expected json, raw or npy, got \"" + *text + "\"");
}

// --- json ---------------------------------------------------------------------------------

json_element_writer::json_element_writer(data_type type) : type_(type) {
  const auto& t = zarr::info(type);
  if ((t.kind == dtype_kind::floating && type != data_type::float32 && type != data_type::float64) || t.bits < 8)
    cache_.resize(std::size_t{1} << t.bits);
}

json_element_writer::json_element_writer(data_type type, zarr::time_resolution r) : type_(type), iso_(r) {}

json_element_writer::json_element_writer(const zarr::data_type_spec& spec) : json_element_writer(spec.type) {
  if (zarr::is_sized(spec.type)) sized_ = spec;
}

void json_element_writer::append(std::string& out, const std::byte* p) {
  if (sized_) {
    out += zarr::sized_value_to_json_text({p, static_cast<std::size_t>(sized_->element_size())}, *sized_);
    return;
  }
  const auto& t = zarr::info(type_);
  if (iso_) {
    out += '"' + zarr::datetime_iso8601(load<std::int64_t>(p), *iso_) + '"';
    return;
  }
  if (!cache_.empty()) {
    const std::uint64_t raw = t.size == 1 ? std::to_integer<std::uint64_t>(*p) & ((std::uint64_t{1} << t.bits) - 1)
                                          : load<std::uint16_t>(p);
    auto& text = cache_[raw];
    if (text.empty()) {
      zarr::scalar s{type_, {}};
      std::memcpy(s.bits.data(), p, static_cast<std::size_t>(t.size));
      text = zarr::fill_value_to_json_text(s);
    }
    out += text;
    return;
  }
  switch (type_) {
    case data_type::bool_: out += load<std::uint8_t>(p) != 0 ? "true" : "false"; return;
    case data_type::int8: append_integer(out, load<std::int8_t>(p)); return;
    case data_type::int16: append_integer(out, load<std::int16_t>(p)); return;
    case data_type::int32: append_integer(out, load<std::int32_t>(p)); return;
    case data_type::int64: append_integer(out, load<std::int64_t>(p)); return;
    case data_type::uint8: append_integer(out, load<std::uint8_t>(p)); return;
    case data_type::uint16: append_integer(out, load<std::uint16_t>(p)); return;
    case data_type::uint32: append_integer(out, load<std::uint32_t>(p)); return;
    case data_type::uint64: append_integer(out, load<std::uint64_t>(p)); return;
    case data_type::float32: out += float_json_text(load<float>(p)); return;
    case data_type::float64: out += float_json_text(load<double>(p)); return;
    case data_type::complex64:
      out += "[" + float_json_text(load<float>(p)) + "," + float_json_text(load<float>(p + 4)) + "]";
      return;
    case data_type::complex128:
      out += "[" + float_json_text(load<double>(p)) + "," + float_json_text(load<double>(p + 8)) + "]";
      return;
    default: {
      zarr::scalar s{type_, {}};
      std::memcpy(s.bits.data(), p, static_cast<std::size_t>(t.size));
      out += zarr::fill_value_to_json_text(s);
    }
  }
}

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
}  // namespace

json_element_reader::json_element_reader(std::string_view text, data_type type, std::string where)
    : text_(text), type_(type), where_(std::move(where)) {
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  if (pos_ >= text_.size() || text_[pos_] != '[')
    fail(zarr::errc::invalid_value, where_ + ": expected a JSON array of values, got " +
                                        (pos_ >= text_.size() ? std::string("nothing") : shown(text_.substr(pos_, 20))));
  ++pos_;
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && text_[pos_] == ']') {
    ++pos_;
    closed_ = true;
  }
}

json_element_reader::json_element_reader(std::string_view text, const zarr::data_type_spec& spec, std::string where)
    : json_element_reader(text, spec.type, std::move(where)) {
  if (zarr::is_sized(spec.type)) sized_ = spec;
}

std::string_view json_element_reader::next_token() {
  const auto start = pos_;
  const auto in_element = [&] { return where_ + ": element " + std::to_string(index_); };
  if (pos_ >= text_.size()) fail(zarr::errc::invalid_value, in_element() + ": expected a value, got the end of the input");
  if (text_[pos_] == '"' || text_[pos_] == '[' || text_[pos_] == '{') {
    int depth = 0;
    bool in_string = false;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (in_string) {
        if (c == '\\') ++pos_;
        else if (c == '"') {
          in_string = false;
          if (depth == 0) break;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if (c == ']' || c == '}') {
        if (--depth == 0) break;
      }
    }
    if (pos_ >= text_.size()) fail(zarr::errc::invalid_value, in_element() + ": expected a complete value, got the end of the input");
    ++pos_;
  } else {
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ']' && !is_space(text_[pos_])) ++pos_;
  }
  const auto token = text_.substr(start, pos_ - start);
  if (token.empty()) fail(zarr::errc::invalid_value, in_element() + ": expected a value, got " + shown(text_.substr(pos_, 1)));
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && text_[pos_] == ',') {
    ++pos_;
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  } else if (pos_ < text_.size() && text_[pos_] == ']') {
    ++pos_;
    closed_ = true;
  } else {
    fail(zarr::errc::invalid_value, in_element() + ": expected ',' or ']' after " + shown(token) + ", got " +
                                        (pos_ >= text_.size() ? std::string("the end of the input") : shown(text_.substr(pos_, 20))));
  }
  return token;
}

void json_element_reader::parse_element(std::string_view token, std::byte* out) {
  if (sized_) {
    const auto where = where_ + ": element " + std::to_string(index_);
    boost::system::error_code ec;
    const auto value = boost::json::parse(token, ec);
    if (ec) fail(zarr::errc::invalid_value, where + ": expected JSON, got " + shown(token));
    zarr::parse_sized_value(value, *sized_, {out, static_cast<std::size_t>(sized_->element_size())}, where);
    return;
  }
  if (parse_fast(token, type_, out)) return;
  const auto s = zarr::parse_fill_value_text(token, type_, where_ + ": element " + std::to_string(index_));
  std::memcpy(out, s.bits.data(), static_cast<std::size_t>(zarr::info(type_).size));
}

void json_element_reader::read(std::uint64_t n, std::byte* out) {
  const auto size = static_cast<std::size_t>(sized_ ? sized_->element_size() : static_cast<std::uint64_t>(zarr::info(type_).size));
  for (std::uint64_t i = 0; i < n; ++i) {
    if (closed_)
      fail(zarr::errc::invalid_value, where_ + ": expected more values, got " + std::to_string(index_) +
                                          " (the array ends there)");
    parse_element(next_token(), out + i * size);
    ++index_;
  }
}

void json_element_reader::finish() {
  if (!closed_)
    fail(zarr::errc::invalid_value, where_ + ": expected " + std::to_string(index_) + " values, got more");
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  if (pos_ != text_.size())
    fail(zarr::errc::invalid_value, where_ + ": expected nothing after the array, got " + shown(text_.substr(pos_, 20)));
}

// --- raw ----------------------------------------------------------------------------------

void swap_elements(std::span<std::byte> data, data_type type) {
  const auto& t = zarr::info(type);
  const std::size_t part = t.kind == dtype_kind::complex ? static_cast<std::size_t>(t.size / 2) : static_cast<std::size_t>(t.size);
  if (part <= 1) return;
  for (std::size_t i = 0; i + part <= data.size(); i += part) std::reverse(data.begin() + static_cast<std::ptrdiff_t>(i),
                                                                         data.begin() + static_cast<std::ptrdiff_t>(i + part));
}

namespace {

// The bits of each byte that hold a value of a one-byte type, or a one-byte complex component
// (complex_float4_e2m1fn: 4); 8 or more for the others.
int value_bits(const zarr::dtype_info& t) { return t.kind == dtype_kind::complex ? t.format.bits() : t.bits; }

}  // namespace

void to_raw(std::span<std::byte> data, data_type type) {
  if (zarr::is_sized(type)) return;  // their bytes as they are (little-endian machines: run_read)
  const auto& t = zarr::info(type);
  if (value_bits(t) < 8 && type != data_type::bool_) {
    const auto mask = static_cast<std::byte>((1u << value_bits(t)) - 1);
    for (auto& b : data) b &= mask;
  }
  if constexpr (std::endian::native == std::endian::big) swap_elements(data, type);
}

void from_raw(std::span<std::byte> data, data_type type, std::uint64_t first, std::string_view where) {
  const auto& t = zarr::info(type);
  if constexpr (std::endian::native == std::endian::big) swap_elements(data, type);
  if (type == data_type::bool_) {
    for (std::size_t i = 0; i < data.size(); ++i)
      if (std::to_integer<unsigned>(data[i]) > 1)
        fail(zarr::errc::invalid_value, std::string(where) + ": element " + std::to_string(first + i) +
                                            ": expected a bool byte (0 or 1), got " + std::to_string(std::to_integer<unsigned>(data[i])));
    return;
  }
  if (value_bits(t) >= 8) return;
  if (t.kind == dtype_kind::signed_integer) {
    const int shift = 8 - t.bits;
    for (auto& b : data)
      b = static_cast<std::byte>(static_cast<std::int8_t>(static_cast<std::uint8_t>(std::to_integer<unsigned>(b) << shift)) >> shift);
  } else {
    const auto mask = static_cast<std::byte>((1u << value_bits(t)) - 1);
    for (auto& b : data) b &= mask;
  }
}

// --- npy ----------------------------------------------------------------------------------

std::optional<std::string> npy_descr(data_type type, zarr::time_resolution time) {
  switch (type) {
    // NumPy's datetime64 and timedelta64 with unit and multiple; "<M8" is the generic unit.
    case data_type::numpy_datetime64:
    case data_type::numpy_timedelta64: {
      const std::string code = type == data_type::numpy_datetime64 ? "<M8" : "<m8";
      return time.unit == zarr::time_unit::generic ? code : code + zarr::resolution_text(time);
    }
    case data_type::bool_: return "|b1";
    case data_type::int8: return "|i1";
    case data_type::uint8: return "|u1";
    case data_type::int16: return "<i2";
    case data_type::int32: return "<i4";
    case data_type::int64: return "<i8";
    case data_type::uint16: return "<u2";
    case data_type::uint32: return "<u4";
    case data_type::uint64: return "<u8";
    case data_type::float16: return "<f2";
    case data_type::float32: return "<f4";
    case data_type::float64: return "<f8";
    case data_type::complex64: return "<c8";
    case data_type::complex128: return "<c16";
    default: return std::nullopt;
  }
}

namespace {

std::string shape_tuple(std::span<const std::uint64_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

[[noreturn]] void no_npy(data_type type) {
  fail(zarr::errc::unsupported, "format npy: NumPy has no " + std::string(zarr::name(type)) + "; use --format raw or --format json");
}

}  // namespace

namespace {

// A version 1.0 header whose descr is the Python literal `descr`.
std::string npy_header_of(const std::string& descr, std::span<const std::uint64_t> shape) {
  std::string dict = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  // magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64 bytes.
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  return out + dict;
}

// A NumPy dtype in Zarr v2's JSON form ("<U4", or fields [["x", "<f4"], ["y", [...]]]) as the
// Python literal NumPy's descr is: strings quoted, fields as tuples. Version 1.0 headers are
// latin-1 text: field names of other characters are refused.
namespace json = boost::json;

std::string python_string(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
      fail(zarr::errc::unsupported, "format npy: expected struct field names of printable ASCII characters, got " +
                                        json::serialize(json::value(s)));
    if (c == '\\' || c == '\'') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

std::string python_descr(const json::value& dtype) {
  if (const auto* s = dtype.if_string()) return python_string(*s);
  std::string out = "[";
  for (const auto& field : dtype.as_array()) {
    const auto& pair = field.as_array();
    out += (out.size() > 1 ? ", (" : "(") + python_string(pair.at(0).as_string()) + ", " + python_descr(pair.at(1)) + ")";
  }
  return out + "]";
}

// The NumPy dtype of a sized type: Zarr v2's, and for an optional type the fields of its layout,
// the value then a bool that says whether it is there (docs/decisions.md 71).
json::value npy_dtype(const zarr::data_type_spec& spec) {
  if (spec.type != data_type::optional) return zarr::v2_sized_dtype(spec, '<');
  const auto& inner = zarr::optional_value_type(spec.layout);
  json::value value;
  if (zarr::is_sized(inner.type)) {
    value = npy_dtype(inner);
  } else if (const auto d = npy_descr(inner.type, inner.time)) {
    value = json::string(*d);
  } else {
    no_npy(inner.type);
  }
  return json::array{json::array{"value", std::move(value)}, json::array{"valid", "|b1"}};
}

}  // namespace

std::string npy_header(data_type type, zarr::time_resolution time, std::span<const std::uint64_t> shape) {
  const auto descr = npy_descr(type, time);
  if (!descr) no_npy(type);
  return npy_header_of("'" + *descr + "'", shape);
}

std::string npy_header(const zarr::data_type_spec& spec, std::span<const std::uint64_t> shape) {
  return npy_header_of(python_descr(npy_dtype(spec)), shape);
}

bool read_npy_header(std::istream& in, data_type type, zarr::time_resolution time, std::span<const std::uint64_t> shape,
                     std::string_view where) {
  const std::string w(where);
  char magic[8];
  if (!in.read(magic, 8) || std::string_view(magic, 6) != "\x93NUMPY")
    fail(zarr::errc::invalid_value, w + ": expected a NumPy .npy file, got no \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(magic[6]);
  std::size_t length = 0;
  if (major == 1) {
    unsigned char l[2];
    if (!in.read(reinterpret_cast<char*>(l), 2)) fail(zarr::errc::invalid_value, w + ": truncated .npy header");
    length = l[0] | (std::size_t{l[1]} << 8);
  } else if (major == 2 || major == 3) {
    unsigned char l[4];
    if (!in.read(reinterpret_cast<char*>(l), 4)) fail(zarr::errc::invalid_value, w + ": truncated .npy header");
    length = l[0] | (std::size_t{l[1]} << 8) | (std::size_t{l[2]} << 16) | (std::size_t{l[3]} << 24);
  } else {
    fail(zarr::errc::unsupported, w + ": expected .npy version 1, 2 or 3, got " + std::to_string(major));
  }
  if (length > (1u << 24)) fail(zarr::errc::invalid_value, w + ": .npy header of " + std::to_string(length) + " bytes");
  std::string header(length, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(length))) fail(zarr::errc::invalid_value, w + ": truncated .npy header");

  // The value text of a key of the header's Python dict literal.
  const auto value_of = [&](std::string_view key) -> std::string_view {
    for (const char q : {'\'', '"'}) {
      const auto k = header.find(std::string(1, q) + std::string(key) + std::string(1, q));
      if (k == std::string::npos) continue;
      auto p = header.find(':', k);
      if (p == std::string::npos) break;
      ++p;
      while (p < header.size() && header[p] == ' ') ++p;
      std::size_t end = p;
      if (p < header.size() && (header[p] == '\'' || header[p] == '"')) {
        end = header.find(header[p], p + 1);
        return end == std::string::npos ? std::string_view() : std::string_view(header).substr(p + 1, end - p - 1);
      }
      if (p < header.size() && header[p] == '(') {
        end = header.find(')', p);
        return end == std::string::npos ? std::string_view() : std::string_view(header).substr(p, end - p + 1);
      }
      while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
      return std::string_view(header).substr(p, end - p);
    }
    fail(zarr::errc::invalid_value, w + ": .npy header has no '" + std::string(key) + "'");
  };

  const auto want = npy_descr(type, time);
  if (!want) no_npy(type);
  const auto descr = value_of("descr");
  const std::string_view want_code = std::string_view(*want).substr(1);
  const bool one_byte = zarr::info(type).size == 1;
  if (descr.size() < 2 || descr.substr(1) != want_code || !(descr[0] == '<' || descr[0] == '|' || descr[0] == '=' || descr[0] == '>') ||
      (descr[0] == '|' && !one_byte))
    fail(zarr::errc::invalid_value, w + ": expected dtype '" + *want + "' for " + std::string(zarr::name(type)) +
                                        ", got '" + std::string(descr) + "'");
  constexpr bool native_big = std::endian::native == std::endian::big;
  const bool data_big = descr[0] == '>' || (descr[0] == '=' && native_big);
  const bool swap = !one_byte && data_big != native_big;
  const auto fortran = value_of("fortran_order");
  std::vector<std::uint64_t> got;
  const auto tuple = value_of("shape");
  for (std::size_t i = 0; i < tuple.size();) {
    if (tuple[i] >= '0' && tuple[i] <= '9') {
      std::uint64_t v = 0;
      const auto r = std::from_chars(tuple.data() + i, tuple.data() + tuple.size(), v);
      got.push_back(v);
      i = static_cast<std::size_t>(r.ptr - tuple.data());
    } else {
      ++i;
    }
  }
  if (!std::equal(got.begin(), got.end(), shape.begin(), shape.end()))
    fail(zarr::errc::invalid_value, w + ": expected shape " + shape_tuple(shape) + ", got " + shape_tuple(got));
  std::size_t long_dims = 0;
  for (const auto d : got) long_dims += d > 1;
  if (fortran.starts_with("True") && long_dims > 1)
    fail(zarr::errc::unsupported, w + ": expected C order (fortran_order False), got Fortran order");
  return swap;
}

}  // namespace zarr_cli
