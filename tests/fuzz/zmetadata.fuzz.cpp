// libFuzzer target: consolidated metadata through zarr::open_consolidated. The first byte picks
// where the text goes: a `.zmetadata` at the root (Zarr v2, zarr-python's form), a zarr.json with
// `consolidated_metadata` at the root (Zarr v3), or a `.zmetadata` below a group "sub". It is
// refused with zarr::error, or every node that the consolidated store then answers opens or is
// refused with zarr::error, and every child it lists has a valid node name.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.store;
import zarr.metadata;
import zarr.array;
import zarr.builder;
import zarr.store.memory;
import zarr.bytes;
import zarr.nd;

namespace {

// Opens the node at `path` and, below a group, its children (to a depth of 8); an array's
// first elements are read (missing chunks: the fill value).
void visit(const std::shared_ptr<zarr::store>& s, const std::string& path, int depth) {
  if (depth > 8) return;
  try {
    const auto node = zarr::read_node_metadata(*s, path);
    if (std::holds_alternative<zarr::array_metadata>(node)) {
      const auto a = zarr::array::open(s, path);
      if (zarr::is_variable_length(a.type())) return;
      auto r = zarr::region::all(a.shape());
      for (std::size_t i = 0; i < r.stop.size(); ++i) r.stop[i] = r.stop[i] > 2 ? 2 : r.stop[i];
      if (r.num_elements() * a.metadata().element_size() > (std::uint64_t{1} << 20)) return;
      zarr::bytes out(static_cast<std::size_t>(r.num_elements() * a.metadata().element_size()));
      a.read(r, out);
      return;
    }
    for (const auto& child : zarr::group::open(s, path).children()) {
      try {
        zarr::validate_node_name(child);
      } catch (const zarr::error& e) {
        zarr_fuzz::expect(false, "a consolidated store answers a child with an invalid name:", e.what());
      }
      visit(s, path.empty() ? child : path + "/" + child, depth + 1);
    }
  } catch (const zarr::error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto form = data[0] % 3;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string group = form == 2 ? "sub" : "";
  const std::string prefix = form == 2 ? "sub/" : "";
  auto inner = std::make_shared<zarr::memory_store>();
  inner->set(prefix + (form == 1 ? "zarr.json" : ".zmetadata"), std::as_bytes(std::span(text)));
  if (form == 2) inner->set(prefix + ".zgroup", std::as_bytes(std::span(std::string_view(R"({"zarr_format": 2})"))));
  std::shared_ptr<zarr::store> s;
  try {
    s = zarr::open_consolidated(inner, group);
  } catch (const zarr::error&) {
    return 0;
  }
  visit(s, group, 0);
  return 0;
}
