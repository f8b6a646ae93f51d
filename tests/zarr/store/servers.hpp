// The servers the store tests talk to, started by CTest fixtures (tests/servers/rgw and
// tests/servers/nginx): their env files, found through ZARR_TEST_S3_ENV and
// ZARR_TEST_HTTP_ENV. No file: the server could not start here, and the test says SKIPPED
// (under CI=true it fails, as does the fixture).
#pragma once
#include <boost/test/unit_test.hpp>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>
#include "../../support.hpp"
import zarr.store.s3;

namespace zarr_test {

// NAME=value lines of the env file named by environment variable `var`; nothing (and a
// SKIPPED message, or a failure under CI) when there is none.
inline std::optional<std::map<std::string, std::string>> server_env(const char* var, const char* server) {
  const char* path = std::getenv(var);
  std::ifstream in(path != nullptr ? path : "");
  if (path == nullptr || !in) {
    peer_missing(std::string(server) + " is not running (its CTest fixture could not start it)");
    return std::nullopt;
  }
  std::map<std::string, std::string> env;
  std::string line;
  while (std::getline(in, line))
    if (const auto eq = line.find('='); eq != std::string::npos) env[line.substr(0, eq)] = line.substr(eq + 1);
  return env;
}

// Options for a new, empty bucket of the test RADOS Gateway (one per call), or nothing.
inline std::optional<zarr::s3_options> fresh_bucket(std::string prefix = "") {
  const auto env = server_env("ZARR_TEST_S3_ENV", "the RADOS Gateway");
  if (!env) return std::nullopt;
  static std::atomic<int> n{0};
  zarr::s3_options o;
  o.endpoint = env->at("S3_ENDPOINT");
  o.region = env->at("S3_REGION");
  o.access_key_id = env->at("S3_ACCESS_KEY");
  o.secret_access_key = env->at("S3_SECRET_KEY");
  o.bucket = "zarr-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
  o.prefix = std::move(prefix);
  zarr::s3_store(o).create_bucket();
  return o;
}

}  // namespace zarr_test
