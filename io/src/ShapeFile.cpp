#include "eddy/io/ShapeFile.hpp"

#include "SnapshotHdf5.hpp"
#include "eddy/core/Error.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstdint>

namespace eddy::io {

namespace {

using Handle = detail::Hdf5Handle;

char const* const kDataset[2] = {"distance", "solid_fraction"};

}  // namespace

ShapeSamples readShapeFile(std::string const& path) {
  detail::Hdf5Quiet quiet;
  auto fail = [&](std::string const& what) -> IoError {
    return IoError(str("shape file '", path, "': ", what));
  };
  std::string problem;
  Handle file{detail::openForReading(path, problem), H5Fclose};
  if (file.id < 0) throw fail(problem);
  ShapeSamples s;
  int found = 0;
  for (int k = 0; k < 2; ++k)
    if (H5Lexists(file.id, kDataset[k], H5P_DEFAULT) > 0) {
      ++found;
      s.fraction = k == 1;
    }
  if (found != 1)
    throw fail(str(found == 0 ? "holds neither" : "holds both", " a dataset 'distance' and ",
                   found == 0 ? "nor" : "and", " one 'solid_fraction'; expected exactly one"));
  std::string const name = kDataset[s.fraction ? 1 : 0];
  Handle data{H5Dopen2(file.id, name.c_str(), H5P_DEFAULT), H5Dclose};
  if (data.id < 0) throw fail(str("'", name, "' is not a dataset"));
  Handle space{H5Dget_space(data.id), H5Sclose};
  int const rank = H5Sget_simple_extent_ndims(space.id);
  if (rank != 2 && rank != 3)
    throw fail(str("'", name, "' has ", rank, " dimensions; expected 2 ([y][x]) or 3 ([z][y][x])"));
  hsize_t shape[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(space.id, shape, nullptr);
  s.dims = rank;
  for (int a = 0; a < rank; ++a) {
    // The dataset's last index is x.
    hsize_t const along = shape[rank - 1 - a];
    if (along < 2 || along > (1u << 20))
      throw fail(
          str("'", name, "' has ", along, " samples along ", "xyz"[a], "; expected 2 to 1048576"));
    s.n[a] = static_cast<int>(along);
  }
  double const count = static_cast<double>(s.n[0]) * s.n[1] * s.n[2];
  if (count > 1.0e9) throw fail(str("'", name, "' has ", count, " samples; expected at most 1e9"));

  if (H5Aexists(data.id, "spacing") <= 0)
    throw fail(str("'", name, "' has no attribute 'spacing' (the samples' spacing along x, y",
                   rank == 3 ? ", z" : "", " [L])"));
  Handle attr{H5Aopen(data.id, "spacing", H5P_DEFAULT), H5Aclose};
  Handle attrSpace{H5Aget_space(attr.id), H5Sclose};
  hssize_t const spacings = H5Sget_simple_extent_npoints(attrSpace.id);
  if (spacings != rank)
    throw fail(str("'", name, "' attribute 'spacing' has ", spacings, " values; expected ", rank));
  double h[3] = {0, 0, 0};
  if (H5Aread(attr.id, H5T_NATIVE_DOUBLE, h) < 0)
    throw fail(
        str("'", name, "' attribute 'spacing' cannot be read as numbers: ", detail::hdf5Reason()));
  for (int a = 0; a < rank; ++a) {
    if (!(std::isfinite(h[a]) && h[a] > 0))
      throw fail(
          str("'", name, "' attribute 'spacing' is ", h[a], " along ", "xyz"[a], "; expected > 0"));
    s.spacing[a] = h[a];
  }

  s.values.resize(static_cast<std::size_t>(count));
  if (H5Dread(data.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.values.data()) < 0)
    throw fail(str("'", name, "' cannot be read as numbers: ", detail::hdf5Reason()));
  for (std::size_t e = 0; e < s.values.size(); ++e) {
    double const v = s.values[e];
    bool const ok = std::isfinite(v) && (!s.fraction || (v >= 0 && v <= 1));
    if (!ok) {
      std::size_t const i = e % s.n[0], j = e / s.n[0] % s.n[1], k = e / s.n[0] / s.n[1];
      throw fail(
          str("'", name, "' is ", v, " at sample (", i, ", ", j,
              rank == 3 ? str(", ", k) : std::string(), ")",
              s.fraction ? "; expected a fraction in [0, 1]" : "; expected a finite distance"));
    }
  }
  return s;
}

void writeShapeFile(std::string const& path, ShapeSamples const& s) {
  detail::Hdf5Quiet quiet;
  auto fail = [&](std::string const& call) {
    return IoError(str("shape file '", path, "': ", call, " failed: ", detail::hdf5Reason()));
  };
  Handle file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file.id < 0) throw fail("H5Fcreate");
  hsize_t shape[3];
  for (int a = 0; a < s.dims; ++a) shape[s.dims - 1 - a] = static_cast<hsize_t>(s.n[a]);
  Handle space{H5Screate_simple(s.dims, shape, nullptr), H5Sclose};
  Handle data{H5Dcreate2(file.id, kDataset[s.fraction ? 1 : 0], H5T_IEEE_F64LE, space.id,
                         H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              H5Dclose};
  if (data.id < 0) throw fail("H5Dcreate2");
  if (H5Dwrite(data.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.values.data()) < 0)
    throw fail("H5Dwrite");
  hsize_t const rank = static_cast<hsize_t>(s.dims);
  Handle attrSpace{H5Screate_simple(1, &rank, nullptr), H5Sclose};
  Handle attr{
      H5Acreate2(data.id, "spacing", H5T_IEEE_F64LE, attrSpace.id, H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose};
  if (attr.id < 0 || H5Awrite(attr.id, H5T_NATIVE_DOUBLE, s.spacing.data()) < 0)
    throw fail("H5Awrite");
}

}  // namespace eddy::io
