#include "eddy/core/Decomposition.hpp"

#include "eddy/core/Error.hpp"

#include <limits>

namespace eddy {

std::string toString(Index3 const& v) {
  return str(v[0], "x", v[1], "x", v[2]);
}

namespace {

char const* const kAxisName[3] = {"x", "y", "z"};

/// Checks the request common to the constructor and `chooseProcGrid`; returns the global cell
/// counts with z = 1 in 2D.
Index3 validatedGlobal(Index3 globalCells, int dims, int nranks, Index3 const& forcedGrid) {
  if (dims != 2 && dims != 3)
    throw ConfigError(str("CartDecomposition: dims = ", dims, ", expected 2 or 3"));
  if (dims == 2) {
    if (globalCells[2] != 0 && globalCells[2] != 1)
      throw ConfigError(str("CartDecomposition: 2D box ", toString(globalCells), " has ",
                            globalCells[2], " cells in z, expected 1"));
    globalCells[2] = 1;
    if (forcedGrid[2] > 1)
      throw ConfigError(str("CartDecomposition: forced process grid ", toString(forcedGrid),
                            " splits z of a 2D box; expected 1 (or 0) ranks along z"));
  }
  for (int a = 0; a < 3; ++a) {
    if (globalCells[a] < 1)
      throw ConfigError(str("CartDecomposition: global box ", toString(globalCells), " has ",
                            globalCells[a], " cells along ", kAxisName[a],
                            ", expected at least 1"));
    if (forcedGrid[a] < 0)
      throw ConfigError(str("CartDecomposition: forced process grid ", toString(forcedGrid),
                            " has ", forcedGrid[a], " ranks along ", kAxisName[a],
                            ", expected >= 1 (or 0 to let Eddy choose)"));
  }
  if (nranks < 1)
    throw ConfigError(str("CartDecomposition: rank count ", nranks, ", expected at least 1"));
  return globalCells;
}

}  // namespace

std::int64_t CartDecomposition::interiorSurface(Index3 globalCells, Index3 procGrid) {
  std::int64_t const nx = globalCells[0], ny = globalCells[1], nz = globalCells[2];
  return std::int64_t(procGrid[0] - 1) * ny * nz + std::int64_t(procGrid[1] - 1) * nx * nz +
         std::int64_t(procGrid[2] - 1) * nx * ny;
}

Index3 CartDecomposition::chooseProcGrid(Index3 globalCells, int dims, int nranks,
                                         Index3 forcedGrid) {
  globalCells = validatedGlobal(globalCells, dims, nranks, forcedGrid);
  bool const fullyForced =
      forcedGrid[0] > 0 && forcedGrid[1] > 0 && (forcedGrid[2] > 0 || dims == 2);
  if (fullyForced) {
    Index3 const grid{forcedGrid[0], forcedGrid[1], dims == 2 ? 1 : forcedGrid[2]};
    std::int64_t const product = std::int64_t(grid[0]) * grid[1] * grid[2];
    if (product != nranks)
      throw ConfigError(str("CartDecomposition: forced process grid ", toString(grid), " has ",
                            product, " ranks, but there are ", nranks,
                            "; expected a grid whose product is ", nranks));
    for (int a = 0; a < 3; ++a)
      if (grid[a] > globalCells[a])
        throw ConfigError(str("CartDecomposition: forced process grid ", toString(grid), " puts ",
                              grid[a], " ranks along ", kAxisName[a], ", which has only ",
                              globalCells[a], " cells (box ", toString(globalCells),
                              "); expected every rank to own at least one cell"));
    return grid;
  }

  // Enumerate px * py * pz = nranks with px, then py ascending: the strict comparison below
  // keeps the first minimum, which is the documented tie-break.
  Index3 best{0, 0, 0};
  std::int64_t bestCost = std::numeric_limits<std::int64_t>::max();
  for (int px = 1; px <= nranks; ++px) {
    if (nranks % px != 0) continue;
    int const rest = nranks / px;
    for (int py = 1; py <= rest; ++py) {
      if (rest % py != 0) continue;
      int const pz = rest / py;
      Index3 const grid{px, py, pz};
      if (dims == 2 && pz != 1) continue;
      bool ok = true;
      for (int a = 0; a < 3; ++a)
        ok = ok && grid[a] <= globalCells[a] && (forcedGrid[a] == 0 || forcedGrid[a] == grid[a]);
      if (!ok) continue;
      std::int64_t const cost = interiorSurface(globalCells, grid);
      if (cost < bestCost) {
        bestCost = cost;
        best = grid;
      }
    }
  }
  if (best[0] == 0) {
    bool const anyForced = forcedGrid[0] > 0 || forcedGrid[1] > 0 || forcedGrid[2] > 0;
    throw ConfigError(str("CartDecomposition: no process grid of ", nranks, " ranks gives every ",
                          "rank at least one cell of the ", dims, "D box ", toString(globalCells),
                          anyForced
                              ? str(" with the forced grid ", toString(forcedGrid), " (0 = free)")
                              : std::string(),
                          "; expected fewer ranks or more cells"));
  }
  return best;
}

CartDecomposition::CartDecomposition(Index3 globalCells, int dims, Periodic3 periodic, int nranks,
                                     int rank, Index3 forcedGrid) {
  m_global = validatedGlobal(globalCells, dims, nranks, forcedGrid);
  m_dims = dims;
  m_periodic = periodic;
  if (dims == 2) m_periodic[2] = false;
  m_nranks = nranks;
  if (rank < 0 || rank >= nranks)
    throw ConfigError(str("CartDecomposition: rank ", rank, " is outside [0, ", nranks, ")"));
  m_rank = rank;
  m_grid = chooseProcGrid(m_global, dims, nranks, forcedGrid);
  m_coords = coordsOf(rank);
  m_local = localCellsOf(rank);
  m_offset = offsetOf(rank);
}

CartDecomposition CartDecomposition::fromComm(MPI_Comm comm, Index3 globalCells, int dims,
                                              Periodic3 periodic, Index3 forcedGrid) {
  int size = 0, rank = 0;
  checkMpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return CartDecomposition(globalCells, dims, periodic, size, rank, forcedGrid);
}

int CartDecomposition::checkAxis(int axis) const {
  if (axis < 0 || axis > 2) throw Error(str("CartDecomposition: axis ", axis, " is not 0, 1 or 2"));
  return axis;
}

int CartDecomposition::checkRank(int rank) const {
  if (rank < 0 || rank >= m_nranks)
    throw Error(str("CartDecomposition: rank ", rank, " is outside [0, ", m_nranks, ")"));
  return rank;
}

bool CartDecomposition::isLowBoundary(int axis) const {
  checkAxis(axis);
  return axis < m_dims && !m_periodic[axis] && m_coords[axis] == 0;
}

bool CartDecomposition::isHighBoundary(int axis) const {
  checkAxis(axis);
  return axis < m_dims && !m_periodic[axis] && m_coords[axis] == m_grid[axis] - 1;
}

int CartDecomposition::neighbor(Direction const& d) const {
  Index3 c = m_coords;
  for (int a = 0; a < 3; ++a) {
    if (d[a] < -1 || d[a] > 1)
      throw Error(str("CartDecomposition::neighbor: direction ", toString(d),
                      " has a component outside {-1, 0, 1}"));
    if (d[a] == 0) continue;
    if (a >= m_dims) return MPI_PROC_NULL;
    c[a] += d[a];
    if (c[a] < 0 || c[a] >= m_grid[a]) {
      if (!m_periodic[a]) return MPI_PROC_NULL;
      c[a] = (c[a] + m_grid[a]) % m_grid[a];
    }
  }
  return rankOf(c);
}

int CartDecomposition::rankOf(Index3 const& c) const {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= m_grid[a])
      throw Error(str("CartDecomposition::rankOf: coordinates ", toString(c),
                      " lie outside the process grid ", toString(m_grid)));
  return c[0] + m_grid[0] * (c[1] + m_grid[1] * c[2]);
}

Index3 CartDecomposition::coordsOf(int rank) const {
  checkRank(rank);
  return Index3{rank % m_grid[0], rank / m_grid[0] % m_grid[1], rank / (m_grid[0] * m_grid[1])};
}

Index3 CartDecomposition::localCellsOf(int rank) const {
  Index3 const c = coordsOf(rank);
  Index3 n{};
  for (int a = 0; a < 3; ++a) n[a] = splitCount(m_global[a], m_grid[a], c[a]);
  return n;
}

Index3 CartDecomposition::offsetOf(int rank) const {
  Index3 const c = coordsOf(rank);
  Index3 o{};
  for (int a = 0; a < 3; ++a) o[a] = splitOffset(m_global[a], m_grid[a], c[a]);
  return o;
}

std::string CartDecomposition::describe() const {
  std::string per;
  for (int a = 0; a < m_dims; ++a)
    if (m_periodic[a]) per += per.empty() ? kAxisName[a] : str(",", kAxisName[a]);
  return str(m_dims == 2 ? str(m_global[0], "x", m_global[1]) : toString(m_global), " cells over ",
             m_dims == 2 ? str(m_grid[0], "x", m_grid[1]) : toString(m_grid), " ranks, periodic ",
             per.empty() ? std::string("none") : per);
}

}  // namespace eddy
