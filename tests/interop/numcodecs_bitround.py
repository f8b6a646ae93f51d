# numcodecs' BitRound.encode for zarr.tests.codec (tests/zarr/codec/array_to_array/bitround.test.cpp),
# with Debian's NumPy and numcodecs (/usr/bin/python3). DIR/cases.json lists cases
# {"dtype": "<f4", "keepbits": 3}; case N's input is DIR/N.in (the values' bytes in that dtype),
# its encoding is written to DIR/N.out.
import json
import sys
from pathlib import Path

try:
    import numcodecs
    import numpy as np
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)

folder = Path(sys.argv[1])
for n, case in enumerate(json.loads((folder / "cases.json").read_text())):
    values = np.frombuffer((folder / ("%d.in" % n)).read_bytes(), dtype=case["dtype"])
    encoded = numcodecs.BitRound(keepbits=case["keepbits"]).encode(values.copy())
    (folder / ("%d.out" % n)).write_bytes(np.asarray(encoded).view(case["dtype"]).tobytes())  # encode returns the int view
