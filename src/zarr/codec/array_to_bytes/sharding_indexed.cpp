// sharding_indexed: the binary shard format of Zarr v3 codecs/sharding_indexed "Binary shard
// format". Inner chunks are written in C order, or in Morton order when the writer asks
// (encoding_options: the spec leaves their placement free, the index says where each is);
// those holding only the fill value are left out (offset = nbytes = 2^64 - 1).
module;
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.sharding_indexed;

import zarr.parallel;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr std::uint64_t empty_entry = ~std::uint64_t{0};
constexpr std::uint64_t max_inner_chunks = std::uint64_t{1} << 59;

// The inner chunk shape: positive integers.
std::vector<std::uint64_t> parse_chunk_shape(const json::value* shape, const std::string& at) {
  if (shape == nullptr || !shape->is_array())
    throw error(errc::invalid_metadata, at + ": expected an array of positive integers, got " +
                                            (shape ? json::serialize(*shape) : "nothing"));
  std::vector<std::uint64_t> out;
  for (const auto& d : shape->as_array()) {
    const auto n = non_negative_integer(d);
    if (!n || *n == 0) throw error(errc::invalid_metadata, at + ": expected positive integers, got " + json::serialize(*shape));
    out.push_back(*n);
  }
  return out;
}

// Whether the highest set bit of x is below that of y.
bool below_in_top_bit(std::uint64_t x, std::uint64_t y) { return x < y && x < (x ^ y); }

// The inner chunks 0..count-1 (C order of a grid of `extent`) in Morton order: two positions
// compare in the dimension whose coordinates differ in the highest bit, dimension 0 first
// among equals, which is the order of their interleaved bits, at any number of bits.
std::vector<std::uint64_t> morton_order(std::span<const std::uint64_t> extent, std::uint64_t count) {
  const auto rank = extent.size();
  std::vector<std::uint64_t> coords(static_cast<std::size_t>(count) * rank);
  for (std::uint64_t k = 0; k < count; ++k)
    for (std::size_t i = rank, rest = static_cast<std::size_t>(k); i-- > 0;) {
      coords[static_cast<std::size_t>(k) * rank + i] = rest % extent[i];
      rest /= static_cast<std::size_t>(extent[i]);
    }
  std::vector<std::uint64_t> order(static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
    const auto* x = &coords[static_cast<std::size_t>(a) * rank];
    const auto* y = &coords[static_cast<std::size_t>(b) * rank];
    std::size_t top = 0;
    std::uint64_t top_bits = 0;
    for (std::size_t i = 0; i < rank; ++i)
      if (below_in_top_bit(top_bits, x[i] ^ y[i])) {
        top = i;
        top_bits = x[i] ^ y[i];
      }
    return x[top] < y[top];
  });
  return order;
}

}  // namespace

sharding_configuration sharding_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"chunk_shape", "codecs", "index_codecs", "index_location"});
  const auto at = ctx.where + ".configuration.";
  sharding_configuration c;
  c.chunk_shape = parse_chunk_shape(config.if_contains("chunk_shape"), at + "chunk_shape");
  c.codecs = required_member(config, "codecs", ctx.where, "an array of codecs");
  c.index_codecs = required_member(config, "index_codecs", ctx.where, "an array of codecs");
  if (const auto* loc = config.if_contains("index_location")) {
    if (*loc == json::value("end")) c.index_at_end = true;
    else if (*loc == json::value("start")) c.index_at_end = false;
    else throw error(errc::invalid_metadata, at + "index_location: expected \"start\" or \"end\", got " + json::serialize(*loc));
  }
  return c;
}

json::value sharding_configuration::to_json() const {
  json::array shape;
  for (auto d : chunk_shape) shape.push_back(d);
  return json::object{{"name", "sharding_indexed"},
                      {"configuration", json::object{{"chunk_shape", shape},
                                                     {"codecs", codecs},
                                                     {"index_codecs", index_codecs},
                                                     {"index_location", index_at_end ? "end" : "start"}}}};
}

sharding_indexed_codec::sharding_indexed_codec(const sharding_configuration& config, const chunk_spec& decoded,
                                               const std::string& where, std::string_view document,
                                               const encoding_options& encoding)
    : array_to_bytes_codec(where), config_(config), shard_(decoded) {
  const auto at = where + ".configuration.";
  if (config.chunk_shape.size() != decoded.shape.size())
    throw error(errc::invalid_metadata, at + "chunk_shape: expected " + std::to_string(decoded.shape.size()) +
                                            " dimensions (the rank of the shard), got " + std::to_string(config.chunk_shape.size()));
  for (std::size_t i = 0; i < decoded.shape.size(); ++i) {
    if (decoded.shape[i] % config.chunk_shape[i] != 0)
      throw error(errc::invalid_metadata, at + "chunk_shape[" + std::to_string(i) + "]: expected a divisor of the shard size " +
                                              std::to_string(decoded.shape[i]) + ", got " + std::to_string(config.chunk_shape[i]));
    chunks_per_shard_.push_back(decoded.shape[i] / config.chunk_shape[i]);
    // The index holds 16 bytes per inner chunk: its size must stay representable.
    if (__builtin_mul_overflow(inner_count_, chunks_per_shard_.back(), &inner_count_) || inner_count_ > max_inner_chunks)
      throw error(errc::invalid_metadata, at + "chunk_shape: expected at most 2^59 inner chunks per shard (an index within 2^63 bytes), got more (" +
                                              std::to_string(decoded.shape[i] / config.chunk_shape[i]) + " along dimension " +
                                              std::to_string(i) + ")");
  }
  inner_ = std::make_unique<codec_chain>(config.codecs,
                                         chunk_spec{config.chunk_shape, decoded.type, decoded.fill, decoded.layout, decoded.fill_string},
                                         at + "codecs", document, encoding);
  if (encoding.inner_chunk_order == chunk_order::morton) stored_order_ = morton_order(chunks_per_shard_, inner_count_);
  auto index_shape = chunks_per_shard_;
  index_shape.push_back(2);
  index_ = std::make_unique<codec_chain>(config.index_codecs,
                                         chunk_spec{index_shape, data_type::uint64, scalar::of(data_type::uint64, empty_entry)},
                                         at + "index_codecs", document);
  const auto size = index_->encoded_size();
  if (!size)
    throw error(errc::invalid_metadata, at + "index_codecs: expected codecs of a fixed encoded size (no compression), got " +
                                            json::serialize(config.index_codecs));
  index_size_ = *size;
}

json::value sharding_indexed_codec::to_json() const {
  auto resolved = config_;  // the codecs as they resolved (blosc's typesize recorded, ...)
  resolved.codecs = inner_->to_json();
  resolved.index_codecs = index_->to_json();
  return resolved.to_json();
}

void sharding_indexed_codec::do_encode_into(std::span<const std::byte> shard, bytes& out) const {
  const auto size = static_cast<std::size_t>(shard_.element_size());
  const auto& inner_shape = config_.chunk_shape;
  const std::uint64_t inner_bytes = chunk_spec{inner_shape, shard_.type, shard_.fill, shard_.layout}.byte_size();
  // Inner chunks are encoded in parallel (when this shard is not itself one of several
  // being encoded in parallel), then laid out (lay_out).
  const thread_buffer<struct encoded_inner_chunks_tag, std::vector<bytes>> encoded_inner_chunks;
  auto& encoded = *encoded_inner_chunks;
  encoded.resize(static_cast<std::size_t>(inner_count_));
  std::vector<char> present(encoded.size(), 0);
  const auto whole = const_array_view::c_order(shard.data(), shard_.shape, size);
  parallel_for(encoded.size(), [&](std::size_t k) {
    const thread_buffer<struct gathered_inner_chunk_tag> gathered;
    auto& inner = *gathered;
    inner.resize(static_cast<std::size_t>(inner_bytes));
    copy(whole.window(origin_of(k), inner_shape), array_view::c_order(inner.data(), inner_shape, size));
    if (!all_equal(inner, shard_.fill)) {
      inner_->encode_into(inner, encoded[k]);
      present[k] = 1;
    }
    let_go_if_large(inner);
  });
  lay_out(encoded, present, out);
  std::size_t kept = 0;  // a compressor's buffer keeps room for the whole inner chunk
  for (const auto& e : encoded) kept += e.capacity();
  if (kept > kept_buffer_limit) std::vector<bytes>().swap(encoded);
}

void sharding_indexed_codec::lay_out(const std::vector<bytes>& encoded, const std::vector<char>& present, bytes& out) const {
  // Offsets count from the start of the shard: past the index when it comes first.
  std::vector<std::uint64_t> index(inner_count_ * 2, empty_entry);
  std::uint64_t offset = config_.index_at_end ? 0 : index_size_;
  const auto stored_at = [&](std::size_t n) { return stored_order_.empty() ? n : static_cast<std::size_t>(stored_order_[n]); };
  for (std::size_t n = 0; n < encoded.size(); ++n) {
    const auto k = stored_at(n);
    if (present[k] == 0) continue;
    index[2 * k] = offset;
    index[2 * k + 1] = encoded[k].size();
    offset += encoded[k].size();
  }
  bytes index_array(index.size() * 8);
  if (!index.empty()) std::memcpy(index_array.data(), index.data(), index_array.size());
  const auto encoded_index = index_->encode(std::move(index_array));
  out.resize(static_cast<std::size_t>(offset + (config_.index_at_end ? index_size_ : 0)));
  std::byte* p = out.data();
  if (!config_.index_at_end) p = std::copy(encoded_index.begin(), encoded_index.end(), p);
  for (std::size_t n = 0; n < encoded.size(); ++n)
    if (const auto k = stored_at(n); present[k] != 0) p = std::copy(encoded[k].begin(), encoded[k].end(), p);
  if (config_.index_at_end) std::copy(encoded_index.begin(), encoded_index.end(), p);
}

void sharding_indexed_codec::encode_elements(std::span<const std::string> elements, bytes& out) const {
  if (elements.size() != shard_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected " + std::to_string(shard_.num_elements()) + " elements, got " +
                                            std::to_string(elements.size()));
  std::vector<bytes> encoded(static_cast<std::size_t>(inner_count_));
  std::vector<char> present(encoded.size(), 0);
  parallel_for(encoded.size(), [&](std::size_t k) {
    const auto at = elements_of(k);
    std::vector<std::string> inner(at.size());
    bool only_fill = true;
    for (std::size_t i = 0; i < at.size(); ++i) {
      inner[i] = elements[static_cast<std::size_t>(at[i])];
      only_fill = only_fill && inner[i] == shard_.fill_string;
    }
    if (only_fill) return;
    try {
      encoded[k] = inner_->encode_elements(inner);
    } catch (const error& e) {
      throw error(e.code(), label() + ": inner chunk " + std::to_string(k) + ": " + e.what());
    }
    present[k] = 1;
  });
  lay_out(encoded, present, out);
}

void sharding_indexed_codec::decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const {
  if (out.size() != shard_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected room for " + std::to_string(shard_.num_elements()) +
                                            " elements, got " + std::to_string(out.size()));
  const auto index = stored_index(encoded);
  parallel_for(static_cast<std::size_t>(inner_count_), [&](std::size_t k) {
    const auto at = elements_of(k);
    if (index[2 * k] == empty_entry) {
      for (const auto i : at) out[static_cast<std::size_t>(i)] = shard_.fill_string;
      return;
    }
    std::vector<std::string> inner(at.size());
    try {
      inner_->decode_elements(encoded.subspan(index[2 * k], index[2 * k + 1]), inner);
    } catch (const error& e) {
      throw error(e.code(), label() + ": inner chunk " + std::to_string(k) + ": " + e.what());
    }
    for (std::size_t i = 0; i < at.size(); ++i) out[static_cast<std::size_t>(at[i])] = std::move(inner[i]);
  });
}

std::vector<std::uint64_t> sharding_indexed_codec::elements_of(std::uint64_t k) const {
  const auto origin = origin_of(k);
  const auto& inner = config_.chunk_shape;
  const auto rank = inner.size();
  std::uint64_t n = 1;
  for (auto d : inner) n *= d;
  std::vector<std::uint64_t> out;
  out.reserve(static_cast<std::size_t>(n));
  std::vector<std::uint64_t> at(rank, 0);
  for (std::uint64_t e = 0; e < n; ++e) {
    std::uint64_t flat = 0;
    for (std::size_t i = 0; i < rank; ++i) flat = flat * shard_.shape[i] + origin[i] + at[i];
    out.push_back(flat);
    for (std::size_t i = rank; i-- > 0;) {
      if (++at[i] < inner[i]) break;
      at[i] = 0;
    }
  }
  return out;
}

std::vector<std::uint64_t> sharding_indexed_codec::origin_of(std::uint64_t k) const {
  std::vector<std::uint64_t> origin(chunks_per_shard_.size());
  for (std::size_t i = origin.size(); i-- > 0;) {
    origin[i] = (k % chunks_per_shard_[i]) * config_.chunk_shape[i];
    k /= chunks_per_shard_[i];
  }
  return origin;
}

std::vector<std::uint64_t> sharding_indexed_codec::decode_index(std::span<const std::byte> encoded,
                                                                std::optional<std::uint64_t> shard_size) const {
  const auto raw = index_->decode(encoded);
  if (raw.size() != inner_count_ * 16)
    throw error(errc::corrupt_chunk, label() + ": expected an index of " + std::to_string(inner_count_ * 16) +
                                         " bytes, got " + std::to_string(raw.size()));
  std::vector<std::uint64_t> index(inner_count_ * 2);
  if (!raw.empty()) std::memcpy(index.data(), raw.data(), raw.size());  // a shard of no inner chunks: none
  // Without the shard's size (a partial read), ranges are only kept from wrapping around.
  const auto size = shard_size.value_or(empty_entry - 1);
  for (std::uint64_t k = 0; k < inner_count_; ++k) {
    const auto offset = index[2 * k], nbytes = index[2 * k + 1];
    if (offset == empty_entry && nbytes == empty_entry) continue;
    // Inner chunks never share the index's bytes (nor each other's: below).
    const bool outside = offset > size || nbytes > size - offset;
    const bool into_index = !outside && nbytes > 0 &&
                            (config_.index_at_end ? shard_size && offset + nbytes > size - index_size_ : offset < index_size_);
    if (!outside && !into_index) continue;
    const auto expected = outside ? "within the shard's " + std::to_string(size)
                                  : "outside the index (" + std::string(config_.index_at_end ? "the last " : "the first ") +
                                        std::to_string(index_size_) + " bytes of the shard)";
    throw error(errc::corrupt_chunk, label() + ": inner chunk " + std::to_string(k) + ": expected bytes " + expected +
                                         ", got offset " + std::to_string(offset) + " and length " + std::to_string(nbytes));
  }
  // No two inner chunks share bytes: the layout is free, but a writer of this format never
  // points two entries at the same bytes, so an index that does is damaged or hostile.
  std::vector<std::uint64_t> order;
  for (std::uint64_t k = 0; k < inner_count_; ++k)
    if (index[2 * k] != empty_entry && index[2 * k + 1] > 0) order.push_back(k);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return index[2 * a] < index[2 * b]; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto prev = order[i - 1], k = order[i];
    if (index[2 * k] < index[2 * prev] + index[2 * prev + 1])
      throw error(errc::corrupt_chunk, label() + ": inner chunk " + std::to_string(k) +
                                           ": expected bytes no other inner chunk uses, got offset " + std::to_string(index[2 * k]) +
                                           " and length " + std::to_string(index[2 * k + 1]) + ", overlapping inner chunk " +
                                           std::to_string(prev) + " (offset " + std::to_string(index[2 * prev]) + ", length " +
                                           std::to_string(index[2 * prev + 1]) + ")");
  }
  return index;
}

void sharding_indexed_codec::decode_inner(std::span<const std::byte> stored, std::uint64_t inner,
                                          const array_view& out) const {
  try {
    inner_->decode_into(stored, out);
  } catch (const error& e) {
    throw error(e.code(), label() + ": inner chunk " + std::to_string(inner) + ": " + e.what());
  }
}

void sharding_indexed_codec::read_inner(const chunk_reader& stored, std::uint64_t inner, const region& box,
                                        const array_view& out) const {
  try {
    if (!inner_->reader(stored)->read(box, out)) throw error(errc::corrupt_chunk, "the shard vanished while reading");
  } catch (const error& e) {
    throw error(e.code(), label() + ": inner chunk " + std::to_string(inner) + ": " + e.what());
  }
}

void sharding_indexed_codec::do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const {
  decode_all(encoded, array_view::c_order(out.data(), shard_.shape, static_cast<std::size_t>(shard_.element_size())));
}

std::vector<std::uint64_t> sharding_indexed_codec::stored_index(std::span<const std::byte> encoded) const {
  if (encoded.size() < index_size_)
    throw error(errc::corrupt_chunk, label() + ": expected a shard of at least " + std::to_string(index_size_) +
                                         " bytes (its index), got " + std::to_string(encoded.size()));
  const auto index_bytes = config_.index_at_end ? encoded.subspan(encoded.size() - index_size_) : encoded.first(index_size_);
  return decode_index(index_bytes, encoded.size());
}

void sharding_indexed_codec::decode_all(std::span<const std::byte> encoded, const array_view& out) const {
  const auto index = stored_index(encoded);
  parallel_for(static_cast<std::size_t>(inner_count_), [&](std::size_t k) {
    const auto place = out.window(origin_of(k), config_.chunk_shape);
    if (index[2 * k] == empty_entry)
      fill(place, shard_.fill);
    else
      decode_inner(encoded.subspan(index[2 * k], index[2 * k + 1]), k, place);
  });
}

// A shard read in part: its index (decoded once per stored version where the reader has a
// cache), then the inner chunks a box meets. Inner chunks the box covers, or whose chain
// reads them whole anyway, are fetched by where their bytes are in the shard: neighbours at most
// range_merge_gap bytes apart with one request (docs/decisions.md 38), and those requests in
// flight together (chunk_reader::read_ranges). An inner chunk met in part
// whose chain reads ranges (a nested shard, `bytes` alone) is read through that chain's reader
// over its byte range of the shard, so a nested shard reads its index and what the box needs.
class sharding_indexed_codec::shard_reader final : public array_reader {
  // What a read works in, kept by the thread (one per depth: a nested shard reads within).
  struct group {
    std::size_t first, last;  // in `fetched`
  };
  struct scratch {
    std::vector<std::pair<std::uint64_t, std::size_t>> fetched;  // offset, part
    std::vector<group> groups;
    std::vector<byte_range> ranges;                 // of each group
    std::vector<std::span<const std::byte>> pieces;  // each group's bytes
    std::vector<bytes> read;                         // where they were read into
  };
  static constexpr std::size_t kept_at_most = 64;  // inner chunks' worth of scratch kept after a read

 public:
  shard_reader(const sharding_indexed_codec& codec, const chunk_reader& source) : codec_(codec), source_(source) {}

  [[nodiscard]] bool read(const region& box, const array_view& out) const override {
    const auto& c = codec_;
    if (box.covers(c.shard_.shape))
      return with_whole_value(source_, [&](std::span<const std::byte> stored) {
        if (c.shard_.variable_elements())
          decode_strings_box(c.shard_, box, out, [&](std::span<std::string> elements) { c.decode_elements(stored, elements); });
        else
          c.decode_all(stored, out);
      });
    const auto kept = source_.derived(c.decoded_index_.id(), [&]() -> chunk_reader::derived_value {
      const auto encoded_index =
          source_.read(c.config_.index_at_end ? byte_range::last(c.index_size_) : byte_range{0, c.index_size_, false});
      if (!encoded_index) return {};
      // The shard's size is not known here: ranges past its end fail when read.
      auto index = std::make_shared<const std::vector<std::uint64_t>>(c.decode_index(*encoded_index, std::nullopt));
      const auto size = index->size() * sizeof(std::uint64_t);
      return {std::move(index), size};
    });
    if (!kept) return false;
    const auto& index = *static_cast<const std::vector<std::uint64_t>*>(kept.get());
    const auto inner_of = [&](const cell_part& part) {
      std::uint64_t k = 0;
      for (std::size_t i = 0; i < part.cell.size(); ++i) k = k * c.chunks_per_shard_[i] + part.cell[i];
      return k;
    };
    const kept_cell_parts parts(c.config_.chunk_shape, box);
    const thread_buffer<scratch, scratch> work;
    auto& [fetched, groups, ranges, pieces, read] = *work;
    fetched.clear();
    groups.clear();
    ranges.clear();
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const auto k = inner_of(parts[p]);
      const auto place = [&] { return out.window(parts[p].in_region, parts[p].in_cell); };
      if (index[2 * k] == empty_entry) {
        fill(place(), c.shard_);
        continue;
      }
      const byte_range_reader stored(source_, index[2 * k], index[2 * k + 1]);
      // (An inner chunk the box covers reads whole: no reader is needed to say so.)
      if (source_.in_memory() == nullptr && !parts[p].in_cell.covers(c.config_.chunk_shape) &&
          !c.inner_->reader(stored)->reads_whole(parts[p].in_cell))
        c.read_inner(stored, k, parts[p].in_cell, place());
      else
        fetched.emplace_back(index[2 * k], p);
    }
    std::sort(fetched.begin(), fetched.end());
    const auto size_of = [&](std::size_t i) { return index[2 * inner_of(parts[fetched[i].second]) + 1]; };
    for (std::size_t first = 0; first < fetched.size();) {
      const auto start = fetched[first].first;
      auto end = start + size_of(first);
      auto last = first;
      while (last + 1 < fetched.size() && fetched[last + 1].first <= end + range_merge_gap) {
        ++last;
        end = std::max(end, fetched[last].first + size_of(last));
      }
      groups.push_back({first, last});
      ranges.push_back(byte_range{start, end - start, false});
      first = last + 1;
    }
    // Every group's bytes at once: one batch of requests in flight together on a remote store.
    pieces.assign(groups.size(), {});
    if (const auto* held = source_.in_memory()) {
      for (std::size_t g = 0; g < groups.size(); ++g) {
        const auto [offset, length] = resolve_range("shard", ranges[g], held->size());
        pieces[g] = held->subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
      }
    } else if (!groups.empty()) {
      if (!source_.read_ranges(ranges, read))
        throw error(errc::corrupt_chunk, c.label() + ": inner chunk " +
                                             std::to_string(inner_of(parts[fetched.front().second])) +
                                             ": the shard vanished while reading");
      for (std::size_t g = 0; g < groups.size(); ++g) pieces[g] = read[g];
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (auto i = groups[g].first; i <= groups[g].last; ++i) {
        const auto& part = parts[fetched[i].second];
        const auto k = inner_of(part);
        const buffer_chunk_reader stored(pieces[g].subspan(static_cast<std::size_t>(index[2 * k] - ranges[g].offset),
                                                           static_cast<std::size_t>(index[2 * k + 1])));
        std::optional<array_view> window;
        c.read_inner(stored, k, part.in_cell, out.window(part.in_region, part.in_cell, window));
      }
    }
    for (auto& piece : read) let_go_if_large(piece);
    if (fetched.capacity() > kept_at_most) *work = {};
    return true;
  }

  [[nodiscard]] bool reads_whole(const region& box) const override {
    return box.covers(codec_.shard_.shape) || source_.ranges_read_whole();
  }

 private:
  const sharding_indexed_codec& codec_;
  const chunk_reader& source_;
};

std::unique_ptr<array_reader> sharding_indexed_codec::reader(const chunk_reader& source) const {
  return std::make_unique<shard_reader>(*this, source);
}

std::uint64_t sharding_indexed_codec::max_encoded_size() const noexcept {
  const auto inner = inner_->max_encoded_size();
  constexpr auto most = ~std::uint64_t{0};
  if (inner != 0 && inner_count_ > (most - index_size_) / inner) return most;
  return index_size_ + inner_count_ * inner;
}

std::unique_ptr<array_to_bytes_codec> make_sharding_indexed_codec(const codec_context& ctx) {
  return std::make_unique<sharding_indexed_codec>(sharding_configuration::parse(ctx), ctx.decoded, ctx.where, ctx.document,
                                                  ctx.encoding);
}

}  // namespace zarr
