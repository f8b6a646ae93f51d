// One measured operation of zarrita.js on the bench/compare workload (bench/README.md).
// bench/compare copies this file next to the node_modules it installs (ESM imports resolve
// from the script's folder) and runs it once per measurement.
// Usage: node zarrita_peer.mjs OP LAYOUT SIZE STORE_DIR
//   OP: write (uncompressed, zstd only: zarrita cannot write shards) | read | read_chunks | read_inner
// Prints one JSON line {op, layout, threads: 1, size, seconds, cpu_seconds, mismatches}; only the
// operation is timed (not the data generation before it nor the check after it).
import { performance } from "node:perf_hooks";
import * as zarr from "zarrita";
import { FileSystemStore } from "@zarrita/storage";

const [op, layout, sizeText, dir] = process.argv.slice(2);
if (!dir) {
	console.error("usage: node zarrita_peer.mjs OP LAYOUT SIZE STORE_DIR");
	process.exit(2);
}
const n = Number(sizeText);
const chunk = n >= 256 ? 128 : n / 2; // as zarr.bench.compare
const inner = chunk / 4;

// Value at [z][y][x] (x fastest): (x + floor(y*y/32) + z*z*z) mod 65536; exact in doubles.
const valueAt = (z, y, x) => (x + Math.floor((y * y) / 32) + z * z * z) % 65536;

// The boxes of a tiling (edges, outermost first) in buffer order: [z0, y0, x0, edge].
function boxes(tiles) {
	const out = [];
	const walk = (level, z0, y0, x0, edge) => {
		if (level === tiles.length) return void out.push([z0, y0, x0, edge]);
		const t = tiles[level];
		for (let z = 0; z < edge; z += t)
			for (let y = 0; y < edge; y += t)
				for (let x = 0; x < edge; x += t) walk(level + 1, z0 + z, y0 + y, x0 + x, t);
	};
	walk(0, 0, 0, 0, n);
	return out;
}

function countMismatches(data, z0, y0, x0, e) {
	let bad = 0;
	let i = 0;
	for (let z = z0; z < z0 + e; ++z)
		for (let y = y0; y < y0 + e; ++y)
			for (let x = x0; x < x0 + e; ++x) bad += data[i++] !== valueAt(z, y, x) ? 1 : 0;
	return bad;
}

const codecs = {
	uncompressed: [{ name: "bytes", configuration: { endian: "little" } }],
	zstd: [
		{ name: "bytes", configuration: { endian: "little" } },
		{ name: "zstd", configuration: { level: 0, checksum: false } },
	],
};

const store = new FileSystemStore(dir);
let seconds = 0;
let cpu0 = null;
let cpuSeconds = 0;
const cpuStart = () => (cpu0 = process.cpuUsage());
const cpuStop = () => {
	const d = process.cpuUsage(cpu0);
	cpuSeconds = (d.user + d.system) / 1e6;
};
let mismatches = 0;
if (op === "write") {
	if (!codecs[layout]) throw new Error(`zarrita cannot write layout ${layout}`);
	const data = new Uint16Array(n * n * n);
	let i = 0;
	for (let z = 0; z < n; ++z) for (let y = 0; y < n; ++y) for (let x = 0; x < n; ++x) data[i++] = valueAt(z, y, x);
	cpuStart();
	const t0 = performance.now();
	const arr = await zarr.create(zarr.root(store), {
		shape: [n, n, n],
		chunkShape: [chunk, chunk, chunk],
		dtype: "uint16",
		codecs: codecs[layout],
		fillValue: 0,
	});
	await zarr.set(arr, null, { data, shape: [n, n, n], stride: [n * n, n, 1] });
	seconds = (performance.now() - t0) / 1000;
	cpuStop();
} else if (op === "read") {
	cpuStart();
	const t0 = performance.now();
	const arr = await zarr.open(zarr.root(store), { kind: "array" });
	const { data, stride } = await zarr.get(arr);
	seconds = (performance.now() - t0) / 1000;
	cpuStop();
	if (stride[2] !== 1 || stride[1] !== n) throw new Error(`unexpected strides ${stride}`);
	mismatches = countMismatches(data, 0, 0, 0, n);
} else if (op === "read_chunks" || op === "read_inner") {
	const list = boxes(op === "read_chunks" ? [chunk] : [chunk, inner]);
	const parts = new Array(list.length);
	cpuStart();
	const t0 = performance.now();
	const arr = await zarr.open(zarr.root(store), { kind: "array" });
	for (let k = 0; k < list.length; ++k) {
		const [z0, y0, x0, e] = list[k];
		parts[k] = await zarr.get(arr, [zarr.slice(z0, z0 + e), zarr.slice(y0, y0 + e), zarr.slice(x0, x0 + e)]);
	}
	seconds = (performance.now() - t0) / 1000;
	cpuStop();
	for (let k = 0; k < list.length; ++k) mismatches += countMismatches(parts[k].data, ...list[k]);
} else {
	console.error(`unknown op ${op}`);
	process.exit(2);
}
console.log(JSON.stringify({ op, layout, threads: 1, size: n, seconds, cpu_seconds: cpuSeconds, mismatches }));
process.exit(mismatches === 0 ? 0 : 1);
