/// @file MacInterpolation.hpp
/// @brief The velocity of a MAC grid at any point: trilinear (bilinear in 2D) or M4'
/// interpolation of each staggered component from its own faces.
///
/// Component c lives on the faces normal to axis c: face (i, j, k) of it at
/// (i h_x, (j + 1/2) h_y, (k + 1/2) h_z) for c = x, and so on. At a point p the component is
/// the tensor-product interpolant of the faces around p in that staggered grid:
/// - Interpolation::Linear: the tent function, 2 faces per axis (2^dims in all); exact for
///   linear fields, second order, with kinks at the faces.
/// - Interpolation::M4: Monaghan's M4' kernel (J. J. Monaghan, J. Comput. Phys. 60 (1985)),
///   W(r) = 1 - 5/2 r^2 + 3/2 |r|^3 for |r| < 1, (2 - |r|)^2 (1 - |r|) / 2 for 1 <= |r| < 2, in
///   cells: 4 faces per axis (4^dims in all). It takes the face values at the faces (W(0) = 1,
///   W(+-1) = W(+-2) = 0), is exact for quadratic fields, third order and continuously
///   differentiable, so tracers keep their integrator's order where the tent's kinks cost one.
/// The stencil is found from p's global coordinate s = p / h (minus 1/2 across the faces), so a
/// point gets the same faces and weights whichever rank holds it: with the halo's copies of
/// the neighbours' faces, the result is bitwise the same on any decomposition. Near a wall the
/// stencil reads the wall's ghost faces (the flow's mirror), so the interpolant takes the wall's
/// velocity on the wall.
///
/// A point may lie outside this rank's block by up to (g - reach) cells (g the ghost width; the
/// reach is 1/2 for Linear, 3/2 for M4: velocityGhosts()): the stencil then reads ghosts only.
/// Farther points are clamped to the ghost layers (never out of bounds); the caller keeps its
/// points within reach (Cloud limits the time step so).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

#include <array>

namespace eddy::particles {

/// How a velocity component is interpolated to a point (see the file's comment).
enum class Interpolation { Linear, M4 };

/// The M4' weights of the 4 faces at offsets -1, 0, 1, 2 from the low face of a point at
/// fraction w in [0, 1] of its cell (they add up to one).
KOKKOS_INLINE_FUNCTION void m4Weights(double w, double out[4]) {
  double const v = 1.0 - w;
  out[0] = -0.5 * w * v * v;
  out[1] = 1.0 + w * w * (1.5 * w - 2.5);
  out[2] = 1.0 + v * v * (1.5 * v - 2.5);
  out[3] = -0.5 * w * w * v;
}

/// The slopes d/dw of m4Weights(w).
KOKKOS_INLINE_FUNCTION void m4Slopes(double w, double out[4]) {
  double const v = 1.0 - w;
  out[0] = v * (w - 0.5 * v);
  out[1] = w * (4.5 * w - 5.0);
  out[2] = v * (5.0 - 4.5 * v);
  out[3] = w * (0.5 * w - v);
}

/// The geometry a point needs to find its faces on this rank; device-copyable.
struct MacStencil {
  int dims = 3;
  double invH[3] = {1.0, 1.0, 1.0};
  int offset[3] = {0, 0, 0};  ///< global index of this rank's first owned cell
  int cells[3] = {1, 1, 1};   ///< owned cells per axis
  int ghost = 1;              ///< ghost layers of the velocity fields
  Interpolation kernel = Interpolation::Linear;

  /// Of `decomp`'s block over a domain of `length` (origin 0), velocity fields with `ghost`
  /// layers.
  static MacStencil make(CartDecomposition const& decomp, std::array<double, 3> const& length,
                         int ghost, Interpolation kernel = Interpolation::Linear) {
    MacStencil s;
    s.dims = decomp.dims();
    for (int a = 0; a < 3; ++a) {
      s.invH[a] = a < s.dims ? decomp.globalCells()[a] / length[a] : 0.0;
      s.offset[a] = decomp.offset()[a];
      s.cells[a] = decomp.localCells()[a];
    }
    s.ghost = ghost;
    s.kernel = kernel;
    return s;
  }

  /// Along axis a for component c at coordinate x: the local index of the face below x and
  /// x's fraction w of the way to the next face (the linear weight of that next face). The
  /// stencil reads faces low - 1 .. low + 2 with M4, low .. low + 1 with Linear.
  KOKKOS_INLINE_FUNCTION void locate(int a, int c, double x, int& low, double& w) const {
    double const s = x * invH[a] - (a == c ? 0.0 : 0.5);
    double const f = math::floor(s);
    w = s - f;
    int i = static_cast<int>(f) - offset[a];
    // Faces run to cells + ghost along their own axis, cell centres to cells + ghost - 1.
    int const wide = kernel == Interpolation::M4 ? 1 : 0;
    int const top = cells[a] + ghost - (a == c ? 1 : 2) - wide;
    if (i < wide - ghost) {
      i = wide - ghost;
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
    if (kernel == Interpolation::M4) return componentM4(u, c, x, y, z);
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

  /// component() with the M4' kernel: rows along x summed, then along y, then z.
  template <class View>
  KOKKOS_INLINE_FUNCTION double componentM4(View const& u, int c, double x, double y,
                                            double z) const {
    int i, j, k = 0;
    double wx, wy, wz = 0.0;
    locate(0, c, x, i, wx);
    locate(1, c, y, j, wy);
    if (dims == 3) locate(2, c, z, k, wz);
    double ax[4], ay[4], az[4] = {0.0, 1.0, 0.0, 0.0};
    m4Weights(wx, ax);
    m4Weights(wy, ay);
    if (dims == 3) m4Weights(wz, az);
    int const k0 = dims == 3 ? 0 : 1, k1 = dims == 3 ? 4 : 2;
    double sum = 0.0;
    for (int kk = k0; kk < k1; ++kk) {
      double plane = 0.0;
      for (int jj = 0; jj < 4; ++jj) {
        double row = 0.0;
        for (int ii = 0; ii < 4; ++ii) row += ax[ii] * u(i - 1 + ii, j - 1 + jj, k - 1 + kk);
        plane += ay[jj] * row;
      }
      sum += az[kk] * plane;
    }
    return sum;
  }

  /// The derivative of component c's interpolant along `dir`, sum_a dir[a] du_c/dx_a, at
  /// (x, y, z): the faces and kernel of component(), differentiated.
  template <class View>
  KOKKOS_INLINE_FUNCTION double derivative(View const& u, int c, double x, double y, double z,
                                           double const dir[3]) const {
    bool const wide = kernel == Interpolation::M4;
    int const span = wide ? 4 : 2, first = wide ? -1 : 0;
    double const p[3] = {x, y, z};
    int lo[3] = {0, 0, 0};
    double value[3][4] = {}, slope[3][4] = {};
    for (int a = 0; a < dims; ++a) {
      double w;
      locate(a, c, p[a], lo[a], w);
      if (wide) {
        m4Weights(w, value[a]);
        m4Slopes(w, slope[a]);
      } else {
        value[a][0] = 1.0 - w;
        value[a][1] = w;
        slope[a][0] = -1.0;
        slope[a][1] = 1.0;
      }
      for (int m = 0; m < span; ++m) slope[a][m] *= invH[a] * dir[a];
    }
    int const nz = dims == 3 ? span : 1;
    double sum = 0.0;
    for (int kk = 0; kk < nz; ++kk) {
      int const k = dims == 3 ? lo[2] + first + kk : 0;
      double const vz = dims == 3 ? value[2][kk] : 1.0, sz = dims == 3 ? slope[2][kk] : 0.0;
      for (int jj = 0; jj < span; ++jj)
        for (int ii = 0; ii < span; ++ii) {
          double const f = u(lo[0] + first + ii, lo[1] + first + jj, k);
          sum += f * ((slope[0][ii] * value[1][jj] + value[0][ii] * slope[1][jj]) * vz +
                      value[0][ii] * value[1][jj] * sz);
        }
    }
    return sum;
  }
};

/// Ghost layers of velocity a flow keeps for particles interpolated with `kernel`: the stencil
/// then reaches 1.5 cells beyond the block, where a stage may carry a particle.
KOKKOS_INLINE_FUNCTION constexpr int velocityGhosts(Interpolation kernel) {
  return kernel == Interpolation::M4 ? 3 : 2;
}

/// The flow's velocity components as the interpolation reads them (components >= dims unused).
using FaceVelocity = std::array<GhostedView<MemSpace>, 3>;

}  // namespace eddy::particles
