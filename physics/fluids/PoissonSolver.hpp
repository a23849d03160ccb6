/// @file PoissonSolver.hpp
/// @brief Pressure Poisson solver of the fluids model: a direct solve by fast transforms
/// (FftPoisson.hpp), geometric multigrid (V-cycle, red-black Gauss-Seidel) as a preconditioner
/// for CG, plain CG and Jacobi for comparison, across ranks.
///
/// Solves lap(phi) = rhs for a cell-centred phi on a CartDecomposition with the standard
/// second-order (2d+1)-point Laplacian, periodic wrap on periodic axes and homogeneous Neumann
/// (mirrored ghosts, zero normal gradient) at walls. With no Dirichlet boundary the operator is
/// singular: the mean of rhs is removed (reproducibly) and phi is returned with zero mean.
/// Every dot product uses eddy::reproducibleSum, the multigrid hierarchy is a fixed function of
/// the global grid, and the transforms of fft see whole lines whatever the decomposition, so the
/// result is bitwise identical for any number of ranks.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "fluids/MultigridTuning.hpp"

#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace eddy::fluids {

/// Auto: Fft where the ranks can hold whole lines of every axis (FftPoisson::refusal), else
/// MultigridCG; resolve() says which.
enum class PoissonMethod { Auto, Fft, MultigridCG, CG, Jacobi };

/// "auto", "fft", "mgcg", "cg", "jacobi": the names of the deck's choices.
char const* toString(PoissonMethod m);

/// The method that runs for `m` on `decomp`: m itself, or for Auto fft or mgcg.
PoissonMethod resolve(PoissonMethod m, CartDecomposition const& decomp);

/// A direct solve (fft) whose relative residual exceeds this failed: round-off stays orders of
/// magnitude below it on any grid that fits in memory. Its tolerance is not a target to iterate
/// to, so a tighter one does not fail it.
constexpr double kDirectSolveResidualLimit = 1e-8;

struct PoissonOptions {
  PoissonMethod method = PoissonMethod::MultigridCG;
  /// Iterative methods stop when ||r|| / ||rhs|| <= tolerance (2-norm); fft is converged when
  /// its residual is within max(tolerance, kDirectSolveResidualLimit).
  double tolerance = 1e-10;
  int maxIterations = 200;  ///< iteration cap (CG iterations, or Jacobi sweeps)
  int preSmooth = 2;        ///< red-black Gauss-Seidel sweeps before restriction
  int postSmooth = 2;       ///< sweeps after prolongation
  /// Apply the CG operator to the inner cells while the halo exchange of the search direction
  /// runs on a second execution-space instance, then to the shell (bitwise the same result);
  /// likewise the multigrid levels whose ranks own at least multigrid.overlapCells cells each.
  bool overlap = false;
  /// Developer knobs of the multigrid (mgcg): the backend's defaults and the EDDY_MG_ variables,
  /// read when the options are made. Every setting gives the same bits.
  MultigridTuning multigrid = MultigridTuning::fromEnvironment();
  /// mgcg: the finest multigrid level's work field in single precision (Multigrid.hpp): fewer
  /// bytes a V-cycle, the same tolerance reached, other bits (the same on any decomposition).
  /// Off here, so that the API's default keeps the double bits; decks default to it on
  /// (fluids.poisson.precision: mixed).
  bool mixedPrecision = false;
};

struct PoissonStats {
  int iterations = 0;             ///< 1 for fft (a direct solve, from a zero guess)
  double relativeResidual = 0.0;  ///< ||r|| / ||rhs|| at the end; NaN: not measured
  std::vector<double> history;    ///< relative residual after each iteration, [0] = start
  bool converged = false;
};

class PoissonSolver {
 public:
  /// Collective over `comm`. `h` is the cell size per axis. options.method Auto is resolved
  /// (resolve()).
  PoissonSolver(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
                std::array<double, 3> const& h, PoissonOptions const& options);
  ~PoissonSolver();

  /// Collective. Solves lap(phi) = rhs; `phi` holds the initial guess on entry. On return the
  /// ghosts of `phi` are filled (halo exchange + wall mirror) so the caller can take gradients.
  /// Returns the statistics; does not throw when the cap is hit (the caller decides). `rhs` is
  /// left as it is, unless it is rightHandSide(): the solve then uses it as scratch.
  /// `check` false: fft leaves out the check of its direct solve (the norm of rhs, its mean and
  /// the residual: three reproducible sums and a pass of the operator), phi the same bits, and
  /// returns NaN as the residual; the iterative methods measure theirs as they go either way.
  PoissonStats solve(ExecSpace const& space, Field<MemSpace> const& rhs, Field<MemSpace>& phi,
                     bool check = true);

  /// The solver's own cell field (ghost width 1) for the right-hand side: fill its owned cells
  /// and pass it to solve, which overwrites it: once the right-hand side is read, its storage
  /// holds CG's A p and the multigrid fine residual.
  Field<MemSpace>& rightHandSide();

  /// Number of multigrid levels (1 for fft, CG and Jacobi).
  int levels() const;
  /// Bytes of device memory held by the solver (all levels, work vectors, halo buffers), the
  /// right-hand side field included. Fine-level cell fields (8 bytes per cell plus ghosts each):
  /// 4 for mgcg (right-hand side, r, p, z; plus the coarse levels, 3.4 bytes per cell in 3D),
  /// 3 for cg and for jacobi; 2 for fft plus its two pencil arrays (FftPoisson::bytes()).
  std::size_t bytes() const;

  /// The method that runs (Auto resolved).
  PoissonMethod method() const;
  /// One line for the log: the method, and for fft its pencils and transform library.
  std::string describe() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace eddy::fluids
