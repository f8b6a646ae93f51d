// zarr.store.zip: a zip archive of a store's keys (zarr-python's ZipStore, zarrita.js, GDAL's
// /vsizip/): one member per key, stored uncompressed (deflated members are read too). The
// central directory is read with byte ranges of the file, or of a key of another store (a zip
// in an S3 bucket or on a web server), and a stored member's bytes are read by ranges without
// unpacking it (PKWARE APPNOTE 6.3.10: 4.3.6 layout, 4.3.7 local header, 4.3.12 central
// directory, 4.3.14-16 end records, zip64). Writes go through libzip (docs/decisions.md 67).
module;
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
export module zarr.store.zip;

export import zarr.store;

export namespace zarr {

// One member of a zip archive, as its central directory describes it.
struct zip_entry {
  std::string name;
  std::uint16_t flags = 0;   // general purpose bits (bit 0: encrypted)
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;
  std::uint64_t local_header_offset = 0;
};

// Where the central directory lies in a file, from its end records.
struct zip_directory_location {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;
};

// Reads `length` bytes at `offset` of the zip file.
using zip_reader = std::function<bytes(std::uint64_t offset, std::uint64_t length)>;

// The central directory's place, from `tail`, the last tail.size() bytes of a file of
// `file_size` bytes (its end record and comment: at most 65557 bytes); a zip64 end record
// outside `tail` is read through `read`. Errors: corrupt_chunk (unsupported for archives split
// over several disks), naming `where`.
[[nodiscard]] zip_directory_location find_zip_directory(std::span<const std::byte> tail, std::uint64_t file_size,
                                                        const zip_reader& read, std::string_view where);
// The members of the central directory `directory` (the bytes at `at`), each checked to lie
// within the file before the directory.
[[nodiscard]] std::vector<zip_entry> parse_zip_directory(std::span<const std::byte> directory,
                                                         const zip_directory_location& at, std::string_view where);
// Where a member's data starts, from the first 30 bytes of its local header (at least).
[[nodiscard]] std::uint64_t zip_data_offset(std::span<const std::byte> local_header, const zip_entry& e,
                                            const zip_directory_location& at, std::string_view where);
// A member's bytes from its stored data: stored as they are, deflated inflated (exactly
// e.size bytes); with `check_crc`, the CRC-32 checked.
[[nodiscard]] bytes zip_member_bytes(std::span<const std::byte> data, const zip_entry& e, bool check_crc,
                                     std::string_view where);

class zip_store final : public store {
 public:
  // A .zip file on the local disk. Read only unless `writable`; a writable store may start
  // from a missing file. Writes are kept in memory (and read back from there) until flush()
  // commits them through libzip, which writes the new archive beside the old one and renames
  // it over it; the destructor flushes too (and drops errors: call flush() to see them).
  explicit zip_store(const std::filesystem::path& file, bool writable = false);
  // A zip held as `key` by another store (an S3 bucket, a web server, a directory): read only,
  // by byte ranges of one version of it.
  zip_store(std::shared_ptr<const store> under, std::string key);
  ~zip_store() override;
  zip_store(const zip_store&) = delete;
  zip_store& operator=(const zip_store&) = delete;

  [[nodiscard]] std::optional<bytes> get(std::string_view key) const override;
  [[nodiscard]] std::optional<bytes> get(std::string_view key, byte_range range) const override;
  // A stored member's ranges are read from the archive, not unpacked.
  [[nodiscard]] std::unique_ptr<const stored_value> snapshot(std::string_view key) const override;
  [[nodiscard]] std::optional<std::uint64_t> size(std::string_view key) const override;
  void set(std::string_view key, std::span<const std::byte> value) override;
  void erase(std::string_view key) override;
  [[nodiscard]] std::vector<std::string> list(std::string_view prefix) const override;
  // A read-modify-write among the store's own writes: the store is its file's one writer
  // (docs/decisions.md 67), so updates need no versions, and no single_writer from the caller,
  // only to exclude the other threads' sets, erases and updates of this store.
  void update(std::string_view key, const update_function& modify, bool single_writer = false,
              const update_policy& policy = {}) override;

  // Commits the writes kept in memory to the file (nothing to do when there are none).
  void flush();
  // The members of the archive as last read (writes not yet flushed are not among them).
  [[nodiscard]] std::vector<zip_entry> entries() const;

  struct archive;  // one version of the file: its directory, read once

 private:
  void load();
  [[nodiscard]] std::shared_ptr<const archive> current() const;
  [[nodiscard]] std::string where() const;

  std::filesystem::path file_;  // empty for a zip in another store
  bool writable_ = false;
  std::shared_ptr<const store> under_;
  std::string key_;
  void check_writable(std::string_view key) const;

  mutable std::mutex mutex_;
  std::mutex writing_;  // held by set, erase and update (before mutex_)
  std::shared_ptr<const archive> archive_;
  std::map<std::string, std::shared_ptr<const bytes>, std::less<>> pending_;  // null: erased
};

}  // namespace zarr
