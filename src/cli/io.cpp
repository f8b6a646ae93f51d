// zarr3 create, write and read: metadata documents in, values in and out (json, raw, npy).
#include <boost/json.hpp>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
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
    const zarr::codec_chain chain(meta->codecs, {meta->chunk_shape, meta->type, meta->fill_value});
    auto store = open_store(where, true);
    const auto a = zarr::array::create(store, where.node, *meta, args.has("--overwrite"));
    std::cout << "created array " << where.display() << ": " << zarr::name(a.type()) << " " << shape_text(a.shape())
              << " in chunks of " << shape_text(a.metadata().chunk_shape) << "\n";
  } else {
    auto& group = std::get<zarr::group_metadata>(node);
    auto store = open_store(where, true);
    zarr::group::create(store, where.node, attributes ? *attributes : group.attributes, args.has("--overwrite"));
    std::cout << "created group " << where.display() << "\n";
  }
  return exit_ok;
}

// ------------------------------------------------------------------------------- write

int run_write(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("write", argv, {{"--input", "--format", "--region"}, {}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto input = args.get("--input");
  if (!input) throw usage_error("zarr3 write: missing --input FILE (see zarr3 help write)");
  const auto format = parse_format(args.get("--format"), *input);
  auto a = zarr::array::open(open_store(where, false), where.node);
  const auto r = region_of(args, a);
  const auto type = a.type();
  const auto size = static_cast<std::uint64_t>(zarr::info(type).size);
  const std::string input_name = *input == "-" ? std::string("stdin") : "input \"" + *input + "\"";

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
  if (format == value_format::npy) swap = read_npy_header(*in, type, r.extent(), input_name);
  std::optional<json_element_reader> reader;
  if (format == value_format::json) reader.emplace(text, type, input_name);

  const auto pieces = slabs(r, a.metadata().chunk_shape.empty() ? 1 : a.metadata().chunk_shape[0], size);
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
  std::cout << "wrote " << r.num_elements() << " " << zarr::name(type) << " values to " << where.display()
            << (args.has("--region") ? " [" + region_text(r) + "]" : std::string()) << "\n";
  return exit_ok;
}

// -------------------------------------------------------------------------------- read

int run_read(std::span<const std::string_view> argv) {
  const auto args = parse_arguments("read", argv, {{"--format", "--region", "--output"}, {}, 1, 1});
  const auto where = parse_location(args.positionals[0]);
  current_target() = where.display();
  const auto output = args.get("--output");
  const bool to_file = output && *output != "-";
  const auto format = parse_format(args.get("--format"), to_file ? *output : std::string());
  const auto a = zarr::array::open(open_store(where, false), where.node);
  const auto r = region_of(args, a);
  const auto type = a.type();
  const auto size = static_cast<std::uint64_t>(zarr::info(type).size);
  std::string header;
  if (format == value_format::npy) header = npy_header(type, r.extent());  // before creating the file

  std::ofstream file;
  if (to_file) {
    file.open(*output, std::ios::binary | std::ios::trunc);
    if (!file) throw zarr::error(zarr::errc::io, "output \"" + *output + "\": cannot create it");
  }
  std::ostream& out = to_file ? static_cast<std::ostream&>(file) : std::cout;
  try {
    out << header;
    if (format == value_format::json) out << '[';
    const auto pieces = slabs(r, a.metadata().chunk_shape.empty() ? 1 : a.metadata().chunk_shape[0], size);
    std::optional<progress> bar;
    if (to_file) bar.emplace("read", r.num_elements());
    json_element_writer writer(type);
    zarr::bytes buffer;
    std::string text;
    bool first = true;
    for (const auto& piece : pieces) {
      const auto n = piece.num_elements();
      buffer.resize(static_cast<std::size_t>(n * size));
      a.read(piece, buffer);
      if (format == value_format::json) {
        text.clear();
        for (std::uint64_t i = 0; i < n; ++i) {
          if (!first) text.push_back(',');
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
    if (format == value_format::json) out << "]\n";
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
