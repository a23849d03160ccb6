/// @file DiagnosticsOutput.hpp
/// @brief The `diagnostics` deck section (a CSV time series per run) and the md analyses
/// (`md.rdf`, `md.velocity_histogram`) for the model drivers of `eddy run`.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/TimeSeries.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace eddy::md {
template <class Exec>
class System;
}

namespace eddy::app {

/// One column of a time series: name and unit.
using Column = std::pair<std::string, std::string>;

/// The run's diagnostics CSV (<output_dir>/<diagnostics.file>), or nothing when the deck has
/// no `diagnostics` section. Collective: every rank constructs it and calls `record`.
class DiagnosticsOutput {
 public:
  /// `restartStep` >= 0: the run continues from a checkpoint of that step, so the series goes
  /// on in the existing file (rows after that step are dropped) instead of a new one.
  DiagnosticsOutput(Runtime const& rt, io::Deck const& deck, std::vector<Column> const& columns,
                    long long restartStep = -1);
  /// True when a row is due at `step` (never without a diagnostics section).
  bool due(long long step) const { return m_series && m_series->due(step); }
  /// Writes one row (one value per column).
  void record(std::vector<double> const& values) { m_series->record(values); }

 private:
  std::unique_ptr<io::TimeSeries> m_series;
};

/// g(r) and the speed distribution of an md run, each appended to its own CSV in long form
/// (one row per bin and sample): <output_dir>/<run.name>.rdf.csv and .speeds.csv.
class MdAnalyses {
 public:
  /// `restartStep` as for DiagnosticsOutput.
  MdAnalyses(Runtime const& rt, io::Deck const& deck, double cutoff, long long restartStep = -1);
  /// True when some analysis is due at `step`.
  bool due(long long step) const {
    return (m_rdf && m_rdf->due(step)) || (m_speeds && m_speeds->due(step));
  }
  /// Collective: samples whichever analysis is due at the system's current step.
  void sample(ExecSpace const& space, md::System<ExecSpace> const& system);

 private:
  MPI_Comm m_comm;
  long long m_rdfEvery = 0, m_speedEvery = 0;
  double m_rMax = 0.0, m_vMax = 0.0;
  int m_rdfBins = 1, m_speedBins = 1;
  std::unique_ptr<io::TimeSeries> m_rdf, m_speeds;
};

}  // namespace eddy::app
