// zarr.codec: the readers of a codec that has none of its own (docs/decisions.md 63): an
// array -> bytes or array -> array codec decodes the whole chunk and serves a box of it, a
// bytes -> bytes codec decodes the value below whole, once, and serves byte ranges of it.
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
module zarr.codec;

namespace zarr {

namespace {

// The box `box` of a whole array held in C order in `whole`, into `out`.
void copy_box(std::span<const std::byte> whole, std::span<const std::uint64_t> shape, const region& box, const array_view& out) {
  copy(const_array_view::c_order(whole.data(), shape, out.element_size).window(box), out);
}

// The default array -> bytes reader: the stored value read and decoded whole, a box copied out.
class whole_value_reader final : public array_reader {
 public:
  whole_value_reader(const array_to_bytes_codec& codec, const chunk_reader& source) : codec_(codec), source_(source) {}

  [[nodiscard]] bool read(const region& box, const array_view& out) const override {
    const auto& spec = codec_.decoded();
    return with_whole_value(source_, [&](std::span<const std::byte> stored) {
      if (spec.variable_elements()) {
        decode_strings_box(spec, box, out, [&](std::span<std::string> elements) { codec_.decode_elements(stored, elements); });
        return;
      }
      if (box.covers(spec.shape)) {
        codec_.decode_into(stored, out);
        return;
      }
      const thread_buffer<struct whole_value_chunk_tag> chunk;
      chunk->resize(static_cast<std::size_t>(spec.byte_size()));
      codec_.decode_into(stored, array_view::c_order(chunk->data(), spec.shape, out.element_size));
      copy_box(*chunk, spec.shape, box, out);
      let_go_if_large(*chunk);
    });
  }
  [[nodiscard]] bool reads_whole(const region& /*box*/) const override { return true; }

 private:
  const array_to_bytes_codec& codec_;
  const chunk_reader& source_;
};

// The default array -> array reader: the encoded array read whole from below, decoded, a box
// copied out.
class whole_array_reader final : public array_reader {
 public:
  whole_array_reader(const array_to_array_codec& codec, std::unique_ptr<array_reader> below)
      : codec_(codec), below_(std::move(below)) {}

  [[nodiscard]] bool read(const region& box, const array_view& out) const override {
    const auto& encoded = codec_.encoded();
    bytes buffer(static_cast<std::size_t>(encoded.byte_size()));
    const auto encoded_size = static_cast<std::size_t>(encoded.element_size());
    if (!below_->read(region::all(encoded.shape), array_view::c_order(buffer.data(), encoded.shape, encoded_size)))
      return false;
    const auto decoded = codec_.decode(std::move(buffer));
    copy_box(decoded, codec_.decoded().shape, box, out);
    return true;
  }
  [[nodiscard]] bool reads_whole(const region& /*box*/) const override {
    return below_->reads_whole(region::all(codec_.encoded().shape));
  }

 private:
  const array_to_array_codec& codec_;
  std::unique_ptr<array_reader> below_;
};

// The default bytes -> bytes reader: the value below decoded whole (once, for byte ranges).
class decoded_bytes_reader final : public chunk_reader {
 public:
  decoded_bytes_reader(const bytes_to_bytes_codec& codec, const chunk_reader& below, std::uint64_t limit)
      : codec_(codec), below_(below), limit_(limit) {}

  [[nodiscard]] bool read_all(bytes& out) const override {
    if (!load()) return false;
    out.assign(value_.begin(), value_.end());
    return true;
  }
  [[nodiscard]] std::optional<bytes> read(byte_range range) const override {
    if (!load()) return std::nullopt;
    const auto [offset, length] = resolve_range(codec_.name(), range, value_.size());
    const auto part = std::span<const std::byte>(value_).subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    return bytes(part.begin(), part.end());
  }
  [[nodiscard]] const std::span<const std::byte>* in_memory() const noexcept override {
    return loaded_ && present_ ? &view_ : nullptr;
  }
  [[nodiscard]] bool ranges_read_whole() const noexcept override { return true; }

 private:
  bool load() const {
    if (!loaded_) {
      const thread_buffer<struct decoded_bytes_stored_tag> stored;
      present_ = below_.read_all(*stored);
      if (present_) value_ = codec_.decode(*stored, limit_);
      view_ = value_;
      loaded_ = true;
    }
    return present_;
  }

  const bytes_to_bytes_codec& codec_;
  const chunk_reader& below_;
  std::uint64_t limit_;
  mutable bool loaded_ = false, present_ = false;
  mutable bytes value_;
  mutable std::span<const std::byte> view_;
};

}  // namespace

std::unique_ptr<array_reader> array_to_bytes_codec::reader(const chunk_reader& source) const {
  return std::make_unique<whole_value_reader>(*this, source);
}

std::unique_ptr<array_reader> array_to_array_codec::reader(std::unique_ptr<array_reader> below) const {
  return std::make_unique<whole_array_reader>(*this, std::move(below));
}

std::unique_ptr<chunk_reader> bytes_to_bytes_codec::reader(const chunk_reader& below, std::uint64_t limit) const {
  return std::make_unique<decoded_bytes_reader>(*this, below, limit);
}

}  // namespace zarr
