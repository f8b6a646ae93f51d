// zarr.store.s3: a bucket (and a key prefix in it) of an S3-compatible object store as a store
// (Zarr v3 core spec "Store implementations"), over the S3 REST API: GetObject (whole, ranges),
// HeadObject, PutObject, DeleteObject, ListObjectsV2, signed with AWS Signature Version 4.
// Key "a/zarr.json" of a store with prefix "data.zarr" is the object "data.zarr/a/zarr.json".
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
export module zarr.store.s3;

export import zarr.store;
export import zarr.store.http;

export namespace zarr {

// Where the bucket is and who asks. An empty field is taken from the environment:
// endpoint from AWS_ENDPOINT_URL (else https://s3.<region>.amazonaws.com), region from
// AWS_REGION or AWS_DEFAULT_REGION (else us-east-1), credentials from AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (none at all: unsigned, anonymous requests).
// Plain HTTP only when the endpoint says http://.
struct s3_options {
  std::string endpoint;  // "https://s3.eu-west-1.amazonaws.com", "http://127.0.0.1:7480"
  std::string bucket;
  std::string prefix;  // keys below it: "data.zarr" or "" (no leading or trailing '/')
  std::string region;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  // Path-style (endpoint/bucket/key) by default, which every S3-compatible server takes;
  // virtual-hosted (bucket.endpoint/key) when set, as AWS prefers.
  bool virtual_hosted = false;
  retry_policy retry{};
  // Requests under way at once, all threads and batches of the store together, apart from
  // the threads that encode and decode (at least 1).
  std::size_t max_in_flight = default_max_in_flight;
};

class s3_store final : public remote_store {
 public:
  explicit s3_store(s3_options options);

  [[nodiscard]] const s3_options& options() const noexcept { return options_; }

  void set(std::string_view key, std::span<const std::byte> value) override;
  void erase(std::string_view key) override;
  // PUTs and DELETEs, up to io_concurrency() in flight.
  void set_many(std::span<const set_item> items, const item_done& done = {}, const item_ready& ready = {}) override;
  // ListObjectsV2, page after page (1000 keys each).
  [[nodiscard]] std::vector<std::string> list(std::string_view prefix) const override;
  // ListObjectsV2 with delimiter "/": the keys and common prefixes directly below.
  [[nodiscard]] std::vector<std::string> list_dir(std::string_view prefix) const override;

  // Creates the bucket (CreateBucket); one that exists and is ours is not an error.
  void create_bucket();

  // Conditional writes (docs/decisions.md 64): a PUT with If-None-Match: * creates, one with
  // If-Match: <the ETag read> replaces; 412 (or 409) means another writer came first. Whether
  // the server honours these (and in which form it takes the ETag, and whether DELETE honours
  // If-Match) is learnt once per store, at the first need, by a probe on a scratch object
  // below the store's prefix ("<prefix>/.zarr-probe-<random>", deleted after).
  [[nodiscard]] versioned_value get_versioned(std::string_view key) const override;
  [[nodiscard]] bool set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected) override;
  [[nodiscard]] bool erase_if(std::string_view key, const value_version& expected) override;
  [[nodiscard]] bool atomic_updates() const override { return conditions().put; }
  [[nodiscard]] bool erases_conditionally() const override { return conditions().put && conditions().del; }
  [[nodiscard]] std::string missing_update_ability() const override;

 protected:
  [[nodiscard]] std::string url_of(std::string_view key) const override;
  [[nodiscard]] std::string where(std::string_view key) const override;
  // 404 NoSuchKey (or a 404 without a body, as HEAD gets) is absent; NoSuchBucket is not.
  [[nodiscard]] bool absent(const http_response& r, std::span<const std::byte> body) const override;
  [[noreturn]] void fail(std::string_view key, const http_response& r, std::span<const std::byte> body) const override;

 private:
  struct resolved_tag {};
  // Options whose empty fields the environment has filled.
  s3_store(s3_options options, resolved_tag);
  // The bucket's URL (no trailing '/') and an object's full key.
  [[nodiscard]] std::string bucket_url() const;
  [[nodiscard]] std::string full_key(std::string_view key) const;
  // What the answer to a DELETE means: done (also when the key was absent), or an error.
  void check_erased(std::string_view key, const http_response& r, std::span<const std::byte> answer) const;
  // Every page of ListObjectsV2 below `prefix` (a store key prefix), keys and common prefixes
  // relative to the store's prefix.
  void list_pages(std::string_view prefix, bool by_folder, std::vector<std::string>& keys,
                  std::vector<std::string>& folders) const;

  // What the server does with conditions, probed once.
  struct server_conditions {
    bool put = false;          // honours If-None-Match: * and If-Match on PUT
    bool quoted_etag = true;   // takes If-Match with the ETag in quotes (RFC 9110), else bare
    bool del = false;          // honours If-Match on DELETE
  };
  [[nodiscard]] const server_conditions& conditions() const;
  // Sends a PUT (or DELETE) of the full object key `object` with one extra header; the status.
  [[nodiscard]] long send(std::string_view method, const std::string& object, std::span<const std::byte> body,
                          std::string header, std::string* etag = nullptr) const;
  [[nodiscard]] std::string if_match(const value_version& expected) const;

  s3_options options_;
  std::string scheme_, authority_;  // "http://", "127.0.0.1:7480"
  mutable std::once_flag probed_;
  mutable server_conditions conditions_;
};

// ---------------------------------------------------------------- the XML of S3's answers

// An element of an XML document: its local name (namespace prefix dropped), its text (the
// concatenated character data, entities decoded) and its child elements; attributes are
// skipped. Enough for S3's documents, which carry no mixed content.
struct xml_element {
  std::string name;
  std::string text;
  std::vector<xml_element> children;

  [[nodiscard]] const xml_element* child(std::string_view child_name) const noexcept;
};
// Parses a document (declaration, comments, CDATA, character references; no DTD); throws
// zarr::error (io) on anything malformed, and beyond 64 levels of nesting.
[[nodiscard]] xml_element parse_xml(std::string_view text);

// One page of a ListObjectsV2 answer.
struct list_objects_page {
  std::vector<std::string> keys;
  std::vector<std::string> common_prefixes;
  bool truncated = false;
  std::string next_continuation_token;  // set when truncated
};
// Throws zarr::error (io) when the document is no ListBucketResult or is inconsistent.
[[nodiscard]] list_objects_page parse_list_objects_v2(std::string_view text);

// An S3 error document: <Error><Code>NoSuchKey</Code><Message>...</Message></Error>.
struct s3_error_document {
  std::string code;
  std::string message;
};
// Nothing when the text is not an error document.
[[nodiscard]] std::optional<s3_error_document> parse_s3_error(std::string_view text);

}  // namespace zarr
