#include "RunFluids.hpp"

#include "CheckpointOutput.hpp"
#include "DiagnosticsOutput.hpp"
#include "Format.hpp"
#include "SnapshotOutput.hpp"
#include "TimeLoop.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"
#include "fluids/NavierStokes.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace eddy::app {

namespace {

std::array<double, 3> toArray3(std::vector<double> const& v) {
  std::array<double, 3> r{0.0, 0.0, 0.0};
  for (std::size_t a = 0; a < v.size() && a < 3; ++a) r[a] = v[a];
  return r;
}

fluids::Parameters parameters(io::Deck const& deck, CartDecomposition const& decomp) {
  fluids::Parameters p;
  p.viscosity = deck.getDouble("fluids.viscosity");
  p.density = deck.getDouble("fluids.density");
  p.initial = fluids::initialConditionFromString(deck.getString("fluids.initial"));
  p.velocityScale = deck.getDouble("fluids.velocity_scale");
  p.bodyForce = toArray3(deck.getDoubleList("fluids.body_force"));
  p.dt = deck.getDouble("fluids.dt");
  p.cfl = deck.getDouble("fluids.cfl");
  p.maxDt = deck.getDouble("fluids.max_dt");
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      auto& face = p.boundaries.at(a, side);
      std::string const name = fluids::FlowBoundaries::faceName(a, side);
      std::string const kind = deck.getString("fluids.boundary." + name);
      if (kind == "auto")
        face.kind =
            decomp.isPeriodic(a) ? fluids::BoundaryKind::Periodic : fluids::BoundaryKind::Wall;
      else
        face.kind = fluids::boundaryKindFromString(kind);
      face.velocity = toArray3(deck.getDoubleList("fluids.wall_velocity." + name));
    }
  }
  p.poisson.method = fluids::poissonMethodFromString(deck.getString("fluids.poisson.method"));
  p.poisson.tolerance = deck.getDouble("fluids.poisson.tolerance");
  p.poisson.maxIterations = static_cast<int>(deck.getInt("fluids.poisson.max_iterations"));
  p.poisson.preSmooth = static_cast<int>(deck.getInt("fluids.poisson.pre_sweeps"));
  p.poisson.postSmooth = static_cast<int>(deck.getInt("fluids.poisson.post_sweeps"));
  p.guess = fluids::poissonGuessFromString(deck.getString("fluids.poisson.guess"));
  p.poisson.mixedPrecision = deck.getString("fluids.poisson.precision") == "mixed";
  if (p.poisson.method == fluids::PoissonMethod::MultigridCG &&
      p.poisson.preSmooth + p.poisson.postSmooth < 1)
    throw ConfigError(
        "fluids.poisson.pre_sweeps and post_sweeps are both 0: the multigrid V-cycle would not "
        "smooth at all; expected pre_sweeps + post_sweeps >= 1");
  std::string const overlap = deck.getString("parallel.overlap");
  // auto = off: on two H200s the overlapped step was 1% (512^3) and 4-6% (256^3) slower than
  // exchanging first (its interior/shell split adds launches to a latency-bound step).
  p.overlap = overlap == "on";
  return p;
}

template <class T>
std::string listText(std::vector<T> const& v) {
  std::string s = "[";
  for (std::size_t a = 0; a < v.size(); ++a) s += str(a ? ", " : "", v[a]);
  return s + "]";
}

char const* const kVelocityName[3] = {"u", "v", "w"};

/// The model's state as a checkpoint: face velocities, pressure and Poisson guess as global
/// arrays (any rank count reads them back), step, time and the last step's statistics.
io::CheckpointData fluidsState(fluids::Model const& model) {
  auto const& decomp = model.decomposition();
  io::CheckpointData d;
  d.step = model.stepCount();
  d.time = model.time();
  auto& a = d.attributes;
  for (int c = 0; c < decomp.dims(); ++c) {
    a.integers["cells"].push_back(decomp.globalCells()[c]);
    a.reals["length"].push_back(model.length()[c]);
  }
  auto const& s = model.lastStep();
  a.reals["last_dt"] = {s.dt};
  a.reals["last_cfl"] = {s.cfl};
  a.integers["last_poisson_iterations"] = {s.poissonIterations};
  a.reals["last_poisson_residual"] = {s.poissonResidual};
  a.reals["last_max_divergence"] = {s.maxDivergence};
  for (int c = 0; c < decomp.dims(); ++c)
    d.grids.push_back(ownedEntries(model.velocity(c), decomp, kVelocityName[c], "m/s"));
  // Kinematic pressure (p / rho), as the model holds it.
  d.grids.push_back(ownedEntries(model.pressure(), decomp, "pressure", "m^2/s^2"));
  d.grids.push_back(ownedEntries(model.poissonGuess(), decomp, "poisson_guess", "m^2/s^2"));
  // The older increments the guess extrapolates from, and the time steps of all.
  int const known = model.poissonIncrements();
  a.integers["poisson_increments"] = {known};
  for (int i = 1; i < known; ++i)
    d.grids.push_back(
        ownedEntries(model.poissonIncrement(i), decomp, str("poisson_increment_", i), "m^2/s^2"));
  auto const& dts = model.poissonIncrementDt();
  if (known > 0) a.reals["poisson_increment_dt"] = {dts.begin(), dts.begin() + known};
  return d;
}

/// Collective: puts the state of checkpoint `file` into `model` (any rank count), after
/// checking that it is a run on the same grid.
void restoreFluids(ExecSpace const& space, fluids::Model& model, io::CheckpointReader const& file) {
  auto const& decomp = model.decomposition();
  std::vector<std::int64_t> cells;
  std::vector<double> length;
  for (int c = 0; c < decomp.dims(); ++c) {
    cells.push_back(decomp.globalCells()[c]);
    length.push_back(model.length()[c]);
  }
  requireSame(file, "grid.cells", listText(cells), listText(file.integers("cells")));
  requireSame(file, "grid.length", listText(length), listText(file.reals("length")));
  auto block = [&](Field<MemSpace> const& f, std::string const& name) {
    io::CheckpointGrid const g = ownedEntries(f, decomp, name, "");
    requireSame(file, str("shape of array '", name, "'"), toString(g.global),
                toString(file.gridShape(name)));
    return file.readGrid(name, g.offset, g.count);
  };
  std::array<std::vector<double>, 3> u;
  for (int c = 0; c < decomp.dims(); ++c) u[c] = block(model.velocity(c), kVelocityName[c]);
  std::vector<double> const p = block(model.pressure(), "pressure");
  fluids::GuessState guess;
  guess.phi.push_back(block(model.poissonGuess(), "poisson_guess"));
  if (file.attributes().integers.count("poisson_increments") > 0) {
    // Only the increments this run's guess reads.
    guess.known = static_cast<int>(std::min<std::int64_t>(
        file.integer("poisson_increments"), 1 + fluids::guessHistory(model.parameters().guess)));
    if (guess.known > 0) {
      std::vector<double> const& dts = file.reals("poisson_increment_dt");
      if (static_cast<int>(dts.size()) < guess.known)
        throw IoError(
            str("restart file '", file.path(), "': poisson_increment_dt holds ", dts.size(),
                " time step(s); expected ", guess.known, " (poisson_increments)"),
            true);
      for (int i = 0; i < guess.known; ++i) guess.dt[i] = dts[i];
    }
    for (int i = 1; i < guess.known; ++i)
      guess.phi.push_back(block(model.poissonGuess(), str("poisson_increment_", i)));
  } else {
    // Written before the guess was extrapolated: poisson_guess is the last step's increment.
    guess.known = file.real("last_dt") > 0 ? 1 : 0;
    guess.dt[0] = file.real("last_dt");
  }
  fluids::StepStats last;
  last.dt = file.real("last_dt");
  last.cfl = file.real("last_cfl");
  last.poissonIterations = static_cast<int>(file.integer("last_poisson_iterations"));
  last.poissonResidual = file.real("last_poisson_residual");
  last.maxDivergence = file.real("last_max_divergence");
  model.restoreState(space, u, p, guess, file.step(), file.time(), last);
}

}  // namespace

int runFluids(Runtime const& rt, io::Deck const& deck, CartDecomposition const& decomp,
              std::string const& restart) {
  fluids::Parameters const p = parameters(deck, decomp);
  std::array<double, 3> const length = toArray3(deck.getDoubleList("grid.length"));
  ExecSpace const space;
  fluids::Model model(space, rt.comm(), decomp, length, p);
  long long const steps = deck.getInt("run.steps");
  long long const every = deck.getInt("run.progress_every");
  double cells = 1;
  double localCells = 1;
  for (int a = 0; a < decomp.dims(); ++a) {
    cells *= decomp.globalCells()[a];
    localCells *= decomp.localCells()[a];
  }

  std::string faces;
  for (int a = 0; a < decomp.dims(); ++a)
    for (int side = 0; side < 2; ++side)
      faces += str(faces.empty() ? "" : ", ", fluids::FlowBoundaries::faceName(a, side), " ",
                   toString(p.boundaries.at(a, side).kind));
  log::info(str("fluids: ", decomp.dims(), "D MAC grid, nu ", p.viscosity, " m^2/s, initial ",
                toString(p.initial), ", ", faces, "; dt ",
                p.dt > 0 ? str(p.dt, " s fixed") : str("from cfl ", p.cfl), " (viscous limit ",
                model.viscousDt(), " s); poisson ", toString(p.poisson.method), " (",
                model.poisson().levels(), " levels",
                p.poisson.method == fluids::PoissonMethod::MultigridCG
                    ? str(", V(", p.poisson.preSmooth, ",", p.poisson.postSmooth, ")",
                          p.poisson.mixedPrecision ? ", mixed precision" : "")
                    : std::string(),
                ", tolerance ", p.poisson.tolerance, ", cap ", p.poisson.maxIterations, ", guess ",
                toString(p.guess), "); ", static_cast<double>(model.bytes()) / localCells,
                " bytes per cell (fields, halo buffers and Poisson solver, ghosts included)"));
  log::info(str("fluids: halo overlap ", p.overlap ? "on" : "off", " (parallel.overlap ",
                deck.getString("parallel.overlap"),
                deck.getString("parallel.overlap") == "auto" ? " = off for the flow model" : "",
                ", ", decomp.nranks(), " rank(s))"));

  CheckpointOutput checkpoints(rt, deck, "fluids");
  auto const restartFile = openRestart(rt, deck, restart, checkpoints.directory(), "fluids");
  if (restartFile) restoreFluids(space, model, *restartFile);
  long long const first = model.stepCount();

  auto report = [&](double loopStart) {
    auto const d = model.diagnostics(space);
    auto const& s = model.lastStep();
    long long const done = model.stepCount();
    char buf[400];
    std::snprintf(
        buf, sizeof buf,
        "step %8lld/%lld  t %.6e  dt %.3e  CFL %.3f  poisson %3d it (res %.1e)  "
        "KE %.10e  max|div| %.1e  %s",
        done, steps, model.time(), s.dt, s.cfl, s.poissonIterations, s.poissonResidual,
        d.kineticEnergy, d.maxDivergence,
        progressTail(log::elapsed() - loopStart, done - first, steps - first, cells, "cell-updates")
            .c_str());
    log::info(buf);
    return d;
  };

  std::vector<std::string> available{"pressure", "u", "v"};
  if (decomp.dims() == 3) available.push_back("w");
  available.push_back("divergence");
  SnapshotOutput output(rt, deck, available);
  if (restartFile) output.resume(restartFile->text("snapshot_index"), first);
  auto snapshot = [&] {
    io::SnapshotData d;
    d.step = model.stepCount();
    d.time = model.time();
    d.dt = model.lastStep().dt;
    d.hasGrid = true;
    d.grid = gridGeometry(decomp, length);
    std::array<Field<MemSpace> const*, 3> u{&model.velocity(0), &model.velocity(1),
                                            decomp.dims() == 3 ? &model.velocity(2) : nullptr};
    // The model's pressure is kinematic (p / rho); the file holds Pa, like the diagnostics.
    if (output.wants("pressure"))
      d.fields.push_back({"pressure", "Pa", ownedCells(model.pressure(), p.density)});
    char const* const names[3] = {"u", "v", "w"};
    for (int c = 0; c < decomp.dims(); ++c)
      if (output.wants(names[c]))
        d.fields.push_back({names[c], "m/s", cellFromFaces(u, decomp.dims(), c, model.spacing())});
    if (output.wants("divergence"))
      d.fields.push_back(
          {"divergence", "1/s", cellFromFaces(u, decomp.dims(), -1, model.spacing())});
    output.write(d);
  };

  DiagnosticsOutput diagnostics(rt, deck,
                                {{"step", "1"},
                                 {"t", "s"},
                                 {"dt", "s"},
                                 {"CFL", "1"},
                                 {"KE", "m^2/s^2"},
                                 {"enstrophy", "1/s^2"},
                                 {"max_div", "1/s"},
                                 {"poisson_iterations", "1"},
                                 {"poisson_residual", "1"}},
                                restartFile ? first : -1);
  auto sample = [&] {
    if (!diagnostics.due(model.stepCount())) return;
    auto const d = model.diagnostics(space);
    auto const& s = model.lastStep();
    diagnostics.record({static_cast<double>(model.stepCount()), model.time(), s.dt, s.cfl,
                        d.kineticEnergy, d.enstrophy, d.maxDivergence,
                        static_cast<double>(s.poissonIterations), s.poissonResidual});
  };

  double const loopStart = log::elapsed();
  report(loopStart);
  long long poissonIterations = 0;  // of this run's steps: how the guess and the cycle do
  runTimeLoop(
      first, steps, every,
      loopActions(
          [&](long long, bool) { poissonIterations += model.step(space).poissonIterations; },
          [&] { report(loopStart); }, [&](long long s) { return diagnostics.due(s); }, sample,
          [&](long long s) { return output.due(s, steps); }, snapshot,
          [&](long long s) { return checkpoints.due(s, steps); },
          [&] {
            auto d = fluidsState(model);
            checkpoints.write(d, output);
          }));
  space.fence();
  auto const last = report(loopStart);
  std::string const reference =
      last.hasReference ? str(", error vs analytic: L2 ", last.l2Error, ", max ", last.maxError,
                              " (relative ", last.maxError / last.referenceScale, ")")
                        : std::string();
  log::info(
      str("final: t ", model.time(), " s, KE ", last.kineticEnergy, ", enstrophy ", last.enstrophy,
          ", max|div u| ", last.maxDivergence, reference, ", checksum ", hexBits(last.checksum),
          " (", last.checksum, "); Poisson ", poissonIterations, " iterations in ",
          model.stepCount() - first, " steps",
          model.stepCount() > first
              ? str(" (", static_cast<double>(poissonIterations) / (model.stepCount() - first),
                    " a step)")
              : std::string()));
  return 0;
}

}  // namespace eddy::app
