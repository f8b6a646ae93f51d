// zarr.store.filesystem: a directory on the local file system as a store (Zarr v3 core spec
// "Store implementations"); the default store, embedded, no server. Key "a/b/c" is the
// file <root>/a/b/c. Writes are atomic: a temporary file in the same folder, renamed
// over the old one (docs/decisions.md 23); keys never reach outside the root (docs/decisions.md 24).
// A writer killed between the two leaves its temporary file, "<key>.zarr-tmp.<pid>.<n>":
// never listed nor read as a key; remove_temporaries() deletes them. With `durable`, each
// write is flushed to the disk before set() returns (docs/decisions.md 37). Writes of a key
// take turns, across threads and processes, under a lock on the file ".zarr-lock" of the
// key's folder (never listed nor read as a key; docs/decisions.md 64), which the kernel
// releases when a writer dies: store::update is one read-modify-write under that lock.
module;
#include <sys/stat.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
export module zarr.store.filesystem;

export import zarr.store;

export namespace zarr {

struct filesystem_options {
  bool create = true;  // make the directory when it is missing
  // Writes survive a power loss once set() or erase() returns: the temporary file is flushed
  // (fdatasync) before the rename, then the folder that holds it (fsync), and the folder
  // above each folder made for it. Without it, a write survives the process, not the machine.
  bool durable = false;
};

class filesystem_store final : public store {
 public:
  // Opens (and creates, when `create` is set) the directory `root`.
  explicit filesystem_store(const std::filesystem::path& root, bool create = true)
      : filesystem_store(root, filesystem_options{.create = create, .durable = false}) {}
  filesystem_store(const std::filesystem::path& root, filesystem_options options);

  [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }

  [[nodiscard]] std::optional<bytes> get(std::string_view key) const override;
  [[nodiscard]] std::optional<bytes> get(std::string_view key, byte_range range) const override;
  // Reads into `out`'s memory: no new allocation when it is large enough.
  [[nodiscard]] bool get_into(std::string_view key, bytes& out) const override;
  // The open file: its ranges come from the version that was there when it was opened; its
  // version is the file's identity, size and modification time (snapshot_at compares them).
  [[nodiscard]] std::unique_ptr<const stored_value> snapshot(std::string_view key) const override;
  [[nodiscard]] std::optional<std::uint64_t> size(std::string_view key) const override;
  void set(std::string_view key, std::span<const std::byte> value) override;
  void erase(std::string_view key) override;
  [[nodiscard]] std::vector<std::string> list(std::string_view prefix) const override;

  // Versions are the file's identity, size and modification time (dev, inode, st_size, st_mtim).
  [[nodiscard]] versioned_value get_versioned(std::string_view key) const override;
  [[nodiscard]] bool set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected) override;
  [[nodiscard]] bool erase_if(std::string_view key, const value_version& expected) override;
  [[nodiscard]] bool atomic_updates() const override { return true; }
  // Under the key's lock: read, modify, write; never a retry (`policy` is not needed).
  void update(std::string_view key, const update_function& modify, bool single_writer = false,
              const update_policy& policy = {}) override;

  // Deletes the temporary files that killed writers left behind; returns how many. Only
  // while no writer (thread or process) uses the directory: it would delete their
  // writes in progress.
  std::size_t remove_temporaries();

  [[nodiscard]] bool durable() const noexcept { return durable_; }
  // The flushes (fdatasync, fsync) that durable writes made so far, by any copy of this store.
  [[nodiscard]] std::uint64_t syncs() const noexcept { return syncs_->load(); }

 private:
  // The file for a key, after validating the key and checking that no symbolic link
  // along the way leads outside the root: resolved in user space, for what the kernel's
  // RESOLVE_BENEATH refuses or cannot do (absolute links, older kernels).
  [[nodiscard]] std::filesystem::path path_of(std::string_view key) const;
  // set() and erase() by paths through path_of: where the kernel's resolution declines.
  void set_by_path(std::string_view key, std::span<const std::byte> value);
  // Makes `folder` (an absolute path below the root) and those above it that are missing.
  void make_folders_by_path(const std::filesystem::path& folder) const;
  void erase_by_path(std::string_view key);
  // set() and erase() while the caller holds the key's lock.
  void write_locked(std::string_view key, std::span<const std::byte> value);
  void erase_locked(std::string_view key);
  // The key's lock, held until the result is destroyed (filesystem.cpp); nothing, without
  // `make_folders`, when the key's folder is missing.
  class key_lock;
  [[nodiscard]] std::optional<key_lock> lock(std::string_view key, bool make_folders) const;
  // The version of the key's file now (empty tag when absent).
  [[nodiscard]] value_version version_now(std::string_view key) const;
  // The whole value, or a range of it, into `out`; false when absent.
  [[nodiscard]] bool read(std::string_view key, std::optional<byte_range> range, bytes& out) const;
  // An open descriptor of the regular file of `key` (`st` its stat), or -1 when absent.
  [[nodiscard]] int open_for_reading(std::string_view key, struct stat& st) const;
  // Where durable writes count their flushes; null when writes are not durable.
  [[nodiscard]] std::atomic<std::uint64_t>* sync_counter() const noexcept { return durable_ ? syncs_.get() : nullptr; }

  std::filesystem::path root_;
  // The root directory, open (O_PATH) for as long as a copy of the store lives: keys are
  // resolved beneath it by the kernel, one system call per key.
  std::shared_ptr<const int> root_fd_;
  // Files of recent snapshots, kept open (filesystem.cpp), shared by copies of the store.
  struct kept_files;
  std::shared_ptr<kept_files> kept_;
  bool durable_ = false;
  std::shared_ptr<std::atomic<std::uint64_t>> syncs_ = std::make_shared<std::atomic<std::uint64_t>>(0);
};

}  // namespace zarr
