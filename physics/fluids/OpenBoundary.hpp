/// @file OpenBoundary.hpp
/// @brief The normal velocity on the open faces of the flow (inflow, outflow), set once a step
/// so that the volume leaving equals the volume entering.
///
/// The method is the classic one of fractional-step solvers with open boundaries: the normal
/// velocity on every open face is given before the projection, for the end of the step, so the
/// pressure Poisson problem keeps homogeneous Neumann conditions everywhere (and the fast
/// solvers work unchanged). Inflows take their profile at the step's end time. Outflows follow
/// their condition (convective: implicit upwind u_b' = (u_b + l u_i) / (1 + l), l = dt U / h,
/// with u_i the face next to it and U the bulk outflow speed; zero gradient: u_b' = u_i), then
/// every outflow face is shifted by one uniform velocity so that the volume leaving equals the
/// volume entering to round-off (the compatibility condition of the Neumann problem: without it
/// the projection could not remove the divergence). The RK stages of the step then see the
/// boundary at the step's end; the boundary values are first order in time for a changing
/// inflow, exact for a steady one.
///
/// The pressure's reference is the outflow: after each step the pressure is shifted so that
/// its mean over the cells next to the outflow faces is zero (outflowMean).
///
/// The boundary faces are written to both velocity buffers: the RK stages never compute them,
/// so every stage and halo exchange sees them. Each entry of a face plane, tangential ghosts
/// included, is computed from entries that are the same on every decomposition, and the sums
/// are reproducible: the bits do not depend on the rank count.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "fluids/FlowBoundary.hpp"

#include <mpi.h>

#include <array>

namespace eddy::fluids {

/// Volume per unit time through the open faces [L^3/T] (per unit depth in 2D [L^2/T]).
struct BoundaryFluxes {
  double in = 0.0;   ///< entering through the inflow faces
  double out = 0.0;  ///< leaving through the outflow faces
};

class OpenBoundaries {
 public:
  /// `length` the domain per axis [L]; `bc` as the flow has them.
  OpenBoundaries(MPI_Comm comm, CartDecomposition const& decomp,
                 std::array<double, 3> const& length, FlowBoundaries const& bc);

  /// Some face is open: apply() and outflowMean() do something.
  bool any() const { return m_any; }
  bool hasOutflow() const { return m_outflowArea > 0; }

  /// Collective. Sets the normal velocity on every open face of `u` and of `second` (the other
  /// velocity buffer) for `time`, the end of a step of `dt` (0 for the initial state: outflows
  /// then take the flux correction only, or the zero-gradient value). Leaves the ghosts to the
  /// caller (fillWallGhosts of each component). Returns the fluxes it set.
  BoundaryFluxes apply(ExecSpace const& space, std::array<Field<MemSpace>*, 3> const& u,
                       std::array<Field<MemSpace>*, 3> const& second, double time, double dt) const;

  /// Collective: the fluxes of `u` through the open faces (reproducible sums).
  BoundaryFluxes fluxes(ExecSpace const& space,
                        std::array<Field<MemSpace> const*, 3> const& u) const;

  /// Collective: the mean of p + phi over the cells next to the outflow faces (0 without an
  /// outflow): the constant to subtract so that the outflow is the pressure's reference.
  double outflowMean(ExecSpace const& space, Field<MemSpace> const& p,
                     Field<MemSpace> const& phi) const;

  /// The bulk speed of the inflows at `time`: their volume per unit time from the analytic
  /// profiles, over the outflow area (the convective outflow's phase speed) [L/T].
  double bulkOutflowSpeed(double time) const;

 private:
  /// Collective: sum over face (axis, side) of `f`'s boundary plane (owned entries), times the
  /// face cell area and the outward sign; 0 on ranks that do not touch it.
  double outwardFlux(ExecSpace const& space, Field<MemSpace> const& f, int axis, int side) const;

  MPI_Comm m_comm;
  CartDecomposition m_decomp;
  std::array<double, 3> m_length;
  std::array<double, 3> m_h;
  FlowBoundaries m_bc;
  bool m_any = false;
  double m_outflowArea = 0.0;  ///< [L^2] (2D: [L])
};

}  // namespace eddy::fluids
