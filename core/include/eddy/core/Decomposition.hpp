/// @file Decomposition.hpp
/// @brief Cartesian decomposition of a global 2D or 3D box of cells over MPI ranks.
///
/// The pure logic (process grid, splits, rank <-> coordinates, neighbours) needs no MPI: the
/// main constructor takes the rank count and this rank's number, so every rank's view of the
/// decomposition can be built and checked in one process. `fromComm` reads them from a
/// communicator.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

namespace eddy {

/// Three integers, one per axis (x, y, z). Host-side type; kernels take plain ints.
using Index3 = std::array<int, 3>;
/// Periodicity per axis.
using Periodic3 = std::array<bool, 3>;

/// One of the 27 neighbour directions, each component in {-1, 0, 1}.
using Direction = std::array<int, 3>;

/// Index of a direction in [0, 27), x fastest; 13 is (0, 0, 0). Used as MPI message tag.
constexpr int directionIndex(Direction const& d) {
  return (d[0] + 1) + 3 * (d[1] + 1) + 9 * (d[2] + 1);
}
/// Inverse of `directionIndex`.
constexpr Direction directionFromIndex(int index) {
  return Direction{index % 3 - 1, index / 3 % 3 - 1, index / 9 - 1};
}

/// A global box of `globalCells` cells split into a `procGrid` of ranks, one block per rank.
///
/// - Process grid: unless forced, the factorisation of the rank count that minimises the total
///   interior surface (cell faces cut between ranks) among those that give every rank at least
///   one cell; ties go to the grid with the fewest ranks along x, then along y, which keeps the
///   contiguous x rows long.
/// - Splits: along an axis of n cells over p ranks, coordinate c owns n / p cells, plus one if
///   c < n % p.
/// - Ranks: rank = cx + px * (cy + py * cz) (x fastest).
/// - 2D: z has one cell, procGrid z = 1, is never periodic and has no neighbours.
class CartDecomposition {
 public:
  /// Decomposes `globalCells` for rank `rank` of `nranks`, without MPI.
  ///
  /// `dims` is 2 or 3; for 2D, `globalCells[2]` must be 0 or 1 (stored as 1). `forcedGrid`
  /// entries > 0 fix the ranks along that axis, 0 leaves it to the factorisation; a fully given
  /// grid must multiply to `nranks`. Throws eddy::ConfigError naming the request otherwise, or
  /// when some rank would own no cell.
  CartDecomposition(Index3 globalCells, int dims, Periodic3 periodic, int nranks, int rank,
                    Index3 forcedGrid = {0, 0, 0});

  /// Decomposes for the calling rank of `comm` (reads its size and rank).
  static CartDecomposition fromComm(MPI_Comm comm, Index3 globalCells, int dims, Periodic3 periodic,
                                    Index3 forcedGrid = {0, 0, 0});

  /// The process grid `chooseProcGrid` would pick; throws eddy::ConfigError when none exists.
  static Index3 chooseProcGrid(Index3 globalCells, int dims, int nranks,
                               Index3 forcedGrid = {0, 0, 0});
  /// Interior surface of a process grid: number of cell faces between different ranks.
  static std::int64_t interiorSurface(Index3 globalCells, Index3 procGrid);
  /// Cells owned by coordinate `c` of `p` along an axis of `n` cells.
  static int splitCount(int n, int p, int c) { return n / p + (c < n % p ? 1 : 0); }
  /// Global index of the first cell owned by coordinate `c` of `p` along an axis of `n` cells.
  static int splitOffset(int n, int p, int c) { return c * (n / p) + (c < n % p ? c : n % p); }

  int dims() const { return m_dims; }
  Index3 const& globalCells() const { return m_global; }
  Periodic3 const& periodic() const { return m_periodic; }
  bool isPeriodic(int axis) const { return m_periodic[checkAxis(axis)]; }
  Index3 const& procGrid() const { return m_grid; }
  int nranks() const { return m_nranks; }
  int rank() const { return m_rank; }

  /// This rank's coordinates in the process grid.
  Index3 const& coords() const { return m_coords; }
  /// Cells owned by this rank along each axis.
  Index3 const& localCells() const { return m_local; }
  /// Global index of this rank's first owned cell along each axis.
  Index3 const& offset() const { return m_offset; }

  /// True when this rank touches the low (high) end of a non-periodic axis: a domain boundary
  /// whose ghosts belong to boundary conditions. Always false for z in 2D (not a spatial axis).
  bool isLowBoundary(int axis) const;
  bool isHighBoundary(int axis) const;

  /// Rank of the neighbour at offset `d` (components in {-1, 0, 1}), wrapping periodic axes
  /// (possibly this rank itself); MPI_PROC_NULL across a non-periodic boundary and for dz != 0
  /// in 2D. (0, 0, 0) gives this rank.
  int neighbor(Direction const& d) const;
  int neighbor(int dx, int dy, int dz) const { return neighbor(Direction{dx, dy, dz}); }

  /// Rank at process-grid coordinates `c` (no wrap; must lie in the grid).
  int rankOf(Index3 const& c) const;
  /// Process-grid coordinates of `rank`.
  Index3 coordsOf(int rank) const;
  /// Cells owned by `rank` along each axis.
  Index3 localCellsOf(int rank) const;
  /// Global index of the first cell owned by `rank` along each axis.
  Index3 offsetOf(int rank) const;

  /// "17x13x11 cells over 2x2x1 ranks, periodic x,y" (for logs and messages).
  std::string describe() const;

 private:
  int checkAxis(int axis) const;
  int checkRank(int rank) const;

  int m_dims = 3;
  Index3 m_global{1, 1, 1};
  Periodic3 m_periodic{false, false, false};
  Index3 m_grid{1, 1, 1};
  int m_nranks = 1;
  int m_rank = 0;
  Index3 m_coords{0, 0, 0};
  Index3 m_local{1, 1, 1};
  Index3 m_offset{0, 0, 0};
};

/// "AxBxC" for messages.
std::string toString(Index3 const& v);

}  // namespace eddy
