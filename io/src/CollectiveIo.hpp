/// @file CollectiveIo.hpp
/// @brief The collective protocol snapshots and checkpoints share over SnapshotHdf5.hpp: the
/// ranks agree on failure and throw one error, rank 0 claims a file's room first, and grid
/// blocks and particle rows are written and read either collectively through MPI-IO (parallel
/// HDF5) or through rank 0 in messages of bounded size (any HDF5).
#pragma once

#include "SnapshotHdf5.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/io/Snapshot.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace eddy::io::detail {

/// Every rank learns whether any rank failed; all then run `cleanup` and throw the same
/// collective eddy::IoError, `context: [rank N] message` of the lowest failing rank.
void agree(MPI_Comm comm, Failure const& failure, std::string const& context,
           std::function<void()> const& cleanup = {});

/// Creates `path` and makes sure it can hold `bytes`: writes a first block (a device such as
/// /dev/full refuses it) and asks the file system to allocate the rest (a full disk or quota
/// refuses that; file systems without posix_fallocate are not asked).
void reserveRoom(std::string const& path, long long bytes, Failure& failure);

/// Entries of a box of `n` per axis.
long long product(Index3 const& n);

/// The write/read mode `mode` stands for with this build's HDF5: auto is collective with a
/// parallel HDF5, gather with a serial one. Throws ConfigError for collective on a serial HDF5,
/// naming `what` ("snapshot", "checkpoint").
SnapshotMode resolveMode(SnapshotMode mode, char const* what);

/// Collective: where this rank's `count` rows go in a dataset of all ranks' rows (in rank
/// order): its first row and the total.
struct RowRange {
  long long first = 0;
  long long total = 0;
};
RowRange globalRows(MPI_Comm comm, long long count);

/// A box of a rank's block that is contiguous in its x-fastest buffer.
struct Slab {
  Index3 lo{0, 0, 0}, hi{0, 0, 0};
  Index3 extent() const { return {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}; }
};

/// Splits a block of `n` entries into contiguous slabs of at most `maxElems` values: whole
/// planes when a plane fits, else rows of one plane, else pieces of one row. Sender and
/// receiver compute the same list.
std::vector<Slab> splitBlock(Index3 const& n, long long maxElems);

/// HDF5 shape of a per-axis triple: (z, y, x), C order (x fastest). 2D grids are one cell thick
/// in z, (1, y, x), so that XDMF readers lay them in the x-y plane (ParaView puts a 2D mesh in
/// the y-z plane).
std::vector<hsize_t> fileOrder(Index3 const& v);

/// Where one rank's block of a global grid array lies, per axis (x, y, z).
struct GridBox {
  Index3 global{1, 1, 1};  ///< entries of the whole array
  Index3 offset{0, 0, 0};  ///< global index of this rank's first entry
  Index3 count{0, 0, 0};   ///< this rank's entries
};

/// Collective: creates float64 dataset `path` of shape fileOrder(box.global) with attribute
/// `units`, and puts every rank's block `values` (x fastest) in it: with `collective` all ranks
/// write their hyperslab through MPI-IO (`out` on every rank), otherwise the ranks send their
/// blocks to rank 0 (`out` on rank 0 only, nullptr elsewhere) in messages of at most
/// `maxMessageBytes`, and rank 0 writes them; rank 0 keeps receiving after a failure.
void writeGrid(Hdf5Output* out, MPI_Comm comm, bool collective, std::string const& path,
               std::string const& units, GridBox const& box, double const* values,
               std::size_t maxMessageBytes);

/// Collective, the reverse of writeGrid: every rank gets its block of dataset `path` (which
/// must have the shape of box.global) into `values` (x fastest, box.count entries): read as a
/// hyperslab through MPI-IO (`in` on every rank), or read by rank 0 (`in` on rank 0 only) and
/// sent in messages of at most `maxMessageBytes` (after a failure rank 0 still sends, so no
/// rank waits forever; the caller agrees on the failure afterwards).
void readGrid(Hdf5Input* in, MPI_Comm comm, bool collective, std::string const& path,
              GridBox const& box, double* values, std::size_t maxMessageBytes);

/// One array of per-row values (particle arrays): `width` values of one type per row.
struct RowColumn {
  std::string name;  ///< dataset name inside its group
  int width = 1;     ///< values per row: 1 gives a 1D dataset, more an (N, width) one
  hid_t fileType;
  hid_t memType;
  MPI_Datatype mpiType;
  std::size_t elemBytes;
  std::string units;
};

/// A RowColumn built by a call: the HDF5 type macros expand to comma expressions, which nvcc's
/// front end misreads inside braced initialisers.
inline RowColumn rowColumn(std::string name, int width, hid_t fileType, hid_t memType,
                           MPI_Datatype mpiType, std::size_t elemBytes, std::string units) {
  RowColumn c;
  c.name = std::move(name);
  c.width = width;
  c.fileType = fileType;
  c.memType = memType;
  c.mpiType = mpiType;
  c.elemBytes = elemBytes;
  c.units = std::move(units);
  return c;
}

/// Collective: creates dataset `path` of `total` rows of `column` and puts this rank's `count`
/// rows `data` at row `first` (ranks in rank order): collectively through MPI-IO, or sent to
/// rank 0 in messages of at most `maxMessageBytes` (`out` as in writeGrid).
void writeRows(Hdf5Output* out, MPI_Comm comm, bool collective, std::string const& path,
               RowColumn const& column, void const* data, long long first, long long count,
               long long total, std::size_t maxMessageBytes);

/// Collective, the reverse of writeRows: every rank gets its own rows [first, first + count) of
/// dataset `path` (ranges may differ and overlap) into `data`: read through MPI-IO, or read by
/// rank 0 and sent in messages of at most `maxMessageBytes` (`in` as in readGrid).
void readRows(Hdf5Input* in, MPI_Comm comm, bool collective, std::string const& path,
              RowColumn const& column, void* data, long long first, long long count,
              std::size_t maxMessageBytes);

}  // namespace eddy::io::detail
