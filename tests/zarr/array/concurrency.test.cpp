// Concurrent writers and readers (README "Concurrency"): threads of one process and
// separate processes writing disjoint chunks lose nothing; threads writing inner chunks
// of the same shard lose nothing; readers during writes see whole chunks only. For the
// filesystem and the memory store; the data is generations.hpp's.
#include <boost/test/unit_test.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include "../../support.hpp"
#include "generations.hpp"
#include "process.hpp"
import zarr.error;
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.store.filesystem;
import zarr.bytes;
import zarr.nd;

namespace gen = zarr_test::generations;

namespace {

constexpr std::uint32_t rounds = 4;

// A new store with the layout of generations.hpp: in memory, or in a scratch folder.
std::shared_ptr<zarr::store> new_store(bool on_disk) {
  std::shared_ptr<zarr::store> s;
  if (on_disk) s = std::make_shared<zarr::filesystem_store>(zarr_test::scratch_dir() / "store");
  else s = std::make_shared<zarr::memory_store>();
  gen::create_layout(s);
  return s;
}

// Checks that every unit of every array holds generation g.
void check_all_of_generation(const std::shared_ptr<zarr::store>& s, std::uint32_t g) {
  for (const auto& name : gen::array_names) {
    const auto a = zarr::array::open(s, name);
    std::size_t wrong = 0;
    for (std::uint64_t u = 0; u < gen::unit_count(name); ++u) {
      const auto state = gen::classify(a.read<std::uint32_t>(gen::unit_region(name, u)), u);
      if (state.kind != gen::unit_state::generation || state.g != g) {
        if (wrong++ == 0) BOOST_TEST_MESSAGE(name << " unit " << u << ": kind " << state.kind << ", generation " << state.g);
      }
    }
    BOOST_TEST(wrong == 0u, name << ": " << wrong << " units lost an update");
  }
}

// Runs `writers` on threads while `readers` threads read random units, each of which
// must hold one generation's content or be missing.
void write_while_reading(const std::shared_ptr<zarr::store>& s, const std::vector<std::function<void()>>& writers,
                                int readers) {
  std::atomic<bool> done{false};
  std::atomic<std::size_t> reads{0};
  std::mutex mutex;
  std::vector<std::string> problems;
  std::vector<std::jthread> reader_threads;
  for (int t = 0; t < readers; ++t)
    reader_threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t) + 1);
      std::vector<zarr::array> arrays;
      for (const auto& name : gen::array_names) arrays.push_back(zarr::array::open(s, name));
      do {
        auto& a = arrays[rng() % arrays.size()];
        const auto u = rng() % gen::unit_count(a.path());
        std::string problem;
        try {
          const auto state = gen::classify(a.read<std::uint32_t>(gen::unit_region(a.path(), u)), u);
          if (state.kind == gen::unit_state::torn) problem = a.path() + " unit " + std::to_string(u) + ": torn";
        } catch (const zarr::error& e) {
          problem = a.path() + " unit " + std::to_string(u) + ": " + e.what();
        }
        for (const auto& key : s->list(zarr::node_prefix(a.path())))
          if (key.find(".zarr-tmp.") != std::string::npos) problem = "listed a temporary: " + key;
        ++reads;
        if (!problem.empty()) {
          const std::lock_guard lock(mutex);
          problems.push_back(problem);
        }
      } while (!done.load());
    });
  {
    std::vector<std::jthread> writer_threads;
    for (const auto& w : writers)
      writer_threads.emplace_back([&, w] {
        try {
          w();
        } catch (const std::exception& e) {
          const std::lock_guard lock(mutex);
          problems.push_back(std::string("a writer failed: ") + e.what());
        }
      });
  }
  done = true;
  reader_threads.clear();
  BOOST_TEST(problems.empty(), problems.size() << " bad reads, the first: " << (problems.empty() ? "" : problems[0]));
  BOOST_TEST_MESSAGE(reads << " units read during the writes");
}

// One writer per thread: thread k of n writes generations 1..rounds of the units that
// `mine` picks for it, through its own array objects.
using picker = std::function<bool(const std::string&, std::uint64_t, int)>;
std::vector<std::function<void()>> writers(const std::shared_ptr<zarr::store>& s, int n, picker mine) {
  std::vector<std::function<void()>> out;
  for (int k = 0; k < n; ++k)
    out.emplace_back([=] {
      for (std::uint32_t g = 1; g <= rounds; ++g)
        for (const auto& name : gen::array_names) {
          auto a = zarr::array::open(s, name);
          for (std::uint64_t u = 0; u < gen::unit_count(name); ++u)
            if (mine(name, u, k)) gen::write_unit(a, g, u);
        }
    });
  return out;
}

// A store object over another one whose whole-value reads take a while: it widens the
// window between a writer reading a shard and storing it again, where another writer
// of the same shard would lose its update if the two did not take turns.
class slow_reads final : public zarr::store {
 public:
  explicit slow_reads(std::shared_ptr<zarr::store> inner) : inner_(std::move(inner)) {}
  [[nodiscard]] std::optional<zarr::bytes> get(std::string_view key) const override {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    return inner_->get(key);
  }
  [[nodiscard]] std::optional<zarr::bytes> get(std::string_view key, zarr::byte_range range) const override {
    return inner_->get(key, range);
  }
  [[nodiscard]] std::unique_ptr<const zarr::stored_value> snapshot(std::string_view key) const override {
    return inner_->snapshot(key);
  }
  [[nodiscard]] std::optional<std::uint64_t> size(std::string_view key) const override { return inner_->size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override { inner_->set(key, value); }
  void erase(std::string_view key) override { inner_->erase(key); }
  [[nodiscard]] std::vector<std::string> list(std::string_view prefix) const override { return inner_->list(prefix); }
  // The read of a read-modify-write (store::update's loop, run here) is slow too: writers of
  // one shard meet, and their conditional writes must send the later ones round again.
  [[nodiscard]] zarr::versioned_value get_versioned(std::string_view key) const override {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    return inner_->get_versioned(key);
  }
  [[nodiscard]] bool set_if(std::string_view key, std::span<const std::byte> value, const zarr::value_version& expected) override {
    return inner_->set_if(key, value, expected);
  }
  [[nodiscard]] bool erase_if(std::string_view key, const zarr::value_version& expected) override {
    return inner_->erase_if(key, expected);
  }
  [[nodiscard]] bool atomic_updates() const override { return inner_->atomic_updates(); }
  [[nodiscard]] bool erases_conditionally() const override { return inner_->erases_conditionally(); }

 private:
  std::shared_ptr<zarr::store> inner_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(concurrency)

BOOST_AUTO_TEST_CASE(threads_writing_disjoint_chunks_lose_nothing_and_readers_see_whole_chunks) {
  for (const bool on_disk : {false, true}) {
    BOOST_TEST_CONTEXT((on_disk ? "filesystem store" : "memory store")) {
      const auto s = new_store(on_disk);
      const auto by_chunk = [](const std::string& name, std::uint64_t u, int k) {
        return gen::storage_of(name, u) % 4 == static_cast<std::uint64_t>(k);
      };
      write_while_reading(s, writers(s, 4, by_chunk), 2);
      check_all_of_generation(s, rounds);
    }
  }
}

BOOST_AUTO_TEST_CASE(threads_writing_inner_chunks_of_the_same_shards_lose_nothing) {
  // 4 shards of 64 inner chunks each (4 x 4), every inner chunk written once, by four
  // threads taking turns along each shard: a write lost anywhere stays lost, so the
  // per-shard lock must hold from reading the shard to storing it again.
  constexpr std::uint64_t inner = 4, per_shard = 64, units = 4 * per_shard;
  const auto meta = zarr::array_metadata::parse(boost::json::parse(R"({"zarr_format": 3, "node_type": "array",
      "shape": [4, 1024], "data_type": "uint32", "fill_value": 0,
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 256]}},
      "chunk_key_encoding": {"name": "default"},
      "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 4],
          "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
          "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]})"));
  const auto region_of = [&](std::uint64_t u) { return zarr::region{{0, u * inner}, {inner, u * inner + inner}}; };
  const auto values_of = [&](std::uint64_t u) {
    std::vector<std::uint32_t> v(inner * inner);
    for (std::uint64_t i = 0; i < v.size(); ++i) v[i] = gen::value(1, u, i);
    return v;
  };
  for (const int variant : {0, 1, 2}) {
    const char* names[] = {"memory store", "filesystem store", "filesystem store, one store object per thread"};
    BOOST_TEST_CONTEXT(names[variant]) {
      const auto s = new_store(variant > 0);
      zarr::array::create(s, "wide", meta);
      // Every thread reads slowly (see slow_reads) through its own store object, over the
      // same store object or, in the last variant, over its own one for the directory.
      std::vector<std::shared_ptr<zarr::store>> stores;
      for (int k = 0; k < 4; ++k) {
        auto inner = variant < 2 ? s : std::make_shared<zarr::filesystem_store>(
                                          std::static_pointer_cast<zarr::filesystem_store>(s)->root(), false);
        stores.push_back(std::make_shared<slow_reads>(std::move(inner)));
      }
      std::vector<std::function<void()>> threads;
      for (std::uint64_t k = 0; k < 4; ++k)
        threads.emplace_back([&, k] {
          auto a = zarr::array::open(stores[k], "wide");
          for (std::uint64_t u = k; u < units; u += 4) a.write<std::uint32_t>(region_of(u), values_of(u));
        });
      write_while_reading(s, threads, 1);
      const auto back = zarr::array::open(s, "wide");
      std::size_t lost = 0;
      for (std::uint64_t u = 0; u < units; ++u) lost += back.read<std::uint32_t>(region_of(u)) != values_of(u);
      BOOST_TEST(lost == 0u, lost << " of " << units << " inner chunk writes lost");
    }
  }
}

BOOST_AUTO_TEST_CASE(processes_writing_disjoint_chunks_and_shards_lose_nothing) {
  const auto s = new_store(true);
  const auto root = std::static_pointer_cast<zarr::filesystem_store>(s)->root().string();
  constexpr int processes = 4;
  std::vector<std::unique_ptr<zarr_test::child_process>> children;
  for (int k = 0; k < processes; ++k)
    children.push_back(std::make_unique<zarr_test::child_process>(std::vector<std::string>{
        "partition", root, std::to_string(k), std::to_string(processes), std::to_string(rounds)}));
  std::vector<int> statuses;
  const auto wait_for_all = [&] {
    for (auto& c : children) statuses.push_back(c->wait());
  };
  write_while_reading(s, {wait_for_all}, 1);
  for (const auto status : statuses) BOOST_TEST(zarr_test::describe_status(status) == "exit 0");
  check_all_of_generation(s, rounds);
}

BOOST_AUTO_TEST_SUITE_END()
