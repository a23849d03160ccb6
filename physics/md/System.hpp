/// @file System.hpp
/// @brief A Lennard-Jones system in a periodic box, decomposed over MPI ranks: initial state,
/// neighbour lists with automatic rebuilds, forces, velocity Verlet NVE with an optional
/// thermostat, and global diagnostics.
///
/// Box and decomposition: the box is `cells` cubic lattice cells of edge a = (4 / density)^(1/3)
/// per axis, 4 atoms per cell (N = 4 nx ny nz), or the box of a given configuration
/// (Parameters::start, md/Configuration.hpp) split into `cells` cells per axis. The ranks split
/// the cells with a CartDecomposition (periodic in x, y, z) and each rank owns the block of the
/// box over its cells. The system's frame is [0, L) per axis; origin() is where a configuration's
/// box began (0 for the lattice), added back to positions that leave the system. At every
/// neighbour-list rebuild the particles migrate to their owners, are optionally sorted by bin, the
/// ghosts within cutoff + skin are rebuilt, then the bins and the Verlet list; between rebuilds
/// only the ghost positions are refreshed. A rebuild happens when some particle moved more than
/// skin / 2 since the last one.
///
/// Random numbers (initial velocities, Langevin noise) are counter-based (md/CounterRandom.hpp)
/// and the initial drift removal and rescaling use the reproducible sum, so the initial state
/// is bitwise the same on any rank count and a run continues from (seed, step) alone.
///
/// Reproducible mode (`Parameters::reproducible`): the trajectory is bitwise the same on any
/// rank count. Forces come from the full list with every row in canonical order (bins of one
/// grid shared by the ranks, each bin ordered by global id: BinList::buildCanonical), so each
/// atom's force is the same sum in the same order wherever it lives; the half list
/// (scatter-add, ghost sums) is replaced by the full list. Every global quantity that
/// feeds back (the Berendsen factor) and the diagnostics are reproducible sums. The rest is
/// invariant already: integration and thermostats act per atom, the rebuild decision is a
/// global maximum, and a position crosses the periodic boundary (in migration, and as a ghost
/// image) as the one addition x +- L whichever rank sends it.
///
/// Periodic images: positions are wrapped into the box only when atoms migrate (at rebuilds;
/// between them an atom may lie up to skin / 2 outside its rank's box), and every wrap counts
/// the atom's image along its axis (Particles::images), carried with the atom to other ranks
/// and through checkpoints: x + image * L is the unwrapped position at any step.
///
/// Memory per atom (owned, roughly also per ghost): particles 144 B, bins 32 B, list 24 B + 4 B
/// per neighbour entry, exchange buffers ~8 B x row width per ghost.
#pragma once

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Log.hpp"
#include "eddy/core/ParticleGhosts.hpp"
#include "eddy/core/ParticleMigration.hpp"
#include "eddy/core/PortableMath.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Tuning.hpp"
#include "md/Barostat.hpp"
#include "md/Configuration.hpp"
#include "md/ForceTuning.hpp"
#include "md/Integrate.hpp"
#include "md/LennardJones.hpp"
#include "md/NoseHoover.hpp"
#include "md/Particles.hpp"
#include "neighbor/BinList.hpp"
#include "neighbor/ListTuning.hpp"
#include "neighbor/VerletList.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace eddy::md {

enum class Thermostat { None, Berendsen, Langevin, NoseHoover };

/// Box changes: with a barostat (Parameters::barostat) the box edges scale each step about the
/// frame's origin, and so do the rank blocks, the periodic shifts of migration and ghosts
/// (setBox), and the positions with them: no atom changes rank by the scaling. The list's
/// displacement test measures from the build positions scaled with the box, and the rebuilds
/// bin the box of the moment.

/// Parameters of deck section `md` (reduced LJ units).
struct Parameters {
  bool fcc = true;                    ///< fcc lattice, else random positions per lattice cell
  std::array<int, 3> cells{8, 8, 8};  ///< lattice cells per axis (grid.cells)
  double density = 0.8442;            ///< rho* (sets the lattice constant)
  double temperature = 1.44;          ///< initial T*
  double cutoff = 2.5;                ///< rc
  double skin = 0.3;                  ///< Verlet skin
  bool shift = false;                 ///< shift U so that U(rc) = 0
  double dt = 0.005;
  neighbor::ListKind list = neighbor::ListKind::Half;
  bool sortByBin = true;  ///< reorder owned particles by bin at rebuilds
  Thermostat thermostat = Thermostat::None;
  double thermostatTemperature = 1.44;
  double berendsenTau = 0.5;     ///< Berendsen coupling time
  double langevinDamping = 1.0;  ///< Langevin friction gamma
  int chainLength = 3;           ///< Nose-Hoover thermostats in the chain
  double noseHooverTau = 0.5;    ///< period of the Nose-Hoover chain's oscillation
  std::uint64_t seed = 12345;    ///< of the initial velocities, random lattice and Langevin noise
  std::array<int, 3> procGrid{0, 0, 0};  ///< ranks per axis; 0 = chosen (parallel.decomposition)
  /// Bitwise the same trajectory on any rank count (implies the full list; see System).
  bool reproducible = false;
  /// Refresh the ghost positions on a second execution-space instance while the forces of the
  /// rows with no ghost neighbour are computed (parallel.overlap). Full list: bitwise the same
  /// forces from the same list; half list: the scatter-adds come in another order (last bits).
  bool overlap = false;
  /// Atoms to start from instead of the lattice (null: the lattice). `cells` then counts the
  /// cells the ranks split its box into, `density` and `fcc` are not used, and velocities
  /// are the configuration's when it has them.
  std::shared_ptr<Configuration const> start;
  /// Atom types, and the Lennard-Jones parameters of each pair of them: types x types entries,
  /// row-major and symmetric, each cutoff at most `cutoff` (which sizes the neighbour lists).
  /// Empty: every atom is of one type, epsilon = sigma = 1, cut at `cutoff`.
  int types = 1;
  std::vector<PairParameters> pairs;
  /// Every pair closer than this (at most `cutoff`) stays in the neighbour lists whatever its own
  /// cutoff: the reach of g(r) (md.rdf.r_max). Pairs are otherwise listed within their own
  /// cutoff + skin.
  double listReach = 0.0;
  /// Force-shifted pairs: the force and the energy go to 0 at each cutoff (`shift` then says
  /// nothing).
  bool forceShift = false;
  /// The share of each type among the lattice's atoms (empty: all of type 0). Types go to the
  /// atoms by the golden-ratio sequence of their ids, evenly mixed and each type's count within
  /// a few atoms of its share.
  std::vector<double> fractions;
  /// Add the long-range corrections of every pair beyond its cutoff (a uniform fluid there) to
  /// the potential energy and the virial, hence the pressure; the forces do not change.
  bool tail = false;
  /// The mass of each type (empty: all 1, the mass unit).
  std::vector<double> masses;
  /// The isotropic MTK barostat holding `pressure` (with the Nose-Hoover chain thermostat,
  /// which it requires), the box's oscillation period `barostatTau` (MtkBarostat).
  bool barostat = false;
  double pressure = 0.0;
  double barostatTau = 5.0;
};

/// Global (all-rank) instantaneous quantities; every rank gets the same values.
struct Diagnostics {
  std::int64_t atoms = 0;
  double kinetic = 0.0;    ///< total kinetic energy
  double potential = 0.0;  ///< total potential energy
  double virial = 0.0;     ///< sum over pairs of r . F
  double temperature = 0.0;
  double pressure = 0.0;
  std::array<double, 3> momentum{0.0, 0.0, 0.0};
  /// The integrator's conserved quantity: total() plus the energy the thermostats took out of
  /// the atoms (Berendsen, Langevin) plus the Nose-Hoover chain's own (NoseHooverChain::energy)
  /// plus the barostat's (MtkBarostat::energy).
  double conserved = 0.0;
  double volume = 0.0;  ///< of the box
  double total() const { return kinetic + potential; }
};

/// Host copy of a rank's owned atoms (checkpoints, snapshots), 3 values per atom for the
/// vectors: 144 bytes per atom.
struct AtomState {
  std::vector<double> x, v, f;  ///< position, velocity, force
  std::vector<double> x0;       ///< position at the last neighbour-list build
  std::vector<std::int64_t> id;
  std::vector<std::int32_t> type;
  /// Periodic image counts (ix, iy, iz): x + image * L is the unwrapped position.
  std::vector<std::int32_t> image;
  /// Unwrapped positions the displacements are measured from (Particles::references).
  std::vector<double> reference;
  /// Velocities the velocity autocorrelation is measured from (Particles::velocityOrigins).
  std::vector<double> origin;
};

/// Edge of the cubic lattice cell at number density `density` (4 atoms a cell).
inline double latticeConstant(double density) {
  return std::cbrt(4.0 / density);
}

/// The box edges of the system `p` describes: its configuration's, or its lattice cells'.
inline std::array<double, 3> boxLength(Parameters const& p) {
  if (p.start) return p.start->length;
  double const a = latticeConstant(p.density);
  return {p.cells[0] * a, p.cells[1] * a, p.cells[2] * a};
}

/// Every reason a system cannot be built from `p` (its lattice cells `p.cells`, or its
/// configuration), each naming its deck key (empty: it can): the one check of the parameters,
/// thrown by System's constructor and reported by `eddy validate` at its place in the deck.
/// Whether each rank's block is wide enough depends on the rank count; ParticleGhosts checks
/// that when it is built.
inline std::vector<Violation> violations(Parameters const& p) {
  std::vector<Violation> out;
  if (p.start) {
    std::string const problem = configurationProblem(*p.start);
    if (!problem.empty())
      out.push_back({"md.data_file", problem, "expected a valid configuration"});
  } else if (!(p.density > 0)) {
    out.push_back({"md.density", str("got ", p.density), "expected > 0"});
  }
  if (!(p.cutoff > 0)) out.push_back({"md.cutoff", str("got ", p.cutoff), "expected > 0"});
  if (!(p.skin >= 0)) out.push_back({"md.skin", str("got ", p.skin), "expected >= 0"});
  int const most = kMaxTypes;
  if (p.types < 1 || p.types > most) {
    out.push_back(
        {"md.species", str("has ", p.types, " types"), str("expected 1 to ", most, " atom types")});
    return out;
  }
  if (!p.pairs.empty() && p.pairs.size() != static_cast<std::size_t>(p.types * p.types))
    out.push_back({"md.pairs", str("has ", p.pairs.size(), " entries for ", p.types, " types"),
                   str("expected ", p.types * p.types)});
  for (std::size_t k = 0; k < p.pairs.size() && out.empty(); ++k) {
    auto const& q = p.pairs[k];
    int const a = static_cast<int>(k) / p.types, b = static_cast<int>(k) % p.types;
    if (!(q.epsilon > 0) || !(q.sigma > 0) || !(q.cutoff > 0) || !(q.cutoff <= p.cutoff))
      out.push_back(
          {"md.pairs",
           str("types ", a, " and ", b, " have epsilon ", q.epsilon, ", sigma ", q.sigma,
               ", cutoff ", q.cutoff),
           str("expected epsilon > 0, sigma > 0 and 0 < cutoff <= md.cutoff = ", p.cutoff)});
  }
  if (!p.masses.empty()) {
    bool sane = p.masses.size() == static_cast<std::size_t>(p.types);
    for (double m : p.masses) sane = sane && m > 0 && std::isfinite(m);
    if (!sane)
      out.push_back({"md.species",
                     str("gives ", p.masses.size(), " masses for ", p.types, " types"),
                     "expected one mass > 0 per type"});
  }
  if (!p.fractions.empty()) {
    double sum = 0.0;
    bool sane = p.fractions.size() == static_cast<std::size_t>(p.types);
    for (double f : p.fractions) {
      sane = sane && f >= 0.0 && f <= 1.0;
      sum += f;
    }
    if (!sane || std::fabs(sum - 1.0) > 1e-9)
      out.push_back({"md.species", str("the fractions of the ", p.types, " types add up to ", sum),
                     "expected one fraction in [0, 1] per type, adding up to 1"});
  }
  if (p.start)
    for (auto t : p.start->type)
      if (t < 0 || t >= p.types) {
        out.push_back({"md.data_file", str("an atom is of type ", t + 1),
                       str("expected a type from 1 to ", p.types, " (md.species)")});
        break;
      }
  if (p.barostat && p.thermostat != Thermostat::NoseHoover)
    out.push_back({"md.barostat", "is mtk without the Nose-Hoover chain",
                   "expected md.thermostat: nose_hoover (the MTK barostat's atoms are held at "
                   "temperature by a Nose-Hoover chain)"});
  if (p.barostat && !(std::isfinite(p.pressure) && p.barostatTau > 0))
    out.push_back({"md.pressure", str("is ", p.pressure, " with md.barostat_tau ", p.barostatTau),
                   "expected a finite pressure and md.barostat_tau > 0"});
  if (!out.empty()) return out;
  auto const length = boxLength(p);
  double const radius = p.cutoff + p.skin;
  for (int d = 0; d < 3; ++d)
    if (length[d] < 2.0 * radius) {
      out.push_back(
          p.start
              ? Violation{"md.data_file",
                          str("the box edge along axis ", d, " is ", length[d],
                              ", less than twice cutoff + skin = ", 2.0 * radius),
                          "expected a larger box (or a smaller md.cutoff)"}
              : Violation{"grid.cells",
                          str("the box edge along axis ", d, " is ", length[d], " (", p.cells[d],
                              " lattice cells), less than twice cutoff + skin = ", 2.0 * radius),
                          "expected a larger system (more grid.cells)"});
      break;
    }
  return out;
}

/// |x(i) - x0(i)|^2, or infinity when it is not finite: the term of System::blewUp's search.
/// (Named functors, not lambdas: nvcc cannot stub two extended lambdas of that member.)
template <class X, class X0>
struct DisplacementSquared {
  X x;
  X0 x0;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    double d2 = 0;
    for (int d = 0; d < 3; ++d) d2 += (x(i, d) - x0(i, d)) * (x(i, d) - x0(i, d));
    return d2 - d2 == 0.0 ? d2 : math::infinity();
  }
};
/// The id of atom i.
template <class Ids>
struct AtomId {
  Ids ids;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    return static_cast<std::int64_t>(ids(i));
  }
};

template <class Exec = ExecSpace>
class System {
 public:
  using memory_space = typename Exec::memory_space;

  /// Builds the lattice of `params.cells` cells on `comm` (collective), decomposed over its
  /// ranks as `params.procGrid` asks (0 = chosen): for tests and benchmarks; a run hands the
  /// decomposition in (below).
  System(Exec const& space, MPI_Comm comm, Parameters const& params)
      : System(space, comm,
               CartDecomposition::fromComm(comm, params.cells, 3, {true, true, true},
                                           params.procGrid),
               params) {}

  /// Builds the lattice on `decomp` (collective over `comm`; 3D, periodic on every axis, its
  /// cells the lattice cells: they replace `params.cells`), or places the atoms of
  /// `params.start` in their ranks' blocks of its box split into decomp's cells; sets
  /// velocities at `params.temperature` with zero total momentum (unless the configuration
  /// has velocities: they are kept as given), and computes the first forces. Throws
  /// eddy::ConfigError when the box is smaller than twice cutoff + skin or a subdomain narrower
  /// than cutoff + skin. With `params.reproducible` a half list is replaced by the full list
  /// (logged).
  System(Exec const& space, MPI_Comm comm, CartDecomposition const& decomp,
         Parameters const& params)
      : m_comm(comm),
        m_params(resolved(params, decomp)),
        m_decomp(decomp),
        m_lj(params.cutoff, params.shift),
        m_mixture(mixtureOf(params)),
        m_masses(params.masses),
        m_listTuning(neighbor::ListTuning<Exec>::fromEnvironment()),
        m_forceTuning(ForceTuning<Exec>::fromEnvironment()),
        m_list(m_params.list, params.cutoff, params.skin, m_listTuning) {
    if (decomp.dims() != 3 || !decomp.isPeriodic(0) || !decomp.isPeriodic(1) ||
        !decomp.isPeriodic(2))
      throw ConfigError(str("md: the decomposition is ", decomp.dims(),
                            "D and periodic along x, y, z: ", decomp.isPeriodic(0), ", ",
                            decomp.isPeriodic(1), ", ", decomp.isPeriodic(2),
                            "; expected a 3D box periodic on every axis"));
    if (params.reproducible && params.list != m_params.list)
      log::info(
          "md: reproducible mode sums forces over the full neighbour list; neighbor: half "
          "is replaced by full");
    throwFirst(violations(m_params));
    m_domain = ParticleDomain(m_decomp, boxLength(m_params));
    m_migration = std::make_unique<ParticleMigration<Exec>>(comm, m_decomp, m_domain);
    m_ghosts = std::make_unique<ParticleGhosts<Exec>>(comm, m_decomp, m_domain, m_list.radius());
    // Each pair of types lists its neighbours within its own cutoff (or listReach) + skin, when
    // some pair's is shorter than md.cutoff (else the list's one radius serves every pair, and
    // the build reads no types).
    std::vector<double> cutoffs;
    for (PairParameters const& q : m_params.pairs)
      cutoffs.push_back(std::max(q.cutoff, std::min(m_params.listReach, m_params.cutoff)));
    if (cutoffs.size() == static_cast<std::size_t>(m_params.types * m_params.types) &&
        *std::min_element(cutoffs.begin(), cutoffs.end()) < m_params.cutoff)
      m_list.setPairCutoffs(m_params.types, cutoffs);
    if (m_params.start) {
      m_origin = m_params.start->lo;
      m_atoms = m_params.start->atoms();
      long long const mine =
          configurationParticles(space, *m_params.start, m_domain.lo, m_domain.hi, m_particles);
      long long placed = 0;
      checkMpi(MPI_Allreduce(&mine, &placed, 1, MPI_LONG_LONG, MPI_SUM, comm),
               "MPI_Allreduce (eddy::md::System)");
      EDDY_REQUIRE(placed == m_atoms, "md::System: the ranks placed ", placed, " of ", m_atoms,
                   " atoms of the configuration; expected each in one rank's block");
    } else {
      m_a = md::latticeConstant(params.density);
      latticeParticles(space, params.fcc, params.seed, m_a, m_params.cells, m_decomp.offset(),
                       m_decomp.localCells(), m_particles);
      m_atoms =
          static_cast<std::int64_t>(4) * m_params.cells[0] * m_params.cells[1] * m_params.cells[2];
      if (!m_params.fractions.empty())
        assignTypes(space, m_params.fractions, m_particles.ids(), m_particles.types(), owned());
    }
    m_typeCounts = countTypes();
    markReferences(space);
    bool const given = m_params.start && !m_params.start->v.empty();
    if (!given && params.temperature > 0) {
      randomVelocities(space, params.seed, m_particles.velocities(), m_particles.ids(), owned(),
                       masses());
      removeDrift(space);
      rescaleTo(space, params.temperature);
    }
    markVelocityOrigins(space);
    if (m_params.overlap) m_haloSpace = compat::secondInstance(space, HaloTuning<Exec>::current().streamHighPriority);
    if (m_params.thermostat == Thermostat::NoseHoover)
      m_chain = NoseHooverChain(m_params.chainLength, m_params.thermostatTemperature,
                                m_params.noseHooverTau, dof());
    if (m_params.barostat)
      m_barostat = MtkBarostat(m_params.pressure, m_params.thermostatTemperature,
                               m_params.barostatTau, dof(), m_params.chainLength);
    rebuild(space);
    computeForces(space);
  }

  /// One velocity Verlet step (with thermostat when enabled). The drift and the neighbour
  /// list's displacement test run as one kernel. `anotherStepFollows`: the caller takes the next
  /// step before it reads anything, so the step's closing half kick may be left to the next
  /// step's drift kernel, which adds it first (the same bits, one pass over the rows less);
  /// until then the velocities are half a step behind, and whatever reads them (particles(),
  /// diagnostics, atomState ...) throws eddy::Error unless finishStep runs first. The Berendsen
  /// and Nose-Hoover thermostats, which need the step's kinetic energy, never leave the kick.
  void step(Exec const& space, bool anotherStepFollows = false) {
    ScopedRegion region("eddy::md::step");
    if (m_params.barostat) {
      isobaricStep(space);
      return;
    }
    double const dt = m_params.dt;
    Thermostat const thermostat = m_params.thermostat;
    bool const chain = thermostat == Thermostat::NoseHoover;
    if (chain) {
      finishStep(space);
      chainHalfStep(space);
    }
    ++m_steps;  // the step being taken: its Langevin noise is keyed by it
    auto const watch = m_list.displacementWatch();
    LangevinKick<memory_space> langevin;
    if (thermostat == Thermostat::Langevin) {
      detail::ensureExtent(m_heat, static_cast<std::size_t>(owned()), "eddy::md::heat");
      langevin =
          LangevinKick<memory_space>(m_params.langevinDamping, m_params.thermostatTemperature, dt,
                                     m_params.seed, m_steps, m_particles.ids(), m_heat);
    }
    kickDrift(space, dt, m_particles.positions(), m_particles.velocities(), m_particles.forces(),
              owned(), m_kickPending, watch, langevin, masses());
    m_kickPending = false;
    if (langevin.on) {
      auto const heat = m_heat;
      auto const term = KOKKOS_LAMBDA(const std::int64_t i) {
        return heat(i);
      };
      m_thermostatEnergy -= m_params.reproducible ? reproducibleSum(space, m_comm, owned(), term)
                                                  : globalSum(space, m_comm, owned(), term);
    }
    // With overlap the ghost refresh of a step without rebuild runs beside the interior forces.
    bool const rebuilt = settleNeighbors(space, watch, !m_params.overlap);
    if (m_params.overlap && !rebuilt)
      computeForcesOverlapped(space);
    else
      computeForces(space);
    if (anotherStepFollows && thermostat != Thermostat::Berendsen && !chain) {
      m_kickPending = true;
      return;
    }
    kick(space, dt, m_particles.velocities(), m_particles.forces(), owned(), masses());
    if (thermostat == Thermostat::Berendsen) {
      double const kinetic = kineticEnergy(space, m_params.reproducible);
      double const t = kinetic * 2.0 / dof();
      if (t > 0) {
        double const target = m_params.thermostatTemperature;
        double const factor = std::sqrt(1.0 + dt / m_params.berendsenTau * (target / t - 1.0));
        scaleVelocities(space, m_particles.velocities(), owned(), factor);
        m_thermostatEnergy += kinetic * (1.0 - factor * factor);
      }
    }
    if (chain) chainHalfStep(space);
  }

  /// One step of the MTK barostat and the Nose-Hoover chains (Tuckerman et al. 2006, as
  /// MtkBarostat): the barostat's chain, the atoms' chain and the box velocity over dt / 2, the
  /// atoms' half kick, the drift in the box that grows by exp(v_eps dt) meanwhile, the forces
  /// there, then the same halves in reverse order. The box velocity's force needs the virial
  /// and the kinetic energy after each kick: two reductions more than a Nose-Hoover step.
  void isobaricStep(Exec const& space) {
    double const dt = m_params.dt;
    bool const exact = m_params.reproducible;
    finishStep(space);
    ++m_steps;
    m_barostat.chainHalfStep(dt);
    double kinetic = kineticEnergy(space, exact);
    double scale = m_chain.halfStep(kinetic, dt);
    // (The rows' arrays are fetched at each use: a rebuild swaps them for sorted ones.)
    scaleVelocities(space, m_particles.velocities(), owned(), scale);
    m_barostat.kick(0.5 * dt, kinetic * scale * scale, isobaricVirial(space), volume());
    auto const kick = m_barostat.kickFactors(dt);
    scaledKick(space, dt, kick.a, kick.b, m_particles.velocities(), m_particles.forces(), owned(),
               masses());
    auto const drift = m_barostat.driftFactors(dt);
    std::array<double, 3> length = m_domain.length;
    for (double& l : length) l *= drift.a;
    setBox(length);
    auto const watch = m_list.displacementWatch(boxScale());
    scaledDrift(space, dt, drift.a, drift.b, m_particles.positions(), m_particles.velocities(),
                owned(), watch);
    settleNeighbors(space, watch, true);
    forcesAndVirial(space);
    scaledKick(space, dt, kick.a, kick.b, m_particles.velocities(), m_particles.forces(), owned(),
               masses());
    kinetic = kineticEnergy(space, exact);
    m_barostat.kick(0.5 * dt, kinetic, isobaricVirial(space), volume());
    scale = m_chain.halfStep(kinetic, dt);
    scaleVelocities(space, m_particles.velocities(), owned(), scale);
    m_barostat.chainHalfStep(dt);
  }

  /// Collective: computeForces, and the virial of the same positions for the barostat's kicks:
  /// with a half list from the forces' own pass (each row's share, summed), else by
  /// pairTotals. Public only because CUDA lambdas may not live in private member functions.
  void forcesAndVirial(Exec const& space) {
    if (m_params.list == neighbor::ListKind::Full) {
      computeForces(space);
      m_virial = pairTotals(space, false).virial;
    } else {
      detail::ensureExtent(m_pairVirial, static_cast<std::size_t>(owned()), "eddy::md::pairVirial");
      computeForces(space, m_pairVirial);
      auto const w = m_pairVirial;
      m_virial = globalSum(
          space, m_comm, owned(), KOKKOS_LAMBDA(const std::int64_t i) { return w(i); });
      if (m_params.tail) m_virial += tailCorrections().virial;
    }
    m_virialKnown = true;
  }

  /// Collective: the box of edge lengths `length` over the same decomposition and the same
  /// frame origin, in force from now on (the barostat's scaling; a restart's box). Every rank
  /// must give the same lengths. Throws the collective eddy::Error (ExitCode::Failure) when the
  /// box is narrower than twice cutoff + skin or some rank's block narrower than cutoff + skin.
  void setBox(std::array<double, 3> const& length) {
    double const radius = m_list.radius();
    for (int d = 0; d < 3; ++d)
      if (!(length[d] >= 2.0 * radius))
        throw Error(str("md: at step ", m_steps, " the box edge along axis ", d, " became ",
                        length[d], ", less than twice cutoff + skin = ", 2.0 * radius,
                        ". Start from a larger system, or check md.pressure"),
                    ExitCode::Failure, true);
    ParticleDomain const domain(m_decomp, length);
    try {
      m_ghosts->setDomain(domain);
    } catch (ConfigError const& e) {
      throw Error(
          str("md: at step ", m_steps, " the box shrank too far for this rank grid: ", e.what()),
          ExitCode::Failure, true);
    }
    m_domain = domain;
    m_migration->setDomain(m_domain);
    m_virialKnown = false;
  }
  /// The box edges at the last neighbour-list build.
  std::array<double, 3> const& buildLength() const { return m_buildLength; }

  /// Collective: the potential energy (when `withEnergy`; else 0) and the virial, sum over
  /// pairs of r . F, the tail's added with Parameters::tail; by reproducible sums in
  /// reproducible mode (the full list counts every pair twice: halving is exact).
  PairSums pairTotals(Exec const& space, bool withEnergy) const {
    ScopedRegion region("eddy::md::pairTotals");
    PairSums t;
    if (m_params.reproducible) {
      withPair([&](auto const& lj) {
        RowPairSum<memory_space, std::decay_t<decltype(lj)>> term{lj, m_particles.positions(),
                                                                  m_list.view(), true};
        if (withEnergy) t.energy = 0.5 * reproducibleSum(space, m_comm, owned(), term);
        term.energy = false;
        t.virial = 0.5 * reproducibleSum(space, m_comm, owned(), term);
      });
    } else {
      auto const sums = withPair([&](auto const& lj) {
        return pairSums(space, lj, m_particles.positions(), m_list.view(), owned(),
                        m_params.list == neighbor::ListKind::Half, lanes());
      });
      double local[2] = {withEnergy ? sums.energy : 0.0, sums.virial}, global[2] = {0.0, 0.0};
      checkMpi(MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, m_comm),
               "MPI_Allreduce (eddy::md::pairTotals)");
      t = PairSums{global[0], global[1]};
    }
    if (m_params.tail) {
      auto const tail = tailCorrections();
      if (withEnergy) t.energy += tail.energy;
      t.virial += tail.virial;
    }
    return t;
  }

  /// Throws the collective eddy::Error (ExitCode::Failure) of a blow-up when the diagnostics `d`
  /// of the current state are not finite, or their temperature is more than 100 times the run's
  /// scale (the larger of the initial and the thermostat's temperature, at least 1): a state no
  /// output should hold. Costs nothing beyond the diagnostics the caller has.
  void checkSane(Diagnostics const& d) const {
    double const scale =
        std::fmax(1.0, std::fmax(m_params.temperature, m_params.thermostatTemperature));
    bool const finite = std::isfinite(d.kinetic) && std::isfinite(d.potential);
    if (finite && d.temperature <= 100.0 * scale) return;
    throw Error(str("md: the system blew up at step ", m_steps, " (t = ", m_steps * m_params.dt,
                    "): ",
                    finite ? str("the temperature is ", d.temperature, ", more than 100 times ",
                                 scale, " (md.temperature, md.thermostat_temperature)")
                           : std::string("the energy is not finite"),
                    ". Lower md.dt, or start from a state without overlapping atoms (the last "
                    "checkpoint holds the last good state)"),
                ExitCode::Failure, true);
  }

  /// Collective: throws the collective eddy::Error (ExitCode::Failure) of a system that blew up
  /// in step steps(): the atom that moved farthest since the last list build (a position that
  /// is not finite counts as farthest), its rank and how far it went.
  /// Public only because CUDA lambdas may not live in private member functions.
  [[noreturn]] void blewUp(Exec const& space, bool notFinite) const {
    auto const x = m_particles.positions();
    auto const x0 = m_list.buildPositions();
    auto const ids = m_particles.ids();
    auto const far = globalMaxLoc(space, m_comm, static_cast<std::int64_t>(owned()),
                                  DisplacementSquared<decltype(x), decltype(x0)>{x, x0},
                                  AtomId<decltype(ids)>{ids});
    throw Error(str("md: the system blew up at step ", m_steps, " (t = ", m_steps * m_params.dt,
                    "): ",
                    notFinite ? str("the position of atom ", far.index, " (rank ", far.rank,
                                    ") is not finite")
                              : str("atom ", far.index, " (rank ", far.rank, ") moved ",
                                    std::sqrt(far.value), " since the last neighbour-list build, "
                                    "more than cutoff + skin = ", m_list.radius()),
                    ". Lower md.dt, or start from a state without overlapping atoms (the last "
                    "checkpoint holds the last good state)"),
                ExitCode::Failure, true);
  }

  /// Adds the closing half kick a step(space, true) left (nothing when none is left): the
  /// velocities are then those of the step taken.
  void finishStep(Exec const& space) {
    if (!m_kickPending) return;
    kick(space, m_params.dt, m_particles.velocities(), m_particles.forces(), owned(), masses());
    m_kickPending = false;
  }
  /// Whether a step(space, true) left its closing half kick (see step).
  bool kickPending() const { return m_kickPending; }

  /// Rebuilds the neighbour list when some atom moved more than skin / 2 since the last
  /// build, else refreshes the ghost positions (unless `refreshGhosts` is false: the caller
  /// does). Returns true on a rebuild.
  bool updateNeighbors(Exec const& space, bool refreshGhosts = true) {
    return settleNeighbors(space, m_list.watchPositions(space, m_particles.positions(), boxScale()),
                           refreshGhosts);
  }

  /// Migration, optional sort by bin, ghosts, bins and Verlet list.
  void rebuild(Exec const& space) {
    ScopedRegion region("eddy::md::rebuild");
    m_particles.resize(space, owned());
    m_migration->migrate(space, m_particles);
    m_particles.setOwned(m_particles.size());
    if (m_params.sortByBin) sortByBin(space);
    buildNeighbors(space);
  }

  /// Ghosts, bins and the Verlet list of the owned rows as they are (no migration, no sort).
  void buildNeighbors(Exec const& space) {
    double const w = m_list.radius();
    double const binEdge = m_listTuning.binFraction * w;
    m_buildLength = m_domain.length;
    m_ghosts->build(space, m_particles, owned());
    std::array<double, 3> lo{}, hi{};
    for (int d = 0; d < 3; ++d) {
      lo[d] = m_domain.lo[d] - w;
      hi[d] = m_domain.hi[d] + w;
    }
    if (m_params.reproducible)
      m_bins.buildCanonical(space, m_particles.positions(), m_particles.ids(), m_particles.size(),
                            lo, hi, binEdge, m_domain.length);
    else
      m_bins.build(space, m_particles.positions(), m_particles.size(), lo, hi, binEdge);
    m_list.build(space, m_particles.positions(), m_particles.ids(), owned(), m_bins,
                 m_particles.types());
    if (m_params.list == neighbor::ListKind::Half && m_scatterData != m_particles.forces().data()) {
      m_scatter = ForceScatter<Exec, memory_space>(m_particles.forces());
      m_scatterData = m_particles.forces().data();
    }
    if (m_params.overlap) splitRows(space);
  }

  /// Splits the owned rows into those whose list can hold no ghost (computed while the ghosts
  /// are refreshed) and the others, each set in increasing row order. Every ghost lies outside
  /// this rank's box [lo, hi) along some axis (ParticleGhosts sends rows to the neighbour boxes,
  /// shifted by a box length across a periodic edge), so an owned row farther than the list
  /// radius from every face has none. The test reads a row's position (24 bytes) where walking
  /// its list would read every neighbour index (about 80 of them at the liquid's density, a
  /// thread per row in strided loads). The margin of 1e-9 relative covers the rounding of the
  /// distance the list build compares.
  void splitRows(Exec const& space) {
    int const n = owned();
    detail::ensureExtent(m_interiorRows, static_cast<std::size_t>(n), "eddy::md::interiorRows");
    detail::ensureExtent(m_boundaryRows, static_cast<std::size_t>(n), "eddy::md::boundaryRows");
    auto const x = m_particles.positions();
    double const margin = m_list.radius() * (1.0 + 1e-9);
    double const lo0 = m_domain.lo[0], lo1 = m_domain.lo[1], lo2 = m_domain.lo[2];
    double const hi0 = m_domain.hi[0], hi1 = m_domain.hi[1], hi2 = m_domain.hi[2];
    auto inner = m_interiorRows;
    auto outer = m_boundaryRows;
    int interior = 0;
    Kokkos::parallel_scan(
        "eddy::md::splitRows", Kokkos::RangePolicy<Exec>(space, 0, n),
        KOKKOS_LAMBDA(const int i, int& prefix, const bool final) {
          bool const deep = x(i, 0) - lo0 > margin && hi0 - x(i, 0) > margin &&
                            x(i, 1) - lo1 > margin && hi1 - x(i, 1) > margin &&
                            x(i, 2) - lo2 > margin && hi2 - x(i, 2) > margin;
          if (final) {
            if (deep)
              inner(prefix) = i;
            else
              outer(i - prefix) = i;
          }
          if (deep) ++prefix;
        },
        interior);
    m_interior = RowSet<memory_space>{m_interiorRows, interior};
    m_boundary = RowSet<memory_space>{m_boundaryRows, n - interior};
  }

  /// computeForces after a step without rebuild, with the ghost refresh on the second instance
  /// beside the forces of the interior rows; the other rows follow once the ghosts are in.
  void computeForcesOverlapped(Exec const& space) {
    ScopedRegion region("eddy::md::forcesOverlapped");
    auto const list = m_list.view();
    auto const& x = m_particles.positions();
    auto const& f = m_particles.forces();
    compat::orderAfter(m_haloSpace, space);  // the drift wrote the positions; the halo packs them
    m_ghosts->refreshPositions(m_haloSpace, x);
    bool const full = m_params.list == neighbor::ListKind::Full;
    withPair([&](auto const& lj) {
      if (full) {
        forcesFull(space, lj, x, f, list, m_interior, lanes(), m_forceTuning.entriesAtOnce);
      } else {
        beginHalfForces(space, f, m_scatter, m_particles.size());
        addHalfForces(space, lj, x, m_scatter, list, m_interior);
      }
      compat::orderAfter(space, m_haloSpace);  // the ghost rows are read on `space`
      if (full) {
        forcesFull(space, lj, x, f, list, m_boundary, lanes(), m_forceTuning.entriesAtOnce);
      } else {
        addHalfForces(space, lj, x, m_scatter, list, m_boundary);
        endHalfForces(space, m_scatter, f);
        m_ghosts->reverseSum(space, f);
      }
    });
  }

  /// Forces on the owned particles at the current positions (ghosts must be current). With a
  /// half list, `virial` (at least owned() long) takes each owned row's share of the virial.
  void computeForces(Exec const& space, RowVirial<memory_space> const& virial = {}) {
    auto const list = m_list.view();
    withPair([&](auto const& lj) {
      if (m_params.list == neighbor::ListKind::Full) {
        forcesFull(space, lj, m_particles.positions(), m_particles.forces(), list,
                   RowSet<memory_space>::all(owned()), lanes(), m_forceTuning.entriesAtOnce);
      } else {
        forcesHalf(space, lj, m_particles.positions(), m_particles.forces(), m_scatter, list,
                   owned(), m_particles.size(), virial);
        m_ghosts->reverseSum(space, m_particles.forces());
      }
    });
  }

  /// Collective: energies, temperature, pressure and momentum (reproducible sums, the same on
  /// any rank count, in reproducible mode).
  Diagnostics diagnostics(Exec const& space) const {
    requireFinished("diagnostics");
    ScopedRegion region("eddy::md::diagnostics");
    Diagnostics d;
    d.atoms = m_atoms;
    bool const exact = m_params.reproducible;
    d.kinetic = kineticEnergy(space, exact);
    auto const pairs = pairTotals(space, true);
    d.potential = pairs.energy;
    d.virial = pairs.virial;
    d.momentum = momentum(space, exact);
    d.temperature = 2.0 * d.kinetic / dof();
    d.volume = volume();
    d.pressure = (2.0 * d.kinetic + d.virial) / (3.0 * d.volume);
    d.conserved = d.total() + m_thermostatEnergy + m_chain.energy() + m_barostat.energy(d.volume);
    return d;
  }
  /// Collective: the pressure tensor P_ab = (sum_i m_i v_ia v_ib + W_ab) / V (W the
  /// virial tensor, rowVirials), as xx, yy, zz, xy, xz, yz; the tail correction, when on, adds
  /// a third of its virial to each diagonal entry. Its trace over 3 is Diagnostics::pressure up
  /// to rounding. Reproducible sums in reproducible mode.
  std::array<double, 6> pressureTensor(Exec const& space) const {
    requireFinished("pressureTensor");
    ScopedRegion region("eddy::md::pressureTensor");
    int const n = owned();
    if (m_rowVirial.extent(0) < static_cast<std::size_t>(n))
      m_rowVirial = Kokkos::View<double* [6], memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::md::rowVirial"), n);
    withPair([&](auto const& lj) {
      rowVirials(space, lj, m_particles.positions(), m_list.view(), n,
                 m_params.list == neighbor::ListKind::Half, m_rowVirial);
    });
    auto const v = m_particles.velocities();
    auto const w = m_rowVirial;
    auto const mass = masses();
    std::array<double, 6> p{};
    int const a[6] = {0, 1, 2, 0, 0, 1}, b[6] = {0, 1, 2, 1, 2, 2};
    for (int c = 0; c < 6; ++c) {
      int const ca = a[c], cb = b[c];
      auto const term = KOKKOS_LAMBDA(const std::int64_t i) {
        return mass.of(static_cast<int>(i)) * v(i, ca) * v(i, cb) + w(i, c);
      };
      p[c] = m_params.reproducible ? reproducibleSum(space, m_comm, n, term)
                                   : globalSum(space, m_comm, n, term);
    }
    double const tail = m_params.tail ? tailCorrections().virial / 3.0 : 0.0;
    for (int c = 0; c < 6; ++c) p[c] = (p[c] + (c < 3 ? tail : 0.0)) / volume();
    return p;
  }
  /// Sets every atom's reference position to its unwrapped position now (x + image L): the
  /// origin of meanSquaredDisplacements from this step on. A system starts with the references
  /// of its first positions.
  void markReferences(Exec const& space) {
    requireFinished("markReferences");
    auto const x = m_particles.positions();
    auto const image = m_particles.images();
    auto const reference = m_particles.references();
    double const lx = m_domain.length[0], ly = m_domain.length[1], lz = m_domain.length[2];
    Kokkos::parallel_for(
        "eddy::md::markReferences", Kokkos::RangePolicy<Exec>(space, 0, owned()),
        KOKKOS_LAMBDA(const int i) {
          reference(i, 0) = x(i, 0) + image(i, 0) * lx;
          reference(i, 1) = x(i, 1) + image(i, 1) * ly;
          reference(i, 2) = x(i, 2) + image(i, 2) * lz;
        });
  }
  /// Collective: the mean over the atoms of each type of |x + image L - reference|^2 (the
  /// squared displacement of the unwrapped position since markReferences), one value per type,
  /// then the mean over all atoms. Reproducible sums in reproducible mode.
  std::vector<double> meanSquaredDisplacements(Exec const& space) const {
    requireFinished("meanSquaredDisplacements");
    auto const x = m_particles.positions();
    auto const image = m_particles.images();
    auto const reference = m_particles.references();
    double const lx = m_domain.length[0], ly = m_domain.length[1], lz = m_domain.length[2];
    return typeMeans(
        space, KOKKOS_LAMBDA(const std::int64_t i) {
          double const dx = x(i, 0) + image(i, 0) * lx - reference(i, 0);
          double const dy = x(i, 1) + image(i, 1) * ly - reference(i, 1);
          double const dz = x(i, 2) + image(i, 2) * lz - reference(i, 2);
          return dx * dx + dy * dy + dz * dz;
        });
  }
  /// Sets every atom's velocity origin to its velocity now: the origin of
  /// velocityAutocorrelations from this step on. A system starts with its first velocities.
  void markVelocityOrigins(Exec const& space) {
    requireFinished("markVelocityOrigins");
    Kokkos::deep_copy(
        space,
        Kokkos::subview(m_particles.velocityOrigins(), Kokkos::pair<int, int>(0, owned()),
                        Kokkos::ALL),
        Kokkos::subview(m_particles.velocities(), Kokkos::pair<int, int>(0, owned()), Kokkos::ALL));
  }
  /// Collective: the mean over the atoms of each type of v . v_origin (the velocity
  /// autocorrelation since markVelocityOrigins), one value per type, then the mean over all
  /// atoms. Reproducible sums in reproducible mode.
  std::vector<double> velocityAutocorrelations(Exec const& space) const {
    requireFinished("velocityAutocorrelations");
    auto const v = m_particles.velocities();
    auto const origin = m_particles.velocityOrigins();
    return typeMeans(
        space, KOKKOS_LAMBDA(const std::int64_t i) {
          return v(i, 0) * origin(i, 0) + v(i, 1) * origin(i, 1) + v(i, 2) * origin(i, 2);
        });
  }
  /// Collective: the mean of `term(i)` (a per-atom value) over the atoms of each type, one value
  /// per type (0 for a type without atoms), then over all atoms. Reproducible sums in
  /// reproducible mode. Public: CUDA's device lambdas may not live in private members.
  template <class Term>
  std::vector<double> typeMeans(Exec const& space, Term const& term) const {
    auto const type = m_particles.types();
    std::vector<double> out;
    double all = 0.0;
    for (int t = 0; t < m_params.types; ++t) {
      auto const ofType = KOKKOS_LAMBDA(const std::int64_t i) {
        return type(i) == t ? term(i) : 0.0;
      };
      double const sum = m_params.reproducible ? reproducibleSum(space, m_comm, owned(), ofType)
                                               : globalSum(space, m_comm, owned(), ofType);
      double const n = static_cast<double>(m_typeCounts[t]);
      out.push_back(n > 0 ? sum / n : 0.0);
      all += sum;
    }
    out.push_back(all / static_cast<double>(m_atoms));
    return out;
  }

  /// Collective: total kinetic energy (the reproducible sum in reproducible mode).
  double diagnosticsKinetic(Exec const& space) const {
    return kineticEnergy(space, m_params.reproducible);
  }
  /// Collective: total kinetic energy, by the reproducible sum when `reproducible`.
  double kineticEnergy(Exec const& space, bool reproducible) const {
    requireFinished("kineticEnergy");
    auto const v = m_particles.velocities();
    auto const mass = masses();
    auto const term = KOKKOS_LAMBDA(const std::int64_t i) {
      return mass.of(static_cast<int>(i)) *
             (v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2));
    };
    return 0.5 * (reproducible ? reproducibleSum(space, m_comm, owned(), term)
                               : globalSum(space, m_comm, owned(), term));
  }
  /// Collective: the kinetic temperature of each type, 2 KE_t / (3 N_t) (0 for a type without
  /// atoms): their mean weighted by N_t is the temperature times (3N - 3) / 3N, the total
  /// momentum's degrees of freedom shared by all. Reproducible sums in reproducible mode.
  std::vector<double> typeTemperatures(Exec const& space) const {
    requireFinished("typeTemperatures");
    auto const v = m_particles.velocities();
    auto const type = m_particles.types();
    auto const mass = masses();
    std::vector<double> out;
    for (int t = 0; t < m_params.types; ++t) {
      auto const term = KOKKOS_LAMBDA(const std::int64_t i) {
        return type(i) == t ? mass.of(static_cast<int>(i)) *
                                  (v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2))
                            : 0.0;
      };
      double const twiceKinetic = m_params.reproducible
                                      ? reproducibleSum(space, m_comm, owned(), term)
                                      : globalSum(space, m_comm, owned(), term);
      double const n = static_cast<double>(m_typeCounts[t]);
      out.push_back(n > 0 ? twiceKinetic / (3.0 * n) : 0.0);
    }
    return out;
  }
  /// Collective: total momentum sum_i m_i v_i, by the reproducible sum when `reproducible`.
  std::array<double, 3> momentum(Exec const& space, bool reproducible) const {
    requireFinished("momentum");
    auto const v = m_particles.velocities();
    auto const mass = masses();
    std::array<double, 3> p{};
    for (int c = 0; c < 3; ++c) {
      auto const term = KOKKOS_LAMBDA(const std::int64_t i) {
        return mass.of(static_cast<int>(i)) * v(i, c);
      };
      p[c] = reproducible ? reproducibleSum(space, m_comm, owned(), term)
                          : globalSum(space, m_comm, owned(), term);
    }
    return p;
  }

  /// Collective: sum over atoms and axes of the wrapped position times a weight of the global
  /// id, bitwise the same on any rank count for the same trajectory.
  double checksum(Exec const& space) const {
    auto const x = m_particles.positions();
    auto const id = m_particles.ids();
    double const lx = m_domain.length[0], ly = m_domain.length[1], lz = m_domain.length[2];
    return reproducibleSum(
        space, m_comm, 3 * static_cast<std::int64_t>(owned()), KOKKOS_LAMBDA(const std::int64_t t) {
          int const i = static_cast<int>(t / 3), d = static_cast<int>(t % 3);
          double const l = d == 0 ? lx : (d == 1 ? ly : lz);
          double p = x(i, d);
          p -= l * math::floor(p / l);
          auto const key = static_cast<std::uint64_t>(id(i)) * 3 + d;
          return p * (1.0 + static_cast<double>(mix64(key) >> 54) / 1024.0);
        });
  }

  /// Zero total momentum (subtracts the centre-of-mass velocity, from the reproducible sum: the
  /// same bits on any rank count).
  void removeDrift(Exec const& space) {
    std::array<double, 3> mean = momentum(space, true);
    for (int c = 0; c < 3; ++c) mean[c] /= totalMass();
    shiftVelocities(space, m_particles.velocities(), owned(), mean);
  }
  /// Scales velocities to temperature `t` exactly (kinetic energy from the reproducible sum).
  void rescaleTo(Exec const& space, double t) {
    double const now = 2.0 * kineticEnergy(space, true) / dof();
    if (now > 0) scaleVelocities(space, m_particles.velocities(), owned(), std::sqrt(t / now));
  }

  /// Reorders the owned rows by bin over this rank's box (better memory locality).
  void sortByBin(Exec const& space) {
    ScopedRegion region("eddy::md::sortByBin");
    int const n = owned();
    m_bins.build(space, m_particles.positions(), n, m_domain.lo, m_domain.hi,
                 0.5 * m_list.radius());
    m_scratch.resize(space, n);
    m_scratch.setOwned(n);
    auto const perm = m_bins.permutation();
    auto const from = m_particles.migrationCodec();
    auto const to = m_scratch.migrationCodec();
    Kokkos::parallel_for(
        "eddy::md::sortByBin", Kokkos::RangePolicy<Exec>(space, 0, n), KOKKOS_LAMBDA(const int t) {
          double row[MigrationCodec<memory_space>::width];
          from.pack(perm(t), row);
          to.unpack(t, row);
        });
    std::swap(m_particles, m_scratch);
  }

  /// Switches the thermostat (e.g. off after equilibration; a Nose-Hoover chain switched off
  /// keeps its energy in the conserved quantity). Switched off, it takes the barostat with it:
  /// the box stays as it is, and the barostat's energy, constant from then on, stays in the
  /// conserved quantity.
  void setThermostat(Thermostat t) {
    EDDY_REQUIRE(t != Thermostat::NoseHoover || !m_chain.empty(),
                 "md::System::setThermostat: the system was built without a Nose-Hoover chain");
    m_params.thermostat = t;
    if (t == Thermostat::None) m_params.barostat = false;
  }

  /// The barostat's state (MtkBarostat::state; empty without one), for checkpoints.
  std::vector<double> barostatState() const {
    return m_barostat.on() ? m_barostat.state() : std::vector<double>{};
  }
  /// Puts back what barostatState() gave; a state where this system has no barostat, or none
  /// where it has one (a run at constant volume before), is left out. Throws eddy::ConfigError
  /// when both have chains of different lengths.
  void setBarostatState(std::vector<double> const& s) {
    if (s.empty() || !m_barostat.on()) return;
    std::size_t const mine = 1 + 2 * static_cast<std::size_t>(m_params.chainLength);
    if (s.size() != mine)
      throw ConfigError(str("md: the saved barostat's chain has ", (s.size() - 1) / 2,
                            " thermostats; this run's has ", m_params.chainLength,
                            " (md.nose_hoover_chain)"));
    m_barostat.setState(s);
  }
  /// The barostat (MtkBarostat::on() false without one).
  MtkBarostat const& barostat() const { return m_barostat; }

  /// The thermostats' state beyond the atoms: the energy they took out of the atoms so far,
  /// then the Nose-Hoover chain's variables (NoseHooverChain::state), for checkpoints.
  std::vector<double> thermostatState() const {
    std::vector<double> s{m_thermostatEnergy};
    auto const chain = m_chain.state();
    s.insert(s.end(), chain.begin(), chain.end());
    return s;
  }
  /// Puts back what thermostatState() gave. A state without a chain leaves this system's at
  /// rest (a run thermostatted otherwise before); a chain where this system has none is left
  /// out. Throws eddy::ConfigError when both have chains of different lengths.
  void setThermostatState(std::vector<double> const& s) {
    EDDY_REQUIRE(!s.empty() && s.size() % 2 == 1, "md::System::setThermostatState: ", s.size(),
                 " values; expected 1 + twice the chain's length");
    std::size_t const saved = s.size() - 1, mine = 2 * static_cast<std::size_t>(m_chain.length());
    if (saved > 0 && mine > 0 && saved != mine)
      throw ConfigError(str("md: the saved Nose-Hoover chain has ", saved / 2,
                            " thermostats; this run has ", mine / 2, " (md.nose_hoover_chain)"));
    m_thermostatEnergy = s[0];
    if (saved > 0 && mine > 0) m_chain.setState(std::vector<double>(s.begin() + 1, s.end()));
  }

  /// The particles (throws eddy::Error while a closing half kick is pending: see step).
  Particles<memory_space>& particles() {
    requireFinished("particles");
    return m_particles;
  }
  Particles<memory_space> const& particles() const {
    requireFinished("particles");
    return m_particles;
  }
  neighbor::VerletList<Exec> const& list() const { return m_list; }
  /// The list's and the forces' knobs, read from the environment when the System was built.
  neighbor::ListTuning<Exec> const& listTuning() const { return m_listTuning; }
  ForceTuning<Exec> const& forceTuning() const { return m_forceTuning; }
  /// The bins of the last build (owned and ghost rows).
  neighbor::BinList<Exec> const& bins() const { return m_bins; }
  ParticleGhosts<Exec> const& ghosts() const { return *m_ghosts; }
  CartDecomposition const& decomposition() const { return m_decomp; }
  ParticleDomain const& domain() const { return m_domain; }
  Parameters const& parameters() const { return m_params; }
  /// The one-type potential (that of the forces when the system has one type of epsilon = sigma
  /// = 1 and no force shift; else mixture() is).
  LennardJones const& potential() const { return m_lj; }
  /// The potential of several types (or of a force shift), its rows' types those of the
  /// particles now; empty when potential() is the one in force.
  std::optional<LennardJonesMixture<memory_space>> mixture() const {
    if (!m_mixture) return std::nullopt;
    auto m = *m_mixture;
    m.type = m_particles.types();
    return m;
  }
  int owned() const { return m_particles.owned(); }
  /// With overlap: the owned rows whose forces are computed beside the ghost refresh, and the
  /// others (as of the last list build).
  RowSet<memory_space> const& interiorRows() const { return m_interior; }
  RowSet<memory_space> const& boundaryRows() const { return m_boundary; }
  /// Vector lanes per row of the full-list forces: ListTuning::kLanes, or 1 (a thread per row,
  /// every backend summing each row in list order) in reproducible mode.
  int lanes() const { return m_params.reproducible ? 1 : neighbor::ListTuning<Exec>::kLanes; }
  std::int64_t atoms() const { return m_atoms; }
  long long steps() const { return m_steps; }
  /// Neighbour-list builds, the initial one included.
  long long rebuilds() const { return m_list.buildCount() + m_rebuildsBefore; }

  /// Host copy of the owned atoms in row order, for checkpoints and snapshots.
  AtomState atomState() const {
    requireFinished("atomState");
    int const n = owned();
    AtomState a;
    auto const x =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.positions());
    auto const v =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.velocities());
    auto const f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.forces());
    auto const x0 =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_list.buildPositions());
    auto const id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.ids());
    auto const type = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.types());
    auto const image =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.images());
    auto const reference =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.references());
    auto const origin =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.velocityOrigins());
    for (int i = 0; i < n; ++i) {
      for (int d = 0; d < 3; ++d) {
        a.x.push_back(x(i, d));
        a.v.push_back(v(i, d));
        a.f.push_back(f(i, d));
        a.x0.push_back(x0(i, d));
        a.image.push_back(image(i, d));
        a.reference.push_back(reference(i, d));
        a.origin.push_back(origin(i, d));
      }
      a.id.push_back(id(i));
      a.type.push_back(type(i));
    }
    return a;
  }

  /// Collective: continues from a saved state (a checkpoint): this rank's atoms, the step count
  /// and the neighbour-list builds so far. The lists are rebuilt from the positions of the last
  /// build (AtomState::x0), so they, the ghosts and the rebuild schedule are those of the run
  /// that saved the state; then the current positions, velocities and forces (velocity Verlet
  /// starts a step from them) are put in place by global id. `sameLayout`: `atoms` are exactly
  /// the rows this rank held, in their order (same ranks and decomposition), and are kept as
  /// they are; otherwise they are the atoms whose x0 lies in this rank's box and are migrated
  /// and sorted as at a rebuild. The image counts go in by id with the current positions
  /// (AtomState::image; all 0 when it is empty: a state saved before images were kept), and so
  /// do the reference positions (AtomState::reference; the unwrapped positions now when it is
  /// empty) and the velocity origins (AtomState::origin; the velocities now when it is empty).
  /// The box in force (setBox) must be that of the last build; `boxNow`, when given, is the box
  /// of the current positions (a barostat's, which changed since), set once the lists are built.
  /// Throws eddy::Error when a size does not match.
  void restoreState(Exec const& space, AtomState const& a, bool sameLayout, long long steps,
                    long long rebuilds,
                    std::optional<std::array<double, 3>> const& boxNow = std::nullopt) {
    ScopedRegion region("eddy::md::restoreState");
    m_kickPending = false;  // the state replaces the velocities
    int const n = static_cast<int>(a.id.size());
    std::size_t const n3 = 3 * static_cast<std::size_t>(n);
    EDDY_REQUIRE(a.x.size() == n3 && a.v.size() == n3 && a.f.size() == n3 && a.x0.size() == n3 &&
                     a.type.size() == a.id.size() && (a.image.empty() || a.image.size() == n3) &&
                     (a.reference.empty() || a.reference.size() == n3) &&
                     (a.origin.empty() || a.origin.size() == n3),
                 "md::System::restoreState: ", n, " ids but ", a.x.size(), " x, ", a.v.size(),
                 " v, ", a.f.size(), " f, ", a.x0.size(), " x0, ", a.type.size(), " type, ",
                 a.image.size(), " image, ", a.reference.size(), " reference and ", a.origin.size(),
                 " origin values; expected 3, 3, 3, 3, 1, 3 (or 0), 3 (or 0) and 3 (or 0) per id");
    m_particles.resize(space, n);
    m_particles.setOwned(n);
    {
      auto x = Kokkos::create_mirror_view(m_particles.positions());
      auto v = Kokkos::create_mirror_view(m_particles.velocities());
      auto id = Kokkos::create_mirror_view(m_particles.ids());
      auto type = Kokkos::create_mirror_view(m_particles.types());
      for (int i = 0; i < n; ++i) {
        for (int d = 0; d < 3; ++d) {
          x(i, d) = a.x0[3 * i + d];
          v(i, d) = a.v[3 * i + d];
        }
        id(i) = a.id[i];
        type(i) = a.type[i];
      }
      Kokkos::deep_copy(space, m_particles.positions(), x);
      Kokkos::deep_copy(space, m_particles.velocities(), v);
      Kokkos::deep_copy(space, m_particles.ids(), id);
      Kokkos::deep_copy(space, m_particles.types(), type);
    }
    if (sameLayout)
      buildNeighbors(space);
    else
      rebuild(space);
    if (boxNow) setBox(*boxNow);
    m_virialKnown = false;
    // Rows may have moved (migration, sort): the current state goes in by id.
    std::unordered_map<std::int64_t, int> row;
    for (int i = 0; i < n; ++i) row[a.id[i]] = i;
    auto const ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.ids());
    auto x = Kokkos::create_mirror_view(m_particles.positions());
    auto v = Kokkos::create_mirror_view(m_particles.velocities());
    auto f = Kokkos::create_mirror_view(m_particles.forces());
    auto image = Kokkos::create_mirror_view(m_particles.images());
    auto reference = Kokkos::create_mirror_view(m_particles.references());
    auto origin = Kokkos::create_mirror_view(m_particles.velocityOrigins());
    Kokkos::deep_copy(space, x, m_particles.positions());
    Kokkos::deep_copy(space, v, m_particles.velocities());
    Kokkos::deep_copy(space, f, m_particles.forces());
    space.fence();
    for (int i = 0; i < owned(); ++i) {
      auto const it = row.find(ids(i));
      if (it == row.end())
        throw Error(str("md::System::restoreState: atom ", ids(i), " came from another rank; ",
                        "expected every atom to stay where its x0 lies"));
      for (int d = 0; d < 3; ++d) {
        x(i, d) = a.x[3 * it->second + d];
        v(i, d) = a.v[3 * it->second + d];
        f(i, d) = a.f[3 * it->second + d];
        // With the position it goes with (the images the rebuild above counted are not these).
        image(i, d) = a.image.empty() ? 0 : a.image[3 * it->second + d];
        reference(i, d) = a.reference.empty() ? x(i, d) + image(i, d) * m_domain.length[d]
                                              : a.reference[3 * it->second + d];
        origin(i, d) = a.origin.empty() ? v(i, d) : a.origin[3 * it->second + d];
      }
    }
    Kokkos::deep_copy(space, m_particles.positions(), x);
    Kokkos::deep_copy(space, m_particles.velocities(), v);
    Kokkos::deep_copy(space, m_particles.forces(), f);
    Kokkos::deep_copy(space, m_particles.images(), image);
    Kokkos::deep_copy(space, m_particles.references(), reference);
    Kokkos::deep_copy(space, m_particles.velocityOrigins(), origin);
    m_ghosts->refreshPositions(space, m_particles.positions());
    m_steps = steps;
    m_rebuildsBefore = rebuilds - m_list.buildCount();
  }
  /// The long-range corrections of the Lennard-Jones pairs beyond their cutoffs rc, for atoms
  /// spread uniformly there (g = 1): with x = sigma / rc and N_a atoms of type a in volume V,
  ///   energy = 8 pi / V sum_ab N_a N_b eps sigma^3 (x^9 / 9 - x^3 / 3),
  ///   virial = 3 V P_tail = 16 pi / V sum_ab N_a N_b eps sigma^3 (2 x^9 / 3 - x^3)
  /// (Allen and Tildesley, Computer Simulation of Liquids, 2nd ed., section 2.8), the pairs of
  /// the unshifted potential whatever the truncation, as LAMMPS' pair_modify tail yes.
  struct Tail {
    double energy = 0.0, virial = 0.0;
  };
  Tail tailCorrections() const {
    Tail t;
    int const n = m_params.types;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        PairParameters const q = m_params.pairs.empty()
                                     ? PairParameters{1.0, 1.0, m_params.cutoff}
                                     : m_params.pairs[static_cast<std::size_t>(a * n + b)];
        double const x3 = std::pow(q.sigma / q.cutoff, 3), x9 = x3 * x3 * x3;
        double const pairs = static_cast<double>(m_typeCounts[a]) *
                             static_cast<double>(m_typeCounts[b]) * q.epsilon * q.sigma * q.sigma *
                             q.sigma;
        t.energy += pairs * (x9 / 9.0 - x3 / 3.0);
        t.virial += pairs * (2.0 * x9 / 3.0 - x3);
      }
    double const pi = 3.14159265358979323846;
    t.energy *= 8.0 * pi / volume();
    t.virial *= 16.0 * pi / volume();
    return t;
  }

  /// The masses of the rows (reading their current types).
  Masses<memory_space> masses() const {
    auto m = m_masses;
    m.type = m_particles.types();
    return m;
  }
  /// The mass of type t (1 without Parameters::masses).
  double massOf(int t) const {
    return m_params.masses.empty() ? 1.0 : m_params.masses[static_cast<std::size_t>(t)];
  }
  /// The mass of all atoms.
  double totalMass() const {
    double sum = 0.0;
    for (int t = 0; t < m_params.types; ++t)
      sum += massOf(t) * static_cast<double>(m_typeCounts[t]);
    return sum;
  }
  /// How many atoms of each type (Parameters::types of them) the system holds (counted when it
  /// was built: atoms are neither made nor lost).
  std::vector<std::int64_t> const& typeCounts() const { return m_typeCounts; }
  /// The lattice constant (0 for a system started from a configuration).
  double latticeConstant() const { return m_a; }
  /// Where the box begins in the frame of the positions given (the configuration's low
  /// corner; 0 for the lattice): the system holds positions less this.
  std::array<double, 3> const& origin() const { return m_origin; }
  double volume() const { return m_domain.length[0] * m_domain.length[1] * m_domain.length[2]; }
  /// Degrees of freedom for the temperature: 3N - 3 (total momentum is fixed).
  double dof() const { return 3.0 * static_cast<double>(m_atoms) - 3.0; }

 private:
  /// updateNeighbors once `watch` has every owned row's position (step: from the drift). A
  /// refresh within this rank is queued before the decision waits for the watch's kernel, so
  /// that the device copies while the host reads the flags; a rebuild makes new ghosts (1 step
  /// in 6 or 7 of an LJ liquid: that refresh is wasted).
  bool settleNeighbors(Exec const& space,
                       typename neighbor::VerletList<Exec>::DisplacementWatch const& watch,
                       bool refreshGhosts) {
    bool const early = refreshGhosts && m_ghosts->refreshIsLocal();
    if (early) m_ghosts->refreshPositions(space, m_particles.positions());
    auto const moved = m_list.checkDisplacement(space, m_comm, watch);
    if (moved.notFinite || moved.runaway) blewUp(space, moved.notFinite);
    if (moved.rebuild) {
      rebuild(space);
      return true;
    }
    if (refreshGhosts && !early) m_ghosts->refreshPositions(space, m_particles.positions());
    return false;
  }

  /// The box edges over those at the last list build (1 while the box is fixed).
  double boxScale() const { return m_domain.length[0] / m_buildLength[0]; }

  /// Collective: the virial of the current positions, computed once for the barostat kicks
  /// that share them (the end of a step and the start of the next).
  double isobaricVirial(Exec const& space) {
    if (!m_virialKnown) m_virial = pairTotals(space, false).virial;
    m_virialKnown = true;
    return m_virial;
  }

  /// Collective: the atoms of each type, over all ranks.
  std::vector<std::int64_t> countTypes() const {
    auto const type = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_particles.types());
    std::vector<std::int64_t> mine(static_cast<std::size_t>(m_params.types), 0), all(mine.size());
    for (int i = 0; i < owned(); ++i)
      if (type(i) >= 0 && type(i) < m_params.types) ++mine[type(i)];
    checkMpi(MPI_Allreduce(mine.data(), all.data(), m_params.types, MPI_INT64_T, MPI_SUM, m_comm),
             "MPI_Allreduce (eddy::md::countTypes)");
    return all;
  }

  /// Advances the Nose-Hoover chain half a step from the current kinetic energy and scales the
  /// velocities by its factor.
  void chainHalfStep(Exec const& space) {
    double const scale = m_chain.halfStep(kineticEnergy(space, m_params.reproducible), m_params.dt);
    scaleVelocities(space, m_particles.velocities(), owned(), scale);
  }

  void requireFinished(char const* what) const {
    if (m_kickPending)
      throw Error(str("md::System::", what, ": the velocities are half a step behind (step ",
                      m_steps,
                      " left its closing half kick to the next step); call finishStep "
                      "first"));
  }

  MPI_Comm m_comm;
  Parameters m_params;
  CartDecomposition m_decomp;
  ParticleDomain m_domain;
  LennardJones m_lj;
  std::optional<LennardJonesMixture<memory_space>> m_mixture;  ///< empty: m_lj is in force
  Masses<memory_space> m_masses;                               ///< its `type` not kept current
  std::vector<std::int64_t> m_typeCounts;                      ///< atoms of each type
  neighbor::ListTuning<Exec> m_listTuning;
  ForceTuning<Exec> m_forceTuning;
  double m_a = 0.0;
  std::array<double, 3> m_origin{0.0, 0.0, 0.0};
  std::int64_t m_atoms = 0;
  long long m_steps = 0;
  bool m_kickPending = false;      ///< the last step left its closing half kick (see step)
  NoseHooverChain m_chain;         ///< empty unless built with Thermostat::NoseHoover
  MtkBarostat m_barostat;          ///< off unless built with Parameters::barostat
  std::array<double, 3> m_buildLength{1.0, 1.0, 1.0};  ///< the box at the last list build
  double m_virial = 0.0;       ///< the barostat's virial of the current positions, when known
  RowVirial<memory_space> m_pairVirial;  ///< half list: each row's virial from the forces
  bool m_virialKnown = false;  ///< whether m_virial is that of the current positions
  double m_thermostatEnergy = 0.0;             ///< taken out of the atoms by Berendsen and Langevin
  Kokkos::View<double*, memory_space> m_heat;  ///< Langevin: each row's energy gain in a step
  mutable Kokkos::View<double* [6], memory_space> m_rowVirial;  ///< pressureTensor's scratch
  long long m_rebuildsBefore = 0;  ///< builds of the run a restart continues, less this one's
  Particles<memory_space> m_particles, m_scratch;
  std::unique_ptr<ParticleMigration<Exec>> m_migration;
  std::unique_ptr<ParticleGhosts<Exec>> m_ghosts;
  neighbor::BinList<Exec> m_bins;
  neighbor::VerletList<Exec> m_list;
  ForceScatter<Exec, memory_space> m_scatter;
  double* m_scatterData = nullptr;
  // With overlap: the ghost refresh's instance and the split of the owned rows (8 bytes per
  // owned particle).
  Exec m_haloSpace;
  Kokkos::View<int*, memory_space> m_interiorRows, m_boundaryRows;
  RowSet<memory_space> m_interior, m_boundary;

  /// Calls f with the potential in force (the mixture reading the rows' current types) and
  /// returns what it returns.
  template <class F>
  decltype(auto) withPair(F&& f) const {
    if (auto const m = mixture()) return f(*m);
    return f(m_lj);
  }

  /// The mixture potential of `p`, or none when its pairs are the one type of epsilon = sigma =
  /// 1 cut at p.cutoff (the one-type potential then, which reads no types).
  static std::optional<LennardJonesMixture<memory_space>> mixtureOf(Parameters const& p) {
    bool const plain = p.types == 1 && !p.forceShift &&
                       (p.pairs.empty() || (p.pairs[0].epsilon == 1.0 && p.pairs[0].sigma == 1.0 &&
                                            p.pairs[0].cutoff == p.cutoff));
    if (plain) return std::nullopt;
    std::vector<PairParameters> pairs = p.pairs;
    if (pairs.empty()) pairs.assign(1, PairParameters{1.0, 1.0, p.cutoff});
    if (static_cast<int>(pairs.size()) != p.types * p.types || p.types > kMaxTypes)
      return std::nullopt;  // violations() reports it
    Truncation const t =
        p.forceShift ? Truncation::ForceShift : (p.shift ? Truncation::Shift : Truncation::Cut);
    return LennardJonesMixture<memory_space>(p.types, pairs.data(), t);
  }

  /// The parameters in force: reproducible mode takes the full list; a configuration's density
  /// is its own.
  static Parameters resolved(Parameters p, CartDecomposition const& decomp) {
    if (p.reproducible) p.list = neighbor::ListKind::Full;
    if (p.start && p.start->volume() > 0)
      p.density = static_cast<double>(p.start->atoms()) / p.start->volume();
    for (int a = 0; a < 3; ++a) {
      p.cells[a] = decomp.globalCells()[a];
      p.procGrid[a] = decomp.procGrid()[a];
    }
    return p;
  }
};

}  // namespace eddy::md
