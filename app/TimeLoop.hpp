/// @file TimeLoop.hpp
/// @brief The time loop the model drivers of `eddy run` share, so that what happens between
/// steps (progress lines, diagnostics, snapshots, later checkpoints) is decided in one place.
#pragma once

namespace eddy::app {

/// Runs `steps` steps: `step(s)` advances from step s to s + 1; `report()` prints a progress line
/// every `every` steps (the caller prints the first and the last); `sample()` records
/// diagnostics (it checks itself whether they are due); `snapshotDue(s)` / `snapshot()` write
/// output after step 0 and after each step.
template <class Step, class Report, class Sample, class SnapshotDue, class Snapshot>
void runTimeLoop(long long steps, long long every, Step&& step, Report&& report, Sample&& sample,
                 SnapshotDue&& snapshotDue, Snapshot&& snapshot) {
  sample();
  if (snapshotDue(0LL)) snapshot();
  for (long long s = 0; s < steps; ++s) {
    step(s);
    if ((s + 1) % every == 0 && s + 1 < steps) report();
    sample();
    if (snapshotDue(s + 1)) snapshot();
  }
}

}  // namespace eddy::app
