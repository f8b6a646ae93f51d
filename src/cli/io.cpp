// zarr3 create, write and read: metadata documents in, values in and out (json, raw, npy).
// Raw and npy files are mapped: write hands the input file's pages to the array, read
// decodes straight into the output file's pages (no copy through fresh memory).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <boost/json.hpp>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <streambuf>
#include <memory>
#include <utility>
#include <variant>
#include "cli.hpp"
#include "formats.hpp"

namespace zarr_cli {

namespace json = boost::json;

namespace {

std::string region_text(const zarr::region& r) {
  std::string s;
  for (std::size_t i = 0; i < r.start.size(); ++i)
    s += (i ? "," : "") + std::to_string(r.start[i]) + ":" + std::to_string(r.stop[i]);
  return s;
}

zarr::region region_of(const arguments& args, const zarr::array& a) {
  const auto text = args.get("--region");
  return text ? parse_region(*text, a.shape()) : zarr::region::all(a.shape());
}

// A file descriptor closed on every path out; close() reports the error of an explicit close.
struct descriptor {
  int fd = -1;
  explicit descriptor(int f) : fd(f) {}
  descriptor(const descriptor&) = delete;
  descriptor& operator=(const descriptor&) = delete;
  ~descriptor() {
    if (fd >= 0) ::close(fd);
  }
  [[nodiscard]] int close() { return ::close(std::exchange(fd, -1)); }
};

// A file mapped whole; unmapped at the end.
struct mapping {
  void* base = MAP_FAILED;
  std::size_t size = 0;
  mapping() = default;
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping() {
    if (base != MAP_FAILED) ::munmap(base, size);
  }
  [[nodiscard]] std::byte* bytes() const { return base == MAP_FAILED ? nullptr : static_cast<std::byte*>(base); }
};

// Memory as an input stream (the npy header of a mapped file); never written through.
class memory_buffer : public std::streambuf {
 public:
  memory_buffer(const std::byte* p, std::size_t n) {
    auto* c = const_cast<char*>(reinterpret_cast<const char*>(p));
    setg(c, c, c + n);
  }
  [[nodiscard]] std::size_t consumed() const { return static_cast<std::size_t>(gptr() - eback()); }
};

// Inputs up to this size are mapped with every page in place at once (MAP_POPULATE: one
// system call instead of a fault per 64 KiB); larger ones are read ahead slab by slab.
constexpr std::size_t populate_limit = std::size_t{1} << 30;

// The values of the raw or npy file `path` (the region's, in C order) written to `a`
// through a private read-only mapping of the file: the array reads the file's cached pages,
// nothing is copied into fresh memory. Values that need converting (sub-byte types, bool
// checks, byte swaps) are converted in place in the mapping, whose written pages become
// this process's own. False when `path` is not a regular file (a pipe): read it as a stream.
// (A file truncated by another process meanwhile ends this one with SIGBUS, as with any
// mapped input.)
bool write_mapped(zarr::array& a, const zarr::region& r, const std::string& path, value_format format,
                  const std::string& input_name) {
  const descriptor f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) throw zarr::error(zarr::errc::io, input_name + ": cannot open it: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw zarr::error(zarr::errc::io, input_name + ": cannot stat it: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return false;
  const auto type = a.type();
  const auto size = a.metadata().element_size();
  mapping m;
  if (st.st_size > 0) {
    m.size = static_cast<std::size_t>(st.st_size);
    m.base = ::mmap(nullptr, m.size, PROT_READ, MAP_PRIVATE | (m.size <= populate_limit ? MAP_POPULATE : 0), f.fd, 0);
    if (m.base == MAP_FAILED) throw zarr::error(zarr::errc::io, input_name + ": cannot map it: " + std::strerror(errno));
  }
  std::size_t offset = 0;
  bool swap = false;
  if (format == value_format::npy) {
    memory_buffer buffer(m.bytes(), m.size);
    std::istream in(&buffer);
    swap = read_npy_header(in, type, a.metadata().time, r.extent(), input_name);
    offset = buffer.consumed();
  }
  const auto expected = r.num_elements() * size;
  const auto got = static_cast<std::uint64_t>(m.size - offset);
  if (got < expected)
    throw zarr::error(zarr::errc::invalid_value, input_name + ": expected " + std::to_string(expected) + " bytes of values, got " +
                                                     std::to_string(got));
  if (got > expected)
    throw zarr::error(zarr::errc::invalid_value, input_name + ": expected " + std::to_string(expected) + " bytes of values, got more");
  const auto& t = zarr::info(type);
  const bool convert = swap || std::endian::native == std::endian::big || t.bits < 8 || type == zarr::data_type::bool_;
  if (convert && m.size > 0 && ::mprotect(m.base, m.size, PROT_READ | PROT_WRITE) != 0)
    throw zarr::error(zarr::errc::io, input_name + ": cannot map it: " + std::strerror(errno));

  progress bar("write", r.num_elements());
  // One call for the whole region (the array spreads its chunks over the threads, and counts
  // them for the progress bar), in slabs only to read a large file ahead.
  const bool in_slabs = m.size > populate_limit;
  zarr::write_options options;
  if (!in_slabs) options.progress = bar.chunks();
  const auto pieces = in_slabs ? slabs(r, a.metadata().grid(), size)
                               : std::vector<zarr::region>{r};
  std::uint64_t first = 0;
  for (const auto& piece : pieces) {
    const auto n = piece.num_elements();
    const std::span<std::byte> values(m.bytes() + offset + first * size, static_cast<std::size_t>(n * size));
    if (m.size > populate_limit) {  // from the page the slab starts in
      const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
      const auto start = (offset + first * size) / page * page;
      ::madvise(m.bytes() + start, static_cast<std::size_t>(offset + first * size + values.size() - start), MADV_WILLNEED);
    }
    if (convert) {
      if (swap) swap_elements(values, type);
      from_raw(values, type, first, input_name);
    }
    a.write(piece, values, options);
    first += n;
    if (in_slabs) bar.advance(n);
  }
  return true;
}

// Writes all of `data` to `fd`, or throws naming the output.
void write_all(int fd, const std::byte* data, std::size_t size, const std::string& output) {
  while (size > 0) {
    const auto n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw zarr::error(zarr::errc::io, "output \"" + output + "\": cannot write it: " + std::strerror(errno));
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

// The values of region `r` of `a` into the raw or npy file open as `f` (new, empty): the
// file is made its final size with its blocks reserved (fallocate), mapped shared, and the
// array decodes straight into its pages; the header (npy) is copied in front. A write
// through a mapping that the file system cannot back is a SIGBUS, not an error, hence the
// reservation first: a full disk fails there with ENOSPC. Where the file system cannot
// reserve (no fallocate) or the file cannot be mapped, the values go through a buffer and
// write(), each call checked. Closes `f`, checking that too.
void read_to_file(const zarr::array& a, const zarr::region& r, descriptor& f, const std::string& output,
                  value_format format, const std::string& header) {
  const auto type = a.type();
  const auto size = a.metadata().element_size();
  const auto data_bytes = r.num_elements() * size;
  const auto total = static_cast<std::size_t>(header.size() + data_bytes);
  const auto fail = [&](const char* what) {
    throw zarr::error(zarr::errc::io, "output \"" + output + "\": " + what + ": " + std::strerror(errno));
  };
  const auto convert = [&](std::span<std::byte> values) {
    if (format == value_format::raw) to_raw(values, type);
    if (format == value_format::npy && std::endian::native == std::endian::big) swap_elements(values, type);
  };
  mapping m;
  if (data_bytes > 0) {
    // fallocate, not posix_fallocate: glibc emulates the latter, where the file system lacks
    // it, by writing a byte to every block; the plain writes below are better then.
    if (::fallocate(f.fd, 0, 0, static_cast<off_t>(total)) == 0) {
      m.base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
      if (m.base != MAP_FAILED) m.size = total;
      else if (::ftruncate(f.fd, 0) != 0) fail("cannot truncate it");
    } else if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG) {
      fail("cannot write it");
    }
  }
  progress bar("read", r.num_elements());
  const auto pieces = m.size == 0 ? slabs(r, a.metadata().grid(), size)
                                  : std::vector<zarr::region>{r};
  if (m.size > 0) {
    // Every page of the file in place and writable in one call, not a fault per page.
    ::madvise(m.base, m.size, MADV_POPULATE_WRITE);  // an older kernel refuses: the pages fault in instead
    std::memcpy(m.bytes(), header.data(), header.size());
    std::uint64_t first = 0;
    for (const auto& piece : pieces) {
      const auto n = piece.num_elements();
      const std::span<std::byte> values(m.bytes() + header.size() + first * size, static_cast<std::size_t>(n * size));
      a.read(piece, values, {.progress = bar.chunks()});
      convert(values);
      first += n;
    }
    if (::munmap(std::exchange(m.base, MAP_FAILED), m.size) != 0) fail("cannot write it");
  } else {
    write_all(f.fd, reinterpret_cast<const std::byte*>(header.data()), header.size(), output);
    zarr::bytes buffer;
    for (const auto& piece : pieces) {
      const auto n = piece.num_elements();
      buffer.resize(static_cast<std::size_t>(n * size));
      a.read(piece, buffer);
      convert(buffer);
      write_all(f.fd, buffer.data(), buffer.size(), output);
      bar.advance(n);
    }
  }
  if (f.close() != 0) fail("cannot write it");
}

}  // namespace

// ------------------------------------------------------------------------------ create

int run_create(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("create", argv, {{"--metadata", "--attrs"}, {"--overwrite"}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto metadata_file = args.get("--metadata");
  if (!metadata_file) throw usage_error("zarr3 create: missing --metadata FILE (see zarr3 help create)");
  const auto attrs_file = args.get("--attrs");
  if (attrs_file && *attrs_file == "-" && *metadata_file == "-")
    throw usage_error("zarr3 create: --metadata and --attrs cannot both read stdin");

  // Everything is validated before the store is touched.
  const auto text = read_text_file(*metadata_file, "metadata file");
  auto node = zarr::parse_node_metadata(text);
  std::optional<json::object> attributes;
  if (attrs_file) {
    const auto attrs_text = read_text_file(*attrs_file, "attributes file");
    const auto value = zarr::parse_json(attrs_text, *attrs_file);
    if (!value.is_object())
      throw zarr::error(zarr::errc::invalid_metadata, "attributes file \"" + *attrs_file + "\": expected a JSON object");
    attributes = value.as_object();
  }
  if (auto* meta = std::get_if<zarr::array_metadata>(&node)) {
    if (attributes) meta->attributes = *attributes;
    // (A rectilinear grid's chains, one per chunk shape, are validated by array::create.)
    if (!meta->rectilinear) static_cast<void>(zarr::codec_chain(meta->codecs, {meta->chunk_shape, meta->type, meta->fill_value, meta->layout}));
    auto store = open_store(where, true);
    const auto a = zarr::array::create(store, where.node, *meta, args.has("--overwrite"));
    const auto type_name = zarr::is_sized(a.type()) ? zarr::sized_type_name(a.metadata().type_spec()) : std::string(zarr::name(a.type()));
    std::cout << "created array " << where.display() << ": " << type_name << " " << shape_text(a.shape())
              << " in chunks of " << chunk_grid_text(a.metadata()) << "\n";
  } else {
    auto& group = std::get<zarr::group_metadata>(node);
    auto store = open_store(where, true);
    zarr::group::create(store, where.node, attributes ? *attributes : group.attributes, args.has("--overwrite"));
    std::cout << "created group " << where.display() << "\n";
  }
  return exit_ok;
}

// ------------------------------------------------------------------------------- write

namespace {

// The values of a string or bytes array in JSON: an array of `count` elements, each in the form
// of the type's fill value (a string; for bytes base64, or an array of byte values).
std::vector<std::string> read_json_strings(std::string_view text, const zarr::data_type_spec& type, std::uint64_t count,
                                           const std::string& input_name) {
  const auto v = zarr::parse_json(text, input_name);
  const auto* list = v.if_array();
  if (list == nullptr || list->size() != count)
    throw zarr::error(zarr::errc::invalid_value, input_name + ": expected a JSON array of " + std::to_string(count) +
                                                     " values, got " + (list ? std::to_string(list->size()) + " values" : "another value"));
  std::vector<std::string> out;
  out.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i)
    out.push_back(zarr::parse_variable_value((*list)[i], type, input_name + ": element " + std::to_string(i)));
  return out;
}

}  // namespace

int run_write(std::span<const std::string_view> argv) {
  const auto args =
      parse_arguments("write", argv, {{"--input", "--format", "--region", "--inner-chunk-order"}, {"--single-writer"}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto input = args.get("--input");
  if (!input) throw usage_error("zarr3 write: missing --input FILE (see zarr3 help write)");
  const auto format = parse_format(args.get("--format"), *input);
  auto store = open_store(where, false);
  auto options = array_open_options();
  options.single_writer = args.has("--single-writer");
  if (const auto order = args.get("--inner-chunk-order")) {
    if (*order == "morton")
      options.inner_chunk_order = zarr::chunk_order::morton;
    else if (*order != "c")
      throw usage_error("--inner-chunk-order: expected c or morton, got \"" + std::string(*order) + "\"");
  }
  auto a = zarr::array::open(std::move(store), where.node, options);
  const auto r = region_of(args, a);
  const auto type = a.type();
  const auto size = a.metadata().element_size();
  const std::string input_name = *input == "-" ? std::string("stdin") : "input \"" + *input + "\"";

  const auto done = [&] {
    std::cout << "wrote " << r.num_elements() << " " << zarr::name(type) << " values to " << where.display()
              << (args.has("--region") ? " [" + region_text(r) + "]" : std::string()) << "\n";
    return exit_ok;
  };
  if (zarr::is_sized(type) && format != value_format::json)  // docs/decisions.md 58
    throw usage_error("--format: expected json for an array of " + zarr::sized_type_name(a.metadata().type_spec()) +
                      ", got another");
  if (zarr::has_variable_elements(type, a.metadata().layout)) {
    if (format != value_format::json)
      throw usage_error("--format: expected json for an array of " + std::string(zarr::name(type)) + ", got another");
    a.write_strings(r, read_json_strings(read_text_file(*input, "input"), a.metadata().type_spec(), r.num_elements(), input_name));
    return done();
  }
  if (format != value_format::json && *input != "-" && write_mapped(a, r, *input, format, input_name)) return done();

  // json, stdin and pipes: read as a stream, in slabs.
  std::string text;
  std::ifstream file;
  std::istream* in = &std::cin;
  if (format == value_format::json) {
    text = read_text_file(*input, "input");
  } else if (*input != "-") {
    file.open(*input, std::ios::binary);
    if (!file) throw zarr::error(zarr::errc::io, input_name + ": cannot open it");
    in = &file;
  }
  bool swap = false;
  if (format == value_format::npy) swap = read_npy_header(*in, type, a.metadata().time, r.extent(), input_name);
  std::optional<json_element_reader> reader;
  if (format == value_format::json) reader.emplace(text, a.metadata().type_spec(), input_name);

  const auto pieces = slabs(r, a.metadata().grid(), size);
  progress bar("write", r.num_elements());
  std::uint64_t first = 0;
  zarr::bytes buffer;
  for (const auto& piece : pieces) {
    const auto n = piece.num_elements();
    buffer.resize(static_cast<std::size_t>(n * size));
    if (reader) {
      reader->read(n, buffer.data());
    } else {
      in->read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(buffer.size()));
      const auto got = static_cast<std::uint64_t>(in->gcount());
      if (got != buffer.size())
        throw zarr::error(zarr::errc::invalid_value, input_name + ": expected " + std::to_string(r.num_elements() * size) +
                                                         " bytes of values, got " + std::to_string(first * size + got));
      if (swap) swap_elements(buffer, type);
      from_raw(buffer, type, first, input_name);
    }
    if (&piece == &pieces.back()) {  // the input must end here: checked before the last write
      if (reader) {
        reader->finish();
      } else if (in->peek() != std::char_traits<char>::eof()) {
        throw zarr::error(zarr::errc::invalid_value, input_name + ": expected " +
                                                         std::to_string(r.num_elements() * size) + " bytes of values, got more");
      }
    }
    a.write(piece, buffer);
    first += n;
    bar.advance(n);
  }
  return done();
}

// -------------------------------------------------------------------------------- read

int run_read(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("read", argv, {{"--format", "--region", "--output"}, {"--iso-8601", "--lines"}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto output = args.get("--output");
  const bool to_file = output && *output != "-";
  const auto format = parse_format(args.get("--format"), to_file ? *output : std::string());
  const auto a = zarr::array::open(open_store_for_reading(where), where.node, array_open_options());
  const auto r = region_of(args, a);
  const auto type = a.type();
  const auto size = a.metadata().element_size();
  const bool iso = args.has("--iso-8601");
  // --lines: json values one per line, without the brackets (the conformance suite's output)
  const bool lines = args.has("--lines");
  if (lines && format != value_format::json) throw usage_error("--lines: expected --format json, got another");
  const char separator = lines ? '\n' : ',';
  if (iso && (format != value_format::json || type != zarr::data_type::numpy_datetime64))
    throw usage_error("--iso-8601: expected --format json and a numpy.datetime64 array, got " + std::string(zarr::name(type)));
  if (zarr::has_variable_elements(type, a.metadata().layout) && format != value_format::json)
    throw usage_error("--format: expected json for an array of " + std::string(zarr::name(type)) + ", got another");
  // The sized types in raw and npy: each element's bytes as the bytes codec writes them
  // little-endian, which is their layout in memory on a little-endian machine.
  if (zarr::is_sized(type) && format != value_format::json && std::endian::native == std::endian::big)
    throw usage_error("--format: expected json for an array of " + zarr::sized_type_name(a.metadata().type_spec()) +
                      " on a big-endian machine, got another");
  std::string header;
  if (format == value_format::npy)  // before creating the file
    header = zarr::is_sized(type) ? npy_header(a.metadata().type_spec(), r.extent()) : npy_header(type, a.metadata().time, r.extent());

  if (to_file && format != value_format::json) {
    descriptor f{::open(output->c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)};
    if (f.fd < 0) throw zarr::error(zarr::errc::io, "output \"" + *output + "\": cannot create it: " + std::strerror(errno));
    struct stat st {};
    const bool regular = ::fstat(f.fd, &st) == 0 && S_ISREG(st.st_mode);  // not /dev/full or a pipe
    try {
      read_to_file(a, r, f, *output, format, header);
    } catch (...) {
      if (f.fd >= 0) static_cast<void>(f.close());
      std::error_code ec;
      if (regular) std::filesystem::remove(*output, ec);  // no half-written file left behind
      throw;
    }
    return exit_ok;
  }

  // json, and stdout: a stream, in slabs.
  std::ofstream file;
  if (to_file) {
    file.open(*output, std::ios::binary | std::ios::trunc);
    if (!file) throw zarr::error(zarr::errc::io, "output \"" + *output + "\": cannot create it");
  }
  std::ostream& out = to_file ? static_cast<std::ostream&>(file) : std::cout;
  try {
    out << header;
    if (format == value_format::json && !lines) out << '[';
    // string and bytes: sized as 16 bytes an element, a guess.
    const auto pieces = slabs(r, a.metadata().grid(), size == 0 ? 16 : size);
    std::optional<progress> bar;
    if (to_file) bar.emplace("read", r.num_elements());
    auto writer = iso ? json_element_writer(type, a.metadata().time) : json_element_writer(a.metadata().type_spec());
    zarr::bytes buffer;
    std::string text;
    bool first = true;
    for (const auto& piece : pieces) {
      const auto n = piece.num_elements();
      if (zarr::has_variable_elements(type, a.metadata().layout)) {
        text.clear();
        for (const auto& value : a.read_strings(piece)) {
          if (!first) text.push_back(separator);
          first = false;
          text += json::serialize(zarr::variable_value_to_json(value, a.metadata().type_spec()));
        }
        out << text;
        if (bar) bar->advance(n);
        continue;
      }
      buffer.resize(static_cast<std::size_t>(n * size));
      a.read(piece, buffer);
      if (format == value_format::json) {
        text.clear();
        for (std::uint64_t i = 0; i < n; ++i) {
          if (!first) text.push_back(separator);
          first = false;
          writer.append(text, buffer.data() + i * size);
        }
        out << text;
      } else {
        if (format == value_format::raw) to_raw(buffer, type);
        if (format == value_format::npy && std::endian::native == std::endian::big) swap_elements(buffer, type);
        out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(buffer.size()));
      }
      if (bar) bar->advance(n);
    }
    if (format == value_format::json) out << (lines ? (first ? "" : "\n") : "]\n");
    out.flush();
    if (!out) throw zarr::error(zarr::errc::io, to_file ? "output \"" + *output + "\": cannot write it" : "stdout: cannot write it");
  } catch (...) {
    if (to_file) {
      file.close();
      std::error_code ec;
      std::filesystem::remove(*output, ec);
    }
    throw;
  }
  return exit_ok;
}

}  // namespace zarr_cli
