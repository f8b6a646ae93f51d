// The codec chain with real codecs: order rules, to_json, encoded sizes, and every
// codecs/ array of the zarrita.js interop corpus decoded chunk by chunk.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include "array/corpus_json.hpp"
#include "codec/codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.codec.gzip;
import zarr.metadata;
import zarr.builder;
import zarr.parallel;
import zarr.bytes;
import zarr.nd;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;
namespace json = boost::json;

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Correctly rounded doubles: Boost.JSON 1.81's own parser is not always.
json::value read_json(const std::filesystem::path& p) { return zarr::parse_json(read_text(p), p.string()); }


zarr::bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return octets(s);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(codec_chain)

// A stored chunk that records every read the codecs make of it.
class counting_source final : public zarr::chunk_reader {
 public:
  explicit counting_source(const zarr::bytes& value) : value_(value) {}
  [[nodiscard]] bool read_all(zarr::bytes& out) const override {
    reads.push_back({0, value_.size(), false});
    out.assign(value_.begin(), value_.end());
    return true;
  }
  [[nodiscard]] std::optional<zarr::bytes> read(zarr::byte_range range) const override {
    const auto [offset, length] = zarr::resolve_range("chunk", range, value_.size());
    reads.push_back({offset, length, false});
    return zarr::bytes(value_.begin() + static_cast<std::ptrdiff_t>(offset),
                       value_.begin() + static_cast<std::ptrdiff_t>(offset + length));
  }
  mutable std::vector<zarr::byte_range> reads;

 private:
  const zarr::bytes& value_;
};

BOOST_AUTO_TEST_CASE(one_element_of_a_64_cubed_chunk_under_bytes_reads_that_elements_bytes_only) {
  const auto c = chain(R"([{"name":"bytes","configuration":{"endian":"big"}}])", spec({64, 64, 64}, data_type::float64));
  std::vector<double> values(64 * 64 * 64);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i) + 0.5;
  const auto stored = c.encode(std::span(reinterpret_cast<const std::byte*>(values.data()), values.size() * 8));
  const counting_source source(stored);
  double got = 0;
  const zarr::region one{{3, 5, 7}, {4, 6, 8}};
  BOOST_TEST(c.reader(source)->read(one, zarr::array_view::c_order(reinterpret_cast<std::byte*>(&got), one.extent(), 8)));
  BOOST_TEST(got == (3 * 64 + 5) * 64 + 7 + 0.5);
  BOOST_TEST_REQUIRE(source.reads.size() == 1u);
  BOOST_TEST(source.reads[0].offset == ((3u * 64 + 5) * 64 + 7) * 8);  // big-endian bytes of element (3, 5, 7)
  BOOST_TEST(source.reads[0].length == 8u);
  // A row of the box's last dimension is one range; rows 64 x 8 bytes apart merge into one.
  source.reads.clear();
  std::vector<double> column(2 * 3);
  const zarr::region box{{10, 20, 30}, {12, 23, 31}};
  BOOST_TEST(c.reader(source)->read(box, zarr::array_view::c_order(reinterpret_cast<std::byte*>(column.data()), box.extent(), 8)));
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) BOOST_TEST(column[i * 3 + j] == ((10.0 + i) * 64 + 20 + j) * 64 + 30 + 0.5);
  BOOST_TEST(source.reads.size() == 1u);
}

BOOST_AUTO_TEST_CASE(one_inner_chunk_of_a_two_level_nested_shard_reads_the_two_indexes_and_that_chunk_only) {
  // A 16 x 16 uint16 shard of 8 x 8 shards of 4 x 4 chunks; indexes with crc32c at the end:
  // 2 x 2 entries of 16 bytes + 4 = 68 bytes each.
  const auto c = chain(R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[8,8],
      "codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[4,4],
        "codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
        "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]}}],
      "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]}}])",
                       spec({16, 16}, data_type::uint16));
  std::vector<std::uint16_t> values(256);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint16_t>(1000 + i);
  const auto stored = c.encode(std::span(reinterpret_cast<const std::byte*>(values.data()), values.size() * 2));
  const counting_source source(stored);
  std::vector<std::uint16_t> got(16);
  const zarr::region box{{12, 4}, {16, 8}};  // inner chunk (1, 1) of the nested shard (1, 0)
  BOOST_TEST(c.reader(source)->read(box, zarr::array_view::c_order(reinterpret_cast<std::byte*>(got.data()), box.extent(), 2)));
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) BOOST_TEST(got[i * 4 + j] == 1000 + (12 + i) * 16 + 4 + j);
  BOOST_TEST_REQUIRE(source.reads.size() == 3u);
  BOOST_TEST(source.reads[0].length == 68u);  // the outer index
  BOOST_TEST(source.reads[0].offset + 68 == stored.size());
  BOOST_TEST(source.reads[1].length == 68u);  // the nested shard's index
  BOOST_TEST(source.reads[2].length == 32u);  // the 4 x 4 inner chunk
  // Each nested shard holds 4 x 32 bytes and its index; the outer shard 4 of those and its index.
  BOOST_TEST(stored.size() == 4u * (4 * 32 + 68) + 68);
}

BOOST_AUTO_TEST_CASE(rejects_two_array_to_bytes_codecs) {
  ZARR_CHECK_ERROR(chain(R"(["bytes","bytes"])", spec({4}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[1] (bytes): expected a bytes -> bytes codec after the array -> bytes codec, got an array -> bytes codec");
}

BOOST_AUTO_TEST_CASE(rejects_a_bytes_to_bytes_codec_before_the_array_to_bytes_codec) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"gzip","configuration":{"level":1}},"bytes"])", spec({4}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[0] (gzip): expected an array -> array or array -> bytes codec before any bytes -> bytes codec");
  ZARR_CHECK_ERROR(chain(R"(["crc32c"])", spec({4}, data_type::uint8)), errc::invalid_metadata,
                   "codecs[0] (crc32c): expected an array -> array or array -> bytes codec");
}

BOOST_AUTO_TEST_CASE(rejects_an_array_to_array_codec_after_the_array_to_bytes_codec) {
  ZARR_CHECK_ERROR(chain(R"(["bytes",{"name":"transpose","configuration":{"order":[0]}}])", spec({4}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[1] (transpose): expected a bytes -> bytes codec after the array -> bytes codec");
}

BOOST_AUTO_TEST_CASE(rejects_a_chain_without_an_array_to_bytes_codec) {
  ZARR_CHECK_ERROR(chain(R"([{"name":"transpose","configuration":{"order":[0]}}])", spec({4}, data_type::uint8)),
                   errc::invalid_metadata, "codecs: expected exactly one array -> bytes codec, got none");
  ZARR_CHECK_ERROR(chain("[]", spec({4}, data_type::uint8)), errc::invalid_metadata, "codecs: expected at least");
}

BOOST_AUTO_TEST_CASE(rejects_an_unknown_codec) {
  ZARR_CHECK_ERROR(chain(R"(["bytes",{"name":"lzma"}])", spec({4}, data_type::uint8)), errc::unsupported,
                   "codecs[1].name: expected a supported codec, got \"lzma\"");
}

BOOST_AUTO_TEST_CASE(finds_every_built_in_codec) {
  for (auto [name, kind] : std::vector<std::pair<std::string_view, zarr::codec_kind>>{
           {"blosc", zarr::codec_kind::bytes_to_bytes}, {"bytes", zarr::codec_kind::array_to_bytes},
           {"crc32c", zarr::codec_kind::bytes_to_bytes}, {"gzip", zarr::codec_kind::bytes_to_bytes},
           {"transpose", zarr::codec_kind::array_to_array}, {"zstd", zarr::codec_kind::bytes_to_bytes}}) {
    const auto* entry = zarr::find_codec(name);
    BOOST_TEST_REQUIRE(entry != nullptr, name);
    BOOST_TEST((entry->kind == kind));
  }
}

BOOST_AUTO_TEST_CASE(round_trips_a_long_chain_and_writes_it_back) {
  const auto text = R"([{"name":"transpose","configuration":{"order":[2,0,1]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"blosc","configuration":{"cname":"zstd","clevel":3,"shuffle":"shuffle","typesize":8,"blocksize":0}},{"name":"gzip","configuration":{"level":1}},{"name":"zstd","configuration":{"level":1,"checksum":true}},{"name":"crc32c","configuration":{}}])";
  const auto s = spec({6, 7, 8}, data_type::float64);
  const auto c = chain(text, s);
  BOOST_TEST(json::serialize(c.to_json()) == text);
  const auto data = compressible_bytes(s.byte_size(), 21);
  BOOST_TEST(same(c.decode(c.encode(data)), data));
  BOOST_TEST(!c.encoded_size());
  // The written JSON builds the same chain.
  BOOST_TEST(json::serialize(zarr::codec_chain(c.to_json(), s).to_json()) == text);
}

BOOST_AUTO_TEST_CASE(has_a_fixed_size_with_bytes_and_crc32c_only) {
  const auto c = chain(R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}},"crc32c","crc32c"])",
                       spec({3, 5}, data_type::uint16));
  BOOST_TEST((c.encoded_size() == std::optional<std::uint64_t>(30 + 8)));
  BOOST_TEST(c.encode(zarr::bytes(30)).size() == 38u);
}

BOOST_AUTO_TEST_CASE(fused_elementwise_codecs_give_what_they_give_one_by_one) {
  // scale_offset + cast_value run fused in the chain: the same bytes as the codecs run
  // separately, through decode() and decode_into() alike.
  const auto s = spec({3000}, data_type::float32);
  const auto c = chain(R"([{"name":"scale_offset","configuration":{"offset":-20,"scale":4}},
                          {"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"clamp"}},"bytes"])", s);
  std::vector<float> values(3000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = -30.0f + static_cast<float>(i) * 0.03125f;  // clamps at both ends
  const auto in = to_bytes(values);
  auto separately = in;
  for (const auto& codec : c.array_to_array()) separately = codec->encode(std::move(separately));
  const auto encoded = c.encode(std::span<const std::byte>(in));
  BOOST_TEST(same(encoded, separately));
  BOOST_TEST(std::to_integer<int>(encoded.front()) == 0);
  BOOST_TEST(std::to_integer<int>(encoded.back()) == 255);
  auto back_separately = encoded;
  for (auto it = c.array_to_array().rbegin(); it != c.array_to_array().rend(); ++it)
    back_separately = (*it)->decode(std::move(back_separately));
  BOOST_TEST(same(c.decode(encoded), back_separately));
  zarr::bytes into(s.byte_size());
  c.decode_into(encoded, into);
  BOOST_TEST(same(into, back_separately));
  ZARR_CHECK_ERROR(c.decode_into(encoded, std::span(into).first(8)), errc::invalid_argument, "expected an output of 12000 bytes");
}

// encode_into writes what encode returns, into a buffer reused from call to call (larger or
// smaller than the result, holding an earlier result): one codec, several in a row, a
// shard's inner chunks on one thread or two, shards within shards.
BOOST_AUTO_TEST_CASE(encode_into_a_reused_buffer_gives_what_encode_gives) {
  const auto decoded = spec({16, 16, 16}, data_type::uint16);
  const std::vector<std::string> chains{
      R"([{"name":"bytes","configuration":{"endian":"little"}}])",
      R"([{"name":"bytes","configuration":{"endian":"big"}}])",
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":3,"checksum":false}}])",
      R"([{"name":"bytes","configuration":{"endian":"little"}},"crc32c",{"name":"zstd","configuration":{"level":1,"checksum":true}}])",
      R"([{"name":"transpose","configuration":{"order":[2,0,1]}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":5}}])",
      R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[8,8,8],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":0,"checksum":false}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]}}])",
      R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[8,8,8],"index_location":"start","codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[4,4,4],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]}}])"};
  // Inputs: compressible, random, and half fill value (absent inner chunks).
  std::vector<zarr::bytes> inputs{compressible_bytes(8192, 1), random_bytes(8192, 2), compressible_bytes(8192, 3)};
  std::fill(inputs[2].begin(), inputs[2].begin() + 4096, std::byte{0});
  for (std::size_t threads : {1, 2}) {
    zarr::set_concurrency(threads);
    for (const auto& text : chains) {
      const auto c = chain(text, decoded);
      zarr::bytes out(100000, std::byte{0x5A});  // larger than any result, not empty
      for (int round = 0; round < 2; ++round)
        for (const auto& in : inputs) {
          BOOST_TEST_CONTEXT(text << ", " << threads << " thread(s), round " << round) {
            const auto want = c.encode(in);
            c.encode_into(in, out);
            BOOST_TEST(same(out, want));
            BOOST_TEST(same(c.decode(out), in));
          }
        }
    }
  }
  zarr::set_concurrency(0);
}

BOOST_AUTO_TEST_CASE(a_fused_failure_names_the_codec_that_failed) {
  const auto s = spec({2000}, data_type::float32);
  const auto c = chain(R"([{"name":"scale_offset","configuration":{"offset":0,"scale":1e37}},
                          {"name":"cast_value","configuration":{"data_type":"uint8"}},"bytes"])", s);
  std::vector<float> values(2000, 0.0f);
  values[1500] = 1e-30f;  // x * 1e37 = 1e7: not a uint8
  values[1700] = 1e3f;    // overflows float32 in scale_offset
  ZARR_CHECK_ERROR(c.encode(to_bytes(values)), errc::out_of_range, "codecs[1] (cast_value), encoding element 1500");
  values[1500] = 0.0f;
  ZARR_CHECK_ERROR(c.encode(to_bytes(values)), errc::out_of_range, "codecs[0] (scale_offset) encode, element 1700");
  // Decoding 255 / 1e37 - 20 is fine; with scale 1e-38, 255 / 1e-38 overflows.
  const auto tiny = chain(R"([{"name":"scale_offset","configuration":{"offset":0,"scale":1e-38}},
                             {"name":"cast_value","configuration":{"data_type":"uint8"}},"bytes"])", s);
  zarr::bytes stored(2000, std::byte{0});
  stored[1234] = std::byte{255};
  ZARR_CHECK_ERROR(tiny.decode(stored), errc::out_of_range, "codecs[0] (scale_offset) decode, element 1234");
}

BOOST_AUTO_TEST_CASE(refuses_a_bomb_before_allocating_its_claim) {
  const auto s = spec({1024}, data_type::uint8);
  // A zstd frame header declaring 2^40 bytes and nothing else: refused from the header alone,
  // through decode() and straight into a chunk buffer (allocating 1 TiB would abort under ASan).
  const auto liar = octets({0x28, 0xb5, 0x2f, 0xfd, 0xE0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00});
  const auto z = chain(R"(["bytes",{"name":"zstd","configuration":{"level":1}}])", s);
  ZARR_CHECK_ERROR(z.decode(liar), errc::corrupt_chunk, "a frame declaring 1099511627776 bytes");
  zarr::bytes chunk(1024);
  ZARR_CHECK_ERROR(z.decode_into(liar, chunk), errc::corrupt_chunk, "expected a zstd frame of 1024 bytes, got a frame declaring 1099511627776 bytes");
  // With crc32c after zstd the limit is still exact: 1024 + 4 bytes.
  const auto zc = chain(R"(["bytes","crc32c",{"name":"zstd","configuration":{"level":1}}])", s);
  ZARR_CHECK_ERROR(zc.decode(liar), errc::corrupt_chunk, "more than the decoding limit of 1028");
  // 64 MiB of zeros in a 64 KiB gzip stream: stops after the chunk's 1024 bytes.
  const zarr::bytes zeros(std::size_t{64} << 20, std::byte{0});
  const auto bomb = zarr::gzip_codec(zarr::gzip_configuration{9}, "g").encode(zeros);
  BOOST_TEST(bomb.size() < (std::size_t{1} << 17));
  const auto g = chain(R"(["bytes",{"name":"gzip","configuration":{"level":1}}])", s);
  ZARR_CHECK_ERROR(g.decode(bomb), errc::corrupt_chunk, "more than 1024 bytes of output");
  ZARR_CHECK_ERROR(g.decode_into(bomb, chunk), errc::corrupt_chunk, "more than 1024 bytes of output");
  // And a chunk a little short of its size is corrupt, not padded.
  const auto short_chunk = zarr::gzip_codec(zarr::gzip_configuration{1}, "g").encode(zarr::bytes(1000));
  ZARR_CHECK_ERROR(g.decode_into(short_chunk, chunk), errc::corrupt_chunk, "expected a gzip stream of 1024 bytes, got 1000 bytes");
  ZARR_CHECK_ERROR(g.decode(short_chunk), errc::corrupt_chunk, "expected a gzip stream of 1024 bytes, got 1000 bytes");
}

BOOST_AUTO_TEST_CASE(bounds_a_shard_by_its_inner_chunks) {
  const auto s = spec({64}, data_type::uint16);
  const auto c = chain(R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[16],
      "codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}],
      "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]}},
      {"name":"gzip","configuration":{"level":1}}])", s);
  // 4 inner chunks of at most 32 + 1/4 + 1 MiB bytes each, and the index (4 * 16 + 4).
  const std::uint64_t inner = 32 + 32 / 4 + (std::uint64_t{1} << 20);
  BOOST_TEST(c.max_encoded_size() == 4 * inner + 68 + (4 * inner + 68) / 4 + (std::uint64_t{1} << 20));
  const zarr::bytes zeros(std::size_t{64} << 20, std::byte{0});
  const auto bomb = zarr::gzip_codec(zarr::gzip_configuration{9}, "g").encode(zeros);
  ZARR_CHECK_ERROR(c.decode(bomb), errc::corrupt_chunk, "more than " + std::to_string(4 * inner + 68) + " bytes of output");
}

BOOST_AUTO_TEST_CASE(decodes_the_codecs_of_the_interop_corpus) {
  const auto root = data_dir() / "interop" / "corpus-seed1";
  const auto codecs = root / "store" / "codecs";
  BOOST_TEST_REQUIRE(std::filesystem::is_directory(codecs));
  std::size_t arrays = 0;
  std::size_t chunks = 0;
  for (const auto& dir : std::filesystem::directory_iterator(codecs)) {
    if (!dir.is_directory()) continue;
    const auto name = dir.path().filename().string();
    const auto meta = read_json(dir.path() / "zarr.json").as_object();
    const auto expected = zarr::parse_json(read_text(root / "EXPECTED" / "codecs" / (name + ".json"))).as_object();
    const auto type = zarr::parse_data_type(meta.at("data_type"));
    std::vector<std::uint64_t> shape;
    for (const auto& d : meta.at("shape").as_array()) shape.push_back(d.to_number<std::uint64_t>());
    std::vector<std::uint64_t> chunk_shape;
    for (const auto& d : meta.at("chunk_grid").at("configuration").at("chunk_shape").as_array())
      chunk_shape.push_back(d.to_number<std::uint64_t>());
    const auto s = spec(chunk_shape, type);
    const zarr::codec_chain c(meta.at("codecs"), s);
    const auto& data = expected.at("data").as_array();
    const auto size = static_cast<std::size_t>(zarr::info(type).size);
    ++arrays;
    for (const auto& file : std::filesystem::recursive_directory_iterator(dir.path() / "c")) {
      if (!file.is_regular_file()) continue;
      // The key c/i/j/k gives the chunk's grid position.
      std::vector<std::uint64_t> grid;
      for (const auto& part : std::filesystem::relative(file.path(), dir.path() / "c")) grid.push_back(std::stoull(part.string()));
      BOOST_TEST_REQUIRE(grid.size() == shape.size());
      const auto stored = read_file(file.path());
      const auto chunk = c.decode(stored);
      BOOST_TEST_REQUIRE(chunk.size() == s.byte_size(), name);
      ++chunks;
      // Every element of the chunk inside the array equals EXPECTED.
      std::vector<std::uint64_t> local(shape.size(), 0);
      for (std::uint64_t e = 0; e < s.num_elements(); ++e) {
        bool inside = true;
        std::uint64_t flat = 0;
        for (std::size_t d = 0; d < shape.size(); ++d) {
          const auto g = grid[d] * chunk_shape[d] + local[d];
          inside = inside && g < shape[d];
          flat = flat * shape[d] + g;
        }
        if (inside)
          BOOST_TEST_REQUIRE(zarr_test::same(data[flat], zarr_test::element_json(type, chunk.data() + e * size)),
                             name << " chunk " << std::filesystem::relative(file.path(), dir.path()) << " element " << e << " flat " << flat << " got " << json::serialize(data[flat]));
        for (std::size_t d = shape.size(); d-- > 0;) {
          if (++local[d] < chunk_shape[d]) break;
          local[d] = 0;
        }
      }
      // And our encoding of it decodes to the same chunk.
      BOOST_TEST(same(c.decode(c.encode(chunk)), chunk), name);
    }
  }
  BOOST_TEST(arrays >= 21u);
  BOOST_TEST(chunks > 50u);
}

BOOST_AUTO_TEST_SUITE_END()
