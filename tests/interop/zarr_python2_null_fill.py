# Zarr v2 arrays with "fill_value": null and chunks never written, by zarr-python 2 (Debian's
# python3-zarr), for zarr.tests.v2 (tests/zarr/array/v2_null_fill.test.cpp).
#   zarr_python2_null_fill.py OUT
#     OUT/v2.zarr        bool, int16, float64, "<U3" and "|O" (vlen-utf8) arrays of shape (6, 4),
#                        chunks (2, 2), only some chunks written
#     OUT/manifest.json  each case: path and its values C order (JSON, and "hex": their bytes but
#                        for the object array): zarr-python 2's values where chunks are stored,
#                        the NumPy zero of the dtype (np.zeros; "" for text) where none is
import json
import sys
from pathlib import Path

import numcodecs
import numpy as np
import zarr

out = Path(sys.argv[1])
root = zarr.open_group(str(out / "v2.zarr"), mode="w")
cases = []
for name, dtype, values in [
    ("bool", "|b1", np.arange(24).reshape(6, 4) % 3 == 0),
    ("int16", "<i2", (np.arange(24).reshape(6, 4) * 1000 - 9000).astype("<i2")),
    ("float64", "<f8", np.arange(24).reshape(6, 4) / 8 - 1.25),
    ("fixed_text", "<U3", np.array([f"é{i}" for i in range(24)]).reshape(6, 4)),
    ("object_text", object, np.array([f"ü{i}" for i in range(24)], dtype=object).reshape(6, 4)),
]:
    kwargs = {"object_codec": numcodecs.VLenUTF8()} if dtype is object else {}
    a = root.create_dataset(name, shape=(6, 4), chunks=(2, 2), dtype=dtype, fill_value=None,
                            compressor=numcodecs.Zlib(1), **kwargs)
    assert a.fill_value is None
    # Rows 0-1 (both chunks), and the chunk of rows 4-5, columns 2-3; the others never written.
    a[0:2, :] = values[0:2, :]
    a[4:6, 2:4] = values[4:6, 2:4]
    expected = np.zeros((6, 4), dtype=values.dtype) if dtype is not object else np.full((6, 4), "", dtype=object)
    expected[0:2, :] = a[0:2, :]
    expected[4:6, 2:4] = a[4:6, 2:4]
    text = dtype in ("<U3", object)
    case = {"path": name, "values": [str(v) if text else (bool(v) if dtype == "|b1" else v.item()) for v in expected.ravel()]}
    if dtype is not object:
        case["hex"] = expected.astype(dtype).tobytes().hex()  # the element bytes, little-endian
    cases.append(case)
(out / "manifest.json").write_text(json.dumps({"zarr": zarr.__version__, "cases": cases}))
