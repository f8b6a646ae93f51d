// zarr.store: key validation (docs/decisions.md 24), the generic list_dir and snapshot, and the
// read-modify-write loop over versions and conditional writes (docs/decisions.md 64).
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>
module zarr.store;


namespace zarr {

void validate_key(std::string_view key) {
  const auto bad = [&](std::string_view why) {
    std::string shown;
    for (char c : key) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
    throw error(errc::invalid_key, "store key \"" + shown + "\": expected a relative key without " +
                                       std::string(why));
  };
  if (key.empty()) bad("being empty");
  if (key.front() == '/') bad("a leading '/' (absolute path)");
  if (key.find('\0') != std::string_view::npos) bad("NUL characters");
  if (key.find('\\') != std::string_view::npos) bad("backslashes");
  std::size_t start = 0;
  while (start <= key.size()) {
    const auto end = std::min(key.find('/', start), key.size());
    const auto segment = key.substr(start, end - start);
    if (segment.empty()) bad("empty segments");
    if (segment == "." || segment == "..") bad("'.' or '..' segments");
    start = end + 1;
  }
}

bool store::get_into(std::string_view key, bytes& out) const {
  auto value = get(key);
  if (!value) return false;
  out = std::move(*value);
  return true;
}

namespace {

class shared_value final : public stored_value {
 public:
  shared_value(std::string key, std::shared_ptr<const bytes> value) : key_(std::move(key)), value_(std::move(value)) {}
  [[nodiscard]] bytes get(std::optional<byte_range> range) const override {
    if (!range) return *value_;
    const auto [offset, length] = resolve_range(key_, *range, value_->size());
    const auto* first = value_->data() + offset;
    return bytes(first, first + length);
  }

 private:
  std::string key_;
  std::shared_ptr<const bytes> value_;
};

}  // namespace

std::unique_ptr<const stored_value> in_memory_value(std::string key, std::shared_ptr<const bytes> value) {
  return std::make_unique<const shared_value>(std::move(key), std::move(value));
}

std::unique_ptr<const stored_value> store::snapshot(std::string_view key) const {
  auto value = get(key);
  if (!value) return nullptr;
  return in_memory_value(std::string(key), std::make_shared<const bytes>(std::move(*value)));
}

std::unique_ptr<const stored_value> store::snapshot_at(std::string_view key, const value_version& version) const {
  auto value = snapshot(key);
  if (value && !version.absent() && value->is_version(version)) return value;
  throw value_changed("store key \"" + std::string(key) + "\": expected the version read before (" + version.tag +
                      "), got " + (value ? "another (" + value->version().tag + ")" : std::string("none (absent)")));
}

std::unique_ptr<const stored_value> store::snapshot_and_read(std::string_view key, byte_range first, bytes& part) const {
  auto value = snapshot(key);
  if (value) value->get_into(first, part);
  return value;
}

namespace {

void wait_until_ready(const store::item_ready& ready, std::size_t i) {
  if (!ready) return;
  while (!ready(i)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

void store::get_many(std::span<get_item> items, const item_done& done, const item_ready& ready) const {
  for (std::size_t i = 0; i < items.size(); ++i) {
    wait_until_ready(ready, i);
    items[i].found = get_into(items[i].key, items[i].value);
    if (done) done(i);
  }
}

void store::set_many(std::span<const set_item> items, const item_done& done, const item_ready& ready) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    wait_until_ready(ready, i);
    if (items[i].erase)
      erase(items[i].key);
    else
      set(items[i].key, items[i].value);
    if (done) done(i);
  }
}

std::vector<std::string> store::list_dir(std::string_view prefix) const {
  std::vector<std::string> names;
  for (const auto& key : list(prefix)) {
    const auto rest = std::string_view(key).substr(prefix.size());
    names.emplace_back(rest.substr(0, rest.find('/')));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

versioned_value store::get_versioned(std::string_view key) const { return {.value = get(key), .version = {}}; }

bool store::set_if(std::string_view key, std::span<const std::byte>, const value_version&) { fail_not_atomic(key); }

bool store::erase_if(std::string_view key, const value_version&) { fail_not_atomic(key); }

void store::fail_not_atomic(std::string_view key) const {
  throw error(errc::unsupported, "store key \"" + std::string(key) + "\": expected a store that makes updates atomic (" +
                                     missing_update_ability() +
                                     "), got one that cannot: a partial write of a chunk or shard could lose another "
                                     "writer's update; write whole chunks or shards, or declare a single writer "
                                     "(the single_writer option, zarr3 --single-writer)");
}

// The waits between tries start at least as long as a try took and may grow to this many
// tries (beyond policy.max_delay): on a store whose round trips are slow (an S3 server), the
// writers of one busy key spread out instead of colliding again and again.
constexpr unsigned cap_tries = 32;

void store::update(std::string_view key, const update_function& modify, bool single_writer, const update_policy& policy) {
  bytes out;
  if (!atomic_updates()) {
    if (!single_writer) fail_not_atomic(key);
    const auto current = get(key);
    if (!modify(current ? &*current : nullptr, out))
      set(key, out);
    else if (current)
      erase(key);
    return;
  }
  thread_local std::minstd_rand random(std::random_device{}());
  auto delay = policy.first_delay;
  for (unsigned attempt = 1;; ++attempt) {
    const auto tried = std::chrono::steady_clock::now();
    const auto current = get_versioned(key);
    const bool erase = modify(current.value ? &*current.value : nullptr, out);
    if (erase && !current.value) return;  // absent, and to stay so
    if ((erase && erases_conditionally()) ? erase_if(key, current.version) : set_if(key, out, current.version)) return;
    if (attempt >= policy.max_attempts)
      throw error(errc::io, "store key \"" + std::string(key) + "\": expected to update it within " +
                                      std::to_string(policy.max_attempts) + " tries, got another writer's change every time");
    const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - tried);
    delay = std::max(delay, took);
    std::uniform_int_distribution<long long> jitter(0, delay.count());
    std::this_thread::sleep_for(std::chrono::microseconds(jitter(random)));
    delay = std::min(delay * 2, std::max(policy.max_delay, took * cap_tries));
  }
}

}  // namespace zarr
