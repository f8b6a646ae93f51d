// libFuzzer target: the zip central-directory parser of zarr.store.zip (find_zip_directory,
// parse_zip_directory, zip_data_offset, zip_member_bytes) on the input as a whole zip file, read
// by ranges as zip_store reads one. It accepts or refuses with corrupt_chunk or unsupported; every
// member it accepts lies before the directory, and a stored member's bytes are its data.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include "fuzz.hpp"
import zarr.error;
import zarr.builder;
import zarr.store.zip;
import zarr.bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  const zarr::zip_reader read = [&](std::uint64_t offset, std::uint64_t length) {
    zarr_fuzz::expect(offset <= file.size() && length <= file.size() - offset, "a read past the end of the file");
    const auto part = file.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    return zarr::bytes(part.begin(), part.end());
  };
  try {
    const auto tail_length = std::min<std::size_t>(file.size(), 22 + 0xFFFF);
    const auto at = zarr::find_zip_directory(file.subspan(file.size() - tail_length), file.size(), read, "fuzz");
    zarr_fuzz::expect(at.offset + at.size <= file.size(), "a directory past the end of the file");
    const auto entries = zarr::parse_zip_directory(read(at.offset, at.size), at, "fuzz");
    zarr_fuzz::expect(entries.size() == at.entries, "fewer entries than the end record says");
    for (const auto& e : entries) {
      zarr_fuzz::expect(e.local_header_offset + 30 <= at.offset, "a local header past the directory");
      try {
        const auto offset = zarr::zip_data_offset(read(e.local_header_offset, 30), e, at, "fuzz");
        zarr_fuzz::expect(offset + e.compressed_size <= at.offset, "member data past the directory");
        if (e.size > 1 << 20) continue;  // inflating more is slow, not interesting
        const auto stored = read(offset, e.compressed_size);
        const auto value = zarr::zip_member_bytes(stored, e, true, "fuzz");
        zarr_fuzz::expect(value.size() == e.size, "a member of another size than its entry says");
        if (e.method == 0) zarr_fuzz::expect(zarr_fuzz::same_bytes(value, stored), "a stored member changed");
      } catch (const zarr::error& x) {
        zarr_fuzz::expect(x.code() == zarr::errc::corrupt_chunk || x.code() == zarr::errc::unsupported,
                          "unexpected error code:", x.what());
      }
    }
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(e.code() == zarr::errc::corrupt_chunk || e.code() == zarr::errc::unsupported,
                      "unexpected error code:", e.what());
  }
  return 0;
}
