// zarr.store.filesystem: POSIX file I/O under a root directory.
module;
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>
module zarr.store.filesystem;

import zarr.error;

namespace zarr {
namespace fs = std::filesystem;

namespace {

// What marks a temporary file (filesystem.cppm); keys may not contain it.
constexpr std::string_view temporary_marker = ".zarr-tmp.";

// docs/decisions.md 24, and no temporary-file marker.
void check_key(std::string_view key) {
  validate_key(key);
  if (key.find(temporary_marker) != std::string_view::npos)
    throw error(errc::invalid_key, "store key \"" + std::string(key) + "\": expected no \"" + std::string(temporary_marker) +
                                       "\" (it marks the filesystem store's temporary files)");
}

[[noreturn]] void fail_io(std::string_view what, const fs::path& path, int err) {
  throw error(errc::io, std::string(what) + " \"" + path.string() + "\": " + std::strerror(err));
}

// A file descriptor closed on every path out.
struct file {
  int fd = -1;
  ~file() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly `length` bytes at `offset`, or throws.
void read_exact(int fd, const fs::path& path, std::byte* out, std::uint64_t length, std::uint64_t offset) {
  while (length > 0) {
    const auto n = ::pread(fd, out, length, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot read", path, errno);
    }
    if (n == 0) throw error(errc::corrupt_chunk, "file \"" + path.string() + "\": shorter than expected");
    out += n;
    length -= static_cast<std::uint64_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

// Opens `key` for reading with the kernel resolving it strictly beneath `root` (openat2 with
// RESOLVE_BENEATH: one system call instead of resolving every component in user space).
// -1 with errno EXDEV (a symbolic link leaves the root, or is absolute) or ENOSYS (an older
// kernel) means: decide the slow way.
int open_beneath(const fs::path& root, std::string_view key) {
  const file dir{::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0) return -1;
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const std::string name(key);
  for (;;) {
    const auto fd = ::syscall(SYS_openat2, dir.fd, name.c_str(), &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN) return static_cast<int>(fd);
  }
}

}  // namespace

filesystem_store::filesystem_store(const fs::path& root, bool create) {
  std::error_code ec;
  if (create) fs::create_directories(root, ec);
  if (!fs::is_directory(root, ec))
    throw error(errc::not_found, "store \"" + root.string() + "\": expected a directory");
  root_ = fs::canonical(root);
}

fs::path filesystem_store::path_of(std::string_view key) const {
  check_key(key);
  fs::path path = root_ / fs::path(key);
  // Follow symbolic links in the part that exists; the result must stay inside the root.
  std::error_code ec;
  const auto resolved = fs::weakly_canonical(path, ec);
  if (ec) fail_io("cannot resolve", path, ec.value());
  const auto rel = resolved.lexically_relative(root_);
  if (rel.empty() || *rel.begin() == "..")
    throw error(errc::invalid_key, "store key \"" + std::string(key) + "\": expected a path inside the store root, got one that resolves to \"" +
                                       resolved.string() + "\"");
  return resolved;
}

namespace {

// An open file: writers never change a file, they rename a new one over it, so every
// read through this descriptor sees the version that was opened.
class open_file final : public stored_value {
 public:
  open_file(std::string key, fs::path path, file&& f, std::uint64_t size)
      : key_(std::move(key)), path_(std::move(path)), size_(size) {
    f_.fd = std::exchange(f.fd, -1);
  }
  [[nodiscard]] bytes get(std::optional<byte_range> range) const override {
    const auto [offset, length] = range ? resolve_range(key_, *range, size_) : std::pair<std::uint64_t, std::uint64_t>{0, size_};
    bytes out(static_cast<std::size_t>(length));
    read_exact(f_.fd, path_, out.data(), length, offset);
    return out;
  }

 private:
  std::string key_;
  fs::path path_;
  file f_;
  std::uint64_t size_;
};

}  // namespace

int filesystem_store::open_for_reading(std::string_view key, fs::path& path, std::uint64_t& size) const {
  check_key(key);
  path = root_ / fs::path(key);
  file f{open_beneath(root_, key)};
  if (f.fd < 0 && (errno == EXDEV || errno == ENOSYS || errno == ELOOP)) {
    path = path_of(key);  // refuses what leaves the root, follows links that stay inside
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (f.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return -1;
    fail_io("cannot open", path, errno);
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) fail_io("cannot stat", path, errno);
  if (!S_ISREG(st.st_mode)) return -1;
  size = static_cast<std::uint64_t>(st.st_size);
  return std::exchange(f.fd, -1);
}

bool filesystem_store::read(std::string_view key, std::optional<byte_range> range, bytes& out) const {
  fs::path path;
  std::uint64_t size = 0;
  const file f{open_for_reading(key, path, size)};
  if (f.fd < 0) return false;
  const auto [offset, length] = range ? resolve_range(key, *range, size) : std::pair<std::uint64_t, std::uint64_t>{0, size};
  out.resize(static_cast<std::size_t>(length));
  read_exact(f.fd, path, out.data(), length, offset);
  return true;
}

std::unique_ptr<const stored_value> filesystem_store::snapshot(std::string_view key) const {
  fs::path path;
  std::uint64_t size = 0;
  file f{open_for_reading(key, path, size)};
  if (f.fd < 0) return nullptr;
  return std::make_unique<const open_file>(std::string(key), path, std::move(f), size);
}

std::optional<bytes> filesystem_store::get(std::string_view key) const {
  bytes out;
  if (!read(key, std::nullopt, out)) return std::nullopt;
  return out;
}

std::optional<bytes> filesystem_store::get(std::string_view key, byte_range range) const {
  bytes out;
  if (!read(key, range, out)) return std::nullopt;
  return out;
}

bool filesystem_store::get_into(std::string_view key, bytes& out) const { return read(key, std::nullopt, out); }

std::optional<std::uint64_t> filesystem_store::size(std::string_view key) const {
  const auto path = path_of(key);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

void filesystem_store::set(std::string_view key, std::span<const std::byte> value) {
  const auto path = path_of(key);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) fail_io("cannot create directory", path.parent_path(), ec.value());
  // A name no other writer (thread or process) picks: pid and a per-process counter.
  static std::atomic<std::uint64_t> counter{0};
  auto tmp = path;
  tmp += std::string(temporary_marker) + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  {
    file f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
    if (f.fd < 0) fail_io("cannot create", tmp, errno);
    const std::byte* p = value.data();
    std::size_t left = value.size();
    while (left > 0) {
      const auto n = ::write(f.fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::unlink(tmp.c_str());
        fail_io("cannot write", tmp, err);
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail_io("cannot rename into", path, err);
  }
}

void filesystem_store::erase(std::string_view key) {
  const auto path = path_of(key);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR) fail_io("cannot remove", path, errno);
}

std::vector<std::string> filesystem_store::list(std::string_view prefix) const {
  // Walk the deepest folder the prefix names fully, then filter by the whole prefix.
  const auto slash = prefix.rfind('/');
  const std::string folder(slash == std::string_view::npos ? std::string_view{} : prefix.substr(0, slash));
  fs::path start = root_;
  if (!folder.empty()) start = path_of(folder);
  std::vector<std::string> keys;
  std::error_code ec;
  if (!fs::is_directory(start, ec)) return keys;
  for (auto it = fs::recursive_directory_iterator(start, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    // A file renamed or removed meanwhile is skipped; it must not end the walk.
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec) || it->is_symlink(entry_ec)) continue;
    auto key = it->path().lexically_relative(root_).generic_string();
    if (key.find(temporary_marker) != std::string::npos) continue;  // a write in progress, or a killed one's
    if (key.starts_with(prefix)) keys.push_back(std::move(key));
  }
  if (ec) fail_io("cannot list", start, ec.value());
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::size_t filesystem_store::remove_temporaries() {
  std::vector<fs::path> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_symlink(entry_ec) && it->is_regular_file(entry_ec) &&
        it->path().filename().string().find(temporary_marker) != std::string::npos)
      found.push_back(it->path());
  }
  if (ec) fail_io("cannot list", root_, ec.value());
  std::size_t removed = 0;
  for (const auto& path : found) {
    if (::unlink(path.c_str()) == 0) ++removed;
    else if (errno != ENOENT) fail_io("cannot remove", path, errno);
  }
  return removed;
}

}  // namespace zarr
