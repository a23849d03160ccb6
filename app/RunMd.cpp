#include "RunMd.hpp"

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

namespace eddy::app {

namespace {

md::Parameters readParameters(io::Deck const& deck) {
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
  p.list =
      deck.getString("md.neighbor") == "full" ? neighbor::ListKind::Full : neighbor::ListKind::Half;
  p.sortByBin = deck.getBool("md.sort");
  std::string const t = deck.getString("md.thermostat");
  p.thermostat = t == "berendsen"  ? md::Thermostat::Berendsen
                 : t == "langevin" ? md::Thermostat::Langevin
                                   : md::Thermostat::None;
  p.thermostatTemperature = deck.getDouble("md.thermostat_temperature");
  p.berendsenTau = deck.getDouble("md.berendsen_tau");
  p.langevinDamping = deck.getDouble("md.langevin_damping");
  p.seed = static_cast<std::uint64_t>(deck.getInt("md.seed"));
  return p;
}

}  // namespace

int runMd(Runtime const& rt, io::Deck const& deck) {
  md::Parameters const p = readParameters(deck);
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
                p.list == neighbor::ListKind::Half ? "half" : "full", " list, dt ", p.dt, ", ",
                steps, " steps, thermostat ", deck.getString("md.thermostat"),
                p.thermostat != md::Thermostat::None && thermostatSteps > 0
                    ? str(" for ", thermostatSteps, " steps")
                    : std::string(),
                "; setup ", formatDuration(log::elapsed() - setupStart)));

  double const atoms = static_cast<double>(system.atoms());
  auto report = [&](double loopStart) {
    auto const d = system.diagnostics(space);
    long long const done = system.steps();
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "step %8lld/%lld  T %.6f  PE %.8f  KE %.8f  E %.10f  P %.6f  rebuilds %lld  ",
                  done, steps, d.temperature, d.potential / atoms, d.kinetic / atoms,
                  d.total() / atoms, d.pressure, system.rebuilds());
    log::info(buf + progressTail(log::elapsed() - loopStart, done, steps, atoms, "atom-steps"));
    return d;
  };

  SnapshotOutput output(rt, deck, {});
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
                                 {"rebuilds", "1"}});
  MdAnalyses analyses(rt, deck, p.cutoff);
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
  runTimeLoop(
      steps, every,
      [&](long long s) {
        if (thermostatSteps > 0 && s == thermostatSteps) system.setThermostat(md::Thermostat::None);
        system.step(space);
      },
      [&] { report(loopStart); }, sample, [&](long long s) { return output.due(s, steps); },
      snapshot);
  space.fence();
  double const loopSeconds = log::elapsed() - loopStart;
  auto const last = report(loopStart);
  double const checksum = system.checksum(space);
  log::info(str("final: step ", system.steps(), ", E/N ", last.total() / atoms,
                ", relative change of E ",
                (last.total() - first.total()) / std::fabs(first.total()), ", T ", last.temperature,
                ", P ", last.pressure, ", rebuilds ", system.rebuilds(), ", ",
                steps > 0 && loopSeconds > 0 ? atoms * steps / loopSeconds : 0.0,
                " atom-steps/s, trajectory checksum ", hexBits(checksum), " (", checksum, ")"));
  return 0;
}

}  // namespace eddy::app
