// zarr.store.zip: our central-directory parser over byte ranges (so that a zip in S3 or over
// HTTP is read without downloading it), zlib's raw inflate for deflated members, and libzip
// for writing (docs/decisions.md 67).
module;
#include <zip.h>
#include <zlib.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
module zarr.store.zip;

import zarr.error;
import zarr.store.filesystem;

namespace zarr {

namespace {

constexpr std::uint32_t end_signature = 0x06054b50, end64_signature = 0x06064b50, locator_signature = 0x07064b50,
                        central_signature = 0x02014b50, local_signature = 0x04034b50;
constexpr std::uint64_t end_size = 22, max_comment = 0xFFFF;

std::uint64_t le(std::span<const std::byte> b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(b[at + i]) << (8 * i);
  return v;
}

std::string hex(std::uint64_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v % 16]);
    v /= 16;
  } while (v != 0);
  return "0x" + s;
}

[[noreturn]] void corrupt(std::string_view where, const std::string& what) {
  throw error(errc::corrupt_chunk, "zip " + std::string(where) + ": " + what);
}

}  // namespace

zip_directory_location find_zip_directory(std::span<const std::byte> tail, std::uint64_t file_size,
                                          const zip_reader& read, std::string_view where) {
  if (tail.size() > file_size) corrupt(where, "expected at most the file's " + std::to_string(file_size) + " bytes, got more");
  const std::uint64_t tail_at = file_size - tail.size();
  // The last end record whose comment ends within the file (APPNOTE 4.3.16).
  std::optional<std::size_t> end;
  for (std::size_t i = tail.size() >= end_size ? tail.size() - end_size + 1 : 0; i-- > 0;) {
    if (le(tail, i, 4) == end_signature && i + end_size + le(tail, i + 20, 2) <= tail.size()) {
      end = i;
      break;
    }
  }
  if (!end)
    corrupt(where, "expected an end of central directory record (signature " + hex(end_signature) + ") in the last " +
                       std::to_string(tail.size()) + " bytes, got none");
  const auto e = tail.subspan(*end);
  if (le(e, 4, 2) != 0 || le(e, 6, 2) != 0 || le(e, 8, 2) != le(e, 10, 2))
    throw error(errc::unsupported, "zip " + std::string(where) + ": expected an archive on one disk, got a split archive");
  zip_directory_location at{.offset = le(e, 16, 4), .size = le(e, 12, 4), .entries = le(e, 10, 2)};
  std::uint64_t directory_end = tail_at + *end;
  if (at.offset == 0xFFFFFFFF || at.size == 0xFFFFFFFF || at.entries == 0xFFFF) {  // zip64 (4.3.14, 4.3.15)
    if (*end < 20 || le(tail, *end - 20, 4) != locator_signature)
      corrupt(where, "expected a zip64 end of central directory locator before the end record, got none");
    const auto record_at = le(tail, *end - 20 + 8, 8);
    if (record_at > file_size || file_size - record_at < 56 || record_at + 56 > tail_at + *end - 20)
      corrupt(where, "zip64 end record: expected an offset before the locator, got " + std::to_string(record_at));
    const auto r = read(record_at, 56);
    if (r.size() != 56 || le(r, 0, 4) != end64_signature)
      corrupt(where, "zip64 end record at " + std::to_string(record_at) + ": expected signature " + hex(end64_signature));
    if (le(r, 16, 4) != 0 || le(r, 20, 4) != 0 || le(r, 24, 8) != le(r, 32, 8))
      throw error(errc::unsupported, "zip " + std::string(where) + ": expected an archive on one disk, got a split archive");
    at = {.offset = le(r, 48, 8), .size = le(r, 40, 8), .entries = le(r, 32, 8)};
    directory_end = record_at;
  }
  if (at.offset > directory_end || at.size > directory_end - at.offset)
    corrupt(where, "central directory: expected " + std::to_string(at.size) + " bytes at " + std::to_string(at.offset) +
                       " to end by " + std::to_string(directory_end) + ", got past it");
  if (at.entries > at.size / 46)
    corrupt(where, "central directory: expected at most " + std::to_string(at.size / 46) + " entries in " +
                       std::to_string(at.size) + " bytes, got " + std::to_string(at.entries));
  return at;
}

std::vector<zip_entry> parse_zip_directory(std::span<const std::byte> directory, const zip_directory_location& at,
                                           std::string_view where) {
  if (directory.size() != at.size)
    corrupt(where, "central directory: expected " + std::to_string(at.size) + " bytes, got " + std::to_string(directory.size()));
  std::vector<zip_entry> out;
  out.reserve(static_cast<std::size_t>(at.entries));
  std::size_t p = 0;
  for (std::uint64_t n = 0; n < at.entries; ++n) {
    const auto here = "central directory entry " + std::to_string(n) + " (at " + std::to_string(at.offset + p) + ")";
    if (directory.size() - p < 46 || le(directory, p, 4) != central_signature)
      corrupt(where, here + ": expected signature " + hex(central_signature) + " and 46 bytes");
    const auto name_length = le(directory, p + 28, 2), extra_length = le(directory, p + 30, 2),
               comment_length = le(directory, p + 32, 2);
    if (directory.size() - p - 46 < name_length + extra_length + comment_length)
      corrupt(where, here + ": expected its name, extra field and comment within the directory, got past its end");
    zip_entry e;
    e.flags = static_cast<std::uint16_t>(le(directory, p + 8, 2));
    e.method = static_cast<std::uint16_t>(le(directory, p + 10, 2));
    e.crc32 = static_cast<std::uint32_t>(le(directory, p + 16, 4));
    e.compressed_size = le(directory, p + 20, 4);
    e.size = le(directory, p + 24, 4);
    e.local_header_offset = le(directory, p + 42, 4);
    const auto disk = le(directory, p + 34, 2);
    const auto* name = reinterpret_cast<const char*>(directory.data() + p + 46);
    e.name.assign(name, name + name_length);
    // The zip64 extra field (4.5.3) holds, in this order, each of the sizes and the offset
    // whose 32-bit field is all ones.
    auto extra = directory.subspan(p + 46 + name_length, extra_length);
    while (extra.size() >= 4) {
      const auto id = le(extra, 0, 2), length = le(extra, 2, 2);
      if (length > extra.size() - 4) corrupt(where, here + ": expected its extra fields within the entry, got past its end");
      if (id == 0x0001) {
        const auto field = extra.subspan(4, length);
        std::size_t q = 0;
        const auto take = [&](std::uint64_t& v, std::string_view what) {
          if (v != 0xFFFFFFFF) return;
          if (field.size() - q < 8) corrupt(where, here + ": expected the zip64 " + std::string(what) + ", got none");
          v = le(field, q, 8);
          q += 8;
        };
        take(e.size, "size");
        take(e.compressed_size, "compressed size");
        take(e.local_header_offset, "local header offset");
      }
      extra = extra.subspan(4 + length);
    }
    if (disk != 0 && disk != 0xFFFF)
      throw error(errc::unsupported, "zip " + std::string(where) + ": " + here + ": expected disk 0, got " + std::to_string(disk));
    if (e.local_header_offset > at.offset || at.offset - e.local_header_offset < 30 + name_length ||
        e.compressed_size > at.offset - e.local_header_offset - 30 - name_length)
      corrupt(where, here + " \"" + e.name + "\": expected its " + std::to_string(e.compressed_size) + " bytes at " +
                         std::to_string(e.local_header_offset) + " before the central directory, got past it");
    if (e.method == 0 && e.compressed_size != e.size)
      corrupt(where, here + " \"" + e.name + "\": expected a stored member's sizes to agree, got " +
                         std::to_string(e.compressed_size) + " and " + std::to_string(e.size));
    out.push_back(std::move(e));
    p += 46 + name_length + extra_length + comment_length;
  }
  return out;
}

std::uint64_t zip_data_offset(std::span<const std::byte> local_header, const zip_entry& e, const zip_directory_location& at,
                              std::string_view where) {
  if (local_header.size() < 30 || le(local_header, 0, 4) != local_signature)
    corrupt(where, "member \"" + e.name + "\": expected a local header (signature " + hex(local_signature) + ") at " +
                       std::to_string(e.local_header_offset));
  const auto data = e.local_header_offset + 30 + le(local_header, 26, 2) + le(local_header, 28, 2);
  if (data > at.offset || e.compressed_size > at.offset - data)
    corrupt(where, "member \"" + e.name + "\": expected its data before the central directory, got past it");
  return data;
}

bytes zip_member_bytes(std::span<const std::byte> data, const zip_entry& e, bool check_crc, std::string_view where) {
  const auto member = "member \"" + e.name + "\"";
  if ((e.flags & 1) != 0) throw error(errc::unsupported, "zip " + std::string(where) + ": " + member + ": expected no encryption, got an encrypted member");
  if (data.size() != e.compressed_size)
    corrupt(where, member + ": expected " + std::to_string(e.compressed_size) + " bytes, got " + std::to_string(data.size()));
  bytes out;
  if (e.method == 0) {
    out.assign(data.begin(), data.end());
  } else if (e.method == 8) {
    // Deflate expands at most 1032:1 (zlib's technical details), so a larger size is a lie:
    // refused before allocating it.
    if (e.size > e.compressed_size * 1032 + 1024)
      corrupt(where, member + ": expected at most 1032 times its " + std::to_string(e.compressed_size) +
                         " deflated bytes, got a size of " + std::to_string(e.size));
    out.resize(static_cast<std::size_t>(e.size));
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) throw error(errc::io, "zip " + std::string(where) + ": zlib: inflateInit2 failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    std::byte spare{};
    int rc = inflate(&z, Z_FINISH);
    if (rc == Z_BUF_ERROR && z.avail_out == 0) {  // more output than the size said?
      z.next_out = reinterpret_cast<Bytef*>(&spare);
      z.avail_out = 1;
      rc = inflate(&z, Z_FINISH);
    }
    const auto produced = z.total_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || produced != e.size)
      corrupt(where, member + ": expected " + std::to_string(e.size) + " bytes of deflate data, got " +
                         (rc == Z_STREAM_END ? std::to_string(produced) + " bytes" : std::string("a broken stream")));
  } else {
    throw error(errc::unsupported, "zip " + std::string(where) + ": " + member +
                                       ": expected compression method 0 (stored) or 8 (deflated), got " + std::to_string(e.method));
  }
  if (check_crc) {
    const auto crc = ::crc32_z(0, reinterpret_cast<const Bytef*>(out.data()), out.size());
    if (crc != e.crc32) corrupt(where, member + ": expected CRC-32 " + hex(e.crc32) + ", got " + hex(crc));
  }
  return out;
}

// One version of the zip file: its directory and, per member, where its data starts.
struct zip_store::archive {
  std::string where;
  std::unique_ptr<const stored_value> file;  // null: no file yet (a new writable store)
  zip_directory_location at;
  std::map<std::string, zip_entry, std::less<>> members;
  mutable std::mutex mutex;
  mutable std::map<std::string, std::uint64_t, std::less<>> data_offsets;

  [[nodiscard]] const zip_entry* find(std::string_view key) const {
    const auto it = members.find(key);
    return it == members.end() ? nullptr : &it->second;
  }
  [[nodiscard]] bytes read(std::uint64_t offset, std::uint64_t length) const { return file->get(byte_range{offset, length, false}); }
  [[nodiscard]] std::uint64_t data_offset(const zip_entry& e) const {
    {
      const std::lock_guard lock(mutex);
      if (const auto it = data_offsets.find(e.name); it != data_offsets.end()) return it->second;
    }
    const auto header = read(e.local_header_offset, 30);
    const auto offset = zip_data_offset(header, e, at, where);
    const std::lock_guard lock(mutex);
    data_offsets.emplace(e.name, offset);
    return offset;
  }
  [[nodiscard]] bytes whole(const zip_entry& e) const {
    return zip_member_bytes(read(data_offset(e), e.compressed_size), e, true, where);
  }
  // A range of a member: of the file when stored, else of the inflated member.
  [[nodiscard]] bytes part(const zip_entry& e, byte_range range) const {
    const auto [offset, length] = resolve_range(e.name, range, e.size);
    if (e.method == 0 && (e.flags & 1) == 0) return read(data_offset(e) + offset, length);
    const auto all = whole(e);
    return bytes(all.begin() + static_cast<std::ptrdiff_t>(offset), all.begin() + static_cast<std::ptrdiff_t>(offset + length));
  }
};

namespace {

// One member of one version of the archive.
class zip_member_value final : public stored_value {
 public:
  zip_member_value(std::shared_ptr<const zip_store::archive> a, const zip_entry& e) : archive_(std::move(a)), entry_(e) {}
  [[nodiscard]] bytes get(std::optional<byte_range> range) const override {
    return range ? archive_->part(entry_, *range) : archive_->whole(entry_);
  }

 private:
  std::shared_ptr<const zip_store::archive> archive_;
  const zip_entry& entry_;
};

std::shared_ptr<zip_store::archive> read_archive(const store& under, const std::string& key, std::string where) {
  auto a = std::make_shared<zip_store::archive>();
  a->where = std::move(where);
  const auto file_size = under.size(key);
  if (!file_size) return a;
  const auto tail_length = std::min<std::uint64_t>(*file_size, end_size + max_comment);
  bytes tail;
  a->file = under.snapshot_and_read(key, byte_range{*file_size - tail_length, tail_length, false}, tail);
  if (!a->file) return a;  // gone in between
  const auto tail_at = *file_size - tail_length;
  const zip_reader read = [&](std::uint64_t offset, std::uint64_t length) { return a->read(offset, length); };
  a->at = find_zip_directory(tail, *file_size, read, a->where);
  // The directory usually lies within the tail already read.
  const auto directory = a->at.offset >= tail_at
                             ? bytes(tail.begin() + static_cast<std::ptrdiff_t>(a->at.offset - tail_at),
                                     tail.begin() + static_cast<std::ptrdiff_t>(a->at.offset - tail_at + a->at.size))
                             : a->read(a->at.offset, a->at.size);
  for (auto& e : parse_zip_directory(directory, a->at, a->where)) {
    if (e.name.empty() || e.name.ends_with('/')) continue;  // folders
    try {
      validate_key(e.name);
    } catch (const error&) {
      continue;  // a name no store key can be ("../x", "/x"): not a member of the store
    }
    auto name = e.name;
    a->members.insert_or_assign(std::move(name), std::move(e));  // a repeated name: the last one, as Python's zipfile
  }
  return a;
}

}  // namespace

zip_store::zip_store(const std::filesystem::path& file, bool writable) : file_(file), writable_(writable), key_(file.filename().string()) {
  if (key_.empty()) throw error(errc::invalid_argument, "zip \"" + file.string() + "\": expected a file name, got none");
  const auto folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  under_ = std::make_shared<filesystem_store>(folder, false);
  load();
  if (!archive_->file && !writable_)
    throw error(errc::not_found, "zip " + where() + ": expected a zip file, got none");
}

zip_store::zip_store(std::shared_ptr<const store> under, std::string key) : under_(std::move(under)), key_(std::move(key)) {
  load();
  if (!archive_->file) throw error(errc::not_found, "zip " + where() + ": expected a zip file, got none");
}

zip_store::~zip_store() {
  try {
    flush();
  } catch (const std::exception&) {  // flush() says why to whoever calls it
  }
}

std::string zip_store::where() const { return "\"" + (file_.empty() ? key_ : file_.string()) + "\""; }

void zip_store::load() {
  auto a = read_archive(*under_, key_, where());
  const std::lock_guard lock(mutex_);
  archive_ = std::move(a);
}

std::shared_ptr<const zip_store::archive> zip_store::current() const {
  const std::lock_guard lock(mutex_);
  return archive_;
}

std::unique_ptr<const stored_value> zip_store::snapshot(std::string_view key) const {
  validate_key(key);
  std::shared_ptr<const archive> a;
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = pending_.find(key); it != pending_.end())
      return it->second ? in_memory_value(std::string(key), it->second) : nullptr;
    a = archive_;
  }
  const auto* e = a->find(key);
  if (e == nullptr) return nullptr;
  return std::make_unique<zip_member_value>(a, *e);
}

std::optional<bytes> zip_store::get(std::string_view key) const {
  const auto value = snapshot(key);
  if (!value) return std::nullopt;
  return value->get(std::nullopt);
}

std::optional<bytes> zip_store::get(std::string_view key, byte_range range) const {
  const auto value = snapshot(key);
  if (!value) return std::nullopt;
  return value->get(range);
}

std::optional<std::uint64_t> zip_store::size(std::string_view key) const {
  validate_key(key);
  const std::lock_guard lock(mutex_);
  if (const auto it = pending_.find(key); it != pending_.end())
    return it->second ? std::optional<std::uint64_t>(it->second->size()) : std::nullopt;
  const auto* e = archive_->find(key);
  return e ? std::optional<std::uint64_t>(e->size) : std::nullopt;
}

void zip_store::check_writable(std::string_view key) const {
  validate_key(key);
  if (!writable_)
    throw error(errc::unsupported, "zip " + where() + ", key \"" + std::string(key) +
                                       "\": expected a zip file opened writable, got one read only");
}

void zip_store::set(std::string_view key, std::span<const std::byte> value) {
  check_writable(key);
  auto copy = std::make_shared<const bytes>(value.begin(), value.end());
  const std::lock_guard writing(writing_);
  const std::lock_guard lock(mutex_);
  pending_.insert_or_assign(std::string(key), std::move(copy));
}

void zip_store::erase(std::string_view key) {
  check_writable(key);
  const std::lock_guard writing(writing_);
  const std::lock_guard lock(mutex_);
  pending_.insert_or_assign(std::string(key), nullptr);
}

void zip_store::update(std::string_view key, const update_function& modify, bool, const update_policy&) {
  check_writable(key);
  const std::lock_guard writing(writing_);
  const auto current = get(key);
  auto out = std::make_shared<bytes>();
  const bool erase = modify(current ? &*current : nullptr, *out);
  if (erase && !current) return;
  const std::lock_guard lock(mutex_);
  pending_.insert_or_assign(std::string(key), erase ? nullptr : std::shared_ptr<const bytes>(std::move(out)));
}

std::vector<std::string> zip_store::list(std::string_view prefix) const {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> keys;
  for (auto it = archive_->members.lower_bound(prefix); it != archive_->members.end() && it->first.starts_with(prefix); ++it)
    if (!pending_.contains(it->first)) keys.push_back(it->first);
  for (auto it = pending_.lower_bound(prefix); it != pending_.end() && it->first.starts_with(prefix); ++it)
    if (it->second) keys.push_back(it->first);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<zip_entry> zip_store::entries() const {
  const auto a = current();
  std::vector<zip_entry> out;
  for (const auto& [name, e] : a->members) out.push_back(e);
  return out;
}

void zip_store::flush() {
  std::map<std::string, std::shared_ptr<const bytes>, std::less<>> pending;
  {
    const std::lock_guard lock(mutex_);
    if (pending_.empty()) return;
    pending = pending_;
  }
  const auto fail = [&](zip_t* z, const std::string& what) {
    const std::string why = z ? zip_strerror(z) : "";
    if (z) zip_discard(z);
    throw error(errc::io, "zip " + where() + ": " + what + (why.empty() ? std::string() : ": " + why));
  };
  int code = 0;
  zip_t* z = zip_open(file_.c_str(), ZIP_CREATE, &code);
  if (z == nullptr) {
    zip_error_t e;
    zip_error_init_with_code(&e, code);
    const std::string why = zip_error_strerror(&e);
    zip_error_fini(&e);
    throw error(errc::io, "zip " + where() + ": expected to open it for writing, got: " + why);
  }
  for (const auto& [name, value] : pending) {
    const auto index = zip_name_locate(z, name.c_str(), ZIP_FL_ENC_RAW);
    if (!value) {
      if (index >= 0 && zip_delete(z, static_cast<zip_uint64_t>(index)) != 0) fail(z, "deleting \"" + name + "\"");
      continue;
    }
    zip_source_t* source = zip_source_buffer(z, value->data(), value->size(), 0);
    if (source == nullptr) fail(z, "adding \"" + name + "\"");
    const auto added = zip_file_add(z, name.c_str(), source, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
    if (added < 0) {
      zip_source_free(source);
      fail(z, "adding \"" + name + "\"");
    }
    // Stored, as zarr-python's ZipStore writes its members: ranges are read without unpacking.
    if (zip_set_file_compression(z, static_cast<zip_uint64_t>(added), ZIP_CM_STORE, 0) != 0)
      fail(z, "storing \"" + name + "\" uncompressed");
  }
  // libzip writes the whole new archive to a temporary file beside this one and renames it
  // over it: a reader (or a crash) sees the old archive or the new one.
  if (zip_close(z) != 0) fail(z, "writing the archive");
  auto a = read_archive(*under_, key_, where());
  const std::lock_guard lock(mutex_);
  archive_ = std::move(a);
  for (const auto& [name, value] : pending)
    if (const auto it = pending_.find(name); it != pending_.end() && it->second == value) pending_.erase(it);
}

}  // namespace zarr
