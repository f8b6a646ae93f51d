// zarr.time: exact conversions of time counts and ISO 8601 text (datatype-numpy.datetime64.md,
// datatype-numpy.timedelta64.md; docs/decisions.md 46).
module;
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
module zarr.time;

namespace zarr {

namespace {

using i128 = __int128;

// The length of one unit in attoseconds; 0 for the calendar units and generic.
constexpr i128 attoseconds(time_unit u) noexcept {
  constexpr i128 s = 1'000'000'000'000'000'000;
  switch (u) {
    case time_unit::W: return 7 * 86400 * s;
    case time_unit::D: return 86400 * s;
    case time_unit::h: return 3600 * s;
    case time_unit::m: return 60 * s;
    case time_unit::s: return s;
    case time_unit::ms: return s / 1'000;
    case time_unit::us: return s / 1'000'000;
    case time_unit::ns: return s / 1'000'000'000;
    case time_unit::ps: return 1'000'000;
    case time_unit::fs: return 1'000;
    case time_unit::as: return 1;
    default: return 0;
  }
}

constexpr bool is_calendar(time_unit u) noexcept { return u == time_unit::Y || u == time_unit::M; }

constexpr i128 floor_div(i128 a, i128 b) noexcept {
  const i128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
i128 days_from_civil(i128 y, int m, int d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const i128 era = floor_div(y, 400);
  const i128 yoe = y - era * 400;
  const int mp = (m + 9) % 12;
  const i128 doy = (153 * mp + 2) / 5 + d - 1;
  const i128 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct civil {
  i128 year;
  int month;  // 1-12
  int day;    // 1-31
};
civil civil_from_days(i128 z) noexcept {
  z += 719468;
  const i128 era = floor_div(z, 146097);
  const i128 doe = z - era * 146097;
  const i128 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const i128 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const i128 mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

std::string text_of(i128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  while (v != 0) {
    const int d = static_cast<int>(v % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (d < 0 ? -d : d)));
    v /= 10;
  }
  return negative ? "-" + digits : digits;
}

std::string padded(i128 v, std::size_t width) {
  std::string t = text_of(v < 0 ? -v : v);
  const std::size_t room = v < 0 ? (width > 0 ? width - 1 : 0) : width;  // printf("%04d"): the sign takes a digit
  if (t.size() < room) t.insert(0, room - t.size(), '0');
  return v < 0 ? "-" + t : t;
}

std::string value_text(std::int64_t count, time_resolution r) {
  return std::to_string(count) + " " + resolution_text(r);
}

enum class failure : std::uint8_t { none, inexact, overflow };

// count (not NaT) * num / den exactly, or why not; num and den are coprime and positive.
failure scale_exactly(std::int64_t count, i128 num, i128 den, std::int64_t& result) noexcept {
  if (count % den != 0) return failure::inexact;
  const i128 q = count / den;
  const i128 limit = INT64_MAX;
  if (q != 0 && (num > limit || (q > 0 ? q > limit / num : -q > limit / num))) return failure::overflow;
  const i128 v = q * num;
  if (v <= INT64_MIN) return failure::overflow;  // INT64_MIN is NaT
  result = static_cast<std::int64_t>(v);
  return failure::none;
}

i128 gcd(i128 a, i128 b) noexcept {
  while (b != 0) {
    const i128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

failure scale_by(std::int64_t count, i128 from_length, i128 to_length, std::int64_t& result) noexcept {
  const i128 g = gcd(from_length, to_length);
  return scale_exactly(count, from_length / g, to_length / g, result);
}

// Months of a calendar unit.
i128 months(time_unit u) noexcept { return u == time_unit::Y ? 12 : 1; }

failure convert_one(data_type type, std::int64_t count, time_resolution from, time_resolution to,
                    std::int64_t& result) noexcept {
  if (count == not_a_time) {
    result = not_a_time;
    return failure::none;
  }
  if (from.unit == time_unit::generic || to.unit == time_unit::generic) return failure::inexact;
  const i128 fs = from.scale_factor, ts = to.scale_factor;
  if (is_calendar(from.unit) && is_calendar(to.unit)) return scale_by(count, months(from.unit) * fs, months(to.unit) * ts, result);
  if (!is_calendar(from.unit) && !is_calendar(to.unit))
    return scale_by(count, attoseconds(from.unit) * fs, attoseconds(to.unit) * ts, result);
  if (type != data_type::numpy_datetime64) return failure::inexact;  // no fixed length
  if (is_calendar(from.unit)) {
    // The first day of the month `count` stands for, in days, then in `to`.
    const i128 total = static_cast<i128>(count) * fs * months(from.unit);
    const i128 days = days_from_civil(1970 + floor_div(total, 12), static_cast<int>(total - floor_div(total, 12) * 12) + 1, 1);
    if (days < INT64_MIN + 1 || days > INT64_MAX) return failure::overflow;
    return scale_by(static_cast<std::int64_t>(days), attoseconds(time_unit::D), attoseconds(to.unit) * ts, result);
  }
  // A whole day, the first of a month (of January for years), a whole number of `to`'s.
  std::int64_t days = 0;
  if (const auto f = scale_by(count, attoseconds(from.unit) * fs, attoseconds(time_unit::D), days); f != failure::none)
    return f;
  const auto c = civil_from_days(days);
  if (c.day != 1) return failure::inexact;
  const i128 total = (c.year - 1970) * 12 + (c.month - 1);
  if (total < INT64_MIN + 1 || total > INT64_MAX) return failure::overflow;
  return scale_by(static_cast<std::int64_t>(total), 1, months(to.unit) * ts, result);
}

[[noreturn]] void throw_failure(failure f, std::int64_t count, time_resolution from, time_resolution to,
                                const std::string& where) {
  if (f == failure::overflow)
    throw error(errc::out_of_range, where + ": expected a value within the range of " + resolution_text(to) + ", got " +
                                        value_text(count, from));
  throw error(errc::invalid_value,
              where + ": expected a value that " + resolution_text(to) + " holds exactly, got " + value_text(count, from));
}

}  // namespace

std::string resolution_text(time_resolution r) {
  if (r.unit == time_unit::generic || r.scale_factor == 1) return "[" + std::string(time_unit_name(r.unit)) + "]";
  return "[" + std::to_string(r.scale_factor) + std::string(time_unit_name(r.unit)) + "]";
}

void convert_time_counts(data_type type, std::span<const std::int64_t> in, time_resolution from,
                         std::span<std::int64_t> out, time_resolution to, std::string_view where) {
  if (!is_time(type) || in.size() != out.size())
    throw error(errc::invalid_argument, std::string(where) + ": expected counts of a time type in buffers of one size, got " +
                                            std::string(name(type)) + ", " + std::to_string(in.size()) + " and " +
                                            std::to_string(out.size()) + " elements");
  for (std::size_t i = 0; i < in.size(); ++i)
    if (const auto f = convert_one(type, in[i], from, to, out[i]); f != failure::none)
      throw_failure(f, in[i], from, to, std::string(where) + ", element " + std::to_string(i));
}

std::int64_t convert_time_count(data_type type, std::int64_t count, time_resolution from, time_resolution to,
                                std::string_view where) {
  if (!is_time(type))
    throw error(errc::invalid_argument, std::string(where) + ": expected a count of a time type, got " + std::string(name(type)));
  std::int64_t out = 0;
  if (const auto f = convert_one(type, count, from, to, out); f != failure::none)
    throw_failure(f, count, from, to, std::string(where));
  return out;
}

std::string datetime_iso8601(std::int64_t count, time_resolution r, std::string_view where) {
  if (count == not_a_time) return "NaT";
  if (r.unit == time_unit::generic)
    throw error(errc::invalid_value, std::string(where) + ": expected NaT for the generic unit, got " + std::to_string(count));
  const i128 total = static_cast<i128>(count) * r.scale_factor;
  if (r.unit == time_unit::Y) return padded(1970 + total, 4);
  if (r.unit == time_unit::M) {
    const i128 years = floor_div(total, 12);
    return padded(1970 + years, 4) + "-" + padded(total - years * 12 + 1, 2);
  }
  // Days and what is left of the last day, in units.
  const i128 per_day = attoseconds(time_unit::D) / attoseconds(r.unit);  // W: 0
  const i128 days = r.unit == time_unit::W ? total * 7 : floor_div(total, per_day == 0 ? 1 : per_day);
  const i128 rest = r.unit == time_unit::W || r.unit == time_unit::D ? 0 : total - days * per_day;
  const auto c = civil_from_days(days);
  std::string s = padded(c.year, 4) + "-" + padded(c.month, 2) + "-" + padded(c.day, 2);
  if (r.unit == time_unit::W || r.unit == time_unit::D) return s;
  // The rest in attoseconds, then field by field.
  const i128 as = rest * attoseconds(r.unit);
  const i128 second = attoseconds(time_unit::s);
  const i128 seconds = as / second, fraction = as % second;
  s += "T" + padded(seconds / 3600, 2);
  if (r.unit == time_unit::h) return s;
  s += ":" + padded(seconds / 60 % 60, 2);
  if (r.unit == time_unit::m) return s;
  s += ":" + padded(seconds % 60, 2);
  if (r.unit == time_unit::s) return s;
  int digits = 0;
  switch (r.unit) {
    case time_unit::ms: digits = 3; break;
    case time_unit::us: digits = 6; break;
    case time_unit::ns: digits = 9; break;
    case time_unit::ps: digits = 12; break;
    case time_unit::fs: digits = 15; break;
    default: digits = 18; break;
  }
  i128 shown = fraction;
  for (int i = digits; i < 18; ++i) shown /= 10;
  return s + "." + padded(shown, static_cast<std::size_t>(digits));
}

}  // namespace zarr
