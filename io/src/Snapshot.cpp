// Snapshots: the collective protocol (agreeing on failure, particle offsets, the gather path for
// a serial HDF5, tmp + rename) over the HDF5 calls of SnapshotHdf5.cpp.
#include "eddy/io/Snapshot.hpp"

#include "SnapshotHdf5.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Version.hpp"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
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

using detail::Failure;
using detail::Hdf5Output;

constexpr int kTagGrid = 4101;
constexpr int kTagParticles = 4102;

/// Every rank learns whether any rank failed; all then throw the same collective IoError
/// carrying the message of the lowest failing rank. `cleanup` runs on every rank first.
template <class Cleanup>
void agree(MPI_Comm comm, Failure const& failure, std::string const& context, Cleanup cleanup) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int const mine = failure.failed() ? rank : size;
  int first = size;
  checkMpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce(snapshot)");
  if (first == size) return;
  char buf[1024] = {0};
  if (rank == first) std::snprintf(buf, sizeof buf, "%s", failure.message.c_str());
  checkMpi(MPI_Bcast(buf, sizeof buf, MPI_CHAR, first, comm), "MPI_Bcast(snapshot error)");
  cleanup();
  throw IoError(str(context, ": ", size > 1 ? str("[rank ", first, "] ") : std::string(), buf),
                true);
}

void agree(MPI_Comm comm, Failure const& failure, std::string const& context) {
  agree(comm, failure, context, [] {});
}

/// HDF5 shape of a per-axis triple: (z, y, x), C order (x fastest). 2D grids are one cell thick
/// in z, (1, y, x), so that XDMF readers lay them in the x-y plane (ParaView puts a 2D mesh in
/// the y-z plane).
std::vector<hsize_t> fileOrder(int /*dims*/, Index3 const& v) {
  return {hsize_t(v[2]), hsize_t(v[1]), hsize_t(v[0])};
}

long long product(Index3 const& n) {
  return static_cast<long long>(n[0]) * n[1] * n[2];
}

/// A box of a rank's block that is contiguous in its x-fastest buffer.
struct Slab {
  Index3 lo{0, 0, 0}, hi{0, 0, 0};
  Index3 extent() const { return {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}; }
};

/// Splits a block of `n` cells into contiguous slabs of at most `maxElems` values: whole
/// planes when a plane fits, else rows of one plane, else pieces of one row. Sender and
/// receiver compute the same list.
std::vector<Slab> splitBlock(Index3 const& n, long long maxElems) {
  std::vector<Slab> slabs;
  if (product(n) == 0) return slabs;
  long long const row = n[0];
  long long const plane = row * n[1];
  if (plane <= maxElems) {
    int const step = static_cast<int>(std::max<long long>(1, maxElems / plane));
    for (int k = 0; k < n[2]; k += step)
      slabs.push_back(Slab{{0, 0, k}, {n[0], n[1], std::min(n[2], k + step)}});
  } else if (row <= maxElems) {
    int const step = static_cast<int>(std::max<long long>(1, maxElems / row));
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; j += step)
        slabs.push_back(Slab{{0, j, k}, {n[0], std::min(n[1], j + step), k + 1}});
  } else {
    int const step = static_cast<int>(maxElems);
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; i += step)
          slabs.push_back(Slab{{i, j, k}, {std::min(n[0], i + step), j + 1, k + 1}});
  }
  return slabs;
}

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
  if (d.hasParticles) {
    auto const& p = d.particles;
    if (p.position.size() != 3 * p.count() || p.velocity.size() != 3 * p.count() ||
        p.type.size() != p.count())
      f.set(str("snapshot particles: ", p.count(), " ids but ", p.position.size(), " position, ",
                p.velocity.size(), " velocity and ", p.type.size(),
                " type values; expected 3, 3 and 1 per id"));
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
  if (d.hasParticles) out.createGroup("/particles");
}

/// One particle array: its name, per-row width, HDF5 types, MPI type, data and units.
struct ParticleColumn {
  char const* name;
  int width;
  hid_t fileType;
  hid_t memType;
  MPI_Datatype mpiType;
  std::size_t elemBytes;
  void const* data;
  std::string units;
};

std::vector<ParticleColumn> particleColumns(ParticleArrays const& p) {
  return {{"position", 3, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, MPI_DOUBLE, 8, p.position.data(),
           p.positionUnits},
          {"velocity", 3, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, MPI_DOUBLE, 8, p.velocity.data(),
           p.velocityUnits},
          {"id", 1, H5T_STD_I64LE, H5T_NATIVE_INT64, MPI_INT64_T, 8, p.id.data(), "1"},
          {"type", 1, H5T_STD_I32LE, H5T_NATIVE_INT32, MPI_INT32_T, 4, p.type.data(), "1"}};
}

std::vector<hsize_t> rows(long long offset, int width) {
  return width == 1 ? std::vector<hsize_t>{hsize_t(offset)}
                    : std::vector<hsize_t>{hsize_t(offset), hsize_t(0)};
}
std::vector<hsize_t> rowCount(long long n, int width) {
  return width == 1 ? std::vector<hsize_t>{hsize_t(n)}
                    : std::vector<hsize_t>{hsize_t(n), hsize_t(width)};
}

/// Creates `path` and makes sure it can hold `bytes`: writes a first block (a device such as
/// /dev/full refuses it) and asks the file system to allocate the rest (a full disk or quota
/// refuses that; file systems without posix_fallocate are not asked).
void reserveRoom(std::string const& path, long long bytes, Failure& failure) {
  errno = 0;
  int const fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    failure.set(str("cannot create '", path, "': errno ", errno, ": ", std::strerror(errno)));
    return;
  }
  std::vector<char> const block(4096, '\0');
  errno = 0;
  if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
    failure.set(str("writing '", path, "' failed: errno ", errno, ": ",
                    std::strerror(errno ? errno : EIO)));
  } else {
    int const rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
    if (rc != 0 && rc != EINVAL && rc != EOPNOTSUPP && rc != ENODEV && rc != ESPIPE)
      failure.set(str("no room for ", bytes, " bytes in '", path, "': errno ", rc, ": ",
                      std::strerror(rc)));
  }
  if (::close(fd) != 0)
    failure.set(str("closing '", path, "' failed: errno ", errno, ": ", std::strerror(errno)));
}

}  // namespace

SnapshotWriter::SnapshotWriter(MPI_Comm comm, Options options)
    : m_comm(comm), m_options(std::move(options)), m_mode(m_options.mode) {
  checkMpi(MPI_Comm_rank(comm, &m_rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(comm, &m_size), "MPI_Comm_size");
#if EDDY_HDF5_IS_PARALLEL
  bool const parallel = true;
#else
  bool const parallel = false;
#endif
  if (m_mode == SnapshotMode::Auto)
    m_mode = parallel ? SnapshotMode::Collective : SnapshotMode::Gather;
  if (m_mode == SnapshotMode::Collective && !parallel)
    throw ConfigError(
        "snapshot mode 'collective' needs a parallel HDF5; this Eddy links a serial one "
        "(use auto or gather)");
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
  long long first = 0, total = 0;
  checkMpi(MPI_Exscan(&myCount, &first, 1, MPI_LONG_LONG, MPI_SUM, m_comm), "MPI_Exscan");
  if (m_rank == 0) first = 0;  // MPI_Exscan leaves rank 0's result undefined
  checkMpi(MPI_Allreduce(&myCount, &total, 1, MPI_LONG_LONG, MPI_SUM, m_comm), "MPI_Allreduce");

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
    bytes += 60 * total;
    reserveRoom(tmp, bytes, failure);
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

    if (collective) {
      for (auto const& a : d.fields) {
        out->createDataset("/fields/" + a.name, H5T_IEEE_F64LE, fileOrder(dims, d.grid.globalCells),
                           a.units);
        out->writeBlock(H5T_NATIVE_DOUBLE, fileOrder(dims, d.grid.offset),
                        fileOrder(dims, d.grid.localCells), a.values.data());
      }
      if (d.hasParticles)
        for (auto const& c : particleColumns(d.particles)) {
          out->createDataset(std::string("/particles/") + c.name, c.fileType,
                             rowCount(total, c.width), c.units);
          out->writeBlock(c.memType, rows(first, c.width), rowCount(myCount, c.width), c.data);
        }
    } else {
      // Rank 0 learns every block, then takes the data rank by rank in bounded messages and
      // keeps receiving after a failure (so no sender blocks forever), writing nothing more.
      std::vector<int> blocks(6 * m_size);
      int mine[6] = {d.grid.offset[0],     d.grid.offset[1],     d.grid.offset[2],
                     d.grid.localCells[0], d.grid.localCells[1], d.grid.localCells[2]};
      checkMpi(MPI_Gather(mine, 6, MPI_INT, blocks.data(), 6, MPI_INT, 0, m_comm),
               "MPI_Gather(snapshot blocks)");
      long long const maxElems =
          std::max<long long>(1, static_cast<long long>(m_options.maxMessageBytes / 8));
      std::vector<double> buffer;
      for (auto const& a : d.fields) {
        if (m_rank == 0) {
          out->createDataset("/fields/" + a.name, H5T_IEEE_F64LE,
                             fileOrder(dims, d.grid.globalCells), a.units);
          out->writeBlock(H5T_NATIVE_DOUBLE, fileOrder(dims, d.grid.offset),
                          fileOrder(dims, d.grid.localCells), a.values.data());
          for (int r = 1; r < m_size; ++r) {
            Index3 const off{blocks[6 * r], blocks[6 * r + 1], blocks[6 * r + 2]};
            Index3 const n{blocks[6 * r + 3], blocks[6 * r + 4], blocks[6 * r + 5]};
            for (auto const& s : splitBlock(n, maxElems)) {
              Index3 const e = s.extent();
              buffer.resize(static_cast<std::size_t>(product(e)));
              checkMpi(MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_DOUBLE, r,
                                kTagGrid, m_comm, MPI_STATUS_IGNORE),
                       "MPI_Recv(snapshot grid)");
              Index3 const at{off[0] + s.lo[0], off[1] + s.lo[1], off[2] + s.lo[2]};
              out->writeBlock(H5T_NATIVE_DOUBLE, fileOrder(dims, at), fileOrder(dims, e),
                              buffer.data());
            }
          }
        } else {
          Index3 const n = d.grid.localCells;
          for (auto const& s : splitBlock(n, maxElems)) {
            long long const at =
                s.lo[0] + static_cast<long long>(n[0]) * (s.lo[1] + n[1] * s.lo[2]);
            checkMpi(MPI_Send(a.values.data() + at, static_cast<int>(product(s.extent())),
                              MPI_DOUBLE, 0, kTagGrid, m_comm),
                     "MPI_Send(snapshot grid)");
          }
        }
      }
      if (d.hasParticles) {
        std::vector<long long> counts(m_size);
        checkMpi(MPI_Gather(&myCount, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, 0, m_comm),
                 "MPI_Gather(particle counts)");
        std::vector<char> bytes;
        for (auto const& c : particleColumns(d.particles)) {
          std::size_t const rowBytes = c.width * c.elemBytes;
          long long const maxRows =
              std::max<long long>(1, static_cast<long long>(m_options.maxMessageBytes / rowBytes));
          if (m_rank == 0) {
            out->createDataset(std::string("/particles/") + c.name, c.fileType,
                               rowCount(total, c.width), c.units);
            out->writeBlock(c.memType, rows(0, c.width), rowCount(myCount, c.width), c.data);
            long long row = counts[0];
            for (int r = 1; r < m_size; ++r) {
              for (long long done = 0; done < counts[r];) {
                long long const n = std::min(maxRows, counts[r] - done);
                bytes.resize(static_cast<std::size_t>(n) * rowBytes);
                checkMpi(MPI_Recv(bytes.data(), static_cast<int>(n * c.width), c.mpiType, r,
                                  kTagParticles, m_comm, MPI_STATUS_IGNORE),
                         "MPI_Recv(snapshot particles)");
                out->writeBlock(c.memType, rows(row + done, c.width), rowCount(n, c.width),
                                bytes.data());
                done += n;
              }
              row += counts[r];
            }
          } else {
            auto const* base = static_cast<char const*>(c.data);
            for (long long done = 0; done < myCount;) {
              long long const n = std::min(maxRows, myCount - done);
              checkMpi(MPI_Send(base + done * rowBytes, static_cast<int>(n * c.width), c.mpiType, 0,
                                kTagParticles, m_comm),
                       "MPI_Send(snapshot particles)");
              done += n;
            }
          }
        }
      }
    }
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
  e.hasParticles = d.hasParticles;
  e.particles = total;
  std::vector<Entry> entries = m_entries;
  entries.push_back(e);

  // The index is rewritten the same way, so a reader never sees half of it.
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
  m_entries = std::move(entries);
  return path;
}

}  // namespace eddy::io
