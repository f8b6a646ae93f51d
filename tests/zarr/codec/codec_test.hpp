// Helpers shared by the codec tests: chunk specs, typed buffers, chains from JSON text.
#pragma once
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.builder;
import zarr.bytes;

namespace zarr_test {

inline zarr::chunk_spec spec(std::vector<std::uint64_t> shape, zarr::data_type type) {
  zarr::chunk_spec s;
  s.shape = std::move(shape);
  s.type = type;
  s.fill = zarr::scalar{type, {}};
  return s;
}

inline zarr::codec_chain chain(std::string_view codecs, const zarr::chunk_spec& decoded) {
  return zarr::codec_chain(boost::json::parse(codecs), decoded);
}

// The bytes of a vector of trivially copyable values, in memory order.
template <class T>
zarr::bytes to_bytes(const std::vector<T>& values) {
  zarr::bytes out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <class T>
std::vector<T> from_bytes(std::span<const std::byte> in) {
  std::vector<T> out(in.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), in.data(), out.size() * sizeof(T));
  return out;
}

// Bytes written out by hand: octets({0x1f, 0x8b}).
inline zarr::bytes octets(std::initializer_list<unsigned> values) {
  zarr::bytes out;
  for (auto v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// Bytes from hex digits: from_hex("1f8b").
inline zarr::bytes from_hex(std::string_view hex) {
  zarr::bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::byte>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

inline zarr::bytes octets(std::string_view text) {
  zarr::bytes out(text.size());
  if (!text.empty()) std::memcpy(out.data(), text.data(), text.size());
  return out;
}

inline zarr::bytes random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  zarr::bytes out(n);
  for (auto& b : out) b = static_cast<std::byte>(gen() & 0xFF);
  return out;
}

// Bytes that compress: a few repeating patterns with some noise.
inline zarr::bytes compressible_bytes(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  zarr::bytes out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::byte>((i % 7 == 0 ? gen() & 0x3 : 0) + (i / 64) % 5);
  return out;
}

inline bool same(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

inline zarr::bytes hex(std::string_view text) { return from_hex(text); }

// A bytes -> bytes codec (its JSON) alone after `bytes`, in a chain of uint8 chunks of `n` bytes.
inline zarr::codec_chain bytes_chain(std::string_view codec, std::size_t n) {
  return chain(R"([{"name": "bytes"}, )" + std::string(codec) + "]", spec({n}, zarr::data_type::uint8));
}

// The text the numcodecs encodings in the tests were made of: b"numcodecs " * 6.
inline std::string numcodecs_text() {
  std::string s;
  for (int i = 0; i < 6; ++i) s += "numcodecs ";
  return s;
}

// A compressor (its JSON) refuses a stream that decodes to more than a chunk holds before
// allocating it (1 MiB of zeros for a 16-byte chunk), and a stream cut short.
inline void check_bomb_refused(std::string_view codec) {
  const zarr::bytes zeros(1 << 20, std::byte{0});
  const auto big = bytes_chain(codec, zeros.size()).encode(std::span<const std::byte>(zeros));
  ZARR_CHECK_ERROR(bytes_chain(codec, 16).decode(big), zarr::errc::corrupt_chunk, "(the decoding limit)");
  auto cut = big;
  cut.resize(cut.size() / 2);
  BOOST_CHECK_THROW(static_cast<void>(bytes_chain(codec, zeros.size()).decode(cut)), zarr::error);
}

}  // namespace zarr_test
