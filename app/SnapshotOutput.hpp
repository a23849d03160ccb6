/// @file SnapshotOutput.hpp
/// @brief The deck's `output` section for the drivers of `eddy run`: when to write a snapshot,
/// which fields, and host copies of device fields in the layout eddy::io expects.
#pragma once

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Snapshot.hpp"

#include <memory>
#include <string>
#include <vector>

namespace eddy::app {

/// Snapshots of a run as the deck's `output` section asks; does nothing without that section
/// or with `output.every: 0`.
class SnapshotOutput {
 public:
  /// `available`: the grid fields the run can write (checkDeck made sure that `output.fields`
  /// names only these).
  SnapshotOutput(Runtime const& rt, io::Deck const& deck, std::vector<std::string> available);

  bool active() const { return m_writer != nullptr; }
  /// True at step 0, every `output.every` steps, and at the last step.
  bool due(long long step, long long lastStep) const;
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
  long long m_every = 0;
  std::vector<std::string> m_fields;
};

}  // namespace eddy::app
