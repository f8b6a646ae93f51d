// The umbrella module: `import zarr;` gives the whole public API.
// It only re-exports the components; each lives in modules/zarr/<name>.cppm.
export module zarr;

export import zarr.error;
export import zarr.dtype;
export import zarr.arithmetic;
export import zarr.arithmetic.kernels;
export import zarr.element;
export import zarr.fill_value;
export import zarr.store;
export import zarr.codec;
export import zarr.codec.cast_value;
export import zarr.codec.reshape;
export import zarr.codec.transpose;
export import zarr.codec.scale_offset;
export import zarr.codec.fixedscaleoffset;
export import zarr.codec.bytes;
export import zarr.codec.packbits;
export import zarr.codec.blosc;
export import zarr.codec.conditional;
export import zarr.codec.crc32c;
export import zarr.codec.gzip;
export import zarr.codec.zstd;
export import zarr.codec.sharding_indexed;
export import zarr.codec.zfp;
export import zarr.metadata;
export import zarr.array;
export import zarr.builder;
export import zarr.parallel;
export import zarr.store.memory;
export import zarr.store.filesystem;
export import zarr.store.http;
export import zarr.store.s3;
