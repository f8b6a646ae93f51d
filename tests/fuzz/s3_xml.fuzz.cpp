// libFuzzer target: the XML of S3's answers (zarr.store.s3: parse_xml, parse_list_objects_v2,
// parse_s3_error). Input: one selector byte, then the document. A parser accepts or refuses
// with zarr::error (io) only; an accepted ListObjectsV2 page is consistent; the error-document
// reader never throws.
#include <cstddef>
#include <cstdint>
#include "fuzz.hpp"
import zarr.error;
import zarr.store.s3;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto which = in.byte() % 3;
  const auto text = in.text();
  try {
    if (which == 0) {
      const auto root = zarr::parse_xml(text);
      zarr_fuzz::expect(!root.name.empty(), "an element without a name");
    } else if (which == 1) {
      const auto page = zarr::parse_list_objects_v2(text);
      zarr_fuzz::expect(!page.truncated || !page.next_continuation_token.empty(), "truncated without a token");
      for (const auto& k : page.keys) zarr_fuzz::expect(!k.empty(), "an empty key");
      for (const auto& p : page.common_prefixes) zarr_fuzz::expect(!p.empty(), "an empty common prefix");
    } else {
      static_cast<void>(zarr::parse_s3_error(text));
    }
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(which != 2, "parse_s3_error threw:", e.what());
    zarr_fuzz::expect_code(e, zarr::errc::io);
  }
  return 0;
}
