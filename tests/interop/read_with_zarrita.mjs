// node read_with_zarrita.mjs STORE_ROOT ARRAY_PATH...: reads arrays of a filesystem store with
// zarrita.js and prints {"shape", "dtype", "fill_value", "data"} as one JSON line each, the data
// flattened in C order ("path" too when there are several). For the write-interop test
// (tests/zarr/array/interop_write.test.cpp) and the v3 arrays of zarr3's v2 round trip
// (tests/zarr/cli/v2_roundtrip.test.cpp);
// run it from the folder where setup.cmake installed the pinned packages (package-lock.json).
//
// Element form: bool as true/false, int64/uint64 as decimal strings, other integers as numbers,
// floats as numbers except "NaN", "Infinity", "-Infinity" and "-0.0".
//
// Two things zarrita 0.7.5 does not do are added here, so that they are tested too:
// - crc32c is checked on decode (zarrita only strips the 4 bytes);
// - a shard index at the start (index_location "start"): zarrita always asks for the index as
//   the last bytes of a shard, so that request is answered with the first bytes instead
//   (index offsets are absolute, nothing else changes).
import * as fs from "node:fs";
import * as path from "node:path";

if (globalThis.Float16Array === undefined) {
  globalThis.Float16Array = (await import("@petamoriken/float16")).Float16Array;
}
const zarr = await import("zarrita");
const { FileSystemStore } = await import("@zarrita/storage");

const crcTable = new Uint32Array(256).map((_, i) => {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  return c >>> 0;
});
function crc32c(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
class CheckedCrc32c {
  kind = "bytes_to_bytes";
  static fromConfig() { return new CheckedCrc32c(); }
  encode() { throw new Error("crc32c: this reader does not write"); }
  decode(bytes) {
    if (bytes.length < 4) throw new Error("crc32c: fewer than 4 bytes");
    const body = bytes.subarray(0, bytes.length - 4);
    const stored = new DataView(bytes.buffer, bytes.byteOffset + body.length, 4).getUint32(0, true);
    if (stored !== crc32c(body)) throw new Error("crc32c: checksum does not match");
    return body;
  }
  computeEncodedSize(n) { return n + 4; }
}
zarr.registry.set("crc32c", () => CheckedCrc32c);

function element(dtype, v) {
  if (dtype === "bool") return Boolean(v);
  if (dtype === "int64" || dtype === "uint64") return BigInt(v).toString();
  if (dtype.startsWith("float")) {
    const x = Number(v);
    if (Number.isNaN(x)) return "NaN";
    if (x === Infinity) return "Infinity";
    if (x === -Infinity) return "-Infinity";
    if (Object.is(x, -0)) return "-0.0";
    return x;
  }
  return typeof v === "bigint" ? Number(v) : v;
}

async function read(root, arrayPath) {
  const meta = JSON.parse(fs.readFileSync(path.join(root, arrayPath, "zarr.json"), "utf8"));
  const files = new FileSystemStore(root);
  let store = files;
  const shard = (meta.codecs ?? []).find((c) => c.name === "sharding_indexed");
  if (shard?.configuration?.index_location === "start") {
    store = {
      get: (key, options) => files.get(key, options),
      has: (key) => files.has(key),
      getRange: (key, range, options) =>
        files.getRange(key, "suffixLength" in range ? { offset: 0, length: range.suffixLength } : range, options),
    };
  }
  const location = arrayPath === "" ? zarr.root(store) : zarr.root(store).resolve(arrayPath);
  const array = await zarr.open(location, { kind: "array" });
  let flat;
  if (array.shape.length === 0) {
    flat = [await zarr.get(array)];
  } else {
    const { data, shape, stride } = await zarr.get(array);
    const at = typeof data.get === "function" ? (i) => data.get(i) : (i) => data[i];
    const n = shape.reduce((a, b) => a * b, 1);
    const index = new Array(shape.length).fill(0);
    flat = new Array(n);
    for (let k = 0; k < n; k++) {
      flat[k] = at(index.reduce((sum, i, d) => sum + i * stride[d], 0));
      for (let d = shape.length - 1; d >= 0 && ++index[d] === shape[d]; d--) index[d] = 0;
    }
  }
  return {
    shape: array.shape,
    dtype: array.dtype,
    fill_value: element(array.dtype, array.fillValue),
    data: flat.map((v) => element(array.dtype, v)),
  };
}

const [root, ...arrayPaths] = process.argv.slice(2);
if (root === undefined) {
  process.stderr.write("usage: node read_with_zarrita.mjs STORE_ROOT [ARRAY_PATH...]\n");
  process.exit(2);
}
// One line per array; with several, an array it cannot read is a line {"path", "error"}.
let failed = false;
for (const arrayPath of arrayPaths.length > 0 ? arrayPaths : [""]) {
  try {
    const result = await read(path.resolve(root), arrayPath.replace(/^\/+|\/+$/g, ""));
    process.stdout.write(JSON.stringify(arrayPaths.length > 1 ? { path: arrayPath, ...result } : result) + "\n");
  } catch (e) {
    process.stderr.write(`read_with_zarrita.mjs: ${arrayPath}: ${e?.message ?? e}\n`);
    if (arrayPaths.length > 1) process.stdout.write(JSON.stringify({ path: arrayPath, error: String(e?.message ?? e) }) + "\n");
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
