/// @file MacInterpolation.hpp
/// @brief The velocity of a MAC grid at any point: trilinear (bilinear in 2D) interpolation of
/// each staggered component from its own faces.
///
/// Component c lives on the faces normal to axis c: face (i, j, k) of it at
/// (i h_x, (j + 1/2) h_y, (k + 1/2) h_z) for c = x, and so on. At a point p the component is
/// the tensor-product linear interpolant of the 2^dims faces around p in that staggered grid.
/// The stencil is found from p's global coordinate s = p / h (minus 1/2 across the faces), so a
/// point gets the same faces and weights whichever rank holds it: with the halo's copies of
/// the neighbours' faces, the result is bitwise the same on any decomposition. Near a wall the
/// stencil reads the wall's ghost faces (the flow's mirror), so the interpolant takes the wall's
/// velocity on the wall.
///
/// A point may lie outside this rank's block by up to (g - 1/2) cells (g the ghost width): the
/// stencil then reads ghosts only. Farther points are clamped to the ghost layers (never out
/// of bounds); the caller keeps its points within reach (Tracers limits the time step so).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

#include <array>

namespace eddy::particles {

/// The geometry a point needs to find its faces on this rank; device-copyable.
struct MacStencil {
  int dims = 3;
  double invH[3] = {1.0, 1.0, 1.0};
  int offset[3] = {0, 0, 0};  ///< global index of this rank's first owned cell
  int cells[3] = {1, 1, 1};   ///< owned cells per axis
  int ghost = 1;              ///< ghost layers of the velocity fields

  /// Of `decomp`'s block over a domain of `length` (origin 0), velocity fields with `ghost`
  /// layers.
  static MacStencil make(CartDecomposition const& decomp, std::array<double, 3> const& length,
                         int ghost) {
    MacStencil s;
    s.dims = decomp.dims();
    for (int a = 0; a < 3; ++a) {
      s.invH[a] = a < s.dims ? decomp.globalCells()[a] / length[a] : 0.0;
      s.offset[a] = decomp.offset()[a];
      s.cells[a] = decomp.localCells()[a];
    }
    s.ghost = ghost;
    return s;
  }

  /// Along axis a for component c at coordinate x: the local index of the stencil's low entry
  /// and the weight of its high one.
  KOKKOS_INLINE_FUNCTION void locate(int a, int c, double x, int& low, double& w) const {
    double const s = x * invH[a] - (a == c ? 0.0 : 0.5);
    double const f = math::floor(s);
    w = s - f;
    int i = static_cast<int>(f) - offset[a];
    // Faces run to cells + ghost along their own axis, cell centres to cells + ghost - 1.
    int const top = cells[a] + ghost - (a == c ? 1 : 2);
    if (i < -ghost) {
      i = -ghost;
      w = 0.0;
    } else if (i > top) {
      i = top;
      w = 1.0;
    }
    low = i;
  }

  /// Component c of the velocity `u` (the flow's face field of that component) at (x, y, z).
  template <class View>
  KOKKOS_INLINE_FUNCTION double component(View const& u, int c, double x, double y,
                                          double z) const {
    int i, j, k = 0;
    double wx, wy, wz = 0.0;
    locate(0, c, x, i, wx);
    locate(1, c, y, j, wy);
    if (dims == 3) locate(2, c, z, k, wz);
    double const lo = (1.0 - wy) * ((1.0 - wx) * u(i, j, k) + wx * u(i + 1, j, k)) +
                      wy * ((1.0 - wx) * u(i, j + 1, k) + wx * u(i + 1, j + 1, k));
    if (dims == 2) return lo;
    double const hi = (1.0 - wy) * ((1.0 - wx) * u(i, j, k + 1) + wx * u(i + 1, j, k + 1)) +
                      wy * ((1.0 - wx) * u(i, j + 1, k + 1) + wx * u(i + 1, j + 1, k + 1));
    return (1.0 - wz) * lo + wz * hi;
  }
};

/// Ghost layers of velocity a flow keeps for particles: the stencil then reaches 1.5 cells
/// beyond the block, where a stage may carry a particle.
inline constexpr int kVelocityGhosts = 2;

/// The flow's velocity components as the interpolation reads them (components >= dims unused).
using FaceVelocity = std::array<GhostedView<MemSpace>, 3>;

}  // namespace eddy::particles
