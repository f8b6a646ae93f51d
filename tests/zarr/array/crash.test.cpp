// Crash safety of the filesystem store (docs/decisions.md 23): a writer process killed with
// SIGKILL at random moments leaves every chunk, inner chunk and zarr.json whole (its old
// or its new content), and the store opens and lists. The data is generations.hpp's.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include "../../support.hpp"
#include "generations.hpp"
#include "process.hpp"
import zarr.error;
import zarr.store;
import zarr.array;
import zarr.store.filesystem;

namespace fs = std::filesystem;
namespace gen = zarr_test::generations;

namespace {

std::size_t temporaries_on_disk(const fs::path& root) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename().string().find(".zarr-tmp.") != std::string::npos) ++n;
  return n;
}

// Everything wrong with the store at `root` once its writer is dead, as messages: an
// expected generation is the one in the attributes or the next (crash_writer.cpp writes
// an array's units, then its attributes, then the root group's); a unit of no single
// generation is torn; a missing unit is fine only before the first generation.
std::vector<std::string> problems_after_kill(const fs::path& root) {
  std::vector<std::string> problems;
  try {
    auto s = std::make_shared<zarr::filesystem_store>(root, false);
    for (const auto& key : s->list(""))
      if (key.find(".zarr-tmp.") != std::string::npos || !s->get(key))
        problems.push_back("listed key \"" + key + "\" is a temporary or unreadable");
    auto group = zarr::group::open(s, "");
    const auto r = gen::generation_attribute(group.metadata().attributes);
    if (!r) return {"the root group has no generation"};
    if (group.children() != gen::array_names) problems.push_back("the root group lists other children");
    for (const auto& name : gen::array_names) {
      try {
        auto a = zarr::array::open(s, name);
        const auto g = gen::generation_attribute(a.metadata().attributes);
        if (!g || (*g != *r && *g != *r + 1)) {
          problems.push_back(name + ": generation attribute not " + std::to_string(*r) + " or the next");
          continue;
        }
        for (std::uint64_t u = 0; u < gen::unit_count(name); ++u) {
          const auto values = a.read<std::uint32_t>(gen::unit_region(name, u));
          const auto state = gen::classify(values, u);
          const auto where = name + " unit " + std::to_string(u) + ": ";
          if (state.kind == gen::unit_state::torn)
            problems.push_back(where + "torn (not one generation's content)");
          else if (state.kind == gen::unit_state::missing && *g != 0)
            problems.push_back(where + "missing, though generation " + std::to_string(*g) + " was written");
          else if (state.kind == gen::unit_state::generation && state.g != *g && state.g != *g + 1)
            problems.push_back(where + "generation " + std::to_string(state.g) + ", expected " + std::to_string(*g) +
                               " or the next");
        }
      } catch (const zarr::error& e) {
        problems.push_back(name + ": " + e.what());
      }
    }
  } catch (const zarr::error& e) {
    problems.push_back(e.what());
  }
  return problems;
}

std::string first_problems(const std::vector<std::string>& problems) {
  std::string text;
  for (std::size_t i = 0; i < problems.size() && i < 5; ++i) text += "\n  " + problems[i];
  return text;
}

bool mentions(const std::vector<std::string>& problems, std::string_view part) {
  for (const auto& p : problems)
    if (p.find(part) != std::string::npos) return true;
  return false;
}

// What crash_writer does for one generation, in this process.
void write_generation(const std::shared_ptr<zarr::store>& s, std::uint32_t g) {
  for (const auto& name : gen::array_names) {
    auto a = zarr::array::open(s, name);
    for (std::uint64_t u = 0; u < gen::unit_count(name); ++u) gen::write_unit(a, g, u);
    a.set_attributes(gen::attributes_of(g));
  }
  zarr::group::open(s, "").set_attributes({{"generation", g}});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(crash_safety)

BOOST_AUTO_TEST_CASE(the_check_finds_torn_missing_and_stale_chunks_and_torn_metadata) {
  const auto root = zarr_test::scratch_dir() / "store";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  gen::create_layout(s);
  BOOST_TEST(problems_after_kill(root).empty());  // nothing written yet: every unit missing is fine
  write_generation(s, 1);
  write_generation(s, 2);
  BOOST_TEST_REQUIRE(problems_after_kill(root).empty(), first_problems(problems_after_kill(root)));
  auto plain = zarr::array::open(s, "plain");

  // Half of a chunk from generation 2, half from generation 3: what an in-place rewrite
  // cut short would leave.
  auto mixed = gen::unit_values(2, "plain", 2);
  const auto newer = gen::unit_values(3, "plain", 2);
  std::copy(newer.begin() + 128, newer.end(), mixed.begin() + 128);
  plain.write<std::uint32_t>(gen::unit_region("plain", 2), mixed);
  BOOST_TEST(mentions(problems_after_kill(root), "plain unit 2: torn"), first_problems(problems_after_kill(root)));
  gen::write_unit(plain, 2, 2);

  // A chunk cut short.
  const auto key = zarr::array::open(s, "crc").chunk_key(std::vector<std::uint64_t>{1, 0});
  const auto whole = *s->get(key);
  s->set(key, std::span(whole).first(whole.size() - 1));
  BOOST_TEST(mentions(problems_after_kill(root), "crc: array \"/crc\", chunk \"crc/c/1/0\""),
             first_problems(problems_after_kill(root)));
  s->set(key, whole);

  // An inner chunk of a shard from a generation too old, then a whole shard gone.
  auto sharded = zarr::array::open(s, "sharded");
  gen::write_unit(sharded, 1, 9);
  BOOST_TEST(mentions(problems_after_kill(root), "sharded unit 9: generation 1"), first_problems(problems_after_kill(root)));
  gen::write_unit(sharded, 2, 9);
  const auto shard = sharded.chunk_key(std::vector<std::uint64_t>{1, 0});
  const auto shard_bytes = *s->get(shard);
  s->erase(shard);
  BOOST_TEST(mentions(problems_after_kill(root), "sharded unit 8: missing"), first_problems(problems_after_kill(root)));
  s->set(shard, shard_bytes);

  // A zarr.json cut short.
  const auto doc = *s->get("plain/zarr.json");
  s->set("plain/zarr.json", std::span(doc).first(doc.size() / 2));
  BOOST_TEST(mentions(problems_after_kill(root), "plain: node \"/plain\""), first_problems(problems_after_kill(root)));
  s->set("plain/zarr.json", doc);
  BOOST_TEST(problems_after_kill(root).empty(), first_problems(problems_after_kill(root)));
}

BOOST_AUTO_TEST_CASE(leftover_temporary_files_do_not_break_opening_or_listing) {
  const auto root = zarr_test::scratch_dir() / "store";
  auto s = std::make_shared<zarr::filesystem_store>(root);
  gen::create_layout(s);
  write_generation(s, 1);
  // What writers killed between creating and renaming their temporary file leave.
  std::ofstream(root / "zarr.json.zarr-tmp.4242.0") << R"({"zarr_format": 3, "node_)";
  std::ofstream(root / "plain" / "zarr.json.zarr-tmp.4242.1") << "{";
  std::ofstream(root / "plain" / "c" / "0" / "0.zarr-tmp.4242.2") << "x";
  fs::create_directories(root / "crc" / "c" / "9");
  std::ofstream(root / "crc" / "c" / "9" / "9.zarr-tmp.4242.3") << "x";
  std::ofstream(root / "sharded" / "c" / "1" / "1.zarr-tmp.4242.4") << "x";
  BOOST_TEST(problems_after_kill(root).empty(), first_problems(problems_after_kill(root)));
  BOOST_TEST(s->list_dir("crc/c/") == (std::vector<std::string>{"0", "1"}), boost::test_tools::per_element());
  // A writer goes on writing over them, and they can be removed when no writer runs.
  write_generation(s, 2);
  BOOST_TEST(problems_after_kill(root).empty(), first_problems(problems_after_kill(root)));
  BOOST_TEST(temporaries_on_disk(root) == 5u);
  BOOST_TEST(zarr::filesystem_store(root).remove_temporaries() == 5u);
  BOOST_TEST(temporaries_on_disk(root) == 0u);
  BOOST_TEST(problems_after_kill(root).empty(), first_problems(problems_after_kill(root)));
}

BOOST_AUTO_TEST_CASE(every_chunk_and_document_survives_a_writer_killed_200_times) {
  const auto root = zarr_test::scratch_dir() / "store";
  gen::create_layout(std::make_shared<zarr::filesystem_store>(root));
  // The kill points count the writer's progress, not time: the writer reports every step
  // (a unit, an array's attributes, the root group's: crash_writer.cpp) once it is on disk,
  // and the test kills it right after the step it chose, wherever the writer then is (it
  // does not wait for the test, so the kill lands anywhere in the steps that follow). So
  // each writer completes at least `steps / steps_per_generation` generations, on any
  // machine, and the generation reached at the end is at least their sum.
  const auto per_generation = gen::steps_per_generation();
  std::mt19937 rng(20240611);  // fixed: the same sequence of kill points every run
  std::size_t early = 0, leftovers = 0, jittered = 0;
  std::uint64_t guaranteed = 0;
  for (int kill = 0; kill < 200; ++kill) {
    zarr_test::child_process writer({"crash", root.string(), "0"});
    // One kill in eight as soon as the process exists, maybe before it writes; the others
    // after 0 to one and a half generations of steps, half of them a few microseconds later
    // (so that they land inside a write more often than between two).
    std::uint64_t steps = 0;
    if (kill % 8 == 0) {
      ++early;
    } else {
      BOOST_TEST_REQUIRE(writer.wait_byte(), "kill " << kill << ": the writer exited before writing");
      steps = std::uniform_int_distribution<std::uint64_t>(0, per_generation * 3 / 2)(rng);
      for (std::uint64_t i = 0; i < steps; ++i)
        BOOST_TEST_REQUIRE(writer.wait_byte(), "kill " << kill << ": the writer exited after " << i << " steps");
      guaranteed += steps / per_generation;
      if (rng() % 2 == 0) {
        ++jittered;
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
      }
    }
    writer.kill();
    const auto status = writer.wait();
    BOOST_TEST_REQUIRE((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL),
                       "kill " << kill << ": the writer ended with " << zarr_test::describe_status(status));
    const auto problems = problems_after_kill(root);
    BOOST_TEST_REQUIRE(problems.empty(), "kill " << kill << " after " << steps << " steps:" << first_problems(problems));
  }
  leftovers = temporaries_on_disk(root);
  // Unkilled, it finishes two more generations, and every unit holds the last one.
  auto s = std::make_shared<zarr::filesystem_store>(root, false);
  const auto reached = gen::generation_attribute(zarr::group::open(s, "").metadata().attributes).value();
  BOOST_TEST_MESSAGE("200 kills (" << early << " as the writer starts, " << jittered << " a few us after a step); "
                                   << guaranteed << " generations guaranteed by the steps seen, generation " << reached
                                   << " reached; " << leftovers << " temporary files left behind");
  BOOST_TEST(guaranteed >= 20u);  // the kill points do reach across generations (fixed by the seed)
  BOOST_TEST(reached >= guaranteed);
  zarr_test::child_process writer({"crash", root.string(), std::to_string(reached + 2)});
  BOOST_TEST(zarr_test::describe_status(writer.wait()) == "exit 0");
  for (const auto& name : gen::array_names) {
    auto a = zarr::array::open(s, name);
    BOOST_TEST(gen::generation_attribute(a.metadata().attributes).value_or(0) == reached + 2);
    for (std::uint64_t u = 0; u < gen::unit_count(name); ++u) {
      const auto state = gen::classify(a.read<std::uint32_t>(gen::unit_region(name, u)), u);
      BOOST_TEST((state.kind == gen::unit_state::generation && state.g == reached + 2), name << " unit " << u);
    }
  }
  zarr::filesystem_store(root).remove_temporaries();
  BOOST_TEST(temporaries_on_disk(root) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
