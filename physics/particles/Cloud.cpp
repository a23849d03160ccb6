#include "particles/Cloud.hpp"

#include "eddy/core/CounterHash.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Timer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace eddy::particles {

char const* toString(Kind k) {
  return k == Kind::Tracer ? "tracer" : "inertial";
}
char const* toString(Seeding s) {
  return s == Seeding::Random ? "random" : (s == Seeding::Lattice ? "lattice" : "file");
}
char const* toString(Drag d) {
  return d == Drag::Stokes ? "stokes" : "schiller_naumann";
}

double Inertia::stokesSettling() const {
  double const g =
      std::sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]);
  return responseTime() * (1.0 - fluidDensity / density) * g;
}

double Inertia::mass() const {
  return density * 3.14159265358979323846 * diameter * diameter * diameter / 6.0;
}

namespace {

char const* const kAxis[3] = {"x", "y", "z"};

/// Whether the particles of `p` carry an added mass (and feel the fluid's acceleration).
bool addsMass(Parameters const& p) {
  return p.kind == Kind::Inertial && p.inertia.addedMass > 0;
}

/// The largest double below `length` (> 0): where a coordinate that rounded onto the far edge
/// of [0, length) goes.
KOKKOS_INLINE_FUNCTION double below(double length) {
  return length * (1.0 - 2.220446049250313e-16);
}

/// Position of seeded particle `id`; device-copyable.
struct SeedRule {
  int dims = 3;
  bool lattice = false;
  long long n[3] = {1, 1, 1};
  double low[3] = {0, 0, 0}, width[3] = {1, 1, 1}, length[3] = {1, 1, 1};
  std::uint64_t key = 0;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};  ///< this rank's block

  KOKKOS_INLINE_FUNCTION double coordinate(std::int64_t id, int d) const {
    if (d >= dims) return 0.0;
    double p;
    if (lattice) {
      std::int64_t const stride = d == 0 ? 1 : (d == 1 ? n[0] : n[0] * n[1]);
      std::int64_t const index = (id / stride) % n[d];
      p = low[d] + (static_cast<double>(index) + 0.5) * width[d] / static_cast<double>(n[d]);
    } else {
      p = low[d] + width[d] * unitFromKey(key + static_cast<std::uint64_t>(3 * id + d));
    }
    return p < length[d] ? p : below(length[d]);
  }
  /// Whether particle `id` lies in this rank's block.
  KOKKOS_INLINE_FUNCTION bool mine(std::int64_t id) const {
    bool in = true;
    for (int d = 0; d < 3; ++d) {
      double const p = coordinate(id, d);
      in = in && p >= lo[d] && p < hi[d];
    }
    return in;
  }
};

SeedRule seedRule(Parameters const& p, int dims, std::array<double, 3> const& length,
                  ParticleDomain const& block) {
  SeedRule r;
  r.dims = dims;
  r.lattice = p.seeding == Seeding::Lattice;
  for (int d = 0; d < 3; ++d) {
    r.n[d] = d < dims ? p.lattice[d] : 1;
    r.low[d] = p.low[d];
    r.width[d] = p.high[d] - p.low[d];
    r.length[d] = length[d];
    r.lo[d] = block.lo[d];
    r.hi[d] = block.hi[d];
  }
  r.key = mix64(p.seed ^ 0x7472616365727321ull);  // "tracers!": apart from other seeds' streams
  return r;
}

}  // namespace

long long seededCount(Parameters const& p, int dims) {
  if (p.seeding == Seeding::Random) return p.count;
  if (p.seeding == Seeding::Given) return static_cast<long long>(p.given.position.size() / 3);
  long long n = 1;
  for (int d = 0; d < dims; ++d) n *= p.lattice[d];
  return n;
}

std::vector<Violation> violations(Parameters const& p, int dims,
                                  std::array<double, 3> const& length,
                                  std::array<double, 3> const& h) {
  std::vector<Violation> v;
  constexpr long long kMost = std::numeric_limits<int>::max();
  if (p.seeding == Seeding::Random) {
    if (p.count < 1 || p.count > kMost)
      v.push_back({"count", str("is ", p.count), str("expected 1 to ", kMost, " particles")});
  } else if (p.seeding == Seeding::Given) {
    std::size_t const n = p.given.position.size() / 3;
    if (n < 1 || n > static_cast<std::size_t>(kMost))
      v.push_back({"file", str("holds ", n, " particles"), str("expected 1 to ", kMost)});
    if (!p.given.id.empty() && p.given.id.size() != n)
      v.push_back({"file", str("gives ", p.given.id.size(), " ids for ", n, " particles"),
                   "expected one per particle"});
    bool const velocities = p.given.velocity.size() == 3 * n;
    if (p.kind == Kind::Inertial && p.inertia.startGiven && !velocities)
      v.push_back({"initial_velocity", "is file, but the particle file gives no velocities",
                   "expected velocity columns in the file (or initial_velocity: fluid or rest)"});
    // The first particle outside the domain.
    for (std::size_t i = 0; i < n; ++i) {
      int bad = -1;
      for (int d = 0; d < dims; ++d) {
        double const x = p.given.position[3 * i + d];
        if (!(x >= 0 && x < length[d])) bad = d;
      }
      if (bad < 0) continue;
      v.push_back({"file",
                   str("places particle ", i + 1, " (id ",
                       p.given.id.empty() ? static_cast<long long>(i) : p.given.id[i], ") at ",
                       kAxis[bad], " = ", p.given.position[3 * i + bad], ", outside the domain"),
                   str("expected positions in [0, ", length[bad], ") along ", kAxis[bad])});
      break;
    }
  } else {
    long double n = 1;
    for (int d = 0; d < dims; ++d) {
      if (p.lattice[d] < 1)
        v.push_back({"lattice", str("has ", p.lattice[d], " points along ", kAxis[d]),
                     "expected at least 1 per axis"});
      n *= static_cast<long double>(p.lattice[d]);
    }
    if (n > kMost)
      v.push_back({"lattice", str("places ", static_cast<double>(n), " particles"),
                   str("expected at most ", kMost)});
  }
  for (int d = 0; d < dims && p.seeding != Seeding::Given; ++d) {  // (a file: no region)
    if (!(p.low[d] >= 0 && p.low[d] < length[d]))
      v.push_back({"region.low", str("is ", p.low[d], " along ", kAxis[d]),
                   str("expected a point of the domain [0, ", length[d], ")")});
    if (!(p.high[d] > p.low[d] && p.high[d] <= length[d]))
      v.push_back(
          {"region.high", str("is ", p.high[d], " along ", kAxis[d]),
           str("expected above region.low (", p.low[d], ") and at most the domain's ", length[d])});
  }
  if (p.kind == Kind::Inertial) {
    auto const& in = p.inertia;
    double hMin = h[0];
    for (int d = 1; d < dims; ++d) hMin = std::fmin(hMin, h[d]);
    if (!(in.diameter > 0 && in.diameter < hMin))
      v.push_back({"diameter", str("is ", in.diameter),
                   str("expected a point particle: above 0 and below the cell size ", hMin)});
    if (!(in.density > 0))
      v.push_back({"density", str("is ", in.density), "expected a particle density above 0"});
    if (!(in.viscosity > 0))
      v.push_back({"kind", "inertial particles in an inviscid flow (fluids.viscosity 0)",
                   "expected fluids.viscosity above 0 (the drag's)"});
    if (!(in.wallRestitution >= 0 && in.wallRestitution <= 1))
      v.push_back({"wall_restitution", str("is ", in.wallRestitution), "expected 0 to 1"});
    if (!(in.addedMass >= 0))
      v.push_back({"added_mass", str("is ", in.addedMass), "expected at least 0"});
    if (in.addedMass > 0 && p.collisions.enabled)
      v.push_back({"added_mass",
                   str("is ", in.addedMass,
                       ", but the contacts act on the sphere's own mass (their law has no added "
                       "mass)"),
                   "expected added_mass: 0 with collisions"});
    if (p.twoWay && !(in.fluidDensity > 0))
      v.push_back({"coupling", str("two_way with a fluid density of ", in.fluidDensity),
                   "expected fluids.density above 0"});
    auto const& c = p.collisions;
    if (c.enabled) {
      if (!(c.stiffness > 0))
        v.push_back({"collisions.stiffness", str("is ", c.stiffness), "expected above 0"});
      if (!(c.restitution >= 0 && c.restitution <= 1))
        v.push_back({"collisions.restitution", str("is ", c.restitution), "expected 0 to 1"});
      if (!(c.friction >= 0))
        v.push_back({"collisions.friction", str("is ", c.friction), "expected at least 0"});
      if (c.stepsPerContact < 1)
        v.push_back(
            {"collisions.steps_per_contact", str("is ", c.stepsPerContact), "expected at least 1"});
    }
  } else if (p.twoWay) {
    v.push_back({"coupling", "is two_way, but tracers are massless",
                 "expected kind: inertial (or coupling: one_way)"});
  }
  if (p.twoWay && p.interpolation == Interpolation::M4)
    v.push_back({"interpolation",
                 "is m4, but two-way coupling gives the drag back with the linear weights",
                 "expected interpolation: linear (or coupling: one_way)"});
  if (p.kind == Kind::Tracer && p.collisions.enabled)
    v.push_back({"collisions", "is given, but tracers are points without a size",
                 "expected kind: inertial (or remove collisions)"});
  return v;
}

void CloudSet::resize(ExecSpace const& space, int n) {
  EDDY_REQUIRE(n >= 0, "CloudSet::resize: ", n, " rows; expected >= 0");
  if (n > capacity()) {
    std::size_t const cap = static_cast<std::size_t>(n) * 5 / 4 + 32;
    auto const kept = static_cast<std::size_t>(m_size);
    auto grow = [&](auto& view, char const* label) {
      detail::growRows(space, view, cap, kept, label);
    };
    grow(m_a.x, "eddy::particles::positions");
    if (m_kind == Kind::Tracer) {
      grow(m_a.dq, "eddy::particles::stage_increments");
    } else {
      grow(m_a.v, "eddy::particles::velocities");
      grow(m_a.w, "eddy::particles::fluid_velocities");
      if (m_twoWay) grow(m_a.j, "eddy::particles::impulses");
      if (m_addedMass) grow(m_a.acc, "eddy::particles::fluid_accelerations");
      if (m_collide) {
        grow(m_a.dq, "eddy::particles::fluid_rates");
        grow(m_a.omega, "eddy::particles::angular_velocities");
        grow(m_a.f, "eddy::particles::contact_forces");
        grow(m_a.t, "eddy::particles::contact_torques");
        grow(m_a.vc, "eddy::particles::contact_velocities");
        grow(m_a.wc, "eddy::particles::contact_angular_velocities");
        grow(m_a.tau, "eddy::particles::relaxation_times");
      }
    }
    grow(m_a.image, "eddy::particles::images");
    grow(m_a.id, "eddy::particles::ids");
  }
  m_size = n;
}

Cloud::Cloud(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
             std::array<double, 3> const& length, int ghost, Parameters const& params,
             ParticleTuning const& tuning)
    : m_comm(comm),
      m_decomp(decomp),
      m_length(length),
      m_params(params),
      m_tuning(tuning),
      m_stencil(MacStencil::make(decomp, length, ghost, params.interpolation)),
      m_domain(decomp, length),
      m_set(params.kind, params.twoWay, params.collisions.enabled, addsMass(params)),
      m_scratch(params.kind, params.twoWay, params.collisions.enabled, addsMass(params)) {
  std::array<double, 3> h{1, 1, 1};
  for (int a = 0; a < decomp.dims(); ++a) h[a] = length[a] / decomp.globalCells()[a];
  throwFirst(violations(params, decomp.dims(), length, h));
  EDDY_REQUIRE(ghost >= velocityGhosts(params.interpolation),
               "particles::Cloud: velocity fields with ", ghost,
               " ghost layers; expected at least ", velocityGhosts(params.interpolation),
               " (the stages' reach)");
  for (int a = 0; a < 3; ++a) m_periodic[a] = a < decomp.dims() && decomp.isPeriodic(a);
  m_count = m_seeded = seededCount(params, decomp.dims());
  // Injected ids follow every seeded one: a file's ids may run past the count.
  m_firstInjectedId = m_seeded;
  for (long long id : params.given.id) m_firstInjectedId = std::max(m_firstInjectedId, id + 1);
  m_migration = std::make_unique<ParticleMigration<ExecSpace>>(comm, decomp, m_domain);
  if (params.twoWay)
    m_exchange = std::make_unique<MomentumExchange>(space, comm, decomp, length, ghost,
                                                    params.inertia.fluidDensity);
  if (params.collisions.enabled) {
    // The domain's faces that are neither periodic nor open are walls.
    std::array<bool, 6> wall{};
    for (int a = 0; a < decomp.dims(); ++a)
      for (int side = 0; side < 2; ++side)
        wall[2 * a + side] = !m_periodic[a] && !params.open[2 * a + side];
    auto const& in = params.inertia;
    double cell = h[0], volume = 1.0;
    for (int a = 0; a < decomp.dims(); ++a) {
      cell = std::min(cell, h[a]);
      volume *= length[a];
    }
    // The mean spacing of the seeded spheres (infinite for none: injected ones only).
    double const spacing = std::pow(volume / static_cast<double>(m_seeded), 1.0 / decomp.dims());
    m_contacts = std::make_unique<Contacts>(
        comm, decomp, m_domain,
        contactLaw(in.diameter, in.mass(), params.collisions, in.wallRestitution, decomp.dims(),
                   wall, length),
        params.collisions.stepsPerContact, contactTime(in.mass(), params.collisions),
        contactSkin(in.diameter, cell, spacing));
  }
  seed(space);
  if (m_tuning.sortEvery > 0) sortByBin(space);
}

void Cloud::collideWithBodies(std::vector<fluids::Body> const& bodies) {
  EDDY_REQUIRE(m_contacts, "Cloud::collideWithBodies: the particles do not collide");
  m_contacts->setBodies(bodies);
}

bool Cloud::owns(double const* x) const {
  for (int a = 0; a < 3; ++a)
    if (!(x[a] >= m_domain.lo[a] && x[a] < m_domain.hi[a])) return false;
  return true;
}

void Cloud::seed(ExecSpace const& space) {
  ScopedRegion region("eddy::particles::seed");
  if (m_params.seeding == Seeding::Given) {
    // The given particles in this rank's block, in file order.
    auto const& g = m_params.given;
    bool const velocities = m_params.kind == Kind::Inertial && m_params.inertia.startGiven;
    CloudRows mine;
    for (std::size_t i = 0; i < g.position.size() / 3; ++i) {
      double const* x = &g.position[3 * i];
      if (!owns(x)) continue;
      mine.x.insert(mine.x.end(), x, x + 3);
      mine.image.insert(mine.image.end(), {0, 0, 0});
      mine.id.push_back(g.id.empty() ? static_cast<std::int64_t>(i) : g.id[i]);
      if (m_params.kind == Kind::Inertial) {
        double const zero[3] = {0, 0, 0};
        double const* v = velocities ? &g.velocity[3 * i] : zero;
        mine.v.insert(mine.v.end(), v, v + 3);
      }
      if (m_params.twoWay) mine.j.insert(mine.j.end(), {0.0, 0.0, 0.0});
    }
    load(space, mine);
    return;
  }
  SeedRule const rule = seedRule(m_params, m_decomp.dims(), m_length, m_domain);
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  std::int64_t kept = 0;
  Kokkos::parallel_reduce(
      "eddy::particles::countSeeds", Policy(space, 0, m_count),
      KOKKOS_LAMBDA(const std::int64_t id, std::int64_t& k) { k += rule.mine(id) ? 1 : 0; }, kept);
  m_set.resize(space, static_cast<int>(kept));
  auto const a = m_set.arrays();
  Kokkos::parallel_scan(
      "eddy::particles::placeSeeds", Policy(space, 0, m_count),
      KOKKOS_LAMBDA(const std::int64_t id, std::int64_t& slot, const bool final) {
        if (!rule.mine(id)) return;
        if (final) {
          for (int d = 0; d < 3; ++d) {
            a.x(slot, d) = rule.coordinate(id, d);
            a.image(slot, d) = 0;
            if (a.dq.extent(0) > 0) a.dq(slot, d) = 0.0;
            if (a.v.extent(0) > 0) a.v(slot, d) = a.w(slot, d) = 0.0;
            if (a.j.extent(0) > 0) a.j(slot, d) = 0.0;
          }
          a.id(slot) = id;
        }
        ++slot;
      });
  space.fence();
}

void Cloud::stage(ExecSpace const& space, FaceVelocity const& u, fluids::RkStage const& st) {
  if (m_params.kind != Kind::Tracer) return;
  ScopedRegion region("eddy::particles::stage");
  auto const a = m_set.arrays();
  MacStencil const s = m_stencil;
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  bool const first = st.index == 0;
  double const ra = st.a, rb = st.b, dt = st.dt;
  Kokkos::parallel_for(
      "eddy::particles::tracerStage", Kokkos::RangePolicy<ExecSpace>(space, 0, m_set.size()),
      KOKKOS_LAMBDA(const int i) {
        double const x = a.x(i, 0), y = a.x(i, 1), z = a.x(i, 2);
        double const v[3] = {s.component(u0, 0, x, y, z), s.component(u1, 1, x, y, z),
                             s.dims == 3 ? s.component(u2, 2, x, y, z) : 0.0};
        double const p[3] = {x, y, z};
        for (int d = 0; d < s.dims; ++d) {
          // a = 0 in the first stage, whose increment is not read (it may hold anything).
          double const q = first ? dt * v[d] : ra * a.dq(i, d) + dt * v[d];
          a.dq(i, d) = q;
          a.x(i, d) = p[d] + rb * q;
        }
      });
}

namespace {

/// The exponential integrator's weights for h = dt / tau >= 0, phi_k = phi_k(-h):
/// E = e^-h, phi1 = (1 - E) / h, h phi2 = 1 - phi1, h phi3 = 1/2 - phi2 (Taylor series below
/// h = 1/2, where the differences cancel); finite for h = +infinity (tau -> 0).
struct EtdWeights {
  double e, phi1, hPhi2, hPhi3;
  KOKKOS_INLINE_FUNCTION explicit EtdWeights(double h) {
    e = math::exp(-h);
    if (h < 0.5) {
      // phi_k(-h) = sum_j (-h)^j / (j + k)!, up to the first term below 1e-18: the later ones
      // (each smaller) are below half an ulp of every sum (phi1 > 0.78, phi2 > 0.39, phi3 >
      // 0.13 here), so the sums are those of all 24 terms, in few for the short substeps of
      // colliding particles.
      double p1 = 0.0, p2 = 0.0, p3 = 0.0, term = 1.0;  // term = (-h)^j / (j + 1)!
      for (int j = 0; j < 24 && math::fabs(term) >= 1e-18; ++j) {
        p1 += term;
        double const t2 = term / (j + 2);
        p2 += t2;
        p3 += t2 / (j + 3);
        term *= -h / (j + 2);
      }
      phi1 = p1;
      hPhi2 = h * p2;
      hPhi3 = h * p3;
    } else {
      phi1 = (1.0 - e) / h;
      hPhi2 = 1.0 - phi1;
      hPhi3 = 0.5 - hPhi2 / h;
    }
  }
};

/// What an inertial particle's step needs besides the particle; device-copyable. With
/// beta = rho_f / rho_p and the added mass's factor m = 1 + C_m beta, the equation of motion is
/// dv/dt = (w - v) / tau + g' + gamma Du/Dt.
struct InertialRule {
  double tauP = 1.0;       ///< m rho_p d^2 / (18 rho_f nu)
  double diameter = 0.0;   ///< d
  double viscosity = 1.0;  ///< nu
  bool schillerNaumann = true;
  double gravity[3] = {0, 0, 0};  ///< g' = (1 - beta) g / m
  double buoyant[3] = {0, 0, 0};  ///< (1 - beta) g: gravity and buoyancy per unit mass
  double gamma = 0.0;             ///< (1 + C_m) beta / m: the fluid acceleration's weight
  int dims = 3;

  /// tau = tau_p / f of a slip velocity `slip` (w - v).
  KOKKOS_INLINE_FUNCTION double tau(double const* slip) const {
    if (!schillerNaumann) return tauP;
    double const re = math::sqrt(slip[0] * slip[0] + slip[1] * slip[1] + slip[2] * slip[2]) *
                      diameter / viscosity;
    return tauP / (1.0 + 0.15 * math::pow(re, 0.687));
  }
};

/// The predictor of an inertial step of `dt`: the flow `u` (at t + dt) where a particle goes
/// from x0 at velocity v0 with its target held at a0 (weights k), into w1; that place into xs.
template <class Component>
KOKKOS_INLINE_FUNCTION void fluidAhead(MacStencil const& s, Component const& u0,
                                       Component const& u1, Component const& u2, int dims,
                                       double const x0[3], double const v0[3], double const a0[3],
                                       EtdWeights const& k, double dt, double w1[3], double xs[3]) {
  for (int d = 0; d < 3; ++d) xs[d] = x0[d] + dt * (v0[d] * k.phi1 + a0[d] * k.hPhi2);
  w1[0] = s.component(u0, 0, xs[0], xs[1], xs[2]);
  w1[1] = s.component(u1, 1, xs[0], xs[1], xs[2]);
  w1[2] = dims == 3 ? s.component(u2, 2, xs[0], xs[1], xs[2]) : 0.0;
}

/// (w - v) . grad u of the flow `u` at x, per component, into c (0 beyond dims).
template <class Component>
KOKKOS_INLINE_FUNCTION void convected(MacStencil const& s, Component const& u0, Component const& u1,
                                      Component const& u2, int dims, double const x[3],
                                      double const w[3], double const v[3], double c[3]) {
  double const slip[3] = {w[0] - v[0], w[1] - v[1], dims == 3 ? w[2] - v[2] : 0.0};
  c[0] = s.derivative(u0, 0, x[0], x[1], x[2], slip);
  c[1] = s.derivative(u1, 1, x[0], x[1], x[2], slip);
  c[2] = dims == 3 ? s.derivative(u2, 2, x[0], x[1], x[2], slip) : 0.0;
}

InertialRule inertialRule(Inertia const& in, int dims) {
  InertialRule r;
  double const beta = in.fluidDensity / in.density;
  double const m = 1.0 + in.addedMass * beta;  // exactly 1 without added mass
  r.tauP = in.responseTime() * m;
  r.diameter = in.diameter;
  r.viscosity = in.viscosity;
  r.schillerNaumann = in.drag == Drag::SchillerNaumann;
  for (int d = 0; d < 3; ++d) {
    r.buoyant[d] = d < dims ? (1.0 - beta) * in.gravity[d] : 0.0;
    r.gravity[d] = r.buoyant[d] / m;
  }
  r.gamma = in.addedMass > 0 ? (1.0 + in.addedMass) * beta / m : 0.0;
  r.dims = dims;
  return r;
}

}  // namespace

void Cloud::inertialStep(ExecSpace const& space, double dt, FaceVelocity const& u) {
  ScopedRegion region("eddy::particles::inertialStep");
  auto const a = m_set.arrays();
  MacStencil const s = m_stencil;
  InertialRule const rule = inertialRule(m_params.inertia, m_decomp.dims());
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  bool const twoWay = m_params.twoWay;
  bool const added = addsMass(m_params);
  double const mass = m_params.inertia.mass();
  Kokkos::parallel_for(
      "eddy::particles::inertialStep", Kokkos::RangePolicy<ExecSpace>(space, 0, m_set.size()),
      KOKKOS_LAMBDA(const int i) {
        double x0[3], v0[3], a0[3], slip[3], fa[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < 3; ++d) {
          x0[d] = a.x(i, d);
          v0[d] = a.v(i, d);
          slip[d] = a.w(i, d) - v0[d];
          if (added) fa[d] = a.acc(i, d);  // (w - v) . grad u at the start
        }
        // The drag factor of the slip at the start of the step, held over the step.
        double const tau = rule.tau(slip);
        EtdWeights const k(dt / tau);
        for (int d = 0; d < 3; ++d)
          a0[d] = a.w(i, d) + tau * (rule.gravity[d] + rule.gamma * fa[d]);
        // Predictor: the target held at a0; the flow at t + dt there gives the target a1.
        double w1[3], xs[3];
        fluidAhead(s, u0, u1, u2, rule.dims, x0, v0, a0, k, dt, w1, xs);
        if (added) {
          // Du/Dt over the step: the rate of w along the path plus (w - v) . grad u, the mean of
          // the start's and the predicted end's (second order at the step's middle).
          double vs[3], end[3];
          for (int d = 0; d < 3; ++d) vs[d] = v0[d] * k.e + a0[d] * (dt / tau) * k.phi1;
          convected(s, u0, u1, u2, rule.dims, xs, w1, vs, end);
          for (int d = 0; d < 3; ++d) {
            fa[d] = (w1[d] - a.w(i, d)) / dt + 0.5 * (fa[d] + end[d]);
            a0[d] = a.w(i, d) + tau * (rule.gravity[d] + rule.gamma * fa[d]);
          }
        }
        // Corrector: the target linear in time from a0 to a1, slope sl.
        for (int d = 0; d < rule.dims; ++d) {
          double const sl = (w1[d] + tau * (rule.gravity[d] + rule.gamma * fa[d]) - a0[d]) / dt;
          a.x(i, d) = x0[d] + dt * (v0[d] * k.phi1 + a0[d] * k.hPhi2 + sl * dt * k.hPhi3);
          double const v1 = v0[d] * k.e + a0[d] * (dt / tau) * k.phi1 + sl * dt * k.hPhi2;
          a.v(i, d) = v1;
          // The fluid's impulse on the particle: its change of momentum less what gravity and
          // buoyancy gave.
          if (twoWay) a.j(i, d) = mass * ((v1 - v0[d]) - rule.buoyant[d] * dt);
        }
      });
}

namespace {

/// Above this share of the spheres marked, every sphere takes the contact substeps: walking a
/// narrow list of all of them is cheaper than a wide list of most of them.
constexpr double kMostMarked = 0.25;

/// Drag and gravity over `h` from `s` into the step on row i of `a` leaving a kick at velocity
/// `v0`: the target w + s dq + tau g', changing at the fluid's rate dq, by the exponential
/// integrator; the new position into x1 and row i, the velocity into row i, the drag's impulse
/// (the drift's change of momentum less gravity's and buoyancy's) added to j with `twoWay`.
KOKKOS_INLINE_FUNCTION void dragDrift(CloudArrays const& a, InertialRule const& rule, int i,
                                      double const v0[3], double h, double s, bool twoWay,
                                      double mass, double x1[3]) {
  double const tau = a.tau(i);
  EtdWeights const k(h / tau);
  for (int d = 0; d < 3; ++d) x1[d] = a.x(i, d);
  for (int d = 0; d < rule.dims; ++d) {
    double const a0 = a.w(i, d) + s * a.dq(i, d) + tau * rule.gravity[d], sl = a.dq(i, d);
    x1[d] += h * (v0[d] * k.phi1 + a0 * k.hPhi2 + sl * h * k.hPhi3);
    double const v1 = v0[d] * k.e + a0 * (h / tau) * k.phi1 + sl * h * k.hPhi2;
    a.x(i, d) = x1[d];
    a.v(i, d) = v1;
    if (twoWay) a.j(i, d) += mass * ((v1 - v0[d]) - rule.buoyant[d] * h);
  }
  for (int d = rule.dims; d < 3; ++d) a.v(i, d) = v0[d];
}

/// The fastest row i can move from `s` into a step of `dt` without contacts: the larger of its
/// speed and the targets' at s and at the end (its speed relaxes toward a target that changes
/// linearly in time, so stays below the largest of the three).
KOKKOS_INLINE_FUNCTION double driftSpeed(CloudArrays const& a, InertialRule const& rule, int i,
                                         double s, double dt) {
  double v2 = 0.0, t0 = 0.0, t1 = 0.0;
  for (int d = 0; d < rule.dims; ++d) {
    double const target = a.w(i, d) + a.tau(i) * rule.gravity[d];
    double const start = target + s * a.dq(i, d), end = target + dt * a.dq(i, d);
    v2 += a.v(i, d) * a.v(i, d);
    t0 += start * start;
    t1 += end * end;
  }
  return math::sqrt(math::fmax(v2, math::fmax(t0, t1)));
}

}  // namespace

double Cloud::predictFluid(ExecSpace const& space, double dt, FaceVelocity const& u) {
  auto const a = m_set.arrays();
  MacStencil const s = m_stencil;
  InertialRule const rule = inertialRule(m_params.inertia, m_decomp.dims());
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  bool const twoWay = m_params.twoWay;
  double speed = 0.0;
  Kokkos::parallel_reduce(
      "eddy::particles::predictFluid", Kokkos::RangePolicy<ExecSpace>(space, 0, m_set.size()),
      KOKKOS_LAMBDA(const int i, double& most) {
        double x0[3], v0[3], a0[3], slip[3], w1[3];
        for (int d = 0; d < 3; ++d) {
          x0[d] = a.x(i, d);
          v0[d] = a.v(i, d);
          slip[d] = a.w(i, d) - v0[d];
        }
        // inertialStep's predictor: where the particle would go without contacts.
        double const tau = rule.tau(slip);
        EtdWeights const k(dt / tau);
        for (int d = 0; d < 3; ++d) a0[d] = a.w(i, d) + tau * rule.gravity[d];
        double xs[3];
        fluidAhead(s, u0, u1, u2, rule.dims, x0, v0, a0, k, dt, w1, xs);
        for (int d = 0; d < 3; ++d) {
          a.dq(i, d) = d < rule.dims ? (w1[d] - a.w(i, d)) / dt : 0.0;
          if (twoWay) a.j(i, d) = 0.0;
          a.vc(i, d) = a.v(i, d);  // the contacts at the step's start
          a.wc(i, d) = a.omega(i, d);
        }
        a.tau(i) = tau;
        most = math::fmax(most, driftSpeed(a, rule, i, 0.0, dt));
      },
      Kokkos::Max<double>(speed));
  return maxOverRanks(speed);
}

double Cloud::maxOverRanks(double mine) const {
  double all = 0.0;
  checkMpi(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, m_comm),
           "MPI_Allreduce(the fastest sphere)");
  return all;
}

void Cloud::kickDrift(ExecSpace const& space, double h, double s, RowSet const& rows,
                      Contacts::Watch const& watch) {
  auto const a = m_set.arrays();
  InertialRule const rule = inertialRule(m_params.inertia, m_decomp.dims());
  ContactLaw const law = m_contacts->law();
  bool const twoWay = m_params.twoWay;
  double const mass = m_params.inertia.mass();
  Kokkos::parallel_for(
      "eddy::particles::kickDrift", Kokkos::RangePolicy<ExecSpace>(space, 0, rows.count),
      KOKKOS_LAMBDA(const int r) {
        int const i = rows(r);
        double v0[3], spin[3], x1[3];
        for (int d = 0; d < 3; ++d) {
          v0[d] = a.v(i, d) + (0.5 * h) * law.inverseMass * a.f(i, d);
          spin[d] = a.omega(i, d) + (0.5 * h) * law.inverseInertia * a.t(i, d);
          a.omega(i, d) = spin[d];
        }
        dragDrift(a, rule, i, v0, h, s, twoWay, mass, x1);
        // What the contacts at the new positions see: the end of the substep, predicted with
        // the last contact force.
        for (int d = 0; d < 3; ++d) {
          a.vc(i, d) = a.v(i, d) + (0.5 * h) * law.inverseMass * a.f(i, d);
          a.wc(i, d) = spin[d] + (0.5 * h) * law.inverseInertia * a.t(i, d);
        }
        watch(i, x1[0], x1[1], x1[2]);
      });
}

void Cloud::kick(ExecSpace const& space, double h, RowSet const& rows) {
  auto const a = m_set.arrays();
  ContactLaw const law = m_contacts->law();
  Kokkos::parallel_for(
      "eddy::particles::kick", Kokkos::RangePolicy<ExecSpace>(space, 0, rows.count),
      KOKKOS_LAMBDA(const int r) {
        int const i = rows(r);
        for (int d = 0; d < 3; ++d) {
          a.v(i, d) += (0.5 * h) * law.inverseMass * a.f(i, d);
          a.omega(i, d) += (0.5 * h) * law.inverseInertia * a.t(i, d);
        }
      });
}

double Cloud::finishChunk(ExecSpace const& space, double s, double h, double dt, bool drift) {
  auto const a = m_set.arrays();
  InertialRule const rule = inertialRule(m_params.inertia, m_decomp.dims());
  bool const twoWay = m_params.twoWay;
  double const mass = m_params.inertia.mass();
  auto const marks = m_contacts->marks();
  double speed = 0.0;
  Kokkos::parallel_reduce(
      "eddy::particles::finishChunk", Kokkos::RangePolicy<ExecSpace>(space, 0, m_set.size()),
      KOKKOS_LAMBDA(const int i, double& most) {
        if (drift && !marks(i)) {
          double const v0[3] = {a.v(i, 0), a.v(i, 1), a.v(i, 2)};
          double x1[3];
          dragDrift(a, rule, i, v0, h, s, twoWay, mass, x1);
        }
        for (int d = 0; d < 3; ++d) {
          a.vc(i, d) = a.v(i, d);  // the contacts at the next chunk's start
          a.wc(i, d) = a.omega(i, d);
        }
        most = math::fmax(most, driftSpeed(a, rule, i, s + h, dt));
      },
      Kokkos::Max<double>(speed));
  return maxOverRanks(speed);
}

std::pair<long long, double> Cloud::overlaps(ExecSpace const& space) {
  EDDY_REQUIRE(m_contacts, "Cloud::overlaps: the particles do not collide");
  int const owned = m_set.size();
  m_contacts->build(space, m_set, owned, m_count);
  auto const mine = m_contacts->overlaps(space, m_set.contactArrays());
  m_set.resize(space, owned);
  long long twice = 0;
  double deepest = 0.0;
  checkMpi(MPI_Allreduce(&mine.first, &twice, 1, MPI_LONG_LONG, MPI_SUM, m_comm),
           "MPI_Allreduce(overlapping pairs)");
  checkMpi(MPI_Allreduce(&mine.second, &deepest, 1, MPI_DOUBLE, MPI_MAX, m_comm),
           "MPI_Allreduce(deepest overlap)");
  return {twice / 2, deepest};
}

void Cloud::collidingStep(ExecSpace const& space, double dt, FaceVelocity const& u) {
  ScopedRegion region("eddy::particles::collidingStep");
  double speed = predictFluid(space, dt, u);
  // Chunks of the rest of the step, each short enough for the fastest sphere at its start.
  for (double s = 0.0;;) {
    int const chunks = m_contacts->chunks(dt - s, speed);
    double const h = chunks == 1 ? dt - s : (dt - s) / chunks;
    int owned = m_set.size();
    if (s > 0.0) owned = migrateWithinStep(space, owned);
    Marked const marked = collideMarked(space, s, h, dt, speed, owned);
    m_set.resize(space, owned);
    bool const last = chunks == 1 || marked == Marked::Most;
    double const end = marked == Marked::Most ? dt : s + h;
    speed = finishChunk(space, s, end - s, dt, marked == Marked::Few);
    if (last) break;
    s = end;
  }
}

int Cloud::migrateWithinStep(ExecSpace const& space, int owned) {
  // The rows carry the step's state (CloudCodec).
  m_set.resize(space, owned);
  reflectAtWalls(space);
  removeLeavers(space);
  m_migration->migrate(space, m_set);
  return m_set.size();
}

Cloud::Marked Cloud::collideMarked(ExecSpace const& space, double s, double h, double dt,
                                   double speed, int& owned) {
  // Each sphere may move twice as far as the fastest could without contacts.
  double const reach = m_contacts->useReach(2.0 * speed * h);
  m_contacts->build(space, m_set, owned, m_count);
  RowSet const marked = m_contacts->activate(space, m_set.contactArrays(), reach);
  long long const mine = marked.count;
  long long all = 0;
  checkMpi(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, m_comm),
           "MPI_Allreduce(spheres within reach of a contact)");
  if (all == 0) return Marked::Few;
  if (all > kMostMarked * static_cast<double>(m_count)) {
    // Most spheres can touch (a bed, a dense suspension): the rest of the step for all of them.
    collideAll(space, s, dt - s, speed, owned);
    return Marked::Most;
  }
  ScopedRegion region("eddy::particles::contactSubsteps");
  saveRows(space, marked);
  int const n = m_contacts->contactSubsteps(h);
  double const sub = h / n;
  auto const watch = m_contacts->watch(reach);
  auto const arrays = m_set.contactArrays();
  m_contacts->forces(space, arrays, sub, marked);
  for (int k = 0; k < n; ++k) {
    kickDrift(space, sub, s + k * sub, marked, watch);
    m_contacts->refresh(space, arrays);
    m_contacts->forces(space, arrays, sub, marked);
    kick(space, sub, marked);
  }
  if (!m_contacts->exceeded(space, m_comm, watch)) return Marked::Few;
  // A marked sphere went beyond its reach: the unmarked ones may have been touched. The chunk
  // again, every sphere in substeps.
  restoreRows(space, marked);
  collideAll(space, s, h, speed, owned);
  return Marked::Again;
}

void Cloud::collideAll(ExecSpace const& space, double s, double h, double speed, int& owned) {
  ScopedRegion region("eddy::particles::collideAll");
  m_contacts->useNarrowSkin();
  m_contacts->build(space, m_set, owned, m_count);
  int const n = m_contacts->substeps(h, speed);
  double const sub = h / n;
  auto const all = [&] {
    return RowSet{{}, owned, false};
  };
  m_contacts->forces(space, m_set.contactArrays(), sub);
  for (int k = 0; k < n; ++k) {
    auto const watch = m_contacts->watch();
    kickDrift(space, sub, s + k * sub, all(), watch);
    if (m_contacts->rebuildDue(space, m_comm, watch)) {
      owned = migrateWithinStep(space, owned);
      m_contacts->build(space, m_set, owned, m_count);
    } else {
      m_contacts->refresh(space, m_set.contactArrays());
    }
    m_contacts->forces(space, m_set.contactArrays(), sub);
    kick(space, sub, all());
  }
}

void Cloud::saveRows(ExecSpace const& space, RowSet const& rows) {
  if (static_cast<int>(m_saved.extent(0)) < rows.count)
    m_saved = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::particles::savedRows"),
        rows.count + rows.count / 4 + 16, CloudCodec::width);
  auto const codec = m_set.migrationCodec();
  auto const saved = m_saved;
  Kokkos::parallel_for(
      "eddy::particles::saveRows", Kokkos::RangePolicy<ExecSpace>(space, 0, rows.count),
      KOKKOS_LAMBDA(const int r) { codec.pack(rows(r), &saved(r, 0)); });
}

void Cloud::restoreRows(ExecSpace const& space, RowSet const& rows) {
  auto const codec = m_set.migrationCodec();
  auto const saved = m_saved;
  Kokkos::parallel_for(
      "eddy::particles::restoreRows", Kokkos::RangePolicy<ExecSpace>(space, 0, rows.count),
      KOKKOS_LAMBDA(const int r) { codec.unpack(rows(r), &saved(r, 0)); });
}

void Cloud::reflectAtWalls(ExecSpace const& space) {
  bool wall[3], open[6];
  double lo[3], hi[3];
  bool any = false;
  // A particle's centre stays d / 2 from a wall (a tracer's at the wall; with collisions the
  // walls are contacts, and this holds the centre in the domain).
  double const r =
      m_params.kind == Kind::Inertial && !m_contacts ? 0.5 * m_params.inertia.diameter : 0.0;
  for (int d = 0; d < 3; ++d) {
    wall[d] = d < m_decomp.dims() && !m_periodic[d];
    lo[d] = r;
    hi[d] = m_length[d] - r;
    any = any || wall[d];
    for (int side = 0; side < 2; ++side)
      open[2 * d + side] = wall[d] && m_params.open[2 * d + side];
  }
  if (!any) return;
  auto const a = m_set.arrays();
  bool const inertial = m_params.kind == Kind::Inertial;
  double const restitution = m_params.inertia.wallRestitution;
  double length[3] = {m_length[0], m_length[1], m_length[2]};
  Kokkos::parallel_for(
      "eddy::particles::reflectAtWalls", Kokkos::RangePolicy<ExecSpace>(space, 0, m_set.size()),
      KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < 3; ++d) {
          if (!wall[d]) continue;
          double q = a.x(i, d);
          // Through an open face (its centre beyond the face): out of the run, marked by a
          // negative id.
          if ((open[2 * d] && q < 0.0) || (open[2 * d + 1] && q >= length[d])) {
            a.id(i) = -1 - a.id(i);
            return;
          }
          bool const low = q<lo[d], high = r> 0 ? q > hi[d] : q >= hi[d];
          if (!low && !high) continue;
          if (low ? open[2 * d] : open[2 * d + 1]) continue;  // inside, near an open face
          // A particle moving into the wall bounces: its normal velocity, and the way it went
          // since the contact, reversed and scaled by the restitution coefficient.
          double const vn = inertial ? a.v(i, d) : 0.0;
          bool const bounces = inertial && (low ? vn < 0.0 : vn > 0.0);
          double const e = bounces ? restitution : 1.0;
          q = low ? lo[d] + e * (lo[d] - q) : hi[d] - e * (q - hi[d]);
          // Beyond the far wall by more than the domain (not within reach of a step): held in.
          q = q < 0.0 ? 0.0 : (q < length[d] ? q : below(length[d]));
          a.x(i, d) = q;
          if (bounces) a.v(i, d) = -restitution * vn;
        }
      });
}

void Cloud::removeLeavers(ExecSpace const& space) {
  bool any = false;
  for (bool o : m_params.open) any = any || o;
  if (!any) return;
  ScopedRegion region("eddy::particles::removeLeavers");
  auto const a = m_set.arrays();
  int const n = m_set.size();
  int staying = 0;
  Kokkos::parallel_reduce(
      "eddy::particles::countStaying", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int i, int& k) { k += a.id(i) >= 0 ? 1 : 0; }, staying);
  long long const left = n - staying;
  long long leftAll = 0;
  checkMpi(MPI_Allreduce(&left, &leftAll, 1, MPI_LONG_LONG, MPI_SUM, m_comm),
           "MPI_Allreduce(particles out)");
  if (leftAll == 0) return;
  m_count -= leftAll;
  if (left == 0) return;
  m_scratch.resize(space, staying);
  auto const from = m_set.migrationCodec();
  auto const to = m_scratch.migrationCodec();
  Kokkos::parallel_scan(
      "eddy::particles::keepStaying", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int i, int& slot, const bool final) {
        if (a.id(i) < 0) return;
        if (final) {
          double row[CloudCodec::width];
          from.pack(i, row);
          to.unpack(slot, row);
        }
        ++slot;
      });
  std::swap(m_set, m_scratch);
}

void Cloud::finishStep(ExecSpace const& space, double dt, FaceVelocity const& u) {
  ScopedRegion region("eddy::particles::finishStep");
  if (m_contacts)
    collidingStep(space, dt, u);
  else if (m_params.kind == Kind::Inertial)
    inertialStep(space, dt, u);
  reflectAtWalls(space);
  removeLeavers(space);
  m_migration->migrate(space, m_set);
  if (m_params.injection.face >= 0) inject(space, dt, u);
  if (m_exchange) exchangeMomentum(space);
  if (m_tuning.sortEvery > 0 && (m_step + 1) % m_tuning.sortEvery == 0) sortByBin(space);
  if (m_params.kind == Kind::Inertial) sample(space, u);
  ++m_step;
  m_time += dt;
  m_lastDt = dt;
}

void Cloud::inject(ExecSpace const& space, double dt, FaceVelocity const& u) {
  ScopedRegion region("eddy::particles::inject");
  double const rate = m_params.injection.rate;
  // Whole particles by the end of the step, less those by its start: the same on every rank.
  long long const entered = static_cast<long long>(std::floor(rate * (m_time + dt))) -
                            static_cast<long long>(std::floor(rate * m_time));
  if (entered <= 0) return;
  int const axis = m_params.injection.face / 2;
  bool const high = m_params.injection.face % 2 == 1;
  int const dims = m_decomp.dims();
  // Only the ranks whose block has the face place particles.
  bool const touches = high ? m_decomp.isHighBoundary(axis) : m_decomp.isLowBoundary(axis);
  std::int64_t const first = m_firstInjectedId + m_injected;
  m_injected += entered;
  m_count += entered;
  if (!touches) return;
  std::uint64_t const key = mix64(m_params.seed ^ 0x696e6a6563746564ull);  // "injected"
  MacStencil const s = m_stencil;
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  double lo[3], hi[3], length[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = m_domain.lo[d];
    hi[d] = m_domain.hi[d];
    length[d] = m_length[d];
  }
  bool const inertial = m_params.kind == Kind::Inertial;
  bool const rest = m_params.inertia.startAtRest;
  // Candidate q's place; whether it is this rank's (its tangential coordinates in the block).
  auto const place = KOKKOS_LAMBDA(const std::int64_t q, double* x) {
    std::int64_t const id = first + q;
    bool mine = true;
    for (int d = 0; d < 3; ++d) {
      double p = 0.0;
      if (d < dims && d != axis) {
        p = length[d] * unitFromKey(key + static_cast<std::uint64_t>(3 * id + d));
        p = p < length[d] ? p : below(length[d]);
        mine = mine && p >= lo[d] && p < hi[d];
      }
      x[d] = p;
    }
    if (!mine) return false;
    // Into the domain by s dt u_n, u_n the inflow's normal velocity at the face point.
    x[axis] = high ? below(length[axis]) : 0.0;
    auto const& un = axis == 0 ? u0 : (axis == 1 ? u1 : u2);
    double const normal = s.component(un, axis, x[0], x[1], x[2]) * (high ? -1.0 : 1.0);
    double const depth = unitFromKey(key + static_cast<std::uint64_t>(3 * id + axis)) * dt *
                         (normal > 0.0 ? normal : 0.0);
    double const inside = high ? length[axis] - depth : depth;
    // Within the block (a step moves the fluid less than a cell).
    x[axis] = inside < lo[axis] ? lo[axis] : (inside < hi[axis] ? inside : below(hi[axis]));
    return true;
  };
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  std::int64_t mine = 0;
  Kokkos::parallel_reduce(
      "eddy::particles::countInjected", Policy(space, 0, entered),
      KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& k) {
        double x[3];
        k += place(q, x) ? 1 : 0;
      },
      mine);
  if (mine == 0) return;
  int const before = m_set.size();
  m_set.resize(space, before + static_cast<int>(mine));
  auto const a = m_set.arrays();
  Kokkos::parallel_scan(
      "eddy::particles::placeInjected", Policy(space, 0, entered),
      KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& slot, const bool final) {
        double x[3];
        if (!place(q, x)) return;
        if (final) {
          int const i = before + static_cast<int>(slot);
          double const w[3] = {s.component(u0, 0, x[0], x[1], x[2]),
                               s.component(u1, 1, x[0], x[1], x[2]),
                               dims == 3 ? s.component(u2, 2, x[0], x[1], x[2]) : 0.0};
          for (int d = 0; d < 3; ++d) {
            a.x(i, d) = x[d];
            a.image(i, d) = 0;
            if (a.dq.extent(0) > 0) a.dq(i, d) = 0.0;
            if (inertial) {
              a.w(i, d) = w[d];
              a.v(i, d) = rest ? 0.0 : w[d];
            }
            if (a.j.extent(0) > 0) a.j(i, d) = 0.0;
            if (a.omega.extent(0) > 0) a.omega(i, d) = 0.0;
          }
          a.id(i) = first + q;
        }
        ++slot;
      });
}

void Cloud::sortByBin(ExecSpace const& space) {
  ScopedRegion region("eddy::particles::sortByBin");
  int const n = m_set.size();
  double bin = 0.0;
  for (int a = 0; a < m_decomp.dims(); ++a)
    bin = std::fmax(bin, 4.0 * m_length[a] / m_decomp.globalCells()[a]);
  m_bins.build(space, m_set.positions(), n, m_domain.lo, m_domain.hi, bin);
  m_scratch.resize(space, n);
  auto const perm = m_bins.permutation();
  auto const from = m_set.migrationCodec();
  auto const to = m_scratch.migrationCodec();
  Kokkos::parallel_for(
      "eddy::particles::sortByBin", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int t) {
        double row[CloudCodec::width];
        from.pack(perm(t), row);
        to.unpack(t, row);
      });
  std::swap(m_set, m_scratch);
}

void Cloud::sample(ExecSpace const& space, FaceVelocity const& u, bool setVelocity) {
  if (m_params.kind != Kind::Inertial) return;
  ScopedRegion region("eddy::particles::sample");
  auto const a = m_set.arrays();
  MacStencil const s = m_stencil;
  InertialRule const rule = inertialRule(m_params.inertia, m_decomp.dims());
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  bool const added = addsMass(m_params);
  double rate = 0.0;
  Kokkos::parallel_reduce(
      "eddy::particles::sampleFlow", Kokkos::RangePolicy<ExecSpace>(space, 0, m_set.size()),
      KOKKOS_LAMBDA(const int i, double& most) {
        double const x = a.x(i, 0), y = a.x(i, 1), z = a.x(i, 2);
        double const w[3] = {s.component(u0, 0, x, y, z), s.component(u1, 1, x, y, z),
                             rule.dims == 3 ? s.component(u2, 2, x, y, z) : 0.0};
        double slip[3], v[3], fa[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < 3; ++d) {
          a.w(i, d) = w[d];
          if (setVelocity) a.v(i, d) = w[d];
          v[d] = a.v(i, d);
          slip[d] = w[d] - v[d];
        }
        if (added) {
          // The next step's Du/Dt starts from (w - v) . grad u here.
          double const p[3] = {x, y, z};
          convected(s, u0, u1, u2, rule.dims, p, w, v, fa);
          for (int d = 0; d < 3; ++d) a.acc(i, d) = fa[d];
        }
        // The fastest a step can move the particle: its velocity, or the target it relaxes to.
        double const tau = rule.tau(slip);
        for (int d = 0; d < rule.dims; ++d) {
          double const target = math::fabs(w[d] + tau * (rule.gravity[d] + rule.gamma * fa[d]));
          double const speed = math::fmax(math::fabs(a.v(i, d)), target) * s.invH[d];
          most = math::fmax(most, speed);
        }
      },
      Kokkos::Max<double>(rate));
  double global = 0.0;
  checkMpi(MPI_Allreduce(&rate, &global, 1, MPI_DOUBLE, MPI_MAX, m_comm),
           "MPI_Allreduce(particle rate)");
  m_particleRate = std::fmax(global, 0.0);
}

double Cloud::maxDt(double rate) const {
  // Tracers: a stage moves a tracer at most 1.125 dt max|u_a| along a, and the stencil reaches
  // 1.5 cells beyond the block with two ghost layers. Inertial particles: one cell a step, so
  // the predicted position stays within reach too.
  double const limit = m_params.kind == Kind::Tracer ? rate : m_particleRate;
  double const reach = m_params.kind == Kind::Tracer ? 4.0 / 3.0 : 1.0;
  return limit > 0 ? reach / limit : std::numeric_limits<double>::infinity();
}

Cloud::Velocities Cloud::velocityRows(ExecSpace const& space, FaceVelocity const& u) const {
  auto const a = m_set.arrays();
  MacStencil const s = m_stencil;
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  int const n = m_set.size();
  bool const inertial = m_params.kind == Kind::Inertial;
  Velocities v(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "eddy::particles::velocities"), n);
  Kokkos::parallel_for(
      "eddy::particles::sampleVelocity", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int i) {
        if (inertial) {
          for (int d = 0; d < 3; ++d) v(i, d) = a.v(i, d);
          return;
        }
        double const x = a.x(i, 0), y = a.x(i, 1), z = a.x(i, 2);
        v(i, 0) = s.component(u0, 0, x, y, z);
        v(i, 1) = s.component(u1, 1, x, y, z);
        v(i, 2) = s.dims == 3 ? s.component(u2, 2, x, y, z) : 0.0;
      });
  return v;
}

std::vector<double> Cloud::velocities(ExecSpace const& space, FaceVelocity const& u) const {
  Velocities const v = velocityRows(space, u);
  int const n = m_set.size();
  std::vector<double> out(3 * static_cast<std::size_t>(n));
  Kokkos::View<double* [3], Kokkos::LayoutRight, Kokkos::HostSpace,
               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      host(out.data(), n);
  Kokkos::deep_copy(space, host, v);
  space.fence();
  return out;
}

CloudDiagnostics Cloud::diagnostics(ExecSpace const& space, FaceVelocity const& u) const {
  ScopedRegion region("eddy::particles::diagnostics");
  auto const a = m_set.arrays();
  int const n = m_set.size();
  Velocities const v = velocityRows(space, u);
  CloudDiagnostics d;
  d.count = m_count;
  double const perParticle = m_count > 0 ? 1.0 / static_cast<double>(m_count) : 0.0;
  auto const speed = KOKKOS_LAMBDA(const std::int64_t i) {
    return math::sqrt(v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2));
  };
  d.meanSpeed = reproducibleSum(space, m_comm, n, speed) * perParticle;
  d.maxSpeed = m_count > 0 ? globalMax(space, m_comm, n, speed) : 0.0;
  d.meanSquare =
      perParticle * reproducibleSum(
                        space, m_comm, n, KOKKOS_LAMBDA(const std::int64_t i) {
                          return v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2);
                        });
  for (int c = 0; c < 3; ++c)
    d.meanVelocity[c] = perParticle * reproducibleSum(
                                          space, m_comm, n,
                                          KOKKOS_LAMBDA(const std::int64_t i) { return v(i, c); });
  double const L[3] = {m_length[0], m_length[1], m_length[2]};
  d.checksum = reproducibleSum(
      space, m_comm, n, KOKKOS_LAMBDA(const std::int64_t i) {
        double sum = 0.0;
        for (int c = 0; c < 3; ++c)
          sum += (c + 1) * (a.x(i, c) + static_cast<double>(a.image(i, c)) * L[c]);
        return static_cast<double>(a.id(i) + 1) * sum;
      });
  return d;
}

fluids::FaceImpulse Cloud::impulse() const {
  return m_exchange ? m_exchange->impulse() : fluids::FaceImpulse{};
}

void Cloud::exchangeMomentum(ExecSpace const& space) {
  EDDY_REQUIRE(m_exchange, "Cloud::exchangeMomentum: the particles are not coupled two-way");
  m_exchange->deposit(space, m_set.arrays().x, m_set.arrays().j, m_set.size(), m_count);
}

CloudRows Cloud::rows(ExecSpace const& space) const {
  // Whole arrays: the first n rows of a GPU's column-major (capacity, 3) array are not
  // contiguous, and a copy between memory spaces needs contiguous views.
  auto const& a = m_set.arrays();
  int const n = m_set.size();
  auto x = Kokkos::create_mirror_view(a.x);
  auto image = Kokkos::create_mirror_view(a.image);
  auto id = Kokkos::create_mirror_view(a.id);
  auto v = Kokkos::create_mirror_view(a.v);
  auto j = Kokkos::create_mirror_view(a.j);
  auto omega = Kokkos::create_mirror_view(a.omega);
  Kokkos::deep_copy(space, x, a.x);
  Kokkos::deep_copy(space, image, a.image);
  Kokkos::deep_copy(space, id, a.id);
  Kokkos::deep_copy(space, v, a.v);
  Kokkos::deep_copy(space, j, a.j);
  Kokkos::deep_copy(space, omega, a.omega);
  space.fence();
  CloudRows r;
  bool const inertial = m_params.kind == Kind::Inertial;
  bool const twoWay = m_params.twoWay;
  bool const collide = m_contacts != nullptr;
  if (inertial) r.v.resize(3 * static_cast<std::size_t>(n));
  if (twoWay) r.j.resize(3 * static_cast<std::size_t>(n));
  if (collide) r.omega.resize(3 * static_cast<std::size_t>(n));
  r.x.resize(3 * static_cast<std::size_t>(n));
  r.image.resize(3 * static_cast<std::size_t>(n));
  r.id.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) {
      r.x[3 * i + d] = x(i, d);
      r.image[3 * i + d] = image(i, d);
      if (inertial) r.v[3 * i + d] = v(i, d);
      if (twoWay) r.j[3 * i + d] = j(i, d);
      if (collide) r.omega[3 * i + d] = omega(i, d);
    }
    r.id[i] = id(i);
  }
  return r;
}

void Cloud::load(ExecSpace const& space, CloudRows const& rows) {
  int const n = static_cast<int>(rows.count());
  m_set.resize(space, 0);
  m_set.resize(space, n);
  auto const& a = m_set.arrays();
  auto x = Kokkos::create_mirror_view(a.x);
  auto image = Kokkos::create_mirror_view(a.image);
  auto id = Kokkos::create_mirror_view(a.id);
  auto v = Kokkos::create_mirror_view(a.v);
  auto j = Kokkos::create_mirror_view(a.j);
  auto omega = Kokkos::create_mirror_view(a.omega);
  bool const inertial = m_params.kind == Kind::Inertial;
  bool const twoWay = m_params.twoWay;
  // Angular velocities start at 0 where the rows give none (a start from a file).
  bool const spins = m_contacts && !rows.omega.empty();
  EDDY_REQUIRE(!inertial || rows.v.size() == rows.x.size(),
               "Cloud::restoreState: ", rows.v.size() / 3, " velocities for ", rows.count(),
               " inertial particles");
  EDDY_REQUIRE(!twoWay || rows.j.size() == rows.x.size(),
               "Cloud::restoreState: ", rows.j.size() / 3, " drag impulses for ", rows.count(),
               " particles");
  EDDY_REQUIRE(!spins || rows.omega.size() == rows.x.size(),
               "Cloud::restoreState: ", rows.omega.size() / 3, " angular velocities for ",
               rows.count(), " particles");
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) {
      x(i, d) = rows.x[3 * i + d];
      image(i, d) = rows.image[3 * i + d];
      if (inertial) v(i, d) = rows.v[3 * i + d];
      if (twoWay) j(i, d) = rows.j[3 * i + d];
      if (m_contacts) omega(i, d) = spins ? rows.omega[3 * i + d] : 0.0;
    }
    id(i) = rows.id[i];
  }
  Kokkos::deep_copy(space, a.x, x);
  Kokkos::deep_copy(space, a.image, image);
  Kokkos::deep_copy(space, a.id, id);
  Kokkos::deep_copy(space, a.v, v);
  Kokkos::deep_copy(space, a.j, j);
  Kokkos::deep_copy(space, a.omega, omega);
  space.fence();  // the host copies die here
}

void Cloud::restoreState(ExecSpace const& space, CloudRows const& rows, long long step, double time,
                         double lastDt, long long count, long long injected) {
  EDDY_REQUIRE(count >= 0 && count <= m_seeded + injected && injected >= 0,
               "Cloud::restoreState: ", count, " particles of ", m_seeded, " seeded and ", injected,
               " injected");
  m_count = count;
  m_injected = injected;
  load(space, rows);
  if (m_tuning.sortEvery > 0) sortByBin(space);
  space.fence();
  long long const mine = rows.count();
  long long total = 0;
  checkMpi(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, m_comm),
           "MPI_Allreduce(restored particles)");
  if (total != m_count)
    throw Error(str("particles: the ranks restored ", total, " of ", m_count, " particles"),
                ExitCode::Failure, true);
  m_step = step;
  m_time = time;
  m_lastDt = lastDt;
}

std::size_t Cloud::bytes() const {
  return static_cast<std::size_t>(m_set.capacity() + m_scratch.capacity()) *
             m_set.bytesPerParticle() +
         (m_tuning.sortEvery > 0 ? 32 * static_cast<std::size_t>(m_set.capacity()) : 0) +
         (m_exchange ? m_exchange->bytes() : 0);
}

}  // namespace eddy::particles
