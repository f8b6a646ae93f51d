# Arrays of the optional data type, laid out byte by byte from the specs alone (no Zarr library),
# for zarr.tests.codec (tests/zarr/codec/array_to_bytes/optional.test.cpp). The specs, in
# zarr-extensions (open proposals codecs/optional and data-types/optional, their READMEs):
#   "The encoded format consists of: 1. 8 bytes: mask length (u64 little-endian) ... 2. 8 bytes:
#   data length (u64 little-endian) ... 3. N bytes: encoded mask ... 4. M bytes: encoded data -
#   the result of applying the data codec chain to the flattened bytes of only valid elements."
#   "The value of the fill_value metadata key MUST be null or a single element array containing
#   any valid fill value of the underlying data type."
# The mask is a bool array of the chunk's shape; the data a one-dimensional array of the valid
# elements (none at all when there are none, as zarrs writes it). packbits (codecs/packbits):
# element i's bit at bit i % 8 of byte i / 8, least significant first; bytes (Zarr v3 core
# "bytes"): each element in the given byte order; vlen-utf8 and vlen-bytes (codecs/vlen-utf8,
# vlen-bytes): the count, then each element's length and bytes, uint32 little-endian; gzip:
# RFC 1952.
#
#   optional_from_spec.py write OUT   OUT/<case>/zarr.json and chunks, OUT/<case>/expected.bin:
#                                     each element in C order as this library holds it in memory
#                                     (docs/decisions.md 71): the value's bytes (little-endian;
#                                     zeros when null, none for a string or bytes), then 1 for
#                                     a value or 0 for null; for strings and bytes each element
#                                     after its length (uint32 little-endian);
#                                     OUT/cases.json lists the cases and which are of strings
#   optional_from_spec.py check DIR   decodes each case's chunks in DIR (written by the library
#                                     from expected.bin) by the spec and compares them with the
#                                     values here; exit 1 naming the first difference
import gzip
import json
import struct
import sys
from pathlib import Path

try:
    import numpy as np
except ImportError:
    sys.exit(3)  # the peer is missing (tests/support.hpp peer_module_missing)

NULL = None


class Some:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Some) and self.value == other.value

    def __repr__(self):
        return f"Some({self.value!r})"


def packbits(bools):
    out = bytearray((len(bools) + 7) // 8)
    for i, b in enumerate(bools):
        out[i // 8] |= int(b) << (i % 8)
    return bytes(out)


def unpackbits(data, n):
    return [(data[i // 8] >> (i % 8)) & 1 for i in range(n)]


# A case: name, the data type JSON, the numpy type of the innermost value, how deep optional
# nests, the array's shape and chunk shape, the mask and data chains at each level (as names the
# functions below know), the fill value JSON, and the values (None, or Some(...) nested).
def grid_values(shape, depth, make):
    n = int(np.prod(shape))
    return [make(i) for i in range(n)]


def int16_value(i):
    if i % 5 == 1 or 12 <= i < 24:  # a chunk all null among the others
        return NULL
    return Some(int((i * 1237) % 65536 - 32768))


def float32_value(i):
    return NULL if i % 3 == 0 else Some(float(np.float32(i / 4 - 3.3)))


def nested_value(i):
    k = i % 4
    return NULL if k == 0 else Some(NULL) if k == 1 else Some(Some(int(i * 7919 - 40000)))


def bool_value(i):
    return NULL if i % 4 == 0 else Some(i % 3 == 0)


def string_value(i):
    return NULL if i % 3 == 1 else Some("" if i % 7 == 0 else "\u00e9t\u00e9 %d \U0001F600" % i)


def nested_bytes_value(i):
    k = i % 3
    return NULL if k == 0 else Some(NULL) if k == 1 else Some(Some(bytes(range(i, 2 * i))))


CASES = [
    dict(name="int16_bytes_gzip", inner="int16", np="<i2", depth=1, shape=[5, 7], chunks=[3, 4],
         mask=["bytes"], data=["bytes_le", "gzip"], fill=None, make=int16_value),
    dict(name="float32_packbits_big", inner="float32", np="<f4", depth=1, shape=[4, 3, 5], chunks=[2, 3, 5],
         mask=["packbits"], data=["bytes_be"], fill=[1.5], make=float32_value),
    dict(name="nested_int32", inner="int32", np="<i4", depth=2, shape=[10], chunks=[4],
         mask=["bytes"], data=["bytes_le"], fill=[None], make=nested_value),
    dict(name="bool_packbits", inner="bool", np="|b1", depth=1, shape=[19], chunks=[19],
         mask=["packbits"], data=["packbits"], fill=[True], make=bool_value),
    dict(name="string_vlen_utf8_gzip", inner="string", np=None, depth=1, shape=[3, 5], chunks=[2, 3],
         mask=["packbits"], data=["vlen-utf8", "gzip"], fill=["zz"], make=string_value),
    dict(name="nested_bytes_vlen", inner="bytes", np=None, depth=2, shape=[7], chunks=[4],
         mask=["bytes"], data=["vlen-bytes"], fill=None, make=nested_bytes_value),
]

CODEC_JSON = {
    "bytes": {"name": "bytes"},
    "bytes_le": {"name": "bytes", "configuration": {"endian": "little"}},
    "bytes_be": {"name": "bytes", "configuration": {"endian": "big"}},
    "gzip": {"name": "gzip", "configuration": {"level": 5}},
    "packbits": {"name": "packbits"},
    "vlen-utf8": {"name": "vlen-utf8"},
    "vlen-bytes": {"name": "vlen-bytes"},
}


def chain_json(case, depth):
    data = [CODEC_JSON[c] for c in case["data"]]
    for _ in range(depth - 1):
        data = [{"name": "optional", "configuration": {"mask_codecs": [CODEC_JSON[c] for c in case["mask"]],
                                                        "data_codecs": data}}]
    return [{"name": "optional", "configuration": {"mask_codecs": [CODEC_JSON[c] for c in case["mask"]],
                                                    "data_codecs": data}}]


def type_json(case):
    t = {"name": case["inner"]}
    for _ in range(case["depth"]):
        t = {"name": "optional", "configuration": t}
    return t


def encode_values(case, values):
    """The bytes of the innermost values through the data chain of the innermost level."""
    out = b""
    for step in case["data"]:
        if step in ("vlen-utf8", "vlen-bytes"):
            items = [v.encode("utf-8") if step == "vlen-utf8" else v for v in values]
            out = struct.pack("<I", len(items)) + b"".join(struct.pack("<I", len(b)) + b for b in items)
            continue
        dt = np.dtype(case["np"])
        if step == "bytes_le" or step == "bytes":
            out = np.array(values, dtype=dt.newbyteorder("<")).tobytes()
        elif step == "bytes_be":
            out = np.array(values, dtype=dt.newbyteorder(">")).tobytes()
        elif step == "packbits":
            out = packbits(values)
        elif step == "gzip":
            out = gzip.compress(out, compresslevel=5, mtime=0)
    return out


def decode_values(case, data, n):
    for step in reversed(case["data"]):
        if step in ("vlen-utf8", "vlen-bytes"):
            (count,) = struct.unpack_from("<I", data)
            assert count == n, (count, n)
            out, at = [], 4
            for _ in range(count):
                (length,) = struct.unpack_from("<I", data, at)
                item = data[at + 4:at + 4 + length]
                out.append(item.decode("utf-8") if step == "vlen-utf8" else item)
                at += 4 + length
            assert at == len(data)
            return out
        dt = np.dtype(case["np"])
        if step == "gzip":
            data = gzip.decompress(data)
        elif step == "packbits":
            return [bool(b) for b in unpackbits(data, n)]
        else:
            order = ">" if step == "bytes_be" else "<"
            arr = np.frombuffer(data, dtype=dt.newbyteorder(order))
            assert len(arr) == n, (len(arr), n)
            return [v.item() for v in arr]


def encode_mask(case, mask):
    return packbits(mask) if case["mask"] == ["packbits"] else bytes(mask)


def decode_mask(case, data, n):
    if case["mask"] == ["packbits"]:
        return unpackbits(data, n)
    assert len(data) == n and all(b in (0, 1) for b in data), data
    return list(data)


def encode_level(case, values, depth):
    """codec-optional.md "Encoding": mask, the valid elements, both chains, the two lengths."""
    mask = [0 if v is NULL else 1 for v in values]
    valid = [v.value for v in values if v is not NULL]
    if not valid:
        data = b""  # no valid element: no data (as zarrs writes it)
    elif depth > 1:
        data = encode_level(case, valid, depth - 1)
    else:
        data = encode_values(case, valid)
    m = encode_mask(case, mask)
    return struct.pack("<QQ", len(m), len(data)) + m + data


def decode_level(case, blob, n, depth):
    mask_len, data_len = struct.unpack_from("<QQ", blob)
    assert len(blob) == 16 + mask_len + data_len, (len(blob), mask_len, data_len)
    mask = decode_mask(case, blob[16:16 + mask_len], n)
    count = sum(mask)
    data = blob[16 + mask_len:]
    if count == 0:
        valid = []
    elif depth > 1:
        valid = decode_level(case, data, count, depth - 1)
    else:
        valid = decode_values(case, data, count)
    it = iter(valid)
    return [Some(next(it)) if m else NULL for m in mask]


def memory_bytes(case, v, depth):
    """docs/decisions.md 71: the value's bytes, then the validity byte."""
    if case["np"] is None:  # a string or bytes: none when null
        if v is NULL:
            return b"\x00"
        if depth > 1:
            return memory_bytes(case, v.value, depth - 1) + b"\x01"
        return (v.value.encode("utf-8") if case["inner"] == "string" else v.value) + b"\x01"
    size = np.dtype(case["np"]).itemsize + (depth - 1)
    if v is NULL:
        return bytes(size + 1)
    if depth > 1:
        return memory_bytes(case, v.value, depth - 1) + b"\x01"
    return np.array([v.value], dtype=np.dtype(case["np"]).newbyteorder("<")).tobytes() + b"\x01"


def from_fill(fill, depth):
    return NULL if fill is None else Some(from_fill(fill[0], depth - 1) if depth > 1 else fill[0])


def chunks_of(case):
    shape, chunks = case["shape"], case["chunks"]
    grid = [(s + c - 1) // c for s, c in zip(shape, chunks)]
    for index in np.ndindex(*grid):
        box = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(index, chunks, shape))
        yield index, box


def chunk_values(case, values, box):
    """The chunk's elements in C order: the array's inside it, the fill value past its edge."""
    shape, chunks = case["shape"], case["chunks"]
    full = np.empty(int(np.prod(shape)), dtype=object)
    full[:] = values
    full = full.reshape(shape)
    out = np.empty(chunks, dtype=object)
    out[...] = from_fill(case["fill"], case["depth"])
    inside = tuple(slice(0, b.stop - b.start) for b in box)
    out[inside] = full[box]
    return list(out.ravel())


def write(out):
    names = []
    for case in CASES:
        d = out / case["name"]
        d.mkdir(parents=True)
        values = grid_values(case["shape"], case["depth"], case["make"])
        meta = {"zarr_format": 3, "node_type": "array", "shape": case["shape"], "data_type": type_json(case),
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": case["chunks"]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": case["fill"],
                "codecs": chain_json(case, case["depth"]), "attributes": {}}
        (d / "zarr.json").write_text(json.dumps(meta))
        for index, box in chunks_of(case):
            key = d / "c" / "/".join(str(i) for i in index)
            key.parent.mkdir(parents=True, exist_ok=True)
            key.write_bytes(encode_level(case, chunk_values(case, values, box), case["depth"]))
        elements = [memory_bytes(case, v, case["depth"]) for v in values]
        if case["np"] is None:
            elements = [struct.pack("<I", len(e)) + e for e in elements]
        (d / "expected.bin").write_bytes(b"".join(elements))
        names.append({"name": case["name"], "strings": case["np"] is None})
    (out / "cases.json").write_text(json.dumps(names))


def check(root):
    for case in CASES:
        d = root / case["name"]
        values = grid_values(case["shape"], case["depth"], case["make"])
        fill = from_fill(case["fill"], case["depth"])
        n = int(np.prod(case["chunks"]))
        for index, box in chunks_of(case):
            key = d / "c" / "/".join(str(i) for i in index)
            want = chunk_values(case, values, box)
            got = decode_level(case, key.read_bytes(), n, case["depth"]) if key.exists() else [fill] * n
            if got != want:
                print(f"{case['name']}: chunk {index}: decoded {got}, expected {want}", file=sys.stderr)
                sys.exit(1)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(Path(sys.argv[2]))
    else:
        check(Path(sys.argv[2]))
