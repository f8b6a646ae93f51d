// Writing one array from many MPI ranks (README "Writing from many processes and machines"):
// rank 0 creates a 40 x 36 uint32 array of 16 x 16 shards; each of 4 ranks (a 2 x 2 grid)
// writes its 20 x 18 block, row by row, blocks that do not line up with the shards, so ranks
// share shards; after a barrier rank 0 reads the whole array and checks every value.
//   mpirun -np 4 mpi_write_blocks DIR
//   mpirun -np 4 mpi_write_blocks http://host:port BUCKET   (S3; AWS_ACCESS_KEY_ID and
//                                                            AWS_SECRET_ACCESS_KEY from the environment)
#include <mpi.h>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
import zarr;

namespace {

constexpr std::uint64_t rows = 40, cols = 36, block_rows = 20, block_cols = 18;

std::uint32_t value_at(std::uint64_t r, std::uint64_t c) { return static_cast<std::uint32_t>(r * 1000 + c + 1); }

std::shared_ptr<zarr::store> open_store(int argc, char** argv, bool first) {
  const std::string where = argv[1];
  if (argc == 2) return std::make_shared<zarr::filesystem_store>(where);
  zarr::s3_options o;
  o.endpoint = where;
  o.bucket = argv[2];
  o.prefix = "blocks.zarr";
  auto s = std::make_shared<zarr::s3_store>(o);
  if (first) s->create_bucket();
  return s;
}

zarr::array_metadata metadata() {
  return zarr::array_metadata::parse(boost::json::parse(R"({
    "zarr_format": 3, "node_type": "array", "shape": [40, 36], "data_type": "uint32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 16]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
    "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 4],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
      "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]})")
                                         .as_object());
}

int run(int argc, char** argv, int rank, int size) {
  if (size != 4) throw std::runtime_error("expected 4 ranks, got " + std::to_string(size));
  if (rank == 0) zarr::array::create(open_store(argc, argv, true), "blocks", metadata(), true);
  MPI_Barrier(MPI_COMM_WORLD);
  auto a = zarr::array::open(open_store(argc, argv, false), "blocks");
  const std::uint64_t r0 = (static_cast<std::uint64_t>(rank) / 2) * block_rows, c0 = (static_cast<std::uint64_t>(rank) % 2) * block_cols;
  for (std::uint64_t r = r0; r < r0 + block_rows; ++r) {
    std::vector<std::uint32_t> row;
    for (std::uint64_t c = c0; c < c0 + block_cols; ++c) row.push_back(value_at(r, c));
    a.write<std::uint32_t>(zarr::region{{r, c0}, {r + 1, c0 + block_cols}}, row);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) return 0;
  const auto values = zarr::array::open(open_store(argc, argv, false), "blocks").read<std::uint32_t>(zarr::region::all(a.shape()));
  std::size_t wrong = 0;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c)
      if (values[r * cols + c] != value_at(r, c) && wrong++ < 5)
        std::fprintf(stderr, "(%llu, %llu): expected %u, got %u\n", static_cast<unsigned long long>(r),
                     static_cast<unsigned long long>(c), value_at(r, c), values[r * cols + c]);
  std::printf("%zu of %llu values wrong\n", wrong, static_cast<unsigned long long>(rows * cols));
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 2;
  if (argc == 2 || argc == 3) {
    try {
      status = run(argc, argv, rank, size);
    } catch (const std::exception& e) {  // the other ranks may wait at a barrier: end them all
      std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  } else if (rank == 0) {
    std::fprintf(stderr, "usage: mpi_write_blocks DIR | mpi_write_blocks ENDPOINT BUCKET\n");
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
