// The packbits codec: bit layouts written out by hand, agreement with a bit-at-a-time
// reference for every supported type and many bit ranges and lengths, padding bytes,
// corrupt input, configuration errors, and packbits as the inner codec of a shard.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.codec.packbits;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.bytes;
import zarr.nd;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

zarr::codec_chain packbits(std::string_view configuration, std::vector<std::uint64_t> shape, data_type type) {
  return chain(std::string(R"([{"name":"packbits","configuration":)") + std::string(configuration) + "}]",
               spec(std::move(shape), type));
}

void check_invalid(std::string_view configuration, data_type type, std::string_view message) {
  ZARR_CHECK_ERROR(packbits(configuration, {4}, type), errc::invalid_metadata, message);
}

template <class T>
zarr::bytes values(std::initializer_list<T> v) {
  return to_bytes(std::vector<T>(v));
}

// The spec read literally, one bit at a time: component i's bits first..last are bits
// [i*b, (i+1)*b) of the sequence; sequence bit j is bit j % 8 of byte j / 8.
zarr::bytes reference_pack(std::span<const std::byte> in, data_type type, int first, int last) {
  const auto layout = *zarr::packbits_layout_of(type);
  const auto size = static_cast<std::size_t>(layout.component_size);
  const std::size_t count = in.size() / size;
  const auto b = static_cast<std::size_t>(last - first + 1);
  zarr::bytes out((count * b + 7) / 8, std::byte{0});
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t v = 0;
    std::memcpy(&v, in.data() + i * size, size);  // a little-endian host
    for (std::size_t t = 0; t < b; ++t)
      if ((v >> (static_cast<std::size_t>(first) + t)) & 1) {
        const auto j = i * b + t;
        out[j / 8] |= static_cast<std::byte>(1u << (j % 8));
      }
  }
  return out;
}

zarr::bytes reference_unpack(std::span<const std::byte> packed, std::size_t count, data_type type, int first, int last) {
  const auto layout = *zarr::packbits_layout_of(type);
  const auto size = static_cast<std::size_t>(layout.component_size);
  const auto b = static_cast<std::size_t>(last - first + 1);
  // The time types are int64 (as zarrs writes them): sign-extended like the signed integers.
  const bool is_signed = zarr::info(type).kind == zarr::dtype_kind::signed_integer || zarr::is_time(type);
  zarr::bytes out(count * size);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t v = 0;
    for (std::size_t t = 0; t < b; ++t) {
      const auto j = i * b + t;
      if ((static_cast<unsigned>(packed[j / 8]) >> (j % 8)) & 1) v |= std::uint64_t{1} << (static_cast<std::size_t>(first) + t);
    }
    if (is_signed && ((v >> last) & 1))
      for (int bit = last + 1; bit < 64; ++bit) v |= std::uint64_t{1} << bit;
    std::memcpy(out.data() + i * size, &v, size);
  }
  return out;
}

// Random components that bits first..last hold exactly (valid in-memory values of the type).
zarr::bytes representable(data_type type, std::size_t elements, int first, int last, unsigned seed) {
  const auto layout = *zarr::packbits_layout_of(type);
  const auto count = elements * static_cast<std::size_t>(layout.components);
  const auto raw = random_bytes(count * static_cast<std::size_t>(layout.component_size), seed);
  return reference_unpack(reference_pack(raw, type, first, last), count, type, first, last);
}

const std::vector<data_type> supported{
    data_type::bool_,     data_type::int2,          data_type::uint2,         data_type::int4,
    data_type::uint4,     data_type::float4_e2m1fn, data_type::float6_e2m3fn, data_type::float6_e3m2fn,
    data_type::int8,      data_type::uint8,         data_type::int16,         data_type::uint16,
    data_type::int32,     data_type::uint32,        data_type::int64,         data_type::uint64,
    data_type::float32,   data_type::float64,       data_type::bfloat16,      data_type::complex64,
    data_type::complex128, data_type::complex_float4_e2m1fn, data_type::complex_float6_e2m3fn,
    data_type::complex_float6_e3m2fn, data_type::complex_float8_e3m4, data_type::complex_float8_e4m3,
    data_type::complex_float8_e4m3b11fnuz, data_type::complex_float8_e4m3fnuz, data_type::complex_float8_e5m2,
    data_type::complex_float8_e5m2fnuz, data_type::complex_float8_e8m0fnu, data_type::complex_float16,
    data_type::complex_bfloat16, data_type::numpy_datetime64, data_type::numpy_timedelta64};

// Every bit kept: the bytes codec's little-endian layout, and back.
void packs_as_the_bytes_codec_lays_out(data_type type) {
  BOOST_TEST_CONTEXT(zarr::name(type)) {
    const auto raw = random_bytes(37 * static_cast<std::size_t>(zarr::info(type).size), 5);
    const auto packed = packbits("{}", {37}, type).encode(raw);
    const auto laid_out = chain(R"([{"name":"bytes","configuration":{"endian":"little"}}])", spec({37}, type)).encode(raw);
    BOOST_TEST((packed == laid_out));
    BOOST_TEST((packbits("{}", {37}, type).decode(packed) == raw));
  }
}

std::string bits_json(int first, int last, std::string_view padding = "none") {
  return R"({"padding_encoding":")" + std::string(padding) + R"(","first_bit":)" + std::to_string(first) +
         R"(,"last_bit":)" + std::to_string(last) + "}";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(packbits_codec)

BOOST_AUTO_TEST_CASE(packs_bool_one_bit_each_least_significant_first) {
  const auto c = packbits("{}", {10}, data_type::bool_);
  const auto in = octets({1, 0, 1, 1, 0, 0, 0, 1, 1, 1});
  // byte 0: elements 0..7 in bits 0..7 = 0b10001101; byte 1: elements 8, 9, then 6 zero bits
  BOOST_TEST(same(c.encode(in), octets({0x8D, 0x03})));
  BOOST_TEST(same(c.decode(octets({0x8D, 0x03})), in));
  BOOST_TEST(*c.encoded_size() == 2u);
}

BOOST_AUTO_TEST_CASE(packs_int2_as_twos_complement_pairs_and_sign_extends_on_decode) {
  const auto c = packbits("{}", {5}, data_type::int2);
  const auto in = values<std::int8_t>({-2, -1, 0, 1, 1});
  // codes 10, 11, 00, 01 | 01
  BOOST_TEST(same(c.encode(in), octets({0b01001110, 0b01})));
  BOOST_TEST(same(c.decode(octets({0b01001110, 0b01})), in));
}

BOOST_AUTO_TEST_CASE(packs_int4_and_uint4_as_nibbles_low_first) {
  const auto i4 = values<std::int8_t>({-8, 7, -1});
  BOOST_TEST(same(packbits("{}", {3}, data_type::int4).encode(i4), octets({0x78, 0x0F})));
  BOOST_TEST(same(packbits("{}", {3}, data_type::int4).decode(octets({0x78, 0x0F})), i4));
  const auto u4 = values<std::uint8_t>({1, 2, 3, 4, 15});
  BOOST_TEST(same(packbits("{}", {5}, data_type::uint4).encode(u4), octets({0x21, 0x43, 0x0F})));
  BOOST_TEST(same(packbits("{}", {5}, data_type::uint4).decode(octets({0x21, 0x43, 0x0F})), u4));
}

BOOST_AUTO_TEST_CASE(packs_float6_four_values_in_three_bytes) {
  const auto c = packbits("{}", {4}, data_type::float6_e2m3fn);
  const auto in = octets({0x3F, 0x01, 0x20, 0x15});  // -7.5, 0.125, -0.0, 2.5 in e2m3
  // 0x3F | 0x01 << 6 | 0x20 << 12 | 0x15 << 18 = 0x56007F
  BOOST_TEST(same(c.encode(in), octets({0x7F, 0x00, 0x56})));
  BOOST_TEST(same(c.decode(octets({0x7F, 0x00, 0x56})), in));
}

BOOST_AUTO_TEST_CASE(packs_a_partial_bit_range_and_sign_extends_from_last_bit) {
  // int8, bits 2..5: -32 = 0b11100000 -> 1000, 28 = 0b00011100 -> 0111, -4 = 0b11111100 -> 1111, 0 -> 0000
  const auto c = packbits(R"({"first_bit": 2, "last_bit": 5})", {4}, data_type::int8);
  const auto in = values<std::int8_t>({-32, 28, -4, 0});
  BOOST_TEST(same(c.encode(in), octets({0x78, 0x0F})));
  BOOST_TEST(same(c.decode(octets({0x78, 0x0F})), in));
  // int32, bits 0..11: -2048 = 0x800, 2047 = 0x7FF, -1 = 0xFFF
  const auto c32 = packbits(R"({"last_bit": 11})", {3}, data_type::int32);
  const auto in32 = values<std::int32_t>({-2048, 2047, -1});
  BOOST_TEST(same(c32.encode(in32), octets({0x00, 0xF8, 0x7F, 0xFF, 0x0F})));
  BOOST_TEST(same(c32.decode(octets({0x00, 0xF8, 0x7F, 0xFF, 0x0F})), in32));
  // uint16, bits 4..9, zero-extended: 0x03F0 -> 0x3F, 0x0150 -> 0x15, 0x0010 -> 0x01
  const auto c16 = packbits(R"({"first_bit": 4, "last_bit": 9})", {3}, data_type::uint16);
  const auto in16 = values<std::uint16_t>({0x03F0, 0x0150, 0x0010});
  BOOST_TEST(same(c16.encode(in16), octets({0x7F, 0x15, 0x00})));
  BOOST_TEST(same(c16.decode(octets({0x7F, 0x15, 0x00})), in16));
}

BOOST_AUTO_TEST_CASE(keeps_the_high_half_of_float32_and_zero_fills_the_rest) {
  // bits 16..31 of a float32 are its bfloat16 truncation; decoding zero-extends the low bits.
  const auto c = packbits(R"({"first_bit": 16})", {2}, data_type::float32);
  const auto in = values<float>({1.00390625F, -2.5F});  // 0x3F808000, 0xC0200000
  BOOST_TEST(same(c.encode(in), octets({0x80, 0x3F, 0x20, 0xC0})));
  BOOST_TEST(from_bytes<float>(c.decode(c.encode(in))) == (std::vector<float>{1.0F, -2.5F}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(packs_complex_real_then_imaginary_with_the_range_per_component) {
  const auto c = packbits(R"({"first_bit": 24})", {2}, data_type::complex64);
  BOOST_TEST(*c.array_to_bytes().encoded_size() == 4u);
  const auto in = values<float>({2.0F, -2.0F, 0.0F, -0.0F});  // 0x40000000, 0xC0000000, 0, 0x80000000
  BOOST_TEST(same(c.encode(in), octets({0x40, 0xC0, 0x00, 0x80})));
  BOOST_TEST(same(c.decode(octets({0x40, 0xC0, 0x00, 0x80})), in));
  // 1.5 = 0x3FC00000 keeps only its top byte: 0x3F000000 = 0.5
  BOOST_TEST(from_bytes<float>(c.decode(c.encode(values<float>({1.5F, 1.0F, 0.0F, 0.0F}))))[0] == 0.5F);
}

BOOST_AUTO_TEST_CASE(matches_the_bit_by_bit_reference_for_every_supported_type) {
  unsigned seed = 1;
  for (const auto type : supported) {
    const auto n = zarr::packbits_layout_of(type)->bits;
    std::mt19937 gen(static_cast<unsigned>(type) + 100);
    std::vector<std::pair<int, int>> ranges{{0, n - 1}, {0, 0}, {n - 1, n - 1}};
    for (int r = 0; r < 4; ++r) {
      const int first = static_cast<int>(gen() % static_cast<unsigned>(n));
      ranges.emplace_back(first, first + static_cast<int>(gen() % static_cast<unsigned>(n - first)));
    }
    if (n >= 8) ranges.insert(ranges.end(), {{0, 1}, {1, 2}, {3, 6}, {0, 3}, {4, 7}});  // the 1/2/4-bit fast paths
    for (const auto& [first, last] : ranges)
      for (std::size_t elements : {0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100, 1001}) {
        BOOST_TEST_CONTEXT(zarr::name(type) << " bits " << first << ".." << last << ", " << elements << " elements") {
          const auto c = packbits(bits_json(first, last), {elements}, type);
          const auto data = representable(type, elements, first, last, seed++);
          const auto encoded = c.encode(data);
          BOOST_TEST_REQUIRE(same(encoded, reference_pack(data, type, first, last)));
          BOOST_TEST_REQUIRE(encoded.size() == *c.encoded_size());
          BOOST_TEST_REQUIRE(same(c.decode(encoded), data));
        }
      }
  }
}

BOOST_AUTO_TEST_CASE(round_trips_random_values_of_every_type_exactly_with_every_bit) {
  for (const auto type : supported) {
    const auto s = spec({37, 5}, type);
    const auto n = zarr::packbits_layout_of(type)->bits;
    const auto data = representable(type, 37 * 5, 0, n - 1, 7);  // random; sub-byte values normalised
    for (auto padding : {"none", "first_byte", "last_byte"}) {
      const auto c = packbits(std::string(R"({"padding_encoding":")") + padding + "\"}", {37, 5}, type);
      BOOST_TEST(same(c.decode(c.encode(data)), data), zarr::name(type) << " " << padding);
    }
  }
}

BOOST_AUTO_TEST_CASE(truncates_float_bits_outside_the_range_as_the_spec_says) {
  const auto raw = random_bytes(64 * 8, 5);
  for (const auto type : {data_type::float64, data_type::bfloat16, data_type::float6_e3m2fn}) {
    const auto layout = *zarr::packbits_layout_of(type);
    const auto in = representable(type, 64, 0, layout.bits - 1, 9);
    const int first = 1;
    const int last = layout.bits - 2;
    const auto c = packbits(bits_json(first, last), {64}, type);
    BOOST_TEST(same(c.decode(c.encode(in)), reference_unpack(reference_pack(in, type, first, last), 64, type, first, last)));
  }
}

BOOST_AUTO_TEST_CASE(writes_and_checks_the_padding_byte) {
  const auto in = octets({1, 0, 1, 1, 0, 0, 0, 1, 1, 1});
  const auto first = packbits(R"({"padding_encoding": "first_byte"})", {10}, data_type::bool_);
  const auto last = packbits(R"({"padding_encoding": "last_byte"})", {10}, data_type::bool_);
  BOOST_TEST(same(first.encode(in), octets({6, 0x8D, 0x03})));
  BOOST_TEST(same(last.encode(in), octets({0x8D, 0x03, 6})));
  BOOST_TEST(*first.encoded_size() == 3u);
  BOOST_TEST(same(first.decode(octets({6, 0x8D, 0x03})), in));
  BOOST_TEST(same(last.decode(octets({0x8D, 0x03, 6})), in));
  // whole bytes: 0 padding bits; no elements: the padding byte alone
  BOOST_TEST(same(packbits(R"({"padding_encoding": "last_byte"})", {2}, data_type::uint4).encode(octets({1, 2})), octets({0x21, 0})));
  const auto empty = packbits(R"({"padding_encoding": "first_byte"})", {0}, data_type::int2);
  BOOST_TEST(same(empty.encode(zarr::bytes{}), octets({0})));
  BOOST_TEST(empty.decode(octets({0})).empty());
  BOOST_TEST(packbits(R"({"padding_encoding": "none"})", {0}, data_type::int2).encode(zarr::bytes{}).empty());
  // float6 x 3 = 18 bits: 6 padding bits
  BOOST_TEST((packbits(R"({"padding_encoding": "first_byte"})", {3}, data_type::float6_e3m2fn).encode(octets({1, 2, 3})).front() ==
             std::byte{6}));
}

BOOST_AUTO_TEST_CASE(rejects_corrupt_input) {
  const auto none = packbits("{}", {10}, data_type::bool_);
  ZARR_CHECK_ERROR(none.decode(octets({0x8D})), errc::corrupt_chunk,
                   "codecs[0] (packbits): expected 2 bytes (10 elements of 1 bits), got 1");
  ZARR_CHECK_ERROR(none.decode(octets({0x8D, 0x03, 0x00})), errc::corrupt_chunk, "expected 2 bytes");
  const auto first = packbits(R"({"padding_encoding": "first_byte"})", {10}, data_type::bool_);
  ZARR_CHECK_ERROR(first.decode(octets({0x8D, 0x03})), errc::corrupt_chunk,
                   "expected 3 bytes (10 elements of 1 bits and a padding byte), got 2");
  ZARR_CHECK_ERROR(first.decode(octets({5, 0x8D, 0x03})), errc::corrupt_chunk,
                   "codecs[0] (packbits): expected a first byte of 6 padding bits, got 5");
  const auto last = packbits(R"({"padding_encoding": "last_byte"})", {10}, data_type::bool_);
  ZARR_CHECK_ERROR(last.decode(octets({0x8D, 0x03, 0})), errc::corrupt_chunk, "expected a last byte of 6 padding bits, got 0");
}

BOOST_AUTO_TEST_CASE(refuses_integers_that_the_chosen_bits_cannot_hold) {
  const auto c = packbits(R"({"last_bit": 3})", {3}, data_type::int8);
  ZARR_CHECK_ERROR(c.encode(values<std::int8_t>({7, -9, 0})), errc::out_of_range,
                   "codecs[0] (packbits): expected element 1 to fit in bits 0..3 of int8 (-8 to 7), got -9");
  const auto u = packbits(R"({"first_bit": 2, "last_bit": 4})", {2}, data_type::uint16);
  ZARR_CHECK_ERROR(u.encode(values<std::uint16_t>({28, 6})), errc::out_of_range,
                   "expected element 1 to fit in bits 2..4 of uint16 (a multiple of 4 from 0 to 28), got 6");
  const auto wide = packbits(R"({"first_bit": 1})", {1}, data_type::int64);
  ZARR_CHECK_ERROR(wide.encode(values<std::int64_t>({3})), errc::out_of_range,
                   "(a multiple of 2 from -9223372036854775808 to 9223372036854775806), got 3");
  // and a fill value they cannot hold is a metadata error
  auto s = spec({4}, data_type::uint8);
  s.fill = zarr::scalar::of(data_type::uint8, std::uint8_t{200});
  ZARR_CHECK_ERROR(chain(R"([{"name":"packbits","configuration":{"last_bit":6}}])", s), errc::invalid_metadata,
                   "codecs[0].configuration: expected bits 0..6 to hold the fill value of the array");
}

BOOST_AUTO_TEST_CASE(writes_every_member_in_its_json) {
  BOOST_TEST(boost::json::serialize(packbits("{}", {4}, data_type::int4).to_json()) ==
             R"([{"name":"packbits","configuration":{"padding_encoding":"none","first_bit":0,"last_bit":3}}])");
  BOOST_TEST(boost::json::serialize(packbits(R"({"padding_encoding":"last_byte","first_bit":null,"last_bit":null})", {4},
                                             data_type::complex128)
                                        .to_json()) ==
             R"([{"name":"packbits","configuration":{"padding_encoding":"last_byte","first_bit":0,"last_bit":63}}])");
  // a missing configuration is the defaults
  BOOST_TEST(*chain(R"(["packbits"])", spec({9}, data_type::bool_)).encoded_size() == 2u);
}

BOOST_AUTO_TEST_CASE(rejects_last_bit_below_first_bit) {
  check_invalid(R"({"first_bit": 3, "last_bit": 2})", data_type::uint8,
                "codecs[0].configuration.last_bit: expected last_bit >= first_bit (3), got 2");
}

BOOST_AUTO_TEST_CASE(rejects_bits_beyond_the_type) {
  check_invalid(R"({"last_bit": 4})", data_type::int4,
                "codecs[0].configuration.last_bit: expected an integer from first_bit to 3 (a int4 has 4 bits), got 4");
  check_invalid(R"({"last_bit": 32})", data_type::complex64,
                "codecs[0].configuration.last_bit: expected an integer from first_bit to 31 (a complex64 component has 32 bits), got 32");
  check_invalid(R"({"first_bit": 1})", data_type::bool_,
                "codecs[0].configuration.first_bit: expected an integer from 0 to 0 (a bool has 1 bits), got 1");
  check_invalid(R"({"first_bit": -1})", data_type::uint8,
                "codecs[0].configuration.first_bit: expected a non-negative integer or null, got -1");
  check_invalid(R"({"last_bit": "7"})", data_type::uint8,
                "codecs[0].configuration.last_bit: expected a non-negative integer or null, got \"7\"");
}

BOOST_AUTO_TEST_CASE(rejects_an_unknown_padding_encoding) {
  check_invalid(R"({"padding_encoding": "middle_byte"})", data_type::bool_,
                "codecs[0].configuration.padding_encoding: expected \"none\", \"first_byte\" or \"last_byte\", got \"middle_byte\"");
  check_invalid(R"({"padding_encoding": null})", data_type::bool_, "codecs[0].configuration.padding_encoding: expected");
  // schema.json's names: rejected, naming the README's (docs/decisions.md 22)
  check_invalid(R"({"padding_encoding": "start_byte"})", data_type::bool_,
                "(schema.json's \"start_byte\" is the README's \"first_byte\", docs/decisions.md 22), got \"start_byte\"");
  check_invalid(R"({"padding_encoding": "end_byte"})", data_type::bool_, "is the README's \"last_byte\"");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  check_invalid(R"({"bits": 4})", data_type::uint8, "codecs[0].configuration.bits: expected no such key");
  check_invalid(R"({"start_bit": 0})", data_type::uint8,
                "codecs[0].configuration.start_bit: expected \"first_bit\" (the README's name for this key; schema.json's "
                "\"start_bit\" is not accepted, docs/decisions.md 22)");
  check_invalid(R"({"end_bit": 3})", data_type::uint8, "codecs[0].configuration.end_bit: expected \"last_bit\"");
  check_invalid("[]", data_type::uint8, "codecs[0].configuration: expected an object, got []");
}

// float16 and the float8 types, outside the spec's list, pack their bit patterns as the
// other full-width types do (docs/decisions.md 31): as the bytes codec lays them out when
// every bit is kept, and first_bit/last_bit select bits of the pattern.
BOOST_AUTO_TEST_CASE(packs_float16_and_the_float8_types_as_their_bit_patterns) {
  for (const auto type : {data_type::float16, data_type::float8_e3m4, data_type::float8_e4m3, data_type::float8_e4m3b11fnuz,
                          data_type::float8_e4m3fnuz, data_type::float8_e5m2, data_type::float8_e5m2fnuz,
                          data_type::float8_e8m0fnu}) {
    packs_as_the_bytes_codec_lays_out(type);
  }
  // float16 1.0 (0x3C00) and 2.0 (0x4000), their exponents (bits 10-14) only: 01111 and 10000.
  const auto exponents = packbits(bits_json(10, 14), {2}, data_type::float16).encode(values<std::uint16_t>({0x3C00, 0x4000}));
  BOOST_TEST(same(exponents, octets({0x0F, 0x02})));
  // float8_e4m3 1.0 (0x38) and 2.0 (0x40), bits 3-6: 0111 and 1000.
  const auto e4m3 = packbits(bits_json(3, 6), {2}, data_type::float8_e4m3).encode(values<std::uint8_t>({0x38, 0x40}));
  BOOST_TEST(same(e4m3, octets({0x87})));
}

// The complex float8, float16 and bfloat16 types as each component's little-endian bits, the time
// types as int64, as zarrs writes them (docs/decisions.md 68).
BOOST_AUTO_TEST_CASE(packs_the_complex_small_floats_by_component_and_the_time_types_as_int64) {
  for (const auto type : {data_type::complex_float8_e4m3, data_type::complex_float16, data_type::complex_bfloat16,
                          data_type::numpy_datetime64, data_type::numpy_timedelta64}) {
    packs_as_the_bytes_codec_lays_out(type);
  }
  // complex_float16 1+2i (0x3C00, 0x4000), the exponents (bits 10-14) of each component:
  // 01111 then 10000, least significant bit first.
  const auto exponents =
      packbits(bits_json(10, 14), {1}, data_type::complex_float16).encode(values<std::uint16_t>({0x3C00, 0x4000}));
  BOOST_TEST(same(exponents, octets({0x0F, 0x02})));
  // complex_float8_e5m2 1-1i (0x3C, 0xBC), the sign bits only: 0 then 1.
  BOOST_TEST(same(packbits(bits_json(7, 7), {1}, data_type::complex_float8_e5m2).encode(values<std::uint8_t>({0x3C, 0xBC})),
                  octets({0x02})));
  // A timedelta64 of -2 and 5 in bits 0..7: 0xFE and 0x05, sign-extended back; 300 does not fit.
  const auto times = packbits(bits_json(0, 7), {2}, data_type::numpy_timedelta64);
  BOOST_TEST(same(times.encode(values<std::int64_t>({-2, 5})), octets({0xFE, 0x05})));
  BOOST_TEST(same(times.decode(octets({0xFE, 0x05})), values<std::int64_t>({-2, 5})));
  ZARR_CHECK_ERROR(times.encode(values<std::int64_t>({1, 300})), errc::out_of_range,
                   "expected element 1 to fit in bits 0..7 of numpy.timedelta64 (-128 to 127), got 300");
}

BOOST_AUTO_TEST_CASE(round_trips_as_the_inner_codec_of_a_shard_through_an_array) {
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "sharded.zarr");
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
      "shape": [20, 24], "data_type": "int4", "fill_value": -3,
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 12]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 3],
          "codecs": [{"name": "packbits"}],
          "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]})"));
  auto a = zarr::array::create(store, "q", meta);
  std::vector<std::int8_t> in(20 * 24);  // int4 values, converted exactly by the typed access
  std::mt19937 gen(3);
  for (auto& v : in) v = static_cast<std::int8_t>(static_cast<int>(gen() % 16) - 8);
  a.write<std::int8_t>(zarr::region::all(a.shape()), in);
  const auto back = zarr::array::open(store, "q");
  BOOST_TEST(back.read<std::int8_t>(zarr::region::all(a.shape())) == in, boost::test_tools::per_element());
  // a partial read (through the shard index), and the fill value where nothing was written
  const auto part = back.read<std::int8_t>({{5, 7}, {9, 13}});
  for (std::size_t y = 0; y < 4; ++y)
    for (std::size_t x = 0; x < 6; ++x) BOOST_TEST(part[y * 6 + x] == in[(5 + y) * 24 + 7 + x]);
  // each inner chunk is 4 x 3 int4 values: 6 bytes, so a full shard is 8 inner chunks of 6
  // bytes and 8 index entries of 16 bytes with a checksum
  const auto shard = store->get("q/c/0/0");
  BOOST_TEST_REQUIRE(shard.has_value());
  BOOST_TEST(shard->size() == 8u * 6u + 8u * 16u + 4u);
  a.write<std::int8_t>({{16, 12}, {20, 24}}, std::vector<std::int8_t>(48, -3));  // back to the fill value -3
  BOOST_TEST(back.read<std::int8_t>({{16, 12}, {17, 13}}).front() == -3);
}

BOOST_AUTO_TEST_CASE(round_trips_bool_arrays_through_an_array) {
  auto store = std::make_shared<zarr::memory_store>();
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
      "shape": [33], "data_type": "bool", "fill_value": false,
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [20]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "packbits", "configuration": {"padding_encoding": "first_byte"}}]})"));
  auto a = zarr::array::create(store, "", meta);
  std::vector<std::uint8_t> in(33);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = (i % 3 == 0) ? 1 : 0;
  a.write<std::uint8_t>(zarr::region::all(a.shape()), in);
  BOOST_TEST(zarr::array::open(store, "").read<std::uint8_t>(zarr::region::all(a.shape())) == in, boost::test_tools::per_element());
  // chunk 0: 20 bits in 3 bytes, 4 padding bits
  const auto stored = store->get("c/0");
  BOOST_TEST_REQUIRE(stored.has_value());
  BOOST_TEST(same(*stored, octets({4, 0b01001001, 0b10010010, 0b00000100})));
}

BOOST_AUTO_TEST_SUITE_END()
