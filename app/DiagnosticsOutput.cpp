#include "DiagnosticsOutput.hpp"

#include "eddy/core/Log.hpp"
#include "md/Analysis.hpp"

namespace eddy::app {

DiagnosticsOutput::DiagnosticsOutput(Runtime const& rt, io::Deck const& deck,
                                     std::vector<Column> const& columns, long long restartStep) {
  if (!deck.has("diagnostics")) return;
  std::string const path =
      deck.getString("run.output_dir") + "/" + deck.getString("diagnostics.file");
  m_series = std::make_unique<io::TimeSeries>(rt.comm(), path, deck.getInt("diagnostics.every"));
  for (auto const& c : columns) m_series->addColumn(c.first, c.second);
  if (restartStep >= 0)
    m_series->resume(restartStep);
  else
    m_series->open();
  log::info(str("diagnostics: ", path, " every ", m_series->every(), " steps (", m_series->header(),
                ")"));
}

MdAnalyses::MdAnalyses(Runtime const& rt, io::Deck const& deck, double cutoff,
                       long long restartStep)
    : m_comm(rt.comm()) {
  auto start = [restartStep](io::TimeSeries& series) {
    if (restartStep >= 0)
      series.resume(restartStep);
    else
      series.open();
  };
  std::string const base = deck.getString("run.output_dir") + "/" + deck.getString("run.name");
  m_rdfEvery = deck.getInt("md.rdf.every");
  m_speedEvery = deck.getInt("md.velocity_histogram.every");
  if (m_rdfEvery > 0) {
    m_rMax = deck.getDouble("md.rdf.r_max");
    if (m_rMax == 0.0) m_rMax = cutoff;
    if (m_rMax > cutoff)
      throw ConfigError(str("md.rdf.r_max is ", m_rMax, "; expected at most md.cutoff = ", cutoff,
                            " (the neighbour list holds every pair within the cutoff)"));
    m_rdfBins = static_cast<int>(deck.getInt("md.rdf.bins"));
    m_rdf = std::make_unique<io::TimeSeries>(m_comm, base + ".rdf.csv", m_rdfEvery);
    for (auto const& c : std::vector<Column>{
             {"step", "1"}, {"r_low", "sigma"}, {"r_high", "sigma"}, {"pairs", "1"}, {"g", "1"}})
      m_rdf->addColumn(c.first, c.second);
    start(*m_rdf);
  }
  if (m_speedEvery > 0) {
    m_vMax = deck.getDouble("md.velocity_histogram.v_max");
    m_speedBins = static_cast<int>(deck.getInt("md.velocity_histogram.bins"));
    m_speeds = std::make_unique<io::TimeSeries>(m_comm, base + ".speeds.csv", m_speedEvery);
    for (auto const& c : std::vector<Column>{{"step", "1"},
                                             {"v_low", "sigma/tau"},
                                             {"v_high", "sigma/tau"},
                                             {"atoms", "1"},
                                             {"pdf", "tau/sigma"}})
      m_speeds->addColumn(c.first, c.second);
    start(*m_speeds);
  }
}

void MdAnalyses::sample(ExecSpace const& space, md::System<ExecSpace> const& system) {
  auto const step = static_cast<double>(system.steps());
  if (m_rdf && m_rdf->due(system.steps())) {
    auto const r = md::radialDistribution(space, m_comm, system, m_rMax, m_rdfBins);
    for (std::size_t b = 0; b < r.g.size(); ++b)
      m_rdf->record({step, r.rLow[b], r.rHigh[b], static_cast<double>(r.pairs[b]), r.g[b]});
  }
  if (m_speeds && m_speeds->due(system.steps())) {
    auto const d = md::speedDistribution(space, m_comm, system, m_vMax, m_speedBins);
    for (std::size_t b = 0; b < d.counts.size(); ++b)
      m_speeds->record({step, d.vLow[b], d.vHigh[b], static_cast<double>(d.counts[b]), d.pdf[b]});
  }
}

}  // namespace eddy::app
