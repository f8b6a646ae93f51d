# Writes NumPy datetime64/timedelta64 values for zarr.tests.time (tests/zarr/time.test.cpp),
# with Debian's NumPy (/usr/bin/python3):
#   OUT/N.bin        the values of case N as NumPy lays them out (tobytes, in the dtype's byte order)
#   OUT/cases.json   each case: dtype string, the counts NumPy holds (int64 view) and, for
#                    datetime64, np.datetime_as_string of each value
#   OUT/iso.json     np.datetime_as_string for every unit x scale factor x a set of counts
#   OUT/N.npy        case N saved by np.save (zarr.tests.cli reads it with zarr3 write --input)
# and, as `numpy_datetime.py same A.npy B.npy`, exits 0 when np.load gives both files the same
# dtype (byte order aside) and the same counts, NaT included (zarr.tests.cli, zarr3 read --output).
import json
import sys
from pathlib import Path

try:
    import numpy as np
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]


def write(out):
    out.mkdir(parents=True, exist_ok=True)
    cases = []
    values = [
        ("<M8[ns]", ["2001-01-01T00:00:00.5", "NaT", "1969-12-31T23:59:59.999999999", "1677-09-21T00:12:43.145224193",
                     "2262-04-11T23:47:16.854775807"]),
        (">M8[ns]", ["2024-02-29T12:34:56.789012345", "NaT", "1970-01-01"]),
        ("<M8[s]", ["1970-01-01T00:00:10", "-0001-12-31T23:59:59", "9999-12-31T23:59:59", "NaT"]),
        (">M8[D]", ["1900-02-28", "2000-02-29", "NaT", "1600-03-01"]),
        ("<M8[Y]", ["1970", "2000", "-4713", "NaT"]),
        ("<M8[M]", ["1969-12", "2026-12", "NaT"]),
        ("<M8[10us]", ["2001-01-01T00:00:00.00001", "1969-12-31T23:59:59.99999", "NaT"]),
        ("<M8[as]", ["1970-01-01T00:00:00.000000000000000001", "1969-12-31T23:59:59.999999999999999999"]),
        ("<m8[s]", [0, -1, 86400, "NaT"]),
        (">m8[25ms]", [1, -3, 2**40, "NaT"]),
        ("<m8[W]", [52, -1, "NaT"]),
    ]
    for i, (dt, vals) in enumerate(values):
        if dt[1] == "M":
            a = np.array(vals, dtype=dt)
        else:
            a = np.array([np.timedelta64("NaT") if v == "NaT" else v for v in vals], dtype=dt)
        (out / ("%d.bin" % i)).write_bytes(a.tobytes())
        np.save(out / ("%d.npy" % i), a)
        native = a.astype(a.dtype.newbyteorder("="))  # NumPy 1.24's datetime_as_string misreads '>M8'
        case = {"dtype": dt, "counts": [int(c) for c in native.view("i8")]}
        if dt[1] == "M":
            case["iso"] = [str(s) for s in np.datetime_as_string(native)]
        cases.append(case)
    (out / "cases.json").write_text(json.dumps(cases, indent=1))
    iso = []
    counts = [-1, 0, 1, 59, 12345, -987654321, 10**12, -10**12, 2**40, -(2**40) - 17]
    for unit in UNITS:
        for scale in [1, 7, 25]:
            a = np.array(counts, dtype="int64").view("M8[%d%s]" % (scale, unit))
            iso.append({"unit": unit, "scale_factor": scale, "counts": counts,
                        "iso": [str(s) for s in np.datetime_as_string(a)]})
    (out / "iso.json").write_text(json.dumps(iso, indent=1))


def same(a_path, b_path):
    a, b = np.load(a_path), np.load(b_path)
    if a.dtype.newbyteorder("=") != b.dtype.newbyteorder("=") or a.shape != b.shape:
        sys.exit("%s: %s %s, %s: %s %s" % (a_path, a.dtype.str, a.shape, b_path, b.dtype.str, b.shape))
    na, nb = (x.astype(x.dtype.newbyteorder("=")).view("i8") for x in (a, b))
    if not np.array_equal(na, nb):
        sys.exit("%s: %s, %s: %s" % (a_path, na.tolist(), b_path, nb.tolist()))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "same":
        same(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        write(Path(sys.argv[1]))
    else:
        sys.exit("usage: numpy_datetime.py OUT | numpy_datetime.py same A.npy B.npy")
