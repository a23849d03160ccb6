// Diagnostics of the flow model: global reductions (exact max or reproducible sums only, so
// every number is the same for any decomposition), reference errors and gathers for tests.
#include "eddy/core/Error.hpp"
#include "eddy/core/FieldHost.hpp"
#include "eddy/core/PortableMath.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Timer.hpp"
#include "fluids/FlowReference.hpp"
#include "fluids/MacKernels.hpp"
#include "fluids/NavierStokes.hpp"

#include <cmath>

namespace eddy::fluids {

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

namespace mac {
/// w(global index) * f: the weight depends on the global entry only, so the checksum tells
/// apart fields that differ anywhere, whatever the decomposition.
struct WeightedValue {
  FieldView f;
  int ox, oy, oz;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    long long const gi = ox + i, gj = oy + j, gk = oz + k;
    double const w = 1.0 + static_cast<double>((gi * 7919 + gj * 104729 + gk * 1299709) % 1021);
    return w * f(i, j, k);
  }
};

/// u_c - u_exact at a face, or its square / absolute value.
struct ReferenceError {
  enum Mode { Square, Absolute };
  FieldView u;
  FlowReference ref;
  int c, ox, oy, oz;
  double hx, hy, hz, sx, sy, sz;
  Mode mode;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    double const e =
        u(i, j, k) - ref.velocity(c, (ox + i + sx) * hx, (oy + j + sy) * hy, (oz + k + sz) * hz);
    return mode == Square ? e * e : math::fabs(e);
  }
};
}  // namespace mac

double Model::maxDivergence(ExecSpace const& space) const {
  auto const grid = mac::MacGrid::make(m_dims, m_h);
  mac::VelocityViews u;
  for (int c = 0; c < 3; ++c) u.c[c] = m_u[c < m_dims ? c : 0]->access();
  return globalMax(
      space, m_comm, {0, 0, 0}, m_decomp.localCells(), KOKKOS_LAMBDA(int i, int j, int k) {
        return math::magnitudeOrInf(mac::divergenceAt(grid, u, i, j, k));  // NaN shows as Inf
      });
}

double Model::maxRate(ExecSpace const& space) const {
  std::array<double, 3> most{0, 0, 0};
  for (int c = 0; c < m_dims; ++c) {
    auto u = m_u[c]->access();
    Box3 const b = m_u[c]->ownedBox();
    most[c] = globalMax(
        space, m_comm, b.lo, b.hi,
        KOKKOS_LAMBDA(int i, int j, int k) { return math::magnitudeOrInf(u(i, j, k)); });
  }
  return rateOf(most);
}

double Model::rateOf(std::array<double, 3> const& most) const {
  double rate = 0.0;
  for (int c = 0; c < m_dims; ++c)
    rate += std::fmax(most[c], m_params.boundaries.maxWallSpeed(c)) / m_h[c];
  return rate;
}

std::string Model::largestVelocity(ExecSpace const& space) const {
  char const* const name[3] = {"u", "v", "w"};
  ValueLocation best{-1.0, -1, -1};
  int component = 0;
  for (int c = 0; c < m_dims; ++c) {
    auto u = m_u[c]->access();
    Box3 const b = m_u[c]->ownedBox();
    Index3 const ext = globalExtent(c), off = m_decomp.offset();
    std::int64_t const nx = ext[0], ny = ext[1];
    int const ox = off[0], oy = off[1], oz = off[2];
    auto const where = globalMaxLoc(
        space, m_comm, b.lo, b.hi,
        KOKKOS_LAMBDA(int i, int j, int k) { return math::magnitudeOrInf(u(i, j, k)); },
        KOKKOS_LAMBDA(int i, int j, int k) {
          return (ox + i) + nx * ((oy + j) + ny * static_cast<std::int64_t>(oz + k));
        });
    if (where.rank >= 0 && where.value > best.value) {
      best = where;
      component = c;
    }
  }
  if (best.rank < 0) return "no velocity entry found";
  Index3 const ext = globalExtent(component);
  std::int64_t const i = best.index % ext[0], j = best.index / ext[0] % ext[1],
                     k = best.index / (static_cast<std::int64_t>(ext[0]) * ext[1]);
  std::string const value = std::isfinite(best.value)
                                ? str("|", name[component], "| = ", best.value)
                                : str(name[component], " not finite");
  return str(value, " at face (", i, ", ", j, m_dims == 3 ? str(", ", k) : std::string(),
             ") on rank ", best.rank);
}

void Model::blewUp(ExecSpace const& space, long long step, std::string const& quantity) const {
  throw Error(str("fluids: the flow blew up at step ", step, " (t = ", m_time, " [T]): ", quantity,
                  "; the largest velocity: ", largestVelocity(space), ". Lower ",
                  m_params.dt > 0 ? "fluids.dt" : "fluids.cfl",
                  " (the last checkpoint holds the last good state)"),
              ExitCode::Failure, true);
}

void Model::referenceErrors(ExecSpace const& space, Diagnostics& d) const {
  FlowReference ref;
  ref.dims = m_dims;
  if (m_params.initial == InitialCondition::TaylorGreen && m_dims == 2) {
    ref.kind = FlowReference::TaylorGreen;
    ref.U = m_params.velocityScale;
    ref.kx = 2 * kPi / m_length[0];
    ref.ky = 2 * kPi / m_length[1];
    ref.decay = std::exp(-m_params.viscosity * (ref.kx * ref.kx + ref.ky * ref.ky) * m_time);
    d.referenceScale = ref.U;
  } else if (isChannel(m_decomp, m_params) && m_params.bodyForce[0] != 0.0) {
    ref.kind = FlowReference::Poiseuille;
    ref.curvature = m_params.bodyForce[0] / (2 * m_params.viscosity);
    ref.height = m_length[1];
    d.referenceScale = std::fabs(ref.curvature) * ref.height * ref.height / 4;  // u at the centre
  } else {
    return;
  }
  d.hasReference = true;
  Index3 const off = m_decomp.offset();
  int const ox = off[0], oy = off[1], oz = off[2];
  double const hx = m_h[0], hy = m_h[1], hz = m_h[2];
  double sum2 = 0.0, count = 0.0, maxErr = 0.0;
  for (int c = 0; c < m_dims; ++c) {
    auto u = m_u[c]->access();
    Box3 const b = m_u[c]->ownedBox();
    double const sx = c == 0 ? 0.0 : 0.5, sy = c == 1 ? 0.0 : 0.5, sz = c == 2 ? 0.0 : 0.5;
    mac::ReferenceError error{
        u, ref, c, ox, oy, oz, hx, hy, hz, sx, sy, sz, mac::ReferenceError::Square};
    sum2 += reproducibleSum(space, m_comm, b.lo, b.hi, error);
    error.mode = mac::ReferenceError::Absolute;
    maxErr = std::fmax(maxErr, globalMax(space, m_comm, b.lo, b.hi, error));
    Index3 const ext = globalExtent(c);
    count += static_cast<double>(ext[0]) * ext[1] * ext[2];
  }
  d.l2Error = std::sqrt(sum2 / count);
  d.maxError = maxErr;
}

Diagnostics Model::diagnostics(ExecSpace const& space) const {
  ScopedRegion region("eddy::fluids::diagnostics");
  Diagnostics d;
  auto const grid = mac::MacGrid::make(m_dims, m_h);
  mac::VelocityViews u;
  for (int c = 0; c < 3; ++c) u.c[c] = m_u[c < m_dims ? c : 0]->access();
  Index3 const N = m_decomp.globalCells();
  double cells = 1.0;
  for (int a = 0; a < m_dims; ++a) cells *= N[a];
  Index3 const off = m_decomp.offset();
  int const ox = off[0], oy = off[1], oz = off[2];

  auto checksum = [&](Field<MemSpace> const& field) {
    Box3 const b = field.ownedBox();
    return reproducibleSum(space, m_comm, b.lo, b.hi,
                           mac::WeightedValue{field.access(), ox, oy, oz});
  };

  if (m_open->any()) {
    d.hasOpenBoundaries = true;
    std::array<Field<MemSpace> const*, 3> uf{};
    for (int c = 0; c < m_dims; ++c) uf[c] = m_u[c].get();
    d.flux = m_open->fluxes(space, uf);
  }

  double energy = 0.0;
  for (int c = 0; c < m_dims; ++c) {
    auto uc = m_u[c]->access();
    Box3 const b = m_u[c]->ownedBox();
    energy += reproducibleSum(
        space, m_comm, b.lo, b.hi,
        KOKKOS_LAMBDA(int i, int j, int k) { return uc(i, j, k) * uc(i, j, k); });
    d.maxSpeed = std::fmax(
        d.maxSpeed, globalMax(
                        space, m_comm, b.lo, b.hi,
                        KOKKOS_LAMBDA(int i, int j, int k) { return math::fabs(uc(i, j, k)); }));
    d.fieldChecksum[c] = checksum(*m_u[c]);
  }
  d.kineticEnergy = 0.5 * energy / cells;

  // Vorticity on the edges: the edge along c is owned like the faces of the two other axes
  // (the high one at a wall included), so every edge counts once.
  double omega2 = 0.0;
  Index3 const n = m_decomp.localCells();
  for (int c = m_dims == 3 ? 0 : 2; c < 3; ++c) {
    Index3 hi = n;
    for (int a = 0; a < m_dims; ++a)
      if (a != c && m_decomp.isHighBoundary(a)) hi[a] += 1;
    omega2 += reproducibleSum(
        space, m_comm, {0, 0, 0}, hi, KOKKOS_LAMBDA(int i, int j, int k) {
          double const w = mac::vorticity(grid, u, c, i, j, k);
          return w * w;
        });
  }
  d.enstrophy = 0.5 * omega2 / cells;
  d.maxDivergence = maxDivergence(space);
  d.fieldChecksum[3] = checksum(*m_p);
  d.checksum = d.fieldChecksum[0] + d.fieldChecksum[1] + d.fieldChecksum[2] + d.fieldChecksum[3];
  referenceErrors(space, d);
  return d;
}

Index3 Model::globalExtent(int c) const {
  Index3 e = m_decomp.globalCells();
  if (c < m_dims && !m_decomp.isPeriodic(c)) e[c] += 1;
  return e;
}

std::vector<double> Model::gather(ExecSpace const& space, int c) const {
  EDDY_REQUIRE(c >= 0 && c <= 3 && (c < m_dims || c == 3), "fluids::Model::gather: component ", c,
               " in a ", m_dims, "D run; expected 0..", m_dims - 1, " or 3 (pressure)");
  Field<MemSpace> const& field = c == 3 ? *m_p : *m_u[c];
  std::vector<double> const owned = ownedEntries(space, field, c == 3 ? m_params.density : 1.0);
  Index3 const ext = globalExtent(c), off = m_decomp.offset();
  Box3 const b = field.ownedBox();
  std::vector<double> local(static_cast<std::size_t>(ext[0]) * ext[1] * ext[2], 0.0);
  std::size_t at = 0;
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j)
      for (int i = b.lo[0]; i < b.hi[0]; ++i)
        local[(static_cast<std::size_t>(off[2] + k) * ext[1] + (off[1] + j)) * ext[0] +
              (off[0] + i)] = owned[at++];
  // Each entry is owned by one rank and zero elsewhere: the sum is exact.
  std::vector<double> global(local.size(), 0.0);
  checkMpi(MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE,
                         MPI_SUM, m_comm),
           "MPI_Allreduce (eddy::fluids::gather)");
  return global;
}

std::vector<double> Model::cellValues(ExecSpace const& space, int c) const {
  EDDY_REQUIRE(c >= -1 && c < m_dims, "fluids::Model::cellValues: component ", c, " in a ", m_dims,
               "D run; expected -1 (divergence) to ", m_dims - 1);
  using Host = Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  Host h[3];
  for (int a = 0; a < m_dims; ++a)
    if (c < 0 || a == c) {
      h[a] = Host("eddy::fluids::cellValuesHost", m_u[a]->view().extent(0),
                  m_u[a]->view().extent(1), m_u[a]->view().extent(2));
      Kokkos::deep_copy(space, h[a], m_u[a]->view());
    }
  space.fence();
  Field<MemSpace> const& ref = *m_u[c < 0 ? 0 : c];
  Index3 const n = ref.cells();
  Index3 const g = ref.ghosts();
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n[0]) * n[1] * n[2]);
  // Face i is the low face of cell i, face i + 1 its high face (a ghost on the last cell of a
  // rank that is not at the domain's high end: a step leaves the velocity ghosts current).
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        double v = 0.0;
        for (int a = 0; a < m_dims; ++a) {
          if (c >= 0 && a != c) continue;
          int const di = a == 0, dj = a == 1, dk = a == 2;
          double const lo = h[a](i + g[0], j + g[1], k + g[2]);
          double const hi = h[a](i + di + g[0], j + dj + g[1], k + dk + g[2]);
          v += c >= 0 ? 0.5 * (lo + hi) : (hi - lo) / m_h[a];
        }
        out.push_back(v);
      }
  return out;
}

std::size_t Model::bytes() const {
  std::size_t b = m_p->bytes() + m_phi->bytes() + m_haloP->bytes() + m_poisson->bytes();
  for (auto const& h : m_phiHistory)
    if (h) b += h->bytes();
  for (int c = 0; c < m_dims; ++c)
    b += m_u[c]->bytes() + m_uPrevious[c]->bytes() + m_haloU[c]->bytes();
  if (m_bodies) b += m_bodies->bytes();
  return b;
}

}  // namespace eddy::fluids
