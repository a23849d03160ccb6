// Snapshots: particle offsets, room first, tmp + rename and the XDMF index, over the HDF5 calls
// and the collective or gathered writes of SnapshotHdf5.cpp (shared with checkpoints).
#include "eddy/io/Snapshot.hpp"

#include "CollectiveIo.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Version.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <utility>

namespace eddy::io {

SnapshotMode snapshotModeFromString(std::string const& s) {
  if (s == "auto") return SnapshotMode::Auto;
  if (s == "collective") return SnapshotMode::Collective;
  if (s == "gather") return SnapshotMode::Gather;
  throw ConfigError(str("snapshot mode '", s, "': expected auto, collective or gather"));
}

namespace {

using detail::agree;
using detail::Failure;
using detail::Hdf5Output;
using detail::product;

/// Checks this rank's arrays against the sizes they claim.
void checkInput(SnapshotData const& d, Failure& f) {
  if (d.hasGrid) {
    if (d.grid.dims != 2 && d.grid.dims != 3)
      f.set(str("snapshot grid: dims ", d.grid.dims, ", expected 2 or 3"));
    for (auto const& a : d.fields) {
      bool nameOk = !a.name.empty();
      for (char const c : a.name)
        nameOk = nameOk && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
      if (!nameOk)
        f.set(str("snapshot field '", a.name, "': expected a name of letters, digits and '_'"));
      if (static_cast<long long>(a.values.size()) != product(d.grid.localCells))
        f.set(str("snapshot field '", a.name, "': ", a.values.size(), " values, expected ",
                  product(d.grid.localCells), " (", toString(d.grid.localCells), " owned cells)"));
    }
  }
  for (auto const& v : d.vectors) {
    bool ok = d.hasGrid && (v.components.size() == 2 || v.components.size() == 3) &&
              !v.name.empty();
    for (auto const& c : v.components)
      ok = ok && std::any_of(d.fields.begin(), d.fields.end(),
                             [&c](GridArray const& a) { return a.name == c; });
    if (!ok)
      f.set(str("snapshot vector '", v.name, "': expected 2 or 3 components among the grid "
                "arrays of the snapshot"));
  }
  if (d.hasParticles) {
    auto const& p = d.particles;
    if (p.position.size() != 3 * p.count() || p.velocity.size() != 3 * p.count() ||
        p.type.size() != p.count())
      f.set(str("snapshot particles: ", p.count(), " ids but ", p.position.size(), " position, ",
                p.velocity.size(), " velocity and ", p.type.size(),
                " type values; expected 3, 3 and 1 per id"));
    if (p.hasImages && p.image.size() != 3 * p.count())
      f.set(str("snapshot particles: ", p.count(), " ids but ", p.image.size(),
                " image values; expected 3 per id"));
    if (p.hasBox)
      for (int a = 0; a < 3; ++a)
        if (!(p.boxLength[a] > 0) || !std::isfinite(p.boxLow[a]))
          f.set(str("snapshot particles: box axis ", a, " from ", p.boxLow[a], " of length ",
                    p.boxLength[a], "; expected a finite low edge and a length > 0"));
  }
}

/// Root attributes and the groups; called by every rank (Collective) or rank 0 (Gather).
void writeMetadata(Hdf5Output& out, SnapshotData const& d, int ranks, std::string const& deck) {
  out.attribute("/", "time", d.time);
  out.attribute("/", "step", static_cast<std::int64_t>(d.step));
  out.attribute("/", "dt", d.dt);
  out.attribute("/", "time_units", d.timeUnits);
  out.attribute("/", "ranks", static_cast<std::int64_t>(ranks));
  out.attribute("/", "eddy_version", std::string(kVersion));
  out.attribute("/", "deck", deck);
  if (d.hasGrid) {
    out.createGroup("/fields");
    std::vector<double> origin, spacing, cells;
    for (int a = d.grid.dims - 1; a >= 0; --a) {  // (z,) y, x like the datasets
      origin.push_back(d.grid.origin[a]);
      spacing.push_back(d.grid.spacing[a]);
    }
    out.attribute("/fields", "origin", origin);
    out.attribute("/fields", "spacing", spacing);
  }
  if (d.hasParticles) {
    out.createGroup("/particles");
    auto const& p = d.particles;
    if (p.hasBox) {
      out.attribute("/particles", "box_low", std::vector<double>(p.boxLow.begin(), p.boxLow.end()));
      out.attribute("/particles", "box_length",
                    std::vector<double>(p.boxLength.begin(), p.boxLength.end()));
    }
  }
}

/// The particle arrays as row columns, with their data.
std::vector<std::pair<detail::RowColumn, void const*>> particleColumns(ParticleArrays const& p) {
  using detail::rowColumn;
  std::vector<std::pair<detail::RowColumn, void const*>> c;
  c.emplace_back(
      rowColumn("position", 3, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, MPI_DOUBLE, 8, p.positionUnits),
      p.position.data());
  c.emplace_back(
      rowColumn("velocity", 3, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, MPI_DOUBLE, 8, p.velocityUnits),
      p.velocity.data());
  c.emplace_back(rowColumn("id", 1, H5T_STD_I64LE, H5T_NATIVE_INT64, MPI_INT64_T, 8, "1"),
                 p.id.data());
  c.emplace_back(rowColumn("type", 1, H5T_STD_I32LE, H5T_NATIVE_INT32, MPI_INT32_T, 4, "1"),
                 p.type.data());
  if (p.hasImages)
    c.emplace_back(rowColumn("image", 3, H5T_STD_I32LE, H5T_NATIVE_INT32, MPI_INT32_T, 4, "1"),
                   p.image.data());
  return c;
}

}  // namespace

SnapshotWriter::SnapshotWriter(MPI_Comm comm, Options options)
    : m_comm(comm), m_options(std::move(options)), m_mode(m_options.mode) {
  checkMpi(MPI_Comm_rank(comm, &m_rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(comm, &m_size), "MPI_Comm_size");
  m_mode = detail::resolveMode(m_mode, "snapshot");
  if (m_options.maxMessageBytes < 8)
    throw ConfigError(
        str("snapshot maxMessageBytes ", m_options.maxMessageBytes, ", expected >= 8 (one value)"));
}

std::string SnapshotWriter::snapshotPath(long long step) const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%06lld.h5", step);
  return m_options.directory + "/" + m_options.runName + buf;
}

std::string SnapshotWriter::xdmfPath() const {
  return m_options.directory + "/" + m_options.runName + ".xmf";
}

std::string SnapshotWriter::write(SnapshotData const& d) {
  ScopedRegion region("eddy::io::snapshot");
  std::string const path = snapshotPath(d.step);
  std::string const tmp = path + ".tmp";
  std::string const context = str("cannot write snapshot '", path, "'");
  detail::Hdf5Quiet quiet;

  Failure failure;
  checkInput(d, failure);
  agree(m_comm, failure, context);

  // Global particle rows: this rank's first row is the sum of the counts of lower ranks.
  long long const myCount = d.hasParticles ? static_cast<long long>(d.particles.count()) : 0;
  detail::RowRange const span = detail::globalRows(m_comm, myCount);
  long long const first = span.first, total = span.total;

  auto removeTmp = [&] {
    if (m_rank == 0) std::remove(tmp.c_str());
  };
  // Rank 0 claims the file's room before HDF5 writes into it: a full disk (or a path that
  // ends in /dev/full) then fails here, cleanly. HDF5 1.10 cannot recover from a failed close of
  // an MPI-IO file (its later clean-up crashes), so failing early matters.
  if (m_rank == 0) {
    long long bytes = 65536 + static_cast<long long>(m_options.deckYaml.size());
    if (d.hasGrid)
      bytes += 8 * product(d.grid.globalCells) * static_cast<long long>(d.fields.size());
    bytes += (d.particles.hasImages ? 72 : 60) * total;
    detail::reserveRoom(tmp, bytes, failure);
  }
  agree(m_comm, failure, context, removeTmp);
  bool const collective = m_mode == SnapshotMode::Collective;
  int const dims = d.grid.dims;
  {
    // Collective: every rank opens the file through MPI-IO. Gather: rank 0 alone.
    std::unique_ptr<Hdf5Output> out;
    if (collective || m_rank == 0)
      out = std::make_unique<Hdf5Output>(tmp, collective ? m_comm : MPI_COMM_NULL, failure);
    agree(m_comm, failure, context, removeTmp);
    if (out) writeMetadata(*out, d, m_size, m_options.deckYaml);

    detail::GridBox box;
    box.global = d.grid.globalCells;
    box.offset = d.grid.offset;
    box.count = d.grid.localCells;
    for (auto const& a : d.fields)
      detail::writeGrid(out.get(), m_comm, collective, "/fields/" + a.name, a.units, box,
                        a.values.data(), m_options.maxMessageBytes);
    if (d.hasParticles)
      for (auto const& c : particleColumns(d.particles))
        detail::writeRows(out.get(), m_comm, collective, "/particles/" + c.first.name, c.first,
                          c.second, first, myCount, total, m_options.maxMessageBytes);
    if (out) out->close();
    agree(m_comm, failure, context, removeTmp);
  }

  // Only a complete file gets the final name (rename is atomic within a file system).
  if (m_rank == 0 && std::rename(tmp.c_str(), path.c_str()) != 0)
    failure.set(str("rename of '", tmp, "' to '", path, "' failed: errno ", errno, ": ",
                    std::strerror(errno)));
  agree(m_comm, failure, context, removeTmp);

  Entry e;
  auto const slash = path.find_last_of('/');
  e.file = slash == std::string::npos ? path : path.substr(slash + 1);
  e.step = d.step;
  e.time = d.time;
  e.hasGrid = d.hasGrid;
  e.dims = dims;
  e.globalCells = d.grid.globalCells;
  e.origin = d.grid.origin;
  e.spacing = d.grid.spacing;
  for (auto const& a : d.fields) e.fields.push_back(a.name);
  e.vectors = d.vectors;
  e.hasParticles = d.hasParticles;
  e.particles = total;
  std::vector<Entry> entries = m_entries;
  entries.push_back(e);

  writeIndex(entries);
  m_entries = std::move(entries);
  return path;
}

void SnapshotWriter::writeIndex(std::vector<Entry> const& entries) {
  // The index is rewritten the same way as a snapshot, so a reader never sees half of it.
  Failure failure;
  std::string const xmf = xdmfPath();
  if (m_rank == 0) {
    std::string const xmfTmp = xmf + ".tmp";
    {
      std::ofstream os(xmfTmp, std::ios::trunc);
      errno = 0;
      os << xdmfText(m_options.runName, entries);
      os.close();
      if (!os)
        failure.set(
            str("writing '", xmfTmp, "' failed: errno ", errno, ": ", std::strerror(errno)));
    }
    if (!failure.failed() && std::rename(xmfTmp.c_str(), xmf.c_str()) != 0)
      failure.set(str("rename of '", xmfTmp, "' to '", xmf, "' failed: errno ", errno, ": ",
                      std::strerror(errno)));
    if (failure.failed()) std::remove(xmfTmp.c_str());
  }
  agree(m_comm, failure, str("cannot update XDMF index '", xmf, "'"));
}

void SnapshotWriter::resume(std::vector<Entry> entries) {
  writeIndex(entries);
  m_entries = std::move(entries);
}

}  // namespace eddy::io
