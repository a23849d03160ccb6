#include "particles/Contacts.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

#include <algorithm>
#include <cmath>

namespace eddy::particles {

namespace {

constexpr double kPi = 3.14159265358979323846;

/// gamma for a rebound of e at the undamped frequency omega0 (Contacts.hpp): critical damping
/// for e = 0.
double dampingRate(double e, double omega0) {
  if (!(e > 0)) return 2.0 * omega0;
  double const b = std::log(e);
  return -2.0 * b * omega0 / std::sqrt(kPi * kPi + b * b);
}

}  // namespace

double contactSkin(double diameter, double cell, double spacing) {
  return std::max(0.5 * diameter, std::min(1.5 * cell, 0.75 * (spacing - diameter)));
}

ContactLaw contactLaw(double diameter, double mass, Collisions const& c, double wallRestitution,
                      int dims, std::array<bool, 6> const& wall,
                      std::array<double, 3> const& length) {
  ContactLaw law;
  law.dims = dims;
  law.radius = 0.5 * diameter;
  law.inverseMass = 1.0 / mass;
  law.inverseInertia = 10.0 / (mass * diameter * diameter);
  law.stiffness = c.stiffness;
  law.friction = c.friction;
  double const meff[2] = {0.5 * mass, mass};
  double const e[2] = {c.restitution, wallRestitution};
  for (int k = 0; k < 2; ++k) {
    double const gamma = dampingRate(e[k], std::sqrt(c.stiffness / meff[k]));
    law.normalDamping[k] = gamma * meff[k];
    law.tangentDamping[k] = 0.5 * gamma * meff[k];
  }
  for (int f = 0; f < 6; ++f) law.wall[f] = wall[f];
  for (int a = 0; a < 3; ++a) law.length[a] = length[a];
  return law;
}

double contactTime(double mass, Collisions const& c) {
  double const omega0 = std::sqrt(c.stiffness / (0.5 * mass));
  double const b = c.restitution > 0 ? std::log(c.restitution) : 0.0;
  return std::sqrt(kPi * kPi + b * b) / omega0;
}

Contacts::Contacts(MPI_Comm comm, CartDecomposition const& decomp, ParticleDomain const& domain,
                   ContactLaw const& law, int stepsPerContact, double contactTime, double wideSkin)
    : m_domain(domain),
      m_law(law),
      m_stepsPerContact(stepsPerContact),
      m_contactTime(contactTime),
      m_wideSkin(wideSkin),
      m_binFraction(neighbor::ListTuning<ExecSpace>::fromEnvironment().binFraction),
      m_ghosts(comm, decomp, domain, 2.0 * law.radius + wideSkin),
      m_list(neighbor::ListKind::Full, 2.0 * law.radius, wideSkin,
             neighbor::ListTuning<ExecSpace>::fromEnvironment()) {
  EDDY_REQUIRE(stepsPerContact > 0 && contactTime > 0, "particles::Contacts: ", stepsPerContact,
               " substeps per contact time ", contactTime, "; expected both above 0");
}

void Contacts::setBodies(std::vector<fluids::Body> const& bodies) {
  int const n = static_cast<int>(bodies.size());
  Kokkos::View<ContactBody*, MemSpace> rows("eddy::particles::contactBodies", n);
  auto host = Kokkos::create_mirror_view(rows);
  std::vector<double> samples;
  for (int b = 0; b < n; ++b) {
    fluids::Body const& body = bodies[static_cast<std::size_t>(b)];
    ContactBody& row = host(b);
    row.shape = static_cast<int>(body.shape);
    row.axis = body.axis;
    row.r = body.radius;
    for (int a = 0; a < 3; ++a) {
      row.c[a] = body.center[a];
      row.half[a] = 0.5 * body.size[a];
    }
    if (body.shape != fluids::BodyShape::File) continue;
    EDDY_REQUIRE(body.sampled, "particles::Contacts: body '", body.name, "' has no samples");
    fluids::SampledShape const& shape = *body.sampled;
    row.first = static_cast<long long>(samples.size());
    row.fraction = shape.fraction;
    row.finest = shape.finest;
    for (int a = 0; a < 3; ++a) {
      row.n[a] = shape.n[a];
      row.spacing[a] = shape.spacing[a];
    }
    samples.insert(samples.end(), shape.values.begin(), shape.values.end());
  }
  Kokkos::deep_copy(rows, host);
  Kokkos::View<double*, MemSpace> values("eddy::particles::bodySamples", samples.size());
  Kokkos::deep_copy(
      values,
      Kokkos::View<double const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          samples.data(), samples.size()));
  m_law.bodies = rows;
  m_law.samples = values;
  m_law.bodyCount = n;
}

namespace {

/// n rounded up into [1, 1e9].
int count(double n) {
  n = std::ceil(n);
  return n < 1 ? 1 : (n > 1e9 ? 1000000000 : static_cast<int>(n));
}

}  // namespace

int Contacts::chunks(double dt, double speed) const {
  // 2 reach = 4 speed dt / chunks within the skin.
  return count(4.0 * speed * dt / m_wideSkin);
}

double Contacts::useReach(double reach) {
  reach = std::min(reach, 0.5 * m_wideSkin);
  m_list.setSkin(2.0 * reach);
  return reach;
}

void Contacts::useNarrowSkin() {
  m_list.setSkin(m_law.radius);
}

int Contacts::contactSubsteps(double dt) const {
  return count(dt * m_stepsPerContact / m_contactTime);
}

int Contacts::substeps(double dt, double speed) const {
  return std::max(contactSubsteps(dt), count(dt * 2.0 * speed / (0.25 * m_list.skin())));
}

Contacts::Watch Contacts::watch() const {
  return watch(0.25 * m_list.skin());
}

Contacts::Watch Contacts::watch(double reach) const {
  Watch w = m_list.displacementWatch();
  w.limitSq = reach * reach;
  return w;
}

namespace {

[[noreturn]] void blewUp(double radius) {
  throw Error(str("particles: a sphere's position is not finite, or it moved farther than ", radius,
                  " [L] (d and the list's skin) within a step's substeps; the contacts blew "
                  "up (expected particles.collisions.stiffness high enough that contacts "
                  "overlap by a small part of d, and spheres that do not start overlapping)"),
              ExitCode::Failure, true);
}

}  // namespace

bool Contacts::rebuildDue(ExecSpace const& space, MPI_Comm comm, Watch const& w) const {
  auto const d = m_list.checkDisplacement(space, comm, w);
  if (d.notFinite || d.runaway) blewUp(m_list.radius());
  return d.rebuild;
}

bool Contacts::exceeded(ExecSpace const& space, MPI_Comm comm, Watch const& w) const {
  auto const d = m_list.checkDisplacement(space, comm, w);
  if (d.notFinite) blewUp(m_list.radius());
  return d.rebuild || d.runaway;
}

RowSet Contacts::activate(ExecSpace const& space, ContactArrays const& a, double reach) {
  ScopedRegion region("eddy::particles::activate");
  int const owned = m_owned;
  if (static_cast<int>(m_marks.extent(0)) < owned) {
    int const n = owned + owned / 4 + 16;
    m_marks = Kokkos::View<char*, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::particles::contactMarks"), n);
    m_active = Kokkos::View<int*, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::particles::activeRows"), n);
  }
  auto const list = m_list.view();
  ContactLaw const law = m_law;
  auto const marks = m_marks;
  auto const active = m_active;
  double const pairSq = (2.0 * law.radius + 2.0 * reach) * (2.0 * law.radius + 2.0 * reach);
  Kokkos::parallel_for(
      "eddy::particles::contactMarks", Kokkos::RangePolicy<ExecSpace>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        double const xi[3] = {a.x(i, 0), a.x(i, 1), a.x(i, 2)};
        bool near = law.nearSolid(xi, reach);
        for (int k = list.begin(i); k < list.end(i) && !near; ++k) {
          int const j = list.neighbors(k);
          double const dx[3] = {xi[0] - a.x(j, 0), xi[1] - a.x(j, 1), xi[2] - a.x(j, 2)};
          near = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2] < pairSq;
        }
        marks(i) = near ? 1 : 0;
      });
  auto const term = KOKKOS_LAMBDA(const int i) {
    return static_cast<int>(marks(i));
  };
  int const count = static_cast<int>(m_scan.sum(space, owned, term, true));
  if (count > 0)
    m_scan.store(
        space, owned, term, KOKKOS_LAMBDA(const int i, std::int64_t at) {
          if (marks(i)) active(static_cast<int>(at)) = i;
        });
  return RowSet{active, count, true};
}

void Contacts::buildList(ExecSpace const& space, ContactArrays const& a, int owned, int rows,
                         long long count) {
  double const w = m_list.radius();
  int const dims = m_law.dims;
  std::array<double, 3> lo{}, hi{};
  double volume = 1.0;
  for (int d = 0; d < 3; ++d) {
    lo[d] = d < dims ? m_domain.lo[d] - w : -w;  // 2D: every sphere at z = 0
    hi[d] = d < dims ? m_domain.hi[d] + w : w;
    if (d < dims) volume *= m_domain.length[d];
  }
  // The same edge on every rank (count is global): the bins of one grid.
  double const perSphere =
      std::pow(volume / static_cast<double>(count > 0 ? count : 1), 1.0 / dims);
  double const binEdge = std::max(m_binFraction * w, perSphere);
  m_bins.buildCanonical(space, a.x, a.id, rows, lo, hi, binEdge, m_domain.length);
  m_list.build(space, a.x, a.id, owned, m_bins);
  m_owned = owned;
}

std::pair<long long, double> Contacts::overlaps(ExecSpace const& space,
                                                ContactArrays const& a) const {
  auto const list = m_list.view();
  double const reachSq = 4.0 * m_law.radius * m_law.radius, d = 2.0 * m_law.radius;
  // The deepest overlap of row i (0: none) and how many it has.
  auto const deepestOf = KOKKOS_LAMBDA(const int i, long long& n) {
    double most = 0.0;
    for (int k = list.begin(i); k < list.end(i); ++k) {
      int const j = list.neighbors(k);
      double r2 = 0.0;
      for (int c = 0; c < 3; ++c) r2 += (a.x(i, c) - a.x(j, c)) * (a.x(i, c) - a.x(j, c));
      if (!(r2 < reachSq)) continue;
      ++n;
      most = math::fmax(most, d - math::sqrt(r2));
    }
    return most;
  };
  long long count = 0;
  double deepest = 0.0;
  Kokkos::parallel_reduce(
      "eddy::particles::overlapCount", Kokkos::RangePolicy<ExecSpace>(space, 0, m_owned),
      KOKKOS_LAMBDA(const int i, long long& n) { deepestOf(i, n); }, count);
  Kokkos::parallel_reduce(
      "eddy::particles::overlapDepth", Kokkos::RangePolicy<ExecSpace>(space, 0, m_owned),
      KOKKOS_LAMBDA(const int i, double& most) {
        long long n = 0;
        most = math::fmax(most, deepestOf(i, n));
      },
      Kokkos::Max<double>(deepest));
  return {count, deepest};
}

void Contacts::forces(ExecSpace const& space, ContactArrays const& a, double h,
                      RowSet const& rows) const {
  ScopedRegion region("eddy::particles::contactForces");
  auto const list = m_list.view();
  ContactLaw const law = m_law;
  double const reachSq = 4.0 * law.radius * law.radius;
  Kokkos::parallel_for(
      "eddy::particles::contactForces", Kokkos::RangePolicy<ExecSpace>(space, 0, rows.count),
      KOKKOS_LAMBDA(const int r) {
        int const i = rows(r);
        double xi[3], vi[3], wi[3], f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
        for (int d = 0; d < 3; ++d) {
          xi[d] = a.x(i, d);
          vi[d] = a.v(i, d);
          wi[d] = a.w(i, d);
        }
        law.addSolids(xi, h, vi, wi, f, t);
        // The row's order is set by the particles alone (canonical bins): so is the sum's.
        for (int k = list.begin(i); k < list.end(i); ++k) {
          int const j = list.neighbors(k);
          double const dx[3] = {xi[0] - a.x(j, 0), xi[1] - a.x(j, 1), xi[2] - a.x(j, 2)};
          double const d2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
          if (!(d2 < reachSq && d2 > 0)) continue;
          double const dist = math::sqrt(d2);
          double const n[3] = {dx[0] / dist, dx[1] / dist, dx[2] / dist};
          double const dv[3] = {vi[0] - a.v(j, 0), vi[1] - a.v(j, 1), vi[2] - a.v(j, 2)};
          double const arm = 0.5 * dist;
          double const wr[3] = {arm * (wi[0] + a.w(j, 0)), arm * (wi[1] + a.w(j, 1)),
                                arm * (wi[2] + a.w(j, 2))};
          law.add(n, 2.0 * law.radius - dist, h, dv, arm, wr, 0, f, t);
        }
        for (int d = 0; d < 3; ++d) {
          a.f(i, d) = f[d];
          a.t(i, d) = t[d];
        }
      });
}

}  // namespace eddy::particles
