// zarr.codec.reshape: parsing `shape`, resolving it against the decoded shape with every
// rule of zarr-extensions codecs/reshape (docs/decisions.md 21 for the prefix rule), and the no-copy
// encode/decode (the C-order bytes of A are the C-order bytes of B).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.reshape;

namespace zarr {
namespace json = boost::json;

namespace {

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

// The product of `values`, or nothing when it does not fit in 64 bits.
std::optional<std::uint64_t> product(std::span<const std::uint64_t> values) {
  std::uint64_t p = 1;
  for (auto v : values)
    if (__builtin_mul_overflow(p, v, &p)) return std::nullopt;
  return p;
}

std::string product_text(std::optional<std::uint64_t> p) { return p ? std::to_string(*p) : "2^64 or more"; }

}  // namespace

reshape_dimension::reshape_dimension(std::int64_t n) : form(n == -1 ? kind::inferred : kind::size) {
  if (n == 0 || n < -1)
    throw error(errc::invalid_argument, "reshape: expected a positive size, -1 or a list of input dimensions, got " +
                                            std::to_string(n));
  if (n > 0) size = static_cast<std::uint64_t>(n);
}

reshape_configuration reshape_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"shape"});
  const auto at = ctx.where + ".configuration.shape";
  const auto* v = config.if_contains("shape");
  constexpr const char* what = "expected an array of sizes, input dimension lists or -1";
  if (v == nullptr) throw error(errc::invalid_metadata, at + ": " + what + ", got nothing");
  const auto* list = v->if_array();
  if (list == nullptr) throw error(errc::invalid_metadata, at + ": " + what + ", got " + json::serialize(*v));
  if (list->empty())
    throw error(errc::invalid_metadata, at + ": expected at least one output dimension, got []");
  reshape_configuration out;
  std::optional<std::size_t> inferred;        // the entry that is -1
  std::optional<std::size_t> last_dim;        // the last input dimension seen, flattened
  for (std::size_t j = 0; j < list->size(); ++j) {
    const auto& item = (*list)[j];
    const auto here = at + "[" + std::to_string(j) + "]";
    reshape_dimension d;
    if (const auto* dims = item.if_array()) {
      d.form = reshape_dimension::kind::input_dims;
      for (std::size_t m = 0; m < dims->size(); ++m) {
        const auto& e = (*dims)[m];
        const auto there = here + "[" + std::to_string(m) + "]";
        const auto index = non_negative_integer(e);
        if (!index)
          throw error(errc::invalid_metadata, there + ": expected an input dimension index (a non-negative integer), got " +
                                                  json::serialize(e));
        const auto n = *index;
        const auto dim = static_cast<std::size_t>(n);
        if (last_dim && dim <= *last_dim)
          throw error(errc::invalid_metadata,
                      there + ": expected input dimensions in strictly increasing order over the whole shape " +
                          "(reshape keeps C order and never transposes), got " + std::to_string(dim) + " after " +
                          std::to_string(*last_dim) + " in " + json::serialize(*v));
        last_dim = dim;
        d.input_dims.push_back(dim);
      }
    } else if (const auto* i = item.if_int64()) {
      if (*i == -1) {
        if (inferred)
          throw error(errc::invalid_metadata, here + ": expected at most one -1, got a second one (shape[" +
                                                  std::to_string(*inferred) + "] is -1 too)");
        inferred = j;
        d.form = reshape_dimension::kind::inferred;
      } else if (*i > 0) {
        d.size = static_cast<std::uint64_t>(*i);
      } else {
        throw error(errc::invalid_metadata, here + ": expected a positive size, a list of input dimensions or -1, got " +
                                                std::to_string(*i));
      }
    } else if (const auto* u = item.if_uint64()) {
      d.size = *u;  // above INT64_MAX: positive
    } else {
      throw error(errc::invalid_metadata, here + ": expected a positive size, a list of input dimensions or -1, got " +
                                              json::serialize(item));
    }
    out.shape.push_back(std::move(d));
  }
  return out;
}

json::value reshape_configuration::to_json() const {
  json::array list;
  for (const auto& d : shape) {
    switch (d.form) {
      case reshape_dimension::kind::size: list.push_back(d.size); break;
      case reshape_dimension::kind::inferred: list.push_back(-1); break;
      case reshape_dimension::kind::input_dims: {
        json::array dims;
        for (auto i : d.input_dims) dims.push_back(static_cast<std::uint64_t>(i));
        list.push_back(std::move(dims));
        break;
      }
    }
  }
  return json::object{{"name", "reshape"}, {"configuration", json::object{{"shape", std::move(list)}}}};
}

reshape_codec::reshape_codec(reshape_configuration config, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), config_(std::move(config)), decoded_(decoded), encoded_(decoded) {
  const auto at = where_ + ".configuration.shape";
  const auto& a = decoded_.shape;
  const auto& entries = config_.shape;
  const auto rank = a.size();
  const auto a_count = product(a);
  if (!a_count)
    throw error(errc::invalid_metadata, at + ": expected a chunk of at most 2^64 elements, got the chunk shape " + shape_text(a));
  std::vector<std::uint64_t> b(entries.size(), 1);
  std::optional<std::size_t> inferred;
  for (std::size_t j = 0; j < entries.size(); ++j) {
    const auto& e = entries[j];
    const auto here = at + "[" + std::to_string(j) + "]";
    switch (e.form) {
      case reshape_dimension::kind::size: b[j] = e.size; break;
      case reshape_dimension::kind::inferred: inferred = j; break;
      case reshape_dimension::kind::input_dims: {
        std::vector<std::uint64_t> sizes;
        for (std::size_t m = 0; m < e.input_dims.size(); ++m) {
          const auto dim = e.input_dims[m];
          if (dim >= rank)
            throw error(errc::invalid_metadata, here + "[" + std::to_string(m) + "]: expected an input dimension below " +
                                                    std::to_string(rank) + " (the chunk shape is " + shape_text(a) +
                                                    "), got " + std::to_string(dim));
          sizes.push_back(a[dim]);
        }
        const auto p = product(sizes);
        if (!p)
          throw error(errc::invalid_metadata, here + ": expected input dimensions whose sizes multiply to less than 2^64, got " +
                                                  shape_text(sizes));
        b[j] = *p;
        break;
      }
    }
  }
  if (inferred) {
    const auto here = at + "[" + std::to_string(*inferred) + "]";
    std::vector<std::uint64_t> others;
    for (std::size_t j = 0; j < b.size(); ++j)
      if (j != *inferred) others.push_back(b[j]);
    const auto known = product(others);
    if (!known || *known == 0 || *a_count % *known != 0)
      throw error(errc::invalid_metadata,
                  here + ": expected -1 to stand for a whole size: the chunk " + shape_text(a) + " has " +
                      product_text(a_count) + " elements, the other entries of shape multiply to " +
                      product_text(known) + (known && *known != 0 ? ", which does not divide it" : ""));
    b[*inferred] = *a_count / *known;
  }
  const auto b_count = product(b);
  if (!b_count || b_count != a_count)
    throw error(errc::invalid_metadata, at + ": expected output dimensions with as many elements as the chunk " +
                                            shape_text(a) + " (" + product_text(a_count) + "), got " + shape_text(b) +
                                            " (" + product_text(b_count) + ")");
  // Dimensions given as input_dims must index the raveled input the way the output does:
  // what lies before (and after) them in B must be exactly what lies before (after) them in A.
  for (std::size_t j = 0; j < entries.size(); ++j) {
    const auto& dims = entries[j].input_dims;
    if (entries[j].form != reshape_dimension::kind::input_dims || dims.empty()) continue;
    const auto here = at + "[" + std::to_string(j) + "]";
    const auto b_before = product(std::span(b).first(j));
    const auto a_before = product(std::span(a).first(dims.front()));
    if (!b_before || b_before != a_before)
      throw error(errc::invalid_metadata,
                  here + ": expected the output dimensions before it to multiply to " + product_text(a_before) +
                      " (prod(A_shape[:" + std::to_string(dims.front()) + "]), chunk shape " + shape_text(a) +
                      "), got " + product_text(b_before) + " (output shape " + shape_text(b) + ")");
    const auto b_after = product(std::span(b).subspan(j + 1));
    const auto a_after = product(std::span(a).subspan(dims.back() + 1));
    if (!b_after || b_after != a_after)
      throw error(errc::invalid_metadata,
                  here + ": expected the output dimensions after it to multiply to " + product_text(a_after) +
                      " (prod(A_shape[" + std::to_string(dims.back() + 1) + ":]), chunk shape " + shape_text(a) +
                      "), got " + product_text(b_after) + " (output shape " + shape_text(b) + ")");
  }
  encoded_.shape = std::move(b);
}

json::value reshape_codec::to_json() const {
  return config_.to_json();
}

bytes reshape_codec::do_encode(bytes in) const {
  return in;
}

bytes reshape_codec::do_decode(bytes in) const {
  return in;
}

std::vector<std::uint64_t> reshape_codec::element_sources(bool /*encoding*/) const {
  std::vector<std::uint64_t> sources(static_cast<std::size_t>(decoded_.num_elements()));
  for (std::size_t i = 0; i < sources.size(); ++i) sources[i] = i;
  return sources;
}

std::unique_ptr<array_to_array_codec> make_reshape_codec(const codec_context& ctx) {
  return std::make_unique<reshape_codec>(reshape_configuration::parse(ctx), ctx.decoded, ctx.where);
}

}  // namespace zarr
