#include "fluids/OpenBoundary.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Timer.hpp"

#include <cmath>

namespace eddy::fluids {

namespace open {

/// The boundary plane of face (axis, side) of the face field normal to `axis`: the boundary
/// face along it, the allocated extent (ghosts included) or the owned one across it.
Box3 plane(Field<MemSpace> const& f, int axis, int side, bool ghosts) {
  Box3 b = ghosts ? f.allocatedBox() : f.ownedBox();
  int const at = side ? f.cells()[axis] : 0;
  b.lo[axis] = at;
  b.hi[axis] = at + 1;
  return b;
}

/// The shape of an inflow profile at the plane entries: 0 outside its window, else 1
/// (uniform) or the product over the bounded axes across the face of 4 s (1 - s), s the entry's
/// centre across the window (the whole face without one).
struct InflowShape {
  bool parabolic[3] = {false, false, false};
  bool windowed[3] = {false, false, false};
  double h[3] = {1, 1, 1}, low[3] = {0, 0, 0}, high[3] = {1, 1, 1};
  int offset[3] = {0, 0, 0};
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    int const idx[3] = {i, j, k};
    double shape = 1.0;
    for (int b = 0; b < 3; ++b) {
      double const x = (offset[b] + idx[b] + 0.5) * h[b];
      if (windowed[b] && !(x > low[b] && x < high[b])) return 0.0;
      if (parabolic[b]) {
        double const s = (x - low[b]) / (high[b] - low[b]);
        shape *= 4.0 * s * (1.0 - s);
      }
    }
    return shape;
  }
};

/// Writes the inflow `value` * shape into the plane of both buffers.
void setInflow(ExecSpace const& space, Field<MemSpace>& u, Field<MemSpace>& second, Box3 const& b,
               InflowShape const& shape, double value) {
  auto f = u.access(), s = second.access();
  forEachCell(
      "eddy::fluids::inflow", space, b.lo, b.hi, KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = value * shape(i, j, k);
        f(i, j, k) = v;
        s(i, j, k) = v;
      });
}

/// The outflow condition before the flux correction, in place: u_b = (u_b + l u_i) / (1 + l)
/// (convective) or u_b = u_i (zero gradient, `convective` false), u_i the face `inward` of it.
void advanceOutflow(ExecSpace const& space, Field<MemSpace>& u, Box3 const& b, int axis, int inward,
                    bool convective, double lambda) {
  auto f = u.access();
  int const di = axis == 0 ? inward : 0, dj = axis == 1 ? inward : 0, dk = axis == 2 ? inward : 0;
  double const keep = 1.0 / (1.0 + lambda), take = lambda / (1.0 + lambda);
  forEachCell(
      "eddy::fluids::outflow", space, b.lo, b.hi, KOKKOS_LAMBDA(int i, int j, int k) {
        double const inside = f(i + di, j + dj, k + dk);
        f(i, j, k) = convective ? keep * f(i, j, k) + take * inside : inside;
      });
}

/// Adds `shift` to the plane of `u` and copies it into `second`.
void shiftOutflow(ExecSpace const& space, Field<MemSpace>& u, Field<MemSpace>& second,
                  Box3 const& b, double shift) {
  auto f = u.access(), s = second.access();
  forEachCell(
      "eddy::fluids::outflowCorrection", space, b.lo, b.hi, KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = f(i, j, k) + shift;
        f(i, j, k) = v;
        s(i, j, k) = v;
      });
}

double planeSum(ExecSpace const& space, MPI_Comm comm, GhostedView<MemSpace> const& f,
                Box3 const& b) {
  return reproducibleSum(
      space, comm, b.lo, b.hi, KOKKOS_LAMBDA(int i, int j, int k) { return f(i, j, k); });
}

double planeSum2(ExecSpace const& space, MPI_Comm comm, GhostedView<MemSpace> const& f,
                 GhostedView<MemSpace> const& g, Box3 const& b) {
  return reproducibleSum(
      space, comm, b.lo, b.hi,
      KOKKOS_LAMBDA(int i, int j, int k) { return f(i, j, k) + g(i, j, k); });
}

}  // namespace open

OpenBoundaries::OpenBoundaries(MPI_Comm comm, CartDecomposition const& decomp,
                               std::array<double, 3> const& length, FlowBoundaries const& bc)
    : m_comm(comm), m_decomp(decomp), m_length(length), m_bc(bc) {
  int const dims = decomp.dims();
  for (int a = 0; a < 3; ++a) m_h[a] = a < dims ? length[a] / decomp.globalCells()[a] : 1.0;
  m_any = bc.hasOpen(dims);
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side)
      if (bc.at(a, side).kind == BoundaryKind::Outflow) {
        double area = 1.0;
        for (int b = 0; b < dims; ++b)
          if (b != a) area *= length[b];
        m_outflowArea += area;
      }
}

double OpenBoundaries::bulkOutflowSpeed(double time) const {
  if (!(m_outflowArea > 0)) return 0.0;
  int const dims = m_decomp.dims();
  double volume = 0.0;
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side) {
      FaceBoundary const& f = m_bc.at(a, side);
      if (f.kind != BoundaryKind::Inflow) continue;
      double flux = f.inflow.speed * f.inflow.factor(time);
      for (int b = 0; b < dims; ++b) {
        if (b == a) continue;
        flux *= f.inflow.windowed ? f.inflow.high[b] - f.inflow.low[b] : m_length[b];
        // The mean of 4 s (1 - s) over [0, 1].
        if (f.inflow.profile == InflowProfile::Parabolic && !m_decomp.isPeriodic(b))
          flux *= 2.0 / 3.0;
      }
      volume += flux;
    }
  return volume / m_outflowArea;
}

double OpenBoundaries::outwardFlux(ExecSpace const& space, Field<MemSpace> const& f, int axis,
                                   int side) const {
  bool const touches = side ? m_decomp.isHighBoundary(axis) : m_decomp.isLowBoundary(axis);
  Box3 const b = touches ? open::plane(f, axis, side, false) : Box3{};
  double area = 1.0;
  for (int c = 0; c < m_decomp.dims(); ++c)
    if (c != axis) area *= m_h[c];
  double const sum = open::planeSum(space, m_comm, f.access(), b);
  return (side ? area : -area) * sum;
}

BoundaryFluxes OpenBoundaries::fluxes(ExecSpace const& space,
                                      std::array<Field<MemSpace> const*, 3> const& u) const {
  BoundaryFluxes q;
  for (int a = 0; a < m_decomp.dims(); ++a)
    for (int side = 0; side < 2; ++side) {
      BoundaryKind const kind = m_bc.at(a, side).kind;
      if (kind == BoundaryKind::Inflow) q.in -= outwardFlux(space, *u[a], a, side);
      if (kind == BoundaryKind::Outflow) q.out += outwardFlux(space, *u[a], a, side);
    }
  return q;
}

BoundaryFluxes OpenBoundaries::apply(ExecSpace const& space,
                                     std::array<Field<MemSpace>*, 3> const& u,
                                     std::array<Field<MemSpace>*, 3> const& second, double time,
                                     double dt) const {
  ScopedRegion region("eddy::fluids::openBoundaries");
  int const dims = m_decomp.dims();
  double const bulk = bulkOutflowSpeed(time);
  bool const convective = m_bc.outflow == OutflowCondition::Convective;
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side) {
      FaceBoundary const& f = m_bc.at(a, side);
      bool const touches = side ? m_decomp.isHighBoundary(a) : m_decomp.isLowBoundary(a);
      if (!touches || !isOpen(f.kind)) continue;
      Box3 const b = open::plane(*u[a], a, side, true);
      if (f.kind == BoundaryKind::Inflow) {
        open::InflowShape shape;
        for (int c = 0; c < 3; ++c) {
          bool const across = c != a && c < dims;
          shape.parabolic[c] =
              across && f.inflow.profile == InflowProfile::Parabolic && !m_decomp.isPeriodic(c);
          shape.windowed[c] = across && f.inflow.windowed;
          shape.h[c] = m_h[c];
          shape.low[c] = f.inflow.windowed ? f.inflow.low[c] : 0.0;
          shape.high[c] = f.inflow.windowed ? f.inflow.high[c] : m_length[c];
          shape.offset[c] = m_decomp.offset()[c];
        }
        // Into the domain: +axis at the low face, -axis at the high one.
        double const value = (side ? -1.0 : 1.0) * f.inflow.speed * f.inflow.factor(time);
        open::setInflow(space, *u[a], *second[a], b, shape, value);
      } else {
        open::advanceOutflow(space, *u[a], b, a, side ? -1 : 1, convective, dt * bulk / m_h[a]);
      }
    }
  // One uniform outward velocity on every outflow face brings the volume leaving to the
  // volume entering.
  BoundaryFluxes q = fluxes(space, {u[0], u[1], u[2]});
  if (!(m_outflowArea > 0)) return q;
  double const shift = (q.in - q.out) / m_outflowArea;
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side) {
      bool const touches = side ? m_decomp.isHighBoundary(a) : m_decomp.isLowBoundary(a);
      if (!touches || m_bc.at(a, side).kind != BoundaryKind::Outflow) continue;
      open::shiftOutflow(space, *u[a], *second[a], open::plane(*u[a], a, side, true),
                         side ? shift : -shift);
    }
  q.out = q.in;
  return q;
}

double OpenBoundaries::outflowMean(ExecSpace const& space, Field<MemSpace> const& p,
                                   Field<MemSpace> const& phi) const {
  if (!(m_outflowArea > 0)) return 0.0;
  int const dims = m_decomp.dims();
  double sum = 0.0, area = 0.0;
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side) {
      if (m_bc.at(a, side).kind != BoundaryKind::Outflow) continue;
      bool const touches = side ? m_decomp.isHighBoundary(a) : m_decomp.isLowBoundary(a);
      Box3 b{};
      if (touches) {
        b = p.ownedBox();
        int const at = side ? p.cells()[a] - 1 : 0;
        b.lo[a] = at;
        b.hi[a] = at + 1;
      }
      double cell = 1.0, cells = 1.0;
      for (int c = 0; c < dims; ++c)
        if (c != a) {
          cell *= m_h[c];
          cells *= m_decomp.globalCells()[c];
        }
      sum += cell * open::planeSum2(space, m_comm, p.access(), phi.access(), b);
      area += cell * cells;
    }
  return sum / area;
}

}  // namespace eddy::fluids
