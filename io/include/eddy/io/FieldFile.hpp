/// @file FieldFile.hpp
/// @brief A cell field of the whole grid from an HDF5 file, for initial fields: a snapshot's
/// `/fields/<name>` (docs/output.md), or any dataset laid out the same way.
///
/// Format: a numeric dataset of shape (nz, ny, nx) in 3D, (1, ny, nx) or (ny, nx) in 2D, C
/// order (x fastest), element [k][j][i] the value of cell (i, j, k) of the run's global grid.
/// h5py writes one as
///   f.create_dataset("temperature", data=T_zyx)
#pragma once

#include <array>
#include <string>
#include <vector>

namespace eddy::io {

/// Why `dataset` of the file at `path` cannot give a cell field of a `dims`-D grid of `cells`
/// (empty: it can): no such file, not HDF5, no such dataset, a shape other than the grid's, a
/// value that is not finite (named by its cell). Reads the whole dataset, a z plane at a time.
std::string gridFieldProblem(std::string const& path, std::string const& dataset, int dims,
                             std::array<int, 3> const& cells);

/// The values of the cells [offset, offset + count) of that dataset, x fastest (every rank
/// reads its own block). Throws eddy::IoError naming the path and the dataset.
std::vector<double> readGridField(std::string const& path, std::string const& dataset, int dims,
                                  std::array<int, 3> const& cells,
                                  std::array<int, 3> const& offset,
                                  std::array<int, 3> const& count);

}  // namespace eddy::io
