// zarr.store.http: libcurl easy handles in a pool (connections kept alive), retries with
// backoff and jitter, ranged GETs checked against Content-Range, snapshots by ETag + If-Match.
module;
#include <curl/curl.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>
module zarr.store.http;

import zarr.error;

namespace zarr {

namespace {

std::optional<std::uint64_t> parse_number(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || s.size() > 19) return std::nullopt;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<content_range> parse_content_range(std::string_view value) {
  value = trim(value);
  if (!value.starts_with("bytes ")) return std::nullopt;
  value.remove_prefix(6);
  const auto dash = value.find('-');
  const auto slash = value.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) return std::nullopt;
  const auto first = parse_number(value.substr(0, dash));
  const auto last = parse_number(value.substr(dash + 1, slash - dash - 1));
  if (!first || !last || *last < *first) return std::nullopt;
  content_range out{.first = *first, .last = *last, .total = std::nullopt};
  const auto total = value.substr(slash + 1);
  if (total != "*") {
    out.total = parse_number(total);
    if (!out.total || out.last >= *out.total) return std::nullopt;
  }
  return out;
}

std::optional<header_field> parse_header_line(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  header_field out;
  for (char c : line.substr(0, colon)) {
    if (c <= ' ' || c > '~') return std::nullopt;  // a token: no spaces, no controls
    out.name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  out.value = std::string(trim(line.substr(colon + 1)));
  return out;
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

// ---------------------------------------------------------------- the client

struct http_client::pool {
  std::mutex mutex;
  std::vector<CURL*> idle;
  std::vector<CURLM*> idle_multi;  // each with its cache of open connections
  ~pool() {
    for (CURLM* m : idle_multi) curl_multi_cleanup(m);
    for (CURL* h : idle) curl_easy_cleanup(h);
  }
  // The last handle of `list` (idle or idle_multi), or nullptr when it is empty.
  template <class Handle>
  Handle* pop(std::vector<Handle*>& list) {
    const std::lock_guard lock(mutex);
    if (list.empty()) return nullptr;
    Handle* h = list.back();
    list.pop_back();
    return h;
  }
  CURL* take() {
    if (CURL* h = pop(idle)) return h;
    CURL* h = curl_easy_init();
    if (h == nullptr) throw error(errc::io, "libcurl: expected a new transfer handle, got none (out of memory?)");
    return h;
  }
  void give_back(CURL* h) {
    // Credentials must not stay in an idle handle's memory longer than needed.
    curl_easy_reset(h);
    const std::lock_guard lock(mutex);
    idle.push_back(h);
  }
  CURLM* take_multi(std::size_t connections) {
    if (CURLM* m = pop(idle_multi)) return m;
    CURLM* m = curl_multi_init();
    if (m == nullptr) throw error(errc::io, "libcurl: expected a new multi handle, got none (out of memory?)");
    curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, static_cast<long>(connections));
    return m;
  }
  void give_back_multi(CURLM* m) {
    const std::lock_guard lock(mutex);
    idle_multi.push_back(m);
  }

  // One budget of requests under way for every thread that uses the client (the batches of
  // concurrent reads and writes share it): at most `limit` at once. A batch with none under way
  // waits for a place, first come first served; a batch with some under way takes another only
  // while no other batch waits, so that none starves. A batch started on a thread whose batch
  // is already running (a request made from inside that batch's callback) is never made to
  // wait: it would wait for places that only its own thread can free.
  bool acquire(std::size_t limit, bool may_wait, bool nested) {
    std::unique_lock lock(budget_mutex);
    if (!nested) {
      if (!may_wait) {
        if (waiting > 0 || sending >= limit) return false;
      } else {
        const auto ticket = next_ticket++;
        ++waiting;
        budget_freed.wait(lock, [&] { return sending < limit && ticket == serving; });
        --waiting;
        ++serving;
        budget_freed.notify_all();  // the next in line may fit too
      }
    }
    ++sending;
    return true;
  }
  void release() {
    {
      const std::lock_guard lock(budget_mutex);
      --sending;
    }
    budget_freed.notify_all();
  }

 private:
  std::mutex budget_mutex;
  std::condition_variable budget_freed;
  std::size_t sending = 0;  // requests under way, of every batch
  std::size_t waiting = 0;  // batches waiting for their first place
  std::uint64_t next_ticket = 0, serving = 0;
};

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct transfer {
  bytes* body = nullptr;
  http_response* response = nullptr;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const auto n = size * count;
  const auto* first = reinterpret_cast<const std::byte*>(data);
  t->body->insert(t->body->end(), first, first + n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const auto n = size * count;
  const std::string_view line(data, n);
  if (line.starts_with("HTTP/")) {  // a new answer (after 100 Continue or a redirect): forget the last
    *t->response = http_response{};
    t->body->clear();
    return n;
  }
  if (const auto field = parse_header_line(line)) {
    if (field->name == "etag") t->response->etag = field->value;
    if (field->name == "content-range") t->response->content_range = field->value;
    if (field->name == "content-length") {
      t->response->content_length = parse_number(field->value);
      // The body goes in one allocation (a length that lies is caught after the transfer).
      if (t->response->content_length && *t->response->content_length <= (std::uint64_t{1} << 32))
        t->body->reserve(static_cast<std::size_t>(*t->response->content_length));
    }
  }
  return n;
}

bool transient(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

struct slist_deleter {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};
using header_list = std::unique_ptr<curl_slist, slist_deleter>;

void add_header(header_list& headers, const std::string& h, std::string_view where) {
  curl_slist* next = curl_slist_append(headers.get(), h.c_str());
  if (next == nullptr) throw error(errc::io, std::string(where) + ": expected memory for a header, got none");
  static_cast<void>(headers.release());
  headers.reset(next);
}

using clock_type = std::chrono::steady_clock;

// How many batches (perform_many) are running on this thread: more than one when a batch's
// callback sends requests of its own.
thread_local unsigned batches_on_this_thread = 0;

// One exchange of a batch while it is being sent and retried.
struct exchange_state {
  header_list headers;
  http_response response;
  transfer t;
  unsigned attempt = 0;
  clock_type::time_point first_try{};
  std::string last_problem;
};

}  // namespace

http_client::http_client(retry_policy retry, std::shared_ptr<const request_signer> signer, std::size_t max_in_flight)
    : pool_(std::make_unique<pool>()), retry_(retry), signer_(std::move(signer)),
      max_in_flight_(std::max<std::size_t>(max_in_flight, 1)) {
  global_init();
}

http_client::~http_client() = default;

request_counts http_client::counts() const noexcept {
  return {.get = get_.load(),
          .head = head_.load(),
          .put = put_.load(),
          .del = del_.load(),
          .retries = retries_.load(),
          .peak_in_flight = peak_in_flight_.load(),
          .connections = connections_.load()};
}

void http_client::reset_counts() const noexcept {
  get_ = 0;
  head_ = 0;
  put_ = 0;
  del_ = 0;
  retries_ = 0;
  peak_in_flight_ = in_flight_.load();
  connections_ = 0;
}

http_response http_client::perform(const http_request& request, bytes& body, std::string_view where) const {
  http_exchange one{.request = request, .body = &body, .where = std::string(where), .response = {}};
  perform_many(std::span(&one, 1));
  return std::move(one.response);
}

// One perform_many call: the state of its exchanges, the handles it has under way (given back
// to the pools whatever happens; transfers still under way are abandoned, and an abandoned PUT
// leaves the old object: S3 writes are atomic), and the tries waiting for their time
// (backoff), soonest first.
class http_client::batch_run {
 public:
  batch_run(const http_client& client, std::span<http_exchange> batch, const std::function<void(std::size_t)>& done,
            const std::function<bool(std::size_t)>& ready)
      : client_(client), batch_(batch), done_(done), ready_(ready), state_(batch.size()),
        multi_(client.pool_->take_multi(client.max_in_flight_)), nested_(batches_on_this_thread > 1) {
    running_.reserve(std::min(client.max_in_flight_, batch.size()));
  }
  ~batch_run() {
    for (const auto& r : running_) {
      curl_multi_remove_handle(multi_, r.first);
      client_.pool_->give_back(r.first);
      --client_.in_flight_;
      client_.pool_->release();
    }
    client_.pool_->give_back_multi(multi_);
  }
  batch_run(const batch_run&) = delete;
  batch_run& operator=(const batch_run&) = delete;

  // Sends every exchange: retries whose time has come and new ones as places in the client's
  // budget allow, then runs the transfers until one finishes (or it is time to look again).
  void run() {
    for (;;) {
      while (!retries_.empty() && retries_.top().first <= clock_type::now() && place()) {
        const auto i = retries_.top().second;
        retries_.pop();
        start_placed(i);
      }
      bool waiting_for_ready = false;
      while (next_ < batch_.size() && place()) {
        if (ready_ && !ready_(next_)) {
          client_.pool_->release();
          waiting_for_ready = true;
          break;
        }
        start_placed(next_++);
      }
      if (running_.empty()) {
        if (retries_.empty() && next_ == batch_.size()) return;  // every exchange is done
        // Nothing under way: wait for the next retry's time, or a millisecond for `ready`.
        const auto soon = clock_type::now() + std::chrono::milliseconds(1);
        std::this_thread::sleep_until(retries_.empty()      ? soon
                                      : waiting_for_ready ? std::min(soon, retries_.top().first)
                                                          : retries_.top().first);
        continue;
      }
      if (!transfer_until_one_finishes()) wait_for_activity(waiting_for_ready);
    }
  }

 private:
  using waiting = std::pair<clock_type::time_point, std::size_t>;

  // How many batches run on this thread (for the client's budget).
  struct counted_on_this_thread {
    counted_on_this_thread() { ++batches_on_this_thread; }
    ~counted_on_this_thread() { --batches_on_this_thread; }
    counted_on_this_thread(const counted_on_this_thread&) = delete;
    counted_on_this_thread& operator=(const counted_on_this_thread&) = delete;
  };

  // A place in the client's budget (shared with other threads' batches).
  bool place() {
    return running_.size() < client_.max_in_flight_ &&
           client_.pool_->acquire(client_.max_in_flight_, running_.empty(), nested_);
  }
  void start_placed(std::size_t i) {
    try {
      start(i);
    } catch (...) {
      client_.pool_->release();
      throw;
    }
  }

  // A try of exchange i (its headers made and signed at the first).
  void start(std::size_t i) {
    auto& x = batch_[i];
    auto& st = state_[i];
    const auto& request = x.request;
    const bool is_head = request.method == "HEAD", is_put = request.method == "PUT";
    if (st.attempt == 0) {
      st.first_try = clock_type::now();
      for (const auto& h : request.headers) add_header(st.headers, h, x.where);
      if (client_.signer_) {
        std::vector<std::string> more;
        client_.signer_->add_headers(request, more);
        for (const auto& h : more) add_header(st.headers, h, x.where);
      }
      if (is_put) add_header(st.headers, "Content-Type: application/octet-stream", x.where);
      st.t = transfer{.body = x.body, .response = &st.response};
    }
    ++st.attempt;
    ++(is_head ? client_.head_ : is_put ? client_.put_ : request.method == "DELETE" ? client_.del_ : client_.get_);
    st.response = http_response{};
    x.body->clear();
    CURL* h = client_.pool_->take();
    configure(h, i);
    if (curl_multi_add_handle(multi_, h) != CURLM_OK) {
      client_.pool_->give_back(h);
      throw error(errc::io, x.where + ": expected libcurl to take the request, got a refusal of its multi handle");
    }
    running_.emplace_back(h, i);
    const auto now_in_flight = ++client_.in_flight_;
    auto peak = client_.peak_in_flight_.load();
    while (now_in_flight > peak && !client_.peak_in_flight_.compare_exchange_weak(peak, now_in_flight)) {
    }
  }

  // The libcurl options of a try of exchange i.
  void configure(CURL* h, std::size_t i) {
    const auto& request = batch_[i].request;
    auto& st = state_[i];
    const bool is_head = request.method == "HEAD", is_put = request.method == "PUT";
    const auto& retry = client_.retry_;
    const auto remaining =
        std::chrono::duration_cast<std::chrono::milliseconds>(st.first_try + retry.time_limit - clock_type::now());
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(retry.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<std::int64_t>(remaining.count(), 1)));
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);  // under 1 byte/s for stall_timeout: a stalled try
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(std::max<std::int64_t>(retry.stall_timeout.count(), 1)));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, st.headers.get());
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &st.t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &st.t);
    curl_easy_setopt(h, CURLOPT_PRIVATE, reinterpret_cast<char*>(i + 1));
    if (is_head) curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    if (is_put) {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.empty() ? "" : reinterpret_cast<const char*>(request.body.data()));
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    } else if (!is_head && request.method != "GET") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, std::string(request.method).c_str());  // libcurl copies it
    }
    if (client_.signer_) client_.signer_->prepare(h);
  }

  // Runs the transfers; true when at least one finished (each then handled by finish()).
  bool transfer_until_one_finishes() {
    int still_running = 0;
    if (const auto mc = curl_multi_perform(multi_, &still_running); mc != CURLM_OK)
      throw error(errc::io, batch_[running_.front().second].where + ": expected libcurl to run the requests, got " +
                                curl_multi_strerror(mc));
    bool any = false;
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      any = true;
      finish(m->easy_handle, m->data.result);
    }
    return any;
  }

  // Until a transfer has something to do, a retry's time comes, or (waiting for `ready`) a
  // millisecond passes; at most a second.
  void wait_for_activity(bool waiting_for_ready) {
    int timeout_ms = waiting_for_ready ? 1 : 1000;
    if (!retries_.empty())
      timeout_ms = static_cast<int>(std::clamp<std::int64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(retries_.top().first - clock_type::now()).count(), 0,
          timeout_ms));
    curl_multi_poll(multi_, nullptr, 0, timeout_ms, nullptr);
  }

  // The outcome of a finished try: the exchange is done, waits for another try, or fails.
  void finish(CURL* h, CURLcode rc) {
    char* tag = nullptr;
    curl_easy_getinfo(h, CURLINFO_PRIVATE, &tag);
    const auto i = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(tag) - 1);
    auto& x = batch_[i];
    auto& st = state_[i];
    long status = 0, connects = 0;
    if (rc == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
    client_.connections_ += static_cast<std::uint64_t>(std::max(connects, 0L));
    curl_multi_remove_handle(multi_, h);
    std::erase_if(running_, [h](const auto& r) { return r.first == h; });
    --client_.in_flight_;
    client_.pool_->release();
    client_.pool_->give_back(h);
    st.response.status = status;

    const bool is_head = x.request.method == "HEAD";
    bool retry = false;
    if (rc != CURLE_OK) {
      st.last_problem = std::string("libcurl: ") + curl_easy_strerror(rc);
      if (!transient(rc)) throw error(errc::io, x.where + ": expected an HTTP answer, got " + st.last_problem);
      retry = true;
    } else if (status >= 500) {
      st.last_problem = "HTTP " + std::to_string(status);
      retry = true;
    } else if (!is_head && st.response.content_length && *st.response.content_length != x.body->size()) {
      st.last_problem = "a body of " + std::to_string(x.body->size()) + " bytes with Content-Length " +
                        std::to_string(*st.response.content_length);
      retry = true;
    }
    if (!retry) {
      x.response = std::move(st.response);
      st.headers.reset();
      if (done_) done_(i);
      return;
    }
    schedule_retry(i);
  }

  // Another try of exchange i after a jittered backoff, unless the policy's tries or time are spent.
  void schedule_retry(std::size_t i) {
    const auto& x = batch_[i];
    const auto& st = state_[i];
    const auto& retry = client_.retry_;
    const auto now = clock_type::now();
    const auto cap = std::min<std::int64_t>(retry.max_delay.count(), retry.first_delay.count() << std::min<unsigned>(st.attempt - 1, 20));
    const auto delay = std::chrono::milliseconds(
        std::uniform_int_distribution<std::int64_t>(0, std::max<std::int64_t>(cap, 0))(jitter_));
    if (st.attempt >= retry.max_attempts || now + delay >= st.first_try + retry.time_limit) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(now - st.first_try).count();
      throw error(errc::io, x.where + ": expected an answer, got " + st.last_problem + " (gave up after " +
                                std::to_string(st.attempt) + " tries in " + std::to_string(spent) + " ms)");
    }
    ++client_.retries_;
    retries_.emplace(now + delay, i);
  }

  const http_client& client_;
  std::span<http_exchange> batch_;
  const std::function<void(std::size_t)>& done_;
  const std::function<bool(std::size_t)>& ready_;
  std::vector<exchange_state> state_;
  std::minstd_rand jitter_{std::random_device{}()};
  std::priority_queue<waiting, std::vector<waiting>, std::greater<>> retries_;
  counted_on_this_thread counted_;  // before nested_, which reads the count
  CURLM* multi_;
  std::vector<std::pair<CURL*, std::size_t>> running_;  // handle, exchange
  bool nested_;
  std::size_t next_ = 0;
};

void http_client::perform_many(std::span<http_exchange> batch, const std::function<void(std::size_t)>& done,
                               const std::function<bool(std::size_t)>& ready) const {
  if (batch.empty()) return;
  batch_run(*this, batch, done, ready).run();
}

// ---------------------------------------------------------------- remote_store

namespace {

std::string byte_range_header(byte_range range) {
  if (range.suffix) return "Range: bytes=-" + std::to_string(range.length);
  return "Range: bytes=" + std::to_string(range.offset) + "-" + std::to_string(range.offset + range.length - 1);
}

}  // namespace

bool remote_store::absent(const http_response& r, std::span<const std::byte>) const { return r.status == 404; }

void remote_store::fail(std::string_view key, const http_response& r, std::span<const std::byte>) const {
  throw error(errc::io, where(key) + ": expected HTTP 200, got HTTP " + std::to_string(r.status));
}

http_request remote_store::read_request(std::string_view key, std::optional<byte_range> range,
                                       std::string_view if_match) const {
  validate_key(key);
  http_request request{.method = "GET", .url = url_of(key), .headers = {}, .body = {}};
  if (!if_match.empty()) request.headers.push_back("If-Match: " + std::string(if_match));
  if (range && range->length == 0) {  // HTTP cannot ask for no bytes: check the range against the size
    request.method = "HEAD";
  } else if (range) {
    request.headers.push_back(byte_range_header(*range));
  }
  return request;
}

remote_store::read_result remote_store::read(std::string_view key, std::optional<byte_range> range, bytes& out,
                                             std::string_view if_match) const {
  const auto request = read_request(key, range, if_match);
  const auto response = client_->perform(request, out, where(key));
  return read_answer(key, range, out, if_match, request, response);
}

remote_store::read_result remote_store::read_answer(std::string_view key, std::optional<byte_range> range, bytes& out,
                                                    std::string_view if_match, const http_request& request,
                                                    const http_response& response) const {
  read_result result;
  result.response = response;
  const auto& r = result.response;
  if (!if_match.empty() && (r.status == 412 || r.status == 404))
    throw value_changed(where(key) + ": expected the version first read (ETag " + std::string(if_match) +
                              "), got a value changed while being read (HTTP " + std::to_string(r.status) + ")");
  if (r.status == 404 && absent(r, out)) return result;
  if (range && r.status == 416) {  // past the end: say by how much, as every store does
    const auto n = size(key);
    if (!n) return result;
    static_cast<void>(resolve_range(key, *range, *n));
  }
  if (request.method == "HEAD" && r.status == 200) {
    static_cast<void>(resolve_range(key, *range, r.content_length.value_or(0)));
    out.clear();
    result.found = true;
    return result;
  }
  if (r.status == 200) {  // the whole value (a server may ignore Range)
    if (range) {
      const auto [offset, length] = resolve_range(key, *range, out.size());
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(offset + length), out.end());
      out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(offset));
    }
    result.found = true;
    return result;
  }
  if (r.status == 206 && range) {
    const auto cr = parse_content_range(r.content_range);
    if (!cr || !cr->total)
      throw error(errc::io, where(key) + ": expected a Content-Range with the size, got \"" + r.content_range + "\"");
    const auto [offset, length] = resolve_range(key, *range, *cr->total);
    if (cr->first != offset || cr->last + 1 != offset + length || out.size() != length)
      throw error(errc::io, where(key) + ": expected bytes " + std::to_string(offset) + "-" +
                                std::to_string(offset + length - 1) + ", got \"" + r.content_range + "\" and " +
                                std::to_string(out.size()) + " bytes");
    result.found = true;
    return result;
  }
  fail(key, r, out);
}

std::vector<bytes> remote_store::read_ranges(std::string_view key, std::span<const byte_range> ranges,
                                             std::string_view if_match) const {
  std::vector<bytes> out(ranges.size());
  std::vector<http_exchange> batch;
  batch.reserve(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i)
    batch.push_back({.request = read_request(key, ranges[i], if_match), .body = &out[i], .where = where(key), .response = {}});
  client_->perform_many(batch, [&](std::size_t i) {
    if (!read_answer(key, ranges[i], out[i], if_match, batch[i].request, batch[i].response).found)
      throw value_changed(where(key) + ": expected the version first read (ETag " + std::string(if_match) +
                          "), got a value erased while being read");
  });
  return out;
}

bool remote_store::get_into(std::string_view key, bytes& out) const { return read(key, std::nullopt, out, {}).found; }

void remote_store::get_many(std::span<get_item> items, const item_done& done, const item_ready& ready) const {
  std::vector<http_exchange> batch;
  batch.reserve(items.size());
  for (auto& item : items)
    batch.push_back({.request = read_request(item.key, std::nullopt, {}), .body = &item.value, .where = where(item.key),
                     .response = {}});
  client_->perform_many(batch, [&](std::size_t i) {
    items[i].found = read_answer(items[i].key, std::nullopt, items[i].value, {}, batch[i].request, batch[i].response).found;
    if (done) done(i);
  }, ready);
}

std::optional<bytes> remote_store::get(std::string_view key) const {
  bytes out;
  if (!get_into(key, out)) return std::nullopt;
  return out;
}

std::optional<bytes> remote_store::get(std::string_view key, byte_range range) const {
  bytes out;
  if (!read(key, range, out, {}).found) return std::nullopt;
  return out;
}

std::optional<std::uint64_t> remote_store::size(std::string_view key) const {
  validate_key(key);
  bytes ignored;
  const auto r = client_->perform({.method = "HEAD", .url = url_of(key), .headers = {}, .body = {}}, ignored, where(key));
  if (r.status == 404 && absent(r, ignored)) return std::nullopt;
  if (r.status != 200) fail(key, r, ignored);
  if (!r.content_length) throw error(errc::io, where(key) + ": expected a Content-Length in the answer to HEAD, got none");
  return r.content_length;
}

namespace {

// A value read by ETag: every read sends If-Match, so that a rewrite shows as an error.
class pinned_value final : public stored_value {
 public:
  pinned_value(const remote_store& s, std::string key, std::string etag)
      : store_(s), key_(std::move(key)), etag_(std::move(etag)) {}
  [[nodiscard]] bytes get(std::optional<byte_range> range) const override {
    bytes out;
    static_cast<void>(store_.read(key_, range, out, etag_));
    return out;
  }
  [[nodiscard]] std::vector<bytes> get_ranges(std::span<const byte_range> ranges) const override {
    return store_.read_ranges(key_, ranges, etag_);
  }
  [[nodiscard]] value_version version() const override { return {etag_}; }

 private:
  const remote_store& store_;
  std::string key_;
  std::string etag_;
};

}  // namespace

std::unique_ptr<const stored_value> remote_store::snapshot(std::string_view key) const {
  validate_key(key);
  bytes ignored;
  const auto r = client_->perform({.method = "HEAD", .url = url_of(key), .headers = {}, .body = {}}, ignored, where(key));
  if (r.status == 404 && absent(r, ignored)) return nullptr;
  if (r.status != 200) fail(key, r, ignored);
  if (r.etag.empty()) return store::snapshot(key);  // no version to pin: a copy of the whole value
  return std::make_unique<const pinned_value>(*this, std::string(key), r.etag);
}

std::unique_ptr<const stored_value> remote_store::snapshot_at(std::string_view key, const value_version& version) const {
  validate_key(key);
  if (version.absent()) return store::snapshot_at(key, version);  // throws: nothing to pin to
  return std::make_unique<const pinned_value>(*this, std::string(key), version.tag);
}

std::unique_ptr<const stored_value> remote_store::snapshot_and_read(std::string_view key, byte_range first,
                                                                   bytes& part) const {
  const auto result = read(key, first, part, {});
  if (!result.found) return nullptr;
  if (result.response.etag.empty()) return store::snapshot(key);
  return std::make_unique<const pinned_value>(*this, std::string(key), result.response.etag);
}

// ---------------------------------------------------------------- http_store

http_store::http_store(std::string base_url, http_options options)
    : remote_store(std::make_shared<const http_client>(options.retry, nullptr, options.max_in_flight)),
      base_(std::move(base_url)) {
  while (base_.ends_with('/')) base_.pop_back();
  if (!base_.starts_with("http://") && !base_.starts_with("https://"))
    throw error(errc::invalid_argument, "http store \"" + base_ + "\": expected a URL starting with http:// or https://");
}

std::string http_store::url_of(std::string_view key) const { return base_ + "/" + percent_encode(key, true); }

std::string http_store::where(std::string_view key) const { return "http \"" + url_of(key) + "\""; }

void http_store::set(std::string_view key, std::span<const std::byte>) {
  throw error(errc::unsupported, where(key) + ": expected a writable store, got a read-only HTTP store");
}

void http_store::erase(std::string_view key) {
  throw error(errc::unsupported, where(key) + ": expected a writable store, got a read-only HTTP store");
}

std::vector<std::string> http_store::list(std::string_view prefix) const {
  throw error(errc::unsupported, "http \"" + base_ + "/" + std::string(prefix) +
                                     "\": expected a store that can list keys, got HTTP (no listing; open nodes by path)");
}

std::vector<std::string> http_store::list_dir(std::string_view prefix) const { return list(prefix); }

}  // namespace zarr
