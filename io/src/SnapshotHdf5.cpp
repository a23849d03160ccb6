#include "SnapshotHdf5.hpp"

#include "eddy/core/Error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace eddy::io::detail {

Hdf5Quiet::Hdf5Quiet() {
  H5Eget_auto2(H5E_DEFAULT, &m_func, &m_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Hdf5Quiet::~Hdf5Quiet() {
  H5Eset_auto2(H5E_DEFAULT, m_func, m_data);
}

namespace {

struct WalkState {
  std::string innermost;
  std::string api;
};

herr_t walkError(unsigned n, H5E_error2_t const* e, void* client) {
  auto* s = static_cast<WalkState*>(client);
  std::string const desc = e->desc ? e->desc : "";
  std::string const func = e->func_name ? e->func_name : "";
  if (n == 0) s->innermost = func + ": " + desc;
  s->api = func;
  return 0;
}

// The file drivers write "errno = 28, error message = 'No space left on device'" into their
// messages; a user wants that part, not the buffer addresses around it.
std::string shortenDriverMessage(std::string const& text) {
  auto const e = text.find("errno = ");
  auto const m = text.find("error message = '");
  if (e == std::string::npos || m == std::string::npos) return text;
  auto const eEnd = text.find(',', e);
  auto const mEnd = text.find('\'', m + 17);
  std::string const number = text.substr(e + 8, eEnd == std::string::npos ? 0 : eEnd - e - 8);
  std::string const what =
      text.substr(m + 17, mEnd == std::string::npos ? std::string::npos : mEnd - m - 17);
  return str("errno ", number, ": ", what);
}

}  // namespace

namespace {
/// The hyperslab (offset, count) of a dataset selected in its file space, a matching memory
/// space and a transfer property list (collective when asked): what a block read and a block
/// write share. An empty block selects nothing on both sides, so the rank still takes part in
/// a collective transfer.
struct BlockSelection {
  hid_t fileSpace = -1;
  hid_t memSpace = -1;
  hid_t dxpl = -1;
  bool good = false;

  BlockSelection(hid_t dataset, std::vector<hsize_t> const& offset,
                 std::vector<hsize_t> const& count, bool collective) {
    hsize_t total = 1;
    for (auto const c : count) total *= c;
    fileSpace = H5Dget_space(dataset);
    memSpace = H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr);
    good = fileSpace >= 0 && memSpace >= 0;
    if (good && total > 0)
      good = H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, offset.data(), nullptr, count.data(),
                                 nullptr) >= 0;
    else if (good)
      good = H5Sselect_none(fileSpace) >= 0 && H5Sselect_none(memSpace) >= 0;
    dxpl = H5Pcreate(H5P_DATASET_XFER);
    good = good && dxpl >= 0;
#if EDDY_HDF5_IS_PARALLEL
    if (good && collective) good = H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) >= 0;
#else
    (void)collective;
#endif
  }
  /// Releases everything; the name of the first release that failed, or nullptr.
  char const* close() {
    char const* failed = nullptr;
    if (dxpl >= 0 && H5Pclose(dxpl) < 0) failed = "H5Pclose(transfer)";
    if (memSpace >= 0 && H5Sclose(memSpace) < 0 && !failed) failed = "H5Sclose(memory)";
    if (fileSpace >= 0 && H5Sclose(fileSpace) < 0 && !failed) failed = "H5Sclose(file)";
    dxpl = memSpace = fileSpace = -1;
    return failed;
  }
};
}  // namespace

std::string hdf5Reason() {
  int const savedErrno = errno;
  WalkState s;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walkError, &s);
  H5Eclear2(H5E_DEFAULT);
  std::string reason = shortenDriverMessage(s.innermost);
  if (reason.empty()) reason = "no HDF5 error message";
  if (reason.find("errno") == std::string::npos && savedErrno != 0)
    reason += str(" (errno ", savedErrno, ": ", std::strerror(savedErrno), ")");
  return reason;
}

hid_t openForReading(std::string const& path, std::string& problem) {
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
      problem = "cannot be opened (no such file, or not readable)";
      return -1;
    }
    std::fclose(f);
    problem = "is not an HDF5 file";
    return -1;
  }
  hid_t const file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) problem = str("cannot be opened: ", hdf5Reason());
  return file;
}

bool pathExists(hid_t file, std::string const& path) {
  if (path.empty()) return false;
  for (std::size_t at = path[0] == '/' ? 1 : 0; at <= path.size();) {
    std::size_t const slash = path.find('/', at);
    std::size_t const end = slash == std::string::npos ? path.size() : slash;
    if (end <= at || H5Lexists(file, path.substr(0, end).c_str(), H5P_DEFAULT) <= 0) return false;
    at = end + 1;
  }
  return true;
}

/// A file access property list: MPI-IO on `mpiio` unless it is MPI_COMM_NULL, and with `v18`
/// version 1.8 object headers (large attributes, the deck text, stored densely). On failure
/// calls fail(call, object) (an empty object: the file) and returns -1.
template <class Fail>
hid_t fileAccess(MPI_Comm mpiio, bool v18, Fail&& fail) {
  hid_t const fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) {
    fail("H5Pcreate(file access)", "");
    return -1;
  }
  bool good = !v18 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) >= 0;
#if EDDY_HDF5_IS_PARALLEL
  if (good && mpiio != MPI_COMM_NULL) good = H5Pset_fapl_mpio(fapl, mpiio, MPI_INFO_NULL) >= 0;
#else
  if (mpiio != MPI_COMM_NULL) {
    H5Pclose(fapl);
    fail("open with MPI-IO", "a serial HDF5 library");
    return -1;
  }
#endif
  if (!good) {
    H5Pclose(fapl);
    fail("H5Pset_fapl", "");
    return -1;
  }
  return fapl;
}

Hdf5Output::Hdf5Output(std::string path, MPI_Comm mpiio, Failure& failure)
    : m_path(std::move(path)), m_collective(mpiio != MPI_COMM_NULL), m_failure(failure) {
  if (!ok()) return;
  hid_t const fapl = fileAccess(mpiio, /*v18=*/true, [&](char const* call, std::string const& obj) {
    fail(call, obj.empty() ? m_path : obj);
  });
  if (fapl < 0) return;
  errno = 0;
  m_file = H5Fcreate(m_path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (m_file < 0) fail("H5Fcreate", m_path);
  if (H5Pclose(fapl) < 0) fail("H5Pclose(file access)", m_path);
}

Hdf5Output::~Hdf5Output() {
  if (m_dataset >= 0) H5Dclose(m_dataset);
  if (m_file >= 0) H5Fclose(m_file);
}

void Hdf5Output::fail(std::string const& call, std::string const& object) {
  m_failure.set(str(call, " of '", object, "' failed: ", hdf5Reason()));
}

void Hdf5Output::createGroup(std::string const& name) {
  if (!ok()) return;
  hid_t const g = H5Gcreate2(m_file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return fail("H5Gcreate2", name);
  if (H5Gclose(g) < 0) fail("H5Gclose", name);
}

namespace {

// Writes one attribute of `type` and `space` on the object at `objPath`.
bool writeAttribute(hid_t file, std::string const& objPath, std::string const& name, hid_t type,
                    hid_t space, void const* data) {
  hid_t const obj = H5Oopen(file, objPath.c_str(), H5P_DEFAULT);
  if (obj < 0) return false;
  hid_t const attr = H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  bool good = attr >= 0 && H5Awrite(attr, type, data) >= 0;
  if (attr >= 0 && H5Aclose(attr) < 0) good = false;
  if (H5Oclose(obj) < 0) good = false;
  return good;
}

}  // namespace

void Hdf5Output::attribute(std::string const& objPath, std::string const& name, double v) {
  if (!ok()) return;
  hid_t const space = H5Screate(H5S_SCALAR);
  bool good = space >= 0 && writeAttribute(m_file, objPath, name, H5T_NATIVE_DOUBLE, space, &v);
  if (space >= 0 && H5Sclose(space) < 0) good = false;
  if (!good) fail("writing attribute '" + name + "'", objPath);
}

void Hdf5Output::attribute(std::string const& objPath, std::string const& name, std::int64_t v) {
  if (!ok()) return;
  hid_t const space = H5Screate(H5S_SCALAR);
  bool good = space >= 0 && writeAttribute(m_file, objPath, name, H5T_NATIVE_INT64, space, &v);
  if (space >= 0 && H5Sclose(space) < 0) good = false;
  if (!good) fail("writing attribute '" + name + "'", objPath);
}

void Hdf5Output::attribute(std::string const& objPath, std::string const& name,
                           std::string const& v) {
  if (!ok()) return;
  // A fixed-length string of the text's length (at least 1: HDF5 has no empty string type).
  hid_t const type = H5Tcopy(H5T_C_S1);
  hid_t const space = H5Screate(H5S_SCALAR);
  std::string text = v.empty() ? std::string(1, '\0') : v;
  bool good = type >= 0 && space >= 0 && H5Tset_size(type, text.size()) >= 0 &&
              H5Tset_strpad(type, H5T_STR_NULLPAD) >= 0 &&
              writeAttribute(m_file, objPath, name, type, space, text.data());
  if (space >= 0 && H5Sclose(space) < 0) good = false;
  if (type >= 0 && H5Tclose(type) < 0) good = false;
  if (!good) fail("writing attribute '" + name + "'", objPath);
}

void Hdf5Output::attribute(std::string const& objPath, std::string const& name,
                           std::vector<double> const& v) {
  if (!ok()) return;
  hsize_t const n = v.size();
  hid_t const space = H5Screate_simple(1, &n, nullptr);
  bool good =
      space >= 0 && writeAttribute(m_file, objPath, name, H5T_NATIVE_DOUBLE, space, v.data());
  if (space >= 0 && H5Sclose(space) < 0) good = false;
  if (!good) fail("writing attribute '" + name + "'", objPath);
}

void Hdf5Output::attribute(std::string const& objPath, std::string const& name,
                           std::vector<std::int64_t> const& v) {
  if (!ok()) return;
  hsize_t const n = v.size();
  hid_t const space = H5Screate_simple(1, &n, nullptr);
  bool good =
      space >= 0 && writeAttribute(m_file, objPath, name, H5T_NATIVE_INT64, space, v.data());
  if (space >= 0 && H5Sclose(space) < 0) good = false;
  if (!good) fail("writing attribute '" + name + "'", objPath);
}

void Hdf5Output::createDataset(std::string const& path, hid_t fileType,
                               std::vector<hsize_t> const& dims, std::string const& units) {
  if (!ok()) return;
  closeDataset();
  if (!ok()) return;
  hid_t const space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  if (space < 0) return fail("H5Screate_simple", path);
  m_dataset =
      H5Dcreate2(m_file, path.c_str(), fileType, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (H5Sclose(space) < 0) return fail("H5Sclose", path);
  if (m_dataset < 0) return fail("H5Dcreate2", path);
  m_datasetPath = path;
  m_datasetEmpty = false;
  for (hsize_t n : dims) m_datasetEmpty = m_datasetEmpty || n == 0;
  attribute(path, "units", units);
}

void Hdf5Output::writeBlock(hid_t memType, std::vector<hsize_t> const& offset,
                            std::vector<hsize_t> const& count, void const* data) {
  // A dataset of no elements (no particles left) has no storage to write to, on any rank.
  if (!ok() || m_datasetEmpty) return;
  BlockSelection b(m_dataset, offset, count, m_collective);
  errno = 0;
  bool const good =
      b.good && H5Dwrite(m_dataset, memType, b.memSpace, b.fileSpace, b.dxpl, data) >= 0;
  if (!good) fail("H5Dwrite", m_datasetPath);
  if (char const* failed = b.close()) fail(failed, m_datasetPath);
}

void Hdf5Output::closeDataset() {
  if (m_dataset < 0) return;
  hid_t const d = m_dataset;
  m_dataset = -1;
  errno = 0;
  if (H5Dclose(d) < 0) fail("H5Dclose", m_datasetPath);
}

void Hdf5Output::close() {
  closeDataset();
  if (m_file < 0) return;
  hid_t const f = m_file;
  m_file = -1;
  errno = 0;
  // Data may sit in HDF5's caches until here: a full disk often shows only now.
  if (H5Fclose(f) < 0) {
    fail("H5Fclose", m_path);
  }
}

Hdf5Input::Hdf5Input(std::string path, MPI_Comm mpiio, Failure& failure)
    : m_path(std::move(path)), m_collective(mpiio != MPI_COMM_NULL), m_failure(failure) {
  if (!ok()) return;
  hid_t const fapl = fileAccess(
      mpiio, /*v18=*/false,
      [&](char const* call, std::string const& obj) { fail(call, obj.empty() ? m_path : obj); });
  if (fapl < 0) return;
  errno = 0;
  m_file = H5Fopen(m_path.c_str(), H5F_ACC_RDONLY, fapl);
  if (m_file < 0) fail("H5Fopen", m_path);
  if (H5Pclose(fapl) < 0) fail("H5Pclose(file access)", m_path);
}

Hdf5Input::~Hdf5Input() {
  if (m_dataset >= 0) H5Dclose(m_dataset);
  if (m_file >= 0) H5Fclose(m_file);
}

void Hdf5Input::fail(std::string const& call, std::string const& object) {
  m_failure.set(str(call, " of '", object, "' in '", m_path, "' failed: ", hdf5Reason()));
}

std::vector<hsize_t> Hdf5Input::openDataset(std::string const& path) {
  std::vector<hsize_t> dims;
  if (!ok()) return dims;
  closeDataset();
  m_dataset = H5Dopen2(m_file, path.c_str(), H5P_DEFAULT);
  if (m_dataset < 0) {
    fail("H5Dopen2", path);
    return dims;
  }
  m_datasetPath = path;
  hid_t const space = H5Dget_space(m_dataset);
  int const rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  if (rank < 0) {
    if (space >= 0) H5Sclose(space);
    fail("H5Dget_space", path);
    return dims;
  }
  dims.assign(static_cast<std::size_t>(rank), 0);
  if (H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0)
    fail("H5Sget_simple_extent_dims", path);
  if (H5Sclose(space) < 0) fail("H5Sclose", path);
  return dims;
}

void Hdf5Input::readBlock(hid_t memType, std::vector<hsize_t> const& offset,
                          std::vector<hsize_t> const& count, void* data) {
  if (!ok()) return;
  BlockSelection b(m_dataset, offset, count, m_collective);
  errno = 0;
  bool const good =
      b.good && H5Dread(m_dataset, memType, b.memSpace, b.fileSpace, b.dxpl, data) >= 0;
  if (!good) fail("H5Dread", m_datasetPath);
  if (char const* failed = b.close()) fail(failed, m_datasetPath);
}

void Hdf5Input::closeDataset() {
  if (m_dataset < 0) return;
  hid_t const d = m_dataset;
  m_dataset = -1;
  if (H5Dclose(d) < 0) fail("H5Dclose", m_datasetPath);
}

void Hdf5Input::close() {
  closeDataset();
  if (m_file < 0) return;
  hid_t const f = m_file;
  m_file = -1;
  if (H5Fclose(f) < 0) fail("H5Fclose", m_path);
}

}  // namespace eddy::io::detail
