// The collective protocol of snapshots and checkpoints (see CollectiveIo.hpp).
#include "CollectiveIo.hpp"

#include "eddy/io/Info.hpp"

#include "eddy/core/Error.hpp"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace eddy::io::detail {

void agree(MPI_Comm comm, Failure const& failure, std::string const& context,
           std::function<void()> const& cleanup) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int const mine = failure.failed() ? rank : size;
  int first = size;
  checkMpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce(io failure)");
  if (first == size) return;
  char buf[1024] = {0};
  if (rank == first) std::snprintf(buf, sizeof buf, "%s", failure.message.c_str());
  checkMpi(MPI_Bcast(buf, sizeof buf, MPI_CHAR, first, comm), "MPI_Bcast(io error)");
  if (cleanup) cleanup();
  throw IoError(str(context, ": ", size > 1 ? str("[rank ", first, "] ") : std::string(), buf),
                true);
}

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

long long product(Index3 const& n) {
  return static_cast<long long>(n[0]) * n[1] * n[2];
}

SnapshotMode resolveMode(SnapshotMode mode, char const* what) {
  bool const parallel = hdf5Parallel();
  if (mode == SnapshotMode::Auto) return parallel ? SnapshotMode::Collective : SnapshotMode::Gather;
  if (mode == SnapshotMode::Collective && !parallel)
    throw ConfigError(str(what,
                          " mode 'collective' needs a parallel HDF5; this Eddy links a "
                          "serial one (use auto or gather)"));
  return mode;
}

RowRange globalRows(MPI_Comm comm, long long count) {
  RowRange r;
  int rank = 0;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  checkMpi(MPI_Exscan(&count, &r.first, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Exscan");
  if (rank == 0) r.first = 0;  // MPI_Exscan leaves rank 0's result undefined
  checkMpi(MPI_Allreduce(&count, &r.total, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Allreduce");
  return r;
}

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

std::vector<hsize_t> fileOrder(Index3 const& v) {
  return {hsize_t(v[2]), hsize_t(v[1]), hsize_t(v[0])};
}

namespace {

constexpr int kTagGrid = 4101;
constexpr int kTagRows = 4102;

long long maxElements(std::size_t maxMessageBytes, std::size_t elemBytes) {
  return std::max<long long>(1, static_cast<long long>(maxMessageBytes / elemBytes));
}

/// Offsets and counts of every rank's block, on rank 0 (6 ints per rank).
std::vector<int> gatherBoxes(MPI_Comm comm, GridBox const& box) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> boxes(rank == 0 ? 6 * size : 0);
  int mine[6] = {box.offset[0], box.offset[1], box.offset[2],
                 box.count[0],  box.count[1],  box.count[2]};
  checkMpi(MPI_Gather(mine, 6, MPI_INT, boxes.data(), 6, MPI_INT, 0, comm),
           "MPI_Gather(grid blocks)");
  return boxes;
}

std::vector<hsize_t> rowOffset(long long offset, int width) {
  return width == 1 ? std::vector<hsize_t>{hsize_t(offset)}
                    : std::vector<hsize_t>{hsize_t(offset), hsize_t(0)};
}
std::vector<hsize_t> rowCount(long long n, int width) {
  return width == 1 ? std::vector<hsize_t>{hsize_t(n)}
                    : std::vector<hsize_t>{hsize_t(n), hsize_t(width)};
}

}  // namespace

void writeGrid(Hdf5Output* out, MPI_Comm comm, bool collective, std::string const& path,
               std::string const& units, GridBox const& box, double const* values,
               std::size_t maxMessageBytes) {
  if (collective) {
    out->createDataset(path, H5T_IEEE_F64LE, fileOrder(box.global), units);
    out->writeBlock(H5T_NATIVE_DOUBLE, fileOrder(box.offset), fileOrder(box.count), values);
    return;
  }
  // Rank 0 takes the data rank by rank in bounded messages and keeps receiving after a
  // failure (so no sender blocks forever), writing nothing more.
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> const boxes = gatherBoxes(comm, box);
  long long const maxElems = maxElements(maxMessageBytes, 8);
  if (rank == 0) {
    out->createDataset(path, H5T_IEEE_F64LE, fileOrder(box.global), units);
    out->writeBlock(H5T_NATIVE_DOUBLE, fileOrder(box.offset), fileOrder(box.count), values);
    std::vector<double> buffer;
    for (int r = 1; r < size; ++r) {
      Index3 const off{boxes[6 * r], boxes[6 * r + 1], boxes[6 * r + 2]};
      Index3 const n{boxes[6 * r + 3], boxes[6 * r + 4], boxes[6 * r + 5]};
      for (auto const& s : splitBlock(n, maxElems)) {
        Index3 const e = s.extent();
        buffer.resize(static_cast<std::size_t>(product(e)));
        checkMpi(MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_DOUBLE, r, kTagGrid,
                          comm, MPI_STATUS_IGNORE),
                 "MPI_Recv(grid block)");
        Index3 const at{off[0] + s.lo[0], off[1] + s.lo[1], off[2] + s.lo[2]};
        out->writeBlock(H5T_NATIVE_DOUBLE, fileOrder(at), fileOrder(e), buffer.data());
      }
    }
  } else {
    Index3 const n = box.count;
    for (auto const& s : splitBlock(n, maxElems)) {
      long long const at = s.lo[0] + static_cast<long long>(n[0]) * (s.lo[1] + n[1] * s.lo[2]);
      checkMpi(MPI_Send(values + at, static_cast<int>(product(s.extent())), MPI_DOUBLE, 0, kTagGrid,
                        comm),
               "MPI_Send(grid block)");
    }
  }
}

void readGrid(Hdf5Input* in, MPI_Comm comm, bool collective, std::string const& path,
              GridBox const& box, double* values, std::size_t maxMessageBytes) {
  if (collective) {
    in->openDataset(path);
    in->readBlock(H5T_NATIVE_DOUBLE, fileOrder(box.offset), fileOrder(box.count), values);
    in->closeDataset();
    return;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> const boxes = gatherBoxes(comm, box);
  long long const maxElems = maxElements(maxMessageBytes, 8);
  if (rank == 0) {
    in->openDataset(path);
    in->readBlock(H5T_NATIVE_DOUBLE, fileOrder(box.offset), fileOrder(box.count), values);
    std::vector<double> buffer;
    for (int r = 1; r < size; ++r) {
      Index3 const off{boxes[6 * r], boxes[6 * r + 1], boxes[6 * r + 2]};
      Index3 const n{boxes[6 * r + 3], boxes[6 * r + 4], boxes[6 * r + 5]};
      for (auto const& s : splitBlock(n, maxElems)) {
        Index3 const e = s.extent();
        // After a failure the reads do nothing and the (zeroed) buffer goes out regardless.
        buffer.assign(static_cast<std::size_t>(product(e)), 0.0);
        Index3 const at{off[0] + s.lo[0], off[1] + s.lo[1], off[2] + s.lo[2]};
        in->readBlock(H5T_NATIVE_DOUBLE, fileOrder(at), fileOrder(e), buffer.data());
        checkMpi(
            MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_DOUBLE, r, kTagGrid, comm),
            "MPI_Send(grid block)");
      }
    }
    in->closeDataset();
  } else {
    Index3 const n = box.count;
    for (auto const& s : splitBlock(n, maxElems)) {
      long long const at = s.lo[0] + static_cast<long long>(n[0]) * (s.lo[1] + n[1] * s.lo[2]);
      checkMpi(MPI_Recv(values + at, static_cast<int>(product(s.extent())), MPI_DOUBLE, 0, kTagGrid,
                        comm, MPI_STATUS_IGNORE),
               "MPI_Recv(grid block)");
    }
  }
}

void writeRows(Hdf5Output* out, MPI_Comm comm, bool collective, std::string const& path,
               RowColumn const& column, void const* data, long long first, long long count,
               long long total, std::size_t maxMessageBytes) {
  int const w = column.width;
  if (collective) {
    out->createDataset(path, column.fileType, rowCount(total, w), column.units);
    out->writeBlock(column.memType, rowOffset(first, w), rowCount(count, w), data);
    return;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<long long> counts(rank == 0 ? size : 0);
  checkMpi(MPI_Gather(&count, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, 0, comm),
           "MPI_Gather(row counts)");
  std::size_t const rowBytes = w * column.elemBytes;
  long long const maxRows = maxElements(maxMessageBytes, rowBytes);
  if (rank == 0) {
    out->createDataset(path, column.fileType, rowCount(total, w), column.units);
    out->writeBlock(column.memType, rowOffset(0, w), rowCount(count, w), data);
    std::vector<char> bytes;
    long long row = counts[0];
    for (int r = 1; r < size; ++r) {
      for (long long done = 0; done < counts[r];) {
        long long const n = std::min(maxRows, counts[r] - done);
        bytes.resize(static_cast<std::size_t>(n) * rowBytes);
        checkMpi(MPI_Recv(bytes.data(), static_cast<int>(n * w), column.mpiType, r, kTagRows, comm,
                          MPI_STATUS_IGNORE),
                 "MPI_Recv(rows)");
        out->writeBlock(column.memType, rowOffset(row + done, w), rowCount(n, w), bytes.data());
        done += n;
      }
      row += counts[r];
    }
  } else {
    auto const* base = static_cast<char const*>(data);
    for (long long done = 0; done < count;) {
      long long const n = std::min(maxRows, count - done);
      checkMpi(MPI_Send(base + done * rowBytes, static_cast<int>(n * w), column.mpiType, 0,
                        kTagRows, comm),
               "MPI_Send(rows)");
      done += n;
    }
  }
}

void readRows(Hdf5Input* in, MPI_Comm comm, bool collective, std::string const& path,
              RowColumn const& column, void* data, long long first, long long count,
              std::size_t maxMessageBytes) {
  int const w = column.width;
  if (collective) {
    in->openDataset(path);
    in->readBlock(column.memType, rowOffset(first, w), rowCount(count, w), data);
    in->closeDataset();
    return;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  long long const mine[2] = {first, count};
  std::vector<long long> ranges(rank == 0 ? 2 * size : 0);
  checkMpi(MPI_Gather(mine, 2, MPI_LONG_LONG, ranges.data(), 2, MPI_LONG_LONG, 0, comm),
           "MPI_Gather(row ranges)");
  std::size_t const rowBytes = w * column.elemBytes;
  long long const maxRows = maxElements(maxMessageBytes, rowBytes);
  auto* base = static_cast<char*>(data);
  if (rank == 0) {
    in->openDataset(path);
    in->readBlock(column.memType, rowOffset(first, w), rowCount(count, w), data);
    std::vector<char> bytes;
    for (int r = 1; r < size; ++r) {
      for (long long done = 0; done < ranges[2 * r + 1];) {
        long long const n = std::min(maxRows, ranges[2 * r + 1] - done);
        // After a failure the reads do nothing and the (zeroed) buffer goes out regardless.
        bytes.assign(static_cast<std::size_t>(n) * rowBytes, 0);
        in->readBlock(column.memType, rowOffset(ranges[2 * r] + done, w), rowCount(n, w),
                      bytes.data());
        checkMpi(MPI_Send(bytes.data(), static_cast<int>(n * w), column.mpiType, r, kTagRows, comm),
                 "MPI_Send(rows)");
        done += n;
      }
    }
    in->closeDataset();
  } else {
    for (long long done = 0; done < count;) {
      long long const n = std::min(maxRows, count - done);
      checkMpi(MPI_Recv(base + done * rowBytes, static_cast<int>(n * w), column.mpiType, 0,
                        kTagRows, comm, MPI_STATUS_IGNORE),
               "MPI_Recv(rows)");
      done += n;
    }
  }
}

}  // namespace eddy::io::detail
