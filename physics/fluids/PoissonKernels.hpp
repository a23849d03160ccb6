/// @file PoissonKernels.hpp
/// @brief Kernels of the pressure Poisson solver: the (2d+1)-point operator, red-black
/// Gauss-Seidel, Jacobi, cell-centred restriction / prolongation, CG vector updates and the
/// reproducible dot products, each as a free function on an execution space instance.
///
/// The operator is A x = -lap_h(x) (positive semi-definite):
///   (A x)_c = sum_a (1/h_a^2) sum_{n in nb_a(c)} (x_c - x_n),
/// where nb_a(c) holds the two neighbours along axis a, except that a neighbour beyond a wall (a
/// non-periodic domain boundary) is left out (homogeneous Neumann: the mirrored ghost equals
/// x_c). Walls are decided from the GLOBAL cell index, so no kernel reads a wall ghost and the
/// arithmetic of every cell is the same on any decomposition. Ghosts across ranks and periodic
/// wraps must be current (eddy::HaloExchange) before a stencil reads them.
#pragma once

#include "eddy/core/BoxSplit.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/ReproducibleAccumulator.hpp"

#include <mpi.h>

#include <array>
#include <vector>

namespace eddy::fluids::detail {

using CellView = GhostedView<MemSpace>;
/// A single-precision cell field (the finest multigrid level's work field with
/// PoissonOptions::mixedPrecision). Its values are read as doubles; values written to it are
/// rounded to float.
using CellView32 = GhostedView<MemSpace, float>;

/// Plain-data description of one rank's block of a level, copied into kernels.
struct PoissonGrid {
  int dims = 3;
  int nx = 1, ny = 1, nz = 1;     ///< owned cells
  int ox = 0, oy = 0, oz = 0;     ///< global index of the first owned cell
  int Nx = 1, Ny = 1, Nz = 1;     ///< global cells
  int wx = 0, wy = 0, wz = 0;     ///< 1 when the axis ends at walls (non-periodic)
  double cx = 0, cy = 0, cz = 0;  ///< 1 / h^2 per axis
  /// 1 / the diagonal of A at a cell next to no wall (correctly rounded, so the same bits as
  /// 1.0 / operatorDiagonal there on every backend).
  double invDiag = 0;

  static PoissonGrid make(CartDecomposition const& decomp, std::array<double, 3> const& h);
  long long globalCount() const { return static_cast<long long>(Nx) * Ny * Nz; }
  std::array<int, 3> hi() const { return {nx, ny, nz}; }
};

/// sum over the neighbours n of c along one axis of (x_c - x_n), walls left out (`Walls` false:
/// the caller knows that c is next to no wall, see touchesWall).
template <bool Walls = true, class View = CellView>
KOKKOS_INLINE_FUNCTION double axisDifference(View const& x, double c, int i, int j, int k, int di,
                                             int dj, int dk, int gidx, int n, int wall) {
  double s = 0.0;
  if (!Walls || !(wall && gidx == 0)) s += c - x(i - di, j - dj, k - dk);
  if (!Walls || !(wall && gidx == n - 1)) s += c - x(i + di, j + dj, k + dk);
  return s;
}

/// (A x) at local cell (i, j, k). `Walls` false: as axisDifference.
template <bool Walls = true, class View = CellView>
KOKKOS_INLINE_FUNCTION double applyOperator(PoissonGrid const& g, View const& x, int i, int j,
                                            int k) {
  double const c = x(i, j, k);
  double s = g.cx * axisDifference<Walls>(x, c, i, j, k, 1, 0, 0, g.ox + i, g.Nx, g.wx) +
             g.cy * axisDifference<Walls>(x, c, i, j, k, 0, 1, 0, g.oy + j, g.Ny, g.wy);
  if (g.dims == 3) s += g.cz * axisDifference<Walls>(x, c, i, j, k, 0, 0, 1, g.oz + k, g.Nz, g.wz);
  return s;
}

/// Diagonal of A at local cell (i, j, k). `Walls` false: the caller knows that the cell is next
/// to no wall (see touchesWall), and the same value comes without the tests.
template <bool Walls = true>
KOKKOS_INLINE_FUNCTION double operatorDiagonal(PoissonGrid const& g, int i, int j, int k) {
  int const gi = g.ox + i, gj = g.oy + j, gk = g.oz + k;
  int const nx = Walls ? 2 - (g.wx && gi == 0) - (g.wx && gi == g.Nx - 1) : 2;
  int const ny = Walls ? 2 - (g.wy && gj == 0) - (g.wy && gj == g.Ny - 1) : 2;
  int const nz = g.dims == 3 ? (Walls ? 2 - (g.wz && gk == 0) - (g.wz && gk == g.Nz - 1) : 2) : 0;
  return g.cx * nx + g.cy * ny + g.cz * nz;
}

/// Whether any cell of `cells` (local indices of g's block, ghost rings included) is among the
/// first or last `depth` global cells along a wall axis.
inline bool nearWall(PoissonGrid const& g, Box3 const& cells, int depth) {
  int const o[3] = {g.ox, g.oy, g.oz}, N[3] = {g.Nx, g.Ny, g.Nz}, w[3] = {g.wx, g.wy, g.wz};
  for (int a = 0; a < g.dims; ++a)
    if (w[a] && (o[a] + cells.lo[a] < depth || o[a] + cells.hi[a] - 1 >= N[a] - depth)) return true;
  return false;
}

/// Whether any cell of `cells` (local indices of g's block, ghost rings included) lies next to a
/// wall: it is the first or last global cell along a wall axis. Where none does, the kernels
/// over `cells` take the `Walls` false forms of applyOperator, operatorDiagonal and
/// splitOperatorWith: the same values without the wall tests.
inline bool touchesWall(PoissonGrid const& g, Box3 const& cells) {
  return nearWall(g, cells, 1);
}
/// Whether any owned cell of g lies next to a wall.
inline bool touchesWall(PoissonGrid const& g) {
  return touchesWall(g, Box3{{0, 0, 0}, g.hi()});
}

/// Diagonal of A at local cell (i, j, k) and the weighted sum of its neighbours, so that
/// (A x)_c = diag x_c - nsum, with the neighbour at offset (di, dj, dk) given by nb(di, dj, dk)
/// (called only for the neighbours the operator reads: none beyond a wall). Every smoother reads
/// its neighbours through this one function, from a field or from team scratch, so that all give
/// the same bits. `Walls` false: as operatorDiagonal.
template <bool Walls = true, class Nb>
KOKKOS_INLINE_FUNCTION void splitOperatorWith(PoissonGrid const& g, int i, int j, int k,
                                              Nb const& nb, double& diag, double& nsum) {
  int const gi = g.ox + i, gj = g.oy + j, gk = g.oz + k;
  double sx = 0.0, sy = 0.0, sz = 0.0;
  if (!Walls || !(g.wx && gi == 0)) sx += nb(-1, 0, 0);
  if (!Walls || !(g.wx && gi == g.Nx - 1)) sx += nb(1, 0, 0);
  if (!Walls || !(g.wy && gj == 0)) sy += nb(0, -1, 0);
  if (!Walls || !(g.wy && gj == g.Ny - 1)) sy += nb(0, 1, 0);
  if (g.dims == 3) {
    if (!Walls || !(g.wz && gk == 0)) sz += nb(0, 0, -1);
    if (!Walls || !(g.wz && gk == g.Nz - 1)) sz += nb(0, 0, 1);
  }
  diag = operatorDiagonal<Walls>(g, i, j, k);
  nsum = g.cx * sx + g.cy * sy + g.cz * sz;
}

/// 1 / diag, the diagonal of A at a cell: g.invDiag next to no wall (`Walls` false), else
/// divided out, which gives the same bits for such a cell (IEEE division is correctly rounded).
/// The smoothers multiply by it: a double division costs a GPU thread about fifteen instructions.
template <bool Walls = true>
KOKKOS_INLINE_FUNCTION double inverseDiagonal(PoissonGrid const& g, double diag) {
  return Walls ? 1.0 / diag : g.invDiag;
}

/// The Gauss-Seidel value of cell (i, j, k) with right-hand side `b` there and its neighbours
/// from nb: (b + the weighted neighbours) times 1 / diag, or `old` (the cell's value before)
/// where the diagonal is 0. `Walls` false: as operatorDiagonal.
template <bool Walls = true, class Nb>
KOKKOS_INLINE_FUNCTION double smoothValue(PoissonGrid const& g, double b, int i, int j, int k,
                                          Nb const& nb, double old) {
  double diag = 0.0, nsum = 0.0;
  splitOperatorWith<Walls>(g, i, j, k, nb, diag, nsum);
  return diag > 0 ? (b + nsum) * inverseDiagonal<Walls>(g, diag) : old;
}

// ---------------------------------------------------------------------------------------------
// The arithmetic of one cell of the multigrid steps, shared by the kernels below and by the
// coarse levels run in one launch (Multigrid.cpp), so that both give the same bits.

/// r at cell (i, j, k): b - A x. `Walls` false: as axisDifference.
template <bool Walls = true, class View = CellView>
KOKKOS_INLINE_FUNCTION double residualCell(PoissonGrid const& g, CellView const& b, View const& x,
                                           int i, int j, int k) {
  return b(i, j, k) - applyOperator<Walls>(g, x, i, j, k);
}

/// A Gauss-Seidel update of cell (i, j, k): x = smoothValue, (b + the weighted neighbours) times
/// 1 / diag (rounded to x's type).
template <class View = CellView>
KOKKOS_INLINE_FUNCTION void smoothCell(PoissonGrid const& g, CellView const& b, View const& x,
                                       int i, int j, int k) {
  x(i, j, k) = smoothValue(
      g, b(i, j, k), i, j, k, [&](int di, int dj, int dk) { return x(i + di, j + dj, k + dk); },
      x(i, j, k));
}

/// Item (t, j, k) of a half sweep over one colour (`shift` = colour + the global offsets) of the
/// cells lo0 <= i < hi0 of row (j, k): the cell i = lo0 + 2t or lo0 + 2t + 1 of that colour's
/// parity gets smoothCell (items reach past hi0 by one).
template <class View = CellView>
KOKKOS_INLINE_FUNCTION void smoothColourRowItem(PoissonGrid const& g, CellView const& b,
                                                View const& x, int shift, int lo0, int hi0, int t,
                                                int j, int k) {
  int const i = lo0 + 2 * t + ((shift + lo0 + j + k) & 1);
  if (i < hi0) smoothCell(g, b, x, i, j, k);
}

/// smoothColourRowItem over the owned cells of the row.
KOKKOS_INLINE_FUNCTION void smoothColourItem(PoissonGrid const& g, CellView const& b,
                                             CellView const& x, int shift, int t, int j, int k) {
  smoothColourRowItem(g, b, x, shift, 0, g.nx, t, j, k);
}

/// fromZeroCell of a cell of the first colour, with right-hand side `b` there.
template <bool Walls = true>
KOKKOS_INLINE_FUNCTION double fromZeroValue(PoissonGrid const& g, double b, int i, int j, int k) {
  double const diag = operatorDiagonal<Walls>(g, i, j, k);
  return diag > 0 ? (b + 0.0) * inverseDiagonal<Walls>(g, diag) : 0.0;
}

/// The value of cell (i, j, k) after the first half sweep from x = 0 of the colour with
/// `shift` = colour + the global offsets: smoothCell's (b + nsum) * (1 / diag) with every neighbour
/// 0 (nsum = +0) on that colour, 0 on the other. `Walls` false: as operatorDiagonal.
template <bool Walls = true>
KOKKOS_INLINE_FUNCTION double fromZeroCell(PoissonGrid const& g, CellView const& b, int shift,
                                           int i, int j, int k) {
  if (((i + j + k + shift) & 1) != 0) return 0.0;
  return fromZeroValue<Walls>(g, b(i, j, k), i, j, k);
}

/// Global fine index clamped into the domain at walls (the mirrored ghost), else unchanged.
/// `Clamp` false: unchanged (the caller knows it lies inside, see reachesWall).
template <bool Clamp = true>
KOKKOS_INLINE_FUNCTION int clampAtWall(int gidx, int n, int wall) {
  if (Clamp && wall) {
    if (gidx < 0) return 0;
    if (gidx > n - 1) return n - 1;
  }
  return gidx;
}

/// Whether a cell of `cells` (local indices of g's block) lies within two cells of a wall
/// (the first two or last two global cells along a wall axis). Where none does, restrictCell
/// (cells: coarse) and prolongCell (cells: fine) never clamp (their `Clamp` false: the same
/// values; one cell would do, two leave room for odd counts).
inline bool reachesWall(PoissonGrid const& g, Box3 const& cells) {
  return nearWall(g, cells, 2);
}

/// (R r) at coarse cell (ci, cj, ck): weights (1, 3, 3, 1) / 8 per axis over the fine cells
/// 2C-1 .. 2C+2 (walls clamp the index; `Clamp` false: see reachesWall).
template <bool Clamp = true, class View = CellView>
KOKKOS_INLINE_FUNCTION double restrictCell(PoissonGrid const& f, View const& r,
                                           PoissonGrid const& c, int ci, int cj, int ck) {
  double const w[4] = {1.0, 3.0, 3.0, 1.0};
  double const scale = f.dims == 3 ? 1.0 / 512.0 : 1.0 / 64.0;
  int const nz = f.dims == 3 ? 4 : 1;
  double s = 0.0;
  for (int q = 0; q < nz; ++q) {
    int fk = 0;
    double wz = 1.0;
    if (f.dims == 3) {
      fk = clampAtWall<Clamp>(2 * (c.oz + ck) - 1 + q, f.Nz, f.wz) - f.oz;
      wz = w[q];
    }
    double sy = 0.0;
    for (int bb = 0; bb < 4; ++bb) {
      int const fj = clampAtWall<Clamp>(2 * (c.oy + cj) - 1 + bb, f.Ny, f.wy) - f.oy;
      double sx = 0.0;
      for (int a = 0; a < 4; ++a) {
        int const fi = clampAtWall<Clamp>(2 * (c.ox + ci) - 1 + a, f.Nx, f.wx) - f.ox;
        sx += w[a] * r(fi, fj, fk);
      }
      sy += w[bb] * sx;
    }
    s += wz * sy;
  }
  return scale * s;
}

/// The two coarse cells along one axis that the prolongation of fine cell `fine` (local index of
/// a block at global offset `fineOffset`) reads: its parent `p0` and the parent's neighbour on
/// the child's side `p1` (the parent itself beyond a wall), as local indices of the coarse block
/// at `coarseOffset` with `n` global cells along the axis. `Clamp` false: see reachesWall.
template <bool Clamp = true>
KOKKOS_INLINE_FUNCTION void prolongParents(int fineOffset, int fine, int coarseOffset, int n,
                                           int wall, int& p0, int& p1) {
  int const gf = fineOffset + fine, p = gf >> 1;
  p0 = p - coarseOffset;
  p1 = clampAtWall<Clamp>(p + ((gf & 1) ? 1 : -1), n, wall) - coarseOffset;
}

/// The prolongation's weights 3/4 and 1/4 on the parent's value a0 and the neighbour's a1.
KOKKOS_INLINE_FUNCTION double prolongWeights(double a0, double a1) {
  return 0.75 * a0 + 0.25 * a1;
}

/// (P e) interpolated in z, then y, at coarse column ci of a 3D block: the value prolongCell
/// weights in x. A fine cell's column depends on its y and z only, so a kernel that prolongs a
/// plane can compute each column once and reuse it for the fine cells of both x parities (the
/// folded sweep does); the arithmetic is prolongCell's, so are the bits.
KOKKOS_INLINE_FUNCTION double prolongColumn(CellView const& e, int ci, int j0, int j1, int k0,
                                            int k1) {
  return prolongWeights(prolongWeights(e(ci, j0, k0), e(ci, j0, k1)),
                        prolongWeights(e(ci, j1, k0), e(ci, j1, k1)));
}

/// (P e) at fine cell (i, j, k) (owned or ghost): weights 3/4 for the parent, 1/4 for the
/// coarse neighbour on the child's side (the parent itself beyond a wall), per axis; in 3D
/// z first, then y, then x (prolongColumn); in 2D x, then y. `Clamp` false: see reachesWall.
template <bool Clamp = true>
KOKKOS_INLINE_FUNCTION double prolongCell(PoissonGrid const& f, PoissonGrid const& c,
                                          CellView const& e, int i, int j, int k) {
  int i0, i1, j0, j1;
  prolongParents<Clamp>(f.ox, i, c.ox, c.Nx, c.wx, i0, i1);
  prolongParents<Clamp>(f.oy, j, c.oy, c.Ny, c.wy, j0, j1);
  if (f.dims == 3) {
    int k0, k1;
    prolongParents<Clamp>(f.oz, k, c.oz, c.Nz, c.wz, k0, k1);
    return prolongWeights(prolongColumn(e, i0, j0, j1, k0, k1),
                          prolongColumn(e, i1, j0, j1, k0, k1));
  }
  return prolongWeights(prolongWeights(e(i0, j0, 0), e(i1, j0, 0)),
                        prolongWeights(e(i0, j1, 0), e(i1, j1, 0)));
}

// ---------------------------------------------------------------------------------------------
// Kernels. Each runs on `space`; reductions are reproducible (eddy::reproducibleSum) and
// collective over `comm`.

/// Sum of a's owned cells.
double sum(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& a);
/// sum a(c) b(c) over owned cells.
double dot(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& a,
           CellView const& b);
/// f = mean - rhs (so that A phi = f solves lap(phi) = rhs - mean); returns ||f||^2.
double prepareRhs(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& rhs,
                  double mean, CellView const& f);
/// r = b - A x; returns ||r||^2 (fused: one kernel pair, no extra pass).
double residualNorm2(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& b,
                     CellView const& x, CellView const& r);
/// ||mean - rhs||^2, prepareRhs's f stored nowhere.
double centredNorm2(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                    CellView const& rhs, double mean);
/// ||mean - rhs - A x||^2, the residual of prepareRhs's f stored nowhere.
double centredResidualNorm2(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                            CellView const& rhs, double mean, CellView const& x);
/// q = A p; returns p . q (fused).
double applyOperatorDot(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                        CellView const& p, CellView const& q);
/// q = A p over `boxes` of owned cells, adding p . q there to `sum` (one reduction, waited
/// for). The overload above is this over the owned box, so splitting the cells into boxes (see
/// BoxSplit) computes every cell and term with the same kernel: sum.finish() is bitwise the
/// same.
void applyOperatorDot(ExecSpace const& space, PoissonGrid const& g, CellView const& p,
                      CellView const& q, std::vector<Box3> const& boxes,
                      ReproducibleAccumulator& sum);

/// The owned cells of g and `rings` layers of ghosts around them, except ghosts beyond a wall
/// (and no z ghosts in 2D). A kernel over such a box computes in its ghosts exactly what their
/// owners compute (walls are decided from global indices), provided it reads only ghosts that
/// are current, i.e. at most rings + 1 layers out, and no periodic axis has an odd global
/// extent (the colours of a red-black sweep would not match across the wrap).
Box3 withGhostRings(PoissonGrid const& g, int rings);

/// r = b - A x over `cells` (no reduction): x must be current one layer beyond them, b on them.
void residual(ExecSpace const& space, PoissonGrid const& g, CellView const& b, CellView const& x,
              CellView const& r, Box3 const& cells, bool slab = false);
/// residual into a single-precision field (each value rounded to float).
void residual(ExecSpace const& space, PoissonGrid const& g, CellView const& b, CellView const& x,
              CellView32 const& r, Box3 const& cells, bool slab = false);
/// x += alpha p, r -= alpha q.
void cgUpdate(ExecSpace const& space, PoissonGrid const& g, double alpha, CellView const& p,
              CellView const& q, CellView const& x, CellView const& r);
/// rOut = r - alpha q on owned cells; returns ||rOut||^2 (fused: one pass). rOut is a field other
/// than r and q, so the pass may run twice (see reproducibleSum) with the same result.
double residualUpdate(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, double alpha,
                      CellView const& r, CellView const& q, CellView const& rOut);
/// x += alpha p, then p = z + beta p, in one pass.
void advanceAndUpdateDirection(ExecSpace const& space, PoissonGrid const& g, double alpha,
                               double beta, CellView const& z, CellView const& p,
                               CellView const& x);
/// x += alpha p.
void addScaled(ExecSpace const& space, PoissonGrid const& g, double alpha, CellView const& p,
               CellView const& x);
/// p = z + beta p.
void updateDirection(ExecSpace const& space, PoissonGrid const& g, double beta, CellView const& z,
                     CellView const& p);
/// x += omega r / diag(A).
void jacobiUpdate(ExecSpace const& space, PoissonGrid const& g, double omega, CellView const& r,
                  CellView const& x);
/// a += c on owned cells.
void addConstant(ExecSpace const& space, PoissonGrid const& g, double c, CellView const& a);
/// dst = src on owned cells.
void copyOwned(ExecSpace const& space, PoissonGrid const& g, CellView const& src,
               CellView const& dst);

/// The kernels below that take a box of cells take `slab` = true for a slab of an overlap's
/// shell (BoxSplit): the same kernel with the launch shaped for a thin box on GPUs.
///
/// One Gauss-Seidel half sweep over `cells` (withGhostRings): updates the cells whose global
/// i + j + k has parity `colour`. Cells of one colour only read the other colour (and, across an
/// odd periodic wrap, ghosts), so the result does not depend on the order or the decomposition.
void smoothColour(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                  CellView const& x, int colour, Box3 const& cells, bool slab = false);
/// smoothColour on a single-precision field (each new value rounded to float as it is stored).
void smoothColour(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                  CellView32 const& x, int colour, Box3 const& cells, bool slab = false);

/// The first half sweep from x = 0 over `cells`, in one pass that needs no zeroed x: cells of
/// parity `colour` get (b + 0) * (1 / diag), exactly what smoothColour gives them from zeros, the
/// others 0. Ghosts outside `cells` are not written: exchange x before a kernel reads them.
void smoothColourFromZero(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                          CellView const& x, int colour, Box3 const& cells, bool slab = false);

/// How smoothSweep runs a sweep out of place: Loops, two loops over the cells (2D levels, and
/// the finest level with mixed precision where FineSweeps::Halves was asked for); Planes, in one
/// pass (3D: a team kernel marching along z; the sweep from zero as a seven-point map of b,
/// sweepSevenPoint's plane pipeline, which needs neither the first colour in scratch nor a second
/// pass over the plane). The same bits either way.
enum class SweepWay { Loops, Planes };

/// The owned cells of g but the layer next to each face that has ghosts (a periodic axis, or
/// another rank's block): the cells of a sweep out of place whose second colour reads no ghost.
Box3 awayFromGhostFaces(PoissonGrid const& g);

/// A coarse level's correction, to be added to a fine field by prolongation (prolongAdd).
struct CoarseCorrection {
  PoissonGrid coarse;
  CellView e;
};

/// One red-black Gauss-Seidel sweep out of place: the cells of colour `firstColour` get
/// smoothCell's value from `xin` (which must be current one ghost layer out), then the other
/// colour's cells within awayFromGhostFaces(g) get it from those new values; the other colour's
/// cells next to a face with ghosts keep xin's value (0 with `fromZero`) until smoothSweepShell.
/// Every owned cell of xout is written; xin and xout are different fields. `fromZero`: xin
/// counts as 0 (not read), as smoothColourFromZero. `way` Planes (3D): in one pass, a team per
/// tile of a plane marching along z with xin's planes and the first colour's values in team
/// scratch (a sweep from zero reads b's planes alone, see SweepWay); else (and in 2D) two loops.
/// The same bits as smoothColour's two half sweeps in place once smoothSweepShell has run. `fold`
/// (not with `fromZero`): the sweep reads xin + P e instead of xin, the values prolongAdd(g, xin,
/// fold->coarse, fold->e) gives xin's owned cells and first ghost layer (e's ghosts current one
/// layer out); in one pass xin is not written, else prolongAdd runs first.
void smoothSweep(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                 CellView const& xin, CellView const& xout, int firstColour, bool fromZero,
                 SweepWay way, CoarseCorrection const* fold = nullptr);
/// smoothSweep between a double and a single-precision field (PoissonOptions::mixedPrecision).
/// Writing a float field, the first colour's new values are rounded to float before the second
/// colour reads them, in one pass as in two loops, so both give the same bits, and so does
/// smoothSweepShell. A sweep from a float field takes no `fold`.
void smoothSweep(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                 CellView const& xin, CellView32 const& xout, int firstColour, bool fromZero,
                 SweepWay way, CoarseCorrection const* fold = nullptr);
void smoothSweep(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                 CellView32 const& xin, CellView const& xout, int firstColour, bool fromZero,
                 SweepWay way);
/// The owned cells of g outside awayFromGhostFaces(g), as disjoint slabs (BoxSplit): where a
/// sweep out of place leaves its second colour to smoothSweepShell. Empty without such faces.
std::vector<Box3> ghostFaceShell(PoissonGrid const& g);
/// The second colour (`colour`) of a sweep out of place on `shell` (ghostFaceShell(g)), in place
/// on x, whose first ghost layer must hold the owners' first colour (exchanged after
/// smoothSweep).
void smoothSweepShell(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                      CellView const& x, int colour, std::vector<Box3> const& shell);
void smoothSweepShell(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                      CellView32 const& x, int colour, std::vector<Box3> const& shell);

/// b_coarse = R r_fine: per axis weights (1, 3, 3, 1) / 8 over fine cells 2C-1 .. 2C+2 (walls
/// clamp the index: the mirrored ghost), i.e. R = P^T / 2^d for the prolongation below. The fine
/// residual's rank and periodic ghosts must be current.
void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView const& r,
                      PoissonGrid const& coarse, CellView const& b);
/// restrictResidual over the coarse cells of `coarseCells` only (owned coarse cells). A coarse
/// cell away from a face reads no fine ghost across it: its fine cells 2C-1 .. 2C+2 are owned.
void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView const& r,
                      PoissonGrid const& coarse, CellView const& b, Box3 const& coarseCells,
                      bool slab = false);
/// restrictResidual from a single-precision residual (the sums in double).
void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView32 const& r,
                      PoissonGrid const& coarse, CellView const& b, Box3 const& coarseCells,
                      bool slab = false);
/// x_fine += P e_coarse over the fine cells of `cells` (within withGhostRings(fine, rings)):
/// bilinear / trilinear cell-centred interpolation, weights 3/4 (parent) and 1/4 (the coarse
/// neighbour on the child's side; the parent itself beyond a wall). Ghost cells among them (rank
/// and periodic ghosts; wall ghosts are never read) that held their owner's x then hold its
/// owner's x + P e, bit for bit, so those `rings` layers need no exchange after this. The coarse
/// correction's rank and periodic ghosts must be current `rings` layers deep (one layer reaches
/// the fine ghosts of the first). A fine cell reads its parent and the parent's neighbour on its
/// side: away from a face, both owned.
void prolongAdd(ExecSpace const& space, PoissonGrid const& fine, CellView const& x,
                PoissonGrid const& coarse, CellView const& e, Box3 const& cells, bool slab = false);

}  // namespace eddy::fluids::detail
