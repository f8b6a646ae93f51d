// zarr.store.filesystem: POSIX file I/O under a root directory. The root is the directory
// the constructor opened: keys are resolved beneath it by the kernel (openat2 with
// RESOLVE_BENEATH), one system call per key, with no cache of checked folders that a folder
// moved away or replaced by a link could fool.
module;
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
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
// The lock file of a folder's keys (docs/decisions.md 64); no key's last segment.
constexpr std::string_view lock_file_name = ".zarr-lock";

bool is_lock_file(std::string_view key) {
  const auto slash = key.rfind('/');
  return key.substr(slash == std::string_view::npos ? 0 : slash + 1) == lock_file_name;
}

// docs/decisions.md 24, no temporary-file marker, and no lock file.
void check_key(std::string_view key) {
  validate_key(key);
  if (key.find(temporary_marker) != std::string_view::npos)
    throw error(errc::invalid_key, "store key \"" + std::string(key) + "\": expected no \"" + std::string(temporary_marker) +
                                       "\" (it marks the filesystem store's temporary files)");
  if (is_lock_file(key))
    throw error(errc::invalid_key, "store key \"" + std::string(key) + "\": expected a last segment other than \"" +
                                       std::string(lock_file_name) + "\" (the filesystem store's lock files)");
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

// Reads exactly `length` bytes at `offset`, or throws naming the file `shown()` gives.
template <class Shown>
void read_exact(int fd, const Shown& shown, std::byte* out, std::uint64_t length, std::uint64_t offset) {
  while (length > 0) {
    const auto n = ::pread(fd, out, length, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot read", shown(), errno);
    }
    if (n == 0) throw error(errc::corrupt_chunk, "file \"" + shown().string() + "\": shorter than expected");
    out += n;
    length -= static_cast<std::uint64_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

// Opens `name` (a key, or the folder part of one) with the kernel resolving it strictly
// beneath the root directory `root` (openat2 with RESOLVE_BENEATH: one system call instead of
// resolving every component in user space). -1 with errno EXDEV (a symbolic link leaves the
// root, or is absolute), ELOOP or ENOSYS (an older kernel) means: decide the slow way.
int open_beneath(int root, const std::string& name, std::uint64_t flags) {
  open_how how{};
  how.flags = flags | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    const auto fd = ::syscall(SYS_openat2, root, name.c_str(), &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN) return static_cast<int>(fd);
  }
}

// Errors after which the user-space resolution (path_of) decides and words the error.
bool decide_by_path(int err) { return err == EXDEV || err == ELOOP || err == ENOSYS || err == ENOTDIR; }

// Flushes the folder `name` (relative to `at`, which may be an O_PATH descriptor) to the
// disk: its entries (a rename, a new file or folder) survive a power loss. Counts in `syncs`.
void sync_folder(int at, const char* name, const fs::path& shown, std::atomic<std::uint64_t>& syncs) {
  file f{::openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (f.fd < 0) fail_io("cannot open for syncing", shown, errno);
  if (::fsync(f.fd) != 0) fail_io("cannot sync", shown, errno);
  ++syncs;
}

// The folders of `folder` (relative to `root`, which must be below it), made one at a time
// relative to the one above, never following a symbolic link: a descriptor of the last one,
// or -1 with errno (ELOOP or ENOTDIR: a link or a file on the way, for the slow way). With
// `syncs` (durable writes), the folder above each one made is flushed.
int make_folders_beneath(int root, std::string_view folder, std::atomic<std::uint64_t>* syncs, const fs::path& root_path) {
  file current;
  int at = root;
  for (std::size_t begin = 0; begin <= folder.size();) {
    const auto end = std::min(folder.find('/', begin), folder.size());
    const std::string name(folder.substr(begin, end - begin));
    constexpr int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int next = ::openat(at, name.c_str(), flags);
    if (next < 0 && errno == ENOENT) {
      if (::mkdirat(at, name.c_str(), 0777) != 0 && errno != EEXIST) return -1;
      if (syncs != nullptr) sync_folder(at, ".", root_path / fs::path(folder.substr(0, begin)), *syncs);
      next = ::openat(at, name.c_str(), flags);
    }
    if (next < 0) return -1;
    if (current.fd >= 0) ::close(current.fd);
    current.fd = at = next;
    begin = end + 1;
  }
  return std::exchange(current.fd, -1);
}

// This process's id for temporary file names: a system call saved per write, refreshed in
// the child after a fork (a child that writes must not pick its parent's names).
std::atomic<pid_t> cached_pid{0};

pid_t process_id() {
  static const bool registered = [] {
    ::pthread_atfork(nullptr, nullptr, [] { cached_pid.store(0, std::memory_order_relaxed); });
    return true;
  }();
  static_cast<void>(registered);
  auto pid = cached_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    pid = ::getpid();
    cached_pid.store(pid, std::memory_order_relaxed);
  }
  return pid;
}

// Writes `value` to a new temporary file next to `name` (relative to the folder `dir`, or
// absolute with AT_FDCWD) and renames it over `name`: a reader sees the old or the new
// value, never a mix. `path` names the file in errors. False, with nothing left behind,
// when the temporary file cannot be created because its folder is gone (ENOENT). With
// `syncs` (durable writes), the file is flushed before the rename and its folder after.
bool write_then_rename(int dir, const std::string& name, const fs::path& path, std::span<const std::byte> value,
                       std::atomic<std::uint64_t>* syncs) {
  // A name no other writer (thread or process) picks: pid and a per-process counter.
  static std::atomic<std::uint64_t> counter{0};
  const auto tmp = name + std::string(temporary_marker) + std::to_string(process_id()) + "." +
                   std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
  const auto shown_tmp = [&] {
    auto p = path;
    return p += tmp.substr(name.size());
  };
  {
    file f{::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
    if (f.fd < 0) {
      if (errno == ENOENT) return false;
      fail_io("cannot create", shown_tmp(), errno);
    }
    const std::byte* p = value.data();
    std::size_t left = value.size();
    while (left > 0) {
      const auto n = ::write(f.fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::unlinkat(dir, tmp.c_str(), 0);
        fail_io("cannot write", shown_tmp(), err);
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    if (syncs != nullptr) {
      if (::fdatasync(f.fd) != 0) {
        const int err = errno;
        ::unlinkat(dir, tmp.c_str(), 0);
        fail_io("cannot sync", shown_tmp(), err);
      }
      ++*syncs;
    }
  }
  if (::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    fail_io("cannot rename into", path, err);
  }
  if (syncs != nullptr) {
    if (dir == AT_FDCWD)
      sync_folder(AT_FDCWD, path.parent_path().c_str(), path.parent_path(), *syncs);
    else
      sync_folder(dir, ".", path.parent_path(), *syncs);
  }
  return true;
}

// A key split at its last '/': the folder ("" at the root) and the file name.
std::pair<std::string, std::string> split_key(std::string_view key) {
  const auto slash = key.rfind('/');
  if (slash == std::string_view::npos) return {std::string(), std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

// A key's folder (relative to the root; "" at the root) and file name, and the folder opened
// beneath the root directory `root` (O_PATH): fd -1 with errno set when that fails, and no
// descriptor for a key at the root.
struct key_place {
  std::string folder, name;
  file dir;
};

key_place place_beneath(int root, std::string_view key) {
  auto [folder, name] = split_key(key);
  const int fd = folder.empty() ? -1 : open_beneath(root, folder, O_PATH | O_DIRECTORY);
  return key_place{std::move(folder), std::move(name), file{fd}};  // built in place: `file` is never copied
}

}  // namespace

filesystem_store::filesystem_store(const fs::path& root, filesystem_options options) : durable_(options.durable) {
  std::error_code ec;
  if (options.create) fs::create_directories(root, ec);
  if (!fs::is_directory(root, ec))
    throw error(errc::not_found, "store \"" + root.string() + "\": expected a directory");
  root_ = fs::canonical(root);
  const int fd = ::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_io("cannot open", root_, errno);
  root_fd_ = std::shared_ptr<const int>(new int(fd), [](const int* p) {
    ::close(*p);
    delete p;
  });
  kept_ = std::make_shared<kept_files>();
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

// The version of a file: its identity, size and modification time.
value_version version_of(const struct stat& st) {
  return {std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
          std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec)};
}

// An open file: writers never change a file, they rename a new one over it, so every
// read through this descriptor sees the version that was opened.
class open_file final : public stored_value {
 public:
  open_file(std::string key, fs::path path, file&& f, const struct stat& st)
      : key_(std::move(key)), path_(std::move(path)), stat_(st), version_(version_of(st)) {
    f_.fd = std::exchange(f.fd, -1);
  }
  [[nodiscard]] bytes get(std::optional<byte_range> range) const override {
    bytes out;
    get_into(range, out);
    return out;
  }
  void get_into(std::optional<byte_range> range, bytes& out) const override {
    const auto size = static_cast<std::uint64_t>(stat_.st_size);
    const auto [offset, length] = range ? resolve_range(key_, *range, size) : std::pair<std::uint64_t, std::uint64_t>{0, size};
    out.resize(static_cast<std::size_t>(length));
    read_exact(f_.fd, [&] { return path_; }, out.data(), length, offset);
  }
  [[nodiscard]] value_version version() const override { return version_; }
  [[nodiscard]] bool is_version(const value_version& v) const override { return v == version_; }
  // Whether `st` (a stat of the key's path now) is this file, unchanged: the same inode
  // (which cannot be reused while this descriptor holds it), size and modification time.
  [[nodiscard]] bool is(const struct stat& st) const noexcept {
    return st.st_dev == stat_.st_dev && st.st_ino == stat_.st_ino && st.st_size == stat_.st_size &&
           st.st_mtim.tv_sec == stat_.st_mtim.tv_sec && st.st_mtim.tv_nsec == stat_.st_mtim.tv_nsec;
  }

 private:
  std::string key_;
  fs::path path_;
  file f_;
  struct stat stat_;
  value_version version_;
};

// A snapshot handed out for a kept open_file.
class kept_value final : public stored_value {
 public:
  explicit kept_value(std::shared_ptr<const open_file> f) : f_(std::move(f)) {}
  [[nodiscard]] bytes get(std::optional<byte_range> range) const override { return f_->get(range); }
  void get_into(std::optional<byte_range> range, bytes& out) const override { f_->get_into(range, out); }
  [[nodiscard]] value_version version() const override { return f_->version(); }
  [[nodiscard]] bool is_version(const value_version& v) const override { return f_->is_version(v); }

 private:
  std::shared_ptr<const open_file> f_;
};

}  // namespace

// The files of the latest snapshots, most recent last, kept open for the next snapshot of
// the same key: one stat then proves the file unchanged, instead of open, stat and close.
struct filesystem_store::kept_files {
  static constexpr std::size_t capacity = 16;
  std::mutex mutex;
  std::vector<std::pair<std::string, std::shared_ptr<const open_file>>> files;

  std::shared_ptr<const open_file> find(std::string_view key) {
    const std::lock_guard lock(mutex);
    for (const auto& [k, f] : files)
      if (k == key) return f;
    return nullptr;
  }
  void keep(std::string_view key, std::shared_ptr<const open_file> f) {
    const std::lock_guard lock(mutex);
    std::erase_if(files, [&](const auto& kept) { return kept.first == key; });
    if (files.size() == capacity) files.erase(files.begin());
    files.emplace_back(std::string(key), std::move(f));
  }
  void forget(std::string_view key) {
    const std::lock_guard lock(mutex);
    std::erase_if(files, [&](const auto& kept) { return kept.first == key; });
  }
};

int filesystem_store::open_for_reading(std::string_view key, struct stat& st) const {
  check_key(key);
  const auto shown = [&] { return root_ / fs::path(key); };
  file f{open_beneath(*root_fd_, std::string(key), O_RDONLY)};
  if (f.fd < 0 && (errno == EXDEV || errno == ENOSYS || errno == ELOOP))
    f.fd = ::open(path_of(key).c_str(), O_RDONLY | O_CLOEXEC);  // path_of refuses what leaves the root
  if (f.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return -1;
    fail_io("cannot open", shown(), errno);
  }
  if (::fstat(f.fd, &st) != 0) fail_io("cannot stat", shown(), errno);
  if (!S_ISREG(st.st_mode)) return -1;
  return std::exchange(f.fd, -1);
}

bool filesystem_store::read(std::string_view key, std::optional<byte_range> range, bytes& out) const {
  struct stat st {};
  const file f{open_for_reading(key, st)};
  if (f.fd < 0) return false;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const auto [offset, length] = range ? resolve_range(key, *range, size) : std::pair<std::uint64_t, std::uint64_t>{0, size};
  out.resize(static_cast<std::size_t>(length));
  read_exact(f.fd, [&] { return root_ / fs::path(key); }, out.data(), length, offset);
  return true;
}

std::unique_ptr<const stored_value> filesystem_store::snapshot(std::string_view key) const {
  if (auto kept = kept_->find(key)) {  // its key was checked when it was kept
    // The stat follows links (as the open did): it can only match the kept file itself.
    struct stat st {};
    if (::fstatat(*root_fd_, std::string(key).c_str(), &st, 0) == 0 && kept->is(st)) return std::make_unique<const kept_value>(std::move(kept));
    kept_->forget(key);
  }
  struct stat st {};
  file f{open_for_reading(key, st)};  // checks the key
  if (f.fd < 0) return nullptr;
  auto opened = std::make_shared<const open_file>(std::string(key), root_ / fs::path(key), std::move(f), st);
  kept_->keep(key, opened);
  return std::make_unique<const kept_value>(std::move(opened));
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
  check_key(key);
  struct stat st {};
  const file f{open_beneath(*root_fd_, std::string(key), O_PATH)};
  if (f.fd >= 0) {
    if (::fstat(f.fd, &st) != 0) fail_io("cannot stat", root_ / fs::path(key), errno);
  } else {
    if (!decide_by_path(errno)) return std::nullopt;
    if (::stat(path_of(key).c_str(), &st) != 0) return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

// The key's folder is opened beneath the root by the kernel (made when missing, one folder
// at a time, never through a link), then the temporary file is written and renamed within
// that open folder: the key's path is resolved once, and nothing that happens to the path
// meanwhile can move the write outside the root. A link on the way, or as the file itself,
// is left to the user-space resolution, which follows links that stay inside the root.
void filesystem_store::write_locked(std::string_view key, std::span<const std::byte> value) {
  kept_->forget(key);
  auto [folder, name, dir] = place_beneath(*root_fd_, key);
  if (!folder.empty()) {
    if (dir.fd < 0 && errno == ENOENT) dir.fd = make_folders_beneath(*root_fd_, folder, sync_counter(), root_);
    if (dir.fd < 0) return set_by_path(key, value);  // the slow way decides, and words any error
  }
  const int at = folder.empty() ? *root_fd_ : dir.fd;
  struct stat st {};
  if (::fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) return set_by_path(key, value);
  if (!write_then_rename(at, name, root_ / fs::path(key), value, sync_counter()))
    set_by_path(key, value);  // the folder was removed
}

void filesystem_store::make_folders_by_path(const fs::path& folder) const {
  std::error_code ec;
  // With durable writes, the folders above the ones made here are flushed, from the top.
  std::vector<fs::path> made;
  if (durable_)
    for (auto p = folder; p != root_ && !fs::exists(p, ec); p = p.parent_path()) made.push_back(p);
  fs::create_directories(folder, ec);
  if (ec) fail_io("cannot create directory", folder, ec.value());
  for (auto p = made.rbegin(); p != made.rend(); ++p) sync_folder(AT_FDCWD, p->parent_path().c_str(), p->parent_path(), *syncs_);
}

void filesystem_store::set_by_path(std::string_view key, std::span<const std::byte> value) {
  const auto path = path_of(key);
  make_folders_by_path(path.parent_path());
  if (!write_then_rename(AT_FDCWD, path.string(), path, value, sync_counter())) fail_io("cannot create", path, ENOENT);
}

void filesystem_store::erase_locked(std::string_view key) {
  kept_->forget(key);
  const auto [folder, name, dir] = place_beneath(*root_fd_, key);
  if (!folder.empty()) {
    if (dir.fd < 0) {
      if (errno == ENOENT) return;  // no folder, no key
      return erase_by_path(key);
    }
  }
  const int at = folder.empty() ? *root_fd_ : dir.fd;
  struct stat st {};
  if (::fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    return erase_by_path(key);
  }
  if (S_ISLNK(st.st_mode)) return erase_by_path(key);
  if (::unlinkat(at, name.c_str(), 0) != 0) {
    if (errno == ENOENT) return;
    fail_io("cannot remove", root_ / fs::path(key), errno);
  }
  if (durable_) sync_folder(at, ".", (root_ / fs::path(key)).parent_path(), *syncs_);
}

void filesystem_store::erase_by_path(std::string_view key) {
  const auto path = path_of(key);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return;
    fail_io("cannot remove", path, errno);
  }
  if (durable_) sync_folder(AT_FDCWD, path.parent_path().c_str(), path.parent_path(), *syncs_);
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
    if (is_lock_file(key)) continue;
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

// --- locks and versions (docs/decisions.md 64) --------------------------------------------------

// An open-file-description lock (F_OFD_SETLKW) on one byte of the lock file of the key's
// folder, at an offset that a hash of the file name picks: writers of one key take turns,
// across threads (each lock opens the file anew: a description of its own) and processes;
// two names that share an offset only take turns needlessly. The kernel releases it when the
// descriptor is closed, also when the process dies.
class filesystem_store::key_lock {
 public:
  explicit key_lock(int fd) : fd_(fd) {}
  key_lock(key_lock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  key_lock(const key_lock&) = delete;
  key_lock& operator=(const key_lock&) = delete;
  key_lock& operator=(key_lock&&) = delete;
  ~key_lock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_;
};

namespace {

// FNV-1a of the file name, cut to 62 bits: a lock offset far below the largest off_t.
off_t lock_offset(std::string_view name) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return static_cast<off_t>(h >> 2);
}

}  // namespace

std::optional<filesystem_store::key_lock> filesystem_store::lock(std::string_view key, bool make_folders) const {
  auto [folder, name, dir] = place_beneath(*root_fd_, key);
  if (!folder.empty() && dir.fd < 0 && errno == ENOENT) {
    if (!make_folders) return std::nullopt;
    dir.fd = make_folders_beneath(*root_fd_, folder, sync_counter(), root_);
  }
  const auto lock_path = (root_ / fs::path(key)).parent_path() / lock_file_name;
  file f;
  if (folder.empty() || dir.fd >= 0) {
    f.fd = ::openat(folder.empty() ? *root_fd_ : dir.fd, lock_file_name.data(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  } else {  // a link on the way: resolved (and kept inside the root) by path_of
    const auto folder_path = path_of(key).parent_path();
    std::error_code ec;
    if (!fs::is_directory(folder_path, ec)) {
      if (!make_folders) return std::nullopt;
      make_folders_by_path(folder_path);
    }
    f.fd = ::open((folder_path / lock_file_name).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  }
  if (f.fd < 0) fail_io("cannot open the lock file", lock_path, errno);
  struct flock request {};
  request.l_type = F_WRLCK;
  request.l_whence = SEEK_SET;
  request.l_start = lock_offset(name);
  request.l_len = 1;
  while (::fcntl(f.fd, F_OFD_SETLKW, &request) != 0)
    if (errno != EINTR) fail_io("cannot lock", lock_path, errno);
  return std::optional<key_lock>(std::in_place, std::exchange(f.fd, -1));
}

value_version filesystem_store::version_now(std::string_view key) const {
  struct stat st {};
  const file f{open_for_reading(key, st)};
  if (f.fd < 0) return {};
  return version_of(st);
}

versioned_value filesystem_store::get_versioned(std::string_view key) const {
  struct stat st {};
  const file f{open_for_reading(key, st)};
  if (f.fd < 0) return {};
  bytes out(static_cast<std::size_t>(st.st_size));
  read_exact(f.fd, [&] { return root_ / fs::path(key); }, out.data(), out.size(), 0);
  return {.value = std::move(out), .version = version_of(st)};
}

void filesystem_store::set(std::string_view key, std::span<const std::byte> value) {
  check_key(key);
  const auto held = lock(key, true);
  write_locked(key, value);
}

void filesystem_store::erase(std::string_view key) {
  check_key(key);
  const auto held = lock(key, false);
  if (held) erase_locked(key);  // else the key's folder is missing: no key
}

bool filesystem_store::set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected) {
  check_key(key);
  const auto held = lock(key, true);
  if (version_now(key) != expected) return false;
  write_locked(key, value);
  return true;
}

bool filesystem_store::erase_if(std::string_view key, const value_version& expected) {
  check_key(key);
  const auto held = lock(key, false);
  if (!held) return expected.absent();
  if (version_now(key) != expected) return false;
  erase_locked(key);
  return true;
}

void filesystem_store::update(std::string_view key, const update_function& modify, bool, const update_policy&) {
  check_key(key);
  const auto held = lock(key, true);
  const thread_buffer<struct update_current_tag> current;
  const thread_buffer<struct update_out_tag> out;
  out->clear();
  const bool found = read(key, std::nullopt, *current);
  if (!modify(found ? &*current : nullptr, *out))
    write_locked(key, *out);
  else if (found)
    erase_locked(key);
  let_go_if_large(*current);
  let_go_if_large(*out);
}

}  // namespace zarr
