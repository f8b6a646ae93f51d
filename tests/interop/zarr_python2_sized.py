# NumPy's fixed-size types beyond scalars with zarr-python 2 (Debian's python3-zarr 2.13, NumPy),
# for zarr.tests.dtype (tests/zarr/dtype/sized_interop.test.cpp): "<U n" / ">U n"
# (fixed_length_utf32), "|V n" (raw bits) and structured dtypes (struct); and numcodecs'
# Categorize over "<U n" (its labels' numbers, docs/decisions.md 72).
#   zarr_python2_sized.py write OUT
#     OUT/v2.zarr        one v2 array per case, written by zarr-python 2 (compressors, fill values,
#                        missing chunks, both byte orders)
#     OUT/manifest.json  each case: path, dtype, shape, and its values as zarr-python 2 reads them,
#                        C order, as JSON (text a string, void bytes a list of byte values, a record
#                        an object of its fields; complex [re, im]; datetime64 its int64 count), and
#                        as "raw": their bytes in hexadecimal, every field little-endian (NumPy's
#                        tobytes() of the array in little-endian byte order)
#   zarr_python2_sized.py read STORE PATH
#     prints the values of the v2 array at PATH as zarr-python 2 reads them (JSON and raw, as above)
#   zarr_python2_sized.py files STORE DIR
#     for each case, checks DIR/<path>.npy (NumPy's np.load) and DIR/<path>.raw against the v2
#     array at <path> as zarr-python 2 reads it, in little-endian byte order; prints a JSON object
#     of each path's {"npy_dtype", "npy_equal", "raw_equal"}
import json
import sys
from pathlib import Path

try:
    import numcodecs
    import numpy as np
    import zarr
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)


def as_json(v, dt):
    if dt.names is not None:
        return {name: as_json(v[name], dt.fields[name][0]) for name in dt.names}
    if dt.kind == "U":
        return str(v)
    if dt.kind == "V":
        return list(bytes(v))
    if dt.kind == "b":
        return bool(v)
    if dt.kind in "iu":
        return int(v)
    if dt.kind == "f":
        return float(v)
    if dt.kind == "c":
        return [float(v.real), float(v.imag)]
    if dt.kind == "M":
        return int(np.asarray(v).astype("int64"))
    raise ValueError(dt)


def values_json(a):
    return [as_json(v, a.dtype) for v in a.reshape(-1)]


def raw_little_endian(a):
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<"))).tobytes().hex()


POINT = [("x", "<f4"), ("y", "<f4")]
# Every text data_for makes, and one longer than any element (never stored).
LABELS = ["a", "\u00e9t\u00e9", "\u20ac\U0001F600", "zz", "q\u0000r", "longer than any"]
CASES = [
    # name, dtype, fill value, compressor, missing chunks[, filters]
    ("u_le", "<U5", "", None, True),
    ("u_be", ">U3", "ab", numcodecs.Zlib(level=1), True),
    ("u_fill_null", "<U4", None, numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1), False),
    ("v3", "|V3", b"\x01\x02\x03", None, True),
    ("v8_zero", "|V8", 0, numcodecs.Zstd(level=3), True),
    ("struct_le", [("id", "<i4"), ("flags", "|u1"), ("value", "<f8")], 0, None, True),
    ("struct_be", [("id", ">i4"), ("ok", "|b1"), ("name", ">U2"), ("c", ">c8")], None, numcodecs.GZip(level=5), False),
    ("struct_nested", [("point", POINT), ("value", "<f8"), ("raw", "|V2")], 0, numcodecs.Blosc(cname="zstd", clevel=3, shuffle=2), True),
    ("struct_time", [("t", "<M8[s]"), ("v", "<i2")], 0, None, False),
    ("u_categorize", "<U5", "", numcodecs.Zlib(level=1), True, [numcodecs.Categorize(LABELS, dtype="<U5")]),
    ("u_categorize_be", ">U3", "", None, False, [numcodecs.Categorize(LABELS, dtype=">U3", astype=">u2")]),
]


def data_for(dt, n, rng):
    dt = np.dtype(dt)
    out = np.zeros(n, dtype=dt)
    texts = ["", "a", "\u00e9t\u00e9", "\u20ac\U0001F600", "zz", "q\u0000r"]
    if dt.names is None:
        if dt.kind == "U":
            size = dt.itemsize // 4
            return np.array([texts[i % len(texts)][:size] for i in range(n)], dtype=dt)
        return np.frombuffer(rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).tobytes(), dtype=dt).copy()
    for name in dt.names:
        ft = dt.fields[name][0]
        if ft.names is not None or ft.kind in "UV":
            out[name] = data_for(ft, n, rng)
        elif ft.kind == "b":
            out[name] = rng.integers(0, 2, n).astype(bool)
        elif ft.kind in "iu":
            out[name] = rng.integers(-100 if ft.kind == "i" else 0, 100, n)
        elif ft.kind == "f":
            out[name] = rng.integers(-1000, 1000, n) / 4
        elif ft.kind == "c":
            out[name] = rng.integers(-10, 10, n) / 2 + 1j * rng.integers(-10, 10, n) / 8
        elif ft.kind == "M":
            out[name] = rng.integers(-10**9, 10**9, n).astype("M8[s]")
    return out


def write(out):
    root = zarr.group(store=zarr.DirectoryStore(str(out / "v2.zarr")), overwrite=True)
    rng = np.random.default_rng(20261202)
    cases = []
    for name, dtype, fill, compressor, missing, *filters in CASES:
        dt = np.dtype(dtype)
        shape, chunks = (7,), (3,)
        z = root.create_dataset(name, shape=shape, chunks=chunks, dtype=dt, compressor=compressor, fill_value=fill,
                                filters=filters[0] if filters else None)
        data = data_for(dt, shape[0], rng)
        if missing:
            z[: chunks[0]] = data[: chunks[0]]
        else:
            z[...] = data
        cases.append({"path": name, "dtype": json.loads((out / "v2.zarr" / name / ".zarray").read_text())["dtype"],
                      "shape": list(shape), "values": values_json(z[...]), "raw": raw_little_endian(z[...])})
    (out / "manifest.json").write_text(json.dumps({"cases": cases}))


def read(store, path):
    z = zarr.open_array(store=zarr.DirectoryStore(store), path=path, mode="r")
    print(json.dumps({"dtype": z.dtype.descr if z.dtype.names else z.dtype.str, "values": values_json(z[...]),
                      "raw": raw_little_endian(z[...])}))


def files(store, out):
    result = {}
    for name, *_ in CASES:
        a = zarr.open_array(store=zarr.DirectoryStore(store), path=name, mode="r")[...]
        little = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<")))
        npy = np.load(Path(out) / (name + ".npy"))
        result[name] = {"npy_dtype": str(npy.dtype.descr if npy.dtype.names else npy.dtype.str),
                        "npy_equal": npy.dtype == little.dtype and npy.shape == little.shape and npy.tobytes() == little.tobytes(),
                        "raw_equal": (Path(out) / (name + ".raw")).read_bytes() == little.tobytes()}
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "read":
        read(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "files":
        files(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: zarr_python2_sized.py write OUT | read STORE PATH | files STORE DIR")
