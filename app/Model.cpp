#include "Model.hpp"

#include "Format.hpp"
#include "ModelRegistry.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/FieldHost.hpp"

namespace eddy::app {

void StateOut::grid(io::CheckpointGrid g) {
  g.name = m_prefix + g.name;
  m_data.grids.push_back(std::move(g));
}

std::vector<double>& StateOut::reals(std::string const& name) {
  return m_data.attributes.reals[m_prefix + name];
}

std::vector<std::int64_t>& StateOut::integers(std::string const& name) {
  return m_data.attributes.integers[m_prefix + name];
}

void StateOut::particles(io::CheckpointParticles p) {
  EDDY_REQUIRE(!m_data.hasParticles, "StateOut::particles: the checkpoint has particles already; "
               "expected one particle model per run");
  m_data.hasParticles = true;
  m_data.particles = std::move(p);
}

double StateIn::real(std::string const& name) const {
  return m_file.real(m_prefix + name);
}
std::int64_t StateIn::integer(std::string const& name) const {
  return m_file.integer(m_prefix + name);
}
std::vector<double> const& StateIn::reals(std::string const& name) const {
  return m_file.reals(m_prefix + name);
}
std::vector<std::int64_t> const& StateIn::integers(std::string const& name) const {
  return m_file.integers(m_prefix + name);
}
bool StateIn::hasInteger(std::string const& name) const {
  return m_file.attributes().integers.count(m_prefix + name) > 0;
}
bool StateIn::hasReal(std::string const& name) const {
  return m_file.attributes().reals.count(m_prefix + name) > 0;
}

std::vector<double> StateIn::readOwned(Field<MemSpace> const& f, CartDecomposition const& decomp,
                                       std::string const& name) const {
  io::CheckpointGrid const g = ownedGrid(f, decomp);
  requireSame(str("shape of array '", m_prefix + name, "'"), toString(g.global),
              toString(m_file.gridShape(m_prefix + name)));
  return m_file.readGrid(m_prefix + name, g.offset, g.count);
}

void StateIn::requireSame(std::string const& what, std::string const& deckValue,
                          std::string const& fileValue) const {
  if (deckValue != fileValue)
    throw DeckError(str("restart file '", m_file.path(), "' has ", what, " ", fileValue,
                        "; this deck has ", deckValue, " (expected the same ", what, ")"));
}

io::CheckpointGrid ownedGrid(Field<MemSpace> const& f, CartDecomposition const& decomp) {
  io::CheckpointGrid g;
  int const fa = f.faceAxis();
  Box3 const owned = f.ownedBox();
  for (int a = 0; a < 3; ++a) {
    g.global[a] = decomp.globalCells()[a] + (a == fa && !decomp.isPeriodic(a) ? 1 : 0);
    g.offset[a] = decomp.offset()[a];
    g.count[a] = owned.extent(a);
  }
  return g;
}

io::CheckpointGrid checkpointGrid(ExecSpace const& space, Field<MemSpace> const& f,
                                  CartDecomposition const& decomp, std::string name,
                                  std::string units) {
  io::CheckpointGrid g = ownedGrid(f, decomp);
  g.name = std::move(name);
  g.units = std::move(units);
  g.values = ownedEntries(space, f);
  return g;
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

double globalCellCount(CartDecomposition const& decomp) {
  double cells = 1;
  for (int a = 0; a < decomp.dims(); ++a) cells *= decomp.globalCells()[a];
  return cells;
}

void saveGridSize(StateOut& out, CartDecomposition const& decomp,
                  std::array<double, 3> const& length) {
  for (int a = 0; a < decomp.dims(); ++a) {
    out.integers("cells").push_back(decomp.globalCells()[a]);
    out.reals("length").push_back(length[a]);
  }
}

void requireGridSize(StateIn const& in, CartDecomposition const& decomp,
                     std::array<double, 3> const& length) {
  std::vector<std::int64_t> cells;
  std::vector<double> lengths;
  for (int a = 0; a < decomp.dims(); ++a) {
    cells.push_back(decomp.globalCells()[a]);
    lengths.push_back(length[a]);
  }
  in.requireSame("grid.cells", listText(cells), listText(in.integers("cells")));
  in.requireSame("grid.length", listText(lengths), listText(in.reals("length")));
}

ModelSet::ModelSet(ModelContext const& context) {
  for (ModelSpec const* spec : modelsOf(context.deck))
    m_entries.push_back({spec, spec->make(context)});
  EDDY_REQUIRE(!m_entries.empty(), "ModelSet: the deck ", context.deck.path(),
               " names no model; checkDeck should have refused it");
  for (auto& e : m_entries) e.model->couple(*this);
}

std::string ModelSet::names() const {
  std::string s;
  for (auto const& e : m_entries) s += (s.empty() ? "" : "+") + e.spec->name;
  return s;
}

}  // namespace eddy::app
