// libFuzzer target: store URLs. Input: a selector byte, then records separated by
// zarr_fuzz::record_separator: an S3 endpoint, a bucket, a prefix, a key, and a zarr3 PATH.
// - zarr::percent_encode(key) keeps only unreserved characters ('/' when asked) and %XX
//   escapes, and decodes back to the key;
// - an s3_store of that endpoint, bucket and prefix is made or refused (invalid_argument,
//   invalid_key);
// - the PATH (s3://, http(s)://, zip://, a directory, with #node) parses or is a usage error;
//   a remote one other than a zip opens a store (nothing is sent) or is refused with
//   zarr::error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include "../../src/cli/cli.hpp"
#include "fuzz.hpp"
import zarr.error;
import zarr.parallel;
import zarr.store.http;
import zarr.store.s3;

namespace {

bool unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void check_percent_encode(std::string_view key, bool keep_slash) {
  const auto encoded = zarr::percent_encode(key, keep_slash);
  std::string back;
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    const char c = encoded[i];
    if (c == '%') {
      zarr_fuzz::expect(i + 2 < encoded.size() && hex(encoded[i + 1]) >= 0 && hex(encoded[i + 2]) >= 0,
                        "percent_encode: '%' without two upper-case hex digits:", encoded);
      back += static_cast<char>(hex(encoded[i + 1]) * 16 + hex(encoded[i + 2]));
      i += 2;
      continue;
    }
    zarr_fuzz::expect(unreserved(c) || (keep_slash && c == '/'), "percent_encode: a character left as it is:", encoded);
    back += c;
  }
  zarr_fuzz::expect(back == key, "percent_encode does not decode back to its input:", encoded);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  zarr::set_concurrency(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto selector = data[0];
  auto records = zarr_fuzz::split_records({reinterpret_cast<const char*>(data) + 1, size - 1});
  records.resize(5);
  check_percent_encode(records[3], (selector & 1) != 0);
  try {
    zarr::s3_options o;
    o.endpoint = std::string(records[0]);
    o.bucket = std::string(records[1]);
    o.prefix = std::string(records[2]);
    o.region = "us-east-1";
    o.access_key_id = "AKIDFUZZ";
    o.secret_access_key = "secret";
    o.virtual_hosted = (selector & 2) != 0;
    const zarr::s3_store s(o);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(e.code() == zarr::errc::invalid_argument || e.code() == zarr::errc::invalid_key,
                      "an S3 store refused with an unexpected code:", e.what());
  }
  try {
    const auto where = zarr_cli::parse_location(records[4]);
    const auto& root = where.root.native();
    // A remote zip is read (its directory) when opened: no requests here.
    if (where.remote() && !root.starts_with("zip://") && !root.ends_with(".zip"))
      static_cast<void>(zarr_cli::open_store(where, false));
  } catch (const zarr_cli::usage_error&) {
  } catch (const zarr::error&) {
  }
  return 0;
}
