// The reshape codec: the spec's example through a filesystem store, shape resolution
// (sizes, input_dims, -1), every configuration error of the spec and docs/decisions.md 21, and
// that encode/decode hand the same buffer back without copying.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec.reshape;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.bytes;
import zarr.nd;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

// A chain [reshape(shape), bytes(little)].
std::string reshape_json(std::string_view shape) {
  return std::string(R"([{"name":"reshape","configuration":{"shape":)") + std::string(shape) +
         R"(}},{"name":"bytes","configuration":{"endian":"little"}}])";
}

std::vector<std::uint64_t> encoded_shape(std::string_view shape, std::vector<std::uint64_t> decoded) {
  const auto c = chain(reshape_json(shape), spec(std::move(decoded), data_type::uint8));
  return c.array_to_array().front()->encoded().shape;
}

void check_invalid(std::string_view shape, std::vector<std::uint64_t> decoded, std::string_view message) {
  ZARR_CHECK_ERROR(chain(reshape_json(shape), spec(std::move(decoded), data_type::uint8)), errc::invalid_metadata, message);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reshape_codec)

BOOST_AUTO_TEST_CASE(stores_the_spec_example_in_plain_c_order_through_a_filesystem_store) {
  // zarr-extensions codecs/reshape "Example": chunk [100, 50, 64, 3] with [[0, 1], [2], 3] -> [5000, 64, 3].
  auto store = std::make_shared<zarr::filesystem_store>(scratch_dir() / "example.zarr");
  const auto meta = zarr::array_metadata::parse(zarr::parse_json(R"({"zarr_format": 3, "node_type": "array",
      "shape": [100, 50, 64, 3], "data_type": "uint16", "fill_value": 0,
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [100, 50, 64, 3]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "reshape", "configuration": {"shape": [[0, 1], [2], 3]}},
                 {"name": "bytes", "configuration": {"endian": "little"}}]})"));
  auto a = zarr::array::create(store, "example", meta);
  BOOST_TEST(a.codecs().array_to_array().front()->encoded().shape == (std::vector<std::uint64_t>{5000, 64, 3}));
  std::vector<std::uint16_t> values(100 * 50 * 64 * 3);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint16_t>(i * 2654435761u >> 7);
  a.write<std::uint16_t>(zarr::region::all(a.shape()), values);

  const auto reopened = zarr::array::open(store, "example");
  BOOST_TEST(reopened.read<std::uint16_t>(zarr::region::all(a.shape())) == values, boost::test_tools::per_element());
  BOOST_TEST(reopened.read<std::uint16_t>({{99, 49, 63, 0}, {100, 50, 64, 3}}) ==
                 (std::vector<std::uint16_t>(values.end() - 3, values.end())),
             boost::test_tools::per_element());
  // The stored chunk is the raveled array, little endian: exactly what `bytes` alone writes.
  const auto stored = store->get("example/c/0/0/0/0");
  BOOST_TEST_REQUIRE(stored.has_value());
  BOOST_TEST(same(*stored, to_bytes(values)));
  BOOST_TEST(boost::json::serialize(reopened.codecs().to_json()).starts_with(
      R"([{"name":"reshape","configuration":{"shape":[[0,1],[2],3]}})"));
}

BOOST_AUTO_TEST_CASE(resolves_sizes_input_dims_and_minus_one) {
  BOOST_TEST(encoded_shape("[[0, 1], [2], 3]", {100, 50, 64, 3}) == (std::vector<std::uint64_t>{5000, 64, 3}));
  BOOST_TEST(encoded_shape("[-1]", {2, 3, 4}) == (std::vector<std::uint64_t>{24}));
  BOOST_TEST(encoded_shape("[4, -1, 2]", {2, 3, 4}) == (std::vector<std::uint64_t>{4, 3, 2}));
  BOOST_TEST(encoded_shape("[-1, [2]]", {2, 3, 4}) == (std::vector<std::uint64_t>{6, 4}));
  BOOST_TEST(encoded_shape("[[0], -1]", {2, 3, 4}) == (std::vector<std::uint64_t>{2, 12}));
  // an empty list of input dimensions is a dimension of size 1
  BOOST_TEST(encoded_shape("[[], [0, 1], []]", {2, 3}) == (std::vector<std::uint64_t>{1, 6, 1}));
  // the spec's allowed example [[0, 1], 10, [3, 4]]
  BOOST_TEST(encoded_shape("[[0, 1], 10, [3, 4]]", {2, 3, 10, 4, 5}) == (std::vector<std::uint64_t>{6, 10, 20}));
  // a size that splits a dimension, and a 0-d chunk
  BOOST_TEST(encoded_shape("[2, 2, 3]", {4, 3}) == (std::vector<std::uint64_t>{2, 2, 3}));
  BOOST_TEST(encoded_shape("[1, 1]", {}) == (std::vector<std::uint64_t>{1, 1}));
}

BOOST_AUTO_TEST_CASE(keeps_the_data_type_and_fill_value) {
  auto s = spec({6, 4}, data_type::float64);
  s.fill = zarr::scalar::of(data_type::float64, -7.25);
  const auto c = chain(reshape_json("[-1]"), s);
  const auto& encoded = c.array_to_array().front()->encoded();
  BOOST_TEST(encoded.shape == (std::vector<std::uint64_t>{24}));
  BOOST_TEST(encoded.type == data_type::float64);
  BOOST_TEST(encoded.fill.as<double>() == -7.25);
}

BOOST_AUTO_TEST_CASE(hands_back_the_same_buffer_without_copying) {
  const auto s = spec({8, 16, 4}, data_type::int32);
  const zarr::reshape_codec codec(zarr::reshape_configuration::parse(
                                      {boost::json::parse(R"({"shape": [[0, 1], -1]})"), s, "codecs[0]", {}}),
                                  s, "codecs[0]");
  auto buffer = random_bytes(s.byte_size(), 11);
  const auto copy = buffer;
  const auto* data = buffer.data();
  auto encoded = codec.encode(std::move(buffer));
  BOOST_TEST(encoded.data() == data);
  BOOST_TEST(same(encoded, copy));
  auto decoded = codec.decode(std::move(encoded));
  BOOST_TEST(decoded.data() == data);
  BOOST_TEST(same(decoded, copy));
}

BOOST_AUTO_TEST_CASE(round_trips_in_a_chain_with_transpose) {
  // transpose, then flatten the two inner dimensions: B[k][i*3 + j] = A[i][j][k].
  const auto s = spec({2, 3, 4}, data_type::uint8);
  const auto c = chain(R"([{"name":"transpose","configuration":{"order":[2,0,1]}},
                           {"name":"reshape","configuration":{"shape":[[0],[1,2]]}}, "bytes"])", s);
  BOOST_TEST(c.array_to_array().back()->encoded().shape == (std::vector<std::uint64_t>{4, 6}));
  zarr::bytes a(24);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::byte>(i);
  const auto out = c.encode(a);
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t ij = 0; ij < 6; ++ij) BOOST_TEST(static_cast<unsigned>(out[k * 6 + ij]) == ij * 4 + k);
  BOOST_TEST(same(c.decode(out), a));
}

BOOST_AUTO_TEST_CASE(rejects_a_buffer_of_the_wrong_size) {
  const auto s = spec({4, 4}, data_type::uint16);
  const zarr::reshape_codec codec(zarr::reshape_configuration{{-1}}, s,
                                  "codecs[0]");
  ZARR_CHECK_ERROR(codec.encode(zarr::bytes(31)), errc::invalid_argument, "codecs[0] (reshape): expected a chunk of 32 bytes, got 31");
  ZARR_CHECK_ERROR(codec.decode(zarr::bytes(33)), errc::invalid_argument, "expected a chunk of 32 bytes, got 33");
}

BOOST_AUTO_TEST_CASE(rejects_a_product_that_differs_from_the_chunk) {
  check_invalid("[5, 5]", {2, 3, 4},
                "codecs[0].configuration.shape: expected output dimensions with as many elements as the chunk [2,3,4] "
                "(24), got [5,5] (25)");
  check_invalid("[[0, 1], 5]", {2, 3, 4}, "codecs[0].configuration.shape: expected output dimensions with as many elements");
  check_invalid("[4294967296, 4294967296, 2]", {2}, "got [4294967296,4294967296,2] (2^64 or more)");
}

BOOST_AUTO_TEST_CASE(rejects_a_minus_one_that_does_not_divide_evenly) {
  check_invalid("[5, -1]", {2, 3, 4},
                "codecs[0].configuration.shape[1]: expected -1 to stand for a whole size: the chunk [2,3,4] has 24 "
                "elements, the other entries of shape multiply to 5, which does not divide it");
  check_invalid("[[1], -1]", {2, 0, 4}, "codecs[0].configuration.shape[1]: expected -1 to stand for a whole size");
}

BOOST_AUTO_TEST_CASE(rejects_more_than_one_minus_one) {
  check_invalid("[-1, 2, -1]", {2, 3, 4},
                "codecs[0].configuration.shape[2]: expected at most one -1, got a second one (shape[0] is -1 too)");
}

BOOST_AUTO_TEST_CASE(rejects_sizes_of_zero_and_below_minus_one) {
  check_invalid("[0, 24]", {2, 3, 4},
                "codecs[0].configuration.shape[0]: expected a positive size, a list of input dimensions or -1, got 0");
  check_invalid("[24, -2]", {2, 3, 4}, "codecs[0].configuration.shape[1]: expected a positive size, a list of input dimensions or -1, got -2");
  for (auto bad : {"1.5", "\"3\"", "null", "true", "{}"})
    check_invalid(std::string("[") + bad + "]", {3}, "codecs[0].configuration.shape[0]: expected a positive size");
}

BOOST_AUTO_TEST_CASE(rejects_input_dims_out_of_range) {
  check_invalid("[[0, 1, 3]]", {2, 3, 4},
                "codecs[0].configuration.shape[0][2]: expected an input dimension below 3 (the chunk shape is [2,3,4]), got 3");
  check_invalid("[[-1]]", {2}, "codecs[0].configuration.shape[0][0]: expected an input dimension index (a non-negative integer), got -1");
  check_invalid("[[0.5]]", {2}, "codecs[0].configuration.shape[0][0]: expected an input dimension index");
}

BOOST_AUTO_TEST_CASE(rejects_input_dims_that_are_not_strictly_increasing) {
  // The spec's three forbidden examples, and a repeated dimension.
  check_invalid("[[1], [0]]", {2, 3}, "codecs[0].configuration.shape[1][0]: expected input dimensions in strictly increasing "
                                      "order over the whole shape (reshape keeps C order and never transposes), got 0 after 1");
  check_invalid("[[1, 0], 10, [3, 4]]", {2, 3, 10, 4, 5}, "codecs[0].configuration.shape[0][1]: expected input dimensions in strictly increasing order");
  check_invalid("[[3, 4], 10, [0, 1]]", {2, 3, 10, 4, 5}, "codecs[0].configuration.shape[2][0]: expected input dimensions in strictly increasing order");
  check_invalid("[[0, 0], 3]", {2, 3}, "codecs[0].configuration.shape[0][1]: expected input dimensions in strictly increasing order");
  check_invalid("[[0, 0], 3]", {2, 3}, "got 0 after 0 in [[0,0],3]");
}

BOOST_AUTO_TEST_CASE(rejects_input_dims_whose_prefix_product_differs) {
  // B = [3, 8] has the right count, but [1] is not where dimension 1 of A lies in the raveled order.
  check_invalid("[[1], 8]", {2, 3, 4},
                "codecs[0].configuration.shape[0]: expected the output dimensions before it to multiply to 2 "
                "(prod(A_shape[:1]), chunk shape [2,3,4]), got 1 (output shape [3,8])");
  check_invalid("[[0], 4, [1]]", {2, 2, 4}, "codecs[0].configuration.shape[2]: expected the output dimensions before it to multiply to 2");
}

BOOST_AUTO_TEST_CASE(rejects_input_dims_whose_suffix_product_differs) {
  // [[0, 2], 3]: 2 * 4 = 8 elements, then 3 -- but dimension 1 (3) lies between 0 and 2 in A.
  check_invalid("[[0, 2], 3]", {2, 3, 4},
                "codecs[0].configuration.shape[0]: expected the output dimensions after it to multiply to 1 "
                "(prod(A_shape[3:]), chunk shape [2,3,4]), got 3 (output shape [8,3])");
}

BOOST_AUTO_TEST_CASE(rejects_an_empty_or_missing_shape) {
  check_invalid("[]", {2, 3}, "codecs[0].configuration.shape: expected at least one output dimension, got []");
  check_invalid("6", {2, 3}, "codecs[0].configuration.shape: expected an array of sizes, input dimension lists or -1, got 6");
  ZARR_CHECK_ERROR(chain(R"([{"name":"reshape"},"bytes"])", spec({2}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[0].configuration.shape: expected an array of sizes, input dimension lists or -1, got nothing");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_configuration_key) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"reshape","configuration":{"shape":[-1],"order":[0]}},"bytes"])", spec({2}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[0].configuration.order: expected no such key");
}

BOOST_AUTO_TEST_SUITE_END()
