// One measured operation of bench/compare's S3 rows (bench/README.md): this library's S3 store
// writing and reading the workload cube, and the floor it is judged against: plain libcurl
// (multi interface, as many transfers in flight, SigV4 by libcurl) fetching or storing the
// same objects, each decompressed or compressed with libzstd as it arrives or leaves.
// Usage: zarr.bench.s3 OP LAYOUT THREADS SIZE ENDPOINT BUCKET IN_FLIGHT
// Credentials and region from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION.
#include <curl/curl.h>
#include <zstd.h>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include "workload.hpp"
import zarr;

namespace {


// The S3 rows' chunking: the zstd layout in 8 x 8 x 8 = 512 chunks (the issue's "read all of
// 512 chunks"), the sharded layout in 8 shards of 64 inner chunks each.
geometry s3_geometry(layout l, std::uint64_t size) {
  if (size < 32 || size % 32 != 0) throw std::runtime_error("size: expected a multiple of 32, got " + std::to_string(size));
  if (l == layout::sharded) return {size, size / 2, size / 8};
  return {size, size / 8, size / 32};
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

// Not measured, before a write (ours or the floor's): the objects of the run before go, as the
// disk rows remove the folder first. Both writes then make new objects, and ours does not send
// the DELETEs with which creating an array erases an old one's (docs/decisions.md 52).
void erase_below(const zarr::s3_options& o) {
  zarr::s3_store old(o);
  std::vector<zarr::store::set_item> gone;
  for (auto& key : old.list("")) gone.push_back({.key = std::move(key), .value = {}, .erase = true});
  old.set_many(gone);
}

// The floor: libcurl's multi interface and nothing else.
class floor_client {
 public:
  floor_client(std::string endpoint, std::string bucket)
      : endpoint_(std::move(endpoint)), bucket_(std::move(bucket)), user_(env("AWS_ACCESS_KEY_ID")),
        password_(env("AWS_SECRET_ACCESS_KEY")), sigv4_("aws:amz:" + (env("AWS_REGION").empty() ? "us-east-1" : env("AWS_REGION")) + ":s3"),
        multi_(curl_multi_init()) {}
  ~floor_client() {
    for (auto& s : slots_) curl_easy_cleanup(s.easy);
    curl_multi_cleanup(multi_);
  }
  floor_client(const floor_client&) = delete;
  floor_client& operator=(const floor_client&) = delete;

  struct request {
    std::string key;
    std::string range;                // "bytes=-1028", or "" for the whole object
    std::span<const std::byte> body;  // a PUT when not empty
  };
  // Runs n requests, make(i) giving each as a slot frees up, at most in_flight at once;
  // done(i, body) as each completes (body: the answer of a GET).
  void run(std::size_t n, std::size_t in_flight, const std::function<request(std::size_t)>& make,
           const std::function<void(std::size_t, std::vector<std::byte>&)>& done) {
    while (slots_.size() < in_flight) slots_.push_back(slot{curl_easy_init(), {}, {}, 0});
    std::vector<slot*> free;
    for (std::size_t s = 0; s < in_flight; ++s) free.push_back(&slots_[s]);
    std::size_t next = 0, running = 0;
    while (next < n || running > 0) {
      while (next < n && !free.empty()) {
        slot* s = free.back();
        free.pop_back();
        start(*s, next, make(next));
        ++next;
        ++running;
      }
      int still = 0;
      curl_multi_perform(multi_, &still);
      int left = 0;
      bool any = false;
      while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
        if (m->msg != CURLMSG_DONE) continue;
        any = true;
        slot* s = nullptr;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &s);
        long status = 0;
        curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &status);
        const CURLcode rc = m->data.result;
        curl_multi_remove_handle(multi_, m->easy_handle);
        curl_slist_free_all(s->headers);
        s->headers = nullptr;
        if (rc != CURLE_OK || (status != 200 && status != 206))
          throw std::runtime_error("floor: request " + std::to_string(s->index) + ": " + curl_easy_strerror(rc) +
                                   ", HTTP " + std::to_string(status));
        done(s->index, s->body);
        free.push_back(s);
        --running;
      }
      if (!any) curl_multi_poll(multi_, nullptr, 0, 1000, nullptr);
    }
  }

 private:
  struct slot {
    CURL* easy;
    std::vector<std::byte> body;
    curl_slist* headers;
    std::size_t index;
  };
  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* s = static_cast<slot*>(user);
    const auto* p = reinterpret_cast<const std::byte*>(data);
    s->body.insert(s->body.end(), p, p + size * count);
    return size * count;
  }
  void start(slot& s, std::size_t index, const request& r) {
    s.index = index;
    s.body.clear();
    CURL* h = s.easy;
    curl_easy_reset(h);
    const std::string url = endpoint_ + "/" + bucket_ + "/" + r.key;
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    const bool put = !r.body.empty();
    // libcurl 7.88 neither sends nor signs a payload hash: S3 needs one.
    s.headers = curl_slist_append(nullptr, put ? "x-amz-content-sha256: UNSIGNED-PAYLOAD"
                                               : "x-amz-content-sha256: "
                                                 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    if (!r.range.empty()) s.headers = curl_slist_append(s.headers, ("Range: " + r.range).c_str());
    if (put) {
      s.headers = curl_slist_append(s.headers, "Content-Type: application/octet-stream");
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, reinterpret_cast<const char*>(r.body.data()));
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, s.headers);
    curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4_.c_str());
    curl_easy_setopt(h, CURLOPT_USERNAME, user_.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, password_.c_str());
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_PRIVATE, &s);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_multi_add_handle(multi_, h);
  }

  std::string endpoint_, bucket_, user_, password_, sigv4_;
  CURLM* multi_;
  std::vector<slot> slots_;  // reserved before use: never reallocated while transfers run
};

std::string chunk_key(const std::string& prefix, const geometry& g, std::uint64_t c) {
  const auto per_side = g.chunks_per_side();
  return prefix + "/c/" + std::to_string(c / (per_side * per_side)) + "/" + std::to_string(c / per_side % per_side) + "/" +
         std::to_string(c % per_side);
}

int usage() {
  std::fputs(
      "usage: zarr.bench.s3 OP LAYOUT THREADS SIZE ENDPOINT BUCKET IN_FLIGHT\n"
      "  OP: write | read | read_inner | floor_write | floor_read | floor_read_inner (bucket: creates BUCKET;\n"
      "      write_files: writes the objects as files below the folder ENDPOINT/BUCKET/LAYOUT, for a static\n"
      "      HTTP server that the read ops then GET from as from S3)\n"
      "  LAYOUT: zstd (512 chunks) | sharded (8 shards of 64 inner chunks); THREADS: zarr::set_concurrency\n"
      "  ours use the objects below \"LAYOUT\", the floor writes below \"floor-LAYOUT\" and reads ours'\n"
      "Prints one JSON line: {\"op\", \"layout\", \"threads\", \"size\", \"seconds\", \"cpu_seconds\", \"mismatches\"}.\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) return usage();
  try {
    const std::string op = argv[1];
    const auto l = layout_of(argv[2]);
    if (l == layout::uncompressed) throw std::runtime_error("layout: expected zstd or sharded");
    const auto threads = static_cast<std::size_t>(std::stoul(argv[3]));
    const auto g = s3_geometry(l, std::stoull(argv[4]));
    const std::string endpoint = argv[5], bucket = argv[6];
    const auto in_flight = static_cast<std::size_t>(std::stoul(argv[7]));
    if (threads < 1 || in_flight < 1) throw std::runtime_error("threads, in-flight: expected at least 1");
    zarr::set_concurrency(threads);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const std::vector<std::uint64_t> shape(3, g.size);
    const auto total = static_cast<std::size_t>(g.elements());
    const auto chunk_elements = g.chunk * g.chunk * g.chunk;
    const auto chunks = g.chunks_per_side() * g.chunks_per_side() * g.chunks_per_side();
    const tiling chunk_major = l == layout::sharded ? tiling{g.chunk, g.inner} : tiling{g.chunk};
    zarr::s3_options o;
    o.endpoint = endpoint;
    o.bucket = bucket;
    o.prefix = argv[2];
    o.max_in_flight = in_flight;
    timing took;
    std::uint64_t bad = 0;
    const auto timed = [&](const std::function<void()>& f) { took = time_it(f); };
    if (op == "bucket") {  // not measured: makes the bucket the others use
      zarr::s3_store(o).create_bucket();
    } else if (op == "write" || op == "write_files") {
      buffer in(total);
      fill(g, {}, in.data.get());
      const auto meta = zarr::array_metadata::parse(zarr::parse_json(metadata_json(l, g)));
      const auto write = [&](std::shared_ptr<zarr::store> s) {
        auto a = zarr::array::create(std::move(s), "", meta, true);
        a.write(zarr::region::all(shape), std::as_bytes(std::span(in.data.get(), total)));
      };
      if (op == "write") {
        erase_below(o);
        timed([&] { write(std::make_shared<zarr::s3_store>(o)); });
      } else {
        // not measured: the same objects as files below ENDPOINT/BUCKET/LAYOUT
        write(std::make_shared<zarr::filesystem_store>(endpoint + "/" + bucket + "/" + argv[2]));
      }
    } else if (op == "read") {
      buffer out(total);
      // Opened before the clock starts, as the floor reads no metadata: the time is the chunks'.
      const auto a = zarr::array::open(std::make_shared<zarr::s3_store>(o), "");
      timed([&] { a.read(zarr::region::all(shape), out.bytes()); });
      bad = mismatches(g, {}, out.data.get());
    } else if (op == "read_inner") {
      buffer out(total);
      // With a cache (empty at the start), which keeps each shard's index as the floor does:
      // one ranged GET per inner chunk after the first of its shard (issue 25, item 1).
      const auto a = zarr::array::open(std::make_shared<zarr::s3_store>(o), "",
                                       {.cache = std::make_shared<zarr::cache>(std::size_t{256} << 20)});
      timed([&] {
        for_each_box(g, {g.chunk, g.inner}, [&](std::uint64_t z0, std::uint64_t y0, std::uint64_t x0, std::uint64_t e,
                                                std::uint64_t pos) {
          a.read({{z0, y0, x0}, {z0 + e, y0 + e, x0 + e}}, std::as_writable_bytes(std::span(out.data.get() + pos, e * e * e)));
        });
      });
      bad = mismatches(g, {g.chunk, g.inner}, out.data.get());
    } else if (op == "floor_write") {
      buffer in(total);
      fill(g, chunk_major, in.data.get());
      const std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
      std::vector<std::vector<std::byte>> encoded(chunks);
      auto floor_objects = o;
      floor_objects.prefix = "floor-" + std::string(argv[2]);
      erase_below(floor_objects);
      timed([&] {
        floor_client f(endpoint, bucket);
        f.run(
            chunks, in_flight,
            [&](std::size_t c) {
              const auto n = encode_chunk(l, g, in.data.get() + c * chunk_elements, cctx.get(), encoded[c]);
              encoded[c].resize(n);
              return floor_client::request{chunk_key("floor-" + std::string(argv[2]), g, c), "", encoded[c]};
            },
            [&](std::size_t c, std::vector<std::byte>&) { encoded[c] = {}; });
      });
    } else if (op == "floor_read") {
      buffer out(total);
      const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
      timed([&] {
        floor_client f(endpoint, bucket);
        f.run(
            chunks, in_flight, [&](std::size_t c) { return floor_client::request{chunk_key(argv[2], g, c), "", {}}; },
            [&](std::size_t c, std::vector<std::byte>& body) {
              decode_chunk_file(l, g, body.data(), body.size(), dctx.get(), out.data.get() + c * chunk_elements);
            });
      });
      bad = mismatches(g, chunk_major, out.data.get());
    } else if (op == "floor_read_inner") {
      if (l != layout::sharded) throw std::runtime_error("floor_read_inner: expected the sharded layout");
      buffer out(total);
      const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
      const auto inner_elements = g.inner * g.inner * g.inner;
      const auto inner_count = chunk_elements / inner_elements;
      std::vector<std::uint64_t> index(2 * inner_count);
      timed([&] {
        floor_client f(endpoint, bucket);
        for (std::uint64_t c = 0; c < chunks; ++c) {
          const auto key = chunk_key(argv[2], g, c);
          // The index, one request; then each inner chunk, one request after another.
          f.run(1, 1, [&](std::size_t) { return floor_client::request{key, "bytes=-" + std::to_string(16 * inner_count + 4), {}}; },
                [&](std::size_t, std::vector<std::byte>& body) { std::memcpy(index.data(), body.data(), 16 * inner_count); });
          for (std::uint64_t k = 0; k < inner_count; ++k) {
            const auto first = index[2 * k], n = index[2 * k + 1];
            f.run(1, 1,
                  [&](std::size_t) {
                    return floor_client::request{key, "bytes=" + std::to_string(first) + "-" + std::to_string(first + n - 1), {}};
                  },
                  [&](std::size_t, std::vector<std::byte>& body) {
                    const auto r = ZSTD_decompressDCtx(dctx.get(), out.data.get() + c * chunk_elements + k * inner_elements,
                                                       inner_elements * 2, body.data(), body.size());
                    check_zstd(r, "decompress");
                  });
          }
        }
      });
      bad = mismatches(g, chunk_major, out.data.get());
    } else {
      return usage();
    }
    print_result(op, argv[2], threads, g.size, took, bad);
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zarr.bench.s3: %s\n", e.what());
    return 1;
  }
}
