# numcodecs 0.11's Quantize.encode of every float16 bit pattern, for zarr.tests.codec
# (tests/zarr/codec/array_to_array/quantize.test.cpp; docs/decisions.md 53), with Debian's NumPy and numcodecs
# (/usr/bin/python3):
#   OUT/N.in        the input of case N as NumPy holds it (tobytes, in the dtype's byte order)
#   OUT/N.out       codec.encode(input).tobytes(), in the astype's byte order
#   OUT/cases.json  each case: digits, dtype, astype, element count
# float16: all 65,536 patterns (NaN payloads, subnormals, infinities, both zeros) for digits that
# take NumPy's arithmetic through float16 (scale < 65000), float32 and float64 (np.min_scalar_type
# of the scale), and a scale that float16 rounds to zero; both byte orders; float32 and float64
# astypes. A few float32/float64 cases with a spread of 65,536 patterns check the same loop there.
import json
import sys
from pathlib import Path

try:
    import numcodecs
    import numpy as np
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)

DIGITS = [-8, -5, -1, 0, 1, 2, 3, 4, 5, 7, 12, 40]


def patterns(dtype):
    dt = np.dtype(dtype)
    if dt.itemsize == 2:
        bits = np.arange(65536, dtype=np.uint16)
    elif dt.itemsize == 4:
        bits = np.arange(65536, dtype=np.uint32) * np.uint32(65537)
    else:
        bits = np.arange(65536, dtype=np.uint64) * np.uint64(0x0001000100010001)
    return bits.astype(dt.byteorder + "u%d" % dt.itemsize).view(dt)


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    cases = []
    runs = [(d, o + "f2", None) for o in "<>" for d in DIGITS]
    runs += [(2, "<f2", "<f4"), (5, ">f2", ">f8"), (40, "<f2", "<f4"), (1, "<f4", "<f2"), (2, "<f4", None),
             (40, "<f4", None), (3, ">f8", None), (4, "<f8", "<f2")]
    for i, (digits, dtype, astype) in enumerate(runs):
        codec = numcodecs.Quantize(digits=digits, dtype=dtype, astype=astype)
        x = patterns(dtype)
        with np.errstate(all="ignore"):  # overflow to infinity and 0/0 are part of what is checked
            enc = codec.encode(x)
        assert enc.dtype == codec.astype and enc.size == x.size
        (out / ("%d.in" % i)).write_bytes(x.tobytes())
        (out / ("%d.out" % i)).write_bytes(enc.tobytes())
        cases.append({"digits": digits, "dtype": codec.dtype.str, "astype": codec.astype.str, "n": int(x.size)})
    (out / "cases.json").write_text(json.dumps({"numcodecs": numcodecs.__version__, "numpy": np.__version__,
                                                 "cases": cases}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
