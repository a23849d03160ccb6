// eddy_write_shape PATH: writes a shape file (io/ShapeFile.hpp) of a circle of radius 0.1: its
// signed distance on 40 x 40 samples of 0.01 (a box of 0.4 x 0.4 around its centre); or, for a
// PATH ending in .stl, a sphere of radius 0.1 as a binary STL surface of 1280 triangles.
#include "StlWriter.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: eddy_write_shape PATH\n");
    return 2;
  }
  std::string const path = argv[1];
  if (path.size() > 4 && path.substr(path.size() - 4) == ".stl")
    return eddy::test::writeStl(path, eddy::test::icosphere(0.1, 3), true) ? 0 : 1;
  int const n = 40;
  double const h = 0.01;
  std::vector<double> phi;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      phi.push_back(std::hypot((i + 0.5 - 0.5 * n) * h, (j + 0.5 - 0.5 * n) * h) - 0.1);
  hsize_t const shape[2] = {n, n}, two = 2;
  double const spacing[2] = {h, h};
  hid_t const file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t const space = H5Screate_simple(2, shape, nullptr);
  hid_t const data =
      H5Dcreate2(file, "distance", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t const attrSpace = H5Screate_simple(1, &two, nullptr);
  hid_t const attr =
      H5Acreate2(data, "spacing", H5T_IEEE_F64LE, attrSpace, H5P_DEFAULT, H5P_DEFAULT);
  bool const ok =
      file >= 0 && data >= 0 && attr >= 0 &&
      H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, phi.data()) >= 0 &&
      H5Awrite(attr, H5T_NATIVE_DOUBLE, spacing) >= 0;
  H5Aclose(attr);
  H5Sclose(attrSpace);
  H5Dclose(data);
  H5Sclose(space);
  H5Fclose(file);
  return ok ? 0 : 1;
}
