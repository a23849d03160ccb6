// The particles' adapter: the deck section (tracers or inertial spheres, where they are seeded),
// the deck read into particles::Parameters, and the particles as `eddy run` drives them.
// Tracers advance inside the flow's RK stages (fluids::StageCoupling), inertial particles after
// the flow's step; this model's step closes the step (inertial step, walls, migration).
#include "../DeckChoice.hpp"
#include "../Format.hpp"
#include "../Model.hpp"
#include "CarryingFlow.hpp"

#include "eddy/core/Log.hpp"
#include "eddy/io/ParticleFile.hpp"
#include "particles/Cloud.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace eddy::app {

namespace {

using io::Key;

constexpr Choice<particles::Kind> kKind[] = {{"tracer", particles::Kind::Tracer},
                                             {"inertial", particles::Kind::Inertial}};
constexpr Choice<particles::Drag> kDrag[] = {{"schiller_naumann", particles::Drag::SchillerNaumann},
                                             {"stokes", particles::Drag::Stokes}};
/// Where inertial particles' velocities start.
enum class StartVelocity { Fluid, Rest, File };
constexpr Choice<StartVelocity> kInitialVelocity[] = {
    {"fluid", StartVelocity::Fluid}, {"rest", StartVelocity::Rest}, {"file", StartVelocity::File}};
constexpr Choice<bool> kCoupling[] = {{"one_way", false}, {"two_way", true}};
constexpr Choice<particles::Interpolation> kInterpolation[] = {
    {"linear", particles::Interpolation::Linear}, {"m4", particles::Interpolation::M4}};
/// The keys of inertial particles only.
/// (particles.coupling: two_way is refused for tracers by particles::violations.)
constexpr char const* kInertialKeys[] = {
    "diameter", "density", "drag", "gravity", "wall_restitution", "initial_velocity", "added_mass"};

/// Whether the deck sets inertial key `key` to something other than its default (a resolved
/// deck writes every default; those set nothing).
bool setsInertialKey(io::Deck const& deck, std::string const& key) {
  std::string const path = "particles." + key;
  if (!deck.given(path)) return false;
  if (key == "drag") return deck.getString(path) != "schiller_naumann";
  if (key == "initial_velocity") return deck.getString(path) != "fluid";
  if (key == "wall_restitution") return deck.getDouble(path) != 1.0;
  if (key == "added_mass") return deck.getDouble(path) != 0.0;
  if (key == "gravity") {
    for (double g : deck.getDoubleList(path))
      if (g != 0.0) return true;
    return false;
  }
  return true;  // diameter, density: no default
}
constexpr char const* kFaceNames[] = {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"};
constexpr Choice<particles::Seeding> kSeeding[] = {{"random", particles::Seeding::Random},
                                                   {"lattice", particles::Seeding::Lattice},
                                                   {"file", particles::Seeding::Given}};

Key section() {
  return Key::section("particles",
                      "Point particles carried by the fluids flow (which the deck must have), "
                      "advanced in its RK3 stages; written with the grid fields in each snapshot.")
      .optional()
      .add(Key::choice("kind", choiceNames(kKind),
                       "tracer: massless, moving with the flow's velocity interpolated to it "
                       "(see interpolation); inertial: solid spheres of `diameter` and "
                       "`density` under drag, gravity and buoyancy.")
               .defaultValue("tracer"))
      .add(Key::choice("interpolation", choiceNames(kInterpolation),
                       "How the flow's velocity is interpolated to the particles, per staggered "
                       "component: linear (trilinear, bilinear in 2D: second order, 2 faces per "
                       "axis) or m4 (Monaghan's M4' kernel: third order, continuously "
                       "differentiable, exact for quadratic fields; 4 faces per axis, so 8 times "
                       "the reads in 3D, and a third ghost layer of velocity). m4 keeps tracers "
                       "at their integrator's order; two-way coupling needs linear.")
               .defaultValue("linear"))
      .add(Key::real("diameter", "inertial: the spheres' diameter d (below the cell size).")
               .greaterThan(0)
               .unit("L"))
      .add(Key::real("density", "inertial: the spheres' density rho_p.")
               .greaterThan(0)
               .unit("M/L^3"))
      .add(Key::choice("drag", choiceNames(kDrag),
                       "inertial: schiller_naumann (f = 1 + 0.15 Re_p^0.687, for particle "
                       "Reynolds numbers up to about 800) or stokes (f = 1).")
               .defaultValue("schiller_naumann"))
      .add(
          Key::realList("gravity", "inertial: gravity g; the particles feel (1 - rho_f / rho_p) g.")
              .lengths({2, 3})
              .sameLengthAs("grid.cells")
              .defaultEach(0.0)
              .unit("L/T^2"))
      .add(Key::real("wall_restitution",
                     "inertial: the normal speed after a wall contact over the speed before.")
               .atLeast(0)
               .atMost(1)
               .defaultValue(1.0))
      .add(Key::real("added_mass",
                     "inertial: the added-mass coefficient C_m (0.5 for a sphere); above 0 the "
                     "sphere also feels the fluid's acceleration Du/Dt (the added mass's and the "
                     "undisturbed flow's pressure gradient, Maxey-Riley): "
                     "(1 + C_m beta) dv/dt = (u - v) / tau + (1 - beta) g + (1 + C_m) beta Du/Dt, "
                     "beta = rho_f / rho_p. It matters where the fluid is not much lighter than "
                     "the spheres (bubbles, sediment in water). Not with collisions.")
               .atLeast(0)
               .defaultValue(0.0))
      .add(Key::choice("initial_velocity", choiceNames(kInitialVelocity),
                       "inertial: the velocity at the start: the fluid's there, rest, or the "
                       "particle file's (seeding: file).")
               .defaultValue("fluid"))
      .add(Key::choice("coupling", choiceNames(kCoupling),
                       "inertial: one_way (the flow carries the particles) or two_way (their "
                       "drag acts on the fluid too: each step's drag impulse goes to the faces "
                       "around each particle, with the interpolation's weights, before the "
                       "flow's next step; momentum is exchanged exactly, and the sums are the "
                       "same on any rank count).")
               .defaultValue("one_way"))
      .add(Key::section("collisions",
                        "inertial: the spheres collide with each other and with the walls as "
                        "soft spheres: a linear spring-dashpot normal force with Coulomb "
                        "friction (LAMMPS' gran/hooke without shear history), integrated in "
                        "substeps of the flow's step by the spheres that can touch something "
                        "in it, in one step by the others (docs/particles.md).")
               .optional()
               .add(Key::real("stiffness",
                              "The spring constant k_n. A stiffer spring means smaller overlaps "
                              "and shorter contacts (more substeps): a sphere resting under its "
                              "weight overlaps a wall by m g / k_n.")
                        .greaterThan(0)
                        .unit("M/T^2")
                        .required())
               .add(Key::real("restitution",
                              "The rebound speed of two spheres over their approach speed (the "
                              "dashpot follows from it; walls have wall_restitution).")
                        .atLeast(0)
                        .atMost(1)
                        .defaultValue(0.9))
               .add(Key::real("friction",
                              "The Coulomb coefficient mu: the tangential force is at most mu "
                              "times the normal force (0: frictionless, no rotation).")
                        .atLeast(0)
                        .defaultValue(0.0))
               .add(Key::integer("steps_per_contact",
                                 "Substeps per contact time t_c (the spheres that can touch "
                                 "something split the flow's step into as many as that needs).")
                        .atLeast(1)
                        .atMost(10000)
                        .defaultValue(50)))
      .add(Key::choice("seeding", choiceNames(kSeeding),
                       "Initial positions in the region: random (`count` uniform positions, the "
                       "same on any rank count), lattice (the centres of a lattice of "
                       "`lattice` cells) or file (the particles of `file`).")
               .defaultValue("random"))
      .add(Key::string("file",
                       "seeding: file: the particles to start from (read from the working "
                       "directory): a CSV file with a header naming its columns (x, y, z; "
                       "optionally u, v, w and id), an extended XYZ file (.xyz or .extxyz: its "
                       "last frame's pos, velo and id) or an H5MD trajectory (its last frame). "
                       "Every position must lie in the domain."))
      .add(Key::integer("count", "seeding: random: how many particles.").atLeast(1))
      .add(Key::intList("lattice", "seeding: lattice: points per axis.")
               .lengths({2, 3})
               .sameLengthAs("grid.cells"))
      .add(Key::integer("seed", "Seed of the random positions.").atLeast(0).defaultValue(1))
      .add(Key::section("injection",
                        "Particles entering through an inflow face at a steady rate, at random "
                        "places over the face (the same on any rank count), with the fluid's "
                        "velocity there (inertial: or at rest, as initial_velocity says).")
               .optional()
               .add(Key::choice("face", {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"},
                                "The face (its fluids.boundary must be inflow)."))
               .add(Key::real("rate", "Particles entering per unit time.")
                        .greaterThan(0)
                        .unit("1/T")))
      .add(Key::section("region",
                        "The box seeded, [low, high) per axis; the whole domain by "
                        "default.")
               .add(Key::realList("low", "Low corner.")
                        .lengths({2, 3})
                        .sameLengthAs("grid.cells")
                        .defaultEach(0.0)
                        .unit("L"))
               .add(Key::realList("high", "High corner; the domain's far corner if not given.")
                        .lengths({2, 3})
                        .sameLengthAs("grid.cells")
                        .unit("L")));
}

std::array<double, 3> domainLength(io::Deck const& deck) {
  std::array<double, 3> l{1, 1, 1};
  auto const list = deck.getDoubleList("grid.length");
  for (std::size_t a = 0; a < list.size() && a < 3; ++a) l[a] = list[a];
  return l;
}

particles::Parameters parameters(io::Deck const& deck) {
  particles::Parameters p;
  int const dims = static_cast<int>(deck.getIntList("grid.cells").size());
  p.kind = choiceValue(kKind, deck.getString("particles.kind"));
  auto& in = p.inertia;
  if (deck.has("particles.diameter")) in.diameter = deck.getDouble("particles.diameter");
  if (deck.has("particles.density")) in.density = deck.getDouble("particles.density");
  if (deck.has("fluids")) {
    in.fluidDensity = deck.getDouble("fluids.density");
    in.viscosity = deck.getDouble("fluids.viscosity");
  }
  in.drag = choiceValue(kDrag, deck.getString("particles.drag"));
  auto const g = deck.getDoubleList("particles.gravity");
  for (std::size_t a = 0; a < g.size() && a < 3; ++a) in.gravity[a] = g[a];
  in.wallRestitution = deck.getDouble("particles.wall_restitution");
  in.addedMass = deck.getDouble("particles.added_mass");
  auto const start = choiceValue(kInitialVelocity, deck.getString("particles.initial_velocity"));
  in.startAtRest = start == StartVelocity::Rest;
  in.startGiven = start == StartVelocity::File;
  p.twoWay = choiceValue(kCoupling, deck.getString("particles.coupling"));
  p.interpolation = choiceValue(kInterpolation, deck.getString("particles.interpolation"));
  if (deck.has("particles.collisions")) {
    auto& c = p.collisions;
    c.enabled = true;
    if (deck.has("particles.collisions.stiffness"))
      c.stiffness = deck.getDouble("particles.collisions.stiffness");
    c.restitution = deck.getDouble("particles.collisions.restitution");
    c.friction = deck.getDouble("particles.collisions.friction");
    c.stepsPerContact = static_cast<int>(deck.getInt("particles.collisions.steps_per_contact"));
  }
  // Particles leave through the flow's inflows and outflows.
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side) {
      std::string const key = "fluids.boundary." + fluids::FlowBoundaries::faceName(a, side);
      if (!deck.has(key)) continue;
      std::string const kind = deck.getString(key);
      p.open[2 * a + side] = kind == "inflow" || kind == "outflow";
    }
  if (deck.has("particles.injection")) {
    std::string const face = deck.getString("particles.injection.face");
    for (int f = 0; f < 6; ++f)
      if (face == kFaceNames[f]) p.injection.face = f;
    p.injection.rate = deck.getDouble("particles.injection.rate");
  }
  p.seeding = choiceValue(kSeeding, deck.getString("particles.seeding"));
  if (p.seeding == particles::Seeding::Given && deck.has("particles.file")) {
    // Read here, so that `eddy validate` checks the file as the run reads it.
    io::ParticleFile const f = io::readParticleFile(deck.getString("particles.file"), dims);
    for (auto const& x : f.position)
      p.given.position.insert(p.given.position.end(), x.begin(), x.end());
    for (auto const& v : f.velocity)
      p.given.velocity.insert(p.given.velocity.end(), v.begin(), v.end());
    p.given.id = f.id;
  }
  if (deck.has("particles.count")) p.count = deck.getInt("particles.count");
  if (deck.has("particles.lattice")) {
    auto const n = deck.getIntList("particles.lattice");
    for (std::size_t a = 0; a < n.size() && a < 3; ++a) p.lattice[a] = n[a];
  }
  p.seed = static_cast<std::uint64_t>(deck.getInt("particles.seed"));
  auto const length = domainLength(deck);
  auto const low = deck.getDoubleList("particles.region.low");
  for (int a = 0; a < 3; ++a) {
    p.low[a] = a < dims && a < static_cast<int>(low.size()) ? low[a] : 0.0;
    p.high[a] = length[a];
  }
  if (deck.has("particles.region.high")) {
    auto const high = deck.getDoubleList("particles.region.high");
    for (std::size_t a = 0; a < high.size() && a < 3; ++a) p.high[a] = high[a];
  }
  return p;
}

void check(io::Deck const& deck, io::DeckErrors& errors) {
  if (!deck.has("fluids")) {
    errors.add(deck, "particles", "particles are carried by a flow, and the deck has none",
               "expected a fluids section");
    return;
  }
  // Each seeding has its own key (count, lattice, file) and refuses the others'.
  std::string const seeding = deck.getString("particles.seeding");
  struct Way {
    char const* seeding;
    char const* key;
    char const* missing;
  };
  constexpr Way kWays[] = {
      {"random", "count", "seeds at random but gives no count"},
      {"lattice", "lattice", "seeds a lattice but gives no lattice"},
      {"file", "file", "seeds from a file but names none"},
  };
  bool complete = true;
  for (Way const& w : kWays) {
    std::string const path = str("particles.", w.key);
    if (seeding == w.seeding && !deck.has(path)) {
      errors.add(deck, "particles", w.missing, str("expected ", path));
      complete = false;
    }
    if (seeding != w.seeding && deck.given(path))
      errors.add(deck, path, str("is given, but particles.seeding is '", seeding, "'"),
                 str("expected seeding: ", w.seeding, " (or remove ", w.key, ")"));
  }
  if (seeding == "file") {
    // A resolved deck writes the defaults (seed 1, region.low 0): those place nothing.
    auto const low = deck.getDoubleList("particles.region.low");
    bool const lowSet = std::any_of(low.begin(), low.end(), [](double x) { return x != 0.0; });
    bool const placed[] = {deck.given("particles.region.low") && lowSet,
                           deck.given("particles.region.high"),
                           deck.given("particles.seed") && deck.getInt("particles.seed") != 1};
    char const* const keys[] = {"particles.region.low", "particles.region.high", "particles.seed"};
    for (int k = 0; k < 3; ++k)
      if (placed[k])
        errors.add(deck, keys[k], "is given, but the particles come from particles.file",
                   "expected seeding: random or lattice (or remove it)");
  }
  int const dims = static_cast<int>(deck.getIntList("grid.cells").size());
  // The keys of inertial spheres mean nothing to tracers; spheres need both of their sizes.
  bool const inertial = deck.getString("particles.kind") == "inertial";
  for (char const* key : kInertialKeys) {
    std::string const path = str("particles.", key);
    if (!inertial && setsInertialKey(deck, key))
      errors.add(deck, path, "is given, but particles.kind is 'tracer'",
                 "expected kind: inertial (or remove it)");
  }
  if (inertial && !deck.has("particles.diameter"))
    errors.add(deck, "particles", "inertial particles without a diameter",
               "expected particles.diameter");
  if (inertial && !deck.has("particles.density"))
    errors.add(deck, "particles", "inertial particles without a density",
               "expected particles.density");
  if (deck.has("particles.injection")) {
    std::string const face = deck.getString("particles.injection.face");
    std::string const key = "fluids.boundary." + face;
    bool const axisExists = (face[0] - 'x') < dims;
    if (!axisExists || !deck.has(key) || deck.getString(key) != "inflow")
      errors.add(
          deck, "particles.injection.face",
          str("is ", face, ", ",
              axisExists ? str("whose boundary is '", deck.has(key) ? deck.getString(key) : "", "'")
                         : str("not a face of a ", dims, "D grid")),
          "expected an inflow face (fluids.boundary." + face + ": inflow)");
  }
  if (!complete || (inertial && !(deck.has("particles.diameter") && deck.has("particles.density"))))
    return;
  auto const length = domainLength(deck);
  auto const cells = deck.getIntList("grid.cells");
  std::array<double, 3> h{1, 1, 1};
  for (int a = 0; a < dims && a < static_cast<int>(cells.size()); ++a)
    h[a] = cells[a] > 0 ? length[a] / static_cast<double>(cells[a]) : length[a];
  particles::Parameters p;
  try {
    p = parameters(deck);
  } catch (IoError const& e) {
    // The reader's message ends in what it expected, when it says.
    std::string const what = e.what();
    auto const cut = what.rfind("; expected ");
    errors.add(deck, "particles.file", what.substr(0, cut),
               cut == std::string::npos ? "expected a readable CSV, extended XYZ or H5MD file"
                                        : what.substr(cut + 2));
    return;
  }
  for (auto const& v : particles::violations(p, dims, length, h))
    errors.add(deck, v.key == "kind" ? "fluids.viscosity" : "particles." + v.key, v.what,
               v.expected);
}

std::vector<FieldInfo> fields(io::Deck const&) {
  return {};
}

double bytesPerCell(io::Deck const& deck) {
  if (!deck.has("fluids")) return 0.0;
  double cells = 1;
  for (auto n : deck.getIntList("grid.cells")) cells *= static_cast<double>(n);
  particles::Parameters const p = parameters(deck);
  int const dims = static_cast<int>(deck.getIntList("grid.cells").size());
  // 68 bytes per tracer, 92 per inertial particle (116 two-way), 152 more with collisions, 24
  // with added mass, and 25% headroom; two-way coupling's face sums, 8 bytes a component.
  double const bytes =
      (p.kind == particles::Kind::Inertial ? (p.twoWay ? 116.0 : 92.0) : 68.0) +
      (p.collisions.enabled ? 152.0 : 0.0) +
      (p.kind == particles::Kind::Inertial && p.inertia.addedMass > 0 ? 24.0 : 0.0);
  return 1.25 * bytes * static_cast<double>(particles::seededCount(p, dims)) / cells +
         (p.twoWay ? 8.0 * dims : 0.0);
}

class ParticlesModel final : public Model, public fluids::StageCoupling {
 public:
  explicit ParticlesModel(ModelContext const& c)
      : m_decomp(c.decomp),
        m_length(c.length),
        m_params(parameters(c.deck)),
        m_file(c.deck.has("particles.file") ? c.deck.getString("particles.file") : ""),
        m_bodies(c.deck.has("fluids") ? c.deck.names("fluids.bodies").size() : 0),
        // The flow keeps the ghost layers the interpolation needs (FluidsModel).
        m_cloud(ExecSpace(), c.rt.comm(), c.decomp, c.length,
                particles::velocityGhosts(m_params.interpolation), m_params) {}

  /// The interpolation's name in the start lines.
  std::string interpolationText() const {
    if (m_params.interpolation == particles::Interpolation::M4) return "M4'";
    return m_decomp.dims() == 3 ? "trilinear" : "bilinear";
  }

  std::vector<std::string> startLines() const override {
    int const dims = m_decomp.dims();
    auto const& p = m_params;
    std::string region;
    for (int a = 0; a < dims; ++a)
      region += str(a ? " x " : "", "[", p.low[a], ", ", p.high[a], ")");
    std::string how =
        p.seeding == particles::Seeding::Random
            ? str("random (seed ", p.seed, ")")
            : str("lattice ",
                  listText(std::vector<long long>(p.lattice.begin(), p.lattice.begin() + dims)));
    if (p.seeding == particles::Seeding::Given) {
      how = str("from ", m_file);
      region = "the domain";
    }
    std::vector<std::string> lines;
    if (inertial()) {
      auto const& in = p.inertia;
      lines.push_back(
          str("particles: ", m_cloud.count(), " inertial spheres, ", how, " in ", region, "; d ",
              in.diameter, " [L], rho_p ", in.density, " [M/L^3], drag ", toString(in.drag),
              ", gravity ",
              listText(std::vector<double>(in.gravity.begin(), in.gravity.begin() + dims)),
              " [L/T^2], wall restitution ", in.wallRestitution,
              in.addedMass > 0
                  ? str(", added mass C_m ", in.addedMass, " with the fluid's acceleration")
                  : std::string()));
      lines.push_back(str("particles: response time tau_p ", in.responseTime(),
                          " [T], Stokes settling velocity ", in.stokesSettling(),
                          " [L/T]; exponential integrator (ETD2) after the flow's step; ",
                          interpolationText(), " interpolation of the face velocity"));
      lines.push_back(p.twoWay ? str("particles: two-way coupling: each step's drag impulse goes "
                                     "to the faces around the particle before the flow's next "
                                     "step (mass loading ",
                                     massLoading(), ")")
                               : std::string("particles: one-way coupling: the fluid does not "
                                             "feel the particles"));
      if (p.collisions.enabled) {
        auto const& c = p.collisions;
        double const tc = particles::contactTime(in.mass(), c);
        double g = 0.0;
        for (double x : in.gravity) g += x * x;
        double const weight = in.mass() * (1.0 - in.fluidDensity / in.density) * std::sqrt(g);
        lines.push_back(str("particles: collisions: soft spheres, stiffness ", c.stiffness,
                            " [M/T^2], restitution ", c.restitution, " (walls ", in.wallRestitution,
                            "), friction ", c.friction, "; contact time ", tc, " [T], ",
                            c.stepsPerContact, " substeps per contact; the walls",
                            m_bodies > 0 ? str(" and ", m_bodies, " bodies") : std::string(),
                            " are contacts too"));
        if (weight > 0)
          lines.push_back(str("particles: a sphere resting on a wall overlaps it by ",
                              weight / c.stiffness / in.diameter,
                              " diameters (its weight over the stiffness)"));
      }
    } else {
      lines.push_back(str("particles: ", m_cloud.count(), " tracers, ", how, " in ", region, "; ",
                          interpolationText(),
                          " interpolation of the face velocity, advanced in the flow's RK3 "
                          "stages"));
    }
    if (p.injection.face >= 0)
      lines.push_back(str("particles: ", p.injection.rate, " [1/T] entering through ",
                          kFaceNames[p.injection.face], " (inflow), at random places over it"));
    lines.push_back(
        str("particles: ", static_cast<double>(m_cloud.bytes()) / std::max(1, m_cloud.local()),
            " bytes per particle on rank 0 (", m_cloud.local(), " held)"));
    return lines;
  }

  void couple(ModelSet& models) override {
    auto* carrier = models.find<CarryingFlow>();
    if (!carrier)
      throw ConfigError("particles: no flow to carry them; the deck needs a fluids section");
    m_flow = &carrier->flow();
    int const ghosts = particles::velocityGhosts(m_params.interpolation);
    EDDY_REQUIRE(m_flow->velocityGhosts() >= ghosts, "particles: the flow keeps ",
                 m_flow->velocityGhosts(), " ghost layers of velocity; expected ", ghosts);
    if (!inertial() || m_params.twoWay) m_flow->couple(*this);
    if (m_params.collisions.enabled && m_flow->bodies())
      m_cloud.collideWithBodies(m_flow->bodies()->bodies());
  }
  void begin(ExecSpace const& space, long long restartStep) override {
    // A restart sampled the restored flow in restore().
    if (restartStep < 0)
      m_cloud.sample(space, velocity(),
                     !m_params.inertia.startAtRest && !m_params.inertia.startGiven);
    if (restartStep < 0 && m_params.collisions.enabled) {
      auto const [pairs, deepest] = m_cloud.overlaps(space);
      if (pairs > 0)
        log::warn(str("particles: ", pairs,
                      " pairs of spheres overlap at the start, the deepest by ",
                      deepest / m_params.inertia.diameter,
                      " d; their springs push them apart, fast where the overlap is deep (random "
                      "places do not avoid each other: seed a lattice or a file for a dense "
                      "start)"));
    }
  }

  // fluids::StageCoupling: tracers advance in the stages; two-way coupled particles hand the
  // flow their last step's drag impulse.
  void advance(ExecSpace const& space, std::array<GhostedView<MemSpace>, 3> const& u,
               fluids::RkStage const& stage) override {
    m_cloud.stage(space, u, stage);
  }
  fluids::FaceImpulse impulse() const override { return m_cloud.impulse(); }

  double maxDt(ExecSpace const& space) override {
    double const dt = m_cloud.maxDt(m_flow->currentRate(space));
    return std::isfinite(dt) ? dt : std::numeric_limits<double>::max();
  }
  void step(ExecSpace const& space, double dt, long long, bool) override {
    // Tracers: the stages ran inside the flow's step, which comes first in the registry.
    // Inertial particles step here, with the flow at both ends of the step.
    m_cloud.finishStep(space, dt, velocity());
  }
  long long stepCount() const override { return m_cloud.stepCount(); }
  double time() const override { return m_cloud.time(); }
  double lastDt() const override { return m_cloud.lastDt(); }
  std::pair<double, std::string> work() const override {
    return {static_cast<double>(m_cloud.count()), "particle-steps"};
  }

  std::string progress(ExecSpace const& space) override {
    auto const d = m_cloud.diagnostics(space, velocity());
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s %lld  mean speed %.6e  max %.6e",
                  inertial() ? "particles" : "tracers", d.count, d.meanSpeed, d.maxSpeed);
    std::string line = buf;
    if (inertial()) {
      std::snprintf(buf, sizeof buf, "  settling %.6e", settling(d));
      line += buf;
    }
    return line;
  }
  std::vector<Column> columns() const override {
    if (!inertial())
      return {{"count", "1"},       {"mean_speed", "L/T"},
              {"max_speed", "L/T"}, {"kinetic_energy", "L^2/T^2"},
              {"mean_u", "L/T"},    {"mean_v", "L/T"},
              {"mean_w", "L/T"}};
    return {{"count", "1"},          {"mean_speed", "L/T"},
            {"max_speed", "L/T"},    {"kinetic_energy", "M L^2/T^2"},
            {"momentum_x", "M L/T"}, {"momentum_y", "M L/T"},
            {"momentum_z", "M L/T"}, {"settling_velocity", "L/T"}};
  }
  std::vector<double> values(ExecSpace const& space) override {
    auto const d = m_cloud.diagnostics(space, velocity());
    double const n = static_cast<double>(d.count);
    if (!inertial())
      return {n,
              d.meanSpeed,
              d.maxSpeed,
              0.5 * d.meanSquare,
              d.meanVelocity[0],
              d.meanVelocity[1],
              d.meanVelocity[2]};
    double const m = m_params.inertia.mass();
    return {n,
            d.meanSpeed,
            d.maxSpeed,
            0.5 * m * n * d.meanSquare,
            m * n * d.meanVelocity[0],
            m * n * d.meanVelocity[1],
            m * n * d.meanVelocity[2],
            settling(d)};
  }

  void snapshot(ExecSpace const& space, std::vector<std::string> const&,
                io::SnapshotData& data) override {
    data.hasParticles = true;
    particles::CloudRows const r = m_cloud.rows(space);
    auto& out = data.particles;
    out.position = r.x;
    out.velocity = m_cloud.velocities(space, velocity());
    out.id = r.id;
    out.type.assign(r.count(), 0);
    out.positionUnits = "L";
    out.velocityUnits = "L/T";
    out.hasImages = true;
    out.image = r.image;
    out.hasBox = true;
    out.boxLow = {0, 0, 0};
    out.boxLength = m_length;
  }
  /// The state: every particle's position, image counts, id and (inertial) velocity; how many
  /// were seeded. The fluid velocity at an inertial particle is sampled again at a restart.
  void save(ExecSpace const& space, StateOut& out) override {
    out.integers("particles") = {m_cloud.seeded()};
    out.integers("injected") = {m_cloud.injected()};
    out.reals("last_dt") = {m_cloud.lastDt()};
    particles::CloudRows const r = m_cloud.rows(space);
    io::CheckpointParticles p;
    p.id = r.id;
    p.type.assign(r.count(), 0);
    // Image counts are small integers: exact in the float64 of a checkpoint column.
    p.columns = {{"position", 3, "L", r.x},
                 {"image", 3, "1", std::vector<double>(r.image.begin(), r.image.end())}};
    if (inertial()) p.columns.push_back({"velocity", 3, "L/T", r.v});
    if (m_params.twoWay) p.columns.push_back({"impulse", 3, "M L/T", r.j});
    if (m_params.collisions.enabled) p.columns.push_back({"angular_velocity", 3, "1/T", r.omega});
    out.particles(std::move(p));
  }
  void restore(ExecSpace const& space, StateIn const& in) override {
    auto const& file = in.file();
    in.requireSame("particle count", str(m_cloud.seeded()), str(in.integer("particles")));
    particles::CloudRows mine;
    long long const piece = 1 << 16;
    for (long long first = 0; first < file.particleCount(); first += piece) {
      io::CheckpointParticles const rows =
          file.readParticles(first, std::min(piece, file.particleCount() - first));
      auto column = [&](char const* name) {
        auto const* c = rows.column(name);
        if (!c || c->width != 3)
          throw IoError(str("restart file '", file.path(), "': particle array '", name,
                            "' (3 wide) expected for ", toString(m_params.kind), " particles"),
                        true);
        return c;
      };
      auto const *x = column("position"), *image = column("image");
      auto const* v = inertial() ? column("velocity") : nullptr;
      auto const* j = m_params.twoWay ? column("impulse") : nullptr;
      auto const* w = m_params.collisions.enabled ? column("angular_velocity") : nullptr;
      for (std::size_t i = 0; i < rows.count(); ++i) {
        double const* p = &x->values[3 * i];
        if (!m_cloud.owns(p)) continue;
        mine.x.insert(mine.x.end(), p, p + 3);
        for (int d = 0; d < 3; ++d)
          mine.image.push_back(static_cast<std::int32_t>(image->values[3 * i + d]));
        if (v) mine.v.insert(mine.v.end(), &v->values[3 * i], &v->values[3 * i] + 3);
        if (j) mine.j.insert(mine.j.end(), &j->values[3 * i], &j->values[3 * i] + 3);
        if (w) mine.omega.insert(mine.omega.end(), &w->values[3 * i], &w->values[3 * i] + 3);
        mine.id.push_back(rows.id[i]);
      }
    }
    m_cloud.restoreState(space, mine, file.step(), file.time(), in.real("last_dt"),
                         file.particleCount(),
                         in.hasInteger("injected") ? in.integer("injected") : 0);
    m_cloud.sample(space, velocity());
    if (m_params.twoWay) m_cloud.exchangeMomentum(space);
  }

  std::string finalLine(ExecSpace const& space, double, long long) override {
    auto const d = m_cloud.diagnostics(space, velocity());
    return str("t ", m_cloud.time(), " [T], ", d.count, inertial() ? " particles" : " tracers",
               ", mean speed ", d.meanSpeed, " [L/T]",
               inertial() ? str(", settling velocity ", settling(d), " [L/T]") : std::string(),
               ", checksum ", hexBits(d.checksum), " (", d.checksum, ")");
  }

 private:
  bool inertial() const { return m_params.kind == particles::Kind::Inertial; }
  /// The particles' mass over the fluid's in the domain.
  double massLoading() const {
    double volume = 1.0;
    for (int a = 0; a < m_decomp.dims(); ++a) volume *= m_length[a];
    return static_cast<double>(m_cloud.count()) * m_params.inertia.mass() /
           (m_params.inertia.fluidDensity * volume);
  }
  /// The mean velocity along gravity (0 without gravity).
  double settling(particles::CloudDiagnostics const& d) const {
    auto const& g = m_params.inertia.gravity;
    double const norm = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if (!(norm > 0)) return 0.0;
    return (d.meanVelocity[0] * g[0] + d.meanVelocity[1] * g[1] + d.meanVelocity[2] * g[2]) / norm;
  }
  /// The flow's velocity now (ghosts current between steps).
  particles::FaceVelocity velocity() const {
    particles::FaceVelocity u;
    int const dims = m_decomp.dims();
    for (int c = 0; c < 3; ++c) u[c] = m_flow->velocity(c < dims ? c : 0).access();
    return u;
  }

  CartDecomposition const& m_decomp;
  std::array<double, 3> m_length;
  particles::Parameters m_params;
  std::string m_file;  ///< particles.file (seeding: file)
  std::size_t m_bodies = 0;  ///< the flow's bodies
  particles::Cloud m_cloud;
  fluids::Model* m_flow = nullptr;
};

}  // namespace

ModelSpec particlesModel() {
  return modelSpec<ParticlesModel>("particles", section, check, fields, bytesPerCell);
}

}  // namespace eddy::app
