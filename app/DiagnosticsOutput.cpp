#include "DiagnosticsOutput.hpp"

#include "eddy/core/Log.hpp"

namespace eddy::app {

DiagnosticsOutput::DiagnosticsOutput(Runtime const& rt, io::Deck const& deck,
                                     std::vector<Column> const& columns, long long restartStep,
                                     std::string const& timeUnits)
    : m_schedule(Schedule::fromDeck(deck, "diagnostics")) {
  if (!deck.has("diagnostics")) return;
  std::string const path =
      deck.getString("run.output_dir") + "/" + deck.getString("diagnostics.file");
  // The series' own `every` is not used: m_schedule decides (also in simulated time).
  m_series = std::make_unique<io::TimeSeries>(rt.comm(), path, 1);
  for (auto const& c : columns) m_series->addColumn(c.name, c.unit);
  if (restartStep >= 0)
    m_series->resume(restartStep);
  else
    m_series->open();
  log::info(str("diagnostics: ", path, " ", m_schedule.describe(timeUnits), " (",
                m_series->header(), ")"));
}

}  // namespace eddy::app
