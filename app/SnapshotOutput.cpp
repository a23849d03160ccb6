#include "SnapshotOutput.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

namespace eddy::app {

std::vector<std::string> requestedFields(io::Deck const& deck) {
  std::vector<std::string> names;
  if (!deck.has("output")) return names;
  std::string list = deck.getString("output.fields");
  std::replace(list.begin(), list.end(), ',', ' ');
  std::istringstream words(list);
  for (std::string w; words >> w;) names.push_back(w);
  return names;
}

SnapshotOutput::SnapshotOutput(Runtime const& rt, io::Deck const& deck,
                               std::vector<FieldInfo> const& available,
                               std::string const& timeUnits)
    : m_schedule(Schedule::fromDeck(deck, "output")) {
  if (!m_schedule.active()) return;
  // `all` and names may come together ("all vorticity"): each field once.
  auto add = [this](std::string const& name) {
    if (std::find(m_fields.begin(), m_fields.end(), name) == m_fields.end())
      m_fields.push_back(name);
  };
  for (std::string const& w : requestedFields(deck)) {
    if (w == "all") {
      for (auto const& f : available)
        if (!f.onRequest) add(f.name);
      continue;
    }
    EDDY_REQUIRE(std::any_of(available.begin(), available.end(),
                             [&w](FieldInfo const& f) { return f.name == w; }),
                 "SnapshotOutput: output.fields names '", w, "', which checkDeck should have "
                 "refused");
    add(w);
  }
  io::SnapshotWriter::Options o;
  o.directory = deck.getString("run.output_dir");
  o.runName = deck.getString("run.name");
  o.deckYaml = deck.resolvedYaml();
  o.mode = io::snapshotModeFromString(deck.getString("output.mode"));
  m_writer = std::make_unique<io::SnapshotWriter>(rt.comm(), o);
  log::info(str(
      "output: snapshots ", m_schedule.describe(timeUnits), " to ", o.directory, "/", o.runName,
      "_<step>.h5, index ", m_writer->xdmfPath(), " (",
      m_writer->mode() == io::SnapshotMode::Collective ? "collective MPI-IO" : "gathered to rank 0",
      ")"));
}

bool SnapshotOutput::due(NextStep const& next) const {
  return active() &&
         (m_schedule.due(next.step, next.before, next.after) || (next.last && !next.stop));
}

bool SnapshotOutput::wants(std::string const& name) const {
  return std::find(m_fields.begin(), m_fields.end(), name) != m_fields.end();
}

void SnapshotOutput::write(io::SnapshotData const& data) {
  double const start = log::elapsed();
  std::string const path = m_writer->write(data);
  log::info(
      str("snapshot step ", data.step, " written: ", path, " (", log::elapsed() - start, " s)"));
}

std::string SnapshotOutput::indexText() const {
  return m_writer ? io::snapshotIndexText(m_writer->entries()) : std::string();
}

void SnapshotOutput::resume(std::string const& indexText, long long step) {
  if (!m_writer) return;
  std::vector<io::SnapshotWriter::Entry> entries;
  for (auto& e : io::snapshotIndexFromText(indexText))
    if (e.step <= step) entries.push_back(std::move(e));
  m_writer->resume(std::move(entries));
  log::info(str("output: continuing the index ", m_writer->xdmfPath(), " (", m_writer->count(),
                " snapshot(s) up to step ", step, ")"));
}

}  // namespace eddy::app
