/// @file RunControl.hpp
/// @brief When `eddy run` stops and when its outputs fall due: run.steps, run.end_time,
/// run.max_wall_time, the stop signals, and output intervals in steps or in simulated time.
#pragma once

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/DeckErrors.hpp"

#include <optional>
#include <string>

namespace eddy::app {

/// The exit code of a run that stopped before its end (a stop signal, or run.max_wall_time)
/// after writing a checkpoint: EX_TEMPFAIL, "try again", so that a batch script resubmits the
/// run with `--restart latest`.
inline constexpr int kExitStoppedEarly = 75;

/// A schedule of outputs: every so many steps, or every so much simulated time (events at the
/// multiples of the interval, which runs whose models all take shorter steps land on exactly).
/// Step 0 of a fresh run is always due.
class Schedule {
 public:
  static Schedule never() { return Schedule(); }
  static Schedule steps(long long every);
  static Schedule time(double interval);
  /// The schedule of `section`'s keys `every` (steps) and `every_time` (simulated time, which the
  /// schema puts instead of `every`).
  static Schedule fromDeck(io::Deck const& deck, std::string const& section);

  bool active() const { return m_steps > 0 || m_interval > 0; }
  /// Due after the step that ends at step `step`, from time `before` to time `after`.
  bool due(long long step, double before, double after) const;
  /// The first event after time `t` (infinity for a step schedule): where a step is cut short.
  double nextTime(double t) const;
  /// "every 10 steps", "every 0.5 time units (s)".
  std::string describe(std::string const& timeUnits) const;

 private:
  long long m_steps = 0;
  double m_interval = 0;
};

/// The step at which the run ends: run.steps, or none (the largest long long) when the deck
/// gives run.end_time and no run.steps.
long long lastStep(io::Deck const& deck);
/// run.end_time, or none.
std::optional<double> endTime(io::Deck const& deck);

/// The slack within which a time lands on a time event: a step that ends that close before it
/// counts as having reached it (the step cut short for the event ends there up to round-off).
double timeTolerance(double scale);

/// Adds the deck's run-control rules that the schema cannot state to `errors`: run.max_wall_time
/// parses.
void checkRunControl(io::Deck const& deck, io::DeckErrors& errors);

/// run.max_wall_time in seconds (0: none): "3600", "1:00:00" or "1-00:00:00" (days-h:mm:ss, as
/// Slurm writes limits). nullopt when it does not parse.
std::optional<double> parseWallTime(std::string const& text);

/// Why a run stops before its end, decided collectively between steps.
class StopRequest {
 public:
  /// Installs the handlers of SIGTERM, SIGUSR1 and SIGINT: the first of them asks the run to
  /// stop after its current step with a checkpoint; the handler then steps aside, so that a
  /// second signal acts as it would without Eddy (SIGINT twice stops at once).
  StopRequest(Runtime const& rt, io::Deck const& deck);
  /// Puts the previous handlers back.
  ~StopRequest();
  StopRequest(StopRequest const&) = delete;
  StopRequest& operator=(StopRequest const&) = delete;

  /// Collective, before each step: true when the run must stop after that step, because a
  /// rank got a stop signal or because run.max_wall_time leaves no room for another step and a
  /// checkpoint. `slowestStep` and `slowestCheckpoint` (seconds, 0 when none yet) size that room.
  bool due(double slowestStep, double slowestCheckpoint);
  /// Why (after due() returned true): "SIGTERM", "run.max_wall_time 1:00:00 ...".
  std::string const& reason() const { return m_reason; }

 private:
  MPI_Comm m_comm;
  int m_rank;
  double m_wallLimit;
  std::string m_wallText;
  std::string m_reason;
};

}  // namespace eddy::app
