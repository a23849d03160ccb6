#include "fluids/PoissonKernels.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/ReproducibleSum.hpp"

namespace eddy::fluids::detail {

namespace {
/// f over the box [lo, hi): forEachCell, or forEachSlabCell for a slab of an overlap's shell
/// (the same kernel with the MDRange tile cut to the slab on GPUs: the same bits).
template <class F>
void forCells(char const* label, ExecSpace const& space, std::array<int, 3> const& lo,
              std::array<int, 3> const& hi, bool slab, F const& f) {
  if (slab)
    forEachSlabCell(label, space, Box3{lo, hi}, f);
  else
    forEachCell(label, space, lo, hi, f);
}
}  // namespace

PoissonGrid PoissonGrid::make(CartDecomposition const& decomp, std::array<double, 3> const& h) {
  PoissonGrid g;
  g.dims = decomp.dims();
  Index3 const n = decomp.localCells(), o = decomp.offset(), N = decomp.globalCells();
  g.nx = n[0], g.ny = n[1], g.nz = n[2];
  g.ox = o[0], g.oy = o[1], g.oz = o[2];
  g.Nx = N[0], g.Ny = N[1], g.Nz = N[2];
  g.wx = decomp.isPeriodic(0) ? 0 : 1;
  g.wy = decomp.isPeriodic(1) ? 0 : 1;
  g.wz = g.dims == 3 && !decomp.isPeriodic(2) ? 1 : 0;
  for (int a = 0; a < g.dims; ++a)
    EDDY_REQUIRE(h[a] > 0, "PoissonSolver: cell size along axis ", a, " is ", h[a],
                 "; expected > 0");
  g.cx = 1.0 / (h[0] * h[0]);
  g.cy = 1.0 / (h[1] * h[1]);
  g.cz = g.dims == 3 ? 1.0 / (h[2] * h[2]) : 0.0;
  return g;
}

double sum(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& a) {
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(), KOKKOS_LAMBDA(int i, int j, int k) { return a(i, j, k); });
}

double dot(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& a,
           CellView const& b) {
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(),
      KOKKOS_LAMBDA(int i, int j, int k) { return a(i, j, k) * b(i, j, k); });
}

// The fused reductions below write a value in the term functor. reproducibleSum evaluates each
// term once, and a second time only when some term is NaN or Inf (to tell which); the write is
// idempotent, so that is harmless.

double prepareRhs(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& rhs,
                  double mean, CellView const& f) {
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(), KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = mean - rhs(i, j, k);
        f(i, j, k) = v;
        return v * v;
      });
}

double residualNorm2(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& b,
                     CellView const& x, CellView const& r) {
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(), KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = b(i, j, k) - applyOperator(g, x, i, j, k);
        r(i, j, k) = v;
        return v * v;
      });
}

double applyOperatorDot(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                        CellView const& p, CellView const& q) {
  ReproducibleAccumulator sum;
  applyOperatorDot(space, g, p, q, {Box3{{0, 0, 0}, g.hi()}}, sum);
  return sum.finish(comm);
}

void applyOperatorDot(ExecSpace const& space, PoissonGrid const& g, CellView const& p,
                      CellView const& q, std::vector<Box3> const& boxes,
                      ReproducibleAccumulator& sum) {
  if constexpr (compat::fusedStencilSums<ExecSpace>()) {
    sum.add(
        space, boxes, KOKKOS_LAMBDA(int i, int j, int k) {
          double const v = applyOperator(g, p, i, j, k);
          q(i, j, k) = v;
          return p(i, j, k) * v;
        });
  } else {  // the same values and terms in two passes
    for (Box3 const& box : boxes)
      forEachCell(
          "eddy::fluids::poisson::applyOperator", space, box.lo, box.hi,
          KOKKOS_LAMBDA(int i, int j, int k) { q(i, j, k) = applyOperator(g, p, i, j, k); });
    sum.add(
        space, boxes, KOKKOS_LAMBDA(int i, int j, int k) { return p(i, j, k) * q(i, j, k); });
  }
}

Box3 withGhostRings(PoissonGrid const& g, int rings) {
  auto const low = [rings](int o, int wall) {
    return wall && o == 0 ? 0 : -rings;
  };
  auto const high = [rings](int o, int n, int N, int wall) {
    return n + (wall && o + n == N ? 0 : rings);
  };
  return Box3{{low(g.ox, g.wx), low(g.oy, g.wy), g.dims == 3 ? low(g.oz, g.wz) : 0},
              {high(g.ox, g.nx, g.Nx, g.wx), high(g.oy, g.ny, g.Ny, g.wy),
               g.dims == 3 ? high(g.oz, g.nz, g.Nz, g.wz) : 1}};
}

void residual(ExecSpace const& space, PoissonGrid const& g, CellView const& b, CellView const& x,
              CellView const& r, Box3 const& cells, bool slab) {
  forCells(
      "eddy::fluids::poisson::residual", space, cells.lo, cells.hi, slab,
      KOKKOS_LAMBDA(int i, int j, int k) { r(i, j, k) = residualCell(g, b, x, i, j, k); });
}

void cgUpdate(ExecSpace const& space, PoissonGrid const& g, double alpha, CellView const& p,
              CellView const& q, CellView const& x, CellView const& r) {
  forEachCell(
      "eddy::fluids::poisson::cgUpdate", space, {0, 0, 0}, {g.nx, g.ny, g.nz},
      KOKKOS_LAMBDA(int i, int j, int k) {
        x(i, j, k) += alpha * p(i, j, k);
        r(i, j, k) -= alpha * q(i, j, k);
      });
}

void updateDirection(ExecSpace const& space, PoissonGrid const& g, double beta, CellView const& z,
                     CellView const& p) {
  forEachCell(
      "eddy::fluids::poisson::updateDirection", space, {0, 0, 0}, {g.nx, g.ny, g.nz},
      KOKKOS_LAMBDA(int i, int j, int k) { p(i, j, k) = z(i, j, k) + beta * p(i, j, k); });
}

void jacobiUpdate(ExecSpace const& space, PoissonGrid const& g, double omega, CellView const& r,
                  CellView const& x) {
  forEachCell(
      "eddy::fluids::poisson::jacobiUpdate", space, {0, 0, 0}, {g.nx, g.ny, g.nz},
      KOKKOS_LAMBDA(int i, int j, int k) {
        double const d = operatorDiagonal(g, i, j, k);
        if (d > 0) x(i, j, k) += omega * r(i, j, k) / d;
      });
}

void addConstant(ExecSpace const& space, PoissonGrid const& g, double c, CellView const& a) {
  forEachCell(
      "eddy::fluids::poisson::addConstant", space, {0, 0, 0}, {g.nx, g.ny, g.nz},
      KOKKOS_LAMBDA(int i, int j, int k) { a(i, j, k) += c; });
}

void copyOwned(ExecSpace const& space, PoissonGrid const& g, CellView const& src,
               CellView const& dst) {
  forEachCell(
      "eddy::fluids::poisson::copy", space, {0, 0, 0}, {g.nx, g.ny, g.nz},
      KOKKOS_LAMBDA(int i, int j, int k) { dst(i, j, k) = src(i, j, k); });
}

void smoothColour(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                  CellView const& x, int colour, Box3 const& cells, bool slab) {
  int const shift = colour + g.ox + g.oy + g.oz;
  int const lo0 = cells.lo[0], hi0 = cells.hi[0];
  forCells(
      "eddy::fluids::poisson::smoothColour", space, {0, cells.lo[1], cells.lo[2]},
      {(hi0 - lo0 + 1) / 2, cells.hi[1], cells.hi[2]}, slab, KOKKOS_LAMBDA(int t, int j, int k) {
        smoothColourRowItem(g, b, x, shift, lo0, hi0, t, j, k);
      });
}

void smoothColourFromZero(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                          CellView const& x, int colour, Box3 const& cells, bool slab) {
  int const shift = colour + g.ox + g.oy + g.oz;
  forCells(
      "eddy::fluids::poisson::smoothColourFromZero", space, cells.lo, cells.hi, slab,
      KOKKOS_LAMBDA(int i, int j, int k) { x(i, j, k) = fromZeroCell(g, b, shift, i, j, k); });
}

void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView const& r,
                      PoissonGrid const& coarse, CellView const& b) {
  restrictResidual(space, fine, r, coarse, b, Box3{{0, 0, 0}, {coarse.nx, coarse.ny, coarse.nz}});
}

void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView const& r,
                      PoissonGrid const& coarse, CellView const& b, Box3 const& coarseCells,
                      bool slab) {
  PoissonGrid const f = fine;
  PoissonGrid const c = coarse;
  forCells(
      "eddy::fluids::poisson::restrict", space, coarseCells.lo, coarseCells.hi, slab,
      KOKKOS_LAMBDA(int ci, int cj, int ck) { b(ci, cj, ck) = restrictCell(f, r, c, ci, cj, ck); });
}

void prolongAdd(ExecSpace const& space, PoissonGrid const& fine, CellView const& x,
                PoissonGrid const& coarse, CellView const& e, Box3 const& cells, bool slab) {
  PoissonGrid const f = fine;
  PoissonGrid const c = coarse;
  forCells(
      "eddy::fluids::poisson::prolong", space, cells.lo, cells.hi, slab,
      KOKKOS_LAMBDA(int i, int j, int k) { x(i, j, k) += prolongCell(f, c, e, i, j, k); });
}

}  // namespace eddy::fluids::detail
