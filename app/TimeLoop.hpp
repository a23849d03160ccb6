/// @file TimeLoop.hpp
/// @brief The time loop of `eddy run`, so that what happens between steps (progress lines,
/// diagnostics, snapshots, checkpoints, the end of the run) is decided in one place.
#pragma once

namespace eddy::app {

/// The step the loop takes next, planned before it is taken.
struct NextStep {
  long long step = 0;  ///< the step count after it
  double dt = 0;       ///< its time step
  double before = 0;   ///< the simulated time before it ...
  double after = 0;    ///< ... and after it (before + dt, as the loop predicts it)
  bool last = false;   ///< the run ends after it (run.steps, run.end_time or a stop)
  bool stop = false;   ///< ... and ends early: a stop signal or run.max_wall_time
};

/// What the loop does between steps; each member is a callable.
/// - `plan()` (collective) plans the next step, or returns none (`step < 0`) when the run has
///   already reached its end (a restart from the last checkpoint of a finished run);
/// - `step(next, more)` takes it; `more`: the loop takes the step after it with nothing in
///   between (no progress line, sample, snapshot or checkpoint), so the step may leave work to
///   the next one (the md model's closing half kick);
/// - `report(next)` says whether a progress line is due after the step (the caller prints the
///   first and the last); `progress()` prints one;
/// - `sampleDue(next)` / `sample(next)` record diagnostics (sample checks itself what is due);
/// - `snapshotDue(next)` / `snapshot()` write output, also on a step the run stops after (the
///   run continuing it starts after that step);
/// - `checkpointDue(next)` / `checkpoint()` write the state, last, so that everything a step's
///   output holds is on disk before a checkpoint of that step exists (a stopped run's last step
///   always gets one).
template <class Plan, class Step, class ReportDue, class Progress, class SampleDue, class Sample,
          class SnapshotDue, class Snapshot, class CheckpointDue, class Checkpoint>
struct LoopActions {
  Plan plan;
  Step step;
  ReportDue reportDue;
  Progress progress;
  SampleDue sampleDue;
  Sample sample;
  SnapshotDue snapshotDue;
  Snapshot snapshot;
  CheckpointDue checkpointDue;
  Checkpoint checkpoint;
};

template <class... A>
LoopActions<A...> loopActions(A... a) {
  return LoopActions<A...>{a...};
}

/// Runs until a planned step is the last. A fresh run (`fresh`: step 0) samples and writes its
/// step-0 output first (`start` describes step 0: step 0, before = after = the start time); a
/// restarted run does not, as the run it continues wrote the output of its step before the
/// checkpoint. Returns the last step taken (`step` < 0 when none was).
template <class Actions>
NextStep runTimeLoop(bool fresh, NextStep const& start, Actions&& a) {
  if (fresh) {
    a.sample(start);
    if (a.snapshotDue(start)) a.snapshot();
  }
  NextStep n;
  n.step = -1;
  for (;;) {
    NextStep const next = a.plan();
    if (next.step < 0) break;
    n = next;
    bool const report = !n.last && a.reportDue(n);
    bool const snapshot = a.snapshotDue(n);
    bool const checkpoint = n.stop || a.checkpointDue(n);
    a.step(n, !n.last && !report && !a.sampleDue(n) && !snapshot && !checkpoint);
    if (report) a.progress();
    a.sample(n);
    if (snapshot) a.snapshot();
    if (checkpoint) a.checkpoint();
    if (n.last) break;
  }
  return n;
}

}  // namespace eddy::app
