/// @file DiagnosticsOutput.hpp
/// @brief The `diagnostics` deck section: a CSV time series of the run's models.
#pragma once

#include "Model.hpp"
#include "RunControl.hpp"
#include "TimeLoop.hpp"

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/TimeSeries.hpp"

#include <memory>
#include <string>
#include <vector>

namespace eddy::app {

/// The run's diagnostics CSV (<output_dir>/<diagnostics.file>), or nothing when the deck has
/// no `diagnostics` section. Collective: every rank constructs it and calls `record`.
class DiagnosticsOutput {
 public:
  /// `restartStep` >= 0: the run continues from a checkpoint of that step, so the series goes
  /// on in the existing file (rows after that step are dropped) instead of a new one.
  DiagnosticsOutput(Runtime const& rt, io::Deck const& deck, std::vector<Column> const& columns,
                    long long restartStep = -1, std::string const& timeUnits = "1");
  /// True when a row is due after `next` (at step 0 and on the schedule: diagnostics.every or
  /// diagnostics.every_time; never without a diagnostics section).
  bool due(NextStep const& next) const {
    return m_series && m_schedule.due(next.step, next.before, next.after);
  }
  /// Writes one row (one value per column).
  void record(std::vector<double> const& values) { m_series->record(values); }

 private:
  Schedule m_schedule;
  std::unique_ptr<io::TimeSeries> m_series;
};

}  // namespace eddy::app
