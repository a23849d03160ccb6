#include "RunFluids.hpp"

#include "DiagnosticsOutput.hpp"
#include "Format.hpp"
#include "SnapshotOutput.hpp"
#include "TimeLoop.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"
#include "fluids/NavierStokes.hpp"

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
  return p;
}

}  // namespace

int runFluids(Runtime const& rt, io::Deck const& deck, CartDecomposition const& decomp) {
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
                model.poisson().levels(), " levels, tolerance ", p.poisson.tolerance, ", cap ",
                p.poisson.maxIterations, "); ",
                static_cast<double>(model.fieldBytes() + model.poisson().bytes()) / localCells,
                " bytes per cell (fields and Poisson solver, ghosts included)"));

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
        progressTail(log::elapsed() - loopStart, done, steps, cells, "cell-updates").c_str());
    log::info(buf);
    return d;
  };

  std::vector<std::string> available{"pressure", "u", "v"};
  if (decomp.dims() == 3) available.push_back("w");
  available.push_back("divergence");
  SnapshotOutput output(rt, deck, available);
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
                                 {"poisson_residual", "1"}});
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
  runTimeLoop(
      steps, every, [&](long long) { model.step(space); }, [&] { report(loopStart); }, sample,
      [&](long long s) { return output.due(s, steps); }, snapshot);
  space.fence();
  auto const last = report(loopStart);
  std::string const reference =
      last.hasReference ? str(", error vs analytic: L2 ", last.l2Error, ", max ", last.maxError,
                              " (relative ", last.maxError / last.referenceScale, ")")
                        : std::string();
  log::info(str("final: t ", model.time(), " s, KE ", last.kineticEnergy, ", enstrophy ",
                last.enstrophy, ", max|div u| ", last.maxDivergence, reference, ", checksum ",
                hexBits(last.checksum), " (", last.checksum, ")"));
  return 0;
}

}  // namespace eddy::app
