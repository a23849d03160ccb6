/// @file SnapshotOutput.hpp
/// @brief The deck's `output` section for the drivers of `eddy run`: when to write a snapshot,
/// which fields, and host copies of device fields in the layout eddy::io expects.
#pragma once

#include "Model.hpp"
#include "RunControl.hpp"
#include "TimeLoop.hpp"

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Snapshot.hpp"

#include <memory>
#include <string>
#include <vector>

namespace eddy::app {

/// The words of `output.fields` (separated by spaces or commas) in deck order; none without an
/// `output` section.
std::vector<std::string> requestedFields(io::Deck const& deck);

/// Snapshots of a run as the deck's `output` section asks; does nothing without that section
/// or with `output.every: 0` (and no `output.every_time`).
class SnapshotOutput {
 public:
  /// `available`: the grid fields the run can write (checkDeck made sure that `output.fields`
  /// names only these); `all` stands for those not written on request only. `timeUnits`: the
  /// run's, for the log line.
  SnapshotOutput(Runtime const& rt, io::Deck const& deck, std::vector<FieldInfo> const& available,
                 std::string const& timeUnits);

  bool active() const { return m_writer != nullptr; }
  /// True at step 0, on the schedule (output.every or output.every_time), and at the run's last
  /// step; a step the run stops after (a signal, run.max_wall_time) only on the schedule, as the
  /// run that continues it starts after that step.
  bool due(NextStep const& next) const;
  /// True when `name` was asked for.
  bool wants(std::string const& name) const;
  /// Collective: writes the snapshot and logs its path.
  void write(io::SnapshotData const& data);
  /// The snapshots written so far (io::snapshotIndexText), stored in checkpoints.
  std::string indexText() const;
  /// Collective, at a restart from a checkpoint of step `step` whose snapshot index is
  /// `indexText`: continues that index (entries after `step`, written by a run that went on
  /// past the checkpoint, are dropped; their files are overwritten as the run gets there).
  void resume(std::string const& indexText, long long step);

 private:
  std::unique_ptr<io::SnapshotWriter> m_writer;
  Schedule m_schedule;
  std::vector<std::string> m_fields;
};

}  // namespace eddy::app
