#include "SnapshotOutput.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

namespace eddy::app {

SnapshotOutput::SnapshotOutput(Runtime const& rt, io::Deck const& deck,
                               std::vector<std::string> available) {
  if (!deck.has("output")) return;
  m_every = deck.getInt("output.every");
  if (m_every <= 0) return;
  std::string list = deck.getString("output.fields");
  std::replace(list.begin(), list.end(), ',', ' ');
  std::istringstream words(list);
  for (std::string w; words >> w;) {
    if (w == "all") {
      m_fields = available;
      break;
    }
    if (std::find(available.begin(), available.end(), w) == available.end()) {
      std::string allowed = "all";
      for (auto const& a : available) allowed += ", " + a;
      throw ConfigError(str(
          "output.fields names '", w, "', which this model does not have; allowed: ",
          available.empty() ? std::string("nothing (this model writes particles only)") : allowed));
    }
    m_fields.push_back(w);
  }
  io::SnapshotWriter::Options o;
  o.directory = deck.getString("run.output_dir");
  o.runName = deck.getString("run.name");
  o.deckYaml = deck.resolvedYaml();
  o.mode = io::snapshotModeFromString(deck.getString("output.mode"));
  m_writer = std::make_unique<io::SnapshotWriter>(rt.comm(), o);
  log::info(str(
      "output: snapshots every ", m_every, " steps to ", o.directory, "/", o.runName,
      "_<step>.h5, index ", m_writer->xdmfPath(), " (",
      m_writer->mode() == io::SnapshotMode::Collective ? "collective MPI-IO" : "gathered to rank 0",
      ")"));
}

bool SnapshotOutput::due(long long step, long long lastStep) const {
  return active() && (step % m_every == 0 || step == lastStep);
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

io::GridGeometry gridGeometry(CartDecomposition const& decomp,
                              std::array<double, 3> const& length) {
  io::GridGeometry g;
  g.dims = decomp.dims();
  g.globalCells = decomp.globalCells();
  g.offset = decomp.offset();
  g.localCells = decomp.localCells();
  for (int a = 0; a < 3; ++a) g.spacing[a] = a < g.dims ? length[a] / decomp.globalCells()[a] : 1.0;
  return g;
}

std::vector<double> ownedCells(Field<MemSpace> const& f, double scale) {
  // Host copies only here, at I/O.
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  Index3 const n = f.cells();
  Index3 const g = f.ghosts();
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n[0]) * n[1] * n[2]);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) out.push_back(scale * h(i + g[0], j + g[1], k + g[2]));
  return out;
}

std::vector<double> cellFromFaces(std::array<Field<MemSpace> const*, 3> const& u, int dims, int c,
                                  std::array<double, 3> const& spacing) {
  using Host = Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  std::array<Host, 3> h;
  for (int a = 0; a < dims; ++a)
    if (c < 0 || a == c)
      h[a] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u[a]->view());
  Field<MemSpace> const& ref = *u[c < 0 ? 0 : c];
  Index3 const n = ref.cells();
  Index3 const g = ref.ghosts();
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n[0]) * n[1] * n[2]);
  // Face i is the low face of cell i, face i + 1 its high face (a ghost on the last cell of a
  // rank that is not at the domain's high end: the step leaves velocity ghosts current).
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        double v = 0.0;
        for (int a = 0; a < dims; ++a) {
          if (c >= 0 && a != c) continue;
          int const di = a == 0, dj = a == 1, dk = a == 2;
          double const lo = h[a](i + g[0], j + g[1], k + g[2]);
          double const hi = h[a](i + di + g[0], j + dj + g[1], k + dk + g[2]);
          v += c >= 0 ? 0.5 * (lo + hi) : (hi - lo) / spacing[a];
        }
        out.push_back(v);
      }
  return out;
}

}  // namespace eddy::app
