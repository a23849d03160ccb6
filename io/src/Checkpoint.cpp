// Checkpoints: the snapshot protocol (room first, tmp + rename, collective or gathered writes,
// one collective error) applied to a run's full state, and the rotation of old files. Reading:
// CheckpointReader.cpp.
#include "eddy/io/Checkpoint.hpp"

#include "CheckpointChecksum.hpp"
#include "CheckpointFormat.hpp"
#include "CollectiveIo.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Version.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <utility>

namespace eddy::io {

namespace detail {

std::string listText(std::vector<long long> const& v) {
  std::string s = "(";
  for (std::size_t a = 0; a < v.size(); ++a) s += str(a ? ", " : "", v[a]);
  return s + ")";
}

void broadcastText(MPI_Comm comm, std::string& text) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  long long n = static_cast<long long>(text.size());
  checkMpi(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm), "MPI_Bcast(text size)");
  text.resize(static_cast<std::size_t>(n));
  // In pieces below 2^31 bytes (MPI counts are int).
  for (long long done = 0; done < n;) {
    long long const piece = std::min<long long>(n - done, 1LL << 30);
    checkMpi(MPI_Bcast(&text[static_cast<std::size_t>(done)], static_cast<int>(piece), MPI_CHAR, 0,
                       comm),
             "MPI_Bcast(text)");
    done += piece;
  }
}

}  // namespace detail

namespace {

using detail::agree;
using detail::broadcastText;
using detail::Failure;
using detail::Hdf5Output;
using detail::idColumn;
using detail::kFormat;
using detail::kFormatVersion;
using detail::kSuffix;
using detail::realColumn;
using detail::typeColumn;

bool goodName(std::string const& name) {
  bool ok = !name.empty();
  for (char const c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  return ok;
}

/// Checks this rank's arrays against the sizes they claim.
void checkInput(CheckpointData const& d, Failure& f) {
  for (auto const& g : d.grids) {
    if (!goodName(g.name))
      f.set(str("checkpoint grid '", g.name, "': expected a name of letters, digits and '_'"));
    if (static_cast<long long>(g.values.size()) != detail::product(g.count))
      f.set(str("checkpoint grid '", g.name, "': ", g.values.size(), " values, expected ",
                detail::product(g.count), " (", toString(g.count), ")"));
    for (int a = 0; a < 3; ++a)
      if (g.offset[a] < 0 || g.count[a] < 0 || g.offset[a] + g.count[a] > g.global[a])
        f.set(str("checkpoint grid '", g.name, "': block at ", toString(g.offset), " of ",
                  toString(g.count), " lies outside the array of ", toString(g.global)));
  }
  if (d.hasParticles) {
    auto const& p = d.particles;
    if (p.type.size() != p.count())
      f.set(str("checkpoint particles: ", p.count(), " ids but ", p.type.size(), " types"));
    for (auto const& c : p.columns) {
      if (!goodName(c.name) || c.name == "id" || c.name == "type" || c.name == "rank_rows")
        f.set(str("checkpoint particle column '", c.name,
                  "': expected a name of letters, digits and '_' other than id, type, rank_rows"));
      if (c.width < 1 || c.values.size() != static_cast<std::size_t>(c.width) * p.count())
        f.set(str("checkpoint particle column '", c.name, "': ", c.values.size(), " values for ",
                  p.count(), " particles of width ", c.width));
    }
  }
}

std::string fileName(std::string const& runName, long long step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%06lld", step);
  return runName + buf + kSuffix;
}

/// The step of `name` when it is `<runName>_<digits>.chk.h5`, else -1.
long long stepOf(std::string const& name, std::string const& runName) {
  std::string const prefix = runName + "_";
  std::string const suffix = kSuffix;
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  std::string const digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  for (char const c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::strtoll(digits.c_str(), nullptr, 10);
}

/// Rank 0: the checkpoints of `runName` in `directory`, oldest first.
std::vector<std::pair<long long, std::string>> scan(std::string const& directory,
                                                    std::string const& runName) {
  std::vector<std::pair<long long, std::string>> found;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string const name = it->path().filename().string();
    long long const step = stepOf(name, runName);
    if (step >= 0) found.emplace_back(step, directory + "/" + name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

CheckpointColumn const* CheckpointParticles::column(std::string const& name) const {
  for (auto const& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Writing

CheckpointWriter::CheckpointWriter(MPI_Comm comm, Options options)
    : m_comm(comm), m_options(std::move(options)), m_mode(m_options.mode) {
  checkMpi(MPI_Comm_rank(comm, &m_rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(comm, &m_size), "MPI_Comm_size");
  m_mode = detail::resolveMode(m_mode, "checkpoint");
  if (m_options.keep < 1)
    throw ConfigError(str("checkpoint keep is ", m_options.keep, "; expected >= 1"));
  if (m_options.maxMessageBytes < 16)
    throw ConfigError(str("checkpoint maxMessageBytes ", m_options.maxMessageBytes,
                          ", expected >= 16 (one row)"));
}

std::string CheckpointWriter::path(long long step) const {
  return m_options.directory + "/" + fileName(m_options.runName, step);
}

CheckpointWriter::Written CheckpointWriter::write(CheckpointData const& d) {
  ScopedRegion region("eddy::io::checkpoint");
  Written result;
  result.path = path(d.step);
  std::string const tmp = result.path + ".tmp";
  std::string const context = str("cannot write checkpoint '", result.path, "'");
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
  // Room first, as for snapshots: a full disk fails here, before HDF5 writes anything.
  if (m_rank == 0) {
    long long bytes = 65536 + static_cast<long long>(m_options.deckYaml.size());
    for (auto const& t : d.attributes.texts) bytes += static_cast<long long>(t.second.size());
    for (auto const& g : d.grids) bytes += 8 * detail::product(g.global);
    long long rowBytes = 12;
    for (auto const& c : d.particles.columns) rowBytes += 8 * c.width;
    bytes += total * rowBytes + 8 * m_size;
    detail::reserveRoom(tmp, bytes, failure);
  }
  agree(m_comm, failure, context, removeTmp);
  bool const collective = m_mode == SnapshotMode::Collective;
  {
    std::unique_ptr<Hdf5Output> out;
    if (collective || m_rank == 0)
      out = std::make_unique<Hdf5Output>(tmp, collective ? m_comm : MPI_COMM_NULL, failure);
    agree(m_comm, failure, context, removeTmp);
    if (out) {
      out->attribute("/", "checkpoint_format", std::string(kFormat));
      out->attribute("/", "checkpoint_version", kFormatVersion);
      out->attribute("/", "model", d.model);
      out->attribute("/", "step", static_cast<std::int64_t>(d.step));
      out->attribute("/", "time", d.time);
      out->attribute("/", "ranks", static_cast<std::int64_t>(m_size));
      out->attribute("/", "eddy_version", std::string(kVersion));
      out->attribute("/", "run_name", m_options.runName);
      out->attribute("/", "deck", m_options.deckYaml);
      out->attribute("/", "checksum_algorithm", std::string(detail::kChecksumAlgorithm));
      for (auto const& a : d.attributes.reals)
        if (a.second.size() == 1)
          out->attribute("/", a.first, a.second[0]);
        else
          out->attribute("/", a.first, a.second);
      for (auto const& a : d.attributes.integers)
        if (a.second.size() == 1)
          out->attribute("/", a.first, a.second[0]);
        else
          out->attribute("/", a.first, a.second);
      for (auto const& a : d.attributes.texts) out->attribute("/", a.first, a.second);
      if (!d.grids.empty()) out->createGroup("/fields");
      if (d.hasParticles) out->createGroup("/particles");
    }
    // Every dataset's checksum: this rank's terms now, all ranks' sum below.
    std::vector<std::string> paths;
    std::vector<std::uint64_t> sums;
    for (auto const& g : d.grids) {
      detail::GridBox const box{g.global, g.offset, g.count};
      paths.push_back("/fields/" + g.name);
      detail::writeGrid(out.get(), m_comm, collective, paths.back(), g.units, box,
                        g.values.data(), m_options.maxMessageBytes);
      sums.push_back(detail::checksumBlock(box, g.values.data()));
    }
    if (d.hasParticles) {
      auto const& p = d.particles;
      std::size_t const maxBytes = m_options.maxMessageBytes;
      auto rows = [&](std::string const& name, detail::RowColumn const& column, void const* data,
                      long long at, long long count, long long all) {
        paths.push_back("/particles/" + name);
        detail::writeRows(out.get(), m_comm, collective, paths.back(), column, data, at, count,
                          all, maxBytes);
        auto const w = static_cast<std::uint64_t>(column.width);
        sums.push_back(detail::checksumRange(data, column.elemBytes, at * w,
                                             static_cast<std::size_t>(count * column.width)));
      };
      rows("id", idColumn(), p.id.data(), first, myCount, total);
      rows("type", typeColumn(), p.type.data(), first, myCount, total);
      for (auto const& c : p.columns)
        rows(c.name, realColumn(c.name, c.width, c.units), c.values.data(), first, myCount, total);
      // Row r of rank_rows: the rows rank r wrote (a restart on the same ranks takes them back).
      std::int64_t const rankRows = myCount;
      rows("rank_rows", idColumn(), &rankRows, m_rank, 1, m_size);
    }
    if (!sums.empty())
      checkMpi(MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()),
                             MPI_UINT64_T, MPI_SUM, m_comm),
               "MPI_Allreduce(checkpoint checksums)");
    if (out)
      for (std::size_t i = 0; i < paths.size(); ++i)
        out->attribute(paths[i], "checksum", detail::checksumText(sums[i]));
    if (out) out->close();
    agree(m_comm, failure, context, removeTmp);
  }

  // Only a complete file gets the final name; only then may older checkpoints go.
  if (m_rank == 0 && std::rename(tmp.c_str(), result.path.c_str()) != 0)
    failure.set(str("rename of '", tmp, "' to '", result.path, "' failed: errno ", errno, ": ",
                    std::strerror(errno)));
  agree(m_comm, failure, context, removeTmp);

  if (m_rank == 0) {
    struct stat st {};
    if (::stat(result.path.c_str(), &st) == 0) result.bytes = static_cast<long long>(st.st_size);
    auto const existing = scan(m_options.directory, m_options.runName);
    int kept = 1;  // the new one
    for (auto it = existing.rbegin(); it != existing.rend(); ++it) {
      if (it->first >= d.step) continue;  // the new one, or a later one of another run
      if (kept < m_options.keep) {
        ++kept;
        continue;
      }
      if (std::remove(it->second.c_str()) == 0)
        result.removed.push_back(it->second);
      else if (result.removeFailure.empty())
        result.removeFailure = str("cannot delete old checkpoint '", it->second, "': errno ", errno,
                                   ": ", std::strerror(errno));
    }
  }
  return result;
}

std::vector<std::pair<long long, std::string>> listCheckpoints(MPI_Comm comm,
                                                               std::string const& directory,
                                                               std::string const& runName) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text;
  if (rank == 0)
    for (auto const& f : scan(directory, runName)) text += str(f.first, ' ', f.second, '\n');
  broadcastText(comm, text);
  std::vector<std::pair<long long, std::string>> found;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    auto const space = line.find(' ');
    found.emplace_back(std::strtoll(line.c_str(), nullptr, 10), line.substr(space + 1));
  }
  return found;
}

}  // namespace eddy::io
