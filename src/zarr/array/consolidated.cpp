// zarr.array: consolidated metadata, every document of a hierarchy in one key (zarr-python's
// `.zmetadata` for Zarr v2, {"metadata": {"a/.zarray": {...}}, "zarr_consolidated_format": 1};
// for Zarr v3 the `consolidated_metadata` member of a group's zarr.json that zarr-python 3
// writes, which Zarr v3 core spec "Group metadata" leaves to extensions).
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
#include <boost/json.hpp>
module zarr.array;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr std::string_view zmetadata_key = ".zmetadata";

std::string text_of(const bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

void set_text(store& s, const std::string& key, const std::string& text) { s.set(key, std::as_bytes(std::span(text))); }

bool is_document(std::string_view key) {
  const auto slash = key.rfind('/');
  const auto name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  return name == zarr_json_key || name == zarray_key || name == zgroup_key || name == zattrs_key;
}

[[noreturn]] void no_consolidated(std::string_view path, std::string_view why) {
  throw error(errc::not_found, "group \"/" + std::string(path) + "\": expected consolidated metadata, got " + std::string(why));
}

// Serves the documents under `prefix` from a map; everything else from the inner store.
class consolidated_store final : public store {
 public:
  consolidated_store(std::shared_ptr<store> inner, std::string prefix, std::map<std::string, std::string> documents)
      : inner_(std::move(inner)), prefix_(std::move(prefix)), documents_(std::move(documents)) {}

  std::optional<bytes> get(std::string_view key) const override {
    if (!mine(key)) return inner_->get(key);
    const std::lock_guard lock(mutex_);
    const auto it = documents_.find(std::string(key));
    if (it == documents_.end()) return std::nullopt;
    const auto* p = reinterpret_cast<const std::byte*>(it->second.data());
    return bytes(p, p + it->second.size());
  }
  std::optional<bytes> get(std::string_view key, byte_range range) const override { return inner_->get(key, range); }
  bool get_into(std::string_view key, bytes& out) const override {
    if (mine(key)) {
      auto v = get(key);
      if (v) out = std::move(*v);
      return v.has_value();
    }
    return inner_->get_into(key, out);
  }
  std::unique_ptr<const stored_value> snapshot(std::string_view key) const override { return inner_->snapshot(key); }
  std::unique_ptr<const stored_value> snapshot_and_read(std::string_view key, byte_range first, bytes& part) const override {
    return inner_->snapshot_and_read(key, first, part);
  }
  // Batches are the inner store's (with its requests in flight), unless they meet a document.
  void get_many(std::span<get_item> items, const item_done& done, const item_ready& ready) const override {
    if (std::any_of(items.begin(), items.end(), [&](const get_item& i) { return mine(i.key); }))
      store::get_many(items, done, ready);
    else
      inner_->get_many(items, done, ready);
  }
  void set_many(std::span<const set_item> items, const item_done& done, const item_ready& ready) override {
    inner_->set_many(items, done, ready);
    for (const auto& i : items) refresh(i.key);
  }
  std::size_t io_concurrency() const noexcept override { return inner_->io_concurrency(); }
  std::unique_ptr<const stored_value> snapshot_at(std::string_view key, const value_version& version) const override {
    return inner_->snapshot_at(key, version);
  }
  std::optional<std::uint64_t> size(std::string_view key) const override {
    if (!mine(key)) return inner_->size(key);
    const std::lock_guard lock(mutex_);
    const auto it = documents_.find(std::string(key));
    if (it == documents_.end()) return std::nullopt;
    return it->second.size();
  }
  void set(std::string_view key, std::span<const std::byte> value) override {
    inner_->set(key, value);
    if (!mine(key)) return;
    const std::lock_guard lock(mutex_);
    documents_[std::string(key)] = std::string(reinterpret_cast<const char*>(value.data()), value.size());
  }
  void erase(std::string_view key) override {
    inner_->erase(key);
    if (!mine(key)) return;
    const std::lock_guard lock(mutex_);
    documents_.erase(std::string(key));
  }
  std::vector<std::string> list(std::string_view prefix) const override { return inner_->list(prefix); }
  // Versions and updates are the inner store's; an update of a document refreshes its copy.
  versioned_value get_versioned(std::string_view key) const override { return inner_->get_versioned(key); }
  bool set_if(std::string_view key, std::span<const std::byte> value, const value_version& expected) override {
    const bool done = inner_->set_if(key, value, expected);
    if (done) refresh(key);
    return done;
  }
  bool erase_if(std::string_view key, const value_version& expected) override {
    const bool done = inner_->erase_if(key, expected);
    if (done) refresh(key);
    return done;
  }
  bool atomic_updates() const override { return inner_->atomic_updates(); }
  bool erases_conditionally() const override { return inner_->erases_conditionally(); }
  std::string missing_update_ability() const override { return inner_->missing_update_ability(); }
  void update(std::string_view key, const update_function& modify, bool single_writer, const update_policy& policy) override {
    inner_->update(key, modify, single_writer, policy);
    refresh(key);
  }
  // The nodes below `prefix`, from the documents (chunk keys are not among them).
  std::vector<std::string> list_dir(std::string_view prefix) const override {
    if (!prefix.starts_with(prefix_)) return inner_->list_dir(prefix);
    std::set<std::string> names;
    const std::lock_guard lock(mutex_);
    for (auto it = documents_.lower_bound(std::string(prefix)); it != documents_.end() && it->first.starts_with(prefix); ++it) {
      const std::string_view rest = std::string_view(it->first).substr(prefix.size());
      names.insert(std::string(rest.substr(0, rest.find('/'))));
    }
    return {names.begin(), names.end()};
  }

 private:
  bool mine(std::string_view key) const { return key.starts_with(prefix_) && is_document(key); }
  // A document's copy, as the inner store has it now.
  void refresh(std::string_view key) {
    if (!mine(key)) return;
    const auto value = inner_->get(key);
    const std::lock_guard lock(mutex_);
    if (value)
      documents_[std::string(key)] = std::string(reinterpret_cast<const char*>(value->data()), value->size());
    else
      documents_.erase(std::string(key));
  }

  std::shared_ptr<store> inner_;
  std::string prefix_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> documents_;
};

// The documents of every node below the group at `path` (relative paths "a", "a/b"), each as
// a JSON object keyed by its file name.
void collect(const std::shared_ptr<store>& s, const std::string& path, const std::string& relative,
             std::map<std::string, std::map<std::string, json::value>>& out) {
  for (const auto& child : group::open(s, path).children()) {
    const auto child_path = path.empty() ? child : path + "/" + child;
    const auto child_relative = relative.empty() ? child : relative + "/" + child;
    const auto prefix = node_prefix(child_path);
    bool is_group = false;
    for (const auto key : {zarr_json_key, zarray_key, zgroup_key, zattrs_key}) {
      const auto doc = s->get(prefix + std::string(key));
      if (!doc) continue;
      out[child_relative][std::string(key)] = parse_json(text_of(*doc), prefix + std::string(key));
      if (key == zgroup_key) is_group = true;
      if (key == zarr_json_key) is_group = out[child_relative][std::string(key)].at("node_type") == "group";
    }
    if (is_group) collect(s, child_path, child_relative, out);
  }
}

}  // namespace

void drop_consolidated_metadata(store& s, std::string_view path) {
  // The groups above the node, the root first, then the node itself (its own v2 .zmetadata).
  std::vector<std::string> nodes{""};
  for (auto slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1))
    nodes.emplace_back(path.substr(0, slash));
  if (!path.empty()) nodes.emplace_back(path);
  for (const auto& node : nodes) {
    const auto prefix = node_prefix(node);
    if (s.size(prefix + std::string(zmetadata_key))) s.erase(prefix + std::string(zmetadata_key));
    if (node == path) continue;  // the node's own zarr.json is the document being written
    const auto key = prefix + std::string(zarr_json_key);
    const auto doc = s.get(key);
    if (!doc || text_of(*doc).find("consolidated_metadata") == std::string::npos) continue;
    // A read-modify-write (store::update), so that another process's change of the group stays.
    s.update(
        key,
        [&](const bytes* current, bytes& out) {
          if (current == nullptr) return true;  // gone meanwhile: nothing to drop
          out = *current;
          auto v = parse_json(text_of(*current), key);
          if (auto* o = v.if_object(); o != nullptr && o->erase("consolidated_metadata") > 0) {
            const auto text = serialize_metadata(*o);
            const auto* first = reinterpret_cast<const std::byte*>(text.data());
            out.assign(first, first + text.size());
          }
          return false;
        },
        !s.atomic_updates());
  }
}

std::size_t consolidate_metadata(const std::shared_ptr<store>& s, std::string_view path) {
  const auto g = group::open(s, path);  // a group, or an error naming what is there
  const auto prefix = node_prefix(path);
  std::map<std::string, std::map<std::string, json::value>> nodes;
  collect(s, std::string(path), "", nodes);
  if (g.metadata().zarr_format == 2) {
    json::object metadata;
    for (const auto key : {zgroup_key, zattrs_key})
      if (const auto doc = s->get(prefix + std::string(key))) metadata[key] = parse_json(text_of(*doc), prefix + std::string(key));
    for (const auto& [relative, documents] : nodes)
      for (const auto& [key, doc] : documents) metadata[relative + "/" + key] = doc;
    set_text(*s, prefix + std::string(zmetadata_key),
             serialize_v2_metadata(json::object{{"metadata", std::move(metadata)}, {"zarr_consolidated_format", 1}}));
    return nodes.size();
  }
  json::object metadata;
  for (const auto& [relative, documents] : nodes)
    if (const auto it = documents.find(std::string(zarr_json_key)); it != documents.end()) metadata[relative] = it->second;
  // A read-modify-write of the group's zarr.json (store::update), so that what another process
  // changed in it meanwhile (its attributes) stays.
  const auto key = prefix + std::string(zarr_json_key);
  const json::value consolidated{{"kind", "inline"}, {"must_understand", false}, {"metadata", std::move(metadata)}};
  s->update(
      key,
      [&](const bytes* current, bytes& out) {
        if (current == nullptr) throw error(errc::not_found, key + ": expected the group's document, got none (erased meanwhile)");
        auto root = parse_json(text_of(*current), key);
        if (!root.is_object()) throw error(errc::invalid_metadata, key + ": expected an object, got " + json::serialize(root));
        root.as_object()["consolidated_metadata"] = consolidated;
        const auto text = serialize_metadata(root.as_object());
        const auto* first = reinterpret_cast<const std::byte*>(text.data());
        out.assign(first, first + text.size());
        return false;
      },
      !s->atomic_updates());
  return nodes.size();
}

std::shared_ptr<store> open_consolidated(std::shared_ptr<store> s, std::string_view path) {
  const auto prefix = node_prefix(path);
  std::map<std::string, std::string> documents;
  const auto object_at = [&](const json::value& v, const std::string& where) -> const json::object& {
    if (!v.is_object()) throw error(errc::invalid_metadata, where + ": expected an object, got " + json::serialize(v));
    return v.as_object();
  };
  if (const auto doc = s->get(prefix + std::string(zarr_json_key))) {
    const auto text = text_of(*doc);
    const auto v = parse_json(text, prefix + std::string(zarr_json_key));
    const auto* cm = v.is_object() ? v.as_object().if_contains("consolidated_metadata") : nullptr;
    if (cm == nullptr || cm->is_null()) no_consolidated(path, "none in its zarr.json");
    const auto where = prefix + std::string(zarr_json_key) + ": consolidated_metadata";
    const auto& c = object_at(*cm, where);
    if (const auto* kind = c.if_contains("kind"); kind == nullptr || *kind != "inline")
      throw error(errc::unsupported, where + ".kind: expected \"inline\", got " + (kind ? json::serialize(*kind) : "nothing"));
    const auto* metadata = c.if_contains("metadata");
    if (metadata == nullptr) throw error(errc::invalid_metadata, where + ".metadata: expected an object, got nothing");
    for (const auto& [relative, node] : object_at(*metadata, where + ".metadata")) {
      // "" would be the group itself, served as "/zarr.json" and listed as a child named "".
      if (relative.empty()) throw error(errc::invalid_key, where + ".metadata: expected node paths below the group, got \"\"");
      validate_node_path(relative);
      documents[prefix + std::string(relative) + "/" + std::string(zarr_json_key)] =
          serialize_metadata(object_at(node, where + ".metadata." + std::string(relative)));
    }
    documents[prefix + std::string(zarr_json_key)] = text;
  } else if (const auto zmetadata = s->get(prefix + std::string(zmetadata_key))) {
    const auto where = prefix + std::string(zmetadata_key);
    const auto v = parse_json(text_of(*zmetadata), where);
    const auto& o = object_at(v, where);
    if (const auto* f = o.if_contains("zarr_consolidated_format"); f == nullptr || *f != 1)
      throw error(errc::unsupported, where + ": zarr_consolidated_format: expected 1, got " + (f ? json::serialize(*f) : "nothing"));
    const auto* metadata = o.if_contains("metadata");
    if (metadata == nullptr) throw error(errc::invalid_metadata, where + ": metadata: expected an object, got nothing");
    for (const auto& [key, doc] : object_at(*metadata, where + ": metadata")) {
      validate_key(prefix + std::string(key));
      if (!is_document(key)) throw error(errc::invalid_metadata, where + ": metadata: expected document keys, got \"" + std::string(key) + "\"");
      documents[prefix + std::string(key)] = serialize_metadata(object_at(doc, where + ": metadata." + std::string(key)));
    }
  } else {
    no_consolidated(path, "no zarr.json or .zmetadata");
  }
  return std::make_shared<consolidated_store>(std::move(s), prefix, std::move(documents));
}

}  // namespace zarr
