/// @file CheckpointOutput.hpp
/// @brief The deck's `checkpoint` section and the restart of `eddy run`: when to write a
/// checkpoint, where, how many to keep, and which checkpoint a run continues from.
#pragma once

#include "SnapshotOutput.hpp"

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Checkpoint.hpp"
#include "eddy/io/Deck.hpp"

#include <memory>
#include <string>
#include <vector>

namespace eddy::app {

/// Checkpoints of a run as the deck's `checkpoint` section asks; does nothing without it.
class CheckpointOutput {
 public:
  /// Collective: creates the checkpoint directory (a collective eddy::IoError naming the path
  /// and errno when it cannot be created or is not a directory). `model` (ModelSet::names) is
  /// stored in every file and checked at a restart.
  CheckpointOutput(Runtime const& rt, io::Deck const& deck, std::string model);

  bool active() const { return m_writer != nullptr; }
  /// True every `checkpoint.every` steps and, with `at_end`, at the last step.
  bool due(long long step, long long lastStep) const;
  /// Collective: completes `data` (model, the snapshot index so far) and writes it; logs the
  /// path, the size and the seconds it took.
  void write(io::CheckpointData& data, SnapshotOutput const& snapshots);

  /// The checkpoint directory (also without a `checkpoint` section: for `--restart latest`).
  std::string const& directory() const { return m_directory; }

 private:
  std::string m_model;
  std::string m_directory;
  std::unique_ptr<io::CheckpointWriter> m_writer;
  long long m_every = 0;
  bool m_atEnd = false;
};

/// Collective: the checkpoint the run continues from, or nullptr for a fresh start. `restart`
/// is the `--restart` option (empty: the deck's run.restart); `latest` takes the newest
/// checkpoint of this run in `directory` (a fresh start when there is none). Throws a
/// collective eddy::IoError when the file cannot be read, is no Eddy checkpoint or is damaged
/// (a dataset that does not match its checksum), and a collective eddy::DeckError (exit code 3)
/// naming the file when it holds another model than `model` or a step beyond run.steps.
std::unique_ptr<io::CheckpointReader> openRestart(Runtime const& rt, io::Deck const& deck,
                                                  std::string const& restart,
                                                  std::string const& directory,
                                                  std::string const& model);

}  // namespace eddy::app
