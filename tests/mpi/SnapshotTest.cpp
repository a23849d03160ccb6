// HDF5 snapshots and their XDMF index (registered at 1, 2 and 4 ranks): every rank writes its
// block of known grid arrays (a function of the global cell index, 2D and 3D, uneven splits) and
// its rows of particle arrays (one rank with none); rank 0 reads the whole file back with the
// HDF5 C API and checks every value, shape and attribute, in collective mode (parallel HDF5)
// and in gather mode with message limits that force every way of splitting a block.
#include "EddyTest.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Version.hpp"
#include "eddy/io/Info.hpp"
#include "eddy/io/Snapshot.hpp"

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using eddy::CartDecomposition;
using eddy::Index3;
using eddy::str;
using eddy::test::worldRank;
using eddy::test::worldSize;

double gridValue(int field, int i, int j, int k) {
  return field * 1e6 + i + 100.0 * j + 10000.0 * k + 0.25;
}

// Rank r holds r + 2 particles, except rank 1 which holds none.
long long particleCount(int r) {
  return r == 1 ? 0 : r + 2;
}
std::int64_t particleId(int r, long long p) {
  return 1000 * r + p;
}

std::string freshDirectory(std::string const& name) {
  std::string const dir = name + "_np" + std::to_string(worldSize());
  if (worldRank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

eddy::io::SnapshotData makeData(CartDecomposition const& d, long long step, bool particles) {
  eddy::io::SnapshotData s;
  s.step = step;
  s.time = 0.5 * step;
  s.dt = 0.5;
  s.hasGrid = true;
  s.grid.dims = d.dims();
  s.grid.globalCells = d.globalCells();
  s.grid.offset = d.offset();
  s.grid.localCells = d.localCells();
  s.grid.origin = {0.0, 0.0, 0.0};
  s.grid.spacing = {0.1, 0.2, 0.3};
  for (int f = 0; f < 2; ++f) {
    eddy::io::GridArray a{f == 0 ? "alpha" : "beta", f == 0 ? "M/(L T^2)" : "L/T", {}};
    Index3 const n = d.localCells(), o = d.offset();
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i)
          a.values.push_back(gridValue(f, o[0] + i, o[1] + j, o[2] + k) + step);
    s.fields.push_back(a);
  }
  s.hasParticles = particles;
  if (particles) {
    int const r = worldRank();
    for (long long p = 0; p < particleCount(r); ++p) {
      std::int64_t const id = particleId(r, p);
      for (int a = 0; a < 3; ++a) {
        s.particles.position.push_back(3.0 * id + a);
        s.particles.velocity.push_back(-1.0 * id - 0.125 * a);
      }
      s.particles.id.push_back(id);
      s.particles.type.push_back(static_cast<std::int32_t>(id % 3));
    }
    s.particles.positionUnits = "sigma";
    s.particles.velocityUnits = "sigma/tau";
  }
  return s;
}

std::string readStringAttribute(hid_t obj, char const* name) {
  hid_t const a = H5Aopen(obj, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  hid_t const t = H5Aget_type(a);
  std::string s(H5Tget_size(t), '\0');
  EXPECT_GE(H5Aread(a, t, &s[0]), 0);
  H5Tclose(t);
  H5Aclose(a);
  return s.substr(0, s.find('\0'));
}

template <class T>
T readScalarAttribute(hid_t obj, char const* name, hid_t memType) {
  T v{};
  hid_t const a = H5Aopen(obj, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  EXPECT_GE(H5Aread(a, memType, &v), 0);
  H5Aclose(a);
  return v;
}

/// Reads a whole dataset: its shape and values.
template <class T>
std::vector<T> readDataset(hid_t file, std::string const& path, hid_t memType,
                           std::vector<hsize_t>& dims, std::string& units) {
  hid_t const d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  hid_t const space = H5Dget_space(d);
  int const rank = H5Sget_simple_extent_ndims(space);
  dims.assign(rank, 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  hsize_t n = 1;
  for (auto const x : dims) n *= x;
  std::vector<T> v(n);
  if (n > 0) {
    EXPECT_GE(H5Dread(d, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << path;
  }
  units = readStringAttribute(d, "units");
  H5Sclose(space);
  H5Dclose(d);
  return v;
}

/// Rank 0: checks the whole file against what every rank wrote.
void checkFile(std::string const& path, CartDecomposition const& d, long long step, bool particles,
               std::string const& deck) {
  hid_t const file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  EXPECT_EQ(readScalarAttribute<double>(file, "time", H5T_NATIVE_DOUBLE), 0.5 * step);
  EXPECT_EQ(readScalarAttribute<std::int64_t>(file, "step", H5T_NATIVE_INT64), step);
  EXPECT_EQ(readScalarAttribute<double>(file, "dt", H5T_NATIVE_DOUBLE), 0.5);
  EXPECT_EQ(readScalarAttribute<std::int64_t>(file, "ranks", H5T_NATIVE_INT64), worldSize());
  EXPECT_EQ(readStringAttribute(file, "eddy_version"), std::string(eddy::kVersion));
  EXPECT_EQ(readStringAttribute(file, "deck"), deck);
  EXPECT_EQ(readStringAttribute(file, "time_units"), "T");

  Index3 const n = d.globalCells();
  // 2D grids are stored one cell thick: (1, ny, nx).
  std::vector<hsize_t> const expectDims{hsize_t(d.dims() == 3 ? n[2] : 1), hsize_t(n[1]),
                                        hsize_t(n[0])};
  for (int f = 0; f < 2; ++f) {
    std::vector<hsize_t> dims;
    std::string units;
    auto const v = readDataset<double>(file, f == 0 ? "/fields/alpha" : "/fields/beta",
                                       H5T_NATIVE_DOUBLE, dims, units);
    EXPECT_EQ(dims, expectDims);
    EXPECT_EQ(units, f == 0 ? "M/(L T^2)" : "L/T");
    ASSERT_EQ(v.size(), std::size_t(n[0]) * n[1] * n[2]);
    int bad = 0;
    std::size_t at = 0;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i, ++at)
          if (v[at] != gridValue(f, i, j, k) + step && bad++ < 5)
            ADD_FAILURE() << path << " field " << f << " (" << i << "," << j << "," << k
                          << "): " << v[at];
    EXPECT_EQ(bad, 0);
  }

  if (particles) {
    std::vector<std::int64_t> ids;
    for (int r = 0; r < worldSize(); ++r)
      for (long long p = 0; p < particleCount(r); ++p) ids.push_back(particleId(r, p));
    hsize_t const total = ids.size();
    std::vector<hsize_t> dims;
    std::string units;
    auto const x = readDataset<double>(file, "/particles/position", H5T_NATIVE_DOUBLE, dims, units);
    EXPECT_EQ(dims, (std::vector<hsize_t>{total, 3}));
    EXPECT_EQ(units, "sigma");
    auto const v = readDataset<double>(file, "/particles/velocity", H5T_NATIVE_DOUBLE, dims, units);
    EXPECT_EQ(dims, (std::vector<hsize_t>{total, 3}));
    EXPECT_EQ(units, "sigma/tau");
    auto const id = readDataset<std::int64_t>(file, "/particles/id", H5T_NATIVE_INT64, dims, units);
    EXPECT_EQ(dims, (std::vector<hsize_t>{total}));
    auto const type =
        readDataset<std::int32_t>(file, "/particles/type", H5T_NATIVE_INT32, dims, units);
    EXPECT_EQ(dims, (std::vector<hsize_t>{total}));
    ASSERT_EQ(x.size(), 3 * total);
    ASSERT_EQ(id.size(), total);
    ASSERT_EQ(type.size(), total);
    for (hsize_t p = 0; p < total; ++p) {
      EXPECT_EQ(id[p], ids[p]) << "row " << p;
      EXPECT_EQ(type[p], ids[p] % 3) << "row " << p;
      for (int a = 0; a < 3; ++a) {
        EXPECT_EQ(x[3 * p + a], 3.0 * ids[p] + a) << "row " << p;
        EXPECT_EQ(v[3 * p + a], -1.0 * ids[p] - 0.125 * a) << "row " << p;
      }
    }
  }
  EXPECT_GE(H5Fclose(file), 0);
}

std::string readText(std::string const& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int occurrences(std::string const& text, std::string const& what) {
  int n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

struct Case {
  eddy::io::SnapshotMode mode;
  std::size_t maxMessageBytes;
  char const* name;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  if (eddy::io::hdf5Parallel())
    c.push_back({eddy::io::SnapshotMode::Collective, std::size_t(64) << 20, "collective"});
  c.push_back({eddy::io::SnapshotMode::Gather, std::size_t(64) << 20, "gather"});
  // Small limits: several planes per message, rows of a plane, pieces of a row.
  c.push_back({eddy::io::SnapshotMode::Gather, 8 * 40, "gather_planes"});
  c.push_back({eddy::io::SnapshotMode::Gather, 8 * 6, "gather_rows"});
  c.push_back({eddy::io::SnapshotMode::Gather, 8 * 2, "gather_pieces"});
  return c;
}

void roundTrip(int dims, Index3 cells, bool particles) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, cells, dims, {false, false, false});
  for (auto const& c : cases()) {
    SCOPED_TRACE(c.name);
    std::string const dir = freshDirectory(str("snapshot_", dims, "d_", c.name));
    eddy::io::SnapshotWriter::Options o;
    o.directory = dir;
    o.runName = "run";
    o.deckYaml = "run:\n  name: run\n";
    o.mode = c.mode;
    o.maxMessageBytes = c.maxMessageBytes;
    eddy::io::SnapshotWriter w(MPI_COMM_WORLD, o);
    std::vector<long long> const steps{0, 5, 10};
    for (long long step : steps) {
      std::string const path = w.write(makeData(d, step, particles));
      EXPECT_EQ(path, str(dir, "/run_",
                          step == 0   ? "000000"
                          : step == 5 ? "000005"
                                      : "000010",
                          ".h5"));
    }
    EXPECT_EQ(w.count(), 3);
    if (worldRank() == 0) {
      for (long long step : steps) checkFile(w.snapshotPath(step), d, step, particles, o.deckYaml);
      EXPECT_FALSE(std::filesystem::exists(w.snapshotPath(10) + ".tmp"));
      std::string const xmf = readText(dir + "/run.xmf");
      EXPECT_FALSE(std::filesystem::exists(dir + "/run.xmf.tmp"));
      EXPECT_EQ(xmf.rfind("<?xml", 0), 0u);
      EXPECT_NE(xmf.find("<Xdmf Version=\"3.0\">"), std::string::npos);
      EXPECT_NE(xmf.find("CollectionType=\"Temporal\""), std::string::npos);
      EXPECT_EQ(occurrences(xmf, "<Time Value="), 3);
      EXPECT_NE(xmf.find("<Time Value=\"2.5\"/>"), std::string::npos);
      // 3D: a co-rectangular mesh; 2D: a 2D rectilinear mesh in the x-y plane whose node
      // coordinates are written once and referenced by every step.
      EXPECT_EQ(occurrences(xmf, dims == 3 ? "TopologyType=\"3DCoRectMesh\""
                                           : "TopologyType=\"2DRectMesh\""),
                3);
      EXPECT_EQ(occurrences(xmf, "/Xdmf/Domain/DataItem[@Name=\"x0\"]"), dims == 3 ? 0 : 3);
      EXPECT_EQ(occurrences(xmf, "<DataItem Name=\"x0\""), dims == 3 ? 0 : 1);
      std::string const nodes = dims == 3 ? str(cells[2] + 1, " ", cells[1] + 1, " ", cells[0] + 1)
                                          : str(cells[1] + 1, " ", cells[0] + 1);
      std::string const cellDims = dims == 3 ? str(cells[2], " ", cells[1], " ", cells[0])
                                             : str(cells[1], " ", cells[0]);
      EXPECT_EQ(occurrences(xmf, "Dimensions=\"" + nodes + "\""), 3) << xmf;
      EXPECT_EQ(occurrences(xmf, "Dimensions=\"" + cellDims + "\""), 6) << xmf;
      EXPECT_EQ(occurrences(xmf, "Center=\"Cell\""), 6);
      for (char const* f : {"run_000000.h5:/fields/alpha", "run_000005.h5:/fields/beta",
                            "run_000010.h5:/fields/alpha"})
        EXPECT_NE(xmf.find(f), std::string::npos) << f;
      long long total = 0;
      for (int r = 0; r < worldSize(); ++r) total += particleCount(r);
      EXPECT_EQ(occurrences(xmf, "TopologyType=\"Polyvertex\""), particles ? 3 : 0);
      if (particles) {
        EXPECT_EQ(occurrences(xmf, str("NumberOfElements=\"", total, "\"")), 3);
        EXPECT_NE(xmf.find("run_000010.h5:/particles/position"), std::string::npos);
      }
      // Every element opened is closed: the text is well-formed enough for ParaView's reader.
      EXPECT_EQ(occurrences(xmf, "<Grid "), occurrences(xmf, "</Grid>"));
      EXPECT_EQ(occurrences(xmf, "<Attribute "), occurrences(xmf, "</Attribute>"));
      EXPECT_EQ(occurrences(xmf, "<DataItem "), occurrences(xmf, "</DataItem>"));
    }
  }
}

TEST(Snapshot, Grid2DUneven) {
  roundTrip(2, {7, 5, 1}, false);
}

TEST(Snapshot, Grid3DUnevenWithParticles) {
  roundTrip(3, {5, 6, 3}, true);
}

// A directory that does not exist: every rank throws the same collective IoError naming the
// path and the reason, and no file appears.
TEST(Snapshot, MissingDirectoryIsCollectiveIoError) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, {6, 4, 1}, 2, {false, false, false});
  for (auto const& c : cases()) {
    eddy::io::SnapshotWriter::Options o;
    o.directory = "snapshot_no_such_directory/deeper";
    o.mode = c.mode;
    eddy::io::SnapshotWriter w(MPI_COMM_WORLD, o);
    try {
      w.write(makeData(d, 3, true));
      ADD_FAILURE() << "no exception";
    } catch (eddy::IoError const& e) {
      std::string const what = e.what();
      EXPECT_TRUE(e.collective());
      EXPECT_NE(what.find("snapshot_no_such_directory/deeper/eddy_000003.h5"), std::string::npos)
          << what;
      EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
    }
  }
}

// Bad input on one rank only still gives the same error on every rank (no rank hangs).
TEST(Snapshot, BadInputOnOneRankIsCollective) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, {6, 4, 1}, 2, {false, false, false});
  std::string const dir = freshDirectory("snapshot_bad_input");
  eddy::io::SnapshotWriter::Options o;
  o.directory = dir;
  eddy::io::SnapshotWriter w(MPI_COMM_WORLD, o);
  auto data = makeData(d, 1, false);
  int const last = worldSize() - 1;
  if (worldRank() == last) data.fields[1].values.pop_back();
  try {
    w.write(data);
    ADD_FAILURE() << "no exception";
  } catch (eddy::IoError const& e) {
    std::string const what = e.what();
    EXPECT_TRUE(e.collective());
    EXPECT_NE(what.find("snapshot field 'beta'"), std::string::npos) << what;
  }
  if (worldRank() == 0) {
    EXPECT_FALSE(std::filesystem::exists(w.snapshotPath(1)));
  }
}

TEST(Snapshot, ModeFromString) {
  EXPECT_EQ(eddy::io::snapshotModeFromString("gather"), eddy::io::SnapshotMode::Gather);
  EXPECT_THROW(eddy::io::snapshotModeFromString("fast"), eddy::ConfigError);
}

}  // namespace
