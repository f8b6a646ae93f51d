// Faults a real server does not produce on demand, from a scripted fake HTTP server in this
// process: 503 storms, a connection closed before an answer, a body shorter than its
// Content-Length, a 4xx. They go through the same client (zarr.store.http) as S3 and HTTP.
#include <boost/test/unit_test.hpp>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include "../../support.hpp"
import zarr;

namespace {

// One scripted answer: `raw` is written as is, then the connection is closed.
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
  }
  fake_server(const fake_server&) = delete;
  fake_server& operator=(const fake_server&) = delete;

  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] int requests() const {
    const std::lock_guard lock(mutex_);
    return requests_;
  }

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
};

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
  BOOST_TEST(std::string(reinterpret_cast<const char*>(value->data()), value->size()) == "0123456789");
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

BOOST_AUTO_TEST_SUITE_END()
