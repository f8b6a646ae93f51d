// A writer process for the crash-safety and concurrency tests (crash.test.cpp,
// concurrency.test.cpp): rewrites the arrays of generations.hpp in a filesystem store,
// one generation after another, until it is killed or done.
//
//   crash_writer crash ROOT LAST          generations after the root group's, up to LAST (0: forever)
//   crash_writer partition ROOT K N ROUNDS generations 1..ROUNDS of the chunks and shards whose
//                                         number is K modulo N
//   crash_writer element STORE ARRAY E COUNT   element E (row-major) of a many_writers.hpp array,
//                                         COUNT times (values element_value(E, 1..COUNT), as text
//                                         in "strings"), one byte 'd' after each write is done
//   crash_writer region STORE ARRAY R0 R1 C0 C1 SEED   rows R0..R1-1, columns C0..C1-1 of it,
//                                         values region_value(SEED, ...), then 'd'
//   (STORE: a directory, or http://host:port/bucket/prefix for S3.)
//
// It writes one byte to stdout once the store is open, just before its first write ('r'),
// and in crash mode one more after each step of a generation is on disk: 'u' after a unit,
// 'a' after an array's attributes, 'g' after the root group's (the generation is complete),
// gen::steps_per_generation bytes per generation. crash.test.cpp counts them to kill the
// writer after a chosen amount of progress, whatever the machine's speed.
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "generations.hpp"
#include "many_writers.hpp"
import zarr.store;
import zarr.array;
import zarr.store.filesystem;
import zarr.nd;

namespace gen = zarr_test::generations;

namespace {

void say(char c) {
  std::fputc(c, stdout);
  std::fflush(stdout);
}

std::vector<zarr::array> open_arrays(const std::shared_ptr<zarr::store>& s) {
  std::vector<zarr::array> arrays;
  for (const auto& name : gen::array_names) arrays.push_back(zarr::array::open(s, name));
  return arrays;
}

// Per generation: every unit of an array, then that array's attributes; after all
// arrays, the root group's. So after a kill, an array's units are of its attribute's
// generation or the next, and its attribute is the root's or the next.
int crash(const std::string& root, std::uint32_t last) {
  auto s = std::make_shared<zarr::filesystem_store>(root, false);
  auto group = zarr::group::open(s, "");
  auto arrays = open_arrays(s);
  const auto start = gen::generation_attribute(group.metadata().attributes).value() + 1;
  say('r');
  for (std::uint32_t g = start; last == 0 || g <= last; ++g) {
    for (auto& a : arrays) {
      for (std::uint64_t u = 0; u < gen::unit_count(a.path()); ++u) {
        gen::write_unit(a, g, u);
        say('u');
      }
      a.set_attributes(gen::attributes_of(g));
      say('a');
    }
    group.set_attributes({{"generation", g}});
    say('g');
  }
  return 0;
}

int partition(const std::string& root, std::uint64_t k, std::uint64_t n, std::uint32_t rounds) {
  auto s = std::make_shared<zarr::filesystem_store>(root, false);
  auto arrays = open_arrays(s);
  say('r');
  for (std::uint32_t g = 1; g <= rounds; ++g)
    for (auto& a : arrays)
      for (std::uint64_t u = 0; u < gen::unit_count(a.path()); ++u)
        if (gen::storage_of(a.path(), u) % n == k) gen::write_unit(a, g, u);
  return 0;
}

namespace mw = zarr_test::many_writers;

int element(const std::string& store, const std::string& name, std::uint64_t e, std::uint32_t count) {
  auto a = zarr::array::open(mw::open_store(store), name);
  const auto row = e / mw::side, col = e % mw::side;
  say('r');
  for (std::uint32_t n = 1; n <= count; ++n) {
    const zarr::region element{{row, col}, {row + 1, col + 1}};
    if (name == "strings")
      a.write_strings(element, std::vector<std::string>{std::to_string(mw::element_value(e, n))});
    else
      a.write<std::uint32_t>(element, std::vector<std::uint32_t>{mw::element_value(e, n)});
    say('d');
  }
  return 0;
}

int region(const std::string& store, const std::string& name, const std::vector<std::uint64_t>& box, std::uint64_t seed) {
  auto a = zarr::array::open(mw::open_store(store), name);
  std::vector<std::uint32_t> values;
  for (auto r = box[0]; r < box[1]; ++r)
    for (auto c = box[2]; c < box[3]; ++c) values.push_back(mw::region_value(seed, r, c));
  say('r');
  a.write<std::uint32_t>(zarr::region{{box[0], box[2]}, {box[1], box[3]}}, values);
  say('d');
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 3 && args[0] == "crash") return crash(args[1], static_cast<std::uint32_t>(std::stoul(args[2])));
    if (args.size() == 5 && args[0] == "partition")
      return partition(args[1], std::stoull(args[2]), std::stoull(args[3]), static_cast<std::uint32_t>(std::stoul(args[4])));
    if (args.size() == 5 && args[0] == "element")
      return element(args[1], args[2], std::stoull(args[3]), static_cast<std::uint32_t>(std::stoul(args[4])));
    if (args.size() == 8 && args[0] == "region")
      return region(args[1], args[2], {std::stoull(args[3]), std::stoull(args[4]), std::stoull(args[5]), std::stoull(args[6])},
                    std::stoull(args[7]));
    std::fprintf(stderr, "usage: crash_writer crash ROOT LAST | partition ROOT K N ROUNDS | element STORE ARRAY E COUNT"
                         " | region STORE ARRAY R0 R1 C0 C1 SEED\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash_writer: %s\n", e.what());
    return 1;
  }
}
