// zarr3's shared pieces: options, PATH#node, regions, chunk keys, the progress bar.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <unistd.h>
#include "cli.hpp"

namespace zarr_cli {

arguments parse_arguments(std::string_view command, std::span<const std::string_view> args, const command_syntax& syntax) {
  arguments out;
  out.command = std::string(command);
  const auto prefix = "zarr3 " + std::string(command) + ": ";
  bool only_positionals = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto arg = args[i];
    if (only_positionals || !arg.starts_with("--") || arg == "-") {
      out.positionals.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    auto name = arg;
    std::optional<std::string_view> value;
    if (const auto eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    const bool valued = std::find(syntax.valued.begin(), syntax.valued.end(), name) != syntax.valued.end();
    const bool flag = std::find(syntax.flags.begin(), syntax.flags.end(), name) != syntax.flags.end();
    if (!valued && !flag) throw usage_error(prefix + "unknown option " + std::string(name) + " (see zarr3 help " + out.command + ")");
    if (out.has(name)) throw usage_error(prefix + "option " + std::string(name) + " given twice");
    if (flag) {
      if (value) throw usage_error(prefix + "option " + std::string(name) + " takes no value");
      out.options.emplace(std::string(name), std::string());
      continue;
    }
    if (!value) {
      if (i + 1 >= args.size()) throw usage_error(prefix + "option " + std::string(name) + " needs a value");
      value = args[++i];
    }
    out.options.emplace(std::string(name), std::string(*value));
  }
  if (out.positionals.size() < syntax.min_positionals)
    throw usage_error(prefix + "missing argument" + (syntax.min_positionals - out.positionals.size() > 1 ? "s" : "") +
                      " (see zarr3 help " + out.command + ")");
  if (out.positionals.size() > syntax.max_positionals)
    throw usage_error(prefix + "unexpected argument \"" + out.positionals[syntax.max_positionals] + "\"");
  return out;
}

std::string location::display() const {
  return node.empty() ? root.string() : root.string() + "#/" + node;
}

location parse_location(std::string_view text) {
  location out;
  const auto hash = text.find('#');
  const auto root = text.substr(0, hash);
  if (root.empty()) throw usage_error("PATH \"" + std::string(text) + "\": expected a store directory before '#'");
  out.root = std::filesystem::path(std::string(root));
  if (hash != std::string_view::npos) {
    auto node = text.substr(hash + 1);
    while (node.starts_with('/')) node.remove_prefix(1);
    while (node.ends_with('/')) node.remove_suffix(1);
    out.node = std::string(node);
    try {
      zarr::validate_node_path(out.node);
    } catch (const zarr::error& e) {
      throw usage_error("PATH \"" + std::string(text) + "\": " + e.what());
    }
  }
  return out;
}

bool location::remote() const {
  const auto& text = root.native();
  return text.starts_with("s3://") || text.starts_with("http://") || text.starts_with("https://");
}

std::vector<std::shared_ptr<zarr::zip_store>>& zip_stores() {
  static std::vector<std::shared_ptr<zarr::zip_store>> stores;
  return stores;
}

void flush_zip_stores() {
  for (const auto& z : zip_stores()) z->flush();
  zip_stores().clear();
}

std::shared_ptr<zarr::store> open_store_for_reading(const location& where) {
  auto s = open_store(where, false);
  if (!use_consolidated()) return s;
  try {
    return zarr::open_consolidated(s);
  } catch (const zarr::error& e) {
    // None at the root (or no group there), or a kind this library does not know, which
    // zarr.json marks "must_understand": false: each node's own documents then.
    if (e.code() != zarr::errc::not_found && e.code() != zarr::errc::unsupported) throw;
    return s;
  }
}

std::shared_ptr<zarr::store> open_store(const location& where, bool create) {
  const std::string text = where.root.string();
  // zip://FILE (or zip://URL), or a FILE or URL whose name ends in ".zip": a zip store.
  if (text.starts_with("zip://") || text.ends_with(".zip")) {
    const auto file = text.starts_with("zip://") ? text.substr(6) : text;
    if (file.empty()) throw usage_error("PATH \"" + text + "\": expected zip://FILE");
    const location inner{.root = file, .node = {}};
    if (inner.remote()) {  // a zip in a bucket or on a web server: read by ranges, read only
      const auto slash = file.rfind('/');
      const location folder{.root = file.substr(0, slash), .node = {}};
      return std::make_shared<zarr::zip_store>(open_store(folder, false), file.substr(slash + 1));
    }
    if (!create && !std::filesystem::is_regular_file(file))
      throw zarr::error(zarr::errc::not_found, "store \"" + file + "\": expected a zip file, got none");
    auto z = std::make_shared<zarr::zip_store>(std::filesystem::path(file), true);
    zip_stores().push_back(z);
    return z;
  }
  if (text.starts_with("s3://")) {
    const auto rest = std::string_view(text).substr(5);
    const auto slash = rest.find('/');
    zarr::s3_options o;
    o.bucket = std::string(rest.substr(0, slash));
    if (o.bucket.empty()) throw usage_error("PATH \"" + text + "\": expected s3://bucket[/prefix]");
    if (slash != std::string_view::npos) o.prefix = std::string(rest.substr(slash + 1));
    o.endpoint = s3_endpoint();
    o.max_in_flight = requests_in_flight();
    return std::make_shared<zarr::s3_store>(std::move(o));
  }
  if (where.remote()) return std::make_shared<zarr::http_store>(text, zarr::http_options{.retry = {}, .max_in_flight = requests_in_flight()});
  if (!create && !std::filesystem::is_directory(where.root))
    throw zarr::error(zarr::errc::not_found, "store \"" + where.root.string() + "\": expected a directory, got none");
  return std::make_shared<zarr::filesystem_store>(where.root, create);
}

namespace {

std::optional<std::uint64_t> parse_count(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto p = s.find(sep);
    parts.push_back(s.substr(0, p));
    if (p == std::string_view::npos) return parts;
    s.remove_prefix(p + 1);
  }
}

}  // namespace

zarr::region parse_region(std::string_view text, std::span<const std::uint64_t> shape) {
  const auto bad = [&](const std::string& why) {
    return usage_error("--region \"" + std::string(text) + "\": " + why);
  };
  auto r = zarr::region::all(shape);
  const auto parts = text.empty() ? std::vector<std::string_view>{} : split(text, ',');
  if (parts.size() != shape.size())
    throw bad("expected " + std::to_string(shape.size()) + " comma-separated start:stop ranges (one per dimension), got " +
              std::to_string(parts.size()));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto colon = parts[i].find(':');
    if (colon == std::string_view::npos)
      throw bad("dimension " + std::to_string(i) + ": expected start:stop, got \"" + std::string(parts[i]) + "\"");
    const auto a = parts[i].substr(0, colon), b = parts[i].substr(colon + 1);
    const auto start = a.empty() ? std::optional<std::uint64_t>(0) : parse_count(a);
    const auto stop = b.empty() ? std::optional<std::uint64_t>(shape[i]) : parse_count(b);
    if (!start || !stop)
      throw bad("dimension " + std::to_string(i) + ": expected start:stop with non-negative integers, got \"" +
                std::string(parts[i]) + "\"");
    if (*start > *stop || *stop > shape[i])
      throw zarr::error(zarr::errc::invalid_argument,
                        "region \"" + std::string(text) + "\", dimension " + std::to_string(i) +
                            ": expected 0 <= start <= stop <= " + std::to_string(shape[i]) + ", got " +
                            std::to_string(*start) + ":" + std::to_string(*stop));
    r.start[i] = *start;
    r.stop[i] = *stop;
  }
  return r;
}

std::vector<std::uint64_t> parse_shape_list(std::string_view text, std::string_view option) {
  std::vector<std::uint64_t> out;
  for (const auto part : split(text, ',')) {
    const auto v = parse_count(part);
    if (!v || *v == 0)
      throw usage_error(std::string(option) + " \"" + std::string(text) + "\": expected positive integers separated by commas");
    out.push_back(*v);
  }
  return out;
}

std::vector<std::string> stored_chunk_keys(const zarr::array& a) {
  std::vector<std::string> keys;
  a.for_each_chunk([&](std::span<const std::uint64_t> index, const zarr::region&) { keys.push_back(a.chunk_key(index)); });
  return keys;
}

std::vector<zarr::region> slabs(const zarr::region& r, std::span<const zarr::grid_axis> grid, std::uint64_t element_bytes,
                                std::uint64_t budget) {
  if (r.start.empty()) return {r};
  std::uint64_t row_bytes = element_bytes;  // one index of the first dimension
  for (std::size_t i = 1; i < r.start.size(); ++i) row_bytes *= r.stop[i] - r.start[i];
  const auto rows = std::max<std::uint64_t>(1, budget / std::max<std::uint64_t>(1, row_bytes));  // per slab, about
  const auto& axis = grid[0];
  std::vector<zarr::region> out;
  for (std::uint64_t lo = r.start[0]; lo < r.stop[0];) {
    // The end of the chunk that holds lo, then whole chunks while the slab stays within rows.
    auto cell = axis.cell_of(lo);
    std::uint64_t hi = axis.origin(cell) + axis.edge(cell);
    if (axis.ends.empty()) {  // regular: whole steps at once
      const auto more = (rows > hi - lo ? rows - (hi - lo) : 0) / axis.step;
      hi += more * axis.step;
    } else {
      while (hi < r.stop[0] && ++cell < axis.ends.size() && axis.ends[cell] - lo <= rows) hi = axis.ends[cell];
    }
    hi = std::min(r.stop[0], hi);
    auto s = r;
    s.start[0] = lo;
    s.stop[0] = hi;
    out.push_back(std::move(s));
    lo = hi;
  }
  if (out.empty()) out.push_back(r);  // an empty region: one empty slab
  return out;
}

std::vector<std::uint64_t> chunk_shape_at(std::span<const zarr::grid_axis> grid, std::span<const std::uint64_t> chunk_index) {
  std::vector<std::uint64_t> shape(grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) shape[i] = grid[i].edge(chunk_index[i]);
  return shape;
}

std::string chunk_grid_text(const zarr::array_metadata& m) {
  if (!m.rectilinear) return shape_text(m.chunk_shape);
  std::string out = "rectilinear [";
  for (std::size_t i = 0; i < m.chunk_shape.size(); ++i) {
    if (i) out += ", ";
    const auto& edges = m.chunk_edges[i];
    if (edges.empty()) {
      out += std::to_string(m.chunk_shape[i]);
      continue;
    }
    out += "[";
    for (std::size_t k = 0; k < edges.size();) {  // runs of two or more as [edge, count]
      std::size_t n = 1;
      while (k + n < edges.size() && edges[k + n] == edges[k]) ++n;
      out += (k ? ", " : "") + (n == 1 ? std::to_string(edges[k]) : "[" + std::to_string(edges[k]) + ", " + std::to_string(n) + "]");
      k += n;
    }
    out += "]";
  }
  return out + "]";
}

progress::progress(std::string label, std::uint64_t total)
    : label_(std::move(label)), total_(total), enabled_(::isatty(STDERR_FILENO) == 1 && total > 0) {
  if (enabled_) draw(false);
}

progress::~progress() {
  if (enabled_) {
    draw(true);
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
}

void progress::advance(std::uint64_t n) {
  done_ += n;
  if (enabled_) draw(false);
}

zarr::progress_callback progress::chunks() {
  return [this](std::uint64_t done, std::uint64_t total) {
    done_ = done;
    total_ = total;
    if (enabled_) draw(false);
    return true;
  };
}

void progress::draw(bool final) {
  const auto done = std::min(done_, total_);
  const int permille = static_cast<int>(done * 1000 / total_);
  if (!final && permille == last_permille_) return;
  last_permille_ = permille;
  constexpr int width = 30;
  const int filled = permille * width / 1000;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(width - filled), '.');
  std::fprintf(stderr, "\r%s [%s] %3d%% (%llu/%llu)", label_.c_str(), bar.c_str(), permille / 10,
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
  std::fflush(stderr);
}

std::string read_text_file(std::string_view path, std::string_view what) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in) throw zarr::error(zarr::errc::io, std::string(what) + " \"" + std::string(path) + "\": cannot open it");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace zarr_cli
