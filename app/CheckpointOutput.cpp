#include "CheckpointOutput.hpp"

#include "Format.hpp"
#include "ModelRegistry.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

namespace eddy::app {

namespace {

/// Collective: creates `path` (and its parents) on rank 0; every rank throws the same IoError,
/// naming the path and the errno, when that fails or the path is not a directory.
void createCheckpointDirectory(MPI_Comm comm, std::string const& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  char reason[320] = {0};
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) {
      std::snprintf(reason, sizeof reason, "errno %d: %s", ec.value(), ec.message().c_str());
    } else if (!std::filesystem::is_directory(path, ec)) {
      std::snprintf(reason, sizeof reason, "it exists and is not a directory (errno %d: %s)",
                    ENOTDIR, std::strerror(ENOTDIR));
    }
  }
  checkMpi(MPI_Bcast(reason, sizeof reason, MPI_CHAR, 0, comm), "MPI_Bcast(checkpoint directory)");
  if (reason[0] != '\0')
    throw IoError(str("cannot create checkpoint directory '", path, "': ", reason), true);
}

std::string checkpointDirectory(io::Deck const& deck) {
  std::string dir = deck.has("checkpoint") ? deck.getString("checkpoint.directory") : "";
  return dir.empty() ? deck.getString("run.output_dir") + "/checkpoints" : dir;
}

}  // namespace

CheckpointOutput::CheckpointOutput(Runtime const& rt, io::Deck const& deck, std::string model,
                                   std::string const& timeUnits)
    : m_comm(rt.comm()), m_model(std::move(model)), m_directory(checkpointDirectory(deck)) {
  // Without a checkpoint section a run that stops early still writes one, as the section's
  // defaults would.
  bool const section = deck.has("checkpoint");
  auto const schemaDefault = [](char const* key) {
    return deckSchema().find(str("checkpoint.", key))->defaultVal();
  };
  m_options.directory = m_directory;
  m_options.runName = deck.getString("run.name");
  m_options.deckYaml = deck.resolvedYaml();
  m_options.mode = io::snapshotModeFromString(
      section ? deck.getString("checkpoint.mode") : std::get<std::string>(schemaDefault("mode")));
  m_options.keep = static_cast<int>(section ? deck.getInt("checkpoint.keep")
                                            : std::get<std::int64_t>(schemaDefault("keep")));
  if (!section) return;
  m_schedule = Schedule::fromDeck(deck, "checkpoint");
  m_atEnd = deck.getBool("checkpoint.at_end");
  if (!m_schedule.active() && !m_atEnd) return;
  open();
  log::info(str("checkpoints: ", m_schedule.active() ? m_schedule.describe(timeUnits) : "",
                m_schedule.active() && m_atEnd ? " and " : "",
                m_atEnd ? "after the last step" : "", " to ", m_directory, "/",
                m_options.runName, "_<step>.chk.h5, keeping ", m_options.keep, " (",
                m_writer->mode() == io::SnapshotMode::Collective ? "collective MPI-IO"
                                                                 : "gathered to rank 0",
                ")"));
}

void CheckpointOutput::open() {
  createCheckpointDirectory(m_comm, m_directory);
  m_writer = std::make_unique<io::CheckpointWriter>(m_comm, m_options);
}

bool CheckpointOutput::due(NextStep const& next) const {
  return (m_schedule.active() && m_schedule.due(next.step, next.before, next.after)) ||
         (m_atEnd && next.last);
}

std::string CheckpointOutput::write(io::CheckpointData& data, SnapshotOutput const& snapshots) {
  double const start = log::elapsed();
  if (!m_writer) open();
  data.model = m_model;
  data.attributes.texts["snapshot_index"] = snapshots.indexText();
  auto const written = m_writer->write(data);
  std::string removed;
  for (auto const& r : written.removed) removed += str(removed.empty() ? "; removed " : ", ", r);
  log::info(str("checkpoint step ", data.step, " written: ", written.path, " (", written.bytes,
                " bytes, ", log::elapsed() - start, " s", removed, ")"));
  if (!written.removeFailure.empty()) log::warn(written.removeFailure);
  m_slowest = std::max(m_slowest, log::elapsed() - start);
  return written.path;
}

std::unique_ptr<io::CheckpointReader> openRestart(Runtime const& rt, io::Deck const& deck,
                                                  std::string const& restart,
                                                  std::string const& directory,
                                                  std::string const& model) {
  std::string path = restart.empty() ? deck.getString("run.restart") : restart;
  if (path.empty()) return nullptr;
  if (path == "latest") {
    auto const found = io::listCheckpoints(rt.comm(), directory, deck.getString("run.name"));
    if (found.empty()) {
      log::info(str("restart: no checkpoint of run '", deck.getString("run.name"), "' in ",
                    directory, "; starting at step 0"));
      return nullptr;
    }
    path = found.back().second;
  }
  io::SnapshotMode const mode = deck.has("checkpoint")
                                    ? io::snapshotModeFromString(deck.getString("checkpoint.mode"))
                                    : io::SnapshotMode::Auto;
  auto file = std::make_unique<io::CheckpointReader>(rt.comm(), path, mode);
  // A checkpoint the deck does not fit is the deck's problem (or the wrong file for this deck):
  // exit code 3, as for an invalid deck, so that a job script tells it from an I/O failure.
  if (file->model() != model)
    throw DeckError(str("restart file '", path, "' is a checkpoint of the ", file->model(),
                        " model; this deck runs ", model, " (expected a checkpoint of the ",
                        model, " model)"));
  long long const steps = lastStep(deck);
  if (file->step() > steps)
    throw DeckError(str("restart file '", path, "' is at step ", file->step(),
                        ", beyond run.steps = ", steps,
                        " (run.steps counts from step 0; raise it to continue)"));
  if (auto const end = endTime(deck); end && file->time() > *end + timeTolerance(*end))
    throw DeckError(str("restart file '", path, "' is at time ", file->time(),
                        ", beyond run.end_time = ", *end, " (raise it to continue)"));
  std::string const checked =
      file->checked()
          ? str("checksums of ", file->checksums().size(), " datasets checked")
          : std::string("no checksums: written before checkpoints had them, data unchecked");
  log::info(str("restart: continuing from ", path, " (", file->model(), ", step ", file->step(),
                ", t ", file->time(), ", written by ", file->ranks(), " rank(s) with eddy ",
                file->version(), "; ", checked, ")"));
  return file;
}

}  // namespace eddy::app
