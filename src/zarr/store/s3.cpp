// zarr.store.s3: URLs (path-style or virtual-hosted), the environment's defaults, S3's error
// documents turned into zarr::error naming the bucket and key (never a credential), PUT,
// DELETE and ListObjectsV2 with its query string sorted and encoded as SigV4 signs it; the
// SigV4 signer of the generic HTTP client.
module;
#include <curl/curl.h>
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
module zarr.store.s3;

import zarr.error;

namespace zarr {

namespace {

std::string from_env(std::string value, const char* name, const char* fallback = nullptr) {
  if (!value.empty()) return value;
  if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return v;
  if (fallback != nullptr) {
    if (const char* v = std::getenv(fallback); v != nullptr && *v != '\0') return v;
  }
  return {};
}

s3_options resolved(s3_options o) {
  o.region = from_env(std::move(o.region), "AWS_REGION", "AWS_DEFAULT_REGION");
  if (o.region.empty()) o.region = "us-east-1";
  o.endpoint = from_env(std::move(o.endpoint), "AWS_ENDPOINT_URL");
  if (o.endpoint.empty()) o.endpoint = "https://s3." + o.region + ".amazonaws.com";
  while (o.endpoint.ends_with('/')) o.endpoint.pop_back();
  if (o.access_key_id.empty() && o.secret_access_key.empty()) {
    o.access_key_id = from_env({}, "AWS_ACCESS_KEY_ID");
    o.secret_access_key = from_env({}, "AWS_SECRET_ACCESS_KEY");
    o.session_token = from_env(std::move(o.session_token), "AWS_SESSION_TOKEN");
  }
  while (o.prefix.starts_with('/')) o.prefix.erase(0, 1);
  while (o.prefix.ends_with('/')) o.prefix.pop_back();
  return o;
}

// AWS Signature Version 4, computed by libcurl (CURLOPT_AWS_SIGV4) from the credentials.
class aws_sigv4_signer final : public request_signer {
 public:
  explicit aws_sigv4_signer(const s3_options& o)
      : scheme_("aws:amz:" + o.region + ":s3"), access_key_id_(o.access_key_id),
        secret_access_key_(o.secret_access_key), session_token_(o.session_token) {}

  void add_headers(const http_request& request, std::vector<std::string>& headers) const override {
    // libcurl 7.88 neither sends nor signs a payload hash by itself: S3 needs one (a PUT's is
    // left unsigned; the hash of an empty body otherwise).
    headers.emplace_back(request.method == "PUT"
                             ? "x-amz-content-sha256: UNSIGNED-PAYLOAD"
                             : "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    if (!session_token_.empty()) headers.push_back("x-amz-security-token: " + session_token_);
    // (An empty "Expect:" to skip the 100-continue round trip of large PUTs would be signed
    // by libcurl 7.88 yet not sent: the server then refuses the signature.)
  }
  void prepare(void* transfer) const override {
    CURL* h = static_cast<CURL*>(transfer);
    curl_easy_setopt(h, CURLOPT_AWS_SIGV4, scheme_.c_str());
    curl_easy_setopt(h, CURLOPT_USERNAME, access_key_id_.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, secret_access_key_.c_str());
  }

 private:
  std::string scheme_, access_key_id_, secret_access_key_, session_token_;
};

std::shared_ptr<const request_signer> signer_of(const s3_options& o) {
  if (o.access_key_id.empty() && o.secret_access_key.empty()) return nullptr;  // anonymous
  return std::make_shared<const aws_sigv4_signer>(o);
}

// A bucket name as S3 allows it (3-63 lower-case letters, digits, '-' and '.'): anything else
// would change the meaning of a URL.
bool valid_bucket(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  return std::all_of(b.begin(), b.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

}  // namespace

s3_store::s3_store(s3_options options) : s3_store(resolved(std::move(options)), resolved_tag{}) {}

s3_store::s3_store(s3_options options, resolved_tag)
    : remote_store(std::make_shared<const http_client>(options.retry, signer_of(options), options.max_in_flight)),
      options_(std::move(options)) {
  const auto scheme_end = options_.endpoint.find("://");
  scheme_ = scheme_end == std::string::npos ? std::string() : options_.endpoint.substr(0, scheme_end + 3);
  if (scheme_ != "http://" && scheme_ != "https://")
    throw error(errc::invalid_argument, "s3 endpoint \"" + options_.endpoint + "\": expected a URL starting with http:// or https://");
  authority_ = options_.endpoint.substr(scheme_.size());
  if (authority_.empty() || authority_.find_first_of("/?#@") != std::string::npos)
    throw error(errc::invalid_argument, "s3 endpoint \"" + options_.endpoint +
                                            "\": expected scheme://host[:port] without a path, query or user");
  if (!valid_bucket(options_.bucket))
    throw error(errc::invalid_argument, "s3 bucket \"" + options_.bucket +
                                            "\": expected 3 to 63 lower-case letters, digits, '-' or '.'");
  if (!options_.prefix.empty()) validate_key(options_.prefix);
}

std::string s3_store::bucket_url() const {
  if (options_.virtual_hosted) return scheme_ + options_.bucket + "." + authority_;
  return options_.endpoint + "/" + options_.bucket;
}

std::string s3_store::full_key(std::string_view key) const {
  return options_.prefix.empty() ? std::string(key) : options_.prefix + "/" + std::string(key);
}

std::string s3_store::url_of(std::string_view key) const {
  return bucket_url() + "/" + percent_encode(full_key(key), true);
}

std::string s3_store::where(std::string_view key) const {
  return "s3 bucket \"" + options_.bucket + "\", key \"" + full_key(key) + "\"";
}

bool s3_store::absent(const http_response& r, std::span<const std::byte> body) const {
  if (r.status != 404) return false;
  if (body.empty()) return true;  // HEAD: no document to tell
  const auto doc = parse_s3_error(std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
  return !doc || doc->code == "NoSuchKey";
}

void s3_store::fail(std::string_view key, const http_response& r, std::span<const std::byte> body) const {
  std::string got = "HTTP " + std::to_string(r.status);
  const auto doc = parse_s3_error(std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
  if (doc && !doc->code.empty()) got += " " + doc->code;
  if (doc && !doc->message.empty()) got += " (" + doc->message + ")";
  if (!doc && r.status == 403) got += " (access denied or a refused signature)";
  const auto code = r.status == 404 ? errc::not_found : errc::io;
  throw error(code, (key.empty() ? "s3 bucket \"" + options_.bucket + "\"" : where(key)) + ": expected success, got " + got);
}

void s3_store::set(std::string_view key, std::span<const std::byte> value) {
  validate_key(key);
  bytes answer;
  const auto r = client().perform({.method = "PUT", .url = url_of(key), .headers = {}, .body = value}, answer, where(key));
  if (r.status != 200) fail(key, r, answer);
}

void s3_store::erase(std::string_view key) {
  validate_key(key);
  bytes answer;
  const auto r = client().perform({.method = "DELETE", .url = url_of(key), .headers = {}, .body = {}}, answer, where(key));
  check_erased(key, r, answer);
}

void s3_store::check_erased(std::string_view key, const http_response& r, std::span<const std::byte> answer) const {
  if (r.status == 200 || r.status == 204 || (r.status == 404 && absent(r, answer))) return;
  fail(key, r, answer);
}

void s3_store::set_many(std::span<const set_item> items, const item_done& done, const item_ready& ready) {
  std::vector<bytes> answers(items.size());
  std::vector<http_exchange> batch(items.size());
  // Each request is made as its item is ready: until then the caller may still change it.
  const auto make = [&](std::size_t i) {
    const auto& item = items[i];
    validate_key(item.key);
    batch[i] = {.request = {.method = item.erase ? "DELETE" : "PUT",
                            .url = url_of(item.key),
                            .headers = {},
                            .body = item.erase ? std::span<const std::byte>() : item.value},
                .body = &answers[i],
                .where = where(item.key),
                .response = {}};
  };
  if (!ready)
    for (std::size_t i = 0; i < items.size(); ++i) make(i);
  client().perform_many(
      batch,
      [&](std::size_t i) {
        const auto& r = batch[i].response;
        if (items[i].erase)
          check_erased(items[i].key, r, answers[i]);
        else if (r.status != 200)
          fail(items[i].key, r, answers[i]);
        answers[i] = bytes();
        if (done) done(i);
      },
      ready ? std::function<bool(std::size_t)>([&](std::size_t i) {
        if (!ready(i)) return false;
        make(i);
        return true;
      })
            : std::function<bool(std::size_t)>());
}

void s3_store::create_bucket() {
  bytes answer;
  const auto r = client().perform({.method = "PUT", .url = bucket_url(), .headers = {}, .body = {}}, answer,
                                  "s3 bucket \"" + options_.bucket + "\"");
  if (r.status == 200) return;
  const auto doc = parse_s3_error(std::string_view(reinterpret_cast<const char*>(answer.data()), answer.size()));
  if (r.status == 409 && doc && doc->code == "BucketAlreadyOwnedByYou") return;
  fail({}, r, answer);
}

void s3_store::list_pages(std::string_view prefix, bool by_folder, std::vector<std::string>& keys,
                          std::vector<std::string>& folders) const {
  const std::string base = options_.prefix.empty() ? std::string() : options_.prefix + "/";
  const std::string full_prefix = base + std::string(prefix);
  std::string token;
  bytes answer;
  for (;;) {
    // SigV4 signs the query sorted by name, percent-encoded; libcurl 7.88 does not sort it.
    std::string query;
    if (!token.empty()) query += "continuation-token=" + percent_encode(token, false) + "&";
    if (by_folder) query += "delimiter=%2F&";
    query += "encoding-type=url&list-type=2";
    if (!full_prefix.empty()) query += "&prefix=" + percent_encode(full_prefix, false);
    const std::string where = "s3 bucket \"" + options_.bucket + "\", prefix \"" + full_prefix + "\"";
    const auto r = client().perform({.method = "GET", .url = bucket_url() + "?" + query, .headers = {}, .body = {}},
                                    answer, where);
    if (r.status != 200) fail({}, r, answer);
    list_objects_page page;
    try {
      page = parse_list_objects_v2(std::string_view(reinterpret_cast<const char*>(answer.data()), answer.size()));
    } catch (const error& e) {
      throw error(errc::io, where + ": " + e.what());
    }
    const auto strip = [&](const std::string& k) -> std::optional<std::string> {
      if (!k.starts_with(base) || k.size() == base.size()) return std::nullopt;
      return k.substr(base.size());
    };
    for (const auto& k : page.keys)
      if (auto s = strip(k)) keys.push_back(std::move(*s));
    for (const auto& p : page.common_prefixes)
      if (auto s = strip(p)) folders.push_back(std::move(*s));
    if (!page.truncated) return;
    if (page.next_continuation_token == token)
      throw error(errc::io, where + ": expected a new continuation token, got the same again");
    token = page.next_continuation_token;
  }
}

std::vector<std::string> s3_store::list(std::string_view prefix) const {
  std::vector<std::string> keys, folders;
  list_pages(prefix, false, keys, folders);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> s3_store::list_dir(std::string_view prefix) const {
  std::vector<std::string> keys, folders;
  list_pages(prefix, true, keys, folders);
  std::vector<std::string> names;
  for (const auto& k : keys) names.push_back(k.substr(prefix.size()));
  for (auto& f : folders) {
    while (f.ends_with('/')) f.pop_back();
    if (f.size() > prefix.size()) names.push_back(f.substr(prefix.size()));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// --- versions and conditional writes (docs/decisions.md 64) -------------------------------------

long s3_store::send(std::string_view method, const std::string& object, std::span<const std::byte> body,
                    std::string header, std::string* etag) const {
  bytes answer;
  std::vector<std::string> headers;
  if (!header.empty()) headers.push_back(std::move(header));
  const auto where = "s3 bucket \"" + options_.bucket + "\", key \"" + object + "\"";
  const auto r = client().perform(
      {.method = method, .url = bucket_url() + "/" + percent_encode(object, true), .headers = std::move(headers), .body = body},
      answer, where);
  if (etag != nullptr) *etag = r.etag;
  if ((r.status >= 500 && r.status != 501) || r.status == 403 || r.status == 400) {  // 501 is an answer: the server has no conditional requests (Swift's s3api)
    std::string got = "HTTP " + std::to_string(r.status);
    const auto doc = parse_s3_error(std::string_view(reinterpret_cast<const char*>(answer.data()), answer.size()));
    if (doc && !doc->code.empty()) got += " " + doc->code;
    throw error(errc::io, where + ": expected success, got " + got);
  }
  return r.status;
}

const s3_store::server_conditions& s3_store::conditions() const {
  std::call_once(probed_, [&] {
    std::random_device device;
    // Inside the prefix, where a policy that grants this store's keys grants it too.
    std::string name = ".zarr-probe-";
    for (int i = 0; i < 4; ++i) name += std::to_string(device());
    const auto object = full_key(name);
    const std::string probe_bytes = "zarr conditional write probe";
    const auto body = std::as_bytes(std::span(probe_bytes));
    const auto ok = [](long status) { return status == 200 || status == 204; };
    const auto changed = [](long status) { return status == 412 || status == 409; };
    server_conditions found;
    std::string etag;
    if (!ok(send("PUT", object, body, "", &etag))) return;  // no answer we understand: no conditions
    found.put = changed(send("PUT", object, body, "If-None-Match: *")) &&
                changed(send("PUT", object, body, "If-Match: \"00000000000000000000000000000000\"")) &&
                changed(send("PUT", object, body, "If-Match: 00000000000000000000000000000000"));
    if (found.put && !etag.empty()) {
      auto bare = etag;
      if (bare.size() >= 2 && bare.front() == '"' && bare.back() == '"') bare = bare.substr(1, bare.size() - 2);
      if (ok(send("PUT", object, body, "If-Match: \"" + bare + "\"")))
        found.quoted_etag = true;
      else if (ok(send("PUT", object, body, "If-Match: " + bare)))
        found.quoted_etag = false;
      else
        found.put = false;
    }
    // A DELETE that ignores a wrong If-Match deletes the probe: then no conditional deletes.
    const auto deleted = send("DELETE", object, {}, "If-Match: \"00000000000000000000000000000000\"");
    found.del = changed(deleted);
    if (!ok(deleted) && deleted != 404) static_cast<void>(send("DELETE", object, {}, ""));
    conditions_ = found;
  });
  return conditions_;
}

std::string s3_store::missing_update_ability() const {
  return "conditional writes: the S3 server at " + options_.endpoint +
         " answers PUTs with If-Match or If-None-Match: * as if the condition held";
}

std::string s3_store::if_match(const value_version& expected) const {
  return conditions().quoted_etag ? "If-Match: \"" + expected.tag + "\"" : "If-Match: " + expected.tag;
}

versioned_value s3_store::get_versioned(std::string_view key) const {
  validate_key(key);
  bytes out;
  const auto r = read(key, std::nullopt, out, {});
  if (!r.found) return {};
  auto tag = r.response.etag;
  if (tag.size() >= 2 && tag.front() == '"' && tag.back() == '"') tag = tag.substr(1, tag.size() - 2);
  if (tag.empty()) throw error(errc::io, where(key) + ": expected an ETag with the value, got none");
  return {.value = std::move(out), .version = {std::move(tag)}};
}

bool s3_store::set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected) {
  validate_key(key);
  if (!atomic_updates()) fail_not_atomic(key);
  bytes answer;
  const auto condition = expected.absent() ? std::string("If-None-Match: *") : if_match(expected);
  const auto r = client().perform({.method = "PUT", .url = url_of(key), .headers = {condition}, .body = value}, answer, where(key));
  if (r.status == 200) return true;
  if (r.status == 412 || r.status == 409) return false;
  fail(key, r, answer);
}

bool s3_store::erase_if(std::string_view key, const value_version& expected) {
  validate_key(key);
  if (!erases_conditionally()) fail_not_atomic(key);
  if (expected.absent()) return !get_versioned(key).value;
  bytes answer;
  const auto r = client().perform({.method = "DELETE", .url = url_of(key), .headers = {if_match(expected)}, .body = {}},
                                  answer, where(key));
  if (r.status == 412 || r.status == 409) return false;
  if (r.status == 404 && absent(r, answer)) return false;  // erased by another writer since
  check_erased(key, r, answer);
  return true;
}

}  // namespace zarr
