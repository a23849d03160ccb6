/// @file MomentumExchange.hpp
/// @brief Two-way coupling: the momentum that the particles' drag took from the fluid over a
/// step, given back to the flow's faces with the interpolation's own weights.
///
/// A particle whose drag changed its momentum by J over a step (J = m_p (v_new - v_old - g' dt),
/// gravity and buoyancy excluded: the drag impulse, exact for the ETD2 step) gives -J to the
/// fluid: to component c's faces around it with the trilinear (bilinear in 2D) weights with
/// which MacStencil interpolates that component there. The weights of a particle add up to one,
/// so the fluid gets exactly what the particles lost, up to the rounding below. As a velocity
/// change du = -sum w J_c / (rho_f V), V the cell's volume (h_x h_y, a layer of unit depth, in
/// 2D), the flow adds it to its faces before the stages of its next step (fluids::FaceImpulse)
/// and projects at the end of that step: the coupling is explicit, lagged by one step.
///
/// A contribution that falls on a face the flow does not compute (a wall's or an open
/// boundary's face, or a ghost beyond the domain) goes to the nearest face the flow computes
/// along that axis, so none is lost at walls.
///
/// Sums: each contribution is rounded once to fixed point (eddy::FixedPoint, the scale from
/// the largest |J_c| over all ranks and the particle count) and added as a 64-bit integer,
/// atomically; the ghost faces' sums go to their owners (HaloExchange::sumIntoOwners), and the
/// flow reads the owned sums as they are (fluids::FaceImpulse). Integer
/// sums do not depend on the order of the adds, the thread count, the backend or the
/// decomposition: the fluid's velocity stays bitwise the same on any rank count. Each
/// contribution is off by at most half the unit, 2^-61 of (2 x count x the largest |J_c|).
///
/// Memory: three 64-bit integer face fields with the flow's ghost layers (24 bytes a cell plus
/// ghosts), and halo buffers.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/FixedPoint.hpp"
#include "eddy/core/HaloExchange.hpp"
#include "eddy/core/ParticleComm.hpp"
#include "fluids/StageCoupling.hpp"
#include "particles/MacInterpolation.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>

namespace eddy::particles {

/// The global face index range [lo, hi] of each component the flow computes, per axis, and the
/// stencil the contributions follow; device-copyable.
struct DepositRule {
  MacStencil stencil;
  int first[3][3] = {};  ///< [c][a]: the first face of component c the flow computes along a
  int last[3][3] = {};   ///< ... and the last (global indices; unbounded on periodic axes)
  FixedPoint scale;
  double perVolume = 1.0;  ///< 1 / (rho_f V)

  /// Local index along axis a of stencil entry `local` of component c, moved onto the faces
  /// the flow computes.
  KOKKOS_INLINE_FUNCTION int onComputed(int c, int a, int local) const {
    int const g = local + stencil.offset[a];
    int const clamped = g < first[c][a] ? first[c][a] : (g > last[c][a] ? last[c][a] : g);
    return clamped - stencil.offset[a];
  }
};

/// The faces' share of the particles' drag impulses, on the flow's decomposition.
class MomentumExchange {
 public:
  /// Collective over `comm`: fields of `decomp`'s block with `ghost` layers (the flow's), for a
  /// fluid of density `fluidDensity` in a domain of `length` (origin 0).
  MomentumExchange(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
                   std::array<double, 3> const& length, int ghost, double fluidDensity);

  /// Collective: deposits -J of this rank's particles [0, n) (positions `x`, impulses `j`) and
  /// makes the velocity changes of impulse(); `count` particles over all ranks.
  void deposit(ExecSpace const& space, Positions<MemSpace> const& x,
               ParticleVectors<MemSpace> const& j, int n, long long count);
  /// The sums of the last deposit, as velocity changes (acts: some impulse was not zero).
  fluids::FaceImpulse impulse() const;
  /// Bytes of device memory held.
  std::size_t bytes() const;

 private:
  MPI_Comm m_comm;
  int m_dims;
  DepositRule m_rule;
  std::array<std::unique_ptr<Field<MemSpace, long long>>, 3> m_sum;
  std::array<std::unique_ptr<HaloExchange<ExecSpace, long long>>, 3> m_halo;
  bool m_acts = false;
};

}  // namespace eddy::particles
