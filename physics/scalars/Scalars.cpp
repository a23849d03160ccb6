#include "scalars/Scalars.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/CounterHash.hpp"
#include "eddy/core/FieldHost.hpp"
#include "eddy/core/ForcedPoints.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Timer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace eddy::scalars {

namespace {
char const* const kFaceName[6] = {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"};
char const* const kAxisName[3] = {"x", "y", "z"};
}  // namespace

char const* toString(Advection a) {
  return a == Advection::Tvd ? "tvd" : "central";
}
char const* toString(BoundaryKind k) {
  return k == BoundaryKind::Periodic ? "periodic" : k == BoundaryKind::Value ? "value" : "flux";
}
char const* toString(Profile p) {
  return p == Profile::Linear ? "linear" : p == Profile::Given ? "given" : "constant";
}

double diffusionLimit(double kappa, int dims, std::array<double, 3> const& spacing) {
  if (!(kappa > 0)) return std::numeric_limits<double>::infinity();
  double s = 0.0;
  for (int a = 0; a < dims; ++a) s += 1.0 / (spacing[a] * spacing[a]);
  return 1.0 / (2.0 * kappa * s);
}

std::vector<Violation> violations(Parameters const& p, int dims,
                                  std::array<bool, 3> const& periodic) {
  std::vector<Violation> out;
  for (auto const& s : p.scalars) {
    if (!(s.diffusivity >= 0))
      out.push_back({s.key + ".diffusivity", str("got ", s.diffusivity), "expected >= 0"});
    for (int a = 0; a < dims; ++a)
      for (int side = 0; side < 2; ++side) {
        FaceCondition const& f = s.faces[2 * a + side];
        std::string const key = s.key + ".boundary." + kFaceName[2 * a + side];
        if (periodic[a] != (f.kind == BoundaryKind::Periodic))
          out.push_back({key,
                         str("'", toString(f.kind), "' on the ", kAxisName[a], " axis, ",
                             periodic[a] ? "which is periodic" : "which is not periodic"),
                         periodic[a] ? "expected periodic (or auto), as grid.periodic says"
                                     : "expected value or flux (or auto)"});
        if (f.kind == BoundaryKind::Flux && f.value != 0.0 && !(s.diffusivity > 0))
          out.push_back({s.key + ".boundary_value." + kFaceName[2 * a + side],
                         str("a flux of ", f.value, " with diffusivity 0"),
                         "expected 0 (insulated), or a diffusivity > 0 to carry the flux"});
      }
    if (s.initial.profile == Profile::Linear && !(s.initial.axis >= 0 && s.initial.axis < dims))
      out.push_back({s.key + ".axis", str("axis ", s.initial.axis, " in ", dims, "D"),
                     "expected an axis of the grid"});
    if (s.initial.blobAmplitude != 0.0 && !(s.initial.blobWidth > 0))
      out.push_back({s.key + ".blob_width", str("got ", s.initial.blobWidth), "expected > 0"});
  }
  Buoyancy const& b = p.buoyancy;
  if (b.scalar >= static_cast<int>(p.scalars.size()))
    out.push_back({"scalars.boussinesq", "names no scalar of the run", "expected a temperature"});
  return out;
}

Model::Model(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
             std::array<double, 3> const& length, Parameters const& params)
    : m_comm(comm), m_decomp(decomp), m_length(length), m_params(params) {
  int const dims = decomp.dims();
  std::array<bool, 3> periodic{false, false, false};
  for (int a = 0; a < 3; ++a) {
    m_h[a] = a < dims ? length[a] / decomp.globalCells()[a] : 1.0;
    periodic[a] = a < dims && decomp.isPeriodic(a);
  }
  throwFirst(violations(params, dims, periodic));
  for (auto const& s : params.scalars) {
    // The TVD face value reads two cells upwind of the face.
    // TVD faces read two cells across; the bodies' forcing reads two cells out.
    int const ghost = s.advection == Advection::Tvd || params.bodies ? 2 : 1;
    m_q.push_back(
        std::make_unique<Field<MemSpace>>(space, "eddy::scalars::" + s.name, decomp, ghost));
    m_previous.push_back(std::make_unique<Field<MemSpace>>(
        space, "eddy::scalars::" + s.name + "_previous", decomp, ghost));
    m_halo.push_back(
        std::make_unique<HaloExchange<ExecSpace>>(space, comm, decomp, m_q.back()->layout()));
  }
  setInitialState(space);
}

Model::~Model() = default;

std::size_t Model::bytes() const {
  std::size_t b = 0;
  for (int s = 0; s < count(); ++s)
    b += m_q[s]->bytes() + m_previous[s]->bytes() + m_halo[s]->bytes();
  return b;
}

double Model::stableDt() const {
  double dt = std::numeric_limits<double>::infinity();
  for (auto const& s : m_params.scalars)
    dt = std::fmin(dt, diffusionLimit(s.diffusivity, m_decomp.dims(), m_h));
  return dt;
}

void Model::setInitialState(ExecSpace const& space) {
  ScopedRegion region("eddy::scalars::initialize");
  Index3 const off = m_decomp.offset(), n = m_decomp.localCells(), N = m_decomp.globalCells();
  int const dims = m_decomp.dims();
  for (int s = 0; s < count(); ++s) {
    Initial const in = m_params.scalars[s].initial;
    auto q = m_q[s]->access();
    double h[3], L[3], c[3];
    bool per[3];
    for (int a = 0; a < 3; ++a) {
      h[a] = m_h[a];
      L[a] = m_length[a];
      c[a] = in.blobCentre[a];
      per[a] = a < dims && m_decomp.isPeriodic(a);
    }
    double const hx = h[0], hy = h[1], hz = h[2], Lx = L[0], Ly = L[1], Lz = L[2];
    double const cx = c[0], cy = c[1], cz = c[2];
    bool const px = per[0], py = per[1], pz = per[2];
    int const ox = off[0], oy = off[1], oz = off[2];
    long long const Nx = N[0], Ny = N[1];
    bool const linear = in.profile == Profile::Linear;
    bool const given = in.profile == Profile::Given;
    int const nx = n[0], ny = n[1];
    Kokkos::View<double*, MemSpace> values;
    if (given) {
      std::size_t const cells = static_cast<std::size_t>(n[0]) * n[1] * n[2];
      EDDY_REQUIRE(
          in.given && in.given->size() == cells,
          "scalars::Model: a given initial field needs a value for each cell of the block");
      values = Kokkos::View<double*, MemSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::scalars::initialValues"), cells);
      Kokkos::View<double const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(in.given->data(),
                                                                                   cells);
      Kokkos::deep_copy(space, values, host);
    }
    int const axis = in.axis;
    double const base = in.value, slope = (in.highValue - in.value) / (axis < 3 ? L[axis] : 1.0);
    double const amp = in.blobAmplitude, inv2w2 = 1.0 / (2.0 * in.blobWidth * in.blobWidth);
    double const noise = in.noise;
    std::uint64_t const key = mix64(mix64(in.seed) ^ static_cast<std::uint64_t>(s + 1));
    forEachCell(
        "eddy::scalars::initialize", space, {0, 0, 0}, {n[0], n[1], n[2]},
        KOKKOS_LAMBDA(int i, int j, int k) {
          double const x = (ox + i + 0.5) * hx, y = (oy + j + 0.5) * hy;
          double const z = dims == 3 ? (oz + k + 0.5) * hz : 0.0;
          double v = given ? values(i + static_cast<std::size_t>(nx) * (j + ny * k)) : base;
          if (linear) v += slope * (axis == 0 ? x : axis == 1 ? y : z);
          if (amp != 0.0) {
            // Distance to the nearest image of the centre along periodic axes.
            double dx = x - cx, dy = y - cy, dz = dims == 3 ? z - cz : 0.0;
            if (px) dx -= Lx * math::floor(dx / Lx + 0.5);
            if (py) dy -= Ly * math::floor(dy / Ly + 0.5);
            if (pz) dz -= Lz * math::floor(dz / Lz + 0.5);
            v += amp * math::exp(-(dx * dx + dy * dy + dz * dz) * inv2w2);
          }
          if (noise != 0.0) {
            long long const id = (ox + i) + Nx * ((oy + j) + Ny * static_cast<long long>(oz + k));
            v += noise * (2.0 * unitFromKey(key ^ mix64(static_cast<std::uint64_t>(id))) - 1.0);
          }
          q(i, j, k) = v;
        });
    Kokkos::deep_copy(space, m_previous[s]->view(), 0.0);
    fillGhosts(space, s);
  }
  m_time = 0.0;
  m_step = 0;
  m_lastDt = 0.0;
}

void Model::fillGhosts(ExecSpace const& space, int s) {
  m_halo[s]->exchange(space, *m_q[s]);
  ScalarParameters const& sp = m_params.scalars[s];
  auto q = m_q[s]->access();
  int const g = m_q[s]->ghost();
  Index3 const n = m_decomp.localCells();
  Box3 const all = m_q[s]->allocatedBox();
  // Axis by axis over the whole allocated extent of the others (their ghosts filled before), so
  // edge and corner ghosts are the same for any decomposition.
  for (int a = 0; a < m_decomp.dims(); ++a)
    for (int side = 0; side < 2; ++side) {
      if (!(side == 0 ? m_decomp.isLowBoundary(a) : m_decomp.isHighBoundary(a))) continue;
      FaceCondition const f = sp.faces[2 * a + side];
      if (f.kind == BoundaryKind::Periodic) continue;
      Box3 layers = all;
      layers.lo[a] = 0;
      layers.hi[a] = g;
      bool const value = f.kind == BoundaryKind::Value;
      double const fixed = f.value;
      double const perLayer =
          value || !(sp.diffusivity > 0) ? 0.0 : f.value * m_h[a] / sp.diffusivity;
      int const ea0 = a == 0, ea1 = a == 1, ea2 = a == 2;
      int const last = n[a] - 1, high = side;
      forEachCell(
          "eddy::scalars::boundaryGhosts", space, layers.lo, layers.hi,
          KOKKOS_LAMBDA(int i, int j, int k) {
            int const m = ea0 * i + ea1 * j + ea2 * k;  // ghost layer
            int const ghostAt = high ? last + 1 + m : -1 - m;
            int const mirrorAt = high ? last - m : m;
            int const gi = ea0 ? ghostAt : i, gj = ea1 ? ghostAt : j, gk = ea2 ? ghostAt : k;
            int const mi = ea0 ? mirrorAt : i, mj = ea1 ? mirrorAt : j, mk = ea2 ? mirrorAt : k;
            double const inside = q(mi, mj, mk);
            q(gi, gj, gk) = value ? 2.0 * fixed - inside : inside + (2 * m + 1) * perLayer;
          });
    }
}

fluids::LinearForce Model::buoyancy() const {
  fluids::LinearForce f;
  Buoyancy const& b = m_params.buoyancy;
  if (b.scalar < 0) return f;
  f.field = m_q[b.scalar]->access();
  for (int c = 0; c < m_decomp.dims(); ++c) f.coefficient[c] = -b.expansion * b.gravity[c];
  f.reference = b.reference;
  return f;
}

namespace detail {

/// The van Leer limited half-slope: d0 d1 / (d0 + d1) where d0 and d1 agree in sign, else 0.
KOKKOS_INLINE_FUNCTION double limitedHalfSlope(double d0, double d1) {
  double const p = d0 * d1;
  return p > 0.0 ? p / (d0 + d1) : 0.0;
}

/// The value of q on the face between cells m1 = f - 1 and p0 = f along an axis, for the face
/// velocity w: central, or TVD from the upwind side (m2 = f - 2, p1 = f + 1).
KOKKOS_INLINE_FUNCTION double faceValue(bool tvd, double w, double m2, double m1, double p0,
                                        double p1) {
  if (!tvd) return 0.5 * (m1 + p0);
  return w >= 0.0 ? m1 + limitedHalfSlope(m1 - m2, p0 - m1)
                  : p0 - limitedHalfSlope(p1 - p0, p0 - m1);
}

/// One low-storage RK stage of a scalar at cell (i, j, k), in one pass:
///   dq = a dq_previous + dt (kappa lap q - div(u q)),   next = q + b dq
/// where dq_previous = (q - next) / b_previous is the previous stage's increment, recovered from
/// the two fields (next is not read where a = 0): the increment needs no field of its own, and
/// no separate update pass. q is read around the cell, so the stage writes the other field.
/// The fields and coefficients of a stage.
struct StageFields {
  GhostedView<MemSpace> q, next, ux, uy, uz;
  double ix = 0, iy = 0, iz = 0;  ///< 1 / h along each axis
  double kappa = 0, dt = 0, aOverBPrevious = 0, b = 0;
};

template <bool Tvd, bool ThreeD>
struct StageKernel {
  StageFields f;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    auto const &q = f.q, &ux = f.ux, &uy = f.uy, &uz = f.uz;
    double const c = q(i, j, k);
    // Along each axis the low and the high face of the cell.
    double const xm1 = q(i - 1, j, k), xp1 = q(i + 1, j, k);
    double const xm2 = Tvd ? q(i - 2, j, k) : xm1, xp2 = Tvd ? q(i + 2, j, k) : xp1;
    double const wxl = ux(i, j, k), wxh = ux(i + 1, j, k);
    double adv = (wxh * faceValue(Tvd, wxh, xm1, c, xp1, xp2) -
                  wxl * faceValue(Tvd, wxl, xm2, xm1, c, xp1)) *
                 f.ix;
    double lap = (xp1 - 2.0 * c + xm1) * f.ix * f.ix;
    double const ym1 = q(i, j - 1, k), yp1 = q(i, j + 1, k);
    double const ym2 = Tvd ? q(i, j - 2, k) : ym1, yp2 = Tvd ? q(i, j + 2, k) : yp1;
    double const wyl = uy(i, j, k), wyh = uy(i, j + 1, k);
    adv += (wyh * faceValue(Tvd, wyh, ym1, c, yp1, yp2) -
            wyl * faceValue(Tvd, wyl, ym2, ym1, c, yp1)) *
           f.iy;
    lap += (yp1 - 2.0 * c + ym1) * f.iy * f.iy;
    if constexpr (ThreeD) {
      double const zm1 = q(i, j, k - 1), zp1 = q(i, j, k + 1);
      double const zm2 = Tvd ? q(i, j, k - 2) : zm1, zp2 = Tvd ? q(i, j, k + 2) : zp1;
      double const wzl = uz(i, j, k), wzh = uz(i, j, k + 1);
      adv += (wzh * faceValue(Tvd, wzh, zm1, c, zp1, zp2) -
              wzl * faceValue(Tvd, wzl, zm2, zm1, c, zp1)) *
             f.iz;
      lap += (zp1 - 2.0 * c + zm1) * f.iz * f.iz;
    }
    double const rate = f.kappa * lap - adv;
    double const dq =
        (f.aOverBPrevious == 0.0 ? 0.0 : f.aOverBPrevious * (c - f.next(i, j, k))) + f.dt * rate;
    f.next(i, j, k) = c + f.b * dq;
  }
};

}  // namespace detail

void Model::stage(ExecSpace const& space, std::array<GhostedView<MemSpace>, 3> const& u, double dt,
                  double a, double b) {
  ScopedRegion region("eddy::scalars::stage");
  Index3 const n = m_decomp.localCells();
  bool const threeD = m_decomp.dims() == 3;
  detail::StageFields f;
  f.ux = u[0];
  f.uy = u[1];
  f.uz = u[2];
  f.ix = 1.0 / m_h[0];
  f.iy = 1.0 / m_h[1];
  f.iz = 1.0 / m_h[2];
  f.dt = dt;
  // The previous stage's increment is (q - previous) / b_previous (not read where a = 0).
  f.aOverBPrevious = a == 0.0 ? 0.0 : a / m_bPrevious;
  f.b = b;
  for (int s = 0; s < count(); ++s) {
    f.q = m_q[s]->access();
    f.next = m_previous[s]->access();
    f.kappa = m_params.scalars[s].diffusivity;
    // The TVD kernel's wider stencil gains from z columns kept in L1; the central one runs
    // fastest as plain tiles.
    std::array<int, 3> const lo{0, 0, 0}, hi{n[0], n[1], n[2]};
    char const* const label = "eddy::scalars::stage";
    if (m_params.scalars[s].advection == Advection::Tvd) {
      if (threeD)
        forEachCellColumn(label, space, lo, hi, detail::StageKernel<true, true>{f});
      else
        forEachCellColumn(label, space, lo, hi, detail::StageKernel<true, false>{f});
    } else {
      if (threeD)
        forEachCell(label, space, lo, hi, detail::StageKernel<false, true>{f});
      else
        forEachCell(label, space, lo, hi, detail::StageKernel<false, false>{f});
    }
    // The stage's values are in the second buffer: the buffers trade places.
    std::swap(m_q[s], m_previous[s]);
    fillGhosts(space, s);
    if (m_bodies) forceBodies(space, s);
  }
  m_bPrevious = b;
}

void Model::setBodies(ExecSpace const& space, std::vector<SolidBody> const& bodies) {
  ScopedRegion region("eddy::scalars::setBodies");
  m_bodies = !bodies.empty();
  if (!m_bodies) return;
  EDDY_REQUIRE(m_params.bodies, "scalars::Model::setBodies: the parameters did not say bodies");
  int const dims = m_decomp.dims();
  Index3 const n = m_decomp.localCells(), off = m_decomp.offset();
  for (auto const& body : bodies)
    if (static_cast<int>(body.values.size()) != count())
      throw ConfigError(str("scalars: a body gives ", body.values.size(),
                            " values; expected one a scalar (", count(), ")"));
  // The signed distance at cell (i, j, k) of the block, and the nearest body.
  auto distance = [&](int i, int j, int k, int& which) {
    int const idx[3] = {i, j, k};
    double x[3] = {0, 0, 0};
    for (int a = 0; a < dims; ++a) x[a] = (off[a] + idx[a] + 0.5) * m_h[a];
    double best = 1e300;
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      double const d = bodies[b].distance(x[0], x[1], x[2]);
      if (d < best) best = d, which = static_cast<int>(b);
    }
    return best;
  };
  // Within two cells of the box around every body.
  Index3 lo{0, 0, 0}, hi{1, 1, 1};
  for (int a = 0; a < dims; ++a) {
    double low = 1e300, high = -1e300;
    for (auto const& body : bodies)
      low = std::min(low, body.lower[a]), high = std::max(high, body.upper[a]);
    lo[a] = std::max(0, static_cast<int>(std::floor(low / m_h[a])) - 2 - off[a]);
    hi[a] = std::min(n[a], static_cast<int>(std::ceil(high / m_h[a])) + 2 - off[a]);
  }
  std::vector<ForcedPoint> found;
  findForcedPoints(distance, dims, m_h, lo, hi, -1, found);
  m_solid = Kokkos::View<ForcedPoint*, MemSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::scalars::solidCells"), found.size());
  auto host = Kokkos::create_mirror_view(m_solid);
  for (std::size_t e = 0; e < found.size(); ++e) host(e) = found[e];
  Kokkos::deep_copy(space, m_solid, host);
  m_solidValue =
      Kokkos::View<double**, MemSpace>("eddy::scalars::solidValues", count(), bodies.size());
  auto values = Kokkos::create_mirror_view(m_solidValue);
  for (int s = 0; s < count(); ++s)
    for (std::size_t b = 0; b < bodies.size(); ++b) values(s, b) = bodies[b].values[s];
  Kokkos::deep_copy(space, m_solidValue, values);
  space.fence();  // the host mirrors go out of scope here
  for (int s = 0; s < count(); ++s) forceBodies(space, s);
}

void Model::forceBodies(ExecSpace const& space, int s) {
  auto const q = m_q[s]->access();
  auto const cells = m_solid;
  auto const values = m_solidValue;
  // The o and q cells are neither solid nor set: no cell reads one that this kernel writes.
  Kokkos::parallel_for(
      "eddy::scalars::forceBodies",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<std::int64_t>(cells.extent(0))),
      KOKKOS_LAMBDA(std::int64_t e) {
        ForcedPoint const c = cells(e);
        double const v = values(s, c.body);
        q(c.i, c.j, c.k) = v + c.w * (q(c.oi, c.oj, c.ok) - v) + c.wq * (q(c.qi, c.qj, c.qk) - v);
      });
  fillGhosts(space, s);
}

void Model::finishStep(double dt) {
  m_step += 1;
  m_time += dt;
  m_lastDt = dt;
}

void Model::restoreState(ExecSpace const& space, std::vector<std::vector<double>> const& q,
                         long long step, double time, double lastDt) {
  EDDY_REQUIRE(static_cast<int>(q.size()) == count(), "scalars::Model::restoreState: ", q.size(),
               " fields given; expected ", count());
  for (int s = 0; s < count(); ++s) {
    setOwnedEntries(space, *m_q[s], q[s]);
    fillGhosts(space, s);
  }
  m_step = step;
  m_time = time;
  m_lastDt = lastDt;
}

Diagnostics Model::diagnostics(ExecSpace const& space, int s) const {
  ScopedRegion region("eddy::scalars::diagnostics");
  Diagnostics d;
  auto const q = m_q[s]->access();
  Index3 const n = m_decomp.localCells(), N = m_decomp.globalCells(), off = m_decomp.offset();
  int const dims = m_decomp.dims();
  std::array<int, 3> const lo{0, 0, 0}, hi{n[0], n[1], n[2]};
  double cells = 1.0, volume = 1.0;
  for (int a = 0; a < dims; ++a) cells *= N[a], volume *= m_h[a];
  double const sum = reproducibleSum(
      space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) { return q(i, j, k); });
  d.mean = sum / cells;
  d.integral = sum * volume;
  double const mean = d.mean;
  d.variance = reproducibleSum(
                   space, m_comm, lo, hi,
                   KOKKOS_LAMBDA(int i, int j, int k) {
                     double const r = q(i, j, k) - mean;
                     return r * r;
                   }) /
               cells;
  d.min = globalMin(
      space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) { return q(i, j, k); });
  d.max = globalMax(
      space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) { return q(i, j, k); });
  int const ox = off[0], oy = off[1], oz = off[2];
  d.checksum = reproducibleSum(
      space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        long long const gi = ox + i, gj = oy + j, gk = oz + k;
        double const w = 1.0 + static_cast<double>((gi * 7919 + gj * 104729 + gk * 1299709) % 1021);
        return w * q(i, j, k);
      });
  ScalarParameters const& sp = m_params.scalars[s];
  d.nusselt.fill(std::numeric_limits<double>::quiet_NaN());
  for (int a = 0; a < dims; ++a) {
    FaceCondition const fl = sp.faces[2 * a], fh = sp.faces[2 * a + 1];
    if (fl.kind != BoundaryKind::Value || fh.kind != BoundaryKind::Value) continue;
    double const dT = fl.value - fh.value;
    if (dT == 0.0) continue;
    int const e0 = a == 0, e1 = a == 1, e2 = a == 2;
    for (int side = 0; side < 2; ++side) {
      bool const here = side == 0 ? m_decomp.isLowBoundary(a) : m_decomp.isHighBoundary(a);
      // The cells next to the face on this rank (none off the face).
      std::array<int, 3> flo = lo, fhi = hi;
      if (side == 0)
        fhi[a] = 1;
      else
        flo[a] = n[a] - 1;
      if (!here) fhi = flo;
      double const wall = side == 0 ? fl.value : fh.value;
      int const inward = side == 0 ? 1 : -1;
      // q at h/2, 3h/2 and the face value give the inward gradient to second order:
      // (9 (q0 - q_b) - (q1 - q_b)) / (3 h).
      double const g = reproducibleSum(
          space, m_comm, flo, fhi, KOKKOS_LAMBDA(int i, int j, int k) {
            double const q0 = q(i, j, k) - wall;
            double const q1 = q(i + inward * e0, j + inward * e1, k + inward * e2) - wall;
            return 9.0 * q0 - q1;
          });
      double const inwardGradient = g / (3.0 * m_h[a]) / (cells / N[a]);
      // Along +a the gradient is +inward at the low face and -inward at the high face.
      double const gradient = side == 0 ? inwardGradient : -inwardGradient;
      d.nusselt[2 * a + side] = -gradient * m_length[a] / dT;
    }
  }
  return d;
}

}  // namespace eddy::scalars
