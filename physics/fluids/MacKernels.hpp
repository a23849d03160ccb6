/// @file MacKernels.hpp
/// @brief Stencil kernels of the flow model on the staggered (MAC) grid: momentum right-hand
/// side, Runge-Kutta update, divergence, projection correction, vorticity and the velocity
/// gradient at cell centres.
///
/// Index conventions: velocity component c at local face (i, j, k) sits on the low face of cell
/// (i, j, k) normal to axis c; p at the cell centre. Ghosts (halo exchange + wall ghosts) must be
/// current where a stencil reads them. Every kernel computes each entry from its neighbours
/// with the same arithmetic on any decomposition.
#pragma once

#include "eddy/core/BoxSplit.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

#include <mpi.h>

#include <array>

namespace eddy::fluids::mac {

using FieldView = GhostedView<MemSpace>;

/// The three velocity components as kernel views (z unused in 2D).
struct VelocityViews {
  FieldView c[3];
};

/// Spacing and dimension, as plain data for kernels.
struct MacGrid {
  int dims = 3;
  double invH[3] = {1, 1, 1};   ///< 1 / h per axis
  double invH2[3] = {1, 1, 1};  ///< 1 / h^2 per axis
  static MacGrid make(int dims, std::array<double, 3> const& h);
};

/// Which entries of a BoxSplit a kernel computes: the whole box in one launch, the inner box
/// (while the velocity ghosts are in flight), or the shell (one launch per slab, afterwards).
/// The same kernel computes every entry in each case.
enum class Part { Whole, Inner, Shell };

/// The faces of component c that momentumStages computes on a block of n cells (face 0 is the
/// wall, not computed, when `lowWall`), split around those whose stencil reads no ghost of any
/// velocity component: 1 <= index <= n - 2 along every axis.
BoxSplit momentumFaces(int dims, int c, Index3 const& n, bool lowWall);
/// The cells [0, n) of divergence, split around those that read no velocity ghost.
BoxSplit divergenceCells(int dims, Index3 const& n);

/// The velocity of the flow model as kernel views: `u` the current one, read around each face;
/// `next` a second buffer of the same shape, which holds the velocity of the stage before `u`
/// and gets the stage's result. The faces each component is computed on (momentumFaces, `whole`;
/// empty for c >= dims).
struct StageFields {
  VelocityViews u;
  FieldView next[3];
  Box3 faces[3];
  /// A coupled model's body force (StageCoupling.hpp LinearForce), added to `force[c]`:
  /// forcing[c] (s_f - forcingReference), s_f the mean of `forcingField` over the two cells the
  /// face parts; the field is not read where forcing[c] is 0.
  FieldView forcingField;
  double forcing[3] = {0.0, 0.0, 0.0};
  double forcingReference = 0.0;
};

/// The coefficients of one stage of Williamson's low-storage RK3: du = a du + dt L(u),
/// u += b du; `bPrevious` is the previous stage's b (unused where a = 0).
struct RkCoefficients {
  double a = 0.0, bPrevious = 1.0, b = 1.0;
};

/// One low-storage Runge-Kutta stage of every component, in one pass over `part` of `faces`
/// (momentumFaces(dims, 0, n, false): the union of the components' faces, split the same way),
/// at the faces of component c (`f.faces[c]`):
///   du = a du_previous + dt (-div(u u_c) + nu lap u_c + force_c [+ forcing_c] - d p / d x_c)
///   next_c = u_c + b du
/// where du_previous = (u_c - next_c) / bPrevious is the previous stage's increment, recovered
/// from the two velocities (next_c not read where a = 0). The stage increment needs no field of
/// its own, and no separate update pass. Each face gets the arithmetic of its own component,
/// whichever part holds it; the three components share the loads of the velocities around a
/// cell.
void momentumStages(ExecSpace const& space, MacGrid const& grid, StageFields const& f,
                    FieldView const& p, BoxSplit const& faces, Part part, double nu,
                    std::array<double, 3> const& force, double dt, RkCoefficients const& rk);
/// out = scale * div u at `part` of `cells` (divergenceCells).
void divergence(ExecSpace const& space, MacGrid const& grid, VelocityViews const& u,
                FieldView const& out, double scale, BoxSplit const& cells, Part part);
/// out = scale * div u at the cells [0, n) in one pass that also returns max |out| over all
/// ranks of `comm` (NaN counted as Inf).
double divergenceMax(ExecSpace const& space, MPI_Comm comm, MacGrid const& grid,
                     VelocityViews const& u, FieldView const& out, double scale, Index3 const& n);
/// The end of a projection, in one pass over the owned cells [0, n): at the low face of each
/// cell normal to each axis c < dims, u_c -= coef d phi / d x_c, except at index 0 along c where
/// `fixedLow[c]` (a wall's or an inflow's face, not the flow's to change); then p += phi + offset
/// at the cell where `pressure` (p's ghosts are left to accumulate()). Returns, over all ranks
/// of `comm`, the largest |u_c| (NaN counted as Inf) per component over those faces after the
/// correction, and over the faces at index n along c where `fixedHigh[c]` (a wall's or an
/// outflow's face): every owned face of the component, so the maxima of Model::maxRate. Reads
/// phi's ghosts.
std::array<double, 3> closeProjection(ExecSpace const& space, MPI_Comm comm, MacGrid const& grid,
                                      VelocityViews const& u, FieldView const& phi,
                                      FieldView const& p, bool pressure, double offset, double coef,
                                      std::array<bool, 3> const& fixedLow,
                                      std::array<bool, 3> const& fixedHigh, Index3 const& n);
/// p += phi + offset over [lo, hi) (ghosts included: both ghosts are current, so the sum is
/// too).
void accumulate(ExecSpace const& space, FieldView const& p, FieldView const& phi, double offset,
                std::array<int, 3> const& lo, std::array<int, 3> const& hi);
/// out = sum_{i < terms} w[i] phi[i] over [lo, hi) (1 <= terms <= 3; out may be phi[i] for
/// any i, and phi[i] for i >= terms is not read).
void extrapolate(ExecSpace const& space, FieldView const& out, FieldView const (&phi)[3],
                 std::array<double, 3> const& w, int terms, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi);

/// div u of cell (i, j, k): its faces' differences along each axis over h (the axes < dims).
KOKKOS_INLINE_FUNCTION double divergenceAt(MacGrid const& g, VelocityViews const& u, int i, int j,
                                           int k) {
  double d = (u.c[0](i + 1, j, k) - u.c[0](i, j, k)) * g.invH[0] +
             (u.c[1](i, j + 1, k) - u.c[1](i, j, k)) * g.invH[1];
  if (g.dims == 3) d += (u.c[2](i, j, k + 1) - u.c[2](i, j, k)) * g.invH[2];
  return d;
}

/// Vorticity component c at the edge along c at local index (i, j, k), i.e. at the corner of
/// the two face axes a = c + 1, b = c + 2 (mod 3): d u_b / d x_a - d u_a / d x_b.
KOKKOS_INLINE_FUNCTION double vorticity(MacGrid const& g, VelocityViews const& u, int c, int i,
                                        int j, int k) {
  int const a = (c + 1) % 3, b = (c + 2) % 3;
  int const ea[3] = {a == 0, a == 1, a == 2}, eb[3] = {b == 0, b == 1, b == 2};
  double const dub = (u.c[b](i, j, k) - u.c[b](i - ea[0], j - ea[1], k - ea[2])) * g.invH[a];
  double const dua = (u.c[a](i, j, k) - u.c[a](i - eb[0], j - eb[1], k - eb[2])) * g.invH[b];
  return dub - dua;
}

/// The mean of face field `f` (normal to axis `a`) over the two faces of cell (i, j, k) along
/// a: the value at the cell centre.
KOKKOS_INLINE_FUNCTION double cellMean(FieldView const& f, int a, int i, int j, int k) {
  return 0.5 * (f(i, j, k) + f(i + (a == 0), j + (a == 1), k + (a == 2)));
}

/// The velocity gradient g[a][b] = d u_a / d x_b at the centre of cell (i, j, k), to second
/// order: along a, the difference of the cell's two faces (the divergence's terms); across,
/// the central difference of the cell means (cellMean) of the two neighbouring cells. The
/// cell's vorticity g[b][a] - g[a][b] is then the mean of the four edge values of vorticity()
/// around it, the enstrophy's. Reads one ghost layer of every component, edges and corners
/// included (halo exchange and wall ghosts: current between steps). Entries of axes >= dims
/// are 0.
KOKKOS_INLINE_FUNCTION void cellGradient(MacGrid const& g, VelocityViews const& u, int i, int j,
                                         int k, double (&grad)[3][3]) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) grad[a][b] = 0.0;
  for (int a = 0; a < g.dims; ++a) {
    FieldView const& f = u.c[a];
    for (int b = 0; b < g.dims; ++b) {
      int const di = b == 0, dj = b == 1, dk = b == 2;
      grad[a][b] = a == b ? (f(i + di, j + dj, k + dk) - f(i, j, k)) * g.invH[b]
                          : (cellMean(f, a, i + di, j + dj, k + dk) -
                             cellMean(f, a, i - di, j - dj, k - dk)) *
                                (0.5 * g.invH[b]);
    }
  }
}

}  // namespace eddy::fluids::mac
