// Cell fields of the whole grid from HDF5 files (io/FieldFile.hpp): each block read where the
// grid puts it, (1, ny, nx) and (ny, nx) alike in 2D; files that cannot give a field refused
// with the reason.
#include "EddyTest.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/FieldFile.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using eddy::test::tempPath;

/// Writes `values` as dataset `name` (groups made on the way) of shape `shape`.
void writeDataset(std::string const& path, std::string const& name,
                  std::vector<hsize_t> const& shape, std::vector<double> const& values) {
  hid_t const file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t const links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  hid_t const space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
  hid_t const data =
      H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space, links, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(data, 0);
  ASSERT_GE(H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  H5Dclose(data);
  H5Sclose(space);
  H5Pclose(links);
  H5Fclose(file);
}

/// The value the files give cell (i, j, k).
double valueOf(int i, int j, int k) { return i + 100.0 * j + 10000.0 * k; }

std::vector<double> grid(int nx, int ny, int nz) {
  std::vector<double> v;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) v.push_back(valueOf(i, j, k));
  return v;
}

TEST(FieldFile, EachBlockComesFromItsPlaceInTheGrid) {
  std::string const path = tempPath("field3.h5");
  writeDataset(path, "/fields/q", {4, 5, 6}, grid(6, 5, 4));
  EXPECT_EQ(eddy::io::gridFieldProblem(path, "/fields/q", 3, {6, 5, 4}), "");
  auto const block = eddy::io::readGridField(path, "/fields/q", 3, {6, 5, 4}, {2, 1, 3}, {3, 4, 1});
  ASSERT_EQ(block.size(), 12u);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) EXPECT_EQ(block[i + 3 * j], valueOf(2 + i, 1 + j, 3));
  // 2D: (1, ny, nx), as the snapshots write it, and (ny, nx).
  writeDataset(path, "q", {1, 5, 6}, grid(6, 5, 1));
  EXPECT_EQ(eddy::io::gridFieldProblem(path, "q", 2, {6, 5, 1}), "");
  writeDataset(path, "q", {5, 6}, grid(6, 5, 1));
  EXPECT_EQ(eddy::io::gridFieldProblem(path, "q", 2, {6, 5, 1}), "");
  auto const plane = eddy::io::readGridField(path, "q", 2, {6, 5, 1}, {0, 3, 0}, {6, 2, 1});
  ASSERT_EQ(plane.size(), 12u);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 6; ++i) EXPECT_EQ(plane[i + 6 * j], valueOf(i, 3 + j, 0));
  std::filesystem::remove(path);
}

TEST(FieldFile, FilesThatGiveNoFieldAreRefused) {
  std::string const path = tempPath("bad_field.h5");
  std::filesystem::remove(path);
  auto problem = [&](std::string const& dataset, int dims, std::array<int, 3> cells) {
    return eddy::io::gridFieldProblem(path, dataset, dims, cells);
  };
  EXPECT_NE(problem("q", 3, {6, 5, 4}).find("cannot be opened"), std::string::npos);
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("not hdf5", f);
    std::fclose(f);
  }
  EXPECT_EQ(problem("q", 3, {6, 5, 4}), "is not an HDF5 file");
  std::vector<double> v = grid(6, 5, 4);
  v[6 * 5 * 2 + 6 * 3 + 1] = std::nan("");
  writeDataset(path, "/fields/q", {4, 5, 6}, v);
  EXPECT_EQ(problem("/fields/q", 3, {6, 5, 4}),
            "'/fields/q' is nan at cell (1, 3, 2); expected finite values");
  EXPECT_EQ(problem("/fields/none", 3, {6, 5, 4}), "has no dataset '/fields/none'");
  EXPECT_EQ(problem("/elsewhere/q", 3, {6, 5, 4}), "has no dataset '/elsewhere/q'");
  EXPECT_EQ(problem("/fields/q", 3, {6, 5, 5}),
            "'/fields/q' has shape (4, 5, 6); expected (5, 5, 6), the grid's cells as (z,) y, x");
  EXPECT_EQ(problem("/fields/q", 2, {6, 5, 1}),
            "'/fields/q' has shape (4, 5, 6); expected (1, 5, 6) or (5, 6), the grid's cells as "
            "(z,) y, x");
  try {
    eddy::io::readGridField(path, "/fields/none", 3, {6, 5, 4}, {0, 0, 0}, {6, 5, 4});
    ADD_FAILURE() << "a missing dataset was read";
  } catch (eddy::IoError const& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
