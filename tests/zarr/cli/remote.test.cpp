// zarr3 on s3:// and http(s):// paths: against the RADOS Gateway and nginx that the CTest
// fixtures start (../store/servers.hpp). Every command on S3, the zarrita corpus copied to
// S3 with zarr3 convert and read back equal, reads over HTTP, and the errors.
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "../../support.hpp"
#include "../store/servers.hpp"
#include "run.hpp"
import zarr.dtype;
import zarr.array;
import zarr.store.filesystem;
import zarr.store.s3;
import zarr.nd;

namespace fs = std::filesystem;
using zarr_test::q;
using zarr_test::zarr3;

namespace {

// A fresh bucket, its credentials in the environment zarr3 inherits.
struct bucket_for_cli {
  zarr::s3_options options;
  std::string url;     // "s3://bucket"
  std::string global;  // the global option that points zarr3 at the gateway: "--endpoint URL "
};
std::optional<bucket_for_cli> s3_bucket() {
  auto o = zarr_test::fresh_bucket();
  if (!o) return std::nullopt;
  ::setenv("AWS_ACCESS_KEY_ID", o->access_key_id.c_str(), 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", o->secret_access_key.c_str(), 1);
  ::setenv("AWS_REGION", o->region.c_str(), 1);
  ::unsetenv("AWS_ENDPOINT_URL");
  return bucket_for_cli{*o, "s3://" + o->bucket, "--endpoint " + o->endpoint + " "};
}

const char* metadata_json = R"({"zarr_format": 3, "node_type": "array", "shape": [6, 5], "data_type": "int16",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 2]}},
  "chunk_key_encoding": {"name": "default"}, "fill_value": -1,
  "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 1],
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]})";

const char* values_json = "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29]";

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_remote)

BOOST_AUTO_TEST_CASE(every_command_works_on_s3) {
  const auto b = s3_bucket();
  if (!b) return;
  const auto& bucket = b->url;
  const auto& global = b->global;
  const auto dir = zarr_test::scratch_dir();
  zarr_test::spit(dir / "meta.json", metadata_json);
  zarr_test::spit(dir / "values.json", values_json);
  const auto node = bucket + "/d.zarr#/g/t";

  zarr_test::spit(dir / "group.json", R"({"zarr_format": 3, "node_type": "group"})");
  auto r = zarr3(global + "create " + bucket + "/d.zarr#/g --metadata " + q(dir / "group.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3(global + "create " + node + " --metadata " + q(dir / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3(global + "write " + node + " --input " + q(dir / "values.json") + " --format json");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3(global + "read " + node + " --format json");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.out.find(values_json) == 0u, r.out);
  r = zarr3(global + "read " + node + " --format json --region 1:2,2:4");
  BOOST_TEST(r.out.find("[7,8]") == 0u, r.out);
  r = zarr3(global + "info " + node + " --json");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.out.find("\"chunks_stored\": 6") != std::string::npos, r.out);
  r = zarr3(global + "tree " + bucket + "/d.zarr");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.out.find("t  ") != std::string::npos, r.out);
  r = zarr3(global + "verify " + bucket + "/d.zarr");
  BOOST_TEST(r.status == 0, r.err + r.out);

  // convert between any two stores: S3 -> directory -> S3, the values unchanged.
  r = zarr3(global + "convert " + node + " " + q(dir / "copy.zarr") + "#/t");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3(global + "convert " + q(dir / "copy.zarr") + "#/t " + bucket + "/back.zarr#/t --chunks 2,5");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3(global + "read " + bucket + "/back.zarr#/t --format json");
  BOOST_TEST(r.out.find(values_json) == 0u, r.out);

  // The environment gives the endpoint too.
  ::setenv("AWS_ENDPOINT_URL", b->options.endpoint.c_str(), 1);
  r = zarr3("read " + node + " --format json --region 0:1,0:2");
  ::unsetenv("AWS_ENDPOINT_URL");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("[0,1]") == 0u, r.out);
}

// Each array of the corpus goes to S3 through zarr3 convert; both copies are then read whole
// in this process (a zarr3 read of each would double the time for nothing more).
BOOST_AUTO_TEST_CASE(the_zarrita_corpus_copied_to_s3_with_convert_reads_equal) {
  const auto b = s3_bucket();
  if (!b) return;
  const auto store = zarr_test::data_dir() / "interop" / "corpus-seed1" / "store";
  auto local = std::make_shared<zarr::filesystem_store>(store, false);
  auto options = b->options;
  options.prefix = "corpus";
  auto remote = std::make_shared<zarr::s3_store>(options);
  std::size_t arrays = 0;
  for (const auto& entry : fs::recursive_directory_iterator(store)) {
    if (entry.path().filename() != "zarr.json") continue;
    const auto node = fs::relative(entry.path().parent_path(), store).generic_string();
    if (zarr_test::slurp(entry.path()).find("\"array\"") == std::string::npos) continue;
    BOOST_TEST_CONTEXT(node) {
      const auto copied = zarr3(b->global + "convert " + q(store) + "#/" + node + " " + b->url + "/corpus#/" + node);
      BOOST_TEST_REQUIRE(copied.status == 0, copied.err);
      const auto here = zarr::array::open(local, node), there = zarr::array::open(remote, node);
      BOOST_TEST(here.metadata().type == there.metadata().type);
      const auto all = zarr::region::all(here.shape());
      std::vector<std::byte> want(all.num_elements() * static_cast<std::size_t>(zarr::info(here.type()).size));
      std::vector<std::byte> got(want.size());
      here.read(all, want);
      there.read(all, got);
      BOOST_TEST((got == want), "the copy on S3 reads differently");
      ++arrays;
    }
  }
  BOOST_TEST(arrays >= 100u);
}

BOOST_AUTO_TEST_CASE(a_missing_bucket_is_an_error_that_names_it) {
  const auto b = s3_bucket();
  if (!b) return;
  const auto r = zarr3(b->global + "info s3://zarr-test-no-such-bucket/d.zarr");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("s3 bucket \"zarr-test-no-such-bucket\", key \"d.zarr/zarr.json\"") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("NoSuchBucket") != std::string::npos, r.err);
  BOOST_TEST(r.err.find(std::getenv("AWS_SECRET_ACCESS_KEY")) == std::string::npos, r.err);
  BOOST_TEST(zarr3("--endpoint").status == 2);
}

// --in-flight N, anywhere on the line like --threads: the requests under way at once.
BOOST_AUTO_TEST_CASE(in_flight_takes_a_count_of_requests_and_refuses_anything_else) {
  const auto b = s3_bucket();
  if (!b) return;
  const auto dir = zarr_test::scratch_dir();
  zarr_test::spit(dir / "meta.json", metadata_json);
  zarr_test::spit(dir / "values.json", values_json);
  const auto node = b->url + "/f.zarr#/t";
  auto r = zarr3(b->global + "--in-flight 2 create " + node + " --metadata " + q(dir / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3(b->global + "write " + node + " --in-flight=3 --input " + q(dir / "values.json") + " --format json");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3(b->global + "read " + node + " --format json --in-flight 1");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find(values_json) == 0u, r.out);
  r = zarr3(b->global + "--in-flight 0 read " + node);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--in-flight \"0\": expected a whole number from 1 to 1024") != std::string::npos, r.err);
  BOOST_TEST(zarr3(b->global + "--in-flight many read " + node).status == 2);
}

BOOST_AUTO_TEST_CASE(reads_over_http_and_refuses_to_write_there) {
  const auto env = zarr_test::server_env("ZARR_TEST_HTTP_ENV", "nginx");
  if (!env) return;
  const auto dir = fs::path(env->at("HTTP_ROOT")) / "cli";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto scratch = zarr_test::scratch_dir();
  zarr_test::spit(scratch / "meta.json", metadata_json);
  zarr_test::spit(scratch / "values.json", values_json);
  auto r = zarr3("create " + q(dir / "d.zarr") + "#/t --metadata " + q(scratch / "meta.json"));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = zarr3("write " + q(dir / "d.zarr") + "#/t --input " + q(scratch / "values.json") + " --format json");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const auto url = env->at("HTTP_ENDPOINT") + "/cli/d.zarr";
  r = zarr3("read " + url + "#/t --format json");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.out.find(values_json) == 0u, r.out);
  r = zarr3("info " + url + "#/t");
  BOOST_TEST(r.status == 0, r.err);
  r = zarr3("convert " + url + "#/t " + q(scratch / "local.zarr") + "#/t");
  BOOST_TEST(r.status == 0, r.err);
  r = zarr3("write " + url + "#/t --input " + q(scratch / "values.json") + " --format json");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("read-only HTTP store") != std::string::npos, r.err);
  r = zarr3("tree " + url);
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("no listing") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()
