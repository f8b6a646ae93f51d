// sharding_indexed: the binary format checked by hand, configuration errors, partial
// reads that touch only the index and the inner chunks they need, and corrupt or hostile
// indexes (overlapping, out-of-range and wrapping entries, inner chunks of the wrong size).
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.codec.gzip;
import zarr.builder;
import zarr.bytes;
import zarr.nd;

using namespace zarr_test;
using zarr::data_type;
using zarr::errc;

namespace {

constexpr const char* basic = R"([{"name": "sharding_indexed", "configuration": {
    "chunk_shape": [2, 2],
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])";

std::vector<std::uint16_t> iota16(std::size_t n, std::uint16_t first = 1) {
  std::vector<std::uint16_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint16_t>(first + i);
  return v;
}

std::uint64_t load64(const zarr::bytes& b, std::size_t offset) {
  std::uint64_t v;
  std::memcpy(&v, b.data() + offset, 8);
  return v;
}

// A reader over a buffer that counts the bytes it serves.
struct counting_reader final : zarr::chunk_reader {
  explicit counting_reader(const zarr::bytes* d) : data(d) {}
  const zarr::bytes* data;
  mutable std::uint64_t served = 0;
  mutable int calls = 0;
  bool read_all(zarr::bytes& out) const override {
    ++calls;
    served += data->size();
    out = *data;
    return true;
  }
  std::optional<zarr::bytes> read(zarr::byte_range r) const override {
    ++calls;
    const auto [offset, length] = zarr::resolve_range("shard", r, data->size());
    served += length;
    return zarr::bytes(data->begin() + static_cast<std::ptrdiff_t>(offset),
                       data->begin() + static_cast<std::ptrdiff_t>(offset + length));
  }
};

// The box `r` of a chunk through the chain's reader, into a C-order buffer of `T`.
template <class T>
bool decode_box(const zarr::codec_chain& c, const zarr::chunk_reader& reader, const zarr::region& r, std::vector<T>& out) {
  return c.reader(reader)->read(r, zarr::array_view::c_order(reinterpret_cast<std::byte*>(out.data()), r.extent(), sizeof(T)));
}

// A 4x4 uint16 shard of 2x2 inner chunks, its index plain uint64s (no checksum) at the start
// or the end; inner chunks `bytes`, optionally with a crc32c or gzip after it.
std::string plain(bool index_at_start, const char* inner_extra = "") {
  return std::string(R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}})") + inner_extra + R"(],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
      "index_location": ")" + (index_at_start ? "start" : "end") + "\"}}]";
}

// `encoded` with its 4 index entries (8 uint64s, no checksum) rewritten by f.
template <class F>
zarr::bytes with_index(zarr::bytes encoded, bool index_at_start, F f) {
  const std::size_t at = index_at_start ? 0 : encoded.size() - 64;
  std::vector<std::uint64_t> entries(8);
  std::memcpy(entries.data(), encoded.data() + at, 64);
  f(entries);
  std::memcpy(encoded.data() + at, entries.data(), 64);
  return encoded;
}

// Inner chunk 1 ((0, 1): elements 3, 4, 7, 8 of 1..16) read alone, through the chain's reader.
std::vector<std::uint16_t> read_inner_chunk_1(const zarr::codec_chain& c, const zarr::bytes& shard) {
  const counting_reader reader{&shard};
  std::vector<std::uint16_t> out(4);
  BOOST_TEST(decode_box(c, reader, {{0, 2}, {2, 4}}, out));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sharding_indexed)

BOOST_AUTO_TEST_CASE(writes_inner_chunks_in_order_with_the_index_at_the_end) {
  // A 4x4 uint16 shard of 2x2 inner chunks; inner chunk (0,1) holds only the fill value.
  auto values = iota16(16);
  for (std::size_t y = 0; y < 2; ++y)
    for (std::size_t x = 2; x < 4; ++x) values[y * 4 + x] = 0;
  const auto c = chain(basic, spec({4, 4}, data_type::uint16));
  const auto encoded = c.encode(to_bytes(values));
  // 3 stored inner chunks of 2*2*2 bytes, then 4 index entries of 16 bytes and a crc32c
  BOOST_TEST_REQUIRE(encoded.size() == 3u * 8u + 4u * 16u + 4u);
  const std::size_t index = 24;
  BOOST_TEST(load64(encoded, index + 0) == 0u);   // (0,0) at offset 0
  BOOST_TEST(load64(encoded, index + 8) == 8u);   //        8 bytes
  BOOST_TEST(load64(encoded, index + 16) == ~std::uint64_t{0});  // (0,1) empty
  BOOST_TEST(load64(encoded, index + 24) == ~std::uint64_t{0});
  BOOST_TEST(load64(encoded, index + 32) == 8u);  // (1,0)
  BOOST_TEST(load64(encoded, index + 48) == 16u); // (1,1)
  // inner chunk (0,0) holds elements (0,0) (0,1) (1,0) (1,1) = 1, 2, 5, 6
  BOOST_TEST(from_bytes<std::uint16_t>(std::span(encoded).first(8)) == (std::vector<std::uint16_t>{1, 2, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(from_bytes<std::uint16_t>(c.decode(encoded)) == values, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(index_at_the_start_offsets_count_the_index) {
  std::string text = basic;
  text.insert(text.find("\"index_codecs\""), R"("index_location": "start", )");
  const auto c = chain(text, spec({4, 4}, data_type::uint16));
  const auto values = iota16(16);
  const auto encoded = c.encode(to_bytes(values));
  BOOST_TEST(load64(encoded, 0) == 68u);  // first inner chunk right after the 68-byte index
  BOOST_TEST(from_bytes<std::uint16_t>(c.decode(encoded)) == values, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reading_one_inner_chunk_reads_only_the_index_and_that_chunk) {
  const auto c = chain(R"([{"name": "sharding_indexed", "configuration": {
      "chunk_shape": [8, 8],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])",
                       spec({64, 64}, data_type::uint16));
  const auto values = iota16(64 * 64);
  const auto encoded = c.encode(to_bytes(values));
  const counting_reader reader{&encoded};
  std::vector<std::uint16_t> out(3 * 4);
  const zarr::region r{{9, 17}, {12, 21}};  // inside inner chunk (1, 2)
  BOOST_TEST(decode_box(c, reader, r, out));
  const auto index_bytes = 8u * 8u * 16u + 4u;
  const auto inner = load64(encoded, encoded.size() - index_bytes + (1 * 8 + 2) * 16 + 8);
  BOOST_TEST(reader.calls == 2);
  BOOST_TEST(reader.served == index_bytes + inner);
  for (std::size_t y = 0; y < 3; ++y)
    for (std::size_t x = 0; x < 4; ++x) BOOST_TEST(out[y * 4 + x] == values[(9 + y) * 64 + 17 + x]);
}

BOOST_AUTO_TEST_CASE(nested_sharding_round_trips) {
  const auto c = chain(R"([{"name": "sharding_indexed", "configuration": {
      "chunk_shape": [4, 4],
      "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
          "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip", "configuration": {"level": 1}}],
          "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "index_location": "start"}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])",
                       spec({8, 8}, data_type::uint16));
  const auto values = iota16(64);
  BOOST_TEST(from_bytes<std::uint16_t>(c.decode(c.encode(to_bytes(values)))) == values, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rejects_bad_configurations) {
  const auto s = spec({4, 4}, data_type::uint16);
  const auto with = [](const char* config) {
    return std::string(R"([{"name": "sharding_indexed", "configuration": )") + config + "}]";
  };
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [3, 2], "codecs": ["bytes"], "index_codecs": ["bytes"]})"), s),
                   errc::invalid_metadata, "chunk_shape[0]: expected a divisor of the shard size 4, got 3");
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2], "codecs": ["bytes"], "index_codecs": ["bytes"]})"), s),
                   errc::invalid_metadata, "chunk_shape: expected 2 dimensions");
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2, 0], "codecs": ["bytes"], "index_codecs": ["bytes"]})"), s),
                   errc::invalid_metadata, "chunk_shape: expected positive integers");
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2, 2], "index_codecs": ["bytes"]})"), s), errc::invalid_metadata,
                   "configuration.codecs");
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2, 2], "codecs": ["bytes"]})"), s), errc::invalid_metadata,
                   "configuration.index_codecs");
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2, 2], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}]})"), s),
                   errc::invalid_metadata, "fixed encoded size");
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2, 2], "codecs": ["bytes"], "index_codecs": ["bytes"], "index_location": "middle"})"), s),
                   errc::invalid_metadata, "index_location");
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2, 2], "codecs": ["bytes"], "index_codecs": ["bytes"], "extra": 1})"), s),
                   errc::invalid_metadata, "configuration.extra");
  // the inner chain names its position
  ZARR_CHECK_ERROR(chain(with(R"({"chunk_shape": [2, 2], "codecs": [{"name": "gzip", "configuration": {"level": 1}}], "index_codecs": ["bytes"]})"), s),
                   errc::invalid_metadata, "codecs[0].configuration.codecs[0]");
}

BOOST_AUTO_TEST_CASE(rejects_corrupt_shards) {
  const auto c = chain(basic, spec({4, 4}, data_type::uint16));
  auto encoded = c.encode(to_bytes(iota16(16)));
  // too short to hold the index
  ZARR_CHECK_ERROR(c.decode(std::span(encoded).first(10)), errc::corrupt_chunk, "at least 68 bytes");
  // an index whose checksum fails
  auto flipped = encoded;
  flipped[flipped.size() - 10] ^= std::byte{1};
  ZARR_CHECK_ERROR(c.decode(flipped), errc::corrupt_chunk, "crc32c");
  // an index pointing outside the shard, with a valid checksum (rebuilt through the index chain)
  const auto index_chain = chain(R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])",
                                 spec({2, 2, 2}, data_type::uint64));
  std::vector<std::uint64_t> index(8);
  std::memcpy(index.data(), encoded.data() + 32, 64);
  index[2] = 1000;  // inner chunk 1's offset
  const auto bad_index = index_chain.encode(to_bytes(index));
  auto outside = encoded;
  std::memcpy(outside.data() + 32, bad_index.data(), bad_index.size());
  ZARR_CHECK_ERROR(c.decode(outside), errc::corrupt_chunk, "inner chunk 1: expected bytes within the shard");
  // offsets that overflow when added
  index[2] = ~std::uint64_t{0} - 2;
  index[3] = 8;
  const auto overflowing = index_chain.encode(to_bytes(index));
  std::memcpy(outside.data() + 32, overflowing.data(), overflowing.size());
  ZARR_CHECK_ERROR(c.decode(outside), errc::corrupt_chunk, "inner chunk 1");
}

BOOST_AUTO_TEST_CASE(rejects_inner_chunks_that_share_bytes) {
  // The layout is free, but no writer points two entries at the same bytes: an index that
  // does is damaged or hostile (whole or partial reads alike).
  const auto c = chain(plain(false), spec({4, 4}, data_type::uint16));
  const auto shared = with_index(c.encode(to_bytes(iota16(16))), false, [](auto& e) {
    e[2] = e[0];  // inner chunk 1 -> the bytes of inner chunk 0
    e[3] = e[1];
  });
  ZARR_CHECK_ERROR(c.decode(shared), errc::corrupt_chunk,
                   "inner chunk 1: expected bytes no other inner chunk uses, got offset 0 and length 8, overlapping inner chunk 0");
  ZARR_CHECK_ERROR(read_inner_chunk_1(c, shared), errc::corrupt_chunk, "overlapping inner chunk 0");
}

BOOST_AUTO_TEST_CASE(rejects_inner_chunks_that_overlap_the_index_or_partly_another_chunk) {
  const auto crc = chain(plain(false, R"(, {"name": "crc32c"})"), spec({4, 4}, data_type::uint16));
  const auto partly = with_index(crc.encode(to_bytes(iota16(16))), false, [](auto& e) { e[2] = e[0] + 4; });
  ZARR_CHECK_ERROR(crc.decode(partly), errc::corrupt_chunk, "inner chunk 1: expected bytes no other inner chunk uses, got offset 4");
  ZARR_CHECK_ERROR(read_inner_chunk_1(crc, partly), errc::corrupt_chunk, "overlapping inner chunk 0");
  // an entry reaching into the index at the end: inner chunks take bytes [0, 32), the index [32, 96)
  const auto end = chain(plain(false), spec({4, 4}, data_type::uint16));
  const auto into_end = with_index(end.encode(to_bytes(iota16(16))), false, [](auto& e) { e[2] = 28; });
  ZARR_CHECK_ERROR(end.decode(into_end), errc::corrupt_chunk, "inner chunk 1: expected bytes outside the index");
  // index at the start: [0, 64) is the index
  const auto start = chain(plain(true), spec({4, 4}, data_type::uint16));
  const auto into_start = with_index(start.encode(to_bytes(iota16(16))), true, [](auto& e) { e[2] = 8; });
  ZARR_CHECK_ERROR(start.decode(into_start), errc::corrupt_chunk, "inner chunk 1: expected bytes outside the index");
  ZARR_CHECK_ERROR(read_inner_chunk_1(start, into_start), errc::corrupt_chunk, "inner chunk 1: expected bytes outside the index");
}

// The exact edge between an inner chunk and the index, for both index locations: a shard
// made by hand (4x4 uint16, 2x2 inner chunks, a 64-byte plain index) holding only inner chunk 1
// (elements 3, 4, 7, 8) at `offset`, in `size` bytes. An off-by-one in the overlap check
// (`offset + 1 < index_size` at the start, `... > size - index_size + 1` at the end) fails here.
BOOST_AUTO_TEST_CASE(inner_chunks_end_exactly_where_the_index_begins) {
  const auto hand_made = [](bool index_at_start, std::uint64_t offset, std::size_t size) {
    zarr::bytes shard(size, std::byte{0});
    const std::vector<std::uint16_t> chunk{3, 4, 7, 8};
    if (offset + 8 <= size) std::memcpy(shard.data() + offset, chunk.data(), 8);
    std::vector<std::uint64_t> entries(8, ~std::uint64_t{0});  // all empty but inner chunk 1
    entries[2] = offset;
    entries[3] = 8;
    std::memcpy(shard.data() + (index_at_start ? 0 : size - 64), entries.data(), 64);  // over any chunk byte
    return shard;
  };
  const auto check_reads = [](const zarr::codec_chain& c, const zarr::bytes& shard) {
    const auto all = from_bytes<std::uint16_t>(c.decode(shard));
    BOOST_TEST(all.size() == 16u);
    BOOST_TEST((all[2] == 3 && all[3] == 4 && all[6] == 7 && all[7] == 8), "inner chunk 1 decoded wrongly");
    BOOST_TEST(read_inner_chunk_1(c, shard) == (std::vector<std::uint16_t>{3, 4, 7, 8}), boost::test_tools::per_element());
  };
  // index at the start, bytes [0, 64): an inner chunk from byte 63 shares its last byte, from 64 it does not
  const auto start = chain(plain(true), spec({4, 4}, data_type::uint16));
  const auto at_63 = hand_made(true, 63, 72);
  ZARR_CHECK_ERROR(start.decode(at_63), errc::corrupt_chunk,
                   "inner chunk 1: expected bytes outside the index (the first 64 bytes of the shard), got offset 63 and length 8");
  ZARR_CHECK_ERROR(read_inner_chunk_1(start, at_63), errc::corrupt_chunk, "got offset 63 and length 8");
  check_reads(start, hand_made(true, 64, 72));
  // index at the end of a 72-byte shard, bytes [8, 72): an inner chunk ending at byte 7 is fine,
  // one ending at byte 8 shares the index's first byte
  const auto end = chain(plain(false), spec({4, 4}, data_type::uint16));
  check_reads(end, hand_made(false, 0, 72));
  ZARR_CHECK_ERROR(end.decode(hand_made(false, 1, 72)), errc::corrupt_chunk,
                   "inner chunk 1: expected bytes outside the index (the last 64 bytes of the shard), got offset 1 and length 8");
  // and with a byte to spare before the index (73 bytes): offset 1 is fine, offset 2 is not
  check_reads(end, hand_made(false, 1, 73));
  ZARR_CHECK_ERROR(end.decode(hand_made(false, 2, 73)), errc::corrupt_chunk, "got offset 2 and length 8");
}

BOOST_AUTO_TEST_CASE(rejects_index_entries_out_of_range_or_wrapping_around) {
  const auto c = chain(plain(false), spec({4, 4}, data_type::uint16));
  const auto encoded = c.encode(to_bytes(iota16(16)));  // 32 bytes of inner chunks, then the index
  constexpr auto max = ~std::uint64_t{0};
  struct entry { std::uint64_t offset, nbytes; const char* partial; };
  for (const auto& [offset, nbytes, partial] : {
           entry{max, 8, "inner chunk 1: expected bytes within the shard"},      // only one half marks it empty
           entry{0, max, "inner chunk 1: expected bytes within the shard"},
           entry{max - 7, 16, "inner chunk 1: expected bytes within the shard"}, // offset + nbytes wraps to 8
           entry{max - 1, 2, "inner chunk 1: expected bytes within the shard"},  // wraps to 0
           entry{1000, 8, "expected a byte range within 96 bytes"},             // past the end
           entry{90, 8, "expected a byte range within 96 bytes"}}) {
    BOOST_TEST_CONTEXT("offset " << offset << ", nbytes " << nbytes) {
      const auto bad = with_index(encoded, false, [&](auto& e) {
        e[2] = offset;
        e[3] = nbytes;
      });
      ZARR_CHECK_ERROR(c.decode(bad), errc::corrupt_chunk, "inner chunk 1: expected bytes within the shard's 96");
      ZARR_CHECK_ERROR(read_inner_chunk_1(c, bad), errc::corrupt_chunk, partial);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_inner_chunks_that_decode_to_the_wrong_size) {
  const auto c = chain(plain(false, R"(, {"name": "gzip", "configuration": {"level": 1}})"), spec({4, 4}, data_type::uint16));
  const auto encoded = c.encode(to_bytes(iota16(16)));
  const zarr::gzip_codec gzip({1}, "test");
  for (std::size_t n : {6u, 10u, 0u}) {  // inner chunks hold 8 bytes
    BOOST_TEST_CONTEXT(n << " bytes") {
      // the shard with a gzip stream of n bytes appended before the index, and inner chunk 1 pointing at it
      const auto stream = gzip.encode(random_bytes(n, 1));
      zarr::bytes shard(encoded.begin(), encoded.end() - 64);
      const auto at = shard.size();
      shard.insert(shard.end(), stream.begin(), stream.end());
      shard.insert(shard.end(), encoded.end() - 64, encoded.end());
      shard = with_index(shard, false, [&](auto& e) {
        e[2] = at;
        e[3] = stream.size();
      });
      // gzip fills the inner chunk's 8 bytes directly, so it is the one that finds the size wrong
      const auto message = "inner chunk 1: codecs[0].configuration.codecs[1] (gzip): expected a gzip stream of 8 bytes, got " +
                           (n > 8 ? std::string("more than 8 bytes") : std::to_string(n) + " bytes");
      ZARR_CHECK_ERROR(c.decode(shard), errc::corrupt_chunk, message);
      ZARR_CHECK_ERROR(read_inner_chunk_1(c, shard), errc::corrupt_chunk, message);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_shards_whose_index_would_not_fit_in_64_bits) {
  // 2^62 inner chunks of one uint8 each: 2^66 bytes of index
  ZARR_CHECK_ERROR(chain(R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [1], "codecs": ["bytes"],
                              "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])",
                         spec({std::uint64_t{1} << 62}, data_type::uint8)),
                   errc::invalid_metadata, "codecs[0].configuration.chunk_shape: expected at most");
  ZARR_CHECK_ERROR(chain(R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, -2], "codecs": ["bytes"], "index_codecs": ["bytes"]}}])",
                         spec({4, 4}, data_type::uint16)),
                   errc::invalid_metadata, "chunk_shape: expected positive integers");
}

BOOST_AUTO_TEST_SUITE_END()
