// Many writers into one shard or one chunk (issue 24): WRITERS processes, each writing its own
// element of a 4 x 4 uint32 array UPDATES times, all at once; every write is a partial write of
// the same key, so each is a read-modify-write that the store makes atomic (store::update).
// The time runs from the moment every writer has opened the array to the last one's exit; then
// every element is read back and compared with its writer's last value (an update lost shows).
//
//   zarr.bench.contended LAYOUT WRITERS UPDATES STORE
//     LAYOUT: shard (one shard of 2 x 2 inner chunks, bytes + zstd) | chunk (one chunk, bytes + zstd)
//     WRITERS: 1..16; STORE: a directory, or http://host:port/bucket/prefix (S3, credentials from
//     AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)
//   Prints one JSON line: {"layout", "store", "writers", "updates", "seconds", "updates_per_second", "lost"}.
//
// Each writer is this program again ("writer" as the first argument), started with posix_spawn;
// it says 'r' on its stdout once the array is open and starts when its stdin gives a byte.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>
import zarr;

extern char** environ;

namespace {

constexpr std::uint64_t side = 4;

std::uint32_t value_of(std::uint64_t element, std::uint64_t n) {
  return static_cast<std::uint32_t>((element + 1) * 1000000 + n);
}

std::shared_ptr<zarr::store> open_store(const std::string& text, bool create) {
  if (!text.starts_with("http://")) return std::make_shared<zarr::filesystem_store>(text, create);
  const auto host_end = text.find('/', 7);
  const auto bucket_end = text.find('/', host_end + 1);
  if (host_end == std::string::npos || bucket_end == std::string::npos)
    throw std::runtime_error("STORE: expected http://host:port/bucket/prefix, got " + text);
  zarr::s3_options o;
  o.endpoint = text.substr(0, host_end);
  o.bucket = text.substr(host_end + 1, bucket_end - host_end - 1);
  o.prefix = text.substr(bucket_end + 1);
  auto s = std::make_shared<zarr::s3_store>(o);
  if (create) s->create_bucket();
  return s;
}

zarr::array_metadata metadata_of(const std::string& layout) {
  const std::string inner = R"([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}])";
  std::string codecs;
  if (layout == "chunk")
    codecs = inner;
  else if (layout == "shard")
    codecs = R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2], "codecs": )" + inner +
             R"(, "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}])";
  else
    throw std::runtime_error("LAYOUT: expected shard or chunk, got " + layout);
  return zarr::array_metadata::parse(zarr::parse_json(
      R"({"zarr_format": 3, "node_type": "array", "shape": [4, 4], "data_type": "uint32", "fill_value": 0,
          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
          "chunk_key_encoding": {"name": "default"}, "codecs": )" + codecs + "}"));
}

zarr::region element_region(std::uint64_t e) {
  return {{e / side, e % side}, {e / side + 1, e % side + 1}};
}

int writer(std::uint64_t element, std::uint64_t updates, const std::string& store) {
  auto a = zarr::array::open(open_store(store, false), "");
  char c = 'r';
  if (::write(1, &c, 1) != 1 || ::read(0, &c, 1) != 1) return 1;
  for (std::uint64_t n = 1; n <= updates; ++n) {
    const std::uint32_t v = value_of(element, n);
    a.write(element_region(element), std::as_bytes(std::span(&v, 1)));
  }
  return 0;
}

struct child {
  pid_t pid = -1;
  int to = -1;    // its stdin
  int from = -1;  // its stdout
};

child spawn(const std::vector<std::string>& args) {
  std::array<int, 2> in{}, out{};
  if (::pipe(in.data()) != 0 || ::pipe(out.data()) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  for (const int fd : {in[0], in[1], out[0], out[1]}) posix_spawn_file_actions_addclose(&actions, fd);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  child c;
  const int rc = posix_spawn(&c.pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn failed");
  c.to = in[1];
  c.from = out[0];
  return c;
}

int run(const std::string& layout, std::uint64_t writers, std::uint64_t updates, const std::string& store) {
  if (writers < 1 || writers > side * side) throw std::runtime_error("WRITERS: expected 1..16");
  zarr::array::create(open_store(store, true), "", metadata_of(layout), true);
  std::vector<child> children;
  for (std::uint64_t w = 0; w < writers; ++w)
    children.push_back(spawn({"zarr.bench.contended", "writer", std::to_string(w), std::to_string(updates), store}));
  for (const auto& c : children) {
    char r = 0;
    if (::read(c.from, &r, 1) != 1 || r != 'r') throw std::runtime_error("a writer did not start");
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& c : children) {
    const char go = 'g';
    if (::write(c.to, &go, 1) != 1) throw std::runtime_error("cannot start a writer");
  }
  int failed = 0;
  for (const auto& c : children) {
    int status = 0;
    ::waitpid(c.pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ::close(c.to);
    ::close(c.from);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed != 0) throw std::runtime_error(std::to_string(failed) + " writer(s) failed");
  std::array<std::uint32_t, side * side> got{};
  const std::array<std::uint64_t, 2> shape{side, side};
  zarr::array::open(open_store(store, false), "").read(zarr::region::all(shape), std::as_writable_bytes(std::span(got)));
  std::uint64_t lost = 0;
  for (std::uint64_t e = 0; e < side * side; ++e) lost += got[e] != (e < writers ? value_of(e, updates) : 0);
  const auto total = writers * updates;
  std::printf(
      "{\"layout\": \"%s\", \"store\": \"%s\", \"writers\": %llu, \"updates\": %llu, \"seconds\": %.6f, "
      "\"updates_per_second\": %.1f, \"lost\": %llu}\n",
      layout.c_str(), store.starts_with("http://") ? "s3" : "directory", static_cast<unsigned long long>(writers),
      static_cast<unsigned long long>(total), seconds, static_cast<double>(total) / seconds,
      static_cast<unsigned long long>(lost));
  return lost == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 5 && std::string(argv[1]) == "writer") return writer(std::stoull(argv[2]), std::stoull(argv[3]), argv[4]);
    if (argc == 5) return run(argv[1], std::stoull(argv[2]), std::stoull(argv[3]), argv[4]);
    std::fputs("usage: zarr.bench.contended LAYOUT WRITERS UPDATES STORE   (bench/contended.cpp)\n", stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zarr.bench.contended: %s\n", e.what());
    return 1;
  }
}
