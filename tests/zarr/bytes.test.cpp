// zarr.bytes: byte ranges of stored values, the chunk readers the codecs read from, and the
// buffers a thread keeps.
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>
#include "../support.hpp"
import zarr.error;
import zarr.builder;
import zarr.bytes;

namespace {

zarr::bytes counting(std::size_t n) {
  zarr::bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>(i);
  return b;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(byte_readers)

BOOST_AUTO_TEST_CASE(a_buffer_reader_reads_whole_in_ranges_and_in_place) {
  const auto value = counting(10);
  const zarr::buffer_chunk_reader present{std::span<const std::byte>(value)};
  zarr::bytes all;
  BOOST_TEST(present.read_all(all));
  BOOST_TEST(all == value);
  BOOST_TEST_REQUIRE(present.in_memory() != nullptr);
  BOOST_TEST(present.in_memory()->data() == value.data());  // no copy
  const auto last = present.read(zarr::byte_range::last(3));
  BOOST_TEST_REQUIRE(last.has_value());
  BOOST_TEST(*last == (zarr::bytes{std::byte{7}, std::byte{8}, std::byte{9}}));
  ZARR_CHECK_ERROR(present.read({8, 3}), zarr::errc::corrupt_chunk, "expected a byte range within 10 bytes, got 8+3");

  const zarr::buffer_chunk_reader absent{std::nullopt};
  BOOST_TEST(!absent.read_all(all));
  BOOST_TEST(!absent.read({0, 1}).has_value());
  BOOST_TEST(absent.in_memory() == nullptr);
}

BOOST_AUTO_TEST_CASE(a_byte_range_reader_is_a_value_of_its_own_within_the_one_below) {
  const auto value = counting(20);
  const zarr::buffer_chunk_reader whole{std::span<const std::byte>(value)};
  const zarr::byte_range_reader part(whole, 5, 10);  // bytes 5 .. 14
  zarr::bytes all;
  BOOST_TEST(part.read_all(all));
  BOOST_TEST_REQUIRE(all.size() == 10u);
  BOOST_TEST(std::to_integer<int>(all.front()) == 5);
  const auto tail = part.read(zarr::byte_range::last(2));
  BOOST_TEST_REQUIRE(tail.has_value());
  BOOST_TEST(std::to_integer<int>((*tail)[0]) == 13);
  BOOST_TEST(std::to_integer<int>((*tail)[1]) == 14);
  const auto mid = part.read({2, 3});
  BOOST_TEST(std::to_integer<int>(mid->front()) == 7);
  // Within its own length, not the value below's.
  ZARR_CHECK_ERROR(part.read({8, 3}), zarr::errc::corrupt_chunk, "expected a byte range within 10 bytes, got 8+3");
  BOOST_TEST(!part.ranges_read_whole());
  BOOST_TEST(part.in_memory() == nullptr);
}

BOOST_AUTO_TEST_CASE(thread_buffers_of_one_tag_are_apart_at_each_nesting_depth) {
  struct tag {};
  const zarr::thread_buffer<tag> outer;
  outer->assign(3, std::byte{1});
  {
    const zarr::thread_buffer<tag> inner;
    BOOST_TEST(&*inner != &*outer);
    inner->assign(5, std::byte{2});
    BOOST_TEST(outer->size() == 3u);
  }
  const zarr::thread_buffer<tag> again;  // the inner depth's buffer again, its memory kept
  BOOST_TEST(again->size() == 5u);
}

BOOST_AUTO_TEST_SUITE_END()
