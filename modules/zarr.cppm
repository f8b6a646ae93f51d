// The umbrella module: `import zarr;` gives the whole public API.
// It only re-exports the components; each lives in modules/zarr/<name>.cppm.
export module zarr;

export import zarr.error;
export import zarr.dtype;
export import zarr.arithmetic;
export import zarr.arithmetic.kernels;
export import zarr.store;
export import zarr.codec;
export import zarr.store.memory;
export import zarr.store.filesystem;
