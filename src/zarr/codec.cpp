// zarr.codec: building and running a codec chain (Zarr v3 core spec "Codecs", "Determination of
// encoded representations").
module;
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json.hpp>
module zarr.codec;

import zarr.sized;

namespace zarr {
namespace json = boost::json;

namespace {

// "bytes, numcodecs.categorize, optional, ...": the codecs that take (some of) the sized types.
std::string sized_codec_names() {
  std::string out;
  for (const auto& entry : builtin_codecs())
    if (entry.takes_sized_types && entry.kind != codec_kind::bytes_to_bytes)
      out += (out.empty() ? "" : ", ") + std::string(entry.name);
  return out;
}

// "string", "optional string": how messages name a chunk's data type.
std::string type_name(const chunk_spec& s) {
  return is_sized(s.type) ? sized_type_name({s.type, {}, s.layout}) : std::string(zarr::name(s.type));
}

std::string kind_name(codec_kind k) {
  constexpr std::array<const char*, 3> names{"array -> array", "array -> bytes", "bytes -> bytes"};
  return names[static_cast<std::size_t>(k)];
}

}  // namespace

codec_item parse_codec_item(const json::value& item, std::string_view where) {
  static const json::value null;
  const std::string here(where);
  codec_item out{{}, &null, true};
  if (const auto* s = item.if_string()) {
    out.name = *s;
    return out;
  }
  const auto* o = item.if_object();
  if (o == nullptr) throw error(errc::invalid_metadata, here + ": expected a codec object or name, got " + json::serialize(item));
  const auto* n = o->if_contains("name");
  if (n == nullptr || !n->is_string())
    throw error(errc::invalid_metadata, here + ".name: expected a string, got " + (n ? json::serialize(*n) : "nothing"));
  out.name = n->as_string();
  for (const auto& [key, value] : *o) {
    if (key == "name") continue;
    if (key == "configuration") {
      out.configuration = &value;
    } else if (key == "must_understand") {
      if (!value.is_bool())
        throw error(errc::invalid_metadata, here + ".must_understand: expected a boolean, got " + json::serialize(value));
      out.must_understand = value.as_bool();
    } else {
      throw error(errc::invalid_metadata, here + ": expected only name, configuration and must_understand, got \"" +
                                              std::string(key) + "\"");
    }
  }
  return out;
}

codec_chain::codec_chain(const json::value& codecs, const chunk_spec& decoded, std::string_view where,
                         std::string_view document, const encoding_options& encoding)
    : decoded_(decoded) {
  const std::string at(where);
  const auto* list = codecs.if_array();
  if (list == nullptr) throw error(errc::invalid_metadata, at + ": expected an array, got " + json::serialize(codecs));
  if (list->empty()) throw error(errc::invalid_metadata, at + ": expected at least an array -> bytes codec, got []");
  chunk_spec current = decoded;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto here = at + "[" + std::to_string(i) + "]";
    const auto& item = (*list)[i];
    const auto [name, configuration, must_understand] = parse_codec_item(item, here);
    // Zarr v3 core spec "must_understand": an extension marked false is one implementations may
    // ignore; an unknown one is skipped, a known one is used.
    if (!must_understand && find_codec(name) == nullptr) {
      skipped_.push_back(item);
      continue;
    }
    const auto* entry = find_codec(name);
    if (entry == nullptr) throw error(errc::unsupported, here + ".name: expected a supported codec, got \"" + name + "\"");
    const codec_context ctx{*configuration, current, here, document, encoding};
    // The sized types (raw bits, fixed_length_utf32, struct, optional) are opaque blobs of their
    // layout's size: only the codecs that move whole elements or know the layout take them
    // (docs/decisions.md 58, 71).
    if (is_sized(current.type) && !entry->takes_sized_types)
      throw error(errc::unsupported, here + " (" + name + "): expected a codec that takes elements of data type " +
                                         sized_type_name({current.type, {}, current.layout}) + " (" + sized_codec_names() +
                                         "), got one that does not");
    const auto order_error = [&](std::string_view expected) {
      return error(errc::invalid_metadata, here + " (" + name + "): expected " + std::string(expected) + ", got an " +
                                               kind_name(entry->kind) + " codec");
    };
    switch (entry->kind) {
      case codec_kind::array_to_array: {
        if (a2b_) throw order_error("a bytes -> bytes codec after the array -> bytes codec");
        auto c = entry->make_array_to_array(ctx);
        if (has_variable_elements(current.type, current.layout)) {  // docs/decisions.md 60, 62, 71
          if (!c->takes_elements() && !c->moves_elements())
            throw error(errc::unsupported, here + " (" + name + "): expected an array -> array codec that moves or takes " +
                                               "elements of data type " + std::string(zarr::name(current.type)) +
                                               " (transpose, reshape, numcodecs.categorize), got one that computes with them");
          element_codecs_ = a2a_.size() + 1;
        }
        current = c->encoded();
        a2a_.push_back(std::move(c));
        break;
      }
      case codec_kind::array_to_bytes:
        if (a2b_) throw order_error("a bytes -> bytes codec after the array -> bytes codec");
        a2b_ = entry->make_array_to_bytes(ctx);
        if (has_variable_elements(current.type, current.layout) && !a2b_->variable_length())
          throw error(errc::invalid_metadata, here + " (" + name + "): expected a codec of variable-length elements (" +
                                                  (current.type == data_type::string  ? "vlen-utf8"
                                                   : current.type == data_type::bytes ? "vlen-bytes"
                                                                                      : "optional") +
                                                  ") for data type " + type_name(current) + ", got one of fixed-size elements");
        break;
      case codec_kind::bytes_to_bytes:
        if (!a2b_) throw order_error("an array -> array or array -> bytes codec before any bytes -> bytes codec");
        b2b_.push_back(entry->make_bytes_to_bytes(ctx));
        break;
    }
  }
  if (!a2b_) throw error(errc::invalid_metadata, at + ": expected exactly one array -> bytes codec, got none");
  auto size = a2b_->max_encoded_size();
  for (const auto& c : b2b_) {
    limits_.push_back(size);
    size = c->max_encoded_size(size);
  }
}

namespace {

// out[i] = in[sources[i]] (moved when `in` may be consumed).
std::vector<std::string> moved_elements(std::span<std::string> in, const std::vector<std::uint64_t>& sources) {
  std::vector<std::string> out(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) out[i] = std::move(in[static_cast<std::size_t>(sources[i])]);
  return out;
}

}  // namespace

bytes codec_chain::encode_elements(std::span<const std::string> elements) const {
  std::vector<std::string> moved;
  std::span<const std::string> current = elements;
  for (std::size_t k = 0; k < element_codecs_; ++k) {
    if (a2a_[k]->takes_elements()) {  // numcodecs.categorize: the rest of the chain takes its array
      auto array = a2a_[k]->encode_elements(current);
      return run_encode(array, &array, nullptr, k + 1);
    }
    const auto sources = a2a_[k]->element_sources(true);
    std::vector<std::string> next(sources.size());
    for (std::size_t i = 0; i < sources.size(); ++i) next[i] = current[static_cast<std::size_t>(sources[i])];
    moved = std::move(next);
    current = moved;
  }
  bytes buffer;
  a2b_->encode_elements(current, buffer);
  for (const auto& c : b2b_) buffer = c->encode(buffer);
  return buffer;
}

void codec_chain::decode_elements(std::span<const std::byte> stored, std::span<std::string> out) const {
  std::size_t k = element_codecs_;
  // The elements as the codec after the last moving one holds them.
  std::vector<std::string> held;
  const auto target = [&](std::uint64_t n) -> std::span<std::string> {
    if (k == 0) return out;
    held.assign(static_cast<std::size_t>(n), std::string());
    return held;
  };
  if (k > 0 && a2a_[k - 1]->takes_elements()) {
    --k;
    a2a_[k]->decode_elements(run_decode(stored, nullptr, k + 1), target(a2a_[k]->decoded().num_elements()));
  } else {
    bytes buffer;
    std::span<const std::byte> view = stored;
    for (std::size_t j = b2b_.size(); j-- > 0;) {
      buffer = b2b_[j]->decode(view, limits_[j]);
      view = buffer;
    }
    a2b_->decode_elements(view, target(a2b_->decoded().num_elements()));
  }
  for (; k > 0; --k) {
    auto back = moved_elements(held, a2a_[k - 1]->element_sources(false));
    if (k == 1) std::move(back.begin(), back.end(), out.begin());
    else held = std::move(back);
  }
}

void codec_chain::check_elements(std::span<const std::string> elements) const {
  for (std::size_t k = 0; k < element_codecs_; ++k) a2a_[k]->check_elements(elements);
  if (element_codecs_ == 0 || !a2a_[element_codecs_ - 1]->takes_elements()) a2b_->check_elements(elements);
}

const chunk_spec& codec_chain::decoded_by(std::size_t array_to_array) const noexcept {
  return array_to_array == 0 ? decoded_ : a2a_[array_to_array - 1]->encoded();
}

bytes codec_chain::encode(std::span<const std::byte> chunk) const { return run_encode(chunk, nullptr, nullptr); }

bytes codec_chain::encode(bytes&& chunk) const { return run_encode(chunk, &chunk, nullptr); }

void codec_chain::encode_into(std::span<const std::byte> chunk, bytes& out) const {
  (void)run_encode(chunk, nullptr, &out);
}

bytes codec_chain::run_encode(std::span<const std::byte> view, bytes* owned, bytes* into, std::size_t first) const {
  if (const auto size = decoded_by(first).byte_size(); view.size() != size)
    throw error(errc::invalid_argument, "codec chain: expected a chunk of " + std::to_string(size) + " bytes, got " +
                                            std::to_string(view.size()));
  // `buffer` holds the current array once a codec has produced it (or the caller gave it).
  bytes buffer;
  bool buffer_holds_view = owned != nullptr;
  if (buffer_holds_view) {
    buffer = std::move(*owned);
    view = buffer;
  }
  std::vector<element_step> steps;
  for (std::size_t i = first; i < a2a_.size();) {
    steps.clear();
    std::size_t j = i;
    for (; j < a2a_.size(); ++j) {
      const auto s = a2a_[j]->step(true);
      if (!s) break;
      steps.push_back(*s);
    }
    // Two or more elementwise codecs in one pass; one straight from the caller's buffer
    // rather than from a copy of it.
    if (steps.size() >= 2 || (steps.size() == 1 && !buffer_holds_view)) {
      const auto& out_spec = a2a_[j - 1]->encoded();
      bytes out(static_cast<std::size_t>(out_spec.byte_size()));
      if (const auto r = run_steps(steps, view, out); !r.ok) a2a_[i + r.step]->throw_step_error(r, true);
      buffer = std::move(out);
      i = j;
    } else {
      if (!buffer_holds_view) buffer.assign(view.begin(), view.end());
      buffer = a2a_[i]->encode(std::move(buffer));
      ++i;
    }
    buffer_holds_view = true;
    view = buffer;
  }
  bytes result;
  bytes& last = into != nullptr ? *into : result;  // what the last codec writes
  bytes staged;                                      // what a codec before it wrote
  if (!a2b_->as_is()) {
    if (b2b_.empty()) {
      a2b_->encode_into(view, last);
      return result;
    }
    staged = a2b_->encode(view);
    view = staged;
  } else if (b2b_.empty()) {
    if (buffer_holds_view) last = std::move(buffer);
    else last.assign(view.begin(), view.end());
    return result;
  }
  // The first bytes -> bytes codec reads the caller's chunk itself when `bytes` is a no-op.
  for (std::size_t k = 0; k + 1 < b2b_.size(); ++k) {
    auto next = b2b_[k]->encode(view);
    staged = std::move(next);
    view = staged;
  }
  b2b_.back()->encode_into(view, last);
  return result;
}

bytes codec_chain::decode(std::span<const std::byte> stored) const { return run_decode(stored, nullptr); }

void codec_chain::decode_into(std::span<const std::byte> stored, std::span<std::byte> out) const {
  if (out.size() != decoded_.byte_size())
    throw error(errc::invalid_argument, "codec chain: expected an output of " + std::to_string(decoded_.byte_size()) +
                                            " bytes, got " + std::to_string(out.size()));
  decode_into(stored, array_view::c_order(out.data(), decoded_.shape, static_cast<std::size_t>(decoded_.element_size())));
}

void codec_chain::decode_into(std::span<const std::byte> stored, const array_view& out) const {
  if (out.shape != decoded_.shape || out.element_size != static_cast<std::size_t>(decoded_.element_size()))
    throw error(errc::invalid_argument, "codec chain: expected an output of the chunk's shape and element size");
  (void)run_decode(stored, &out);
}

bytes codec_chain::run_decode(std::span<const std::byte> stored, const array_view* out, std::size_t first) const {
  // The first bytes -> bytes codec writes the chunk itself when nothing follows it.
  const bool direct = a2a_.empty() && a2b_->as_is() && out != nullptr && out->c_contiguous();
  const thread_buffer<struct first_decoded_tag> first_decoded;  // its output otherwise, when the size is known
  bytes buffer;
  std::span<const std::byte> view = stored;
  for (std::size_t k = b2b_.size(); k-- > 0;) {
    if (k == 0 && direct) {
      b2b_[0]->decode_into(view, std::span(out->data, static_cast<std::size_t>(decoded_.byte_size())));
      return {};
    }
    if (const auto size = a2b_->encoded_size(); k == 0 && size && *size <= kept_buffer_limit) {
      first_decoded->resize(static_cast<std::size_t>(*size));
      b2b_[0]->decode_into(view, *first_decoded);
      view = *first_decoded;
      break;
    }
    buffer = b2b_[k]->decode(view, limits_[k]);
    view = buffer;
  }
  bool buffer_holds_view = !b2b_.empty() && view.data() == buffer.data();
  if (a2b_->as_is() && view.size() == decoded_by(a2a_.size()).byte_size()) {
    // nothing to do (a wrong size goes to the codec, whose error names it)
  } else if (a2a_.empty() && out != nullptr) {
    a2b_->decode_into(view, *out);
    return {};
  } else {
    buffer = a2b_->decode(view);
    buffer_holds_view = true;
    view = buffer;
  }
  std::vector<element_step> steps;
  for (std::size_t i = a2a_.size(); i > first;) {
    steps.clear();
    std::size_t j = i;  // the run is a2a_[j, i), decoded from i - 1 down to j
    for (; j > first; --j) {
      const auto s = a2a_[j - 1]->step(false);
      if (!s) break;
      steps.push_back(*s);
    }
    if (steps.size() >= 2 || (steps.size() == 1 && !buffer_holds_view)) {
      if (j == 0 && out != nullptr && out->c_contiguous()) {
        const std::span<std::byte> into(out->data, static_cast<std::size_t>(decoded_.byte_size()));
        if (const auto r = run_steps(steps, view, into); !r.ok) a2a_[i - 1 - r.step]->throw_step_error(r, false);
        return {};
      }
      bytes next(static_cast<std::size_t>(decoded_by(j).byte_size()));
      if (const auto r = run_steps(steps, view, next); !r.ok) a2a_[i - 1 - r.step]->throw_step_error(r, false);
      buffer = std::move(next);
      i = j;
    } else {
      if (!buffer_holds_view) buffer.assign(view.begin(), view.end());
      buffer = a2a_[i - 1]->decode(std::move(buffer));
      --i;
    }
    buffer_holds_view = true;
    view = buffer;
  }
  if (out != nullptr) {
    if (view.size() != decoded_.byte_size())
      throw error(errc::corrupt_chunk, "expected " + std::to_string(decoded_.byte_size()) + " decoded bytes, got " +
                                           std::to_string(view.size()));
    copy(const_array_view::c_order(view.data(), decoded_.shape, out->element_size), *out);
    return {};
  }
  if (!buffer_holds_view) buffer.assign(view.begin(), view.end());
  return buffer;
}

namespace {

void check_box(const region& box, std::span<const std::uint64_t> shape, const array_view& out, std::uint64_t element_size) {
  bool inside = box.start.size() == shape.size() && box.stop.size() == shape.size();
  for (std::size_t i = 0; inside && i < shape.size(); ++i) inside = box.start[i] <= box.stop[i] && box.stop[i] <= shape[i];
  if (!inside || !box.has_extent(out.shape) || out.element_size != element_size)
    throw error(errc::invalid_argument, "codec chain: expected a box inside the chunk and an output of its extent");
}

// Neighbouring elementwise array -> array codecs, decoding in one fused pass: the same box of
// the array below, read in its type, then the steps.
class steps_reader final : public array_reader {
 public:
  steps_reader(std::unique_ptr<array_reader> below, std::vector<element_step> steps,
               std::vector<const array_to_array_codec*> codecs, std::size_t below_size)
      : below_(std::move(below)), steps_(std::move(steps)), codecs_(std::move(codecs)), below_size_(below_size) {}

  [[nodiscard]] bool read(const region& box, const array_view& out) const override {
    const auto extent = box.extent();
    const auto n = static_cast<std::size_t>(box.num_elements());
    const thread_buffer<struct steps_below_tag> below;
    below->resize(n * below_size_);
    if (!below_->read(box, array_view::c_order(below->data(), extent, below_size_))) return false;
    const thread_buffer<struct steps_decoded_tag> decoded;
    std::span<std::byte> into;
    if (out.c_contiguous()) {
      into = std::span(out.data, n * out.element_size);
    } else {
      decoded->resize(n * out.element_size);
      into = *decoded;
    }
    if (const auto r = run_steps(steps_, *below, into); !r.ok) codecs_[r.step]->throw_step_error(r, false);
    if (!out.c_contiguous()) copy(const_array_view::c_order(into.data(), extent, out.element_size), out);
    let_go_if_large(*below);
    let_go_if_large(*decoded);
    return true;
  }
  [[nodiscard]] bool reads_whole(const region& box) const override { return below_->reads_whole(box); }

 private:
  std::unique_ptr<array_reader> below_;
  std::vector<element_step> steps_;                 // decoding order
  std::vector<const array_to_array_codec*> codecs_;  // of each step
  std::size_t below_size_;                          // bytes per element below
};

// The one read path of a chunk: a box that covers it is read whole and decoded into place;
// any other goes through the readers of the chain's codecs, built at the first such read.
// Variable-length elements (a view of strings) take the same path, except through array ->
// array codecs (transpose, reshape, numcodecs.categorize): the chunk decoded whole, a box copied.
class chain_reader final : public array_reader {
 public:
  chain_reader(const codec_chain& chain, const chunk_reader& source) : chain_(chain), source_(source) {}

  [[nodiscard]] bool read(const region& box, const array_view& out) const override {
    const auto& spec = chain_.decoded();
    check_box(box, spec.shape, out, spec.view_element_size());
    if (spec.variable_elements() && (box.covers(spec.shape) || !chain_.array_to_array().empty()))
      return with_whole_value(source_, [&](std::span<const std::byte> stored) {
        decode_strings_box(spec, box, out, [&](std::span<std::string> elements) { chain_.decode_elements(stored, elements); });
      });
    if (box.covers(spec.shape))
      return with_whole_value(source_, [&](std::span<const std::byte> stored) { chain_.decode_into(stored, out); });
    return parts().read(box, out);
  }
  [[nodiscard]] bool reads_whole(const region& box) const override {
    const auto& spec = chain_.decoded();
    return box.covers(spec.shape) || (spec.variable_elements() && !chain_.array_to_array().empty()) ||
           parts().reads_whole(box);
  }

 private:
  const array_reader& parts() const {
    if (top_) return *top_;
    const chunk_reader* below = &source_;
    const auto& b2b = chain_.bytes_to_bytes();
    for (std::size_t k = b2b.size(); k-- > 0;) {
      sources_.push_back(b2b[k]->reader(*below, chain_.decode_limit(k)));
      below = sources_.back().get();
    }
    auto r = chain_.array_to_bytes().reader(*below);
    const auto& a2a = chain_.array_to_array();
    for (std::size_t i = a2a.size(); i > 0;) {
      std::vector<element_step> steps;
      std::vector<const array_to_array_codec*> codecs;
      std::size_t j = i;  // the run a2a[j, i), decoded from i - 1 down to j
      for (; j > 0; --j) {
        const auto s = a2a[j - 1]->step(false);
        if (!s) break;
        steps.push_back(*s);
        codecs.push_back(a2a[j - 1].get());
      }
      if (steps.empty()) {
        r = a2a[i - 1]->reader(std::move(r));
        --i;
      } else {
        const auto below_size = static_cast<std::size_t>(a2a[i - 1]->encoded().element_size());
        r = std::make_unique<steps_reader>(std::move(r), std::move(steps), std::move(codecs), below_size);
        i = j;
      }
    }
    top_ = std::move(r);
    return *top_;
  }

  const codec_chain& chain_;
  const chunk_reader& source_;
  mutable std::vector<std::unique_ptr<chunk_reader>> sources_;  // the bytes -> bytes codecs' readers
  mutable std::unique_ptr<array_reader> top_;
};

}  // namespace

std::unique_ptr<array_reader> codec_chain::reader(const chunk_reader& source) const {
  return std::make_unique<chain_reader>(*this, source);
}

std::optional<std::uint64_t> codec_chain::encoded_size() const noexcept {
  auto size = a2b_->encoded_size();
  for (const auto& c : b2b_) {
    if (!size) return std::nullopt;
    size = c->encoded_size(*size);
  }
  return size;
}

std::uint64_t codec_chain::max_encoded_size() const noexcept {
  auto size = a2b_->max_encoded_size();
  for (const auto& c : b2b_) size = c->max_encoded_size(size);
  return size;
}

json::value codec_chain::to_json() const {
  json::array out;
  for (const auto& c : a2a_) out.push_back(c->to_json());
  out.push_back(a2b_->to_json());
  for (const auto& c : b2b_) out.push_back(c->to_json());
  for (const auto& c : skipped_) out.push_back(c);  // kept, so that a rewrite loses nothing
  return out;
}

void array_to_array_codec::throw_step_error(const kernel_result& r, bool encoding) const {
  throw error(to_errc(r.error), std::string(name()) + (encoding ? " encode" : " decode") + ", element " +
                                    std::to_string(r.index) + ": " + std::string(to_string(r.error)));
}

namespace {

void check_chunk_size(const std::string& label, const chunk_spec& spec, std::size_t got) {
  if (got != spec.byte_size())
    throw error(errc::invalid_argument, label + ": expected a chunk of " + std::to_string(spec.byte_size()) +
                                            " bytes, got " + std::to_string(got));
}

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

bytes array_to_array_codec::encode(bytes in) const {
  check_chunk_size(label(), decoded(), in.size());
  return do_encode(std::move(in));
}

bytes array_to_array_codec::decode(bytes in) const {
  check_chunk_size(label(), encoded(), in.size());
  return do_decode(std::move(in));
}

void bytes_to_bytes_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto decoded = decode(in, out.size());
  if (decoded.size() != out.size())
    throw error(errc::corrupt_chunk, std::string(name()) + ": expected " + std::to_string(out.size()) +
                                         " decoded bytes, got " + std::to_string(decoded.size()));
  if (!decoded.empty()) std::memcpy(out.data(), decoded.data(), decoded.size());
}

std::uint64_t bytes_to_bytes_codec::max_encoded_size(std::uint64_t decoded_size) const noexcept {
  if (const auto fixed = encoded_size(decoded_size)) return *fixed;
  const std::uint64_t slack = decoded_size / 4 + (std::uint64_t{1} << 20);
  return decoded_size > ~std::uint64_t{0} - slack ? ~std::uint64_t{0} : decoded_size + slack;
}

bytes array_to_array_codec::encode_elements(std::span<const std::string> /*elements*/) const {
  throw error(errc::invalid_argument, label() + ": expected a chunk buffer of fixed-size elements, got strings");
}

void array_to_array_codec::decode_elements(std::span<const std::byte> /*in*/, std::span<std::string> /*out*/) const {
  throw error(errc::invalid_argument, label() + ": decodes to fixed-size elements, not to strings");
}

std::vector<std::uint64_t> array_to_array_codec::element_sources(bool /*encoding*/) const {
  throw error(errc::invalid_argument, label() + ": computes with elements, not only moves them");
}

void array_to_bytes_codec::encode_elements(std::span<const std::string> /*elements*/, bytes& /*out*/) const {
  throw error(errc::invalid_argument, label() + ": expected a chunk buffer of fixed-size elements, got strings");
}

void array_to_bytes_codec::decode_elements(std::span<const std::byte> /*encoded*/, std::span<std::string> /*out*/) const {
  throw error(errc::invalid_argument, label() + ": decodes to fixed-size elements, not to strings");
}

bytes array_to_bytes_codec::encode(std::span<const std::byte> array) const {
  bytes out;
  encode_into(array, out);
  return out;
}

void array_to_bytes_codec::encode_into(std::span<const std::byte> array, bytes& out) const {
  check_chunk_size(label(), decoded(), array.size());
  do_encode_into(array, out);
}

void array_to_bytes_codec::decode_into(std::span<const std::byte> encoded, const array_view& out) const {
  const auto& spec = decoded();
  if (out.shape != spec.shape || out.element_size != static_cast<std::size_t>(spec.element_size()))
    throw error(errc::invalid_argument, label() + ": expected an output of shape " + shape_text(spec.shape) + ", got " +
                                            shape_text(out.shape));
  if (out.c_contiguous())
    do_decode_into(encoded, std::span(out.data, static_cast<std::size_t>(spec.byte_size())));
  else
    do_decode_into_view(encoded, out);
}

bytes array_to_bytes_codec::decode(std::span<const std::byte> encoded) const {
  const auto& spec = decoded();
  bytes out(static_cast<std::size_t>(spec.byte_size()));
  decode_into(encoded, array_view::c_order(out.data(), spec.shape, static_cast<std::size_t>(spec.element_size())));
  return out;
}

void array_to_bytes_codec::do_decode_into_view(std::span<const std::byte> encoded, const array_view& out) const {
  const auto& spec = decoded();
  const thread_buffer<struct chunk_tag> chunk;
  chunk->resize(static_cast<std::size_t>(spec.byte_size()));
  do_decode_into(encoded, *chunk);
  copy(const_array_view::c_order(chunk->data(), spec.shape, out.element_size), out);
  let_go_if_large(*chunk);
}

}  // namespace zarr
