/// @file PoissonSolver.hpp
/// @brief Pressure Poisson solver of the fluids model: geometric multigrid (V-cycle, red-black
/// Gauss-Seidel) as a preconditioner for CG, plain CG and Jacobi for comparison, across ranks.
///
/// Solves lap(phi) = rhs for a cell-centred phi on a CartDecomposition with the standard
/// second-order (2d+1)-point Laplacian, periodic wrap on periodic axes and homogeneous Neumann
/// (mirrored ghosts, zero normal gradient) at walls. With no Dirichlet boundary the operator is
/// singular: the mean of rhs is removed (reproducibly) and phi is returned with zero mean.
/// Every dot product uses eddy::reproducibleSum, and the multigrid hierarchy is a fixed function
/// of the global grid, so the result is bitwise identical for any number of ranks.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace eddy::fluids {

enum class PoissonMethod { MultigridCG, CG, Jacobi };

/// "mgcg", "cg", "jacobi": the names of the deck's choices.
char const* toString(PoissonMethod m);

struct PoissonOptions {
  PoissonMethod method = PoissonMethod::MultigridCG;
  double tolerance = 1e-10;  ///< stop when ||r|| / ||rhs|| <= tolerance (2-norm)
  int maxIterations = 200;   ///< iteration cap (CG iterations, or Jacobi sweeps)
  int preSmooth = 2;         ///< red-black Gauss-Seidel sweeps before restriction
  int postSmooth = 2;        ///< sweeps after prolongation
  /// Multigrid levels held whole on each rank with at most this many cells run, with all the
  /// coarser ones, in one launch (one team): the same arithmetic, without a launch and an
  /// exchange per step. 0: off; -1: EDDY_MG_FUSED_CELLS from the environment (default
  /// compat::fusedCoarseCells).
  long long fusedCoarseCells = -1;
  /// On several ranks, multigrid levels with at most max(this, fusedCoarseCells) cells are
  /// gathered onto every rank and solved there redundantly (the same bits). -1:
  /// EDDY_MG_GATHER_CELLS from the environment (default compat::gatheredCoarseCells).
  long long gatheredCoarseCells = -1;
  /// Apply the CG operator to the inner cells while the halo exchange of the search direction
  /// runs on a second execution-space instance, then to the shell (bitwise the same result);
  /// likewise the multigrid levels whose ranks own at least `overlapCells` cells each
  /// (Multigrid's constructor).
  bool overlap = false;
  /// With overlap: the least owned cells per rank of a multigrid level that overlaps its
  /// exchanges. -1: EDDY_MG_OVERLAP_CELLS from the environment (default 131072).
  long long overlapCells = -1;
  /// Ghost layers of the multigrid corrections, 1 or 2 (Multigrid.hpp): 2 exchanges a level's
  /// correction once per red-black sweep instead of before every half sweep (the same bits).
  /// -1: EDDY_MG_CORRECTION_RINGS from the environment (default 2).
  int correctionRings = -1;
  /// How the finest multigrid level runs its red-black sweeps (Multigrid's constructor): 0 two
  /// half sweeps in place, 1 out of place by two loops, 2 out of place in one pass, 3 as 2 with
  /// the sweep from zero as a seven-point map of b (the same bits). -1: EDDY_MG_FINE_SWEEPS from
  /// the environment (default compat::fineSweeps).
  int fineSweeps = -1;
  /// With fineSweeps 1 to 3 and no overlap: the coarser multigrid levels whose blocks hold at
  /// least this many cells sweep out of place too (0: the finest level only). -1:
  /// EDDY_MG_OUT_OF_PLACE_CELLS from the environment (default compat::outOfPlaceCells).
  long long outOfPlaceCells = -1;
  /// mgcg: the finest multigrid level's work field in single precision (Multigrid.hpp): fewer
  /// bytes a V-cycle, the same tolerance reached, other bits (the same on any decomposition).
  /// Off here, so that the API's default keeps the double bits; decks default to it on
  /// (fluids.poisson.precision: mixed).
  bool mixedPrecision = false;
};

struct PoissonStats {
  int iterations = 0;
  double relativeResidual = 0.0;  ///< ||r|| / ||rhs|| at the end
  std::vector<double> history;    ///< relative residual after each iteration, [0] = start
  bool converged = false;
};

class PoissonSolver {
 public:
  /// Collective over `comm`. `h` is the cell size per axis.
  PoissonSolver(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
                std::array<double, 3> const& h, PoissonOptions const& options);
  ~PoissonSolver();

  /// Collective. Solves lap(phi) = rhs; `phi` holds the initial guess on entry. On return the
  /// ghosts of `phi` are filled (halo exchange + wall mirror) so the caller can take gradients.
  /// Returns the statistics; does not throw when the cap is hit (the caller decides). `rhs` is
  /// left as it is, unless it is rightHandSide(): the solve then uses it as scratch.
  PoissonStats solve(ExecSpace const& space, Field<MemSpace> const& rhs, Field<MemSpace>& phi);

  /// The solver's own cell field (ghost width 1) for the right-hand side: fill its owned cells
  /// and pass it to solve, which overwrites it: once the right-hand side is read, its storage
  /// holds CG's A p and the multigrid fine residual.
  Field<MemSpace>& rightHandSide();

  /// Number of multigrid levels (1 for CG and Jacobi).
  int levels() const;
  /// Bytes of device memory held by the solver (all levels, work vectors, halo buffers), the
  /// right-hand side field included. Fine-level cell fields (8 bytes per cell plus ghosts each):
  /// 4 for mgcg (right-hand side, r, p, z; plus the coarse levels, 3.4 bytes per cell in 3D),
  /// 3 for cg and for jacobi.
  std::size_t bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace eddy::fluids
