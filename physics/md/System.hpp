/// @file System.hpp
/// @brief A Lennard-Jones system in a periodic box, decomposed over MPI ranks: initial state,
/// neighbour lists with automatic rebuilds, forces, velocity Verlet NVE with an optional
/// thermostat, and global diagnostics.
///
/// Box and decomposition: the box is `cells` cubic lattice cells of edge a = (4 / density)^(1/3)
/// per axis, 4 atoms per cell (N = 4 nx ny nz). The ranks split the lattice cells with a
/// CartDecomposition (periodic in x, y, z) and each rank owns the slab of the box over its
/// cells. At every neighbour-list rebuild the particles migrate to their owners, are
/// optionally sorted by bin, the ghosts within cutoff + skin are rebuilt, then the bins and the
/// Verlet list; between rebuilds only the ghost positions are refreshed. A rebuild happens when
/// some particle moved more than skin / 2 since the last one.
///
/// Memory per atom (owned, roughly also per ghost): particles 84 B, bins 8 B, list 24 B + 4 B
/// per neighbour entry, exchange buffers ~8 B x row width per ghost.
#pragma once

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/ParticleGhosts.hpp"
#include "eddy/core/ParticleMigration.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "md/Integrate.hpp"
#include "md/LennardJones.hpp"
#include "md/Particles.hpp"
#include "neighbor/BinList.hpp"
#include "neighbor/VerletList.hpp"

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

namespace eddy::md {

enum class Thermostat { None, Berendsen, Langevin };

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
  std::uint64_t seed = 12345;
  std::array<int, 3> procGrid{0, 0, 0};  ///< ranks per axis; 0 = chosen (parallel.decomposition)
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
  double total() const { return kinetic + potential; }
};

template <class Exec = ExecSpace>
class System {
 public:
  using memory_space = typename Exec::memory_space;

  /// Builds the lattice on `comm` (collective), sets velocities at `params.temperature` with
  /// zero total momentum, and computes the first forces. Throws eddy::ConfigError when the box
  /// is smaller than twice cutoff + skin or a subdomain narrower than cutoff + skin.
  System(Exec const& space, MPI_Comm comm, Parameters const& params)
      : m_comm(comm),
        m_params(params),
        m_decomp(CartDecomposition::fromComm(comm, params.cells, 3, {true, true, true},
                                             params.procGrid)),
        m_lj(params.cutoff, params.shift),
        m_list(params.list, params.cutoff, params.skin) {
    if (!(params.density > 0))
      throw ConfigError(str("md.density is ", params.density, "; expected > 0"));
    m_a = std::cbrt(4.0 / params.density);
    std::array<double, 3> length{};
    for (int d = 0; d < 3; ++d) {
      length[d] = params.cells[d] * m_a;
      if (length[d] < 2.0 * m_list.radius())
        throw ConfigError(str("md: box edge ", length[d], " along axis ", d, " (", params.cells[d],
                              " cells) is less than twice cutoff + skin = ", 2.0 * m_list.radius(),
                              "; expected a larger system (more grid.cells)"));
    }
    m_domain = ParticleDomain(m_decomp, length);
    m_migration = std::make_unique<ParticleMigration<Exec>>(comm, m_decomp, m_domain);
    m_ghosts = std::make_unique<ParticleGhosts<Exec>>(comm, m_decomp, m_domain, m_list.radius());
    m_pool = std::make_unique<RandomPool<Exec>>(params.seed + 7919ull * m_decomp.rank());
    latticeParticles(space, params.fcc, params.seed, m_a, params.cells, m_decomp.offset(),
                     m_decomp.localCells(), m_particles);
    m_atoms = static_cast<std::int64_t>(4) * params.cells[0] * params.cells[1] * params.cells[2];
    if (params.temperature > 0) {
      randomVelocities(space, *m_pool, m_particles.velocities(), owned());
      removeDrift(space);
      rescaleTo(space, params.temperature);
    }
    rebuild(space);
    computeForces(space);
  }

  /// One velocity Verlet step (with thermostat when enabled).
  void step(Exec const& space) {
    ScopedRegion region("eddy::md::step");
    double const dt = m_params.dt;
    kickDrift(space, dt, m_particles.positions(), m_particles.velocities(), m_particles.forces(),
              owned());
    updateNeighbors(space);
    computeForces(space);
    kick(space, dt, m_particles.velocities(), m_particles.forces(), owned());
    if (m_params.thermostat == Thermostat::Berendsen) {
      double const t = diagnosticsKinetic(space) * 2.0 / dof();
      if (t > 0) {
        double const target = m_params.thermostatTemperature;
        scaleVelocities(space, m_particles.velocities(), owned(),
                        std::sqrt(1.0 + dt / m_params.berendsenTau * (target / t - 1.0)));
      }
    }
    ++m_steps;
  }

  /// Rebuilds the neighbour list when some atom moved more than skin / 2 since the last
  /// build, else refreshes the ghost positions. Returns true on a rebuild.
  bool updateNeighbors(Exec const& space) {
    if (m_list.needsRebuild(space, m_comm, m_particles.positions())) {
      rebuild(space);
      return true;
    }
    m_ghosts->refreshPositions(space, m_particles.positions());
    return false;
  }

  /// Migration, optional sort by bin, ghosts, bins and Verlet list.
  void rebuild(Exec const& space) {
    ScopedRegion region("eddy::md::rebuild");
    m_particles.resize(space, owned());
    m_migration->migrate(space, m_particles);
    m_particles.setOwned(m_particles.size());
    double const w = m_list.radius();
    if (m_params.sortByBin) sortByBin(space);
    m_ghosts->build(space, m_particles, owned());
    std::array<double, 3> lo{}, hi{};
    for (int d = 0; d < 3; ++d) {
      lo[d] = m_domain.lo[d] - w;
      hi[d] = m_domain.hi[d] + w;
    }
    m_bins.build(space, m_particles.positions(), m_particles.size(), lo, hi, 0.5 * w);
    m_list.build(space, m_particles.positions(), m_particles.ids(), owned(), m_bins);
    if (m_params.list == neighbor::ListKind::Half && m_scatterData != m_particles.forces().data()) {
      m_scatter = ForceScatter<Exec, memory_space>(m_particles.forces());
      m_scatterData = m_particles.forces().data();
    }
  }

  /// Forces on the owned particles at the current positions (ghosts must be current).
  void computeForces(Exec const& space) {
    auto const list = m_list.view();
    if (m_params.list == neighbor::ListKind::Full) {
      forcesFull(space, m_lj, m_particles.positions(), m_particles.forces(), list, owned());
    } else {
      forcesHalf(space, m_lj, m_particles.positions(), m_particles.forces(), m_scatter, list,
                 owned(), m_particles.size());
      m_ghosts->reverseSum(space, m_particles.forces());
    }
    if (m_params.thermostat == Thermostat::Langevin)
      langevinForces(space, *m_pool, m_params.langevinDamping, m_params.thermostatTemperature,
                     m_params.dt, m_particles.velocities(), m_particles.forces(), owned());
  }

  /// Collective: energies, temperature, pressure and momentum.
  Diagnostics diagnostics(Exec const& space) const {
    ScopedRegion region("eddy::md::diagnostics");
    Diagnostics d;
    d.atoms = m_atoms;
    auto const v = m_particles.velocities();
    d.kinetic = diagnosticsKinetic(space);
    auto const sums = pairSums(space, m_lj, m_particles.positions(), m_list.view(), owned(),
                               m_params.list == neighbor::ListKind::Half);
    double local[2] = {sums.energy, sums.virial}, global[2] = {0.0, 0.0};
    checkMpi(MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, m_comm),
             "MPI_Allreduce (eddy::md::diagnostics)");
    d.potential = global[0];
    d.virial = global[1];
    for (int c = 0; c < 3; ++c)
      d.momentum[c] = globalSum(
          space, m_comm, owned(), KOKKOS_LAMBDA(const std::int64_t i) { return v(i, c); });
    d.temperature = 2.0 * d.kinetic / dof();
    d.pressure = (2.0 * d.kinetic + d.virial) / (3.0 * volume());
    return d;
  }
  /// Collective: total kinetic energy.
  double diagnosticsKinetic(Exec const& space) const {
    auto const v = m_particles.velocities();
    return 0.5 * globalSum(
                     space, m_comm, owned(), KOKKOS_LAMBDA(const std::int64_t i) {
                       return v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2);
                     });
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

  /// Zero total momentum (subtracts the mean velocity).
  void removeDrift(Exec const& space) {
    auto const v = m_particles.velocities();
    std::array<double, 3> mean{};
    for (int c = 0; c < 3; ++c)
      mean[c] =
          globalSum(
              space, m_comm, owned(), KOKKOS_LAMBDA(const std::int64_t i) { return v(i, c); }) /
          static_cast<double>(m_atoms);
    shiftVelocities(space, v, owned(), mean);
  }
  /// Scales velocities to temperature `t` exactly.
  void rescaleTo(Exec const& space, double t) {
    double const now = 2.0 * diagnosticsKinetic(space) / dof();
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

  /// Switches the thermostat (e.g. off after equilibration).
  void setThermostat(Thermostat t) { m_params.thermostat = t; }

  Particles<memory_space>& particles() { return m_particles; }
  Particles<memory_space> const& particles() const { return m_particles; }
  neighbor::VerletList<Exec> const& list() const { return m_list; }
  ParticleGhosts<Exec> const& ghosts() const { return *m_ghosts; }
  CartDecomposition const& decomposition() const { return m_decomp; }
  ParticleDomain const& domain() const { return m_domain; }
  Parameters const& parameters() const { return m_params; }
  LennardJones const& potential() const { return m_lj; }
  int owned() const { return m_particles.owned(); }
  std::int64_t atoms() const { return m_atoms; }
  long long steps() const { return m_steps; }
  /// Neighbour-list builds, the initial one included.
  long long rebuilds() const { return m_list.buildCount(); }
  double latticeConstant() const { return m_a; }
  double volume() const { return m_domain.length[0] * m_domain.length[1] * m_domain.length[2]; }
  /// Degrees of freedom for the temperature: 3N - 3 (total momentum is fixed).
  double dof() const { return 3.0 * static_cast<double>(m_atoms) - 3.0; }

 private:
  MPI_Comm m_comm;
  Parameters m_params;
  CartDecomposition m_decomp;
  ParticleDomain m_domain;
  LennardJones m_lj;
  double m_a = 1.0;
  std::int64_t m_atoms = 0;
  long long m_steps = 0;
  Particles<memory_space> m_particles, m_scratch;
  std::unique_ptr<ParticleMigration<Exec>> m_migration;
  std::unique_ptr<ParticleGhosts<Exec>> m_ghosts;
  neighbor::BinList<Exec> m_bins;
  neighbor::VerletList<Exec> m_list;
  ForceScatter<Exec, memory_space> m_scatter;
  double* m_scatterData = nullptr;
  std::unique_ptr<RandomPool<Exec>> m_pool;
};

}  // namespace eddy::md
