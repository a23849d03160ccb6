/// @file ParticleFile.hpp
/// @brief Point particles to start from, read from a file: positions, and optionally velocities
/// and ids.
///
/// Formats, told apart by content and name:
/// - HDF5 (the file begins with the HDF5 signature): an H5MD trajectory (H5md.hpp), its last
///   frame: position, velocity when it has them, id;
/// - extended XYZ (named .xyz or .extxyz, ExtendedXyz.hpp): its last frame: pos, and velo and id
///   when given;
/// - otherwise CSV, as spreadsheets, numpy.savetxt(..., delimiter=",") and pandas write it: a
///   header line naming the columns, then one line per particle:
///
///       x,y,z,u,v,w
///       0.25,0.5,0.125,0.0,0.0,0.0
///
///   Columns x and y (and z in 3D) are required; u and v (and w in 3D) give velocities, all of
///   them or none; id (a whole number >= 0) is optional; columns of other names are skipped (a
///   2D run skips z and w). Spaces around values and names are ignored, `#` starts a comment
///   line, blank lines are skipped.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace eddy::io {

/// Particles in file order.
struct ParticleFile {
  std::vector<std::array<double, 3>> position;  ///< z 0 in 2D
  std::vector<std::array<double, 3>> velocity;  ///< empty: the file gives none
  std::vector<long long> id;                    ///< empty: the file gives none
};

/// Whether the file at `path` begins with the HDF5 signature.
bool isHdf5File(std::string const& path);

/// Reads the particles of `path` for a `dims`-D run. Throws eddy::IoError naming the path, the
/// line (CSV) and what was expected: no such file, no particle; a CSV header without x or y (or
/// z in 3D), with some but not all velocity columns, or naming a column twice; a line with
/// another number of values than the header, a value that is not a finite number, an id that is
/// not a whole number >= 0; an id given twice (any format).
ParticleFile readParticleFile(std::string const& path, int dims);

}  // namespace eddy::io
