/// @file ShapeFile.hpp
/// @brief A body's shape as a file gives it: its signed distance, or its solid fraction, sampled
/// on a uniform grid, in HDF5; or a closed triangulated surface in STL, sampled here.
///
/// Format: one dataset at the root, `distance` (the signed distance to the surface, negative
/// inside, [L]) or `solid_fraction` (the part of each sample's cell inside the body, 0 to 1),
/// of rank 2 or 3, indexed [y][x] or [z][y][x] (x fastest, as the snapshots are), with an
/// attribute `spacing`: the samples' spacing along x, y (, z) [L]. The samples sit at the
/// centres of the cells of a box n * spacing wide (n the samples along each axis); the deck
/// places that box's centre. h5py writes one as
///   f.create_dataset("distance", data=phi_zyx).attrs["spacing"] = [hx, hy, hz]
#pragma once

#include <array>
#include <string>
#include <vector>

namespace eddy::io {

/// The samples of a shape file.
struct ShapeSamples {
  bool fraction = false;          ///< solid_fraction rather than distance
  int dims = 0;                   ///< 2 or 3
  std::array<int, 3> n{1, 1, 1};  ///< samples along x, y, z
  std::array<double, 3> spacing{0, 0, 0};
  std::vector<double> values;  ///< x fastest
};

/// Reads the shape file at `path` (every rank that calls it reads the file). Throws
/// eddy::IoError naming the path and what is wrong: no such file, not HDF5, neither or both
/// datasets, a rank other than 2 or 3, an empty dataset, a `spacing` that is missing, of the
/// wrong length or not > 0, a value that is not finite, a solid fraction outside [0, 1].
ShapeSamples readShapeFile(std::string const& path);

/// Writes `s` to `path` in that format (tests, tools). Throws eddy::IoError on failure.
void writeShapeFile(std::string const& path, ShapeSamples const& s);

/// Whether `path` names a triangulated surface (its name ends in .stl, in any case) rather than
/// an HDF5 shape file.
bool isSurfaceFile(std::string const& path);

/// Exact signed distances are kept within this many samples of a surface; beyond, the samples
/// hold this many spacings with the distance's sign (all the level set is used for there).
constexpr int kSurfaceBand = 4;

/// The closed triangulated surface in STL file `path` (binary, or ASCII; coordinates in the
/// deck's length unit) as 3D distance samples `spacing` apart: over the surface's bounding box
/// and kSurfaceBand + 1 samples more on each side, the box centred on the bounding box's centre.
/// Inside is where a line along x from outside has crossed the surface an odd number of times:
/// one closed surface, or several that do not overlap; the triangles' orientation and normals
/// are not used. Throws eddy::IoError naming the path and what is wrong: no such file, not STL
/// (an ASCII file's line and word), no triangles, a vertex that is not finite, a surface that is
/// not closed (an edge of an odd number of triangles), more than 1e9 samples.
ShapeSamples sampleSurfaceFile(std::string const& path, double spacing);

}  // namespace eddy::io
