// Faults a real server does not produce on demand, from a scripted fake HTTP server in this
// process: 503 storms, a connection closed before an answer, a body shorter or longer than its
// Content-Length, a 4xx, a server that takes the request and never answers, a 200 to a ranged
// GET, HEAD without Content-Length. They go through the same client (zarr.store.http) as S3
// and HTTP.
#include <boost/test/unit_test.hpp>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <chrono>
#include <deque>
#include <optional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.builder;
import zarr.store.http;
import zarr.store.s3;
import zarr.bytes;

namespace {

// One scripted answer per connection: `raw` is written as is, then the connection is closed;
// `hang` writes nothing and keeps the connection open until the server goes.
class fake_server {
 public:
  explicit fake_server(std::vector<std::string> answers) : answers_(answers.begin(), answers.end()) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_TEST_REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t n = sizeof a;
    BOOST_TEST_REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n) == 0);
    port_ = ntohs(a.sin_port);
    BOOST_TEST_REQUIRE(::listen(fd_, 16) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~fake_server() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    for (const int c : held_) ::close(c);
  }
  fake_server(const fake_server&) = delete;
  fake_server& operator=(const fake_server&) = delete;

  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] int requests() const {
    const std::lock_guard lock(mutex_);
    return requests_;
  }

  static inline const std::string hang = "(hang)";

  static std::string answer(int status, const std::string& body, std::size_t declared) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(declared) +
           "\r\nETag: \"e1\"\r\nConnection: close\r\n\r\n" + body;
  }

 private:
  void serve() {
    for (;;) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const auto n = ::read(c, buffer, sizeof buffer);
        if (n <= 0) break;
        request.append(buffer, static_cast<std::size_t>(n));
      }
      std::string raw;
      {
        const std::lock_guard lock(mutex_);
        ++requests_;
        if (!answers_.empty()) {
          raw = answers_.front();
          answers_.pop_front();
        }
      }
      if (raw == hang) {
        held_.push_back(c);
        continue;
      }
      if (!raw.empty()) static_cast<void>(::write(c, raw.data(), raw.size()));
      ::close(c);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::deque<std::string> answers_;
  int requests_ = 0;
  std::vector<int> held_;  // hung connections (the serving thread's alone)
};

// A value as text, "(absent)" when there is none.
std::string text_of(const std::optional<zarr::bytes>& v) {
  return v ? std::string(reinterpret_cast<const char*>(v->data()), v->size()) : std::string("(absent)");
}

zarr::http_options quick() {
  zarr::http_options o;
  o.retry.first_delay = std::chrono::milliseconds(5);
  o.retry.max_delay = std::chrono::milliseconds(20);
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_faults)

BOOST_AUTO_TEST_CASE(retries_503s_resets_and_short_bodies_then_succeeds) {
  const std::string ok = fake_server::answer(200, "0123456789", 10);
  fake_server server({fake_server::answer(503, "<Error><Code>SlowDown</Code></Error>", 36),
                      "",                                           // closed without an answer
                      fake_server::answer(200, "01234", 10),        // 5 of 10 bytes, then closed
                      fake_server::answer(500, "", 0), ok});
  zarr::http_store s(server.url(), quick());
  const auto value = s.get("k");
  BOOST_TEST_REQUIRE(value.has_value());
  BOOST_TEST(text_of(value) == "0123456789");
  BOOST_TEST(s.requests().retries == 4u);
  BOOST_TEST(server.requests() == 5);
}

BOOST_AUTO_TEST_CASE(never_retries_a_4xx) {
  fake_server server({fake_server::answer(403, "no", 2), fake_server::answer(200, "0123456789", 10)});
  zarr::http_store s(server.url(), quick());
  ZARR_CHECK_ERROR(s.get("k"), zarr::errc::io, "expected HTTP 200, got HTTP 403");
  BOOST_TEST(s.requests().retries == 0u);
  BOOST_TEST(server.requests() == 1);
}

BOOST_AUTO_TEST_CASE(a_503_storm_gives_up_after_the_configured_tries) {
  std::vector<std::string> storm(10, fake_server::answer(503, "", 0));
  fake_server server(storm);
  auto o = quick();
  o.retry.max_attempts = 4;
  zarr::http_store s(server.url(), o);
  ZARR_CHECK_ERROR(s.get("k"), zarr::errc::io, "got HTTP 503 (gave up after 4 tries");
  BOOST_TEST(server.requests() == 4);
}

BOOST_AUTO_TEST_CASE(a_wrong_content_range_is_an_error_never_data) {
  fake_server server({"HTTP/1.1 206 X\r\nContent-Length: 3\r\nContent-Range: bytes 1-3/10\r\nConnection: close\r\n\r\nabc"});
  zarr::http_store s(server.url(), quick());
  ZARR_CHECK_ERROR(s.get("k", zarr::byte_range{2, 3}), zarr::errc::io, "expected bytes 2-4, got \"bytes 1-3/10\"");
}

// The request went out, and the server never says a word: after stall_timeout the try times
// out and is tried again, and the second answer is the value.
BOOST_AUTO_TEST_CASE(a_server_that_goes_quiet_is_tried_again_after_the_stall_timeout) {
  fake_server server({fake_server::hang, fake_server::answer(200, "0123456789", 10)});
  auto o = quick();
  o.retry.stall_timeout = std::chrono::seconds(1);
  zarr::http_store s(server.url(), o);
  const auto value = s.get("k");
  BOOST_TEST_REQUIRE(value.has_value());
  BOOST_TEST(text_of(value) == "0123456789");
  BOOST_TEST(s.requests().retries == 1u);
  BOOST_TEST(server.requests() == 2);
}

// A server that takes every request and never answers: the tries time out one after the
// other, and the error says so and that it gave up.
BOOST_AUTO_TEST_CASE(a_server_that_never_answers_is_an_error_naming_the_timeout) {
  fake_server server(std::vector<std::string>(8, fake_server::hang));
  auto o = quick();
  o.retry.stall_timeout = std::chrono::seconds(1);
  o.retry.max_attempts = 3;
  zarr::http_store s(server.url(), o);
  ZARR_CHECK_ERROR(s.get("k"), zarr::errc::io, "Timeout was reached (gave up after 3 tries");
  BOOST_TEST(server.requests() == 3);
}

// HTTP/1.1 frames a body by its Content-Length (RFC 9112, section 6.3): bytes past it are no
// part of the answer, and the value is the declared bytes.
BOOST_AUTO_TEST_CASE(bytes_past_the_content_length_are_no_part_of_the_value) {
  fake_server server({fake_server::answer(200, "0123456789XYZ", 10)});
  zarr::http_store s(server.url(), quick());
  const auto value = s.get("k");
  BOOST_TEST_REQUIRE(value.has_value());
  BOOST_TEST(text_of(value) == "0123456789");
  BOOST_TEST(s.requests().retries == 0u);
}

// A server may ignore Range (RFC 9110, section 14.2) and answer 200 with the whole value: the
// store cuts the range asked for from it.
BOOST_AUTO_TEST_CASE(a_200_answer_to_a_ranged_get_gives_the_range_asked_for) {
  const auto whole = fake_server::answer(200, "0123456789", 10);
  fake_server server({whole, whole, whole});
  zarr::http_store s(server.url(), quick());
  BOOST_TEST(text_of(s.get("k", zarr::byte_range{2, 3})) == "234");
  BOOST_TEST(text_of(s.get("k", zarr::byte_range::last(3))) == "789");
  ZARR_CHECK_ERROR(s.get("k", zarr::byte_range{8, 5}), zarr::errc::corrupt_chunk,
                   "expected a byte range within 10 bytes, got 8+5");
}

BOOST_AUTO_TEST_CASE(a_head_answer_without_content_length_is_an_error) {
  fake_server server({"HTTP/1.1 200 X\r\nETag: \"e1\"\r\nConnection: close\r\n\r\n"});
  zarr::http_store s(server.url(), quick());
  ZARR_CHECK_ERROR(s.size("k"), zarr::errc::io, "expected a Content-Length in the answer to HEAD, got none");
}

// S3's XML from the wire (ListObjectsV2, error documents) that is cut short, wrong or repeats
// itself: an error naming the bucket and what was expected, never a listing made up of it.
BOOST_AUTO_TEST_CASE(malformed_s3_xml_over_the_wire_is_an_error_naming_the_bucket) {
  const auto xml = [](const std::string& body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
  };
  const std::string page = R"(<?xml version="1.0"?><ListBucketResult><EncodingType>url</EncodingType>)"
                           R"(<IsTruncated>true</IsTruncated><NextContinuationToken>t1</NextContinuationToken>)"
                           R"(<Contents><Key>a</Key></Contents></ListBucketResult>)";
  const std::string denied = "<Error><Code>AccessDenied</Code><Message>no";  // cut short
  fake_server server({xml(R"(<?xml version="1.0"?><ListBucketResult><Contents><Key>a</Key>)"),  // cut short
                      xml("<ListAllMyBucketsResult></ListAllMyBucketsResult>"),                // another document
                      xml(page), xml(page),                                                     // the same token again
                      "HTTP/1.1 403 Forbidden\r\nContent-Length: " + std::to_string(denied.size()) +
                          "\r\nConnection: close\r\n\r\n" + denied});
  zarr::s3_options o;
  o.endpoint = server.url();
  o.bucket = "bucket";
  o.region = "us-east-1";
  o.access_key_id = "AKIDEXAMPLE";
  o.secret_access_key = "secret";
  o.retry = quick().retry;
  zarr::s3_store s(o);
  ZARR_CHECK_ERROR(s.list(""), zarr::errc::io, "s3 bucket \"bucket\", prefix \"\": XML document: expected well-formed XML");
  ZARR_CHECK_ERROR(s.list(""), zarr::errc::io, "expected <ListBucketResult>, got <ListAllMyBucketsResult>");
  ZARR_CHECK_ERROR(s.list(""), zarr::errc::io, "expected a new continuation token, got the same again");
  ZARR_CHECK_ERROR(s.list(""), zarr::errc::io, "s3 bucket \"bucket\": expected success, got HTTP 403 (access denied");
  BOOST_TEST(server.requests() == 5);
}

BOOST_AUTO_TEST_SUITE_END()
