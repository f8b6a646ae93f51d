# The string and bytes data types with a real peer, for zarr.tests.strings
# (tests/zarr/array/strings.test.cpp), with Debian's zarr-python 2 and numcodecs (/usr/bin/python3).
#   numcodecs_strings.py write OUT
#     OUT/v2.zarr        Zarr v2 object arrays that zarr-python 2 writes (vlen-utf8, vlen-bytes,
#                        categorize, pickle in every protocol, json2, msgpack2)
#     OUT/v3.zarr        Zarr v3 arrays made by hand from the registry's examples (data-types/string,
#                        data-types/bytes), their chunks encoded by numcodecs' VLenUTF8 / VLenBytes
#                        (and Zstd), the layout of codecs/vlen-utf8 and codecs/vlen-bytes; and a
#                        numcodecs.categorize array, its chunks numcodecs' Categorize.encode;
#                        numcodecs.pickle arrays of strings and bytes, their chunks numcodecs'
#                        Pickle.encode; numcodecs.msgpack2 arrays of bytes, their chunks
#                        numcodecs' MsgPack.encode; and
#                        transpose, reshape and sharding_indexed over vlen-utf8 / vlen-bytes, laid out
#                        as those codecs' specs say
#     OUT/chunks.json    numcodecs' encoding of some chunks, base64
#     OUT/manifest.json  each array: path, shape, and its values as zarr-python reads them, C order
#                        (strings as JSON strings, bytes as base64)
#   numcodecs_strings.py read STORE PATH
#     prints the values of the v2 array at PATH as zarr-python 2 reads them (JSON, as above)
#   numcodecs_strings.py decode ID FILE...
#     prints, for each FILE, what numcodecs' codec ID (pickle, msgpack2) decodes it to:
#     {"shape", "dtype", "values"}
import base64
import json
import struct
import sys
import warnings
from pathlib import Path

try:
    import numcodecs
    import numpy as np
    import zarr
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)


def as_json(values):
    out = []
    for v in np.asarray(values, dtype=object).reshape(-1):
        if isinstance(v, bytes):
            out.append({"b64": base64.b64encode(v).decode()})
        elif isinstance(v, str):
            out.append(v)
        else:
            out.append({"other": repr(v)})  # zarr-python 2's fill 0 for object arrays
    return out


TEXT = ["", "a", "h\u00e9llo", "\u20ac", "\U0001F600 emoji", "x" * 1000, "tab\tnew\nline", "nul\x00inside", "\u4e2d\u6587"]
BYTES = [b"", b"\x00\x01", b"\xff" * 10, b"zz", bytes(range(256))]


def crc32c(data):
    # CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as codecs/crc32c defines it.
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def write(out):
    out.mkdir(parents=True, exist_ok=True)
    store = zarr.DirectoryStore(str(out / "v2.zarr"))
    root = zarr.group(store=store, overwrite=True)
    cases = []

    def case(path, z, version=2):
        cases.append({"path": path, "version": version, "shape": list(z.shape), "values": as_json(z[...])})

    a = root.create_dataset("utf8_1d", shape=(len(TEXT),), chunks=(4,), dtype=str)
    a[:] = TEXT
    case("utf8_1d", a)
    b = root.create_dataset("utf8_2d_zlib", shape=(4, 5), chunks=(3, 2), dtype=object,
                            object_codec=numcodecs.VLenUTF8(), compressor=numcodecs.Zlib(level=5), fill_value="")
    b[...] = np.array([["r%dc%d\u00df" % (i, j) * (i + j) for j in range(5)] for i in range(4)], dtype=object)
    case("utf8_2d_zlib", b)
    c = root.create_dataset("utf8_fill_missing", shape=(5,), chunks=(2,), dtype=object,
                            object_codec=numcodecs.VLenUTF8(), fill_value="fill", compressor=None)
    c[0] = "q"
    case("utf8_fill_missing", c)
    d = root.create_dataset("utf8_default_fill", shape=(3,), chunks=(2,), dtype=str)
    case("utf8_default_fill", d)
    e = root.create_dataset("bytes_1d", shape=(len(BYTES),), chunks=(3,), dtype=object,
                            object_codec=numcodecs.VLenBytes(), compressor=numcodecs.Zstd(level=3))
    e[:] = np.array(BYTES, dtype=object)
    case("bytes_1d", e)
    f = root.create_dataset("bytes_default_fill", shape=(4,), chunks=(3,), dtype=object,
                            object_codec=numcodecs.VLenBytes(), compressor=None)
    f[0:3] = np.array([b"a", b"b", b"c"], dtype=object)
    case("bytes_default_fill", f)
    # categorize: zarr-python 2 takes it as the object codec (with a FutureWarning); the last
    # chunk stays missing (fill 0, read as the empty string).
    labels = ["female", "male", "\u00e9t\u00e9", "x" * 300]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        g = root.create_dataset("categorize_zlib", shape=(8,), chunks=(3,), dtype=object,
                                filters=[numcodecs.Categorize(labels, dtype=object)], compressor=numcodecs.Zlib(level=1))
        g[0:6] = np.array(["male", "female", "", "\u00e9t\u00e9", "x" * 300, "male"], dtype=object)
        h = root.create_dataset("categorize_u2_2d", shape=(3, 4), chunks=(2, 3), dtype=object,
                                filters=[numcodecs.Categorize(labels[:2], dtype=object, astype=">u2")], compressor=None)
        h[...] = np.array([["male", "female", "", "male"], ["", "", "female", "male"], ["female"] * 4], dtype=object)
    case("categorize_zlib", g)
    case("categorize_u2_2d", h)
    # order "F": zarr-python 2 hands the object codec each chunk in Fortran order.
    i = root.create_dataset("utf8_order_f", shape=(3, 5), chunks=(2, 3), dtype=str, order="F")
    i[...] = np.array([["r%dc%d\u00e9" % (r, c) * (r + 1) for c in range(5)] for r in range(3)], dtype=object)
    case("utf8_order_f", i)
    j = root.create_dataset("bytes_order_f", shape=(2, 2, 3), chunks=(2, 2, 2), dtype=object, order="F",
                            object_codec=numcodecs.VLenBytes(), compressor=numcodecs.Zlib(level=1))
    j[...] = np.array([bytes([k]) * k for k in range(12)], dtype=object).reshape(2, 2, 3)
    case("bytes_order_f", j)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        k = root.create_dataset("categorize_order_f", shape=(3, 4), chunks=(3, 4), dtype=object, order="F",
                                filters=[numcodecs.Categorize(labels[:3], dtype=object)], compressor=None)
        k[...] = np.array([["male", "female", "", "\u00e9t\u00e9"], ["female"] * 4, ["", "male", "male", ""]],
                          dtype=object)
    case("categorize_order_f", k)
    # pickle, the object codec that pickles each chunk's object array, in every protocol: text that
    # protocol 0 escapes (backslash, newline, past Latin-1), and chunks left missing (their
    # elements the integer 0) or partly written (0 in the pickle).
    grid = np.array([["p%d\\%d\n\u00e9\u20ac\U0001F600\x00" % (r, c) * (c % 3) for c in range(5)] for r in range(3)],
                    dtype=object)
    for protocol in range(6):
        name = "pickle_p%d" % protocol
        p = root.create_dataset(name, shape=(3, 5), chunks=(2, 3), dtype=object,
                                object_codec=numcodecs.Pickle(protocol=protocol),
                                compressor=numcodecs.Zlib(level=1) if protocol % 2 else None)
        p[0:2, :] = grid[0:2, :]
        p[2, 0:2] = grid[2, 0:2]
        case(name, p)
    q = root.create_dataset("pickle_order_f", shape=(3, 4), chunks=(2, 3), dtype=object, order="F",
                            object_codec=numcodecs.Pickle())
    q[...] = grid[:, 0:4]
    case("pickle_order_f", q)
    # json2: the chunk's nested lists, the type and the shape, as JSON text (ASCII or not).
    for name, ascii in (("json2_ascii", True), ("json2_utf8", False)):
        j = root.create_dataset(name, shape=(3, 5), chunks=(2, 3), dtype=object,
                                object_codec=numcodecs.JSON(ensure_ascii=ascii), compressor=None)
        j[0:2, :] = grid[0:2, :]
        j[2, 0:2] = grid[2, 0:2]
        case(name, j)
    # msgpack2: the same lists, type and shape in MessagePack; strings as str 8 or (without
    # use_bin_type) the old raw's str 16, long enough to need them.
    for name, bin_type in (("msgpack2_bin", True), ("msgpack2_raw", False)):
        m = root.create_dataset(name, shape=(3, 5), chunks=(2, 3), dtype=object,
                                object_codec=numcodecs.MsgPack(use_bin_type=bin_type), compressor=None)
        m[0:2, :] = grid[0:2, :]
        m[2, 0:2] = np.array(["y" * 40, "z" * 300], dtype=object)
        case(name, m)

    # Zarr v3 by hand: the registry's example documents, chunks from numcodecs.
    v3 = out / "v3.zarr"
    utf8, vbytes, zstd = numcodecs.VLenUTF8(), numcodecs.VLenBytes(), numcodecs.Zstd(level=3)

    def v3_array(path, data_type, fill, codecs, shape, chunk, chunks):
        node = v3 / path
        node.mkdir(parents=True, exist_ok=True)
        (node / "zarr.json").write_text(json.dumps({
            "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs}))
        for key, data in chunks.items():
            (node / "c" / key).parent.mkdir(parents=True, exist_ok=True)
            (node / "c" / key).write_bytes(data)

    (v3 / "zarr.json").parent.mkdir(parents=True, exist_ok=True)
    (v3 / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group"}))
    chunk0 = np.array(TEXT[0:4], dtype=object)
    chunk2 = np.array(TEXT[8:9] + ["", "", ""], dtype=object)  # the last chunk, past the shape: fill ""
    v3_array("string", "string", "foo", [{"name": "vlen-utf8"}], [9], [4],
             {"0": utf8.encode(chunk0), "2": utf8.encode(chunk2)})
    cases.append({"path": "string", "version": 3, "shape": [9],
                  "values": TEXT[0:4] + ["foo"] * 4 + TEXT[8:9]})
    v3_array("string_zstd", "string", "", [{"name": "vlen-utf8", "configuration": {}},
                                           {"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
             [2, 2], [2, 2], {"0/0": zstd.encode(utf8.encode(np.array(TEXT[1:5], dtype=object)))})
    cases.append({"path": "string_zstd", "version": 3, "shape": [2, 2], "values": TEXT[1:5]})
    for name, fill in (("bytes_array_fill", [1, 2, 3]), ("bytes_base64_fill", "AQID")):
        v3_array(name, "bytes", fill, [{"name": "vlen-bytes"}], [4], [2],
                 {"1": vbytes.encode(np.array(BYTES[1:3], dtype=object))})
        cases.append({"path": name, "version": 3, "shape": [4],
                      "values": as_json([b"\x01\x02\x03"] * 2 + BYTES[1:3])})

    # Element-moving codecs over variable-length elements (the layouts of codecs/transpose,
    # codecs/reshape and codecs/sharding_indexed, over numcodecs' VLenUTF8 / VLenBytes).
    grid = np.array([["t%d%d" % (r, c) + "\u00df" * c for c in range(3)] for r in range(4)], dtype=object)
    # transpose: "the encoded array's dimension i is the decoded array's dimension order[i]".
    v3_array("transpose_utf8", "string", "", [{"name": "transpose", "configuration": {"order": [1, 0]}},
                                             {"name": "vlen-utf8"}], [4, 3], [2, 3],
             {"0/0": utf8.encode(np.ascontiguousarray(grid[0:2].transpose(1, 0))),
              "1/0": utf8.encode(np.ascontiguousarray(grid[2:4].transpose(1, 0)))})
    cases.append({"path": "transpose_utf8", "version": 3, "shape": [4, 3], "values": as_json(grid)})
    cube = np.array([bytes([k, 255 - k]) * (k % 4) for k in range(24)], dtype=object).reshape(2, 3, 4)
    # reshape: "always preserves the (logical) lexicographical order (i.e. C order traversal)".
    v3_array("reshape_bytes", "bytes", [], [{"name": "reshape", "configuration": {"shape": [[0, 1], -1]}},
                                          {"name": "vlen-bytes"}], [2, 3, 4], [2, 3, 4],
             {"0/0/0": vbytes.encode(cube.reshape(-1))})
    cases.append({"path": "reshape_bytes", "version": 3, "shape": [2, 3, 4], "values": as_json(cube)})
    # sharding_indexed, "Binary shard format": inner chunks, then the index of (offset, nbytes)
    # as little-endian uint64 per inner chunk in C order (2^64 - 1 twice: absent) and its crc32c.
    shard = np.array([["s%d%d" % (r, c) if r < 2 else "fill" for c in range(4)] for r in range(4)], dtype=object)
    shard[3, 3] = "\u20ac last"
    inner = [shard[0:2, 0:2], shard[0:2, 2:4], shard[2:4, 0:2], shard[2:4, 2:4]]
    body, index = b"", []
    for n, part in enumerate(inner):
        if (part == "fill").all():
            index.append((2**64 - 1, 2**64 - 1))
            continue
        data = zstd.encode(utf8.encode(np.ascontiguousarray(part)))
        index.append((len(body), len(data)))
        body += data
    raw_index = b"".join(struct.pack("<QQ", o, n) for o, n in index)
    v3_array("sharded_utf8", "string", "fill", [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2, 2], "index_location": "end",
        "codecs": [{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}],
        [4, 4], [4, 4], {"0/0": body + raw_index + struct.pack("<I", crc32c(raw_index))})
    cases.append({"path": "sharded_utf8", "version": 3, "shape": [4, 4], "values": as_json(shard)})

    cat = numcodecs.Categorize(labels, dtype=object)
    v3_array("categorize", "string", "male", [
        {"name": "numcodecs.categorize", "configuration": {"labels": labels, "dtype": "|O", "astype": "|u1"}},
        {"name": "bytes"}, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
        [5], [2], {"0": zstd.encode(cat.encode(np.array(["", "female"], dtype=object)).tobytes()),
                   "2": zstd.encode(cat.encode(np.array(["x" * 300, ""], dtype=object)).tobytes())})
    cases.append({"path": "categorize", "version": 3, "shape": [5], "values": ["", "female", "male", "male", "x" * 300]})

    # numcodecs.pickle over bytes (and strings), chunks from numcodecs' Pickle.
    for protocol in (0, 2, 5):
        pk = numcodecs.Pickle(protocol=protocol)
        chunk = np.array(BYTES[0:4], dtype=object).reshape(2, 2)
        v3_array("pickle_bytes_p%d" % protocol, "bytes", [], [{"name": "numcodecs.pickle", "configuration": {"protocol": protocol}}],
                 [2, 4], [2, 2], {"0/1": pk.encode(chunk)})
        cases.append({"path": "pickle_bytes_p%d" % protocol, "version": 3, "shape": [2, 4],
                      "values": as_json([b"", b"", BYTES[0], BYTES[1], b"", b"", BYTES[2], BYTES[3]])})

    # numcodecs.msgpack2 over bytes: bin (use_bin_type) or the old raw.
    for name, bin_type in (("msgpack2_bytes_bin", True), ("msgpack2_bytes_raw", False)):
        mp = numcodecs.MsgPack(use_bin_type=bin_type)
        chunk = np.array(BYTES[0:4], dtype=object).reshape(2, 2)
        config = {k: v for k, v in mp.get_config().items() if k != "id"}
        v3_array(name, "bytes", [], [{"name": "numcodecs.msgpack2", "configuration": config}],
                 [2, 4], [2, 2], {"0/1": mp.encode(chunk)})
        cases.append({"path": name, "version": 3, "shape": [2, 4],
                      "values": as_json([b"", b"", BYTES[0], BYTES[1], b"", b"", BYTES[2], BYTES[3]])})

    encoded = {
        "utf8_spec": base64.b64encode(utf8.encode(np.array(["a", ""], dtype=object))).decode(),
        "utf8_text": base64.b64encode(utf8.encode(np.array(TEXT, dtype=object))).decode(),
        "bytes": base64.b64encode(vbytes.encode(np.array(BYTES, dtype=object))).decode(),
    }
    (out / "chunks.json").write_text(json.dumps(encoded))
    (out / "manifest.json").write_text(json.dumps({"cases": cases, "text": TEXT, "bytes": as_json(BYTES)}))


def decode(codec_id, files):
    out = []
    for f in files:
        a = numcodecs.get_codec({"id": codec_id}).decode(Path(f).read_bytes())
        out.append({"shape": list(a.shape), "dtype": str(a.dtype), "values": as_json(a)})
    print(json.dumps(out))


def read(store, path):
    z = zarr.open_array(zarr.DirectoryStore(store), mode="r", path=path)
    print(json.dumps({"shape": list(z.shape), "dtype": str(z.dtype), "values": as_json(z[...])}))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(Path(sys.argv[2]))
    elif sys.argv[1] == "decode":
        decode(sys.argv[2], sys.argv[3:])
    else:
        read(sys.argv[2], sys.argv[3])
