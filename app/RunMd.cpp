#include "RunMd.hpp"

#include "CheckpointOutput.hpp"
#include "DiagnosticsOutput.hpp"
#include "Format.hpp"
#include "SnapshotOutput.hpp"
#include "TimeLoop.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"
#include "eddy/core/Timer.hpp"
#include "md/System.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace eddy::app {

namespace {

md::Parameters readParameters(io::Deck const& deck, int ranks) {
  md::Parameters p;
  auto const cells = deck.getIntList("grid.cells");
  if (cells.size() != 3)
    throw ConfigError(str("md: grid.cells has ", cells.size(),
                          " entries; expected 3 (lattice cells per axis of the 3D box)"));
  for (auto const periodic : deck.getBoolList("grid.periodic"))
    if (!periodic)
      throw ConfigError(
          "md: grid.periodic has a false entry; expected [true, true, true] (the "
          "md box is periodic)");
  auto const forced = deck.getIntList("parallel.decomposition");
  for (int a = 0; a < 3; ++a) {
    p.cells[a] = static_cast<int>(cells[a]);
    p.procGrid[a] = a < static_cast<int>(forced.size()) ? static_cast<int>(forced[a]) : 0;
  }
  p.fcc = deck.getString("md.lattice") == "fcc";
  p.density = deck.getDouble("md.density");
  p.temperature = deck.getDouble("md.temperature");
  p.cutoff = deck.getDouble("md.cutoff");
  p.skin = deck.getDouble("md.skin");
  p.shift = deck.getBool("md.shift");
  p.dt = deck.getDouble("md.dt");
  std::string const list = deck.getString("md.neighbor");
  bool const full = list == "full" || (list == "auto" && compat::fullNeighborList<ExecSpace>());
  p.list = full ? neighbor::ListKind::Full : neighbor::ListKind::Half;
  p.sortByBin = deck.getBool("md.sort");
  std::string const t = deck.getString("md.thermostat");
  p.thermostat = t == "berendsen"  ? md::Thermostat::Berendsen
                 : t == "langevin" ? md::Thermostat::Langevin
                                   : md::Thermostat::None;
  p.thermostatTemperature = deck.getDouble("md.thermostat_temperature");
  p.berendsenTau = deck.getDouble("md.berendsen_tau");
  p.langevinDamping = deck.getDouble("md.langevin_damping");
  p.seed = static_cast<std::uint64_t>(deck.getInt("md.seed"));
  p.reproducible = deck.getBool("md.reproducible");
  std::string const overlap = deck.getString("parallel.overlap");
  p.overlap = overlap == "on" || (overlap == "auto" && ranks > 1);
  return p;
}

template <class T, std::size_t N>
std::string listText(std::array<T, N> const& v) {
  std::string s = "[";
  for (std::size_t a = 0; a < N; ++a) s += str(a ? ", " : "", v[a]);
  return s + "]";
}
template <class T>
std::string listText(std::vector<T> const& v) {
  std::string s = "[";
  for (std::size_t a = 0; a < v.size(); ++a) s += str(a ? ", " : "", v[a]);
  return s + "]";
}

/// The system's state as a checkpoint: every atom's position, velocity, force and position at
/// the last neighbour-list build (rows in rank order), the step and the builds so far.
io::CheckpointData mdState(md::System<ExecSpace> const& system) {
  auto const& p = system.parameters();
  io::CheckpointData d;
  d.step = system.steps();
  d.time = static_cast<double>(system.steps()) * p.dt;
  auto& a = d.attributes;
  auto const& box = system.domain().length;
  auto const& grid = system.decomposition().procGrid();
  for (int c = 0; c < 3; ++c) {
    a.integers["cells"].push_back(p.cells[c]);
    a.reals["box"].push_back(box[c]);
    a.integers["proc_grid"].push_back(grid[c]);
  }
  a.integers["atoms"] = {system.atoms()};
  a.integers["rebuilds"] = {system.rebuilds()};
  a.integers["seed"] = {static_cast<std::int64_t>(p.seed)};
  a.reals["dt"] = {p.dt};
  md::AtomState const s = system.atomState();
  d.hasParticles = true;
  d.particles.id = s.id;
  d.particles.type = s.type;
  d.particles.columns = {{"position", 3, "sigma", s.x},
                         {"velocity", 3, "sigma/tau", s.v},
                         {"force", 3, "eps/sigma", s.f},
                         {"build_position", 3, "sigma", s.x0}};
  return d;
}

/// Appends the rows of `from` to `to` for which keep(row) is true.
template <class Keep>
void appendRows(io::CheckpointParticles const& from, md::AtomState& to, Keep keep) {
  auto column = [&](char const* name) {
    auto const* c = from.column(name);
    if (!c || c->width != 3)
      throw IoError(str("checkpoint: particle array '", name, "' is missing or not 3 wide"), true);
    return c;
  };
  auto const *x = column("position"), *v = column("velocity"), *f = column("force"),
             *x0 = column("build_position");
  for (std::size_t i = 0; i < from.count(); ++i) {
    if (!keep(&x0->values[3 * i])) continue;
    for (int d = 0; d < 3; ++d) {
      to.x.push_back(x->values[3 * i + d]);
      to.v.push_back(v->values[3 * i + d]);
      to.f.push_back(f->values[3 * i + d]);
      to.x0.push_back(x0->values[3 * i + d]);
    }
    to.id.push_back(from.id[i]);
    to.type.push_back(from.type[i]);
  }
}

/// Collective: puts the state of checkpoint `file` into `system` after checking that it holds
/// the same atoms in the same box. On the ranks and decomposition that wrote it, each rank takes
/// back its rows in their order; on any other, each rank takes the atoms whose position at the
/// last list build lies in its box (the rows pass by in bounded pieces).
void restoreMd(ExecSpace const& space, MPI_Comm comm, md::System<ExecSpace>& system,
               io::CheckpointReader const& file) {
  auto const& p = system.parameters();
  auto const& box = system.domain().length;
  requireSame(file, "grid.cells", listText(p.cells), listText(file.integers("cells")));
  requireSame(file, "particle count", str(system.atoms()), str(file.integer("atoms")));
  requireSame(file, "box", listText(box), listText(file.reals("box")));
  requireSame(file, "particle rows", str(system.atoms()), str(file.particleCount()));
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<std::int64_t> grid;
  for (int c = 0; c < 3; ++c) grid.push_back(system.decomposition().procGrid()[c]);
  bool const sameLayout = file.ranks() == size && file.integers("proc_grid") == grid;
  md::AtomState atoms;
  if (sameLayout) {
    long long first = 0;
    for (int r = 0; r < rank; ++r) first += file.rowsPerRank()[r];
    appendRows(file.readParticles(first, file.rowsPerRank()[rank]), atoms,
               [](double const*) { return true; });
  } else {
    auto const& dom = system.domain();
    auto mine = [&](double const* x0) {
      for (int d = 0; d < 3; ++d) {
        double q = x0[d] - dom.length[d] * std::floor(x0[d] / dom.length[d]);
        if (q >= dom.length[d]) q = 0.0;
        if (q < dom.lo[d] || q >= dom.hi[d]) return false;
      }
      return true;
    };
    long long const piece = 1 << 16;
    for (long long first = 0; first < file.particleCount(); first += piece)
      appendRows(file.readParticles(first, std::min(piece, file.particleCount() - first)), atoms,
                 mine);
  }
  system.restoreState(space, atoms, sameLayout, file.step(), file.integer("rebuilds"));
  long long const mineCount = system.owned();
  long long total = 0;
  checkMpi(MPI_Allreduce(&mineCount, &total, 1, MPI_LONG_LONG, MPI_SUM, comm),
           "MPI_Allreduce(restored atoms)");
  if (total != system.atoms())
    throw Error(str("restart from '", file.path(), "': the ranks took ", total, " of ",
                    system.atoms(), " atoms"),
                ExitCode::Failure, true);
}

}  // namespace

int runMd(Runtime const& rt, io::Deck const& deck, std::string const& restart) {
  md::Parameters const p = readParameters(deck, rt.size());
  ExecSpace const space;
  double const setupStart = log::elapsed();
  md::System<ExecSpace> system(space, rt.comm(), p);
  long long const steps = deck.getInt("run.steps");
  long long const every = deck.getInt("run.progress_every");
  long long const thermostatSteps = deck.getInt("md.thermostat_steps");
  auto const& box = system.domain().length;
  log::info(str("md: ", system.atoms(), " atoms (", p.fcc ? "fcc" : "random", ", rho* ", p.density,
                ", lattice constant ", system.latticeConstant(), "), box ", box[0], " x ", box[1],
                " x ", box[2], ", rank grid ", toString(system.decomposition().procGrid()), ", rc ",
                p.cutoff, p.shift ? " (shifted)" : "", ", skin ", p.skin, ", ",
                system.parameters().list == neighbor::ListKind::Half ? "half" : "full", " list",
                deck.getString("md.neighbor") == "auto" ? " (md.neighbor: auto)" : "",
                p.reproducible ? " (reproducible)" : "",
                system.parameters().list == neighbor::ListKind::Full && system.lanes() > 1
                    ? str(" (", system.lanes(), " vector lanes per atom)")
                    : std::string(),
                ", dt ", p.dt, ", ", steps, " steps, thermostat ", deck.getString("md.thermostat"),
                p.thermostat != md::Thermostat::None && thermostatSteps > 0
                    ? str(" for ", thermostatSteps, " steps")
                    : std::string(),
                "; setup ", formatDuration(log::elapsed() - setupStart)));
  log::info(str("md: ghost refresh overlap ", p.overlap ? "on" : "off", " (parallel.overlap ",
                deck.getString("parallel.overlap"), ", ", rt.size(), " rank(s))"));
  auto const& list = system.list();
  log::info(str("md: list build ", neighbor::listBuildName(list.buildKind()), ", bins ",
                system.binFraction(),
                " x (cutoff + skin) (EDDY_LIST_BUILD, EDDY_LIST_BIN_FRACTION)"));

  CheckpointOutput checkpoints(rt, deck, "md");
  auto const restartFile = openRestart(rt, deck, restart, checkpoints.directory(), "md");
  if (restartFile) restoreMd(space, rt.comm(), system, *restartFile);
  long long const start = system.steps();

  double const atoms = static_cast<double>(system.atoms());
  auto report = [&](double loopStart) {
    auto const d = system.diagnostics(space);
    long long const done = system.steps();
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "step %8lld/%lld  T %.6f  PE %.8f  KE %.8f  E %.10f  P %.6f  rebuilds %lld  ",
                  done, steps, d.temperature, d.potential / atoms, d.kinetic / atoms,
                  d.total() / atoms, d.pressure, system.rebuilds());
    log::info(buf + progressTail(log::elapsed() - loopStart, done - start, steps - start, atoms,
                                 "atom-steps"));
    return d;
  };

  SnapshotOutput output(rt, deck, {});
  if (restartFile) output.resume(restartFile->text("snapshot_index"), start);
  auto snapshot = [&] {
    io::SnapshotData d;
    d.step = system.steps();
    d.time = static_cast<double>(system.steps()) * p.dt;
    d.dt = p.dt;
    d.timeUnits = "1";  // reduced LJ units
    d.hasParticles = true;
    auto const& parts = system.particles();
    int const n = system.owned();
    // Host copies only here, at I/O; the first `n` rows are the owned atoms.
    auto const x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parts.positions());
    auto const v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parts.velocities());
    auto const id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parts.ids());
    auto const type = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parts.types());
    auto& out = d.particles;
    for (int i = 0; i < n; ++i) {
      for (int a = 0; a < 3; ++a) {
        out.position.push_back(x(i, a));
        out.velocity.push_back(v(i, a));
      }
      out.id.push_back(id(i));
      out.type.push_back(type(i));
    }
    output.write(d);
  };

  DiagnosticsOutput diagnostics(rt, deck,
                                {{"step", "1"},
                                 {"time", "tau"},
                                 {"T", "eps/kB"},
                                 {"PE", "eps/atom"},
                                 {"KE", "eps/atom"},
                                 {"E", "eps/atom"},
                                 {"P", "eps/sigma^3"},
                                 {"rebuilds", "1"}},
                                restartFile ? start : -1);
  MdAnalyses analyses(rt, deck, p.cutoff, restartFile ? start : -1);
  auto sample = [&] {
    if (diagnostics.due(system.steps())) {
      auto const d = system.diagnostics(space);
      diagnostics.record({static_cast<double>(system.steps()), system.steps() * p.dt, d.temperature,
                          d.potential / atoms, d.kinetic / atoms, d.total() / atoms, d.pressure,
                          static_cast<double>(system.rebuilds())});
    }
    analyses.sample(space, system);
  };

  double const loopStart = log::elapsed();
  auto const first = report(loopStart);
  runTimeLoop(start, steps, every,
              loopActions(
                  [&](long long s, bool more) {
                    // From step thermostat_steps on (also in a run restarted later): NVE.
                    if (thermostatSteps > 0 && s >= thermostatSteps)
                      system.setThermostat(md::Thermostat::None);
                    // With nothing read before the next step, the closing half kick joins its
                    // drift.
                    system.step(space, more);
                  },
                  [&] { report(loopStart); },
                  [&](long long s) { return diagnostics.due(s) || analyses.due(s); }, sample,
                  [&](long long s) { return output.due(s, steps); }, snapshot,
                  [&](long long s) { return checkpoints.due(s, steps); },
                  [&] {
                    auto d = mdState(system);
                    checkpoints.write(d, output);
                  }));
  space.fence();
  double const loopSeconds = log::elapsed() - loopStart;
  auto const last = report(loopStart);
  double const checksum = system.checksum(space);
  log::info(str("final: step ", system.steps(), ", E/N ", last.total() / atoms,
                ", relative change of E ",
                (last.total() - first.total()) / std::fabs(first.total()), ", T ", last.temperature,
                ", P ", last.pressure, ", rebuilds ", system.rebuilds(), ", ",
                steps > start && loopSeconds > 0 ? atoms * (steps - start) / loopSeconds : 0.0,
                " atom-steps/s, trajectory checksum ", hexBits(checksum), " (", checksum, ")"));
  return 0;
}

}  // namespace eddy::app
