// zarr.store.http against a real HTTP server: nginx on 127.0.0.1 serving a folder, started by
// the CTest fixture tests/servers/nginx (servers.hpp finds it). Arrays are written into the
// folder with the directory store and read back over HTTP.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include "contract.hpp"
#include "servers.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.store.http;
import zarr.bytes;
import zarr.nd;

namespace {

struct served {
  std::filesystem::path dir;  // the folder nginx serves this test's files from
  std::string url;            // and its URL
};

std::optional<served> served_folder(const std::string& name) {
  const auto env = zarr_test::server_env("ZARR_TEST_HTTP_ENV", "nginx");
  if (!env) return std::nullopt;
  served out{std::filesystem::path(env->at("HTTP_ROOT")) / name, env->at("HTTP_ENDPOINT") + "/" + name};
  std::filesystem::remove_all(out.dir);
  std::filesystem::create_directories(out.dir);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_store)

BOOST_AUTO_TEST_CASE(reads_values_ranges_and_sizes_and_absent_keys) {
  const auto f = served_folder("values");
  if (!f) return;
  zarr::filesystem_store files(f->dir);
  const auto value = zarr_test::some_bytes(100);
  files.set("a/c/0/1", value);
  files.set("a b/zarr.json", zarr_test::some_bytes(3));
  zarr::http_store s(f->url + "/");
  BOOST_TEST(zarr_test::same(*s.get("a/c/0/1"), value));
  BOOST_TEST(*s.size("a/c/0/1") == 100u);
  BOOST_TEST(zarr_test::same(*s.get("a/c/0/1", {10, 5}), std::vector<std::byte>(value.begin() + 10, value.begin() + 15)));
  BOOST_TEST(zarr_test::same(*s.get("a/c/0/1", zarr::byte_range::last(7)), std::vector<std::byte>(value.end() - 7, value.end())));
  BOOST_TEST(s.get("a/c/0/1", {100, 0})->empty());
  ZARR_CHECK_ERROR(s.get("a/c/0/1", {95, 10}), zarr::errc::corrupt_chunk, "a/c/0/1");
  ZARR_CHECK_ERROR(s.get("a/c/0/1", {200, 10}), zarr::errc::corrupt_chunk, "within 100 bytes");
  ZARR_CHECK_ERROR(s.get("a/c/0/1", zarr::byte_range::last(101)), zarr::errc::corrupt_chunk, "a/c/0/1");
  BOOST_TEST(s.get("a b/zarr.json")->size() == 3u);  // percent-encoded in the URL
  BOOST_TEST(!s.get("a/c/9").has_value());
  BOOST_TEST(!s.get("a/c/9", {0, 1}).has_value());
  BOOST_TEST(!s.size("a/c/9").has_value());
  BOOST_TEST(s.snapshot("a/c/9") == nullptr);
  ZARR_CHECK_ERROR(s.get("../x"), zarr::errc::invalid_key, "'..'");

  // A snapshot pins the version by ETag: a rewrite shows as an error, never a mix.
  const auto snap = s.snapshot("a/c/0/1");
  BOOST_TEST_REQUIRE(snap != nullptr);
  BOOST_TEST(zarr_test::same(snap->get(zarr::byte_range{0, 2}), std::vector<std::byte>(value.begin(), value.begin() + 2)));
  files.set("a/c/0/1", zarr_test::some_bytes(50, 3));
  ZARR_CHECK_ERROR(snap->get(zarr::byte_range{0, 2}), zarr::errc::io, "changed while being read");
  BOOST_TEST(s.requests().retries == 0u);
}

// nginx's ETag is the file's modification time in whole seconds and its size ("<mtime hex>-<size
// hex>"), and Last-Modified has the same second: a rewrite of the same size within the same
// second keeps every validator the server sends, so a snapshot cannot tell the versions apart.
// The README ("Object storage: S3 and HTTP") says what holds; this pins both halves: the hole
// (the same second and size) and the rest (another second, or another size: an error).
BOOST_AUTO_TEST_CASE(a_snapshot_over_nginx_notices_a_rewrite_unless_it_keeps_the_size_and_second) {
  const auto f = served_folder("etag");
  if (!f) return;
  zarr::filesystem_store files(f->dir);
  const auto path = f->dir / "k";
  const auto first = zarr_test::some_bytes(100, 1), second = zarr_test::some_bytes(100, 2), third = zarr_test::some_bytes(100, 3);
  files.set("k", first);
  const auto second_of = std::chrono::floor<std::chrono::seconds>(std::filesystem::last_write_time(path));
  std::filesystem::last_write_time(path, second_of);
  zarr::http_store s(f->url + "/");
  const auto snap = s.snapshot("k");
  BOOST_TEST_REQUIRE(snap != nullptr);
  const auto head = [](const std::vector<std::byte>& v) { return std::vector<std::byte>(v.begin(), v.begin() + 10); };
  BOOST_TEST(zarr_test::same(snap->get(zarr::byte_range{0, 10}), head(first)));

  files.set("k", second);  // the same size, and (set here) the same second: nothing tells
  std::filesystem::last_write_time(path, second_of);
  BOOST_TEST(zarr_test::same(snap->get(zarr::byte_range{0, 10}), head(second)));

  files.set("k", third);  // the same size, one second later: the ETag differs
  std::filesystem::last_write_time(path, second_of + std::chrono::seconds(1));
  ZARR_CHECK_ERROR(snap->get(zarr::byte_range{0, 10}), zarr::errc::io, "changed while being read");
}

BOOST_AUTO_TEST_CASE(refuses_writes_and_listing_with_a_clear_error) {
  const auto f = served_folder("readonly");
  if (!f) return;
  zarr::http_store s(f->url);
  ZARR_CHECK_ERROR(s.set("zarr.json", std::vector<std::byte>(3)), zarr::errc::unsupported,
                   "expected a writable store, got a read-only HTTP store");
  ZARR_CHECK_ERROR(s.erase("zarr.json"), zarr::errc::unsupported, "read-only HTTP store");
  ZARR_CHECK_ERROR(s.list(""), zarr::errc::unsupported, "no listing");
  ZARR_CHECK_ERROR(zarr::http_store("ftp://x"), zarr::errc::invalid_argument, "http:// or https://");
}

BOOST_AUTO_TEST_CASE(reads_a_sharded_array_written_to_the_served_folder) {
  const auto f = served_folder("array");
  if (!f) return;
  auto files = std::make_shared<zarr::filesystem_store>(f->dir);
  auto a = zarr::array_builder({40, 30}, zarr::data_type::int32)
               .shards({20, 30}, {10, 10})
               .fill_value(-1)
               .codecs({zarr::codecs::gzip{.level = 1}})
               .create(files, "t");
  std::vector<std::int32_t> values(20 * 30);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * 3);
  a.write<std::int32_t>({{0, 0}, {20, 30}}, values);  // the second shard is never written

  auto s = std::make_shared<zarr::http_store>(f->url);
  const auto b = zarr::array::open(s, "t");
  const auto all = b.read<std::int32_t>(zarr::region::all(b.shape()));
  BOOST_TEST(std::vector<std::int32_t>(all.begin(), all.begin() + 600) == values, boost::test_tools::per_element());
  BOOST_TEST(all[600] == -1);
  BOOST_TEST(all.back() == -1);
  s->reset_requests();
  const auto inner = b.read<std::int32_t>({{10, 10}, {20, 20}});
  BOOST_TEST(inner[0] == values[10 * 30 + 10]);
  BOOST_TEST(s->requests().get == 2u);  // the shard's index, then the inner chunk
}

BOOST_AUTO_TEST_SUITE_END()
