/// @file CheckpointOutput.hpp
/// @brief The deck's `checkpoint` section and the restart of `eddy run`: when to write a
/// checkpoint, where, how many to keep, and which checkpoint a run continues from.
#pragma once

#include "RunControl.hpp"
#include "SnapshotOutput.hpp"
#include "TimeLoop.hpp"

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Checkpoint.hpp"
#include "eddy/io/Deck.hpp"

#include <memory>
#include <string>
#include <vector>

namespace eddy::app {

/// Checkpoints of a run as the deck's `checkpoint` section asks, and the one a run stopping
/// early writes (with the section's defaults when the deck has none).
class CheckpointOutput {
 public:
  /// Collective: creates the checkpoint directory when the deck asks for checkpoints (a
  /// collective eddy::IoError naming the path and errno when it cannot be created or is not a
  /// directory). `model` (ModelSet::names) is stored in every file and checked at a restart.
  CheckpointOutput(Runtime const& rt, io::Deck const& deck, std::string model,
                   std::string const& timeUnits);

  /// True on the schedule (checkpoint.every or checkpoint.every_time) and, with `at_end`, at
  /// the last step; never without a `checkpoint` section.
  bool due(NextStep const& next) const;
  /// Collective: completes `data` (model, the snapshot index so far) and writes it; logs the
  /// path, the size and the seconds it took. Also without a `checkpoint` section (a run that
  /// stops early): the directory is created then. Returns the file's path.
  std::string write(io::CheckpointData& data, SnapshotOutput const& snapshots);
  /// The seconds of the slowest write so far (0 before the first).
  double slowestWrite() const { return m_slowest; }

  /// The checkpoint directory (also without a `checkpoint` section: for `--restart latest`).
  std::string const& directory() const { return m_directory; }

 private:
  /// Collective: creates the directory and the writer.
  void open();

  MPI_Comm m_comm;
  std::string m_model;
  std::string m_directory;
  io::CheckpointWriter::Options m_options;
  std::unique_ptr<io::CheckpointWriter> m_writer;
  Schedule m_schedule;
  bool m_atEnd = false;
  double m_slowest = 0;
};

/// Collective: the checkpoint the run continues from, or nullptr for a fresh start. `restart`
/// is the `--restart` option (empty: the deck's run.restart); `latest` takes the newest
/// checkpoint of this run in `directory` (a fresh start when there is none). Throws a
/// collective eddy::IoError when the file cannot be read, is no Eddy checkpoint or is damaged
/// (a dataset that does not match its checksum), and a collective eddy::DeckError (exit code 3)
/// naming the file when it holds another model than `model`, or a step beyond run.steps or a
/// time beyond run.end_time.
std::unique_ptr<io::CheckpointReader> openRestart(Runtime const& rt, io::Deck const& deck,
                                                  std::string const& restart,
                                                  std::string const& directory,
                                                  std::string const& model);

}  // namespace eddy::app
