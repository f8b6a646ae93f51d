// The transpose codec: permutation rules, element placement against a naive reference,
// encoded representation, configuration errors.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec.transpose;
import zarr.builder;
import zarr.bytes;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

std::string transpose_json(const std::vector<std::size_t>& order, std::string_view endian = "little") {
  boost::json::array o;
  for (auto i : order) o.push_back(static_cast<std::uint64_t>(i));
  return R"([{"name":"transpose","configuration":{"order":)" + boost::json::serialize(o) +
         R"(}},{"name":"bytes","configuration":{"endian":")" + std::string(endian) + R"("}}])";
}

// The spec's definition, element by element: B[B_pos] = A[A_pos], B_pos[i] = A_pos[order[i]].
zarr::bytes reference_transpose(const zarr::bytes& a, const std::vector<std::uint64_t>& a_shape,
                                const std::vector<std::size_t>& order, std::size_t element) {
  const auto n = a_shape.size();
  std::vector<std::uint64_t> b_shape(n);
  for (std::size_t i = 0; i < n; ++i) b_shape[i] = a_shape[order[i]];
  zarr::bytes b(a.size());
  std::uint64_t count = 1;
  for (auto d : a_shape) count *= d;
  for (std::uint64_t lin = 0; lin < count; ++lin) {
    std::vector<std::uint64_t> a_pos(n);
    auto rest = lin;
    for (std::size_t d = n; d-- > 0;) {
      a_pos[d] = rest % a_shape[d];
      rest /= a_shape[d];
    }
    std::uint64_t b_lin = 0;
    for (std::size_t i = 0; i < n; ++i) b_lin = b_lin * b_shape[i] + a_pos[order[i]];
    std::memcpy(b.data() + b_lin * element, a.data() + lin * element, element);
  }
  return b;
}

data_type type_of_size(std::size_t size) {
  switch (size) {
    case 1: return data_type::uint8;
    case 2: return data_type::uint16;
    case 4: return data_type::uint32;
    case 8: return data_type::uint64;
    default: return data_type::complex128;
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transpose_codec)

BOOST_AUTO_TEST_CASE(transposes_a_2x3_matrix) {
  // A = [[0,1,2],[3,4,5]] -> B = A^T = [[0,3],[1,4],[2,5]].
  const auto c = chain(transpose_json({1, 0}), spec({2, 3}, data_type::uint8));
  BOOST_TEST(same(c.encode(octets({0, 1, 2, 3, 4, 5})), octets({0, 3, 1, 4, 2, 5})));
  BOOST_TEST(same(c.decode(octets({0, 3, 1, 4, 2, 5})), octets({0, 1, 2, 3, 4, 5})));
}

BOOST_AUTO_TEST_CASE(places_elements_as_the_spec_defines_for_a_3d_order) {
  // A shape [2,3,4], order [2,0,1]: B shape [4,2,3], B[k][i][j] = A[i][j][k].
  std::vector<std::uint16_t> a(24);
  std::iota(a.begin(), a.end(), 0);
  const auto c = chain(transpose_json({2, 0, 1}, "big"), spec({2, 3, 4}, data_type::uint16));
  BOOST_TEST(c.array_to_array().front()->encoded().shape == (std::vector<std::uint64_t>{4, 2, 3}));
  const auto out = c.encode(to_bytes(a));
  for (std::uint64_t k = 0; k < 4; ++k)
    for (std::uint64_t i = 0; i < 2; ++i)
      for (std::uint64_t j = 0; j < 3; ++j) {
        const auto at = ((k * 2 + i) * 3 + j) * 2;
        const auto value = static_cast<unsigned>(static_cast<std::uint8_t>(out[at])) << 8 | static_cast<std::uint8_t>(out[at + 1]);
        BOOST_TEST(value == (i * 3 + j) * 4 + k);
      }
}

BOOST_AUTO_TEST_CASE(matches_the_reference_for_every_permutation_and_element_size) {
  const std::vector<std::vector<std::uint64_t>> shapes{{5}, {3, 7}, {1, 9}, {4, 1, 6}, {3, 5, 2}, {2, 3, 1, 5}, {4, 2, 3, 2}, {2, 1, 1, 3}};
  unsigned seed = 1;
  for (const auto& shape : shapes) {
    std::vector<std::size_t> order(shape.size());
    std::iota(order.begin(), order.end(), 0);
    do {
      for (std::size_t size : {1, 2, 4, 8, 16}) {
        const auto s = spec(shape, type_of_size(size));
        const auto a = random_bytes(s.byte_size(), seed++);
        const auto transpose = zarr::transpose_codec(zarr::transpose_configuration{order}, s, "codecs[0]");
        const auto b = transpose.encode(a);
        BOOST_TEST_REQUIRE(same(b, reference_transpose(a, shape, order, size)));
        BOOST_TEST_REQUIRE(same(transpose.decode(b), a));
      }
    } while (std::next_permutation(order.begin(), order.end()));
  }
}

BOOST_AUTO_TEST_CASE(matches_the_reference_for_large_tiled_chunks) {
  for (const auto& [shape, order] : std::vector<std::pair<std::vector<std::uint64_t>, std::vector<std::size_t>>>{
           {{67, 45}, {1, 0}}, {{33, 17, 40}, {2, 1, 0}}, {{19, 40, 3, 21}, {3, 0, 2, 1}}, {{3, 50, 70}, {0, 2, 1}}}) {
    for (std::size_t size : {1, 4, 8}) {
      const auto s = spec(shape, type_of_size(size));
      const auto a = random_bytes(s.byte_size(), 99);
      const auto transpose = zarr::transpose_codec(zarr::transpose_configuration{order}, s, "codecs[0]");
      const auto b = transpose.encode(a);
      BOOST_TEST_REQUIRE(same(b, reference_transpose(a, shape, order, size)));
      BOOST_TEST_REQUIRE(same(transpose.decode(b), a));
    }
  }
}

BOOST_AUTO_TEST_CASE(passes_type_and_fill_value_unchanged) {
  auto s = spec({2, 5, 3}, data_type::float32);
  s.fill = zarr::scalar::of(data_type::float32, -2.5F);
  const auto c = chain(transpose_json({1, 2, 0}), s);
  const auto& encoded = c.array_to_array().front()->encoded();
  BOOST_TEST(encoded.shape == (std::vector<std::uint64_t>{5, 3, 2}));
  BOOST_TEST(encoded.type == data_type::float32);
  BOOST_TEST(encoded.fill.as<float>() == -2.5F);
  BOOST_TEST(boost::json::serialize(c.to_json()).starts_with(R"([{"name":"transpose","configuration":{"order":[1,2,0]}})"));
}

BOOST_AUTO_TEST_CASE(handles_identity_zero_d_and_empty_chunks) {
  const auto data = random_bytes(24, 3);
  BOOST_TEST(same(chain(transpose_json({0, 1, 2}), spec({2, 3, 4}, data_type::uint8)).encode(data), data));
  BOOST_TEST(same(chain(transpose_json({}), spec({}, data_type::uint8)).encode(octets({7})), octets({7})));
  const auto empty = chain(transpose_json({1, 0}), spec({0, 4}, data_type::int32));
  BOOST_TEST(empty.encode(zarr::bytes{}).empty());
  BOOST_TEST(empty.decode({}).empty());
}

BOOST_AUTO_TEST_CASE(chains_transposes) {
  const auto s = spec({3, 4, 5}, data_type::int16);
  const auto c = chain(R"([{"name":"transpose","configuration":{"order":[2,0,1]}},
                           {"name":"transpose","configuration":{"order":[1,2,0]}},
                           {"name":"bytes","configuration":{"endian":"little"}}])", s);
  const auto a = random_bytes(s.byte_size(), 5);
  BOOST_TEST(same(c.encode(a), a));  // [2,0,1] then [1,2,0] is the identity
  BOOST_TEST(same(c.decode(c.encode(a)), a));
}

BOOST_AUTO_TEST_CASE(rejects_a_missing_order) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"transpose"},"bytes"])", spec({2, 2}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[0].configuration.order: expected an array of dimension indices, got nothing");
  ZARR_CHECK_ERROR(chain(R"([{"name":"transpose","configuration":{}},"bytes"])", spec({2, 2}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[0].configuration.order: expected an array");
}

BOOST_AUTO_TEST_CASE(rejects_the_legacy_c_and_f_orders) {
  for (auto order : {"\"C\"", "\"F\""})
    ZARR_CHECK_ERROR(chain(std::string(R"([{"name":"transpose","configuration":{"order":)") + order + R"(}},"bytes"])",
                           spec({2, 2}, data_type::uint8)),
                     errc::invalid_metadata, "were removed from the transpose codec");
  ZARR_CHECK_ERROR(chain(R"([{"name":"transpose","configuration":{"order":3}},"bytes"])", spec({2, 2}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[0].configuration.order: expected an array of dimension indices, got 3");
}

BOOST_AUTO_TEST_CASE(rejects_an_order_of_the_wrong_length) {
  ZARR_CHECK_ERROR(chain(transpose_json({1, 0}), spec({2, 2, 2}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[0].configuration.order: expected a permutation of 0..2 for a chunk of 3 dimensions, got [1,0]");
  ZARR_CHECK_ERROR(chain(transpose_json({0, 1, 2}), spec({2, 2}, data_type::uint8)), errc::invalid_metadata,
                   "expected a permutation of 0..1");
}

BOOST_AUTO_TEST_CASE(rejects_duplicates_and_out_of_range_indices) {
  ZARR_CHECK_ERROR(chain(transpose_json({0, 0}), spec({2, 2}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[0].configuration.order: expected distinct dimension indices, got [0,0] (0 appears twice)");
  ZARR_CHECK_ERROR(chain(transpose_json({0, 2}), spec({2, 2}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[0].configuration.order: expected a permutation of 0..1 for a chunk of 2 dimensions, got [0,2]");
}

BOOST_AUTO_TEST_CASE(rejects_indices_that_are_not_non_negative_integers) {
  for (auto bad : {"-1", "1.0", "\"1\"", "null", "true"})
    ZARR_CHECK_ERROR(chain(std::string(R"([{"name":"transpose","configuration":{"order":[0,)") + bad + R"(]}},"bytes"])",
                           spec({2, 2}, data_type::uint8)),
                     errc::invalid_metadata, "codecs[0].configuration.order[1]: expected a non-negative integer, got");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"transpose","configuration":{"order":[1,0],"axes":[1,0]}},"bytes"])",
                         spec({2, 2}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[0].configuration.axes: expected no such key");
}

BOOST_AUTO_TEST_SUITE_END()
