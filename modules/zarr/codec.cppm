// zarr.codec: the three codec interfaces of Zarr v3 core spec "Codecs" (array -> array,
// array -> bytes, bytes -> bytes) and the chain that runs them. A codec is built from its
// JSON configuration *and* the decoded representation it will receive, so every check
// ("Determination of encoded representations") happens when an array is opened or created.
module;
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec;

export import zarr.arithmetic.kernels;
export import zarr.dtype;
export import zarr.error;
export import zarr.nd;

export namespace zarr {

// The order of the bytes of a stored element's words.
enum class endian : std::uint8_t { little, big };

// A chunk's representation as an array: shape, data type and fill value (which each
// array -> array codec transforms as it passes, zarr-extensions codecs/scale_offset "Fill value handling").
struct chunk_spec {
  std::vector<std::uint64_t> shape;
  data_type type = data_type::bool_;
  scalar fill;
  element_layout layout{};  // the sized types (raw bits, fixed_length_utf32, struct): their size and fields
  std::string fill_string{};  // the variable-length types (string, bytes): the fill value's bytes

  // Bytes per element: the registry's, or the layout's for a sized type.
  [[nodiscard]] std::uint64_t element_size() const noexcept { return zarr::element_size(type, layout); }

  [[nodiscard]] std::uint64_t num_elements() const noexcept {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  // Bytes of a chunk buffer in the in-memory layout (see zarr::scalar).
  [[nodiscard]] std::uint64_t byte_size() const noexcept {
    return num_elements() * element_size();
  }
  // Whether its elements differ in length (string, bytes, optional ones): std::string objects
  // in memory, and in an array_view (array_view::strings).
  [[nodiscard]] bool variable_elements() const noexcept { return has_variable_elements(type, layout); }
  // Bytes per element of an array_view of it.
  [[nodiscard]] std::size_t view_element_size() const noexcept {
    return variable_elements() ? sizeof(std::string) : static_cast<std::size_t>(element_size());
  }
};

// Sets every element of `out` to the fill value of `spec` (its string for variable elements).
inline void fill(const array_view& out, const chunk_spec& spec) {
  if (spec.variable_elements()) fill(out, spec.fill_string);
  else fill(out, spec.fill);
}

// A chunk's decoded array, or the array a codec of its chain decodes to, read box by box
// (zarrs' partial decoders): each codec wraps the reader of the representation below it, so a
// box reads only what it needs through the whole chain (docs/decisions.md 63).
class array_reader {
 public:
  virtual ~array_reader() = default;
  // Decodes the box `box` (in the array's coordinates, inside its shape) into `out` (a view of
  // box's extent, any strides); false, with nothing written, when the stored chunk is absent.
  [[nodiscard]] virtual bool read(const region& box, const array_view& out) const = 0;
  // Whether reading `box` reads the stored chunk whole (so that a caller may fetch it
  // beforehand, in a batch), rather than byte ranges of it.
  [[nodiscard]] virtual bool reads_whole(const region& box) const = 0;
};

// The box `box` of a chunk of variable-length elements (`spec`) into `out`, a view of strings:
// decode(elements) decodes the whole chunk into `elements` (assigning every one), straight into
// `out` when the box is the chunk and `out` is contiguous, else into strings the thread keeps.
template <class Decode>
void decode_strings_box(const chunk_spec& spec, const region& box, const array_view& out, Decode&& decode) {
  if (box.covers(spec.shape) && out.c_contiguous()) {
    decode(std::span(reinterpret_cast<std::string*>(out.data), static_cast<std::size_t>(spec.num_elements())));
    return;
  }
  const thread_buffer<struct strings_box_tag, std::vector<std::string>> whole;
  whole->resize(static_cast<std::size_t>(spec.num_elements()));  // every element decoded below
  decode(std::span<std::string>(*whole));
  copy(strings_view(whole->data(), spec.shape).window(box), out);
  let_go_if_large(*whole);
}

// Calls decode(value) with the whole value `source` reads, in place when it is already in
// memory, else read into a buffer of the thread's; false, without calling it, when absent.
template <class Decode>
[[nodiscard]] bool with_whole_value(const chunk_reader& source, Decode&& decode) {
  if (const auto* held = source.in_memory()) {
    decode(*held);
    return true;
  }
  const thread_buffer<struct whole_value_tag> stored;
  if (!source.read_all(*stored)) return false;
  decode(std::span<const std::byte>(*stored));
  let_go_if_large(*stored);
  return true;
}

class codec {
 public:
  virtual ~codec() = default;
  // The registered name, e.g. "gzip".
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  // The canonical metadata object {"name": ..., "configuration": {...}} (always the
  // object form; choices made automatically are recorded).
  [[nodiscard]] virtual boost::json::value to_json() const = 0;
  // Where the codec is in its document ("codecs[1]"), for messages.
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

 protected:
  explicit codec(std::string where) : where_(std::move(where)) {}
  // "codecs[1] (gzip)": how messages name this codec.
  [[nodiscard]] std::string label() const { return where_ + " (" + std::string(name()) + ")"; }
  std::string where_;
};

class array_to_array_codec : public codec {
 public:
  // What this codec receives and produces; fixed when the codec is built.
  [[nodiscard]] virtual const chunk_spec& decoded() const noexcept = 0;
  [[nodiscard]] virtual const chunk_spec& encoded() const noexcept = 0;
  // `in` holds decoded() elements (errc::invalid_argument otherwise); returns encoded() ones.
  [[nodiscard]] bytes encode(bytes in) const;
  // The inverse: `in` holds encoded() elements.
  [[nodiscard]] bytes decode(bytes in) const;
  // An elementwise codec (element i of the output depends on element i of the input only)
  // describes a direction as one step of zarr.arithmetic.kernels, so that the chain runs
  // neighbouring ones fused, in one pass (run_steps); nothing when it cannot.
  [[nodiscard]] virtual std::optional<element_step> step(bool /*encoding*/) const { return std::nullopt; }
  // Throws what encode (or decode) throws for `r`, a failure of this codec's step.
  [[noreturn]] virtual void throw_step_error(const kernel_result& r, bool encoding) const;
  // A codec that turns the elements of a variable-length type into a fixed-size array
  // (numcodecs.categorize: strings into label numbers) takes them as strings: these three,
  // where the others throw. encode_elements returns an encoded() buffer; decode_elements
  // fills decoded().num_elements() strings from one (errc::corrupt_chunk for a bad element).
  [[nodiscard]] virtual bool takes_elements() const noexcept { return false; }
  [[nodiscard]] virtual bytes encode_elements(std::span<const std::string> elements) const;
  virtual void decode_elements(std::span<const std::byte> in, std::span<std::string> out) const;
  // Throws what encode_elements would for the first element it refuses (a write checks every
  // element before it stores anything); the others take any.
  virtual void check_elements(std::span<const std::string> /*elements*/) const {}
  // A codec that only moves whole elements (transpose, reshape) moves those of a variable-length
  // type too: element_sources(encoding) gives, for each element of the output in C order, the
  // C-order index of the input element it takes (encoding: decoded() to encoded()).
  [[nodiscard]] virtual bool moves_elements() const noexcept { return false; }
  [[nodiscard]] virtual std::vector<std::uint64_t> element_sources(bool encoding) const;
  // A reader of decoded() arrays over `below`, a reader of encoded() ones. This default reads
  // the encoded array whole once, decodes it and serves boxes of it; codecs that map a box to
  // a box below (transpose) read only that. (Elementwise codecs are read through their step().)
  [[nodiscard]] virtual std::unique_ptr<array_reader> reader(std::unique_ptr<array_reader> below) const;
  // A codec kept only to read what others wrote (a legacy one): the codecs that an array
  // rewritten in Zarr v3 uses in its place, their errors naming `where`; nothing for the others.
  [[nodiscard]] virtual std::optional<boost::json::array> replacement(std::string_view /*where*/) const {
    return std::nullopt;
  }

 protected:
  using codec::codec;
  // The same, with the sizes checked.
  [[nodiscard]] virtual bytes do_encode(bytes in) const = 0;
  [[nodiscard]] virtual bytes do_decode(bytes in) const = 0;
};

class array_to_bytes_codec : public codec {
 public:
  // The decoded representation this codec was built for.
  [[nodiscard]] virtual const chunk_spec& decoded() const noexcept = 0;
  // Encodes a chunk buffer of decoded().byte_size() bytes (errc::invalid_argument otherwise),
  // into a new buffer or into `out`, whose memory it may reuse (not overlapping `array`).
  [[nodiscard]] bytes encode(std::span<const std::byte> array) const;
  void encode_into(std::span<const std::byte> array, bytes& out) const;
  // Decodes a stored chunk into `out`, a view of decoded().shape with any strides, or into a
  // new C-order buffer.
  void decode_into(std::span<const std::byte> encoded, const array_view& out) const;
  [[nodiscard]] bytes decode(std::span<const std::byte> encoded) const;
  // A reader of decoded() arrays from the encoded bytes `source` gives (a store key, a byte
  // range of a shard, bytes already fetched, a decompressed buffer), which must outlive it.
  // This default reads the value whole once, decodes it and serves boxes of it; `bytes` reads
  // the rows a box needs, sharding its index and the inner chunks a box meets.
  [[nodiscard]] virtual std::unique_ptr<array_reader> reader(const chunk_reader& source) const;
  // True when the encoded bytes are the decoded buffer itself (the `bytes` codec in native
  // byte order): the chain then passes buffers through without calling encode or decode.
  [[nodiscard]] virtual bool as_is() const noexcept { return false; }
  // The encoded size for a fixed-size codec (the sharding index needs it).
  [[nodiscard]] virtual std::optional<std::uint64_t> encoded_size() const noexcept { return std::nullopt; }
  // The largest encoded size a valid chunk can have (a bound for the decoders before it).
  [[nodiscard]] virtual std::uint64_t max_encoded_size() const noexcept {
    return encoded_size().value_or(~std::uint64_t{0});
  }
  // The byte order the elements' words are stored in, where the codec stores them whole in
  // one (`bytes`, and sharding through its inner chain); nothing otherwise.
  [[nodiscard]] virtual std::optional<endian> byte_order() const noexcept { return std::nullopt; }

  // Codecs of the variable-length types (string, bytes: vlen-utf8, vlen-bytes) take a chunk's
  // elements as strings, not as a buffer: these three, where the others throw.
  [[nodiscard]] virtual bool variable_length() const noexcept { return false; }
  // Encodes decoded().num_elements() elements, C order.
  virtual void encode_elements(std::span<const std::string> elements, bytes& out) const;
  // Decodes a stored chunk into `out`, decoded().num_elements() elements; errc::corrupt_chunk
  // for anything that is not exactly that many well-formed elements.
  virtual void decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const;
  // Throws what encode_elements would for an element no chunk may hold (sharding asks its
  // inner chain); the others take any.
  virtual void check_elements(std::span<const std::string> /*elements*/) const {}

 protected:
  using codec::codec;
  // What the public functions call once the sizes are checked.
  virtual void do_encode_into(std::span<const std::byte> array, bytes& out) const = 0;
  // `out` is exactly decoded().byte_size() bytes, C order.
  virtual void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const = 0;
  // Into a view that is not one C-order buffer. This default decodes into a buffer of the
  // thread's and copies; sharding decodes each inner chunk straight into place.
  virtual void do_decode_into_view(std::span<const std::byte> encoded, const array_view& out) const;
};

// What a bytes -> bytes decoder may produce when nobody says less: 4 GiB.
inline constexpr std::uint64_t default_decode_limit = std::uint64_t{1} << 32;

// The output loop of a streaming decoder that cannot know its output size in advance: a buffer
// that starts at a guess from `input_size` and doubles, so that it grows with the output
// actually produced and never past `limit` + 1 bytes. step(room) decodes into `room` (never
// empty) and returns the bytes it wrote and whether the stream ended; it throws for corrupt
// input (including a stream cut short). Output beyond `limit` throws bomb() (a zarr::error).
template <class Step, class Bomb>
[[nodiscard]] bytes decode_growing(std::size_t input_size, std::uint64_t limit, Step&& step, Bomb&& bomb) {
  const std::uint64_t cap = limit == ~std::uint64_t{0} ? limit : limit + 1;
  bytes out;
  std::size_t used = 0;
  for (;;) {
    if (used == out.size()) {
      if (out.size() > limit) throw bomb();
      const std::uint64_t guess = 4 * static_cast<std::uint64_t>(input_size) + 4096;
      const std::uint64_t want = out.empty() ? guess : 2 * static_cast<std::uint64_t>(out.size());
      out.resize(static_cast<std::size_t>(want < cap ? want : cap));
    }
    const auto [written, ended] = step(std::span<std::byte>(out).subspan(used));
    used += written;
    if (ended) break;
  }
  if (used > limit) throw bomb();
  out.resize(used);
  return out;
}

class bytes_to_bytes_codec : public codec {
 public:
  [[nodiscard]] virtual bytes encode(std::span<const std::byte> in) const = 0;
  // The same into `out` (not overlapping `in`), whose memory it may reuse.
  virtual void encode_into(std::span<const std::byte> in, bytes& out) const { out = encode(in); }
  // Decodes `in`; zarr::error (corrupt_chunk) for anything that would decode to more than
  // `limit` bytes, refused before allocating more than that (a "bomb").
  [[nodiscard]] bytes decode(std::span<const std::byte> in, std::uint64_t limit = default_decode_limit) const {
    return decode_bytes(in, limit);
  }
  // Decodes `in` into `out`, which it must fill exactly (corrupt_chunk otherwise). This
  // default decodes and copies; compressors decode straight into `out`.
  virtual void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const;
  // The encoded size of `decoded_size` bytes, when it does not depend on the content.
  [[nodiscard]] virtual std::optional<std::uint64_t> encoded_size(std::uint64_t /*decoded_size*/) const noexcept {
    return std::nullopt;
  }
  // The largest encoded size of `decoded_size` bytes that any writer may produce: exact for
  // fixed sizes, else a generous bound (decoded_size + 1/4 + 1 MiB: stored blocks and frame
  // headers of every compressor stay far below it).
  [[nodiscard]] virtual std::uint64_t max_encoded_size(std::uint64_t decoded_size) const noexcept;
  // The decoded bytes of what `below` reads, as a chunk_reader (which `below` must outlive):
  // this default decodes the value whole, once, at the first read (at most `limit` bytes) and
  // serves byte ranges of it.
  [[nodiscard]] virtual std::unique_ptr<chunk_reader> reader(const chunk_reader& below, std::uint64_t limit) const;

 protected:
  using codec::codec;
  [[nodiscard]] virtual bytes decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const = 0;
};

// Choices a writer makes where the format leaves them free: whatever is chosen, the stored
// chunks decode to the same values with any reader.
enum class chunk_order : std::uint8_t {
  c,       // C order (the last dimension fastest), as other writers lay out inner chunks
  morton,  // Morton (Z) order: coordinates' bits interleaved, dimension 0's first at each level
};
struct encoding_options {
  // The order of a shard's inner chunks in the stored shard (the index stays in C order). In
  // Morton order a box of neighbouring inner chunks lies in few byte ranges, so a read of it
  // takes fewer requests; in C order a run along the last dimension does.
  chunk_order inner_chunk_order = chunk_order::c;
};

// The codecs of one array (or of a shard's inner chunks or index), resolved in order:
// array -> array*, exactly one array -> bytes, bytes -> bytes*.
class codec_chain {
 public:
  // Builds every codec of `json` (the `codecs` array of zarr.json) for chunks described by
  // `decoded`. `where` names the JSON member in errors ("codecs",
  // "codecs[0].configuration.codecs"). Throws zarr::error naming the codec that fails.
  // `document` is the text of the zarr.json the codecs come from, when there is one, so
  // that scalars in configurations (scale, offset, scalar_map) are read exactly from their
  // decimal text; `where` must then be the path of `json` inside it. `encoding` reaches every
  // codec (codec_context), nested chains too.
  codec_chain(const boost::json::value& json, const chunk_spec& decoded, std::string_view where = "codecs",
              std::string_view document = {}, const encoding_options& encoding = {});

  [[nodiscard]] const chunk_spec& decoded() const noexcept { return decoded_; }
  // True when the stored bytes are the chunk buffer itself (only `bytes`, in native order).
  [[nodiscard]] bool identity() const noexcept { return a2a_.empty() && b2b_.empty() && a2b_->as_is(); }
  // Encodes a chunk buffer (decoded().byte_size() bytes in the in-memory layout). The
  // rvalue form may reuse the buffer; the other copies it only when a codec works in place.
  // Neighbouring elementwise array -> array codecs run fused (array_to_array_codec::step).
  [[nodiscard]] bytes encode(std::span<const std::byte> chunk) const;
  [[nodiscard]] bytes encode(bytes&& chunk) const;
  // The same into `out` (not overlapping `chunk`), whose memory it reuses: a writer's buffer
  // from chunk to chunk.
  void encode_into(std::span<const std::byte> chunk, bytes& out) const;
  // Decodes a stored chunk into a new buffer, or into `out`: decoded().byte_size() bytes in
  // C order, or a view of decoded().shape with any strides. Every decoder is bounded by what
  // the codec after it can take (max_encoded_size), so a chunk that claims to decode to more
  // is refused before the memory is allocated.
  [[nodiscard]] bytes decode(std::span<const std::byte> stored) const;
  void decode_into(std::span<const std::byte> stored, std::span<std::byte> out) const;
  void decode_into(std::span<const std::byte> stored, const array_view& out) const;
  // A reader of the chunk that `source` reads (which must outlive it): the one read path. A box
  // that covers the chunk is read whole and decoded straight into place; any other goes
  // through a reader per codec, each wrapping the one below (bytes -> bytes codecs over
  // `source`, the array -> bytes codec over them, the array -> array codecs over that, with
  // neighbouring elementwise ones fused into one pass), so that it reads only what it needs.
  // Variable-length elements are read into views of strings (array_view::strings).
  [[nodiscard]] std::unique_ptr<array_reader> reader(const chunk_reader& source) const;
  // The encoded size of a chunk when every codec has a fixed size.
  [[nodiscard]] std::optional<std::uint64_t> encoded_size() const noexcept;
  // The largest encoded size of a valid chunk (see bytes_to_bytes_codec::max_encoded_size).
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept;
  [[nodiscard]] boost::json::value to_json() const;

  // The chain of a variable-length data type (string, bytes): the array -> array codecs that
  // move whole elements (transpose, reshape) move the strings, then the array -> bytes codec
  // takes them (vlen-utf8, vlen-bytes, sharding over those), then the bytes -> bytes codecs run
  // as for any chain; or an array -> array codec takes them (numcodecs.categorize), then the
  // rest of the chain runs on the fixed-size array it makes.
  [[nodiscard]] bytes encode_elements(std::span<const std::string> elements) const;
  void decode_elements(std::span<const std::byte> stored, std::span<std::string> out) const;
  // Throws what encode_elements would for the first element of `elements` (any number, in any
  // order) that no chunk may hold: a value that is no numcodecs.categorize label.
  void check_elements(std::span<const std::string> elements) const;

  [[nodiscard]] const std::vector<std::unique_ptr<array_to_array_codec>>& array_to_array() const noexcept { return a2a_; }
  [[nodiscard]] const array_to_bytes_codec& array_to_bytes() const noexcept { return *a2b_; }
  [[nodiscard]] const std::vector<std::unique_ptr<bytes_to_bytes_codec>>& bytes_to_bytes() const noexcept { return b2b_; }
  // The most bytes_to_bytes()[k] may decode to: what the codec after it can take.
  [[nodiscard]] std::uint64_t decode_limit(std::size_t k) const noexcept { return limits_[k]; }

 private:
  chunk_spec decoded_;
  std::vector<std::unique_ptr<array_to_array_codec>> a2a_;
  std::unique_ptr<array_to_bytes_codec> a2b_;
  std::vector<std::unique_ptr<bytes_to_bytes_codec>> b2b_;
  std::vector<boost::json::value> skipped_;  // unknown codecs marked "must_understand": false
  std::vector<std::uint64_t> limits_;  // per bytes -> bytes codec: the most it may decode to
  std::size_t element_codecs_ = 0;     // the leading array -> array codecs that take variable-length elements

  [[nodiscard]] const chunk_spec& decoded_by(std::size_t array_to_array) const noexcept;
  // Encodes `view` (held by *owned when given); the result goes into *into when given, else
  // it is returned.
  // The array -> array codecs run from a2a_[first] on (1 after numcodecs.categorize).
  [[nodiscard]] bytes run_encode(std::span<const std::byte> view, bytes* owned, bytes* into, std::size_t first = 0) const;
  // Decodes into *out when given (a view of decoded().shape), else into the returned buffer;
  // the array -> array codecs run down to a2a_[first] (the buffer is then decoded_by(first)'s).
  [[nodiscard]] bytes run_decode(std::span<const std::byte> stored, const array_view* out, std::size_t first = 0) const;
};

// --- the registry: one explicit table in src/zarr/codec/registry.cpp -------------------

enum class codec_kind : std::uint8_t { array_to_array, array_to_bytes, bytes_to_bytes };

// What a codec factory receives: its configuration (null when absent), the decoded
// representation at its position, and the JSON path of the codec for error messages
// ("codecs[2]"; configuration errors say "codecs[2].configuration.level").
struct codec_context {
  const boost::json::value& configuration;
  const chunk_spec& decoded;
  std::string where;
  std::string_view document;  // the zarr.json text, or empty
  encoding_options encoding{};
};

// How Zarr v2 holds a codec: as a numcodecs configuration {"id": ..., its keys} in `filters`
// or `compressor` (Zarr storage specification version 2, "Metadata"; numcodecs' ids).
struct numcodecs_form {
  // The numcodecs id; empty when numcodecs has no such codec, for the reason `why_not`.
  std::string_view id{};
  std::string_view why_not = "numcodecs has no such codec";
  // Zarr v2 keeps the codec in `compressor` when it ends the chain (else in `filters`).
  bool compressor = false;
  // A `.zarray` codec of this id reads as this row (one row per id).
  bool read_as = false;
  // numcodecs' keys from the resolved Zarr v3 configuration, and the Zarr v3 configuration
  // from numcodecs' keys (its defaults made explicit); nullptr: the same keys and values.
  boost::json::object (*to_v2)(const boost::json::object& configuration) = nullptr;
  boost::json::object (*from_v2)(boost::json::object configuration) = nullptr;
};

struct codec_entry {
  std::string_view name;
  codec_kind kind;
  std::function<std::unique_ptr<array_to_array_codec>(const codec_context&)> make_array_to_array;
  std::function<std::unique_ptr<array_to_bytes_codec>(const codec_context&)> make_array_to_bytes;
  std::function<std::unique_ptr<bytes_to_bytes_codec>(const codec_context&)> make_bytes_to_bytes;
  // Whether an array -> array or array -> bytes codec takes elements of the sized types (raw
  // bits, fixed_length_utf32, struct, optional): it moves them whole or encodes them by their
  // layout. The chain refuses the others for those types (docs/decisions.md 58, 71).
  bool takes_sized_types = false;
  numcodecs_form v2{};
};

// The row that a `.zarray`'s numcodecs id reads as (numcodecs_form::read_as); nullptr when
// there is none.
[[nodiscard]] const codec_entry* find_numcodecs(std::string_view id) noexcept;

// The built-in codecs; nullptr for an unknown name.
[[nodiscard]] const codec_entry* find_codec(std::string_view name) noexcept;
// Every built-in codec, sorted by name.
[[nodiscard]] std::span<const codec_entry> builtin_codecs() noexcept;

// One item of a list of codecs (a name, or {name, configuration, must_understand}): its
// configuration points into `item`, or at a JSON null when absent. Errors name `where`.
struct codec_item {
  std::string name;
  const boost::json::value* configuration = nullptr;
  bool must_understand = true;
};
[[nodiscard]] codec_item parse_codec_item(const boost::json::value& item, std::string_view where);

// --- helpers for codec configurations ----------------------------------------------------

// A scalar of `type` given in a configuration, at `where` ("codecs[1].configuration.scale",
// "codecs[0].configuration.scalar_map.encode[2][0]"), with the fill-value JSON rules: read
// from its exact text in ctx.document when there is one, else from `json`.
[[nodiscard]] scalar parse_scalar(const codec_context& ctx, const boost::json::value& json, std::string_view where,
                                  data_type type);
// The JSON pointer of a `where` path: "codecs[1].configuration.scale" -> "/codecs/1/configuration/scale".
[[nodiscard]] std::string json_pointer_of(std::string_view where);

// The configuration as an object: an absent (null) configuration is an empty object; any
// other non-object is an error naming `where`.
[[nodiscard]] const boost::json::object& configuration_object(const codec_context& ctx);
// The same, with every key not in `allowed` rejected (reject_unknown_keys).
[[nodiscard]] const boost::json::object& configuration_object(const codec_context& ctx,
                                                              std::initializer_list<std::string_view> allowed);
// The member `key` of `config`, which must be there: else an error naming
// `where`.configuration.`key` and what was `expected`.
[[nodiscard]] const boost::json::value& required_member(const boost::json::object& config, std::string_view key,
                                                        std::string_view where, std::string_view expected);
// A JSON non-negative integer; nothing for anything else.
[[nodiscard]] std::optional<std::uint64_t> non_negative_integer(const boost::json::value& v) noexcept;
// Rejects every key of `config` not in `allowed`, naming `where`.configuration.<key>.
void reject_unknown_keys(const boost::json::object& config, std::initializer_list<std::string_view> allowed,
                         std::string_view where);
// An integer member in [min, max], or `fallback` when absent (nothing when required and absent).
[[nodiscard]] std::int64_t integer_member(const boost::json::object& config, std::string_view key,
                                          std::int64_t min, std::int64_t max, std::optional<std::int64_t> fallback,
                                          std::string_view where);

}  // namespace zarr
