# Writes the Zarr v2 fixture with zarr-python 2 (Debian python3-zarr 2.13, python3-numcodecs
# 0.11), for zarr.tests.v2_interop (tests/zarr/array/v2_interop.test.cpp):
#   OUT/v2.zarr       one DirectoryStore hierarchy: a group per category, one array per case
#   OUT/raw/N.bin     what zarr-python reads back for case N, C order, little-endian
#   OUT/manifest.json the cases: path, dtype, shape, codecs, order, separator, fill value
# Cases cover every dtype x every compressor, every filter with the dtypes it takes, order C
# and F, both dimension separators, missing chunks (the fill value) and each fill-value form.
#
# With `--check DIR` it reads instead the v2 stores our library wrote (DIR/manifest.json
# lists them with their raw files, and the rows that have values when not all do) and exits
# non-zero at the first difference.
import json
import sys
from pathlib import Path

try:
    import numcodecs
    import numpy as np
    import zarr
    from zarr.meta import Metadata2
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)

DTYPES = ["|b1", "|i1", "<i2", ">i2", "<i4", ">i4", "<i8", ">i8", "|u1", "<u2", ">u2", "<u4", "<u8", ">u8",
          "<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16"]

TIME_DTYPES = ["<M8[ns]", ">M8[s]", "<M8[D]", ">M8[Y]", "<M8[25ms]", "<m8[10s]", ">m8[us]", "<m8[ps]", ">m8[W]"]

COMPRESSORS = [
    ("none", None),
    ("zlib", numcodecs.Zlib(level=1)),
    ("gzip", numcodecs.GZip(level=5)),
    ("bz2", numcodecs.BZ2(level=9)),
    ("lzma", numcodecs.LZMA()),
    ("lz4", numcodecs.LZ4(acceleration=1)),
    ("zstd", numcodecs.Zstd(level=3)),
    ("blosc-lz4-shuffle", numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1)),
    ("blosc-zstd-bitshuffle", numcodecs.Blosc(cname="zstd", clevel=3, shuffle=2)),
    ("blosc-blosclz-noshuffle", numcodecs.Blosc(cname="blosclz", clevel=9, shuffle=0)),
    ("blosc-zlib-autoshuffle", numcodecs.Blosc(cname="zlib", clevel=1, shuffle=-1)),
    ("blosc-lz4hc-shuffle", numcodecs.Blosc(cname="lz4hc", clevel=4, shuffle=1, blocksize=256)),
]

# The name of our data type for a NumPy type (the raw files are in this type, little-endian).
V3_NAMES = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}


def v3_name(dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return "bool"
    if dt.kind in "Mm":
        return "numpy.datetime64" if dt.kind == "M" else "numpy.timedelta64"
    return V3_NAMES[dt.kind] + str(dt.itemsize * 8)


def values(dt, shape, rng):
    """Values of every kind the type has: extremes, negative zero, NaN, infinities, subnormals."""
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt.newbyteorder("="), endpoint=True)
        v[:3] = [info.min, info.max, 0]
        return v.astype(dt).reshape(shape)
    if dt.kind == "f":
        base = dt.newbyteorder("=")
        v = (rng.standard_normal(n) * 1000).astype(base)
        specials = [np.nan, np.inf, -np.inf, -0.0, np.finfo(base).tiny / 4, np.finfo(base).max]
        v[: len(specials)] = np.array(specials, dtype=base)
        return v.astype(dt).reshape(shape)
    part = np.dtype("f%d" % (dt.itemsize // 2))
    re = values(part, (n,), rng)
    im = values(part, (n,), rng)[::-1]
    return (re + 1j * im).astype(dt).reshape(shape)


def fill_forms(dt):
    """The fill-value forms of a type, cycled through the cases."""
    kind = np.dtype(dt).kind
    if kind == "b":
        return [False, True, None]
    if kind == "i":
        return [0, -7, None]
    if kind == "u":
        return [0, 42, None]
    if kind == "f":
        return [0.0, np.nan, np.inf, -np.inf, -1.5, None]
    return [0j, complex(1.5, -2.0), complex(np.nan, 0), None]


class Fixture:
    def __init__(self, out):
        self.out = out
        self.root = zarr.group(store=zarr.DirectoryStore(str(out / "v2.zarr")), overwrite=True)
        (out / "raw").mkdir(parents=True, exist_ok=True)
        self.cases = []
        self.rng = np.random.default_rng(20261202)

    def add(self, group, name, dt, compressor=None, filters=None, order="C", separator=".", fill=0,
            missing=False, data=None, shape=(7, 5), chunks=(3, 2), note=""):
        """One array; `missing`: only the first chunk row is written (the rest is the fill)."""
        g = self.root.require_group(group)
        z = g.create_dataset(name, shape=shape, chunks=chunks, dtype=dt, compressor=compressor, filters=filters,
                             order=order, fill_value=fill, dimension_separator=separator)
        if data is None:
            data = values(dt, shape, self.rng)
        if missing:
            z[: chunks[0]] = data[: chunks[0]]
        else:
            z[...] = data
        index = len(self.cases)
        back = z[...]
        if fill is None and missing:
            back = back[: chunks[0]]  # the rest has no value: reading it is an error
        back.astype(back.dtype.newbyteorder("<")).tofile(self.out / "raw" / ("%d.bin" % index))
        config = json.loads((self.out / "v2.zarr" / group / name / ".zarray").read_text())
        self.cases.append({
            "path": group + "/" + name, "dtype": np.dtype(dt).str, "data_type": v3_name(dt), "shape": list(shape),
            "chunks": list(chunks), "order": order, "separator": separator, "fill_value": config["fill_value"],
            "compressor": config["compressor"]["id"] if config["compressor"] else "none",
            "filters": [f["id"] for f in (config["filters"] or [])], "missing_chunks": missing,
            "readable_rows": chunks[0] if fill is None and missing else (shape[0] if shape else 1),
            "raw": "raw/%d.bin" % index, "note": note,
        })


def write(out):
    f = Fixture(out)
    # Every dtype x every compressor; order, separator, fill form and missing chunks rotate.
    for d, dt in enumerate(DTYPES):
        fills = fill_forms(dt)
        for c, (cname, compressor) in enumerate(COMPRESSORS):
            k = d + c
            f.add("compressors/" + cname, dt.replace("<", "le_").replace(">", "be_").replace("|", ""), dt,
                  compressor=compressor, order="CF"[k % 2], separator="./"[(k // 2) % 2], fill=fills[k % len(fills)],
                  missing=(k % 3 == 0))
    # Every filter with the dtypes it takes, each with a compressor, in both orders.
    ints = [dt for dt in DTYPES if np.dtype(dt).kind in "iu"]
    floats = [dt for dt in DTYPES if np.dtype(dt).kind == "f"]
    for i, dt in enumerate(DTYPES):
        size = np.dtype(dt).itemsize
        name = dt.replace("<", "le_").replace(">", "be_").replace("|", "")
        order = "CF"[i % 2]
        f.add("filters/shuffle", name, dt, filters=[numcodecs.Shuffle(elementsize=size)], compressor=numcodecs.Zlib(1),
              order=order, missing=(i % 2 == 0), fill=fill_forms(dt)[1])
        f.add("filters/crc32", name, dt, filters=[numcodecs.CRC32()], order=order, separator="/")
        f.add("filters/adler32", name, dt, filters=[numcodecs.Adler32()], compressor=numcodecs.Zstd(1), order=order)
    for i, dt in enumerate(ints + ["<f4", "<f8", ">f8"]):
        name = dt.replace("<", "le_").replace(">", "be_").replace("|", "")
        f.add("filters/delta", name, dt, filters=[numcodecs.Delta(dtype=dt)], compressor=numcodecs.Blosc("lz4", 5, 1),
              order="CF"[i % 2], missing=(i % 3 == 0))
    for dt, astype in [("<i4", "<i2"), ("<i8", "|i1"), ("<u2", "|u1"), (">i4", ">i8")]:
        f.add("filters/delta_astype", dt.replace("<", "le_").replace(">", "be_") + "_as_" +
              astype.replace("<", "le_").replace(">", "be_").replace("|", ""), dt,
              filters=[numcodecs.Delta(dtype=dt, astype=astype)], data=(np.arange(35) * 3 - 50).astype(dt).reshape(7, 5))
    for i, (dt, astype) in enumerate([("<f8", "<f4"), (">f8", ">f4"), ("<f4", "<f2"), ("<i4", "<i2"), ("<i8", "|u1"),
                                      ("<u4", "<u8"), ("<f8", "<f8"), ("<f4", "<f8")]):
        f.add("filters/astype", dt.replace("<", "le_").replace(">", "be_") + "_as_" +
              astype.replace("<", "le_").replace(">", "be_").replace("|", ""), dt,
              filters=[numcodecs.AsType(encode_dtype=astype, decode_dtype=dt)], compressor=numcodecs.Zlib(1),
              order="CF"[i % 2], data=values(dt, (7, 5), f.rng) if np.dtype(dt).kind != "f"
              else (f.rng.standard_normal(35) * 100).astype(dt).reshape(7, 5))
    for i, dt in enumerate(floats):
        name = dt.replace("<", "le_").replace(">", "be_")
        data = (f.rng.standard_normal(35) * 100).astype(dt).reshape(7, 5)
        f.add("filters/quantize", name, dt, filters=[numcodecs.Quantize(digits=2, dtype=dt)], data=data,
              compressor=numcodecs.Zstd(1), order="CF"[i % 2])
        if dt.startswith("<"):  # numcodecs 0.11's BitRound raises KeyError for '>f4' (see skipped)
            f.add("filters/bitround", name, dt, filters=[numcodecs.BitRound(keepbits=5)], data=data,
                  compressor=numcodecs.Blosc("zstd", 3, 2), order="CF"[i % 2], separator="/")
    f.add("filters/fixedscaleoffset", "le_f8_as_u2", "<f8",
          filters=[numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype="<f8", astype="<u2")],
          data=(np.arange(35) * 1.25 + 1000).reshape(7, 5), compressor=numcodecs.Zlib(1))
    f.add("filters/fixedscaleoffset", "be_f4_as_u1", ">f4",
          filters=[numcodecs.FixedScaleOffset(offset=0, scale=2, dtype=">f4", astype="|u1")],
          data=(np.arange(35) * 0.5).astype(">f4").reshape(7, 5), order="F")
    for i, (shape, chunks) in enumerate([((7, 5), (3, 2)), ((64,), (10,)), ((3, 4, 5), (2, 3, 2))]):
        f.add("filters/packbits", "shape_%d" % i, "|b1", filters=[numcodecs.PackBits()], shape=shape, chunks=chunks,
              compressor=numcodecs.BZ2(1), order="CF"[i % 2], missing=(i == 1),
              data=values("|b1", shape, f.rng))
    # numpy.datetime64 and numpy.timedelta64 through their v2 dtype strings: NaT among the values
    # and as the fill value (zarr-python 2 writes it as -2^63), units with and without a scale.
    for i, dt in enumerate(TIME_DTYPES):
        counts = f.rng.integers(-10**12, 10**12, 35, dtype=np.int64)
        counts[:3] = [np.iinfo(np.int64).min, np.iinfo(np.int64).min + 1, np.iinfo(np.int64).max]
        nat = np.array(np.iinfo(np.int64).min).view(np.dtype(dt).newbyteorder("="))[()]
        f.add("times", dt.replace("<", "le_").replace(">", "be_").replace("[", "_").replace("]", ""), dt,
              compressor=[None, numcodecs.Zlib(1), numcodecs.Blosc("lz4", 5, 1)][i % 3], order="CF"[i % 2],
              fill=[nat, 5, None][i % 3], missing=(i % 2 == 0),
              data=counts.view(np.dtype(dt).newbyteorder("=")).astype(dt).reshape(7, 5))
    # Two filters in a row, then a compressor; a 0-d and a 3-d array; an empty array.
    f.add("chains", "delta_shuffle_lz4", "<i4", filters=[numcodecs.Delta(dtype="<i4"), numcodecs.Shuffle(4)],
          compressor=numcodecs.LZ4(), order="F", separator="/")
    f.add("chains", "quantize_shuffle_crc32", "<f8",
          filters=[numcodecs.Quantize(3, "<f8"), numcodecs.Shuffle(8), numcodecs.CRC32()],
          compressor=numcodecs.Blosc("lz4", 5, 0), data=(f.rng.standard_normal(35) * 10).reshape(7, 5))
    f.add("shapes", "three_d_f", ">u2", shape=(4, 5, 6), chunks=(3, 2, 4), order="F", separator="/",
          compressor=numcodecs.Zstd(1), missing=True, fill=7)
    f.add("shapes", "zero_d", "<f8", shape=(), chunks=(), data=np.array(2.5), compressor=None)
    f.add("shapes", "empty", "<i4", shape=(0, 4), chunks=(2, 2), data=np.zeros((0, 4), "<i4"))
    f.root.attrs["writer"] = "zarr-python " + zarr.__version__
    f.root["compressors"].attrs["numcodecs"] = numcodecs.__version__
    skipped = [
        {"combination": "bitround x big-endian floats",
         "reason": "numcodecs 0.11 BitRound.encode raises KeyError for a non-native dtype ('>f4')"},
        {"combination": "categorize x every dtype",
         "reason": "Categorize takes strings only: its object arrays (|u1 and >u2 label numbers, order C (F is refused), "
                   "missing chunks) are written and read in tests/interop/numcodecs_strings.py (zarr.tests.strings); "
                   "dtype 'U' with categorize is not read yet"},
        {"combination": "fletcher32, jenkins_lookup3, crc32c x every dtype",
         "reason": "numcodecs 0.11 does not have them (checked against their definitions in zarr.tests.codec)"},
        {"combination": "string, unicode, void and structured dtypes",
         "reason": "tested by their own scripts (their raw files are no numeric arrays): numcodecs_strings.py "
                   "(vlen-utf8, vlen-bytes, categorize) and zarr_python2_sized.py"},
    ]
    (out / "manifest.json").write_text(json.dumps({"zarr": zarr.__version__, "numcodecs": numcodecs.__version__,
                                                    "cases": f.cases, "skipped": skipped}, indent=1))


def check(directory):
    """Reads what our library wrote: every array must equal its raw file."""
    manifest = json.loads((directory / "manifest.json").read_text())
    root = zarr.open_group(store=zarr.DirectoryStore(str(directory / "v2.zarr")), mode="r")
    for case in manifest["cases"]:
        z = root[case["path"]]
        expected = np.fromfile(directory / case["raw"], dtype=np.dtype(case["dtype"]).newbyteorder("<"))
        got = z[...]
        if got.dtype != np.dtype(case["dtype"]) or list(got.shape) != case["shape"]:
            sys.exit("%s: expected %s %s, got %s %s" % (case["path"], case["dtype"], case["shape"], got.dtype, got.shape))
        if case.get("readable_rows") is not None and got.ndim > 0:
            got = got[: case["readable_rows"]]  # the rest has no values in the source of this array
        expected = expected.astype(got.dtype)
        if "written" in case:
            # Missing chunks: the fill value as zarr-python reads the JSON text the test wrote,
            # and as it reads the .zarray our library wrote.
            fill = np.array(Metadata2.decode_fill_value(case["fill"], got.dtype), dtype=got.dtype)
            if np.array(z.fill_value, dtype=got.dtype).tobytes() != fill.tobytes():
                sys.exit("%s: fill value %r, expected %r (from %s)" % (case["path"], z.fill_value, fill, json.dumps(case["fill"])))
            flat = expected.reshape(-1)
            flat[case["written"]:] = fill
        if got.tobytes() != expected.reshape(got.shape).tobytes():
            sys.exit("%s: values differ" % case["path"])
        if json.loads(json.dumps(dict(z.attrs))) != case.get("attributes", {}):
            sys.exit("%s: attributes differ: %s" % (case["path"], dict(z.attrs)))
    print("zarr-python %s read %d arrays equal" % (zarr.__version__, len(manifest["cases"])))


if __name__ == "__main__":
    np.seterr(all="ignore")  # the special values make NaNs on purpose
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(Path(sys.argv[2]))
    elif len(sys.argv) == 2:
        write(Path(sys.argv[1]))
    else:
        sys.exit("usage: zarr_python2_fixture.py OUT | --check DIR")
