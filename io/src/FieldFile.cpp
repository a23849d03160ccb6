#include "eddy/io/FieldFile.hpp"

#include "SnapshotHdf5.hpp"
#include "eddy/core/Error.hpp"

#include <hdf5.h>

#include <cmath>

namespace eddy::io {

namespace {

using Handle = detail::Hdf5Handle;

/// An open dataset of the grid's shape; `problem` says why not (then the handles may be -1).
struct GridDataset {
  Handle file{-1, H5Fclose};
  Handle data{-1, H5Dclose};
  int rank = 0;  ///< of the dataset: 3, or 2 for a 2D grid given as (ny, nx)
  std::string problem;
};

GridDataset open(std::string const& path, std::string const& dataset, int dims,
                 std::array<int, 3> const& cells) {
  GridDataset g;
  g.file.id = detail::openForReading(path, g.problem);
  if (g.file.id < 0) return g;
  bool const exists = detail::pathExists(g.file.id, dataset);
  if (exists) g.data.id = H5Dopen2(g.file.id, dataset.c_str(), H5P_DEFAULT);
  if (g.data.id < 0) {
    g.problem = str("has no dataset '", dataset, "'");
    return g;
  }
  Handle type{H5Dget_type(g.data.id), H5Tclose};
  H5T_class_t const kind = H5Tget_class(type.id);
  if (kind != H5T_FLOAT && kind != H5T_INTEGER) {
    g.problem = str("'", dataset, "' does not hold numbers");
    return g;
  }
  Handle space{H5Dget_space(g.data.id), H5Sclose};
  g.rank = H5Sget_simple_extent_ndims(space.id);
  hsize_t shape[3] = {0, 0, 0};
  if (g.rank >= 1 && g.rank <= 3) H5Sget_simple_extent_dims(space.id, shape, nullptr);
  std::string const want =
      dims == 3 ? str("(", cells[2], ", ", cells[1], ", ", cells[0], ")")
                : str("(1, ", cells[1], ", ", cells[0], ") or (", cells[1], ", ", cells[0], ")");
  bool const fits3 = g.rank == 3 && shape[0] == static_cast<hsize_t>(dims == 3 ? cells[2] : 1) &&
                     shape[1] == static_cast<hsize_t>(cells[1]) &&
                     shape[2] == static_cast<hsize_t>(cells[0]);
  bool const fits2 = dims == 2 && g.rank == 2 && shape[0] == static_cast<hsize_t>(cells[1]) &&
                     shape[1] == static_cast<hsize_t>(cells[0]);
  if (!fits3 && !fits2) {
    std::string got = "(";
    for (int d = 0; d < g.rank; ++d) got += str(d ? ", " : "", shape[d]);
    g.problem = str("'", dataset, "' has shape ", got, "); expected ", want,
                    ", the grid's cells as (z,) y, x");
  }
  return g;
}

/// Reads cells [offset, offset + count) of an open grid dataset into `out`; false on failure.
bool readBlock(GridDataset const& g, std::array<int, 3> const& offset,
               std::array<int, 3> const& count, std::vector<double>& out) {
  out.assign(static_cast<std::size_t>(count[0]) * count[1] * count[2], 0.0);
  hsize_t start[3], extent[3];
  int const r = g.rank;
  // Dataset index d is the grid's axis r - 1 - d.
  for (int d = 0; d < r; ++d) {
    start[d] = static_cast<hsize_t>(offset[r - 1 - d]);
    extent[d] = static_cast<hsize_t>(count[r - 1 - d]);
  }
  Handle fileSpace{H5Dget_space(g.data.id), H5Sclose};
  Handle memSpace{H5Screate_simple(r, extent, nullptr), H5Sclose};
  if (fileSpace.id < 0 || memSpace.id < 0) return false;
  if (out.empty()) return true;
  if (H5Sselect_hyperslab(fileSpace.id, H5S_SELECT_SET, start, nullptr, extent, nullptr) < 0)
    return false;
  return H5Dread(g.data.id, H5T_NATIVE_DOUBLE, memSpace.id, fileSpace.id, H5P_DEFAULT,
                 out.data()) >= 0;
}

}  // namespace

std::string gridFieldProblem(std::string const& path, std::string const& dataset, int dims,
                             std::array<int, 3> const& cells) {
  detail::Hdf5Quiet quiet;
  GridDataset const g = open(path, dataset, dims, cells);
  if (!g.problem.empty()) return g.problem;
  std::vector<double> plane;
  int const planes = dims == 3 ? cells[2] : 1;
  for (int k = 0; k < planes; ++k) {
    if (!readBlock(g, {0, 0, k}, {cells[0], cells[1], 1}, plane))
      return str("'", dataset, "' cannot be read as numbers: ", detail::hdf5Reason());
    for (std::size_t e = 0; e < plane.size(); ++e)
      if (!std::isfinite(plane[e]))
        return str("'", dataset, "' is ", plane[e], " at cell (", e % cells[0], ", ", e / cells[0],
                   dims == 3 ? str(", ", k) : std::string(), "); expected finite values");
  }
  return "";
}

std::vector<double> readGridField(std::string const& path, std::string const& dataset, int dims,
                                  std::array<int, 3> const& cells, std::array<int, 3> const& offset,
                                  std::array<int, 3> const& count) {
  detail::Hdf5Quiet quiet;
  GridDataset const g = open(path, dataset, dims, cells);
  if (!g.problem.empty()) throw IoError(str("field file '", path, "': ", g.problem));
  std::vector<double> out;
  if (!readBlock(g, offset, count, out))
    throw IoError(
        str("field file '", path, "': '", dataset, "' cannot be read: ", detail::hdf5Reason()));
  return out;
}

}  // namespace eddy::io
