// zarr3's internals shared by its source files: usage errors, command-line options, node
// locations (PATH#node), regions, the progress bar and the commands themselves.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
import zarr;

namespace zarr_cli {

inline constexpr int exit_ok = 0, exit_error = 1, exit_usage = 2;

// A mistake in the command line (exit status 2): unknown command or option, missing
// argument, malformed region or node path.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The arguments of one command: positionals and --options (with or without a value).
struct arguments {
  std::string command;
  std::vector<std::string> positionals;
  std::map<std::string, std::string, std::less<>> options;  // "--format" -> "json"; flags -> ""

  [[nodiscard]] bool has(std::string_view name) const { return options.find(name) != options.end(); }
  [[nodiscard]] std::optional<std::string> get(std::string_view name) const {
    const auto it = options.find(name);
    return it == options.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
};

// What a command accepts: options that take a value, flags, and how many positionals.
struct command_syntax {
  std::vector<std::string_view> valued;
  std::vector<std::string_view> flags;
  std::size_t min_positionals = 0;
  std::size_t max_positionals = 0;
};

// Splits `args` (after the command name) by `syntax`; throws usage_error.
[[nodiscard]] arguments parse_arguments(std::string_view command, std::span<const std::string_view> args,
                                        const command_syntax& syntax);

// PATH: a store, optionally followed by "#" and a node path inside it. The store is a
// directory, s3://bucket[/prefix] (endpoint, region and credentials from --endpoint and the
// AWS_* environment), http(s)://host/path (read only), or a zip file: zip://FILE or any of
// these whose name ends in ".zip" (read only in a bucket or over HTTP).
struct location {
  std::filesystem::path root;
  std::string node;  // "" for the root node; "a/b" otherwise

  // "data.zarr#/a/b" for messages.
  [[nodiscard]] std::string display() const;
  // An s3:// or http(s):// URL rather than a directory.
  [[nodiscard]] bool remote() const;
};
[[nodiscard]] location parse_location(std::string_view text);
// The store at `where`; `create` makes a directory (or a zip file) when it is missing. A local
// zip file is kept open for writing: flush_zip_stores() commits what the command wrote to it.
[[nodiscard]] std::shared_ptr<zarr::store> open_store(const location& where, bool create);
void flush_zip_stores();
// The store at `where` for commands that only read: where the root group has consolidated
// metadata (and use_consolidated()), a store that answers every node's metadata from it.
[[nodiscard]] std::shared_ptr<zarr::store> open_store_for_reading(const location& where);

// The S3 endpoint of the global option --endpoint URL ("" = AWS_ENDPOINT_URL or AWS).
inline std::string& s3_endpoint() {
  static std::string endpoint;
  return endpoint;
}
// Global flag --strict-fill-value: a missing chunk of a Zarr v2 array with "fill_value": null is
// an error rather than zeros.
inline bool& strict_fill_value() {
  static bool strict = false;
  return strict;
}
// Global flag --no-consolidated: metadata from each node's own documents, never from the root
// group's consolidated metadata.
inline bool& use_consolidated() {
  static bool use = true;
  return use;
}
// Global option --cache-bytes N: the cache of shard indexes that every array of the command
// shares (none by default).
inline std::shared_ptr<zarr::cache>& shared_cache() {
  static std::shared_ptr<zarr::cache> c;
  return c;
}
// The options arrays are opened with (the global flags above).
inline zarr::array_options array_open_options() {
  return {.strict_fill_value = strict_fill_value(), .cache = shared_cache()};
}
// The requests of S3 and HTTP stores under way at once, global option --in-flight N.
inline std::size_t& requests_in_flight() {
  static std::size_t n = zarr::default_max_in_flight;
  return n;
}

// A region "0:10,:,5:" of an array of `shape`: half-open start:stop per dimension, either
// side optional. Malformed text is a usage_error; a region outside the array a zarr::error
// (invalid_argument, exit status 1).
[[nodiscard]] zarr::region parse_region(std::string_view text, std::span<const std::uint64_t> shape);
// "a,b,c" as positive integers (--chunks).
[[nodiscard]] std::vector<std::uint64_t> parse_shape_list(std::string_view text, std::string_view option);

// The stored chunk keys of an array (full keys), sorted.
[[nodiscard]] std::vector<std::string> stored_chunk_keys(const zarr::array& a);

// "[4, 5, 6]".
[[nodiscard]] std::string shape_text(std::span<const std::uint64_t> shape);

// A progress bar on stderr, shown only when stderr is a terminal.
class progress {
 public:
  progress(std::string label, std::uint64_t total);
  ~progress();
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;
  void advance(std::uint64_t n = 1);
  // A callback for one library call's read or write: the bar then counts its chunks.
  [[nodiscard]] zarr::progress_callback chunks();
  // Whether it is drawn (stderr is a terminal): callers then work in slabs to advance it.
  [[nodiscard]] bool enabled() const noexcept { return enabled_; }

 private:
  void draw(bool final);
  std::string label_;
  std::uint64_t total_, done_ = 0;
  bool enabled_;
  int last_permille_ = -1;
};

// Cuts `r` along its first dimension into slabs whose cut points are chunk edges of
// `grid` there (so that slabs hold whole chunk rows, whatever the grid: regular or
// rectilinear) and that hold about `budget` bytes at most (but at least one chunk row).
// A 0-d region is one slab.
[[nodiscard]] std::vector<zarr::region> slabs(const zarr::region& r, std::span<const zarr::grid_axis> grid,
                                              std::uint64_t element_bytes, std::uint64_t budget = std::uint64_t{64} << 20);

// The shape of one chunk of the grid (a rectilinear grid's chunks differ; an edge chunk is
// not cut at the array's shape).
[[nodiscard]] std::vector<std::uint64_t> chunk_shape_at(std::span<const zarr::grid_axis> grid,
                                                        std::span<const std::uint64_t> chunk_index);

// The chunk grid for people: "[4, 5]" (regular), or a rectilinear grid's edges per dimension
// in its own run-length form, "rectilinear [[16, 10], 4, [[1, 3], 3]]".
[[nodiscard]] std::string chunk_grid_text(const zarr::array_metadata& m);

// The location a command works on, for error messages ("data.zarr#/a").
inline std::string& current_target() {
  static std::string target;
  return target;
}

// Reads a whole file ("-" = stdin).
[[nodiscard]] std::string read_text_file(std::string_view path, std::string_view what);

// The commands; each returns the exit status.
int run_create(std::span<const std::string_view> args);
int run_write(std::span<const std::string_view> args);
int run_read(std::span<const std::string_view> args);
int run_info(std::span<const std::string_view> args);
int run_tree(std::span<const std::string_view> args);
int run_convert(std::span<const std::string_view> args);
int run_verify(std::span<const std::string_view> args);
int run_consolidate(std::span<const std::string_view> args);
int run_demo(std::span<const std::string_view> args);

// The help text of a command ("" for the overview); nullopt for an unknown command.
[[nodiscard]] std::optional<std::string> help_text(std::string_view command);

}  // namespace zarr_cli
