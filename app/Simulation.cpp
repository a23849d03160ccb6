#include "Simulation.hpp"

#include "Format.hpp"
#include "TimeLoop.hpp"

#include "CheckpointOutput.hpp"
#include "Commands.hpp"
#include "DiagnosticsOutput.hpp"
#include "Model.hpp"
#include "ModelRegistry.hpp"
#include "RunControl.hpp"
#include "SnapshotOutput.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Environment.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Transport.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <optional>

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

/// Collective: the run's one decomposition of grid.cells over the ranks.
CartDecomposition decomposition(Runtime const& rt, io::Deck const& deck) {
  auto const cells = deck.getIntList("grid.cells");
  auto const periodicList = deck.getBoolList("grid.periodic");
  std::array<bool, 3> periodic{false, false, false};
  for (std::size_t a = 0; a < periodicList.size() && a < 3; ++a) periodic[a] = periodicList[a];
  return CartDecomposition::fromComm(rt.comm(), toIndex3(cells, 1),
                                     static_cast<int>(cells.size()), periodic,
                                     toIndex3(deck.getIntList("parallel.decomposition"), 0));
}

/// Runs `models` from their step (0, or the restart's) to the end of the run (run.steps,
/// run.end_time) or an early stop (a stop signal, run.max_wall_time): one time loop for every
/// model and every combination of models, with the progress lines, diagnostics, snapshots and
/// checkpoints of the deck. Returns the exit code; `endStep` is the step it ended at.
int runModels(Runtime const& rt, io::Deck const& deck, ModelSet& models, std::string const& restart,
              long long& endStep) {
  ExecSpace const space;
  auto const& entries = models.entries();
  Model& lead = models.lead();
  std::string const timeUnits = lead.timeUnits();
  std::optional<double> const endTime = app::endTime(deck);
  long long const steps = lastStep(deck);
  long long const every = deck.getInt("run.progress_every");
  bool const fixedStep = std::any_of(entries.begin(), entries.end(),
                                     [](auto const& e) { return e.model->fixedStep(); });

  CheckpointOutput checkpoints(rt, deck, models.names(), timeUnits);
  auto const restartFile =
      openRestart(rt, deck, restart, checkpoints.directory(), models.names());
  if (restartFile)
    for (auto const& e : entries) e.model->restore(space, StateIn(*restartFile, models.prefix(e)));
  long long const first = lead.stepCount();
  double const firstTime = lead.time();
  long long const restartStep = restartFile ? first : -1;

  SnapshotOutput output(rt, deck, snapshotFields(deck), timeUnits);
  if (restartFile) output.resume(restartFile->text("snapshot_index"), first);
  auto snapshot = [&] {
    io::SnapshotData d;
    d.step = lead.stepCount();
    d.time = lead.time();
    d.dt = lead.lastDt();
    d.timeUnits = timeUnits;
    for (auto const& e : entries) {
      std::string const prefix = models.prefix(e);
      std::vector<std::string> wanted;
      for (auto const& f : e.spec->fields(deck))
        if (output.wants(prefix + f.name)) wanted.push_back(f.name);
      std::size_t const before = d.fields.size(), vectorsBefore = d.vectors.size();
      e.model->snapshot(space, wanted, d);
      for (std::size_t i = before; i < d.fields.size(); ++i)
        d.fields[i].name = prefix + d.fields[i].name;
      for (std::size_t i = vectorsBefore; i < d.vectors.size(); ++i) {
        d.vectors[i].name = prefix + d.vectors[i].name;
        for (auto& c : d.vectors[i].components) c = prefix + c;
      }
    }
    output.write(d);
  };
  std::string lastCheckpoint;
  auto checkpoint = [&] {
    io::CheckpointData d;
    d.step = lead.stepCount();
    d.time = lead.time();
    for (auto const& e : entries) {
      StateOut out(d, models.prefix(e));
      e.model->save(space, out);
    }
    lastCheckpoint = checkpoints.write(d, output);
  };

  std::vector<Column> columns{{"step", "1"}};
  for (auto const& e : entries)
    for (auto c : e.model->columns()) columns.push_back({models.prefix(e) + c.name, c.unit});
  DiagnosticsOutput diagnostics(rt, deck, columns, restartStep, timeUnits);
  for (auto const& e : entries) e.model->begin(space, restartStep);
  auto sampleDue = [&](NextStep const& n) {
    bool due = diagnostics.due(n);
    for (auto const& e : entries) due = due || e.model->sampleDue(n.step);
    return due;
  };
  auto sample = [&](NextStep const& n) {
    if (diagnostics.due(n)) {
      std::vector<double> row{static_cast<double>(n.step)};
      for (auto const& e : entries)
        for (double v : e.model->values(space)) row.push_back(v);
      diagnostics.record(row);
    }
    for (auto const& e : entries)
      if (e.model->sampleDue(n.step)) e.model->sample(space);
  };

  // Named, not a structured binding: lambdas capture bindings only from C++20 on.
  auto const leadWork = lead.work();
  double const work = leadWork.first;
  std::string const& unit = leadWork.second;
  double const loopStart = log::elapsed();
  auto progress = [&] {
    long long const done = lead.stepCount();
    double const t = lead.time();
    // The fraction of the run done since the loop started, for the ETA: of the steps, or of
    // the simulated time, whichever is further.
    double fraction = 0;
    std::string head = str("step ", std::setw(8), done);
    if (steps != std::numeric_limits<long long>::max()) {
      head += str("/", steps);
      if (steps > first) fraction = double(done - first) / double(steps - first);
    }
    if (endTime) {
      head += str("  t_end ", *endTime);
      if (*endTime > firstTime)
        fraction = std::max(fraction, (t - firstTime) / (*endTime - firstTime));
    }
    fraction = std::min(fraction, 1.0);  // md ends at the first step past run.end_time
    std::string line = head + "  ";
    for (auto const& e : entries) line += e.model->progress(space) + "  ";
    log::info(line + progressTail(log::elapsed() - loopStart, fraction, done - first, work,
                                  unit.c_str()));
  };

  // Each step: every model's largest step, then all of them by the smallest, in order; cut
  // short to land on run.end_time and on the outputs in simulated time, unless a model takes
  // only its fixed step. A step cut short ends exactly there, up to round-off, which
  // timeTolerance covers; one that would leave less than a whole step before the target is
  // split into two halves instead of leaving a sliver.
  StopRequest stop(rt, deck);
  Schedule const schedules[] = {Schedule::fromDeck(deck, "diagnostics"),
                                Schedule::fromDeck(deck, "output"),
                                Schedule::fromDeck(deck, "checkpoint")};
  double slowestStep = 0, lastPlan = -1;
  auto plan = [&] {
    NextStep n;
    long long const s = lead.stepCount();
    double const t = lead.time();
    double const now = log::elapsed();
    if (lastPlan >= 0) slowestStep = std::max(slowestStep, now - lastPlan);
    lastPlan = now;
    if (s >= steps || (endTime && t >= *endTime - timeTolerance(*endTime))) {
      n.step = -1;
      return n;
    }
    double dt = std::numeric_limits<double>::infinity();
    for (auto const& e : entries) dt = std::fmin(dt, e.model->maxDt(space));
    if (!fixedStep) {
      double target = endTime.value_or(std::numeric_limits<double>::infinity());
      for (auto const& schedule : schedules) target = std::fmin(target, schedule.nextTime(t));
      double const left = target - t;
      if (left <= dt)
        dt = left;
      else if (left < 2 * dt)
        dt = 0.5 * left;
    }
    n.step = s + 1;
    n.dt = dt;
    n.before = t;
    n.after = t + dt;
    n.last = n.step >= steps || (endTime && n.after >= *endTime - timeTolerance(*endTime));
    if (!n.last && stop.due(slowestStep, checkpoints.slowestWrite())) n.last = n.stop = true;
    return n;
  };
  auto step = [&](NextStep const& n, bool more) {
    for (auto const& e : entries) e.model->step(space, n.dt, n.step - 1, more);
  };

  progress();
  NextStep start;
  start.before = start.after = firstTime;
  NextStep const last = runTimeLoop(
      first == 0, start,
      loopActions(plan, step, [&](NextStep const& n) { return n.step % every == 0; }, progress,
                  sampleDue, sample, [&](NextStep const& n) { return output.due(n); }, snapshot,
                  [&](NextStep const& n) { return checkpoints.due(n); }, checkpoint));
  space.fence();
  double const loopSeconds = log::elapsed() - loopStart;
  progress();
  for (auto const& e : entries)
    log::result(str("final", models.coupled() ? " " + e.spec->name : std::string(), ": ",
                    e.model->finalLine(space, loopSeconds, lead.stepCount() - first)));
  endStep = lead.stepCount();
  if (last.stop) {
    log::warn(str("stopped early at step ", last.step, " (", stop.reason(), "); checkpoint ",
                  lastCheckpoint, " holds the run: continue it with `eddy run ", deck.path(),
                  " --restart latest` (exit code ", kExitStoppedEarly, ")"));
    return kExitStoppedEarly;
  }
  return 0;
}

}  // namespace

int runDeck(Runtime const& rt, io::Deck const& deck, std::string const& restart) {
  double const wallStart = log::elapsed();
  std::string const outDir = deck.getString("run.output_dir");
  createOutputDirectory(rt.comm(), outDir);
  log::addFile(outDir + "/eddy.log");
  if (deck.getBool("run.debug_log")) log::enableDebug(outDir);
  if (auto const dir = textFromEnvironment("EDDY_DEBUG_LOG")) {
    createOutputDirectory(rt.comm(), *dir);
    log::enableDebug(*dir);
  }
  std::string const aware = deck.getString("parallel.gpu_aware_mpi");
  if (aware != "auto") mpi::setGpuAware(aware == "on", "parallel.gpu_aware_mpi: " + aware);
  transport::select(deck.getString("parallel.transport"));  // auto honours EDDY_TRANSPORT

  log::info(str(versionLine(), ", ", rt.size(), " rank(s), execution space ", ExecSpace::name()));
  if (!deck.overrides().empty()) {
    std::string list;
    for (auto const& o : deck.overrides()) list += (list.empty() ? "" : ", ") + o.text();
    log::info("deck overrides: " + list);
  }
  log::info(str("deck ", deck.path(), " (resolved):\n", deck.resolvedYaml()));

  CartDecomposition const decomp = decomposition(rt, deck);
  log::info(str("decomposition: ", decomp.describe(), "; transport ", transport::describe()));
  if (transport::gpuShared())
    log::warn(str("ranks of one node drive the same GPU (", rt.localSize(),
                  " ranks on this node): the GPU time-slices between their processes, so each "
                  "message waits for the other process's turn, and nccl is off. "
                  "Runs can be many times slower than with one rank per GPU; launch as many "
                  "ranks per node as it has GPUs"));
  if (log::debugEnabled()) log::debug(str("rank ", rt.rank(), ": ", decomp.describe()));

  std::array<double, 3> length{1.0, 1.0, 1.0};
  auto const lengthList = deck.getDoubleList("grid.length");
  for (std::size_t a = 0; a < lengthList.size() && a < 3; ++a) length[a] = lengthList[a];
  ModelSet models(ModelContext{rt, deck, decomp, length});
  for (auto const& e : models.entries())
    for (auto const& line : e.model->startLines()) log::info(line);
  long long endStep = 0;
  int const code = runModels(rt, deck, models, restart, endStep);

  double const wall = log::elapsed() - wallStart;
  std::string const summary = timing::summary(rt.comm(), wall);
  log::info(str("timing summary (", rt.size(), " ranks):\n", summary));
  long long const steps = lastStep(deck);
  std::string const of = steps == std::numeric_limits<long long>::max()
                             ? str(" (run.end_time ", deck.getDouble("run.end_time"), ")")
                             : str(" of ", steps);
  log::result(str(code == kExitStoppedEarly ? "stopped: step " : "done: step ", endStep, of,
                  " in ", formatDuration(wall), "; log ", outDir, "/eddy.log"));
  return code;
}

}  // namespace eddy::app
