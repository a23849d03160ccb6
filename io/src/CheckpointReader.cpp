// The read path of a restart: rank 0 reads a checkpoint's attributes and shapes for everyone,
// then the ranks read their blocks and rows collectively or through rank 0.
#include "eddy/io/Checkpoint.hpp"

#include "CheckpointChecksum.hpp"
#include "CheckpointFormat.hpp"
#include "CollectiveIo.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <utility>

namespace eddy::io {

using detail::agree;
using detail::broadcastText;
using detail::Failure;
using detail::Hdf5Input;
using detail::idColumn;
using detail::kFormat;
using detail::kFormatVersion;
using detail::listText;
using detail::realColumn;
using detail::typeColumn;

namespace {

/// What rank 0 learns from the file, as text every rank parses the same way: one record per
/// attribute, dataset shape or dataset checksum, `R|I|S|D|C name count` then the values
/// (strings: their bytes).
struct Header {
  std::string text;
  void add(char kind, std::string const& name, std::vector<std::string> const& values) {
    text += str(kind, ' ', name, ' ', values.size(), '\n');
    for (auto const& v : values) text += str(v.size(), '\n', v, '\n');
  }
};

std::string real17(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

struct AttributeWalk {
  Header* header;
  Failure* failure;
};

herr_t readAttribute(hid_t obj, char const* name, H5A_info_t const*, void* client) {
  auto* walk = static_cast<AttributeWalk*>(client);
  hid_t const a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) {
    walk->failure->set(str("H5Aopen of attribute '", name, "' failed: ", detail::hdf5Reason()));
    return -1;
  }
  hid_t const type = H5Aget_type(a);
  hid_t const space = H5Aget_space(a);
  hssize_t const n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  H5T_class_t const cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
  bool good = n >= 0;
  std::vector<std::string> values;
  if (good && cls == H5T_FLOAT) {
    std::vector<double> v(static_cast<std::size_t>(n));
    good = H5Aread(a, H5T_NATIVE_DOUBLE, v.data()) >= 0;
    for (double const x : v) values.push_back(real17(x));
    if (good) walk->header->add('R', name, values);
  } else if (good && cls == H5T_INTEGER) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    good = H5Aread(a, H5T_NATIVE_INT64, v.data()) >= 0;
    for (auto const x : v) values.push_back(str(x));
    if (good) walk->header->add('I', name, values);
  } else if (good && cls == H5T_STRING && n == 1 && H5Tis_variable_str(type) == 0) {
    std::string s(H5Tget_size(type), '\0');
    good = H5Aread(a, type, &s[0]) >= 0;
    values.push_back(s.substr(0, s.find('\0')));
    if (good) walk->header->add('S', name, values);
  }
  if (!good)
    walk->failure->set(str("reading attribute '", name, "' failed: ", detail::hdf5Reason()));
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  H5Aclose(a);
  return good ? 0 : -1;
}

/// The fixed-length string attribute `name` of `obj` into `text`; false when there is none or
/// it is no such string.
bool readTextAttribute(hid_t obj, char const* name, std::string& text) {
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t const a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return false;
  hid_t const type = H5Aget_type(a);
  bool good = type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0;
  if (good) {
    std::string s(H5Tget_size(type), '\0');
    good = H5Aread(a, type, &s[0]) >= 0;
    text = s.substr(0, s.find('\0'));
  }
  if (type >= 0) H5Tclose(type);
  H5Aclose(a);
  return good;
}

struct DatasetWalk {
  Header* header;
  Failure* failure;
  std::string group;
};

herr_t readDatasetShape(hid_t group, char const* name, H5L_info_t const*, void* client) {
  auto* walk = static_cast<DatasetWalk*>(client);
  hid_t const d = H5Dopen2(group, name, H5P_DEFAULT);
  if (d < 0) return 0;  // not a dataset
  hid_t const space = H5Dget_space(d);
  int const rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  std::vector<hsize_t> dims(rank > 0 ? rank : 0);
  bool good = rank >= 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) >= 0;
  std::vector<std::string> values;
  for (auto const x : dims) values.push_back(str(x));
  std::string checksum;
  if (good) {
    walk->header->add('D', walk->group + "/" + name, values);
    if (readTextAttribute(d, "checksum", checksum))
      walk->header->add('C', walk->group + "/" + name, {checksum});
  } else
    walk->failure->set(
        str("reading the shape of '", walk->group, "/", name, "' failed: ", detail::hdf5Reason()));
  if (space >= 0) H5Sclose(space);
  H5Dclose(d);
  return good ? 0 : -1;
}

/// Rank 0: checks that `path` is a readable HDF5 file and reads its header.
void readHeader(std::string const& path, Header& header, Failure& failure) {
  errno = 0;
  int const fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    failure.set(str("errno ", errno, ": ", std::strerror(errno)));
    return;
  }
  struct stat st {};
  bool const regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  ::close(fd);
  if (!regular) {
    failure.set("it is not a regular file");
    return;
  }
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    failure.set("it is not an HDF5 file");
    return;
  }
  Hdf5Input in(path, MPI_COMM_NULL, failure);
  if (!in.ok()) return;
  AttributeWalk aw{&header, &failure};
  hsize_t at = 0;
  if (H5Aiterate2(in.file(), H5_INDEX_NAME, H5_ITER_INC, &at, readAttribute, &aw) < 0)
    failure.set(str("reading the root attributes failed: ", detail::hdf5Reason()));
  for (char const* group : {"/fields", "/particles"}) {
    if (failure.failed() || H5Lexists(in.file(), group, H5P_DEFAULT) <= 0) continue;
    hid_t const g = H5Gopen2(in.file(), group, H5P_DEFAULT);
    if (g < 0) {
      failure.set(str("H5Gopen2 of '", group, "' failed: ", detail::hdf5Reason()));
      continue;
    }
    DatasetWalk dw{&header, &failure, group};
    hsize_t idx = 0;
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, readDatasetShape, &dw) < 0)
      failure.set(str("listing '", group, "' failed: ", detail::hdf5Reason()));
    H5Gclose(g);
  }
  in.close();
}

}  // namespace

CheckpointReader::CheckpointReader(MPI_Comm comm, std::string path, SnapshotMode mode,
                                   std::size_t maxMessageBytes)
    : m_comm(comm), m_path(std::move(path)), m_mode(mode), m_maxMessageBytes(maxMessageBytes) {
  checkMpi(MPI_Comm_rank(comm, &m_rank), "MPI_Comm_rank");
  m_mode = detail::resolveMode(m_mode, "checkpoint");
  std::string const context = str("cannot read checkpoint '", m_path, "'");
  detail::Hdf5Quiet quiet;
  Failure failure;
  Header header;
  if (m_rank == 0) readHeader(m_path, header, failure);
  // Rank 0 alone looked at the file: its reason, without a rank, is everyone's.
  std::string reason = failure.message;
  broadcastText(comm, reason);
  if (!reason.empty()) throw IoError(str(context, ": ", reason), true);
  broadcastText(comm, header.text);

  // Every rank parses the same text.
  std::istringstream in(header.text);
  std::map<std::string, std::string> texts;
  for (std::string line; std::getline(in, line);) {
    std::istringstream rec(line);
    char kind = 0;
    std::string name;
    std::size_t n = 0;
    rec >> kind >> name >> n;
    std::vector<std::string> values;
    for (std::size_t v = 0; v < n; ++v) {
      std::string len;
      std::getline(in, len);
      std::string value(static_cast<std::size_t>(std::strtoull(len.c_str(), nullptr, 10)), '\0');
      in.read(&value[0], static_cast<std::streamsize>(value.size()));
      in.ignore(1);  // the newline after the value
      values.push_back(value);
    }
    if (kind == 'R') {
      auto& r = m_attributes.reals[name];
      for (auto const& v : values) r.push_back(std::strtod(v.c_str(), nullptr));
    } else if (kind == 'I') {
      auto& r = m_attributes.integers[name];
      for (auto const& v : values) r.push_back(std::strtoll(v.c_str(), nullptr, 10));
    } else if (kind == 'S') {
      m_attributes.texts[name] = values.empty() ? std::string() : values[0];
    } else if (kind == 'D') {
      auto& s = m_shapes[name];
      for (auto const& v : values) s.push_back(std::strtoll(v.c_str(), nullptr, 10));
    } else if (kind == 'C' && !values.empty()) {
      m_checksums[name] = values[0];
    }
  }
  auto const format = m_attributes.texts.find("checkpoint_format");
  if (format == m_attributes.texts.end() || format->second != kFormat)
    throw IoError(str(context, ": it is not an Eddy checkpoint (no root attribute ",
                      "checkpoint_format = '", kFormat, "'; a snapshot is not a checkpoint)"),
                  true);
  for (char const* key : {"model", "eddy_version", "deck"})
    if (!m_attributes.texts.count(key))
      throw IoError(str(context, ": the root attribute '", key, "' is missing"), true);
  for (char const* key : {"step", "ranks", "checkpoint_version"})
    if (m_attributes.integers[key].size() != 1)
      throw IoError(str(context, ": the root attribute '", key, "' is missing"), true);
  if (m_attributes.reals["time"].size() != 1)
    throw IoError(str(context, ": the root attribute 'time' is missing"), true);
  if (m_attributes.integers["checkpoint_version"][0] > kFormatVersion)
    throw IoError(
        str(context, ": checkpoint format version ", m_attributes.integers["checkpoint_version"][0],
            " is newer than ", kFormatVersion, ", the one this Eddy reads"),
        true);
  m_model = m_attributes.texts["model"];
  m_version = m_attributes.texts["eddy_version"];
  m_deck = m_attributes.texts["deck"];
  m_step = m_attributes.integers["step"][0];
  m_time = m_attributes.reals["time"][0];
  m_ranks = static_cast<int>(m_attributes.integers["ranks"][0]);
  // Before anything reads data (rank_rows below), so that damage is reported as such.
  verify(context);

  auto const id = m_shapes.find("/particles/id");
  m_hasParticles = id != m_shapes.end();
  if (m_hasParticles) {
    m_particles = id->second.empty() ? 0 : id->second[0];
    auto const rr = m_shapes.find("/particles/rank_rows");
    if (rr == m_shapes.end() || rr->second.size() != 1 || rr->second[0] != m_ranks ||
        !m_shapes.count("/particles/type"))
      throw IoError(
          str(context, ": /particles needs id, type and rank_rows (one per rank of ", m_ranks, ")"),
          true);
    for (auto const& s : m_shapes) {
      std::string const prefix = "/particles/";
      if (s.first.rfind(prefix, 0) != 0) continue;
      std::string const name = s.first.substr(prefix.size());
      if (name == "id" || name == "type" || name == "rank_rows") continue;
      // Width-1 columns are 1D datasets (N), the others (N, width).
      bool const good =
          (s.second.size() == 1 || s.second.size() == 2) && s.second[0] == m_particles;
      if (!good)
        throw IoError(str(context, ": particle array '", name, "' has shape ", listText(s.second),
                          "; expected (", m_particles, ") or (", m_particles, ", width)"),
                      true);
      m_columnNames.push_back(name);
      m_columnWidths.push_back(s.second.size() == 2 ? static_cast<int>(s.second[1]) : 1);
    }
    // The row counts of the writing ranks: a tiny read through the same path as the rest.
    m_rankRows.assign(static_cast<std::size_t>(m_ranks), 0);
    bool const collective = m_mode == SnapshotMode::Collective;
    Failure rf;
    {
      std::unique_ptr<Hdf5Input> file;
      if (collective || m_rank == 0)
        file = std::make_unique<Hdf5Input>(m_path, collective ? m_comm : MPI_COMM_NULL, rf);
      agree(m_comm, rf, context);
      detail::readRows(file.get(), m_comm, collective, "/particles/rank_rows", idColumn(),
                       m_rankRows.data(), 0, m_ranks, m_maxMessageBytes);
      if (file) file->close();
    }
    agree(m_comm, rf, context);
    long long sum = 0;
    for (auto const r : m_rankRows) sum += r;
    if (sum != m_particles)
      throw IoError(
          str(context, ": rank_rows adds up to ", sum, " rows; the file holds ", m_particles),
          true);
  }
}

void CheckpointReader::verify(std::string const& context) {
  // Written before checkpoints had checksums: read as before, unchecked (the caller may say so).
  auto const algorithm = m_attributes.texts.find("checksum_algorithm");
  if (algorithm == m_attributes.texts.end()) return;
  if (algorithm->second != detail::kChecksumAlgorithm)
    throw IoError(str(context, ": its checksums are of kind '", algorithm->second,
                      "'; this Eddy checks '", detail::kChecksumAlgorithm, "'"),
                  true);
  for (auto const& s : m_shapes)
    if (!m_checksums.count(s.first))
      throw IoError(str(context, ": dataset ", s.first,
                        " has no checksum attribute (every dataset of a checkpoint with "
                        "checksum_algorithm has one)"),
                    true);
  ScopedRegion region("eddy::io::restartVerify");
  auto const damaged =
      detail::verifyChecksums(m_comm, m_path, m_mode == SnapshotMode::Collective, m_shapes,
                              m_checksums, m_maxMessageBytes, context);
  if (!damaged.empty()) {
    std::string list;
    for (auto const& d : damaged) list += str(list.empty() ? "" : "; ", d);
    throw IoError(str(context, ": the data of ", damaged.size() == 1 ? "dataset " : "datasets ",
                      list, " do not match the ", damaged.size() == 1 ? "checksum" : "checksums",
                      " written with them: the file was damaged "
                      "after it was written (restart from an earlier checkpoint)"),
                  true);
  }
  m_checked = true;
}

double CheckpointReader::real(std::string const& name) const {
  auto const& v = reals(name);
  if (v.size() != 1)
    throw Error(str("checkpoint '", m_path, "': attribute '", name, "' has ", v.size(),
                    " values; expected one"));
  return v[0];
}

std::int64_t CheckpointReader::integer(std::string const& name) const {
  auto const& v = integers(name);
  if (v.size() != 1)
    throw Error(str("checkpoint '", m_path, "': attribute '", name, "' has ", v.size(),
                    " values; expected one"));
  return v[0];
}

std::vector<double> const& CheckpointReader::reals(std::string const& name) const {
  auto const it = m_attributes.reals.find(name);
  if (it == m_attributes.reals.end())
    throw Error(str("checkpoint '", m_path, "' has no real attribute '", name, "'"), ExitCode::Io,
                true);
  return it->second;
}

std::vector<std::int64_t> const& CheckpointReader::integers(std::string const& name) const {
  auto const it = m_attributes.integers.find(name);
  if (it == m_attributes.integers.end())
    throw Error(str("checkpoint '", m_path, "' has no integer attribute '", name, "'"),
                ExitCode::Io, true);
  return it->second;
}

std::string const& CheckpointReader::text(std::string const& name) const {
  auto const it = m_attributes.texts.find(name);
  if (it == m_attributes.texts.end())
    throw Error(str("checkpoint '", m_path, "' has no text attribute '", name, "'"), ExitCode::Io,
                true);
  return it->second;
}

bool CheckpointReader::hasGrid(std::string const& name) const {
  return m_shapes.count("/fields/" + name) > 0;
}

Index3 CheckpointReader::gridShape(std::string const& name) const {
  auto const it = m_shapes.find("/fields/" + name);
  if (it == m_shapes.end() || it->second.size() != 3)
    throw Error(str("checkpoint '", m_path, "' has no grid array '", name,
                    "' of 3 dimensions (/fields/", name, ")"),
                ExitCode::Io, true);
  return {static_cast<int>(it->second[2]), static_cast<int>(it->second[1]),
          static_cast<int>(it->second[0])};
}

std::vector<double> CheckpointReader::readGrid(std::string const& name, Index3 const& offset,
                                               Index3 const& count) const {
  Index3 const shape = gridShape(name);
  for (int a = 0; a < 3; ++a)
    if (offset[a] < 0 || count[a] < 0 || offset[a] + count[a] > shape[a])
      throw Error(str("checkpoint '", m_path, "': block at ", toString(offset), " of ",
                      toString(count), " lies outside grid array '", name, "' of ",
                      toString(shape)));
  ScopedRegion region("eddy::io::restartRead");
  std::string const context = str("cannot read checkpoint '", m_path, "'");
  detail::Hdf5Quiet quiet;
  std::vector<double> values(static_cast<std::size_t>(detail::product(count)), 0.0);
  bool const collective = m_mode == SnapshotMode::Collective;
  Failure failure;
  {
    std::unique_ptr<Hdf5Input> in;
    if (collective || m_rank == 0)
      in = std::make_unique<Hdf5Input>(m_path, collective ? m_comm : MPI_COMM_NULL, failure);
    agree(m_comm, failure, context);
    detail::readGrid(in.get(), m_comm, collective, "/fields/" + name,
                     detail::GridBox{shape, offset, count}, values.data(), m_maxMessageBytes);
    if (in) in->close();
  }
  agree(m_comm, failure, context);
  return values;
}

CheckpointParticles CheckpointReader::readParticles(long long first, long long count) const {
  if (first < 0 || count < 0 || first + count > m_particles)
    throw Error(str("checkpoint '", m_path, "': rows [", first, ", ", first + count,
                    ") lie outside the ", m_particles, " particle rows"));
  ScopedRegion region("eddy::io::restartRead");
  std::string const context = str("cannot read checkpoint '", m_path, "'");
  detail::Hdf5Quiet quiet;
  CheckpointParticles p;
  auto const n = static_cast<std::size_t>(count);
  p.id.assign(n, 0);
  p.type.assign(n, 0);
  bool const collective = m_mode == SnapshotMode::Collective;
  Failure failure;
  {
    std::unique_ptr<Hdf5Input> in;
    if (collective || m_rank == 0)
      in = std::make_unique<Hdf5Input>(m_path, collective ? m_comm : MPI_COMM_NULL, failure);
    agree(m_comm, failure, context);
    detail::readRows(in.get(), m_comm, collective, "/particles/id", idColumn(), p.id.data(), first,
                     count, m_maxMessageBytes);
    detail::readRows(in.get(), m_comm, collective, "/particles/type", typeColumn(), p.type.data(),
                     first, count, m_maxMessageBytes);
    for (std::size_t c = 0; c < m_columnNames.size(); ++c) {
      CheckpointColumn col;
      col.name = m_columnNames[c];
      col.width = m_columnWidths[c];
      col.values.assign(n * static_cast<std::size_t>(col.width), 0.0);
      detail::readRows(in.get(), m_comm, collective, "/particles/" + col.name,
                       realColumn(col.name, col.width, "1"), col.values.data(), first, count,
                       m_maxMessageBytes);
      p.columns.push_back(std::move(col));
    }
    if (in) in->close();
  }
  agree(m_comm, failure, context);
  return p;
}

}  // namespace eddy::io
