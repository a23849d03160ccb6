#include "fluids/PoissonKernels.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/StencilSweep.hpp"
#include "eddy/core/Tuning.hpp"

#include <type_traits>

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
  g.invDiag = 1.0 / operatorDiagonal<false>(g, 0, 0, 0);
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

double centredNorm2(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                    CellView const& rhs, double mean) {
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(), KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = mean - rhs(i, j, k);
        return v * v;
      });
}

namespace {
template <bool Walls>
double residualNorm2With(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                         CellView const& b, CellView const& x, CellView const& r) {
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(), KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = b(i, j, k) - applyOperator<Walls>(g, x, i, j, k);
        r(i, j, k) = v;
        return v * v;
      });
}

template <bool Walls>
double centredResidualNorm2With(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                                CellView const& rhs, double mean, CellView const& x) {
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(), KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = (mean - rhs(i, j, k)) - applyOperator<Walls>(g, x, i, j, k);
        return v * v;
      });
}

template <bool Walls>
void applyOperatorDotWith(ExecSpace const& space, PoissonGrid const& g, CellView const& p,
                          CellView const& q, std::vector<Box3> const& boxes,
                          ReproducibleAccumulator& sum) {
  if constexpr (ReductionTuning<ExecSpace>::kFusedStencilSums) {
    sum.add(
        space, boxes, KOKKOS_LAMBDA(int i, int j, int k) {
          double const v = applyOperator<Walls>(g, p, i, j, k);
          q(i, j, k) = v;
          return p(i, j, k) * v;
        });
  } else {  // the same values and terms in two passes
    for (Box3 const& box : boxes)
      forEachCell(
          "eddy::fluids::poisson::applyOperator", space, box.lo, box.hi,
          KOKKOS_LAMBDA(int i, int j, int k) { q(i, j, k) = applyOperator<Walls>(g, p, i, j, k); });
    sum.add(
        space, boxes, KOKKOS_LAMBDA(int i, int j, int k) { return p(i, j, k) * q(i, j, k); });
  }
}

template <bool Walls, class Out>
void residualWith(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                  CellView const& x, Out const& r, Box3 const& cells, bool slab) {
  forCells(
      "eddy::fluids::poisson::residual", space, cells.lo, cells.hi, slab,
      KOKKOS_LAMBDA(int i, int j, int k) { r(i, j, k) = residualCell<Walls>(g, b, x, i, j, k); });
}
}  // namespace

double residualNorm2(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, CellView const& b,
                     CellView const& x, CellView const& r) {
  return touchesWall(g) ? residualNorm2With<true>(space, comm, g, b, x, r)
                        : residualNorm2With<false>(space, comm, g, b, x, r);
}

double centredResidualNorm2(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                            CellView const& rhs, double mean, CellView const& x) {
  return touchesWall(g) ? centredResidualNorm2With<true>(space, comm, g, rhs, mean, x)
                        : centredResidualNorm2With<false>(space, comm, g, rhs, mean, x);
}

double applyOperatorDot(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g,
                        CellView const& p, CellView const& q) {
  ReproducibleAccumulator sum;
  applyOperatorDot(space, g, p, q, {Box3{{0, 0, 0}, g.hi()}}, sum);
  return sum.finish(comm);
}

// The operator kernels of a block beside no wall go without the wall tests: the fused
// operator-dot is held by its instruction issue (the accumulator's integer work), and the tests
// cost it about a third.
void applyOperatorDot(ExecSpace const& space, PoissonGrid const& g, CellView const& p,
                      CellView const& q, std::vector<Box3> const& boxes,
                      ReproducibleAccumulator& sum) {
  if (touchesWall(g))
    applyOperatorDotWith<true>(space, g, p, q, boxes, sum);
  else
    applyOperatorDotWith<false>(space, g, p, q, boxes, sum);
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

namespace {
template <class Out>
void residualInto(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                  CellView const& x, Out const& r, Box3 const& cells, bool slab) {
  // `cells` may reach into the ghost rings: a ring cell can lie next to a wall that no owned
  // cell touches.
  if (touchesWall(g, cells))
    residualWith<true>(space, g, b, x, r, cells, slab);
  else
    residualWith<false>(space, g, b, x, r, cells, slab);
}
}  // namespace

void residual(ExecSpace const& space, PoissonGrid const& g, CellView const& b, CellView const& x,
              CellView const& r, Box3 const& cells, bool slab) {
  residualInto(space, g, b, x, r, cells, slab);
}

void residual(ExecSpace const& space, PoissonGrid const& g, CellView const& b, CellView const& x,
              CellView32 const& r, Box3 const& cells, bool slab) {
  residualInto(space, g, b, x, r, cells, slab);
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

double residualUpdate(ExecSpace const& space, MPI_Comm comm, PoissonGrid const& g, double alpha,
                      CellView const& r, CellView const& q, CellView const& rOut) {
  EDDY_REQUIRE(rOut.origin != r.origin && rOut.origin != q.origin,
               "residualUpdate: the updated residual must go to a third field");
  return reproducibleSum(
      space, comm, {0, 0, 0}, g.hi(), KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = r(i, j, k) - alpha * q(i, j, k);  // cgUpdate's r -= alpha q
        rOut(i, j, k) = v;
        return v * v;
      });
}

void advanceAndUpdateDirection(ExecSpace const& space, PoissonGrid const& g, double alpha,
                               double beta, CellView const& z, CellView const& p,
                               CellView const& x) {
  forEachCell(
      "eddy::fluids::poisson::advanceAndUpdateDirection", space, {0, 0, 0}, g.hi(),
      KOKKOS_LAMBDA(int i, int j, int k) {
        double const pk = p(i, j, k);
        x(i, j, k) += alpha * pk;
        p(i, j, k) = z(i, j, k) + beta * pk;
      });
}

void addScaled(ExecSpace const& space, PoissonGrid const& g, double alpha, CellView const& p,
               CellView const& x) {
  forEachCell(
      "eddy::fluids::poisson::addScaled", space, {0, 0, 0}, g.hi(),
      KOKKOS_LAMBDA(int i, int j, int k) { x(i, j, k) += alpha * p(i, j, k); });
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

namespace {
template <class View>
void smoothColourOf(ExecSpace const& space, PoissonGrid const& g, CellView const& b, View const& x,
                    int colour, Box3 const& cells, bool slab) {
  int const shift = colour + g.ox + g.oy + g.oz;
  int const lo0 = cells.lo[0], hi0 = cells.hi[0];
  forCells(
      "eddy::fluids::poisson::smoothColour", space, {0, cells.lo[1], cells.lo[2]},
      {(hi0 - lo0 + 1) / 2, cells.hi[1], cells.hi[2]}, slab, KOKKOS_LAMBDA(int t, int j, int k) {
        smoothColourRowItem(g, b, x, shift, lo0, hi0, t, j, k);
      });
}
}  // namespace

void smoothColour(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                  CellView const& x, int colour, Box3 const& cells, bool slab) {
  smoothColourOf(space, g, b, x, colour, cells, slab);
}

void smoothColour(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                  CellView32 const& x, int colour, Box3 const& cells, bool slab) {
  smoothColourOf(space, g, b, x, colour, cells, slab);
}

void smoothColourFromZero(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                          CellView const& x, int colour, Box3 const& cells, bool slab) {
  int const shift = colour + g.ox + g.oy + g.oz;
  forCells(
      "eddy::fluids::poisson::smoothColourFromZero", space, cells.lo, cells.hi, slab,
      KOKKOS_LAMBDA(int i, int j, int k) { x(i, j, k) = fromZeroCell(g, b, shift, i, j, k); });
}

Box3 awayFromGhostFaces(PoissonGrid const& g) {
  Box3 const rings = withGhostRings(g, 1);  // reaches past the owned cells at faces with ghosts
  Box3 inner{{0, 0, 0}, g.hi()};
  for (int a = 0; a < g.dims; ++a) {
    if (rings.lo[a] < 0) inner.lo[a] = 1;
    if (rings.hi[a] > inner.hi[a]) inner.hi[a] -= 1;
  }
  return inner;
}

namespace {
/// v as a field of T stores it (rounded to float for a float field).
template <class T>
KOKKOS_INLINE_FUNCTION double storedAs(double v) {
  return static_cast<double>(static_cast<T>(v));
}

/// The one-pass sweep out of place (smoothSweep's Planes way from a field, 3D): a team per tile of
/// kTileX x kTileY cells of a plane marches along z through planes [k0, k1), a pair of cells
/// adjacent in x per thread. Team scratch holds planes of xin over the tile and two rings in x
/// and y (kXSlots of them: the three the first colour of the next plane reads and one in flight),
/// and the first colour's new values over the tile and one ring (half the cells: one colour),
/// for the planes below, at and above the plane being written. Plane k is written after the
/// first colour of plane k + 1 is known: its first-colour cells from scratch, its second-colour
/// cells from the six first-colour values around them (cells of the ring that belong to
/// another tile are computed here too, the same way their tile computes them). Every value
/// comes from smoothValue with the neighbours in the same order, so it is the bits of the two
/// half sweeps in place. With Fold, xin is x + P e (a coarse correction folded in): each thread
/// adds prolongCell to the values it copied once they have landed, the values prolongAdd would
/// have written. The correction is prolonged separably: for each plane, a phase before a barrier
/// computes prolongColumn (z and y) for the coarse columns under the tile and its ring at each of
/// the plane's entry rows into scratch, and each entry then weights its two columns in x (about
/// a third of the work of prolongCell per entry, the same arithmetic). The columns of plane k + 3
/// are computed with the first colour of plane k + 1, so the fold adds no barrier to the march.
/// Any team size: on GPUs kPairs threads, on host backends one.
/// `Walls` false where no owned cell lies next to a wall (touchesWall): the smoothing arithmetic
/// without the wall tests, the same values.
/// `In`, `Out`: the value types of xin and xout (double, or float for the finest level's work
/// field with mixed precision). Writing floats, the first colour's values are rounded to float
/// in scratch, before the second colour reads them (as the loops read them back from xout).
template <bool Fold, bool Walls, class In = double, class Out = double>
struct SweepPlanes {
  static_assert(!Fold || std::is_same_v<In, double>, "SweepPlanes: a fold adds to double xin");
  /// 64 x 8 on GPUs (34 KB of scratch, 37.5 KB with Fold: five teams a multiprocessor instead of
  /// six, which still beats reading the fold's eight coarse values an entry), 64 x 4 on host
  /// backends (their teams get 32 KB).
  static constexpr int kTileX = 64, kTileY = GridTuning<ExecSpace>::kPlaneSweeps ? 8 : 4;
  static constexpr int kPairs = kTileX / 2 * kTileY;
  static constexpr int kXW = kTileX + 4, kXPlane = kXW * (kTileY + 4), kXSlots = 4;
  static constexpr int kRW = (kTileX + 2) / 2, kRPlane = kRW * (kTileY + 2), kRSlots = 3;
  /// With Fold, the columns of P e of one plane: the coarse columns under the kXW entries of a
  /// row (kTileX / 2 + 5 where the block's offset is odd) at each of the kTileY + 4 entry rows.
  static constexpr int kCW = kTileX / 2 + 5, kCPlane = Fold ? kCW * (kTileY + 4) : 0;
  /// Doubles of scratch that the planes of xin take (In values), then the first colour's.
  static constexpr int kXDoubles =
      static_cast<int>((kXSlots * kXPlane * sizeof(In) + sizeof(double) - 1) / sizeof(double));
  static constexpr int kScratch = kXDoubles + kRSlots * kRPlane + kCPlane;
  using Team = Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Scratch = Kokkos::View<double*, ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  PoissonGrid g;
  CellView b;
  GhostedView<MemSpace, In> xin;
  GhostedView<MemSpace, Out> xout;
  int colour;       ///< the first colour
  DeviceBox inner;  ///< awayFromGhostFaces(g)
  int tilesX, tilesY, planesPerTeam;
  CoarseCorrection fold;  ///< with Fold

  static std::size_t scratchBytes() { return Scratch::shmem_size(kScratch); }

  KOKKOS_INLINE_FUNCTION void operator()(Team const& team) const {
    Scratch scratch(team.team_scratch(0), kScratch);
    In* const xs = reinterpret_cast<In*>(scratch.data());
    double* const rs = scratch.data() + kXDoubles;
    double* const cs = rs + kRSlots * kRPlane;
    int const t = team.league_rank();
    int const x0 = (t % tilesX) * kTileX, y0 = (t / tilesX % tilesY) * kTileY;
    int const k0 = t / (tilesX * tilesY) * planesPerTeam;
    int const k1 = k0 + planesPerTeam < g.nz ? k0 + planesPerTeam : g.nz;
    int const rank = team.team_rank(), size = team.team_size();
    // Plane m (>= -2) of xin, and the first colour's values of plane m (>= -1).
    auto const xPlane = [&](int m) {
      return xs + (m + 4) % 4 * kXPlane;
    };
    auto const rPlane = [&](int m) {
      return rs + (m + 3) % 3 * kRPlane;
    };
    // The cell of entry e of a plane of xin in scratch: clamped into the owned cells and one
    // ghost layer (such entries are read, never used).
    auto const entryCell = [&](int e, int& gx, int& gy) {
      gx = x0 - 2 + e % kXW;
      gy = y0 - 2 + e / kXW;
      gx = gx < -1 ? -1 : (gx > g.nx ? g.nx : gx);
      gy = gy < -1 ? -1 : (gy > g.ny ? g.ny : gy);
    };
    // This thread's copies of plane m of xin (those in [-1, nz]), as one group.
    auto const issue = [&](int m) {
      if (m >= -1 && m <= g.nz) {
        In* const dst = xPlane(m);
        for (int e = rank; e < kXPlane; e += size) {
          int gx, gy;
          entryCell(e, gx, gy);
          compat::asyncCopy(dst + e, &xin(gx, gy, m));
        }
      }
      compat::asyncCommit();
    };
    // With Fold: the coarse column (local index) of cs's column 0, one left of the parent of
    // the tile's first entry (x0 - 2, or the ghost -1 at the block's edge).
    int const c0 = ((g.ox + (x0 - 2 < -1 ? -1 : x0 - 2)) >> 1) - 1 - fold.coarse.ox;
    // With Fold: prolongColumn of plane m at each entry row of the tile (every thread's part
    // readable after the next barrier). Columns that no entry reads are clamped into e's ghosts.
    auto const columns = [&](int m) {
      if constexpr (Fold) {
        if (m < -1 || m > g.nz) return;
        PoissonGrid const& c = fold.coarse;
        int ck0, ck1;
        prolongParents<Walls>(g.oz, m, c.oz, c.Nz, c.wz, ck0, ck1);
        for (int e = rank; e < kCPlane; e += size) {
          int gy = y0 - 2 + e / kCW;
          gy = gy < -1 ? -1 : (gy > g.ny ? g.ny : gy);
          int j0, j1;
          prolongParents<Walls>(g.oy, gy, c.oy, c.Ny, c.wy, j0, j1);
          int ci = c0 + e % kCW;
          ci = ci < -1 ? -1 : (ci > c.nx ? c.nx : ci);
          cs[e] = prolongColumn(fold.e, ci, j0, j1, ck0, ck1);
        }
      }
    };
    // With Fold, once this thread's copies of plane m have landed and its columns are computed:
    // + P e on each (prolongCell's value: its columns weighted in x).
    auto const addCorrection = [&](int m) {
      if constexpr (Fold) {
        if (m < -1 || m > g.nz) return;
        In* const dst = xPlane(m);
        for (int e = rank; e < kXPlane; e += size) {
          int gx, gy;
          entryCell(e, gx, gy);
          int i0, i1;
          prolongParents<Walls>(g.ox, gx, fold.coarse.ox, fold.coarse.Nx, fold.coarse.wx, i0, i1);
          double const* const row = cs + e / kXW * kCW - c0;
          dst[e] += prolongWeights(row[i0], row[i1]);
        }
      }
    };
    // The first colour's new values on plane m over the tile and its ring (owned cells only).
    auto const firstColour = [&](int m) {
      if (m < 0 || m >= g.nz) return;
      double* const r = rPlane(m);
      for (int e = rank; e < kRPlane; e += size) {
        int const ry = e / kRW;
        int const rx = 2 * (e % kRW) + ((x0 + y0 + ry + m + g.ox + g.oy + g.oz + colour) & 1);
        int const i = x0 - 1 + rx, j = y0 - 1 + ry;
        if (i < 0 || i >= g.nx || j < 0 || j >= g.ny) continue;
        int const at = (ry + 1) * kXW + rx + 1;
        r[e] = storedAs<Out>(smoothValue<Walls>(
            g, b(i, j, m), i, j, m,
            [&](int di, int dj, int dk) -> double { return xPlane(m + dk)[at + di + dj * kXW]; },
            xPlane(m)[at]));
      }
    };
    // Plane k of xout over the tile: of each pair, the cell of the first colour from scratch and
    // the other one computed (no branch between the colours within a warp).
    auto const write = [&](int k) {
      for (int p = rank; p < kPairs; p += size) {
        int const i0 = x0 + 2 * (p % (kTileX / 2)), j = y0 + p / (kTileX / 2);
        if (i0 >= g.nx || j >= g.ny) continue;
        int const ry = p / (kTileX / 2) + 1;
        int const second = i0 + 1 - ((i0 + j + k + g.ox + g.oy + g.oz + colour) & 1);
        int const first = 2 * i0 + 1 - second;
        if (first < g.nx) xout(first, j, k) = rPlane(k)[ry * kRW + (first - x0 + 1) / 2];
        if (second < g.nx) {
          int const rx = second - x0 + 1;
          double v = xPlane(k)[(ry + 1) * kXW + rx + 1];
          if (inner.contains(second, j, k))
            v = smoothValue<Walls>(
                g, b(second, j, k), second, j, k,
                [&](int di, int dj, int dk) {
                  return rPlane(k + dk)[(ry + dj) * kRW + (rx + di) / 2];
                },
                v);
          xout(second, j, k) = v;
        }
      }
    };
    for (int m = k0 - 2; m <= k0 + 1; ++m) issue(m);
    compat::asyncWait<0>();
    if constexpr (Fold) {
      for (int m = k0 - 2; m <= k0 + 1; ++m) {
        columns(m);
        team.team_barrier();
        addCorrection(m);
        team.team_barrier();  // the columns are read by no one
      }
    } else {
      team.team_barrier();
    }
    firstColour(k0 - 1);
    firstColour(k0);
    columns(k0 + 2);
    team.team_barrier();  // plane k0 - 2 of xin is read by no one
    issue(k0 + 2);
    for (int k = k0; k < k1; ++k) {
      compat::asyncWait<0>();  // plane k + 2 has landed (this thread's part)
      addCorrection(k + 2);
      team.team_barrier();  // ... and every thread's; planes k - 1 and k - 2 are done with, and
                            // so are plane k + 2's columns
      issue(k + 3);
      firstColour(k + 1);
      columns(k + 3);
      team.team_barrier();
      write(k);
    }
    compat::asyncWait<0>();  // nothing left in flight when the team ends
  }
};

/// Teams of the one-pass sweep a GPU multiprocessor is asked to hold (launch bounds): six, at
/// 40 registers a thread, where shared memory holds six teams' scratch; elsewhere the sweep runs
/// without bounds: more warps in flight hide more of the plane barriers' waits.
constexpr int kSweepMinTeams = 6;

template <bool Fold, bool Walls, class In, class Out>
void sweepPlanesWith(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                     GhostedView<MemSpace, In> const& xin, GhostedView<MemSpace, Out> const& xout,
                     int colour, CoarseCorrection const& fold) {
  using K = SweepPlanes<Fold, Walls, In, Out>;
  int const teamSize = GridTuning<ExecSpace>::kPlaneSweeps ? K::kPairs : 1;
  long long const tilesX = (g.nx + K::kTileX - 1) / K::kTileX;
  long long const tilesY = (g.ny + K::kTileY - 1) / K::kTileY;
  int const run = eddy::detail::defaultPlanesPerTeam(space, teamSize, tilesX * tilesY, g.nz);
  long long const teams = tilesX * tilesY * ((g.nz + run - 1) / run);
  EDDY_REQUIRE(teams < (1LL << 31), "PoissonSolver: ", teams, " teams for a sweep of a block of ",
               g.nx, " x ", g.ny, " x ", g.nz, " cells; expected fewer than 2^31");
  K const kernel{g,
                 b,
                 xin,
                 xout,
                 colour,
                 DeviceBox::of(awayFromGhostFaces(g)),
                 static_cast<int>(tilesX),
                 static_cast<int>(tilesY),
                 run,
                 fold};
  Kokkos::TeamPolicy<ExecSpace> policy(space, static_cast<int>(teams), teamSize);
  EDDY_REQUIRE(K::scratchBytes() <= static_cast<std::size_t>(policy.scratch_size_max(0)),
               "PoissonSolver: the one-pass sweep needs ", K::scratchBytes(),
               " bytes of team scratch, more than the ", policy.scratch_size_max(0),
               " a team can have");
  policy.set_scratch_size(0, Kokkos::PerTeam(K::scratchBytes()));
  using Bounded = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<K::kPairs, kSweepMinTeams>>;
  Bounded bounded(space, static_cast<int>(teams), teamSize);
  bounded.set_scratch_size(0, Kokkos::PerTeam(K::scratchBytes()));
  // Whether the bounds can be met with this scratch: once per kind of sweep (one device).
  static bool const fits = bounded.team_size_max(kernel, Kokkos::ParallelForTag()) >= teamSize;
  if (fits)
    Kokkos::parallel_for("eddy::fluids::poisson::smoothSweep", bounded, kernel);
  else
    Kokkos::parallel_for("eddy::fluids::poisson::smoothSweep", policy, kernel);
}

template <bool Fold, class In, class Out>
void sweepPlanes(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                 GhostedView<MemSpace, In> const& xin, GhostedView<MemSpace, Out> const& xout,
                 int colour, CoarseCorrection const& fold) {
  // The folded sweep also prolongs onto the ring around the block, whose clamps reachesWall
  // decides.
  bool const walls = touchesWall(g) ||
                     (Fold && reachesWall(g, Box3{{-1, -1, -1}, {g.nx + 1, g.ny + 1, g.nz + 1}}));
  if (walls)
    sweepPlanesWith<Fold, true>(space, g, b, xin, xout, colour, fold);
  else
    sweepPlanesWith<Fold, false>(space, g, b, xin, xout, colour, fold);
}

/// One sweep from x = 0 as a seven-point map of b (3D): the first colour's values are b * (1 /
/// diag) where they lie, so a cell of the second colour away from the ghost faces computes its six
/// neighbours' values from b itself (rounded to Out, as they are stored) and needs no first pass;
/// the other cells of the second colour get 0 (smoothSweepShell computes them after the
/// exchange). The arithmetic of fromZeroCell and smoothValue: the bits of the loops.
template <bool Walls, class Out>
struct FromZeroMap {
  PoissonGrid g;
  int shift;
  DeviceBox inner;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k, Neighbours7 const& nb) const {
    if (((i + j + k + shift) & 1) == 0) return fromZeroValue<Walls>(g, nb.c, i, j, k);
    if (!inner.contains(i, j, k)) return 0.0;
    return smoothValue<Walls>(
        g, nb.c, i, j, k,
        [&](int di, int dj, int dk) -> double {
          return storedAs<Out>(fromZeroValue<Walls>(g, nb.at(di, dj, dk), i + di, j + dj, k + dk));
        },
        0.0);
  }
};

template <bool Walls, class Out>
void sweepFromZeroWith(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                       GhostedView<MemSpace, Out> const& xout, int colour) {
  FromZeroMap<Walls, Out> const f{g, colour + g.ox + g.oy + g.oz,
                                  DeviceBox::of(awayFromGhostFaces(g))};
  sweepSevenPoint("eddy::fluids::poisson::smoothSweepFromZero", space, b, xout, true, {0, 0, 0},
                  g.hi(), f);
}

template <class Out>
void sweepFromZero(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                   GhostedView<MemSpace, Out> const& xout, int colour) {
  if (touchesWall(g))
    sweepFromZeroWith<true>(space, g, b, xout, colour);
  else
    sweepFromZeroWith<false>(space, g, b, xout, colour);
}

template <class In, class Out>
void smoothSweepOf(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                   GhostedView<MemSpace, In> const& xin, GhostedView<MemSpace, Out> const& xout,
                   int firstColour, bool fromZero, SweepWay way, CoarseCorrection const* fold) {
  EDDY_REQUIRE(static_cast<void const*>(xin.origin) != static_cast<void const*>(xout.origin),
               "smoothSweep: the sweep out of place reads and writes the same field");
  EDDY_REQUIRE(!(fold && fromZero), "smoothSweep: a sweep from zero takes no coarse correction");
  // A fold adds to xin: a double field only (the overload from a float field takes none).
  constexpr bool foldable = std::is_same_v<In, double>;
  if (way == SweepWay::Planes && g.dims == 3) {
    if (fromZero)
      sweepFromZero(space, g, b, xout, firstColour);
    else if (fold) {
      if constexpr (foldable) sweepPlanes<true>(space, g, b, xin, xout, firstColour, *fold);
    } else {
      sweepPlanes<false>(space, g, b, xin, xout, firstColour, {});
    }
    return;
  }
  if constexpr (foldable)
    if (fold) prolongAdd(space, g, xin, fold->coarse, fold->e, withGhostRings(g, 1));
  int const shift = firstColour + g.ox + g.oy + g.oz;
  forEachCell(
      "eddy::fluids::poisson::smoothSweepFirst", space, {0, 0, 0}, g.hi(),
      KOKKOS_LAMBDA(int i, int j, int k) {
        if (fromZero) {
          xout(i, j, k) = fromZeroCell(g, b, shift, i, j, k);
        } else if (((i + j + k + shift) & 1) == 0) {
          xout(i, j, k) = smoothValue(
              g, b(i, j, k), i, j, k,
              [&](int di, int dj, int dk) { return xin(i + di, j + dj, k + dk); }, xin(i, j, k));
        } else {
          xout(i, j, k) = xin(i, j, k);
        }
      });
  smoothColour(space, g, b, xout, 1 - firstColour, awayFromGhostFaces(g));
}
}  // namespace

void smoothSweep(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                 CellView const& xin, CellView const& xout, int firstColour, bool fromZero,
                 SweepWay way, CoarseCorrection const* fold) {
  smoothSweepOf(space, g, b, xin, xout, firstColour, fromZero, way, fold);
}

void smoothSweep(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                 CellView const& xin, CellView32 const& xout, int firstColour, bool fromZero,
                 SweepWay way, CoarseCorrection const* fold) {
  smoothSweepOf(space, g, b, xin, xout, firstColour, fromZero, way, fold);
}

void smoothSweep(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                 CellView32 const& xin, CellView const& xout, int firstColour, bool fromZero,
                 SweepWay way) {
  smoothSweepOf(space, g, b, xin, xout, firstColour, fromZero, way, nullptr);
}

std::vector<Box3> ghostFaceShell(PoissonGrid const& g) {
  return BoxSplit::of(Box3{{0, 0, 0}, g.hi()}, awayFromGhostFaces(g)).shell;
}

void smoothSweepShell(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                      CellView const& x, int colour, std::vector<Box3> const& shell) {
  for (Box3 const& slab : shell) smoothColour(space, g, b, x, colour, slab, true);
}

void smoothSweepShell(ExecSpace const& space, PoissonGrid const& g, CellView const& b,
                      CellView32 const& x, int colour, std::vector<Box3> const& shell) {
  for (Box3 const& slab : shell) smoothColour(space, g, b, x, colour, slab, true);
}

namespace {
template <bool Clamp, class Fine>
void restrictWith(ExecSpace const& space, PoissonGrid const& fine, Fine const& r,
                  PoissonGrid const& coarse, CellView const& b, Box3 const& coarseCells,
                  bool slab) {
  PoissonGrid const f = fine;
  PoissonGrid const c = coarse;
  forCells(
      "eddy::fluids::poisson::restrict", space, coarseCells.lo, coarseCells.hi, slab,
      KOKKOS_LAMBDA(int ci, int cj, int ck) {
        b(ci, cj, ck) = restrictCell<Clamp>(f, r, c, ci, cj, ck);
      });
}

template <bool Clamp>
void prolongWith(ExecSpace const& space, PoissonGrid const& fine, CellView const& x,
                 PoissonGrid const& coarse, CellView const& e, Box3 const& cells, bool slab) {
  PoissonGrid const f = fine;
  PoissonGrid const c = coarse;
  forCells(
      "eddy::fluids::poisson::prolong", space, cells.lo, cells.hi, slab,
      KOKKOS_LAMBDA(int i, int j, int k) { x(i, j, k) += prolongCell<Clamp>(f, c, e, i, j, k); });
}
}  // namespace

void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView const& r,
                      PoissonGrid const& coarse, CellView const& b) {
  restrictResidual(space, fine, r, coarse, b, Box3{{0, 0, 0}, {coarse.nx, coarse.ny, coarse.nz}});
}

namespace {
template <class Fine>
void restrictFrom(ExecSpace const& space, PoissonGrid const& fine, Fine const& r,
                  PoissonGrid const& coarse, CellView const& b, Box3 const& coarseCells,
                  bool slab) {
  if (reachesWall(coarse, coarseCells))
    restrictWith<true>(space, fine, r, coarse, b, coarseCells, slab);
  else
    restrictWith<false>(space, fine, r, coarse, b, coarseCells, slab);
}
}  // namespace

void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView const& r,
                      PoissonGrid const& coarse, CellView const& b, Box3 const& coarseCells,
                      bool slab) {
  restrictFrom(space, fine, r, coarse, b, coarseCells, slab);
}

void restrictResidual(ExecSpace const& space, PoissonGrid const& fine, CellView32 const& r,
                      PoissonGrid const& coarse, CellView const& b, Box3 const& coarseCells,
                      bool slab) {
  restrictFrom(space, fine, r, coarse, b, coarseCells, slab);
}

void prolongAdd(ExecSpace const& space, PoissonGrid const& fine, CellView const& x,
                PoissonGrid const& coarse, CellView const& e, Box3 const& cells, bool slab) {
  if (reachesWall(fine, cells))
    prolongWith<true>(space, fine, x, coarse, e, cells, slab);
  else
    prolongWith<false>(space, fine, x, coarse, e, cells, slab);
}

}  // namespace eddy::fluids::detail
