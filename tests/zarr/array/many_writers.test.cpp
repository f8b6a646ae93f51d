// Many writers, nothing lost (docs/decisions.md 64): writer processes (crash_writer "element",
// "region") each write part of one shard, one plain chunk or one chunk of strings at once, on
// a directory and on the RADOS Gateway (the rgw CTest fixture); no update a writer reported done is lost, also when
// writers are killed at random moments; a model of random interleaved partial writes agrees;
// an S3 server that ignores conditional writes (tests/servers/no_conditions.py in front of the
// gateway) makes partial writes fail with the way out, and single_writer succeed.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include "../../support.hpp"
#include "../store/servers.hpp"
#include "many_writers.hpp"
#include "process.hpp"
import zarr.error;
import zarr.dtype;
import zarr.store;
import zarr.array;
import zarr.store.s3;
import zarr.nd;

namespace mw = zarr_test::many_writers;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr std::uint64_t writers = mw::side * mw::side;  // one per element
constexpr std::uint32_t writes_each = 3;

// Where the rounds of a test live: directories below the scratch folder, or prefixes of one
// bucket of the gateway. For the S3 writers, the credentials go to the environment.
struct place {
  std::string base;  // a folder, or http://host:port/bucket
  bool s3 = false;

  [[nodiscard]] std::string spec(const std::string& name) const { return base + "/" + name; }
  [[nodiscard]] std::shared_ptr<zarr::store> store(const std::string& name) const {
    if (!s3) std::filesystem::create_directories(spec(name));
    return mw::open_store(spec(name));
  }
};

std::optional<place> directory_place() { return place{.base = zarr_test::scratch_dir().string(), .s3 = false}; }

std::optional<place> gateway_place() {
  const auto o = zarr_test::fresh_bucket();
  if (!o) return std::nullopt;
  ::setenv("AWS_ACCESS_KEY_ID", o->access_key_id.c_str(), 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", o->secret_access_key.c_str(), 1);
  return place{.base = o->endpoint + "/" + o->bucket, .s3 = true};
}

std::uint32_t seed_from_environment() {
  std::random_device device;
  const auto seed = device();
  BOOST_TEST_MESSAGE("random seed " << seed);
  return seed;
}

// The values of a 4 x 4 array, those of "strings" read as decimal numbers ("" as 0).
std::vector<std::uint32_t> read_values(const zarr::array& a) {
  const auto all = zarr::region::all(a.shape());
  if (a.metadata().type != zarr::data_type::string) return a.read<std::uint32_t>(all);
  std::vector<std::uint32_t> values;
  for (const auto& text : a.read_strings(all)) values.push_back(text.empty() ? 0 : static_cast<std::uint32_t>(std::stoul(text)));
  return values;
}

void write_value(zarr::array& a, std::uint64_t e, std::uint32_t value) {
  const zarr::region element{{e / mw::side, e % mw::side}, {e / mw::side + 1, e % mw::side + 1}};
  if (a.metadata().type == zarr::data_type::string)
    a.write_strings(element, std::vector<std::string>{std::to_string(value)});
  else
    a.write<std::uint32_t>(element, std::vector<std::uint32_t>{value});
}

// One round: 16 writer processes, each writing its element of `name` writes_each times; with
// `kill_after`, each is killed (SIGKILL) at a random moment within it. Then every element holds
// the last value its writer wrote (or a later one it wrote but had not yet reported), every
// chunk decodes, and a write of every element afterwards waits on no dead writer's lock.
// Returns how long the writers took.
clock_type::duration run_round(const place& p, const std::string& round, const std::string& name,
                               std::optional<clock_type::duration> kill_within, std::mt19937& random) {
  const auto s = p.store(round);
  auto a = zarr::array::create(s, name, mw::metadata_of(name));
  const auto start = clock_type::now();
  std::vector<std::unique_ptr<zarr_test::child_process>> children;
  for (std::uint64_t e = 0; e < writers; ++e)
    children.push_back(std::make_unique<zarr_test::child_process>(
        std::vector<std::string>{"element", p.spec(round), name, std::to_string(e), std::to_string(writes_each)}));
  if (kill_within) {
    std::vector<std::pair<clock_type::duration, std::size_t>> kills;
    std::uniform_int_distribution<long long> when(0, std::chrono::duration_cast<std::chrono::microseconds>(*kill_within).count());
    for (std::size_t i = 0; i < children.size(); ++i) kills.emplace_back(std::chrono::microseconds(when(random)), i);
    std::sort(kills.begin(), kills.end());
    for (const auto& [at, i] : kills) {
      std::this_thread::sleep_until(start + at);
      children[i]->kill();
    }
  }
  std::vector<std::uint32_t> reported(writers);
  for (std::uint64_t e = 0; e < writers; ++e) {
    const auto out = children[e]->read_all();
    reported[e] = static_cast<std::uint32_t>(std::count(out.begin(), out.end(), 'd'));
    const auto status = children[e]->wait();
    if (!kill_within) BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), "writer " << e << ": " << zarr_test::describe_status(status));
  }
  const auto took = clock_type::now() - start;
  std::vector<std::uint32_t> values;
  BOOST_REQUIRE_NO_THROW(values = read_values(a));  // every chunk decodes
  std::size_t lost = 0, killed_early = 0;
  for (std::uint64_t e = 0; e < writers; ++e) {
    const auto v = values[e];
    const bool ok = kill_within ? (reported[e] == 0 ? v == 0 || (v >= mw::element_value(e, 1) && v <= mw::element_value(e, writes_each))
                                                    : v >= mw::element_value(e, reported[e]) && v <= mw::element_value(e, writes_each))
                                : v == mw::element_value(e, writes_each);
    if (!ok) {
      ++lost;
      BOOST_TEST_MESSAGE(name << " element " << e << ": " << v << ", its writer reported " << reported[e] << " writes done");
    }
    if (reported[e] < writes_each) ++killed_early;
  }
  BOOST_TEST(lost == 0u, p.spec(round) << " " << name << ": " << lost << " of " << writers << " elements lost an update");
  if (kill_within) BOOST_TEST_MESSAGE(round << " " << name << ": " << killed_early << " writers killed before their last write");
  // Nobody waits on a dead writer's lock: a write of every element completes at once.
  const auto after = clock_type::now();
  for (std::uint64_t e = 0; e < writers; ++e) write_value(a, e, 7);
  BOOST_TEST(std::chrono::duration<double>(clock_type::now() - after).count() < 20.0);
  BOOST_TEST(read_values(a) == std::vector<std::uint32_t>(writers, 7), boost::test_tools::per_element());
  return took;
}

// `rounds` rounds per array (`names`); writers are killed in every fourth round, at random
// moments within the time the first round took.
void run_rounds(const place& p, int rounds, std::initializer_list<std::string> names = {"shard", "chunk"}) {
  std::mt19937 random(seed_from_environment());
  for (const auto& name : names) {
    clock_type::duration normal{};
    for (int r = 0; r < rounds; ++r) {
      const bool kill = r % 4 == 3;
      const auto took = run_round(p, name + "-round-" + std::to_string(r), name, kill ? std::optional(normal) : std::nullopt, random);
      if (r == 0) normal = took;
      if (r == 0) BOOST_TEST_MESSAGE(name << ": a round of " << writers << " writers took " << std::chrono::duration<double>(took).count() << " s");
    }
  }
}

// Random disjoint boxes of the 10 x 12 model array, one per writer.
std::vector<std::vector<std::uint64_t>> disjoint_boxes(std::size_t count, std::mt19937& random) {
  std::vector<std::vector<std::uint64_t>> boxes;
  for (int tries = 0; boxes.size() < count && tries < 1000; ++tries) {
    std::uniform_int_distribution<std::uint64_t> row(0, 9), col(0, 11);
    auto r0 = row(random), r1 = row(random), c0 = col(random), c1 = col(random);
    if (r0 > r1) std::swap(r0, r1);
    if (c0 > c1) std::swap(c0, c1);
    const std::vector<std::uint64_t> box{r0, r1 + 1, c0, c1 + 1};
    const bool overlaps = std::any_of(boxes.begin(), boxes.end(), [&](const auto& b) {
      return box[0] < b[1] && b[0] < box[1] && box[2] < b[3] && b[2] < box[3];
    });
    if (!overlaps) boxes.push_back(box);
  }
  return boxes;
}

// Rounds of 4 writer processes, each writing a random box (disjoint from the others', mostly
// covering shards in part) with values of its own; after each round the array equals a plain
// in-memory model that applied the same boxes.
void run_model(const place& p, int rounds) {
  std::mt19937 random(seed_from_environment());
  const auto s = p.store("model");
  auto a = zarr::array::create(s, "model", mw::metadata_of("model"));
  std::vector<std::uint32_t> model(10 * 12, 0);
  for (int r = 0; r < rounds; ++r) {
    const auto boxes = disjoint_boxes(4, random);
    std::vector<std::unique_ptr<zarr_test::child_process>> children;
    std::vector<std::uint64_t> seeds;
    for (const auto& b : boxes) {
      seeds.push_back(random());
      children.push_back(std::make_unique<zarr_test::child_process>(std::vector<std::string>{
          "region", p.spec("model"), "model", std::to_string(b[0]), std::to_string(b[1]), std::to_string(b[2]),
          std::to_string(b[3]), std::to_string(seeds.back())}));
    }
    for (auto& c : children) {
      const auto status = c->wait();
      BOOST_TEST_REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "writer: " << zarr_test::describe_status(status));
    }
    for (std::size_t i = 0; i < boxes.size(); ++i)
      for (auto row = boxes[i][0]; row < boxes[i][1]; ++row)
        for (auto col = boxes[i][2]; col < boxes[i][3]; ++col) model[row * 12 + col] = mw::region_value(seeds[i], row, col);
    const auto stored = a.read<std::uint32_t>(zarr::region::all(a.shape()));
    BOOST_TEST_REQUIRE(stored == model, "round " << r << ": the array differs from the model");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(many_writers)

BOOST_AUTO_TEST_CASE(sixteen_processes_writing_one_shard_or_chunk_on_a_directory_lose_no_update_also_when_killed) {
  run_rounds(*directory_place(), 20);
}

BOOST_AUTO_TEST_CASE(sixteen_processes_writing_one_shard_or_chunk_on_the_gateway_lose_no_update_also_when_killed) {
  const auto p = gateway_place();
  if (!p) return;
  run_rounds(*p, 20);
}

// Strings (vlen-utf8) take the same read-modify-write: a few rounds, the last with kills.
BOOST_AUTO_TEST_CASE(sixteen_processes_writing_one_chunk_of_strings_lose_no_update_on_a_directory_and_the_gateway) {
  run_rounds(*directory_place(), 4, {"strings"});
  if (const auto p = gateway_place()) run_rounds(*p, 4, {"strings"});
}

BOOST_AUTO_TEST_CASE(random_partial_writes_of_processes_agree_with_a_model_on_a_directory) { run_model(*directory_place(), 12); }

BOOST_AUTO_TEST_CASE(random_partial_writes_of_processes_agree_with_a_model_on_the_gateway) {
  const auto p = gateway_place();
  if (!p) return;
  run_model(*p, 6);
}

BOOST_AUTO_TEST_CASE(partial_writes_through_a_server_ignoring_conditions_fail_naming_the_way_out_unless_single_writer) {
  const auto o = zarr_test::fresh_bucket();
  if (!o) return;
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_NO_CONDITIONS_PROXY");
  BOOST_TEST_REQUIRE(python != nullptr);
  BOOST_TEST_REQUIRE(script != nullptr);
  zarr_test::child_process proxy(python, {script, o->endpoint, o->access_key_id, o->secret_access_key, o->region});
  const auto port = proxy.read_line();
  BOOST_TEST_REQUIRE(!port.empty(), "the proxy did not start");
  auto via = *o;
  via.endpoint = "http://127.0.0.1:" + port;
  const auto s = std::make_shared<zarr::s3_store>(via);
  BOOST_TEST(zarr::s3_store(*o).atomic_updates());  // the gateway itself honours them
  BOOST_TEST(!s->atomic_updates());

  auto a = zarr::array::create(s, "shard", mw::metadata_of("shard"));
  std::vector<std::uint32_t> all(writers);
  for (std::uint64_t e = 0; e < writers; ++e) all[e] = mw::element_value(e, 1);
  a.write<std::uint32_t>(zarr::region::all(a.shape()), all);  // a whole shard: no read, no condition
  const std::vector<std::uint32_t> one{5};
  const zarr::region element{{1, 2}, {2, 3}};
  try {
    a.write<std::uint32_t>(element, one);
    BOOST_FAIL("a partial write through a server without conditional writes succeeded");
  } catch (const zarr::error& e) {
    BOOST_TEST(e.code() == zarr::errc::unsupported);
    const std::string message = e.what();
    BOOST_TEST(message.find("shard/c/0/0") != std::string::npos, message);
    BOOST_TEST(message.find("expected a store that makes updates atomic (conditional writes") != std::string::npos, message);
    BOOST_TEST(message.find("If-Match") != std::string::npos, message);
    BOOST_TEST(message.find("single_writer") != std::string::npos, message);
    BOOST_TEST(message.find("--single-writer") != std::string::npos, message);
  }
  BOOST_TEST(a.read<std::uint32_t>(zarr::region::all(a.shape())) == all, boost::test_tools::per_element());

  auto single = zarr::array::open(s, "shard", {.single_writer = true});
  single.write<std::uint32_t>(element, one);
  all[1 * mw::side + 2] = 5;
  BOOST_TEST(zarr::array::open(std::make_shared<zarr::s3_store>(*o), "shard")
                 .read<std::uint32_t>(zarr::region::all(a.shape())) == all,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
