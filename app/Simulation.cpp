#include "Simulation.hpp"

#include "Format.hpp"
#include "TimeLoop.hpp"

#include "Commands.hpp"
#include "DiagnosticsOutput.hpp"
#include "RunFluids.hpp"
#include "RunMd.hpp"
#include "SnapshotOutput.hpp"
#include "diffusion/Diffusion.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Transport.hpp"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace eddy::app {

void createOutputDirectory(MPI_Comm comm, std::string const& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  char reason[256] = {0};
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) {
      std::snprintf(reason, sizeof reason, "%s", ec.message().c_str());
    } else if (!std::filesystem::is_directory(path)) {
      std::snprintf(reason, sizeof reason, "it exists and is not a directory");
    }
  }
  checkMpi(MPI_Bcast(reason, sizeof reason, MPI_CHAR, 0, comm), "MPI_Bcast(output directory)");
  if (reason[0] != '\0')
    throw IoError(str("cannot create output directory '", path, "': ", reason), true);
}

namespace {

std::array<int, 3> toIndex3(std::vector<std::int64_t> const& v, int fill) {
  std::array<int, 3> r{fill, fill, fill};
  for (std::size_t a = 0; a < v.size() && a < 3; ++a) r[a] = static_cast<int>(v[a]);
  return r;
}

int runDiffusion(Runtime const& rt, io::Deck const& deck, CartDecomposition const& decomp) {
  diffusion::Parameters p;
  p.diffusivity = deck.getDouble("diffusion.diffusivity");
  p.dt = deck.getDouble("diffusion.dt");
  p.stability = deck.getDouble("diffusion.stability");
  p.mode = toIndex3(deck.getIntList("diffusion.mode"), 0);
  p.amplitude = deck.getDouble("diffusion.amplitude");
  p.background = deck.getDouble("diffusion.background");
  auto const lengthList = deck.getDoubleList("grid.length");
  std::array<double, 3> length{1.0, 1.0, 1.0};
  for (std::size_t a = 0; a < lengthList.size() && a < 3; ++a) length[a] = lengthList[a];

  ExecSpace const space;
  diffusion::Model model(space, rt.comm(), decomp, length,
                         static_cast<int>(deck.getInt("grid.ghost")), p);
  long long const steps = deck.getInt("run.steps");
  long long const every = deck.getInt("run.progress_every");
  double cells = 1;
  for (int a = 0; a < decomp.dims(); ++a) cells *= decomp.globalCells()[a];

  log::info(str("diffusion: kappa ", p.diffusivity, " m^2/s, dt ", model.dt(), " s (",
                model.dt() / model.stableDt(), " of the stability limit), ", steps,
                " steps to t = ", steps * model.dt(), " s"));
  auto report = [&](double loopStart) {
    auto const d = model.diagnostics(space);
    long long const done = model.stepCount();
    char buf[320];
    std::snprintf(
        buf, sizeof buf,
        "step %8lld/%lld  t %.6e  dt %.3e  total %.12e  max|u| %.6e  L2 err %.3e  %s", done, steps,
        model.time(), model.dt(), d.total, d.maxAbs, d.l2Error,
        progressTail(log::elapsed() - loopStart, done, steps, cells, "cell-updates").c_str());
    log::info(buf);
    return d;
  };

  SnapshotOutput output(rt, deck, {"u"});
  auto snapshot = [&] {
    io::SnapshotData d;
    d.step = model.stepCount();
    d.time = model.time();
    d.dt = model.dt();
    d.hasGrid = true;
    d.grid = gridGeometry(decomp, length);
    if (output.wants("u")) d.fields.push_back({"u", "1", ownedCells(model.field())});
    output.write(d);
  };

  DiagnosticsOutput diagnostics(rt, deck,
                                {{"step", "1"},
                                 {"t", "s"},
                                 {"dt", "s"},
                                 {"total", "1"},
                                 {"max_abs_u", "1"},
                                 {"l2_error", "1"}});
  auto sample = [&] {
    if (!diagnostics.due(model.stepCount())) return;
    auto const d = model.diagnostics(space);
    diagnostics.record({static_cast<double>(model.stepCount()), model.time(), model.dt(), d.total,
                        d.maxAbs, d.l2Error});
  };

  double const loopStart = log::elapsed();
  report(loopStart);
  runTimeLoop(
      steps, every, [&](long long, bool) { model.step(space); }, [&] { report(loopStart); },
      [&](long long s) { return diagnostics.due(s); }, sample,
      [&](long long s) { return output.due(s, steps); }, snapshot);
  space.fence();
  auto const last = report(loopStart);
  log::info(str("final: t ", model.time(), " s, L2 error vs analytic ", last.l2Error, ", relative ",
                last.l2Error / (p.amplitude * std::exp(-model.decayRate() * model.time())),
                ", checksum ", hexBits(last.checksum), " (", last.checksum, ")"));
  return 0;
}

}  // namespace

int runDeck(Runtime const& rt, io::Deck const& deck, std::string const& restart) {
  double const wallStart = log::elapsed();
  std::string const outDir = deck.getString("run.output_dir");
  createOutputDirectory(rt.comm(), outDir);
  log::addFile(outDir + "/eddy.log");
  if (deck.getBool("run.debug_log")) log::enableDebug(outDir);
  if (char const* dir = std::getenv("EDDY_DEBUG_LOG")) {
    createOutputDirectory(rt.comm(), dir);
    log::enableDebug(dir);
  }
  std::string const aware = deck.getString("parallel.gpu_aware_mpi");
  if (aware != "auto") setenv("EDDY_GPU_AWARE_MPI", aware == "on" ? "1" : "0", 1);
  transport::select(deck.getString("parallel.transport"));  // auto honours EDDY_TRANSPORT

  log::info(str(versionLine(), ", ", rt.size(), " rank(s), execution space ", ExecSpace::name()));
  log::info(str("deck ", deck.path(), " (resolved):\n", deck.resolvedYaml()));

  auto const cells = deck.getIntList("grid.cells");
  int const dims = static_cast<int>(cells.size());
  auto const periodicList = deck.getBoolList("grid.periodic");
  std::array<bool, 3> periodic{false, false, false};
  for (std::size_t a = 0; a < periodicList.size() && a < 3; ++a) periodic[a] = periodicList[a];
  CartDecomposition const decomp =
      CartDecomposition::fromComm(rt.comm(), toIndex3(cells, 1), dims, periodic,
                                  toIndex3(deck.getIntList("parallel.decomposition"), 0));
  log::info(str("decomposition: ", decomp.describe(), "; transport ", transport::describe()));
  if (transport::gpuShared())
    log::warn(str("ranks of one node drive the same GPU (", rt.localSize(),
                  " ranks on this node): the GPU time-slices between their processes, so each "
                  "message waits for the other process's turn, and nccl and cuda-ipc are off. "
                  "Runs can be many times slower than with one rank per GPU; launch as many "
                  "ranks per node as it has GPUs"));
  if (log::debugEnabled()) log::debug(str("rank ", rt.rank(), ": ", decomp.describe()));

  int code = 0;
  if (deck.has("diffusion")) {
    if (deck.has("checkpoint") || !restart.empty() || !deck.getString("run.restart").empty())
      throw ConfigError(str("deck ", deck.path(),
                            ": the diffusion model has no checkpoints; remove the checkpoint "
                            "section and run.restart (checkpoints: fluids, md)"));
    code = runDiffusion(rt, deck, decomp);
  } else if (deck.has("fluids")) {
    code = runFluids(rt, deck, decomp, restart);
  } else if (deck.has("md")) {
    code = runMd(rt, deck, restart);
  } else {
    throw ConfigError(
        str("deck ", deck.path(),
            " names no model: add a model section (available: diffusion, md, fluids)"));
  }
  double const wall = log::elapsed() - wallStart;
  std::string const summary = timing::summary(rt.comm(), wall);
  log::info(str("timing summary (", rt.size(), " ranks):\n", summary));
  return code;
}

}  // namespace eddy::app
