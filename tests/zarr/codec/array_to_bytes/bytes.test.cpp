// The bytes codec: byte order, one-byte layouts, sizes, configuration errors.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.builder;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

BOOST_AUTO_TEST_SUITE(bytes_codec)

constexpr auto little = R"([{"name":"bytes","configuration":{"endian":"little"}}])";
constexpr auto big = R"([{"name":"bytes","configuration":{"endian":"big"}}])";

BOOST_AUTO_TEST_CASE(writes_int32_big_endian_as_the_spec_lays_it_out) {
  const auto c = chain(big, spec({3}, data_type::int32));
  const auto out = c.encode(to_bytes<std::int32_t>({1, -2, 0x01020304}));
  BOOST_TEST(same(out, octets({0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFE, 1, 2, 3, 4})));
  BOOST_TEST(from_bytes<std::int32_t>(c.decode(out)) == (std::vector<std::int32_t>{1, -2, 0x01020304}));
}

BOOST_AUTO_TEST_CASE(writes_uint16_in_either_byte_order) {
  const auto data = to_bytes<std::uint16_t>({0xABCD, 0x0102});
  BOOST_TEST(same(chain(big, spec({2}, data_type::uint16)).encode(data), octets({0xAB, 0xCD, 0x01, 0x02})));
  BOOST_TEST(same(chain(little, spec({2}, data_type::uint16)).encode(data), octets({0xCD, 0xAB, 0x02, 0x01})));
}

BOOST_AUTO_TEST_CASE(writes_floats_as_ieee_754_big_endian) {
  BOOST_TEST(same(chain(big, spec({2}, data_type::float32)).encode(to_bytes<float>({1.0F, -2.0F})),
                  octets({0x3F, 0x80, 0, 0, 0xC0, 0, 0, 0})));
  BOOST_TEST(same(chain(big, spec({1}, data_type::float64)).encode(to_bytes<double>({1.0})),
                  octets({0x3F, 0xF0, 0, 0, 0, 0, 0, 0})));
  // float16 and bfloat16 are held as their 16 bits: 1.0 is 0x3C00 and 0x3F80.
  BOOST_TEST(same(chain(big, spec({1}, data_type::float16)).encode(to_bytes<std::uint16_t>({0x3C00})), octets({0x3C, 0})));
  BOOST_TEST(same(chain(big, spec({1}, data_type::bfloat16)).encode(to_bytes<std::uint16_t>({0x3F80})), octets({0x3F, 0x80})));
}

BOOST_AUTO_TEST_CASE(writes_complex_as_real_then_imaginary_each_in_the_byte_order) {
  const auto c = chain(big, spec({1}, data_type::complex64));
  const auto out = c.encode(to_bytes<std::complex<float>>({{1.0F, -2.0F}}));
  BOOST_TEST(same(out, octets({0x3F, 0x80, 0, 0, 0xC0, 0, 0, 0})));
  const auto l = chain(little, spec({1}, data_type::complex128)).encode(to_bytes<std::complex<double>>({{1.0, -2.0}}));
  BOOST_TEST(same(l, octets({0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0xC0})));
}

BOOST_AUTO_TEST_CASE(round_trips_every_multi_byte_type_in_both_orders) {
  for (auto t : {data_type::int16, data_type::int32, data_type::int64, data_type::uint16, data_type::uint32,
                 data_type::uint64, data_type::bfloat16, data_type::float16, data_type::float32, data_type::float64,
                 data_type::complex64, data_type::complex128}) {
    for (auto order : {little, big}) {
      const auto s = spec({7, 13}, t);
      const auto c = chain(order, s);
      const auto data = random_bytes(s.byte_size(), 7);
      const auto encoded = c.encode(data);
      BOOST_TEST(encoded.size() == s.byte_size());
      BOOST_TEST((c.encoded_size() == std::optional<std::uint64_t>(s.byte_size())));
      BOOST_TEST(same(c.decode(encoded), data), zarr::name(t) << " " << order);
    }
  }
}

BOOST_AUTO_TEST_CASE(big_endian_reverses_each_element_of_a_large_chunk) {
  const auto s = spec({1000}, data_type::uint64);
  std::vector<std::uint64_t> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0x0102030405060708ULL * (i + 1);
  const auto out = chain(big, s).encode(to_bytes(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint64_t back = 0;
    for (std::size_t k = 0; k < 8; ++k) back = (back << 8) | static_cast<std::uint8_t>(out[i * 8 + k]);
    BOOST_TEST_REQUIRE(back == v[i]);
  }
}

BOOST_AUTO_TEST_CASE(one_byte_types_need_no_endian_and_ignore_it) {
  for (auto t : {data_type::bool_, data_type::int8, data_type::uint8, data_type::int2, data_type::int4, data_type::uint2,
                 data_type::uint4, data_type::float4_e2m1fn, data_type::float6_e2m3fn, data_type::float6_e3m2fn,
                 data_type::float8_e4m3, data_type::float8_e5m2, data_type::float8_e8m0fnu}) {
    for (auto json : {R"(["bytes"])", R"([{"name":"bytes"}])", R"([{"name":"bytes","configuration":{}}])", big}) {
      const auto c = chain(json, spec({4}, t));
      BOOST_TEST(boost::json::serialize(c.to_json()) == R"([{"name":"bytes","configuration":{}}])");
      BOOST_TEST((c.encoded_size() == std::optional<std::uint64_t>(4)));
    }
  }
}

BOOST_AUTO_TEST_CASE(records_the_endian_of_multi_byte_types) {
  BOOST_TEST(boost::json::serialize(chain(big, spec({4}, data_type::int16)).to_json()) ==
             R"([{"name":"bytes","configuration":{"endian":"big"}}])");
}

BOOST_AUTO_TEST_CASE(decodes_sub_byte_integers_ignoring_the_upper_bits) {
  // int4 0bIIIIXXXX: 0x18 has value bits 1000 = -8 whatever the upper bits say.
  const auto i4 = chain(little, spec({4}, data_type::int4));
  BOOST_TEST(from_bytes<std::int8_t>(i4.decode(octets({0x18, 0xA7, 0x0F, 0xF8}))) == (std::vector<std::int8_t>{-8, 7, -1, -8}));
  const auto i2 = chain(little, spec({4}, data_type::int2));
  BOOST_TEST(from_bytes<std::int8_t>(i2.decode(octets({0xFE, 0x05, 0x03, 0xFC}))) == (std::vector<std::int8_t>{-2, 1, -1, 0}));
  const auto u4 = chain(little, spec({2}, data_type::uint4));
  BOOST_TEST(same(u4.decode(octets({0xF3, 0x1F})), octets({0x03, 0x0F})));
  const auto u2 = chain(little, spec({2}, data_type::uint2));
  BOOST_TEST(same(u2.decode(octets({0xFF, 0x06})), octets({0x03, 0x02})));
}

BOOST_AUTO_TEST_CASE(decodes_sub_byte_floats_ignoring_the_upper_bits) {
  BOOST_TEST(same(chain(little, spec({2}, data_type::float4_e2m1fn)).decode(octets({0xFA, 0x07})), octets({0x0A, 0x07})));
  BOOST_TEST(same(chain(little, spec({1}, data_type::float6_e2m3fn)).decode(octets({0xFF})), octets({0x3F})));
  BOOST_TEST(same(chain(little, spec({1}, data_type::float6_e3m2fn)).decode(octets({0xC1})), octets({0x01})));
  BOOST_TEST(same(chain(little, spec({2}, data_type::float8_e4m3)).decode(octets({0xFF, 0x80})), octets({0xFF, 0x80})));
}

BOOST_AUTO_TEST_CASE(encodes_sub_byte_values_sign_extended_or_with_zero_upper_bits) {
  BOOST_TEST(same(chain(little, spec({3}, data_type::int4)).encode(octets({0xFF, 0x07, 0xF8})), octets({0xFF, 0x07, 0xF8})));
  BOOST_TEST(same(chain(little, spec({2}, data_type::uint4)).encode(octets({0x0F, 0x03})), octets({0x0F, 0x03})));
}

BOOST_AUTO_TEST_CASE(rejects_a_bool_other_than_0_or_1) {
  const auto c = chain(R"(["bytes"])", spec({3}, data_type::bool_));
  BOOST_TEST(same(c.decode(octets({0, 1, 1})), octets({0, 1, 1})));
  ZARR_CHECK_ERROR(c.decode(octets({0, 2, 1})), errc::corrupt_chunk, "element 1: expected a bool (0 or 1), got 2");
}

BOOST_AUTO_TEST_CASE(rejects_a_chunk_of_the_wrong_size) {
  const auto c = chain(little, spec({2}, data_type::int32));
  ZARR_CHECK_ERROR(c.decode(octets({1, 2, 3, 4, 5, 6, 7})), errc::corrupt_chunk, "codecs[0] (bytes): expected 8 bytes, got 7");
  ZARR_CHECK_ERROR(c.decode(zarr::bytes(9)), errc::corrupt_chunk, "expected 8 bytes, got 9");
  ZARR_CHECK_ERROR(c.encode(zarr::bytes(4)), errc::invalid_argument, "expected a chunk of 8 bytes");
}

BOOST_AUTO_TEST_CASE(handles_empty_chunks) {
  const auto c = chain(little, spec({0, 5}, data_type::float64));
  BOOST_TEST(c.encode(zarr::bytes{}).empty());
  BOOST_TEST(c.decode({}).empty());
}

BOOST_AUTO_TEST_CASE(requires_endian_for_multi_byte_types) {
  for (auto json : {R"(["bytes"])", R"([{"name":"bytes"}])", R"([{"name":"bytes","configuration":{}}])"})
    ZARR_CHECK_ERROR(chain(json, spec({4}, data_type::int16)), errc::invalid_metadata,
                     "codecs[0].configuration.endian: expected \"little\" or \"big\" (required for int16), got nothing");
  ZARR_CHECK_ERROR(chain(R"(["bytes"])", spec({4}, data_type::bfloat16)), errc::invalid_metadata, "configuration.endian");
  ZARR_CHECK_ERROR(chain(R"(["bytes"])", spec({4}, data_type::complex64)), errc::invalid_metadata, "configuration.endian");
}

BOOST_AUTO_TEST_CASE(rejects_a_bad_endian) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes","configuration":{"endian":"middle"}}])", spec({4}, data_type::int16)),
                   errc::invalid_metadata, "codecs[0].configuration.endian: expected \"little\" or \"big\", got \"middle\"");
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes","configuration":{"endian":1}}])", spec({4}, data_type::int16)),
                   errc::invalid_metadata, "codecs[0].configuration.endian: expected \"little\" or \"big\", got 1");
  // Also for one-byte types, where it would be ignored.
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes","configuration":{"endian":"LITTLE"}}])", spec({4}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[0].configuration.endian");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes","configuration":{"endian":"little","order":"C"}}])", spec({4}, data_type::int16)),
                   errc::invalid_metadata, "codecs[0].configuration.order: expected no such key");
}

BOOST_AUTO_TEST_CASE(rejects_a_configuration_that_is_not_an_object) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"bytes","configuration":"little"}])", spec({4}, data_type::int16)),
                   errc::invalid_metadata, "codecs[0].configuration: expected an object");
}

BOOST_AUTO_TEST_SUITE_END()
