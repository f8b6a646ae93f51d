// The C API (include/zarr.h) over the C++ modules: every function catches everything, returns
// a zarr_errc code and keeps the message for zarr_last_error() in a thread-local string. Built
// into libzarr.so with hidden visibility and a version script (src/c/zarr.map), so that only
// the zarr_* functions are exported.
#include "zarr.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <type_traits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json.hpp>
import zarr;

namespace json = boost::json;

struct zarr_store {
  std::shared_ptr<zarr::store> store;
};
struct zarr_array {
  zarr::array array;
};
struct zarr_group {
  zarr::group group;
};

namespace {

thread_local std::string last_error;

// Runs f, turning every exception into a code and the thread's last error.
template <class F>
int guarded(F&& f) noexcept {
  try {
    f();
    return ZARR_OK;
  } catch (const zarr::error& e) {
    try {
      last_error = e.what();
    } catch (...) {
    }
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    last_error.clear();  // no allocation: clear() keeps the capacity
    return ZARR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    try {
      last_error = e.what();
    } catch (...) {
    }
    return ZARR_INTERNAL;
  } catch (...) {
    last_error.clear();
    return ZARR_INTERNAL;
  }
}

[[noreturn]] void fail(zarr::errc code, const std::string& message) { throw zarr::error(code, message); }

template <class T>
T& need(T* p, const char* function, const char* what) {
  if (p == nullptr) fail(zarr::errc::invalid_argument, std::string(function) + ": " + what + ": expected a handle, got NULL");
  return *p;
}
void need_out(const void* p, const char* function) {
  if (p == nullptr) fail(zarr::errc::invalid_argument, std::string(function) + ": out: expected a pointer, got NULL");
}
std::string_view text_of(const char* s, const char* function, const char* what) {
  if (s == nullptr) fail(zarr::errc::invalid_argument, std::string(function) + ": " + what + ": expected text, got NULL");
  return s;
}
// A node path without a leading '/'.
std::string node_path(const char* path, const char* function) {
  auto p = text_of(path, function, "path");
  while (p.starts_with('/')) p.remove_prefix(1);
  return std::string(p);
}

// Text for the caller, in memory that zarr_free releases.
char* copy_out(std::string_view text) {
  auto* p = static_cast<char*>(std::malloc(text.size() + 1));
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, text.data(), text.size());
  p[text.size()] = '\0';
  return p;
}

json::object parse_object(const char* text, const char* function, const char* what) {
  if (text == nullptr || *text == '\0') return {};
  const auto v = zarr::parse_json(text, std::string(function) + ": " + what);
  if (!v.is_object())
    fail(zarr::errc::invalid_argument, std::string(function) + ": " + what + ": expected a JSON object, got " +
                                           json::serialize(v));
  return v.as_object();
}

// The node of a group or array handle.
const zarr::group& node_of(const zarr_group& h) { return h.group; }
zarr::group& node_of(zarr_group& h) { return h.group; }
const zarr::array& node_of(const zarr_array& h) { return h.array; }
zarr::array& node_of(zarr_array& h) { return h.array; }

// A node's attributes as JSON text, and set from JSON text; `what` names the handle.
template <class Handle>
int get_attributes(const Handle* handle, char** out, const char* function, const char* what) {
  return guarded([&] {
    need_out(out, function);
    *out = copy_out(json::serialize(node_of(need(handle, function, what)).metadata().attributes));
  });
}
template <class Handle>
int set_attributes(Handle* handle, const char* attributes_json, const char* function, const char* what) {
  return guarded([&] {
    auto& node = node_of(need(handle, function, what));
    text_of(attributes_json, function, "attributes");
    node.set_attributes(parse_object(attributes_json, function, "attributes"));
  });
}

// The C enumerators, in the order of zarr::data_type (checked below by name).
constexpr zarr::data_type c_types[] = {
    zarr::data_type::bool_,
    zarr::data_type::int2, zarr::data_type::int4, zarr::data_type::int8, zarr::data_type::int16,
    zarr::data_type::int32, zarr::data_type::int64,
    zarr::data_type::uint2, zarr::data_type::uint4, zarr::data_type::uint8, zarr::data_type::uint16,
    zarr::data_type::uint32, zarr::data_type::uint64,
    zarr::data_type::float4_e2m1fn, zarr::data_type::float6_e2m3fn, zarr::data_type::float6_e3m2fn,
    zarr::data_type::float8_e3m4, zarr::data_type::float8_e4m3, zarr::data_type::float8_e4m3b11fnuz,
    zarr::data_type::float8_e4m3fnuz, zarr::data_type::float8_e5m2, zarr::data_type::float8_e5m2fnuz,
    zarr::data_type::float8_e8m0fnu,
    zarr::data_type::bfloat16, zarr::data_type::float16, zarr::data_type::float32, zarr::data_type::float64,
    zarr::data_type::complex64, zarr::data_type::complex128,
    zarr::data_type::numpy_datetime64, zarr::data_type::numpy_timedelta64,
    zarr::data_type::complex_bfloat16, zarr::data_type::complex_float16, zarr::data_type::complex_float4_e2m1fn,
    zarr::data_type::complex_float6_e2m3fn, zarr::data_type::complex_float6_e3m2fn,
    zarr::data_type::complex_float8_e3m4, zarr::data_type::complex_float8_e4m3,
    zarr::data_type::complex_float8_e4m3b11fnuz, zarr::data_type::complex_float8_e4m3fnuz,
    zarr::data_type::complex_float8_e5m2, zarr::data_type::complex_float8_e5m2fnuz,
    zarr::data_type::complex_float8_e8m0fnu,
    zarr::data_type::float8_e4m3fn,
    zarr::data_type::string, zarr::data_type::bytes,
};
constexpr std::size_t c_type_count = sizeof(c_types) / sizeof(c_types[0]);
static_assert(c_type_count == ZARR_BYTES + 1);
static_assert(c_types[ZARR_FLOAT8_E4M3FN] == zarr::data_type::float8_e4m3fn && c_types[ZARR_STRING] == zarr::data_type::string);
static_assert(c_types[ZARR_COMPLEX128] == zarr::data_type::complex128 && c_types[ZARR_FLOAT16] == zarr::data_type::float16);

std::optional<zarr::data_type> type_of(int dtype) {
  if (dtype < 0 || static_cast<std::size_t>(dtype) >= c_type_count) return std::nullopt;
  return c_types[dtype];
}
int c_type_of(zarr::data_type t) {
  for (std::size_t i = 0; i < c_type_count; ++i)
    if (c_types[i] == t) return static_cast<int>(i);
  return ZARR_OTHER;
}
zarr::data_type need_type(int dtype, const char* function, const char* what) {
  const auto t = type_of(dtype);
  if (!t) fail(zarr::errc::invalid_argument, std::string(function) + ": " + what + ": expected a zarr_dtype, got " + std::to_string(dtype));
  return *t;
}

// The region [start, stop) of an array of `ndim` dimensions.
zarr::region region_of(const zarr::array& a, const std::uint64_t* start, const std::uint64_t* stop, const char* function) {
  const auto n = a.shape().size();
  if (n > 0 && (start == nullptr || stop == nullptr))
    fail(zarr::errc::invalid_argument, std::string(function) + ": region: expected start and stop, got NULL");
  zarr::region r;
  r.start.assign(start, start + n);
  r.stop.assign(stop, stop + n);
  for (std::size_t d = 0; d < n; ++d)
    if (r.start[d] > r.stop[d] || r.stop[d] > a.shape()[d])
      fail(zarr::errc::invalid_argument, std::string(function) + ": region: expected 0 <= start <= stop <= shape in dimension " +
                                             std::to_string(d) + ", got " + std::to_string(r.start[d]) + ":" +
                                             std::to_string(r.stop[d]) + " of " + std::to_string(a.shape()[d]));
  return r;
}

// The element type and bytes of a caller's buffer for a read or write of `r`: ZARR_OTHER is
// the array's own type and layout.
std::pair<zarr::data_type, std::size_t> buffer_of(const zarr::array& a, const zarr::region& r, int dtype,
                                                  const void* buffer, std::size_t size, const char* function) {
  const auto t = dtype == ZARR_OTHER ? a.type() : need_type(dtype, function, "dtype");
  const auto element = dtype == ZARR_OTHER ? a.metadata().element_size() : static_cast<std::uint64_t>(zarr::info(t).size);
  if (element == 0)
    fail(zarr::errc::invalid_argument, std::string(function) + ": dtype: expected a fixed-size type, got " +
                                           std::string(zarr::name(t)) + " (use zarr_array_read_strings, zarr_array_write_strings)");
  const auto expected = r.num_elements() * element;
  if (size != expected)
    fail(zarr::errc::invalid_argument, std::string(function) + ": buffer_size: expected " + std::to_string(expected) +
                                           " bytes (" + std::to_string(r.num_elements()) + " elements of " +
                                           std::string(zarr::name(t)) + "), got " + std::to_string(size));
  if (buffer == nullptr && expected > 0)
    fail(zarr::errc::invalid_argument, std::string(function) + ": buffer: expected memory, got NULL");
  return {t, static_cast<std::size_t>(expected)};
}

zarr::progress_callback progress_of(zarr_progress_fn f, void* user_data) {
  if (f == nullptr) return nullptr;
  return [f, user_data](std::uint64_t done, std::uint64_t total) { return f(done, total, user_data) != 0; };
}

// The s3, http and directory stores by URL, with options.
struct options_reader {
  json::object options;
  std::string kind;

  bool flag(std::string_view key, bool otherwise) {
    const auto* v = options.if_contains(key);
    if (v == nullptr) return otherwise;
    if (!v->is_bool()) bad(key, "true or false", *v);
    const bool b = v->as_bool();
    options.erase(key);
    return b;
  }
  std::string text(std::string_view key) {
    const auto* v = options.if_contains(key);
    if (v == nullptr) return {};
    if (!v->is_string()) bad(key, "a string", *v);
    std::string s(v->as_string());
    options.erase(key);
    return s;
  }
  std::size_t count(std::string_view key, std::size_t otherwise) {
    const auto* v = options.if_contains(key);
    if (v == nullptr) return otherwise;
    const auto n = v->is_uint64() ? v->as_uint64() : v->is_int64() && v->as_int64() > 0 ? static_cast<std::uint64_t>(v->as_int64()) : 0;
    if (n == 0) bad(key, "a positive integer", *v);
    options.erase(key);
    return static_cast<std::size_t>(n);
  }
  [[noreturn]] void bad(std::string_view key, std::string_view what, const json::value& v) const {
    fail(zarr::errc::invalid_argument, "zarr_store_open: options." + std::string(key) + ": expected " + std::string(what) +
                                           ", got " + json::serialize(v));
  }
  void done() const {
    if (!options.empty())
      fail(zarr::errc::invalid_argument, "zarr_store_open: options: expected only options of a " + kind + " store, got \"" +
                                             std::string(options.begin()->key()) + "\"");
  }
};

std::shared_ptr<zarr::store> open_store(std::string_view url, const char* options_json) {
  options_reader o{parse_object(options_json, "zarr_store_open", "options"), {}};
  if (url == "memory:") {
    o.kind = "memory";
    o.done();
    return std::make_shared<zarr::memory_store>();
  }
  if (url.starts_with("s3://")) {
    o.kind = "s3";
    auto rest = url.substr(5);
    zarr::s3_options s;
    const auto slash = rest.find('/');
    s.bucket = std::string(rest.substr(0, slash));
    if (slash != std::string_view::npos) {
      auto prefix = rest.substr(slash + 1);
      while (prefix.ends_with('/')) prefix.remove_suffix(1);
      s.prefix = std::string(prefix);
    }
    if (s.bucket.empty())
      fail(zarr::errc::invalid_argument, "zarr_store_open: url: expected s3://bucket[/prefix], got \"" + std::string(url) + "\"");
    s.endpoint = o.text("endpoint");
    s.region = o.text("region");
    s.access_key_id = o.text("access_key_id");
    s.secret_access_key = o.text("secret_access_key");
    s.session_token = o.text("session_token");
    s.virtual_hosted = o.flag("virtual_hosted", false);
    s.max_in_flight = o.count("max_in_flight", s.max_in_flight);
    const bool create_bucket = o.flag("create_bucket", false);
    o.done();
    auto store = std::make_shared<zarr::s3_store>(std::move(s));
    if (create_bucket) store->create_bucket();
    return store;
  }
  if (url.starts_with("http://") || url.starts_with("https://")) {
    o.kind = "http";
    zarr::http_options h;
    h.max_in_flight = o.count("max_in_flight", h.max_in_flight);
    o.done();
    std::string base(url);
    while (base.ends_with('/')) base.pop_back();
    return std::make_shared<zarr::http_store>(std::move(base), h);
  }
  o.kind = "directory";
  auto path = url;
  if (path.starts_with("file://")) {
    path.remove_prefix(7);
    if (!path.starts_with('/'))
      fail(zarr::errc::invalid_argument, "zarr_store_open: url: expected file:///absolute/path, got \"" + std::string(url) + "\"");
  } else if (path.find("://") != std::string_view::npos) {
    fail(zarr::errc::unsupported, "zarr_store_open: url: expected a directory, file://, s3://, http(s):// or memory:, got \"" +
                                      std::string(url) + "\"");
  }
  if (path.empty()) fail(zarr::errc::invalid_argument, "zarr_store_open: url: expected a store, got \"\"");
  zarr::filesystem_options f;
  f.create = o.flag("create", true);
  f.durable = o.flag("durable", false);
  o.done();
  return std::make_shared<zarr::filesystem_store>(std::filesystem::path(std::string(path)), f);
}

// One element of a typed fill value.
zarr::scalar scalar_of(zarr::data_type t, const void* value) {
  zarr::scalar s;
  s.type = t;
  std::memcpy(s.bits.data(), value, static_cast<std::size_t>(zarr::info(t).size));
  return s;
}

}  // namespace

// -------------------------------------------------------------------- asynchronous operations

struct zarr_operation {
  struct state {
    std::mutex mutex;
    std::condition_variable ended;
    bool done = false;
    int code = ZARR_OK;
    std::string message;
    std::atomic<bool> cancelled{false};
    zarr_completion_fn completion = nullptr;
    void* user_data = nullptr;
  };
  std::shared_ptr<state> s;
};

namespace {

// Ends an operation: its result, its callback, then the waiters.
void finish(const std::shared_ptr<zarr_operation::state>& s, zarr_operation* handle, std::exception_ptr failure) noexcept {
  int code = ZARR_OK;
  if (failure) code = guarded([&] { std::rethrow_exception(failure); });
  {
    const std::lock_guard lock(s->mutex);
    s->code = code;
    if (code != ZARR_OK) s->message.swap(last_error);
  }
  if (s->completion != nullptr) s->completion(handle, s->code, s->message.c_str(), s->user_data);
  {
    const std::lock_guard lock(s->mutex);
    s->done = true;
  }
  s->ended.notify_all();
}

// Starts an operation on zarr.async's pool: `run(progress)` reads or writes. Cancelled before
// it starts, it ends without running; after, the progress callback stops it after a chunk.
template <class Run>
zarr_operation* start_operation(zarr_completion_fn completion, void* user_data, const char* function, Run&& run) {
  auto handle = std::make_unique<zarr_operation>();
  auto s = std::make_shared<zarr_operation::state>();
  s->completion = completion;
  s->user_data = user_data;
  handle->s = s;
  zarr::post([s, raw = handle.get(), function, run = std::forward<Run>(run)]() mutable noexcept {
    std::exception_ptr failure;
    try {
      if (s->cancelled.load()) fail(zarr::errc::cancelled, std::string(function) + ": cancelled before it started");
      run([s](std::uint64_t, std::uint64_t) { return !s->cancelled.load(); });
    } catch (...) {
      failure = std::current_exception();
    }
    finish(s, raw, failure);
  });
  return handle.release();
}

// The checks of an asynchronous region read or write, then `run(array, region, type, bytes)` (a
// copy of the array, the caller's buffer as bytes) started as an operation.
template <class Byte, class Run>
int start_region_operation(const zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype, Byte* buffer,
                           size_t buffer_size, zarr_completion_fn completion, void* user_data, zarr_operation** operation,
                           const char* f, Run run) {
  return guarded([&] {
    need_out(operation, f);
    const auto& a = need(array, f, "array").array;
    auto r = region_of(a, start, stop, f);
    const auto [t, size] = buffer_of(a, r, dtype, buffer, buffer_size, f);
    using bytes_type = std::conditional_t<std::is_const_v<Byte>, const std::byte, std::byte>;
    const std::span data(static_cast<bytes_type*>(buffer), size);
    *operation = start_operation(completion, user_data, f,
                                 [copy = a, r = std::move(r), t, data, run](zarr::progress_callback p) mutable {
                                   run(copy, r, t, data, std::move(p));
                                 });
  });
}


}  // namespace

extern "C" {

// -------------------------------------------------------------------- errors, versions, memory

const char* zarr_last_error(void) { return last_error.c_str(); }

const char* zarr_errc_name(int code) {
  switch (code) {
    case ZARR_OK: return "ok";
    case ZARR_OUT_OF_MEMORY: return "out of memory";
    case ZARR_INTERNAL: return "internal error";
    default:
      if (code >= ZARR_INVALID_METADATA && code <= ZARR_CANCELLED)
        return zarr::to_string(static_cast<zarr::errc>(code)).data();  // static NUL-terminated literals
      return "unknown error";
  }
}

const char* zarr_version(void) { return ZARR_VERSION; }

void zarr_free(void* text) { std::free(text); }

size_t zarr_dtype_size(int dtype) {
  const auto t = type_of(dtype);
  return t ? static_cast<std::size_t>(zarr::info(*t).size) : 0;
}

const char* zarr_dtype_name(int dtype) {
  const auto t = type_of(dtype);
  return t ? zarr::name(*t).data() : nullptr;  // the registry's names are literals
}

// -------------------------------------------------------------------- stores

int zarr_store_open(const char* url, const char* options_json, zarr_store** out) {
  return guarded([&] {
    need_out(out, "zarr_store_open");
    auto s = open_store(text_of(url, "zarr_store_open", "url"), options_json);
    *out = new zarr_store{std::move(s)};
  });
}

void zarr_store_free(zarr_store* store) { delete store; }

int zarr_consolidate_metadata(zarr_store* store, const char* group_path, size_t* nodes) {
  return guarded([&] {
    const auto n = zarr::consolidate_metadata(need(store, "zarr_consolidate_metadata", "store").store,
                                              node_path(group_path, "zarr_consolidate_metadata"));
    if (nodes != nullptr) *nodes = n;
  });
}

int zarr_store_open_consolidated(zarr_store* store, const char* group_path, zarr_store** out) {
  return guarded([&] {
    need_out(out, "zarr_store_open_consolidated");
    auto s = zarr::open_consolidated(need(store, "zarr_store_open_consolidated", "store").store,
                                     node_path(group_path, "zarr_store_open_consolidated"));
    *out = new zarr_store{std::move(s)};
  });
}

// -------------------------------------------------------------------- groups

int zarr_group_create(zarr_store* store, const char* path, const char* attributes_json, int overwrite, int zarr_format,
                      zarr_group** out) {
  return guarded([&] {
    need_out(out, "zarr_group_create");
    const auto& s = need(store, "zarr_group_create", "store").store;
    const auto attributes = parse_object(attributes_json, "zarr_group_create", "attributes");
    if (zarr_format != 2 && zarr_format != 3)
      fail(zarr::errc::invalid_argument, "zarr_group_create: zarr_format: expected 2 or 3, got " + std::to_string(zarr_format));
    auto g = zarr::group::create(s, node_path(path, "zarr_group_create"), attributes, overwrite != 0, zarr_format);
    *out = new zarr_group{std::move(g)};
  });
}

int zarr_group_open(zarr_store* store, const char* path, zarr_group** out) {
  return guarded([&] {
    need_out(out, "zarr_group_open");
    auto g = zarr::group::open(need(store, "zarr_group_open", "store").store, node_path(path, "zarr_group_open"));
    *out = new zarr_group{std::move(g)};
  });
}

void zarr_group_free(zarr_group* group) { delete group; }

int zarr_group_children(const zarr_group* group, char** out) {
  return guarded([&] {
    need_out(out, "zarr_group_children");
    json::array names;
    for (const auto& n : need(group, "zarr_group_children", "group").group.children()) names.emplace_back(n);
    *out = copy_out(json::serialize(names));
  });
}

int zarr_group_attributes(const zarr_group* group, char** out) {
  return get_attributes(group, out, "zarr_group_attributes", "group");
}

int zarr_group_set_attributes(zarr_group* group, const char* attributes_json) {
  return set_attributes(group, attributes_json, "zarr_group_set_attributes", "group");
}

// -------------------------------------------------------------------- arrays

int zarr_array_create_json(zarr_store* store, const char* path, const char* metadata_json, int overwrite, zarr_array** out) {
  return guarded([&] {
    need_out(out, "zarr_array_create_json");
    const auto& s = need(store, "zarr_array_create_json", "store").store;
    const auto text = text_of(metadata_json, "zarr_array_create_json", "metadata");
    const auto document = zarr::parse_json(text, "zarr_array_create_json: metadata");
    zarr::array_metadata meta;
    const auto* object = document.if_object();
    const auto* format = object != nullptr ? object->if_contains("zarr_format") : nullptr;
    if (format != nullptr && format->is_int64() && format->as_int64() == 2) {
      meta = zarr::array_metadata::parse_v2(text);
    } else {
      auto node = zarr::parse_node_metadata(text);
      auto* m = std::get_if<zarr::array_metadata>(&node);
      if (m == nullptr) fail(zarr::errc::invalid_metadata, "zarr_array_create_json: metadata: expected an array's zarr.json, got a group's");
      meta = std::move(*m);
    }
    auto a = zarr::array::create(s, node_path(path, "zarr_array_create_json"), meta, overwrite != 0);
    *out = new zarr_array{std::move(a)};
  });
}

int zarr_array_create(zarr_store* store, const char* path, size_t ndim, const uint64_t* shape, const uint64_t* chunk_shape,
                      int dtype, int fill_type, const void* fill_value, const char* codecs_json,
                      const char* attributes_json, int overwrite, zarr_array** out) {
  return guarded([&] {
    constexpr const char* f = "zarr_array_create";
    need_out(out, f);
    const auto& s = need(store, f, "store").store;
    if (ndim > 0 && shape == nullptr) fail(zarr::errc::invalid_argument, std::string(f) + ": shape: expected sizes, got NULL");
    const auto t = need_type(dtype, f, "dtype");
    if (t == zarr::data_type::numpy_datetime64 || t == zarr::data_type::numpy_timedelta64)
      fail(zarr::errc::unsupported, std::string(f) + ": dtype: expected a type without configuration, got " +
                                        std::string(zarr::name(t)) + " (give its unit in zarr_array_create_json)");
    zarr::array_builder b(std::vector<std::uint64_t>(shape, shape + ndim), t);
    if (chunk_shape != nullptr) b.chunk_shape(std::vector<std::uint64_t>(chunk_shape, chunk_shape + ndim));
    if (fill_value != nullptr) {
      const auto ft = need_type(fill_type, f, "fill_type");
      if (ft == zarr::data_type::string || ft == zarr::data_type::bytes) b.fill_string(static_cast<const char*>(fill_value));
      else b.fill_value(zarr::typed_value(scalar_of(ft, fill_value)));
    }
    b.attributes(parse_object(attributes_json, f, "attributes"));
    auto meta = b.metadata();
    if (codecs_json != nullptr) {
      auto document = zarr::parse_json(meta.to_text(), f);
      document.as_object()["codecs"] = zarr::parse_json(codecs_json, std::string(f) + ": codecs");
      const auto text = zarr::serialize_metadata(document.as_object());
      meta = zarr::array_metadata::parse(zarr::parse_json(text), text);
    }
    auto a = zarr::array::create(s, node_path(path, f), meta, overwrite != 0);
    *out = new zarr_array{std::move(a)};
  });
}

int zarr_array_open(zarr_store* store, const char* path, zarr_array** out) {
  return guarded([&] {
    need_out(out, "zarr_array_open");
    auto a = zarr::array::open(need(store, "zarr_array_open", "store").store, node_path(path, "zarr_array_open"));
    *out = new zarr_array{std::move(a)};
  });
}

void zarr_array_free(zarr_array* array) { delete array; }

size_t zarr_array_ndim(const zarr_array* array) { return array == nullptr ? 0 : array->array.shape().size(); }

void zarr_array_shape(const zarr_array* array, uint64_t* shape) {
  if (array == nullptr || shape == nullptr) return;
  const auto& s = array->array.shape();
  std::copy(s.begin(), s.end(), shape);
}

int zarr_array_dtype(const zarr_array* array) { return array == nullptr ? ZARR_OTHER : c_type_of(array->array.type()); }

int zarr_array_metadata(const zarr_array* array, char** out) {
  return guarded([&] {
    need_out(out, "zarr_array_metadata");
    *out = copy_out(need(array, "zarr_array_metadata", "array").array.metadata().to_text());
  });
}

int zarr_array_attributes(const zarr_array* array, char** out) {
  return get_attributes(array, out, "zarr_array_attributes", "array");
}

int zarr_array_set_attributes(zarr_array* array, const char* attributes_json) {
  return set_attributes(array, attributes_json, "zarr_array_set_attributes", "array");
}

int zarr_array_read(const zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype, void* buffer,
                    size_t buffer_size, zarr_progress_fn progress, void* user_data) {
  return guarded([&] {
    const auto& a = need(array, "zarr_array_read", "array").array;
    const auto r = region_of(a, start, stop, "zarr_array_read");
    const auto [t, size] = buffer_of(a, r, dtype, buffer, buffer_size, "zarr_array_read");
    a.read_as(r, t, std::span(static_cast<std::byte*>(buffer), size), {.progress = progress_of(progress, user_data)});
  });
}

int zarr_array_write(zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype, const void* buffer,
                     size_t buffer_size, zarr_progress_fn progress, void* user_data) {
  return guarded([&] {
    auto& a = need(array, "zarr_array_write", "array").array;
    const auto r = region_of(a, start, stop, "zarr_array_write");
    const auto [t, size] = buffer_of(a, r, dtype, buffer, buffer_size, "zarr_array_write");
    a.write_as(r, t, std::span(static_cast<const std::byte*>(buffer), size),
               {.write_empty_chunks = false, .progress = progress_of(progress, user_data)});
  });
}

int zarr_array_read_strings(const zarr_array* array, const uint64_t* start, const uint64_t* stop, char*** values,
                            size_t** lengths, size_t* count) {
  return guarded([&] {
    need_out(values, "zarr_array_read_strings");
    need_out(count, "zarr_array_read_strings");
    const auto& a = need(array, "zarr_array_read_strings", "array").array;
    const auto r = region_of(a, start, stop, "zarr_array_read_strings");
    const auto elements = a.read_strings(r);
    // One block: the pointers, then each element with a NUL after it.
    std::size_t bytes = elements.size() * sizeof(char*);
    for (const auto& e : elements) bytes += e.size() + 1;
    auto* block = static_cast<char*>(std::malloc(bytes == 0 ? 1 : bytes));
    if (block == nullptr) throw std::bad_alloc();
    std::unique_ptr<char, decltype(&std::free)> owned(block, &std::free);
    std::unique_ptr<size_t, decltype(&std::free)> sizes(nullptr, &std::free);
    if (lengths != nullptr) {
      sizes.reset(static_cast<size_t*>(std::malloc(elements.empty() ? 1 : elements.size() * sizeof(size_t))));
      if (!sizes) throw std::bad_alloc();
    }
    auto** pointers = reinterpret_cast<char**>(block);
    char* text = block + elements.size() * sizeof(char*);
    for (std::size_t i = 0; i < elements.size(); ++i) {
      pointers[i] = text;
      std::memcpy(text, elements[i].data(), elements[i].size());
      text[elements[i].size()] = '\0';
      text += elements[i].size() + 1;
      if (sizes) sizes.get()[i] = elements[i].size();
    }
    *values = reinterpret_cast<char**>(owned.release());
    if (lengths != nullptr) *lengths = sizes.release();
    *count = elements.size();
  });
}

int zarr_array_write_strings(zarr_array* array, const uint64_t* start, const uint64_t* stop, const char* const* values,
                             const size_t* lengths, size_t count) {
  return guarded([&] {
    auto& a = need(array, "zarr_array_write_strings", "array").array;
    const auto r = region_of(a, start, stop, "zarr_array_write_strings");
    if (count != r.num_elements())
      fail(zarr::errc::invalid_argument, "zarr_array_write_strings: count: expected " + std::to_string(r.num_elements()) +
                                             " (the region's elements), got " + std::to_string(count));
    if (count > 0 && values == nullptr)
      fail(zarr::errc::invalid_argument, "zarr_array_write_strings: values: expected pointers, got NULL");
    std::vector<std::string> in;
    in.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      if (values[i] == nullptr)
        fail(zarr::errc::invalid_argument, "zarr_array_write_strings: values[" + std::to_string(i) + "]: expected text, got NULL");
      in.emplace_back(values[i], lengths != nullptr ? lengths[i] : std::strlen(values[i]));
    }
    a.write_strings(r, in);
  });
}

// -------------------------------------------------------------------- asynchronous reads and writes

int zarr_array_read_async(const zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype, void* buffer,
                          size_t buffer_size, zarr_completion_fn completion, void* user_data, zarr_operation** operation) {
  return start_region_operation(array, start, stop, dtype, buffer, buffer_size, completion, user_data, operation,
                                "zarr_array_read_async",
                                [](const zarr::array& a, const zarr::region& r, zarr::data_type t, std::span<std::byte> out,
                                   zarr::progress_callback p) { a.read_as(r, t, out, {.progress = std::move(p)}); });
}

int zarr_array_write_async(zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype, const void* buffer,
                           size_t buffer_size, zarr_completion_fn completion, void* user_data, zarr_operation** operation) {
  return start_region_operation(array, start, stop, dtype, buffer, buffer_size, completion, user_data, operation,
                                "zarr_array_write_async",
                                [](zarr::array& a, const zarr::region& r, zarr::data_type t, std::span<const std::byte> in,
                                   zarr::progress_callback p) {
                                  a.write_as(r, t, in, {.write_empty_chunks = false, .progress = std::move(p)});
                                });
}

int zarr_wait(zarr_operation* operation) {
  if (operation == nullptr) {
    last_error = "zarr_wait: operation: expected a handle, got NULL";
    return ZARR_INVALID_ARGUMENT;
  }
  const auto state = operation->s;  // the operation's thread may drop its share meanwhile
  auto& s = *state;
  std::unique_lock lock(s.mutex);
  s.ended.wait(lock, [&] { return s.done; });
  if (s.code != ZARR_OK) {
    try {
      last_error = s.message;
    } catch (...) {
      last_error.clear();
    }
  }
  return s.code;
}

int zarr_operation_done(const zarr_operation* operation) {
  if (operation == nullptr) return 1;
  const std::lock_guard lock(operation->s->mutex);
  return operation->s->done ? 1 : 0;
}

void zarr_cancel(zarr_operation* operation) {
  if (operation != nullptr) operation->s->cancelled = true;
}

void zarr_operation_free(zarr_operation* operation) { delete operation; }

// -------------------------------------------------------------------- threads

void zarr_set_threads(size_t threads) { zarr::set_concurrency(threads); }

void zarr_set_async_threads(size_t threads) { zarr::set_async_threads(threads); }

}  // extern "C"
