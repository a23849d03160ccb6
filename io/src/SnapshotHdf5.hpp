/// @file SnapshotHdf5.hpp
/// @brief The HDF5 side of snapshots and checkpoints: one open file, its datasets, attributes
/// and hyperslab writes and reads, with every return code checked. Failures are recorded, not
/// thrown, so that the ranks can agree on the outcome before anyone throws (CollectiveIo.hpp).
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace eddy::io::detail {

/// The first failure seen on this rank; empty while all went well.
struct Failure {
  std::string message;
  bool failed() const { return !message.empty(); }
  void set(std::string m) {
    if (message.empty()) message = std::move(m);
  }
};

/// Switches HDF5's automatic error printing off while it lives (errors are reported through
/// eddy::IoError instead, once).
class Hdf5Quiet {
 public:
  Hdf5Quiet();
  ~Hdf5Quiet();
  Hdf5Quiet(Hdf5Quiet const&) = delete;
  Hdf5Quiet& operator=(Hdf5Quiet const&) = delete;

 private:
  H5E_auto2_t m_func = nullptr;
  void* m_data = nullptr;
};

/// Closes an HDF5 handle of any kind (its close function) when it goes out of scope; -1 holds
/// nothing.
struct Hdf5Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Hdf5Handle() {
    if (id >= 0) close(id);
  }
};

/// The innermost message on HDF5's error stack ("errno 28: No space left on device" when the
/// file driver saw an errno), then clears the stack.
std::string hdf5Reason();

/// Opens `path` read-only for a reader of one file format (call under Hdf5Quiet): the file, or
/// -1 with `problem` saying why: "cannot be opened (no such file, or not readable)", "is not an
/// HDF5 file" or "cannot be opened: <HDF5's reason>".
hid_t openForReading(std::string const& path, std::string& problem);

/// Whether every link along `path` ("/a/b/c", or relative to the root) exists in `file`:
/// H5Lexists fails, rather than says no, on a path through a missing group.
bool pathExists(hid_t file, std::string const& path);

/// A snapshot file opened for writing. With `mpiio` (not MPI_COMM_NULL) the file is opened
/// through MPI-IO on that communicator and every call is collective; otherwise only the calling
/// rank opens it. After the first failure every further call does nothing.
class Hdf5Output {
 public:
  Hdf5Output(std::string path, MPI_Comm mpiio, Failure& failure);
  ~Hdf5Output();
  Hdf5Output(Hdf5Output const&) = delete;
  Hdf5Output& operator=(Hdf5Output const&) = delete;

  bool ok() const { return !m_failure.failed(); }
  /// Creates group `name` under the root (e.g. "/fields").
  void createGroup(std::string const& name);
  /// Scalar attributes on the object at `objPath` ("/" for the root).
  void attribute(std::string const& objPath, std::string const& name, double v);
  void attribute(std::string const& objPath, std::string const& name, std::int64_t v);
  void attribute(std::string const& objPath, std::string const& name, std::string const& v);
  /// A 1D double array attribute.
  void attribute(std::string const& objPath, std::string const& name, std::vector<double> const& v);
  /// A 1D int64 array attribute.
  void attribute(std::string const& objPath, std::string const& name,
                 std::vector<std::int64_t> const& v);
  /// Creates dataset `path` of `fileType` and shape `dims` with a `units` attribute, and
  /// makes it the current dataset of writeBlock().
  void createDataset(std::string const& path, hid_t fileType, std::vector<hsize_t> const& dims,
                     std::string const& units);
  /// Writes the box [offset, offset + count) of the current dataset from the contiguous buffer
  /// `data` of `memType` (C order). A box of no elements is allowed (a rank with nothing to
  /// write still takes part in a collective write); into a dataset of no elements, nothing.
  void writeBlock(hid_t memType, std::vector<hsize_t> const& offset,
                  std::vector<hsize_t> const& count, void const* data);
  /// Closes the current dataset.
  void closeDataset();
  /// Closes the file (flushes); records a failure if HDF5 could not write it out.
  void close();

 private:
  void fail(std::string const& call, std::string const& object);

  std::string m_path;
  bool m_collective = false;
  Failure& m_failure;
  hid_t m_file = -1;
  hid_t m_dataset = -1;
  std::string m_datasetPath;
  bool m_datasetEmpty = false;  ///< the current dataset has no elements
};

/// A file opened read-only. With `mpiio` (not MPI_COMM_NULL) it is opened through MPI-IO on that
/// communicator and every call is collective; otherwise only the calling rank opens it. After
/// the first failure every further call does nothing.
class Hdf5Input {
 public:
  Hdf5Input(std::string path, MPI_Comm mpiio, Failure& failure);
  ~Hdf5Input();
  Hdf5Input(Hdf5Input const&) = delete;
  Hdf5Input& operator=(Hdf5Input const&) = delete;

  bool ok() const { return !m_failure.failed(); }
  hid_t file() const { return m_file; }
  /// The current dataset (-1 when none is open).
  hid_t dataset() const { return m_dataset; }
  /// Opens dataset `path` as the current dataset of readBlock(); returns its shape.
  std::vector<hsize_t> openDataset(std::string const& path);
  /// Reads the box [offset, offset + count) of the current dataset into the contiguous buffer
  /// `data` of `memType` (C order). A box of no elements is allowed.
  void readBlock(hid_t memType, std::vector<hsize_t> const& offset,
                 std::vector<hsize_t> const& count, void* data);
  void closeDataset();
  void close();

 private:
  void fail(std::string const& call, std::string const& object);

  std::string m_path;
  bool m_collective = false;
  Failure& m_failure;
  hid_t m_file = -1;
  hid_t m_dataset = -1;
  std::string m_datasetPath;
};

}  // namespace eddy::io::detail
