/// @file TimeLoop.hpp
/// @brief The time loop the model drivers of `eddy run` share, so that what happens between
/// steps (progress lines, diagnostics, snapshots, checkpoints) is decided in one place.
#pragma once

namespace eddy::app {

/// What the loop does between steps; each member is a callable.
/// - `step(s, more)` advances from step s to s + 1; `more`: the loop takes step s + 1 next with
///   nothing in between (no progress line, sample, snapshot or checkpoint), so the step may
///   leave work to the next one (the md model's closing half kick);
/// - `report()` prints a progress line every `every` steps (the caller prints the first and the
///   last);
/// - `sampleDue(s)` / `sample()` record diagnostics (sample checks itself whether they are due);
/// - `snapshotDue(s)` / `snapshot()` write output;
/// - `checkpointDue(s)` / `checkpoint()` write the state, last, so that everything a step's
///   output holds is on disk before a checkpoint of that step exists.
template <class Step, class Report, class SampleDue, class Sample, class SnapshotDue,
          class Snapshot, class CheckpointDue, class Checkpoint>
struct LoopActions {
  Step step;
  Report report;
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

/// Runs from step `first` to `steps`. A fresh run (first = 0) samples and writes its step-0
/// output first; a restarted run (first > 0) does not, as the run it continues wrote the output
/// of step `first` before its checkpoint.
template <class Actions>
void runTimeLoop(long long first, long long steps, long long every, Actions&& a) {
  if (first == 0) {
    a.sample();
    if (a.snapshotDue(0LL)) a.snapshot();
  }
  for (long long s = first; s < steps; ++s) {
    long long const next = s + 1;
    bool const report = next % every == 0 && next < steps;
    bool const snapshot = a.snapshotDue(next), checkpoint = a.checkpointDue(next);
    a.step(s, next < steps && !report && !a.sampleDue(next) && !snapshot && !checkpoint);
    if (report) a.report();
    a.sample();
    if (snapshot) a.snapshot();
    if (checkpoint) a.checkpoint();
  }
}

/// Runs `steps` steps from step 0 without checkpoints (see above for the callables).
template <class Step, class Report, class SampleDue, class Sample, class SnapshotDue,
          class Snapshot>
void runTimeLoop(long long steps, long long every, Step&& step, Report&& report,
                 SampleDue&& sampleDue, Sample&& sample, SnapshotDue&& snapshotDue,
                 Snapshot&& snapshot) {
  runTimeLoop(0, steps, every,
              loopActions([&](long long s, bool more) { step(s, more); }, [&] { report(); },
                          [&](long long s) { return sampleDue(s); }, [&] { sample(); },
                          [&](long long s) { return snapshotDue(s); }, [&] { snapshot(); },
                          [](long long) { return false; }, [] {}));
}

}  // namespace eddy::app
