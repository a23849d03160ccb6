#include "fluids/MacKernels.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/PlaneWindow.hpp"
#include "eddy/core/Reductions.hpp"

#include <string>

namespace eddy::fluids::mac {

namespace {

/// Launches `f` over `part` of `boxes`: one functor for every part (the shell's slabs only take
/// tiles shaped for them), so each entry is computed by the same code whichever part holds it.
/// The whole or inner box goes to onBox(box) (by default forEachCell of f).
template <class F, class OnBox>
void launch(std::string const& label, ExecSpace const& space, BoxSplit const& boxes, Part part,
            F const& f, OnBox const& onBox) {
  if (part == Part::Shell) {
    for (Box3 const& b : boxes.shell) forEachSlabCell(label, space, b, f);
    return;
  }
  onBox(part == Part::Whole ? boxes.whole : boxes.inner);
}
template <class F>
void launch(std::string const& label, ExecSpace const& space, BoxSplit const& boxes, Part part,
            F const& f) {
  launch(label, space, boxes, part, f,
         [&](Box3 const& b) { forEachCell(label, space, b.lo, b.hi, f); });
}

}  // namespace

BoxSplit momentumFaces(int dims, int c, Index3 const& n, bool lowWall) {
  Box3 faces{{0, 0, 0}, n};
  faces.lo[c] = lowWall ? 1 : 0;
  Box3 safe = faces;
  for (int a = 0; a < dims; ++a) {
    safe.lo[a] = 1;
    safe.hi[a] = n[a] - 1;
  }
  return BoxSplit::of(faces, safe);
}

BoxSplit divergenceCells(int dims, Index3 const& n) {
  Box3 const cells{{0, 0, 0}, n};
  Box3 safe = cells;
  for (int a = 0; a < dims; ++a) safe.hi[a] = n[a] - 1;  // reads faces i and i + 1
  return BoxSplit::of(cells, safe);
}

MacGrid MacGrid::make(int dims, std::array<double, 3> const& h) {
  MacGrid g;
  g.dims = dims;
  for (int a = 0; a < 3; ++a) {
    g.invH[a] = a < dims ? 1.0 / h[a] : 0.0;
    g.invH2[a] = g.invH[a] * g.invH[a];
  }
  return g;
}

namespace {

/// One RK stage of every component at the faces (i, j, k), as a functor (the stage state is
/// shared by every entry; no lambda capture of a class): reads the velocity around the face in the
/// window w (w(c, dx, dy, dz): component c at (i + dx, j + dy, k + dz), forEachCellWindow) and
/// the previous stage's velocity in `next` at the face itself, then writes the new velocity to
/// `next`.
struct MomentumStages {
  MacGrid g;
  FieldView p, next[3];
  DeviceBox faces[3];
  double nu, force[3], dt, aOverBPrevious, stageB;
  FieldView forcingField;
  double forcing[3], forcingReference;

  /// Adds axis B's terms (B != C) to the advection and the Laplacian of component C.
  template <int C, int B, class W>
  KOKKOS_INLINE_FUNCTION void crossAxis(W const& w, double centre, double& adv, double& lap) const {
    if (B == C || B >= g.dims) return;
    constexpr int ec0 = C == 0, ec1 = C == 1, ec2 = C == 2;
    constexpr int eb0 = B == 0, eb1 = B == 1, eb2 = B == 2;
    double const n1 = w(C, eb0, eb1, eb2);
    double const n0 = w(C, -eb0, -eb1, -eb2);
    // d(u_b u_c)/dx_b from the edges above and below along b: u_c averaged along b, u_b averaged
    // along c.
    double const ubUp = 0.5 * (w(B, eb0 - ec0, eb1 - ec1, eb2 - ec2) + w(B, eb0, eb1, eb2));
    double const ubDown = 0.5 * (w(B, -ec0, -ec1, -ec2) + w(B, 0, 0, 0));
    adv += (0.5 * (centre + n1) * ubUp - 0.5 * (n0 + centre) * ubDown) * g.invH[B];
    lap += (n1 - 2.0 * centre + n0) * g.invH2[B];
  }

  /// The new velocity of component C at face (i, j, k).
  template <int C, class W>
  KOKKOS_INLINE_FUNCTION double stage(int i, int j, int k, W const& w) const {
    constexpr int c = C, ec0 = c == 0, ec1 = c == 1, ec2 = c == 2;
    double const centre = w(c, 0, 0, 0);
    double const up = w(c, ec0, ec1, ec2);
    double const down = w(c, -ec0, -ec1, -ec2);
    // d(u_c u_c)/dx_c from the cell-centred averages either side of the face.
    double const cUp = 0.5 * (centre + up), cDown = 0.5 * (down + centre);
    double adv = (cUp * cUp - cDown * cDown) * g.invH[c];
    double lap = (up - 2.0 * centre + down) * g.invH2[c];
    // The other axes in order, each at fixed offsets (a window in scratch reads them at constant
    // distances).
    crossAxis<c, 0>(w, centre, adv, lap);
    crossAxis<c, 1>(w, centre, adv, lap);
    crossAxis<c, 2>(w, centre, adv, lap);
    double const gradP = (p(i, j, k) - p(i - ec0, j - ec1, k - ec2)) * g.invH[c];
    // Without a coupled force the sum is force[c] itself: the same bits as an uncoupled flow.
    double const fc =
        forcing[c] != 0.0
            ? force[c] + forcing[c] * (0.5 * (forcingField(i - ec0, j - ec1, k - ec2) +
                                              forcingField(i, j, k)) -
                                       forcingReference)
            : force[c];
    double const rate = nu * lap - adv + fc - gradP;
    // The previous stage's du is (u - u_previous) / B_previous.
    double const du =
        (aOverBPrevious == 0.0 ? 0.0 : aOverBPrevious * (centre - next[c](i, j, k))) + dt * rate;
    return centre + stageB * du;
  }

  // Every component's value is computed before any is stored: the stores go to `next` only, but
  // the compiler cannot tell that `next` and u are different memory.
  template <class W>
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, W const& w) const {
    bool const has0 = faces[0].contains(i, j, k), has1 = faces[1].contains(i, j, k);
    bool const has2 = faces[2].contains(i, j, k);
    double const v0 = has0 ? stage<0>(i, j, k, w) : 0.0;
    double const v1 = has1 ? stage<1>(i, j, k, w) : 0.0;
    double const v2 = has2 ? stage<2>(i, j, k, w) : 0.0;
    if (has0) next[0](i, j, k) = v0;
    if (has1) next[1](i, j, k) = v1;
    if (has2) next[2](i, j, k) = v2;
  }
};

}  // namespace

void momentumStages(ExecSpace const& space, MacGrid const& grid, StageFields const& f,
                    FieldView const& p, BoxSplit const& faces, Part part, double nu,
                    std::array<double, 3> const& force, double dt, RkCoefficients const& rk) {
  MomentumStages const m{
      grid,
      p,
      {f.next[0], f.next[1], f.next[2]},
      {DeviceBox::of(f.faces[0]), DeviceBox::of(f.faces[1]), DeviceBox::of(f.faces[2])},
      nu,
      {force[0], force[1], force[2]},
      dt,
      rk.a == 0.0 ? 0.0 : rk.a / rk.bPrevious,
      rk.b,
      f.forcingField,
      {f.forcing[0], f.forcing[1], f.forcing[2]},
      f.forcingReference};
  std::array<WindowField, 3> const u{WindowField::of(f.u.c[0]), WindowField::of(f.u.c[1]),
                                     WindowField::of(f.u.c[2])};
  std::string const label = "eddy::fluids::momentumStage";
  // Each face reads the three components within one of it on every axis: on GPUs their planes
  // pass through team scratch (forEachCellWindow), which beats keeping them in L1 by z columns
  // (forEachCellColumn). The shell's slabs gather the window from the fields.
  launch(
      label, space, faces, part, WindowCells<3, MomentumStages>{{u[0], u[1], u[2]}, m},
      [&](Box3 const& b) { forEachCellWindow<3>(label, space, u, grid.dims == 3, b.lo, b.hi, m); });
}

void divergence(ExecSpace const& space, MacGrid const& grid, VelocityViews const& u,
                FieldView const& out, double scale, BoxSplit const& cells, Part part) {
  launch(
      "eddy::fluids::divergence", space, cells, part, KOKKOS_LAMBDA(int i, int j, int k) {
        out(i, j, k) = scale * divergenceAt(grid, u, i, j, k);
      });
}

namespace {
/// closeProjection at a cell: correct() its low faces and add phi to p; include() the
/// magnitudes of the faces the maxima count there.
struct ClosingCell {
  FieldView u[3], phi, p;
  double factor[3], offset;
  int first[3];   ///< the first face index corrected along each axis
  int beyond[3];  ///< the index of the owned face beyond the cells along each axis, or -1
  int dims;
  bool pressure;
  KOKKOS_INLINE_FUNCTION void correct(int i, int j, int k) const {
    double const centre = phi(i, j, k);
    if (i >= first[0]) u[0](i, j, k) -= factor[0] * (centre - phi(i - 1, j, k));
    if (j >= first[1]) u[1](i, j, k) -= factor[1] * (centre - phi(i, j - 1, k));
    if (dims == 3 && k >= first[2]) u[2](i, j, k) -= factor[2] * (centre - phi(i, j, k - 1));
    if (pressure) p(i, j, k) += centre + offset;
  }
  KOKKOS_INLINE_FUNCTION void include(int i, int j, int k, Maxima<3>& most) const {
    for (int c = 0; c < dims; ++c) most.include(c, math::magnitudeOrInf(u[c](i, j, k)));
    if (i + 1 == beyond[0]) most.include(0, math::magnitudeOrInf(u[0](i + 1, j, k)));
    if (j + 1 == beyond[1]) most.include(1, math::magnitudeOrInf(u[1](i, j + 1, k)));
    if (dims == 3 && k + 1 == beyond[2]) most.include(2, math::magnitudeOrInf(u[2](i, j, k + 1)));
  }
};
}  // namespace

// On GPUs the reductions' own pass does the work at each cell; on host cores their row blocks
// keep the compiler from vectorising it along rows, so the work takes a row pass (forEachCell)
// and the reduction a pass of its own.

double divergenceMax(ExecSpace const& space, MPI_Comm comm, MacGrid const& grid,
                     VelocityViews const& u, FieldView const& out, double scale, Index3 const& n) {
  if constexpr (kDeviceBackend) {
    return globalMax(
        space, comm, {0, 0, 0}, n, KOKKOS_LAMBDA(int i, int j, int k) {
          double const v = scale * divergenceAt(grid, u, i, j, k);
          out(i, j, k) = v;
          return math::magnitudeOrInf(v);
        });
  }
  forEachCell(
      "eddy::fluids::divergence", space, {0, 0, 0}, n, KOKKOS_LAMBDA(int i, int j, int k) {
        out(i, j, k) = scale * divergenceAt(grid, u, i, j, k);
      });
  return globalMax(
      space, comm, {0, 0, 0}, n,
      KOKKOS_LAMBDA(int i, int j, int k) { return math::magnitudeOrInf(out(i, j, k)); });
}

std::array<double, 3> closeProjection(ExecSpace const& space, MPI_Comm comm, MacGrid const& grid,
                                      VelocityViews const& u, FieldView const& phi,
                                      FieldView const& p, bool pressure, double offset, double coef,
                                      std::array<bool, 3> const& fixedLow,
                                      std::array<bool, 3> const& fixedHigh, Index3 const& n) {
  ClosingCell cell{};
  for (int c = 0; c < 3; ++c) {
    cell.u[c] = u.c[c];
    cell.factor[c] = coef * grid.invH[c];
    cell.first[c] = fixedLow[c] ? 1 : 0;
    cell.beyond[c] = fixedHigh[c] ? n[c] : -1;
  }
  cell.phi = phi;
  cell.p = p;
  cell.offset = offset;
  cell.dims = grid.dims;
  cell.pressure = pressure;
  std::array<double, 3> m{};
  if constexpr (kDeviceBackend) {
    m = globalMaxima<3>(
        space, comm, {0, 0, 0}, n, KOKKOS_LAMBDA(int i, int j, int k, Maxima<3>& most) {
          cell.correct(i, j, k);
          cell.include(i, j, k, most);
        });
  } else {
    forEachCell(
        "eddy::fluids::closeProjection", space, {0, 0, 0}, n,
        KOKKOS_LAMBDA(int i, int j, int k) { cell.correct(i, j, k); });
    m = globalMaxima<3>(
        space, comm, {0, 0, 0}, n,
        KOKKOS_LAMBDA(int i, int j, int k, Maxima<3>& most) { cell.include(i, j, k, most); });
  }
  return m;
}

void accumulate(ExecSpace const& space, FieldView const& p, FieldView const& phi, double offset,
                std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
  if (offset == 0.0) {
    forEachCell(
        "eddy::fluids::accumulatePressure", space, lo, hi,
        KOKKOS_LAMBDA(int i, int j, int k) { p(i, j, k) += phi(i, j, k); });
    return;
  }
  forEachCell(
      "eddy::fluids::accumulatePressure", space, lo, hi,
      KOKKOS_LAMBDA(int i, int j, int k) { p(i, j, k) += phi(i, j, k) + offset; });
}

void extrapolate(ExecSpace const& space, FieldView const& out, FieldView const (&phi)[3],
                 std::array<double, 3> const& w, int terms, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi) {
  FieldView const p0 = phi[0], p1 = phi[1], p2 = phi[2];
  double const w0 = w[0], w1 = w[1], w2 = w[2];
  forEachCell(
      "eddy::fluids::poissonGuess", space, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        double g = w0 * p0(i, j, k);
        if (terms > 1) g += w1 * p1(i, j, k);
        if (terms > 2) g += w2 * p2(i, j, k);
        out(i, j, k) = g;
      });
}

}  // namespace eddy::fluids::mac
