// libFuzzer target: the zarr3 tool's commands (src/cli/cli.hpp), run in this process on a
// directory store made of the input. Input: records separated by zarr_fuzz::record_separator:
// the root zarr.json (empty: none, a Zarr v2 array from the key records), then the command
// record, then store key and value in turns. The command record: a byte choosing the command
// (info, tree, read, write, convert, verify, consolidate), a byte of option bits, then the
// region text (`--region`, "" for the whole array). Every command ends with a status or
// throws a usage error or zarr::error (anything else, or a signal, is a finding); read, write
// and convert keep the values (lossless codecs): a region written with the values read from it
// reads the same, and a converted array reads as its source.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <streambuf>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>
#include <boost/json.hpp>
#include "../../src/cli/cli.hpp"
#include "fuzz.hpp"
import zarr.error;
import zarr.array;
import zarr.parallel;
import zarr.store.filesystem;

namespace fs = std::filesystem;

namespace {

fs::path work;  // a folder of this process: the store a.zarr, the converted b.zarr, the value files

// A stream buffer that drops what the commands print.
class null_buffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// Runs a command with `args`; whether it succeeded. A usage error or zarr::error is a refusal.
bool run(int (*command)(std::span<const std::string_view>), std::vector<std::string> args) {
  const std::vector<std::string_view> views(args.begin(), args.end());
  try {
    return command(views) == zarr_cli::exit_ok;
  } catch (const zarr_cli::usage_error&) {
  } catch (const zarr::error&) {
  }
  return false;
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reads `region` ("" = whole) of the array at `path` into `out` in `format`; its bytes, or
// nothing when the read was refused.
std::optional<std::string> read(const fs::path& path, const std::string& region, const std::string& format,
                                const fs::path& out) {
  std::vector<std::string> args{path.string(), "--format", format, "--output", out.string()};
  if (!region.empty()) args.insert(args.end(), {"--region", region});
  if (!run(zarr_cli::run_read, args)) return std::nullopt;
  return file_text(out);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  zarr::set_concurrency(1);  // reproducible runs
  static null_buffer null;
  std::cout.rdbuf(&null);
  const fs::path shm = "/dev/shm";
  work = (fs::is_directory(shm) ? shm : fs::temp_directory_path()) / ("zarr-fuzz-cli-" + std::to_string(::getpid()));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto records = zarr_fuzz::split_records({reinterpret_cast<const char*>(data), size});
  if (records.size() < 2 || records[1].size() < 2) return 0;
  const auto command = static_cast<std::uint8_t>(records[1][0]) % 7;
  const auto bits = static_cast<std::uint8_t>(records[1][1]);
  const std::string region(records[1].substr(2));
  fs::remove_all(work);
  const auto a = work / "a.zarr", b = work / "b.zarr";
  auto store = std::make_shared<zarr::filesystem_store>(a);
  if (!records[0].empty()) store->set("zarr.json", std::as_bytes(std::span(records[0])));
  std::size_t stored = 0;
  for (std::size_t i = 2; i + 1 < records.size(); i += 2) {
    try {
      store->set(records[i], std::as_bytes(std::span(records[i + 1])));
      ++stored;
    } catch (const zarr::error& e) {  // a key no store takes, or a name the file system refuses (too long)
      zarr_fuzz::expect(e.code() == zarr::errc::invalid_key || e.code() == zarr::errc::io, "unexpected error code:", e.what());
    }
  }
  // Commands that decode chunks run on a root array small enough (zarr_fuzz::small_array); the
  // others only read metadata.
  // Lossy codecs (quantize, bitround, the scale and offset codecs, zfp, astype) may encode
  // again what they decoded to other values: no equality is asked of those.
  bool small = false, exact = true;
  try {
    const auto array = zarr::array::open(store, "");
    small = zarr_fuzz::small_array(array, stored);
    const auto codecs = boost::json::serialize(array.metadata().codecs);
    for (const char* lossy : {"quantize", "bitround", "scale", "zfp", "astype"})
      exact = exact && codecs.find(lossy) == std::string::npos;
  } catch (const zarr::error&) {
  }
  const std::vector<std::string> formats{"json", "raw", "npy"};
  const auto& format = formats[bits % 3];
  const auto out = work / ("out." + format), again = work / ("again." + format);
  switch (command) {
    case 0:
      run(zarr_cli::run_info, bits & 8 ? std::vector<std::string>{a.string(), "--json"} : std::vector{a.string()});
      break;
    case 1:
      run(zarr_cli::run_tree, {a.string()});
      break;
    case 2:
      if (small) read(a, region, format, out);
      break;
    case 3:
      // The values of a region, written back where they came from, read back the same.
      if (const auto before = small ? read(a, region, format, out) : std::nullopt) {
        std::vector<std::string> args{a.string(), "--input", out.string(), "--format", format};
        if (!region.empty()) args.insert(args.end(), {"--region", region});
        if (bits & 8) args.push_back("--single-writer");
        if (run(zarr_cli::run_write, args)) {
          const auto after = read(a, region, format, again);
          zarr_fuzz::expect(after.has_value(), "a region written with the values read from it cannot be read");
          zarr_fuzz::expect(!exact || *after == *before, "a region written with the values read from it reads differently");
        }
      }
      break;
    case 4:
      // A converted array reads as its source.
      if (small) {
        std::vector<std::string> args{a.string(), b.string()};
        if (bits & 8) args.insert(args.end(), {"--format", "2"});
        if (bits & 16) args.insert(args.end(), {"--chunks", region});
        if (run(zarr_cli::run_convert, args)) {
          const auto source = read(a, "", format, out);
          const auto copy = read(b, "", format, again);
          zarr_fuzz::expect(source.has_value() == copy.has_value(), "a converted array reads where its source does not, or back");
          zarr_fuzz::expect(!exact || !source || *source == *copy, "a converted array reads differently from its source");
        }
      }
      break;
    case 5:
      if (small) run(zarr_cli::run_verify, {a.string()});
      break;
    default:
      if (run(zarr_cli::run_consolidate, {a.string()})) run(zarr_cli::run_tree, {a.string()});
      break;
  }
  zarr_cli::flush_zip_stores();
  return 0;
}
