# numcodecs' ZFPY (zfpy 1.0, Debian's python3-zfpy) for zarr.tests.codec
# (tests/zarr/codec/array_to_bytes/numcodecs_zfpy.test.cpp), with /usr/bin/python3. Writes into DIR:
#   N.in   case N's values (C order, little-endian), N.out  ZFPY.encode of them (zfp header and stream),
#   N.dec  ZFPY.decode of N.out, cases.json  each case: dtype, shape, configuration (get_config() without "id");
#   v2.zarr  a zarr-python 2 array (float64, shape (10, 12), chunks (4, 5), ZFPY fixed precision 24)
#   and v2.dec  what zarr-python 2 reads from it (C order, little-endian).
import json
import sys
from pathlib import Path

try:
    import numcodecs
    import numpy as np
    import zarr
    from numcodecs.zfpy import ZFPY
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)

folder = Path(sys.argv[1])
CASES = [
    ("<f8", (3, 4), dict(mode=4)),  # numcodecs' default: tolerance -1, zfp's default parameters
    ("<f8", (5, 6, 7), dict(mode=4, tolerance=0.01)),
    ("<f4", (40,), dict(mode=2, rate=8)),
    ("<f4", (6, 8), dict(mode=3, precision=20)),
    ("<i4", (9, 9), dict(mode=3, precision=12)),
    ("<i8", (4, 5), dict(mode=2, rate=16)),
    ("<f8", (2, 3, 4, 5), dict(mode=3, precision=30)),
]
rng = np.random.default_rng(1)
cases = []
for n, (dtype, shape, kwargs) in enumerate(CASES):
    size = int(np.prod(shape))
    smooth = np.sin(0.1 * np.arange(size)) + rng.uniform(-0.01, 0.01, size)
    scale = 1e6 if dtype.startswith("<i") else 100.0
    values = (scale * smooth).astype(dtype).reshape(shape)
    codec = ZFPY(**kwargs)
    encoded = codec.encode(values)
    (folder / ("%d.in" % n)).write_bytes(values.tobytes())
    (folder / ("%d.out" % n)).write_bytes(bytes(encoded))
    (folder / ("%d.dec" % n)).write_bytes(np.asarray(codec.decode(encoded), dtype=dtype).tobytes())
    config = codec.get_config()
    del config["id"]
    cases.append({"dtype": dtype, "shape": list(shape), "configuration": config})
(folder / "cases.json").write_text(json.dumps(cases))

z = zarr.open(str(folder / "v2.zarr"), mode="w", shape=(10, 12), chunks=(4, 5), dtype="<f8",
              compressor=ZFPY(mode=3, precision=24), fill_value=0.0)
z[:] = np.cos(0.05 * np.arange(120)).reshape(10, 12) * 1000
(folder / "v2.dec").write_bytes(z[:].astype("<f8").tobytes())
