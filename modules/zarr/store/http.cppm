// zarr.store.http: stores reached over HTTP(S) through libcurl (Zarr v3 core spec "Store
// implementations"). remote_store holds what every such store shares: GET of a whole value
// or a byte range (RFC 9110 "Range Requests"), HEAD for sizes, snapshots pinned by ETag with
// If-Match, bounded retries with backoff and jitter. http_store is the read-only store of a
// URL prefix (404 = absent); zarr.store.s3 adds a signer, writes and listing.
module;
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
export module zarr.store.http;

export import zarr.store;

export namespace zarr {

// How often and how long a request is tried again after a transient failure (connection
// refused or reset, a connection that stalls or ends early, a body shorter than its
// Content-Length, HTTP 5xx): at most `max_attempts` tries in all, waits growing from
// `first_delay` (doubling, capped at `max_delay`, each a random part of that: "full jitter"),
// and never past `time_limit` from the first try. A 4xx answer is never tried again.
struct retry_policy {
  unsigned max_attempts = 6;
  std::chrono::milliseconds first_delay{50};
  std::chrono::milliseconds max_delay{2000};
  std::chrono::milliseconds time_limit{30000};
  std::chrono::milliseconds connect_timeout{5000};
  // A try on which no byte moved for this long (a server that accepted the request and went
  // quiet) times out and is tried again; at least 1 s (libcurl's low-speed limit counts seconds).
  std::chrono::seconds stall_timeout{10};
};

// Requests a store sent (every try counts), by method; `retries` counts the tries after a
// transient failure; `peak_in_flight` the most requests that were under way at once (handed
// to libcurl, their answer not yet complete), `connections` the connections libcurl opened.
struct request_counts {
  std::uint64_t get = 0;
  std::uint64_t head = 0;
  std::uint64_t put = 0;
  std::uint64_t del = 0;
  std::uint64_t retries = 0;
  std::uint64_t peak_in_flight = 0;
  std::uint64_t connections = 0;
};

// How many requests a store keeps in flight at once (all its threads together), unless its
// options say.
inline constexpr std::size_t default_max_in_flight = 64;

// "bytes 10-19/100" of a 206 answer: first and last byte, and the whole size when known.
struct content_range {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::optional<std::uint64_t> total;
};
// Parses a Content-Range header value; nothing when malformed (or "bytes */100").
[[nodiscard]] std::optional<content_range> parse_content_range(std::string_view value);

// One header line "Name: value\r\n" as a lower-case name and the trimmed value; nothing when
// the line is no header (a status line, the blank line at the end).
struct header_field {
  std::string name;
  std::string value;
};
[[nodiscard]] std::optional<header_field> parse_header_line(std::string_view line);

// Percent-encoding of RFC 3986 (upper-case hex), keeping the unreserved characters and, when
// `keep_slash`, '/': the form AWS Signature Version 4 signs.
[[nodiscard]] std::string percent_encode(std::string_view text, bool keep_slash);

// An HTTP request and what came back (the body goes to a buffer of the caller's).
struct http_request {
  std::string_view method = "GET";  // GET, HEAD, PUT, DELETE
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::span<const std::byte> body;   // PUT only
};
struct http_response {
  long status = 0;
  std::string etag;
  std::string content_range;
  std::optional<std::uint64_t> content_length;
};
// One request of a batch: the answer's body goes to *body, its other parts to `response`;
// `where` names it in errors.
struct http_exchange {
  http_request request;
  bytes* body = nullptr;
  std::string where;
  http_response response;
};

// What authenticates the requests of a client that knows no scheme (zarr.store.s3 gives AWS
// Signature Version 4). Asked on the sending thread, for every try of a request.
class request_signer {
 public:
  virtual ~request_signer() = default;
  // Headers that go with `request` besides its own (a payload hash, a session token).
  virtual void add_headers(const http_request& request, std::vector<std::string>& headers) const = 0;
  // Makes the try sign itself: `transfer` is its libcurl easy handle (a CURL*).
  virtual void prepare(void* transfer) const = 0;
};

// Sends requests through libcurl's multi interface on the calling thread, keeping connections
// open between batches (pools of libcurl handles), retrying transient failures. Safe to use
// from several threads, which share one budget: at most `max_in_flight` requests of the client
// under way at once, whichever threads' batches they belong to (a batch waiting for its first
// request goes before further requests of batches already under way).
class http_client {
 public:
  explicit http_client(retry_policy retry = {}, std::shared_ptr<const request_signer> signer = nullptr,
                       std::size_t max_in_flight = default_max_in_flight);
  ~http_client();
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  // Sends `request` (retried as the policy says) and returns the final answer, any status;
  // the body into `body`. Throws zarr::error (io) naming `where` when no answer came.
  http_response perform(const http_request& request, bytes& body, std::string_view where) const;
  // Sends every request of `batch`, within the client's budget, each retried as the policy
  // says (its own tries and time limit, from its first try). done(i), when given, is called
  // on this thread as exchange i gets its final answer (any status), one call at a time.
  // Exchanges are first sent in index order; `ready(i)`, when given, is asked before exchange
  // i is first sent: while it answers false, that exchange and those after it wait (asked
  // again as others complete, and at least every millisecond), and it may fill in the
  // exchange's request before answering true.
  // The first request with no answer (or a throwing `done` or `ready`) stops the batch:
  // requests under way are abandoned, those not started are not sent, and its error is thrown.
  void perform_many(std::span<http_exchange> batch, const std::function<void(std::size_t)>& done = {},
                    const std::function<bool(std::size_t)>& ready = {}) const;

  [[nodiscard]] std::size_t max_in_flight() const noexcept { return max_in_flight_; }
  [[nodiscard]] request_counts counts() const noexcept;
  void reset_counts() const noexcept;

 private:
  struct pool;
  class batch_run;  // one perform_many call
  std::unique_ptr<pool> pool_;
  retry_policy retry_;
  std::shared_ptr<const request_signer> signer_;
  std::size_t max_in_flight_;
  mutable std::atomic<std::uint64_t> get_{0}, head_{0}, put_{0}, del_{0}, retries_{0};
  mutable std::atomic<std::uint64_t> in_flight_{0}, peak_in_flight_{0}, connections_{0};
};

// The reads every HTTP-based store shares. A derived store says where a key is (its URL),
// how to name it in messages, which answers mean "absent", and how to report the others.
class remote_store : public store {
 public:
  explicit remote_store(std::shared_ptr<const http_client> client) : client_(std::move(client)) {}

  [[nodiscard]] std::optional<bytes> get(std::string_view key) const override;
  [[nodiscard]] std::optional<bytes> get(std::string_view key, byte_range range) const override;
  [[nodiscard]] bool get_into(std::string_view key, bytes& out) const override;
  // HEAD for the ETag; later reads send If-Match with it, and a value rewritten or erased
  // since is value_changed (code io, "changed while being read"), never a mix of two versions.
  [[nodiscard]] std::unique_ptr<const stored_value> snapshot(std::string_view key) const override;
  // No request: the reads send If-Match with the ETag `version` (412: value_changed).
  [[nodiscard]] std::unique_ptr<const stored_value> snapshot_at(std::string_view key,
                                                               const value_version& version) const override;
  // One ranged GET, whose ETag pins the later reads.
  [[nodiscard]] std::unique_ptr<const stored_value> snapshot_and_read(std::string_view key, byte_range first,
                                                                     bytes& part) const override;
  [[nodiscard]] std::optional<std::uint64_t> size(std::string_view key) const override;
  // GETs of whole values, up to io_concurrency() in flight.
  void get_many(std::span<get_item> items, const item_done& done = {}, const item_ready& ready = {}) const override;
  [[nodiscard]] std::size_t io_concurrency() const noexcept override { return client_->max_in_flight(); }

  // The requests sent so far (and a way to start counting again).
  [[nodiscard]] request_counts requests() const noexcept { return client_->counts(); }
  void reset_requests() noexcept { client_->reset_counts(); }

  // A read of `key` (or a range of it) with the given extra headers: the answer, the body
  // in `out`, false when absent. Throws for other failures.
  struct read_result {
    bool found = false;
    http_response response;
  };
  [[nodiscard]] read_result read(std::string_view key, std::optional<byte_range> range, bytes& out,
                                 std::string_view if_match) const;
  // Byte ranges of `key` at the version `if_match` (an ETag), all in flight together (within the
  // client's budget); value_changed when the value is no longer that version.
  [[nodiscard]] std::vector<bytes> read_ranges(std::string_view key, std::span<const byte_range> ranges,
                                               std::string_view if_match) const;

 protected:
  // The request of read(), and what its answer means (the same checks for one read and a batch).
  [[nodiscard]] http_request read_request(std::string_view key, std::optional<byte_range> range,
                                          std::string_view if_match) const;
  [[nodiscard]] read_result read_answer(std::string_view key, std::optional<byte_range> range, bytes& out,
                                        std::string_view if_match, const http_request& request,
                                        const http_response& response) const;
  [[nodiscard]] virtual std::string url_of(std::string_view key) const = 0;
  // `s3 bucket "b", key "k"` or `http "https://..."`.
  [[nodiscard]] virtual std::string where(std::string_view key) const = 0;
  // Whether a 404 answer (its body given) means that the key is absent.
  [[nodiscard]] virtual bool absent(const http_response& r, std::span<const std::byte> body) const;
  // The error for an answer that is neither success nor absence.
  [[noreturn]] virtual void fail(std::string_view key, const http_response& r, std::span<const std::byte> body) const;

  [[nodiscard]] const http_client& client() const noexcept { return *client_; }

 private:
  std::shared_ptr<const http_client> client_;
};

struct http_options {
  retry_policy retry{};
  std::size_t max_in_flight = default_max_in_flight;  // requests under way at once, all threads (at least 1)
};

// A read-only store of the values below a URL ("https://host/data.zarr": key "a/zarr.json" is
// "https://host/data.zarr/a/zarr.json"). 404 = absent; writes and listing are refused
// (unsupported): plain HTTP has no way to list a folder.
class http_store final : public remote_store {
 public:
  explicit http_store(std::string base_url, http_options options = {});

  [[nodiscard]] const std::string& base_url() const noexcept { return base_; }

  void set(std::string_view key, std::span<const std::byte> value) override;
  void erase(std::string_view key) override;
  [[nodiscard]] std::vector<std::string> list(std::string_view prefix) const override;
  [[nodiscard]] std::vector<std::string> list_dir(std::string_view prefix) const override;

 protected:
  [[nodiscard]] std::string url_of(std::string_view key) const override;
  [[nodiscard]] std::string where(std::string_view key) const override;

 private:
  std::string base_;
};

}  // namespace zarr
