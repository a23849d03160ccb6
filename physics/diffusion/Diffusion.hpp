/// @file Diffusion.hpp
/// @brief Scalar diffusion du/dt = kappa lap(u) on a decomposed cell-centred grid.
///
/// Second-order central differences, forward Euler in time, halo exchange every step. Periodic
/// axes wrap; walls are insulating (zero flux, mirrored ghosts), so the integral of u is
/// conserved exactly up to round-off on any grid. The initial state is one Fourier mode,
/// u0 = B + A prod_a cos(k_a x_a), k_a = 2 pi m_a / L_a on periodic axes and pi m_a / L_a between
/// walls, whose mode decays as exp(-kappa |k|^2 t): the analytic solution the run reports its error
/// against. The model exercises the decomposition, halo exchange and reproducible reductions of
/// eddy::core end to end; results are bitwise identical on any rank count.
///
/// Memory: two cell fields, 16 bytes per cell plus ghosts.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/HaloExchange.hpp"

#include <mpi.h>

#include <array>
#include <memory>
#include <vector>

namespace eddy::diffusion {

/// Physical parameters (deck section `diffusion`).
struct Parameters {
  double diffusivity = 0.01;         ///< kappa [L^2/T]
  double dt = 0.0;                   ///< time step [T]; 0 = `stability` x the explicit limit
  double stability = 0.5;            ///< fraction of the explicit stability limit
  std::array<int, 3> mode{1, 1, 1};  ///< Fourier mode numbers of the initial state
  double amplitude = 1.0;            ///< A
  double background = 0.0;           ///< constant B added to the mode (u0 = B + A prod cos)
};

/// Every reason the model cannot run with `params` on a `dims`-D grid of cell size `spacing`,
/// each naming its deck key (empty: it can): the one check of the parameters, thrown by the
/// constructor and reported by `eddy validate` at its place in the deck.
std::vector<Violation> violations(Parameters const& params, int dims,
                                  std::array<double, 3> const& spacing);

/// The explicit (forward Euler) stability limit of the time step: 1 / (2 kappa sum 1/h_a^2).
double stabilityLimit(double diffusivity, int dims, std::array<double, 3> const& spacing);

/// Domain-integrated quantities, identical on every rank and for every decomposition.
struct Diagnostics {
  double total = 0.0;     ///< integral of u over the domain
  double l2Error = 0.0;   ///< sqrt(mean (u - u_exact)^2)
  double maxAbs = 0.0;    ///< max |u|
  double checksum = 0.0;  ///< sum of u(i,j,k) w(i,j,k) with w a fixed function of the global cell
};

class Model {
 public:
  /// Sets up fields and the halo exchange on `decomp` (collective over `comm`) and the initial
  /// state. `length` is the domain size per axis [L].
  Model(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
        std::array<double, 3> const& length, int ghost, Parameters const& params);
  ~Model();

  /// Advances one step of `dt` (at most stableDt()): halo exchange, wall ghosts, stencil
  /// update.
  void step(ExecSpace const& space, double dt);
  /// Advances one step of dt().
  void step(ExecSpace const& space) { step(space, m_dt); }
  /// Continues from a saved state: `u` holds this rank's owned cells (x fastest), at `step`
  /// and `time`. Throws eddy::Error when the count does not match this rank's block.
  void restoreState(ExecSpace const& space, std::vector<double> const& u, long long step,
                    double time);
  /// Collective: the diagnostics of the current state.
  Diagnostics diagnostics(ExecSpace const& space) const;
  /// The analytic solution at the centre of global cell (i, j, k) at time t.
  double exact(int i, int j, int k, double t) const;

  double time() const { return m_time; }
  /// The model's own time step: diffusion.dt, or `stability` times the explicit limit.
  double dt() const { return m_dt; }
  long long stepCount() const { return m_step; }
  /// The explicit (forward Euler) stability limit of the time step.
  double stableDt() const;
  /// Decay rate kappa |k|^2 of the initial mode.
  double decayRate() const;
  Field<MemSpace> const& field() const { return *m_u; }

  // Kernels; public only because CUDA lambdas may not live in private member functions.
  void applyStencil(ExecSpace const& space, double dt, Field<MemSpace> const& u,
                    Field<MemSpace>& out) const;
  void setInitialState(ExecSpace const& space);

 private:
  MPI_Comm m_comm;
  CartDecomposition m_decomp;
  std::array<double, 3> m_length;
  std::array<double, 3> m_h;  ///< cell size per axis
  std::array<double, 3> m_k;  ///< wave number per axis
  Parameters m_params;
  std::unique_ptr<Field<MemSpace>> m_u, m_next;
  std::unique_ptr<HaloExchange<ExecSpace>> m_halo;
  double m_time = 0.0;
  double m_dt = 0.0;
  long long m_step = 0;
};

}  // namespace eddy::diffusion
