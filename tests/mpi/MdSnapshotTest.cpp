// md snapshots as `eddy run` writes them: the periodic box as attributes of /particles (the
// deck's box) and every atom's image counts, from which the positions unwrap into a continuous
// trajectory across the snapshots; H5MD trajectories that a restart continues and that a new
// run starts from (md.data_file).
#include "EddyTest.hpp"
#include "ModelRegistry.hpp"
#include "Simulation.hpp"

#include "eddy/io/Deck.hpp"
#include "eddy/io/H5md.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

std::string outDir() {
  return "output/test_md_snapshot_np" + std::to_string(ranks());
}

/// A float64 attribute of length 3 of /particles.
std::vector<double> boxAttribute(hid_t file, char const* name) {
  std::vector<double> v(3, -1.0);
  hid_t const a = H5Aopen_by_name(file, "/particles", name, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  if (a < 0) return v;
  hid_t const space = H5Aget_space(a);
  EXPECT_EQ(H5Sget_simple_extent_npoints(space), 3) << name;
  EXPECT_GE(H5Aread(a, H5T_NATIVE_DOUBLE, v.data()), 0) << name;
  H5Sclose(space);
  H5Aclose(a);
  return v;
}

/// The whole of dataset `path` (N rows of `width`) read as `memType` into T.
template <class T>
std::vector<T> rows(hid_t file, char const* path, hid_t memType, hsize_t width,
                    hsize_t* count) {
  hid_t const d = H5Dopen2(file, path, H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  if (d < 0) return {};
  hid_t const space = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  int const rank = H5Sget_simple_extent_dims(space, dims, nullptr);
  EXPECT_EQ(rank, width == 1 ? 1 : 2) << path;
  if (width > 1) {
    EXPECT_EQ(dims[1], width) << path;
  }
  *count = dims[0];
  std::vector<T> v(static_cast<std::size_t>(dims[0] * width));
  EXPECT_GE(H5Dread(d, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << path;
  H5Sclose(space);
  H5Dclose(d);
  return v;
}

/// Unwrapped position by atom id, and the box, of one snapshot.
struct Unwrapped {
  std::vector<double> low, length;
  std::map<std::int64_t, std::array<double, 3>> position;
  int crossed = 0;  ///< atoms with an image count other than 0
};

Unwrapped read(std::string const& path) {
  Unwrapped u;
  hid_t const file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(file, 0) << path;
  if (file < 0) return u;
  u.low = boxAttribute(file, "box_low");
  u.length = boxAttribute(file, "box_length");
  hsize_t n = 0, ni = 0, nx = 0;
  auto const id = rows<std::int64_t>(file, "/particles/id", H5T_NATIVE_INT64, 1, &n);
  auto const x = rows<double>(file, "/particles/position", H5T_NATIVE_DOUBLE, 3, &nx);
  auto const image = rows<std::int32_t>(file, "/particles/image", H5T_NATIVE_INT32, 3, &ni);
  EXPECT_EQ(ni, n);
  EXPECT_EQ(nx, n);
  for (hsize_t i = 0; i < n && ni == n && nx == n; ++i) {
    std::array<double, 3> p{};
    bool moved = false;
    for (int d = 0; d < 3; ++d) {
      p[d] = x[3 * i + d] + image[3 * i + d] * u.length[d];
      moved = moved || image[3 * i + d] != 0;
    }
    u.position[id[i]] = p;
    u.crossed += moved ? 1 : 0;
  }
  H5Fclose(file);
  return u;
}

TEST(MdSnapshot, HoldsTheBoxAndImagesThatUnwrapTheTrajectory) {
  // 256 atoms of the liquid at T* 1.44: in 200 steps (t = 1) atoms near the box's faces cross.
  std::ostringstream deck;
  deck << "run: {name: lj, steps: 200, progress_every: 100, output_dir: " << outDir() << "}\n"
       << "grid: {cells: [4, 4, 4], periodic: [true, true, true]}\n"
       << "md: {shift: true, density: 0.8}\n"
       << "output: {every: 10}\n";
  eddy::io::Deck const parsed =
      eddy::io::parseDeck(deck.str(), "lj.yaml", eddy::app::deckSchema());
  eddy::app::checkDeck(parsed);
  ASSERT_EQ(eddy::app::runDeck(eddy::test::runtime(), parsed), 0);

  // The deck's box: 4 lattice cells of edge (4 / density)^(1/3) per axis, from 0.
  double const edge = 4 * std::cbrt(4.0 / 0.8);
  Unwrapped before = read(outDir() + "/lj_000000.h5");
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(before.low[d], 0.0);
    EXPECT_NEAR(before.length[d], edge, 1e-12 * edge);
  }
  EXPECT_EQ(before.position.size(), 256u);
  EXPECT_EQ(before.crossed, 0);
  // Between snapshots 10 steps apart (t = 0.05) no atom moves more than a fraction of sigma; a
  // position that wrapped without its image would jump by the box edge.
  int crossed = 0;
  for (int step = 10; step <= 200; step += 10) {
    char name[32];
    std::snprintf(name, sizeof name, "/lj_%06d.h5", step);
    Unwrapped const after = read(outDir() + name);
    ASSERT_EQ(after.position.size(), 256u) << name;
    double largest = 0.0;
    for (auto const& [id, p] : after.position) {
      auto const& q = before.position.at(id);
      for (int d = 0; d < 3; ++d) largest = std::fmax(largest, std::fabs(p[d] - q[d]));
    }
    EXPECT_LT(largest, 0.5) << name;
    crossed = after.crossed;
    before = after;
  }
  EXPECT_GT(crossed, 0) << "no atom crossed the box: the test tests nothing";
}

/// The run of lj.yaml's liquid in reproducible mode writing an H5MD frame every 10 steps and a
/// checkpoint every 100, to `steps`, from `restart` when given.
int runTrajectory(int steps, std::string const& restart) {
  std::ostringstream deck;
  deck << "run: {name: lj, steps: " << steps << ", progress_every: 100, output_dir: " << outDir()
       << "/trajectory, restart: '" << restart << "'}\n"
       << "grid: {cells: [4, 4, 4], periodic: [true, true, true]}\n"
       << "md: {shift: true, density: 0.8, reproducible: true, trajectory: {every: 10}}\n"
       << "checkpoint: {every: 100, at_end: false}\n";
  eddy::io::Deck const parsed =
      eddy::io::parseDeck(deck.str(), "lj.yaml", eddy::app::deckSchema());
  eddy::app::checkDeck(parsed);
  // Rank 0 writes the file and closes it last; every rank reads it after the run, and rank 0
  // opens it for writing again only once no rank reads it (HDF5 locks an open file).
  MPI_Barrier(MPI_COMM_WORLD);
  int const code = eddy::app::runDeck(eddy::test::runtime(), parsed);
  MPI_Barrier(MPI_COMM_WORLD);
  return code;
}

TEST(MdSnapshot, TheH5mdTrajectoryUnwrapsAndARestartContinuesIt) {
  ASSERT_EQ(runTrajectory(200, ""), 0);
  std::string const path = outDir() + "/trajectory/lj.h5md";
  long long frames = 0;
  eddy::io::H5mdParticles const p = eddy::io::readH5mdParticles(path, frames);
  ASSERT_EQ(frames, 21);
  ASSERT_EQ(p.id.size(), 256u);
  for (std::size_t i = 0; i < p.id.size(); ++i) EXPECT_EQ(p.id[i], static_cast<long long>(i) + 1);
  double const edge = 4 * std::cbrt(4.0 / 0.8);
  std::vector<eddy::io::H5mdFrame> straight;
  for (long long k = 0; k < frames; ++k) straight.push_back(eddy::io::readH5mdFrame(path, k));
  int crossed = 0;
  for (long long k = 1; k < frames; ++k) {
    auto const& a = straight[k - 1];
    auto const& b = straight[k];
    EXPECT_EQ(b.step, 10 * k);
    EXPECT_NEAR(b.upper[0] - b.lower[0], edge, 1e-12 * edge);
    double largest = 0.0;
    for (std::size_t i = 0; i < p.id.size(); ++i)
      for (int d = 0; d < 3; ++d) {
        double const ua = a.position[i][d] + a.image[i][d] * edge;
        double const ub = b.position[i][d] + b.image[i][d] * edge;
        largest = std::fmax(largest, std::fabs(ub - ua));
        crossed += b.image[i][d] != a.image[i][d];
      }
    EXPECT_LT(largest, 0.5) << "frame " << k;  // no wrap without its image
  }
  EXPECT_GT(crossed, 0) << "no atom crossed the box: the test tests nothing";
  // From the checkpoint of step 100: frames 0 .. 100 kept, 110 .. 200 written again, the same.
  ASSERT_EQ(runTrajectory(200, outDir() + "/trajectory/checkpoints/lj_000100.chk.h5"), 0);
  (void)eddy::io::readH5mdParticles(path, frames);
  ASSERT_EQ(frames, 21);
  for (long long k = 0; k < frames; ++k) {
    auto const f = eddy::io::readH5mdFrame(path, k);
    EXPECT_EQ(f.step, straight[k].step);
    EXPECT_EQ(f.position, straight[k].position) << "frame " << k;
    EXPECT_EQ(f.image, straight[k].image) << "frame " << k;
    EXPECT_EQ(f.velocity, straight[k].velocity) << "frame " << k;
  }
}

/// A run of 10 steps started from the atoms of file `start` (a trajectory's last frame), writing
/// its own trajectory (a frame at step 0 and 10) to <outDir>/<to>.
int runFromFrame(std::string const& start, std::string const& to = "from_frame") {
  std::ostringstream deck;
  deck << "run: {name: lj, steps: 10, progress_every: 10, output_dir: " << outDir() << "/" << to
       << "}\n"
       << "grid: {cells: [2, 2, 2], periodic: [true, true, true]}\n"
       << "md: {shift: true, reproducible: true, data_file: '" << start
       << "', trajectory: {every: 10}}\n"
       << "checkpoint: {every: 0, at_end: false}\n";
  eddy::io::Deck const parsed =
      eddy::io::parseDeck(deck.str(), "from_frame.yaml", eddy::app::deckSchema());
  eddy::app::checkDeck(parsed);
  MPI_Barrier(MPI_COMM_WORLD);
  int const code = eddy::app::runDeck(eddy::test::runtime(), parsed);
  MPI_Barrier(MPI_COMM_WORLD);
  return code;
}

TEST(MdSnapshot, ARunStartsFromTheLastFrameOfATrajectory) {
  ASSERT_EQ(runTrajectory(200, ""), 0);
  std::string const source = outDir() + "/trajectory/lj.h5md";
  long long frames = 0;
  eddy::io::H5mdParticles const p = eddy::io::readH5mdParticles(source, frames);
  ASSERT_EQ(frames, 21);
  eddy::io::H5mdFrame const last = eddy::io::readH5mdFrame(source, frames - 1);
  ASSERT_EQ(runFromFrame(source), 0);
  std::string const path = outDir() + "/from_frame/lj.h5md";
  long long startedFrames = 0;
  eddy::io::H5mdParticles const q = eddy::io::readH5mdParticles(path, startedFrames);
  ASSERT_EQ(startedFrames, 2);
  EXPECT_EQ(q.id, p.id);
  EXPECT_EQ(q.species, p.species);
  eddy::io::H5mdFrame const first = eddy::io::readH5mdFrame(path, 0);
  EXPECT_EQ(first.lower, last.lower);
  EXPECT_EQ(first.upper, last.upper);
  // The velocities as they were; the positions may be wrapped otherwise (the start wraps every
  // atom into the box and counts it in its image), the unwrapped ones are the same.
  EXPECT_EQ(first.velocity, last.velocity);
  double const edge = last.upper[0] - last.lower[0];
  for (std::size_t i = 0; i < p.id.size(); ++i)
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(first.position[i][d] + first.image[i][d] * edge,
                  last.position[i][d] + last.image[i][d] * edge, 1e-12)
          << "atom " << p.id[i] << " axis " << d;
}

// The same atoms written as an extended XYZ file (wrapped positions, velocities and ids, atoms
// in reverse order) start the same run as the trajectory's frame: the same bits after 10 steps,
// the images apart from those the frame started with.
TEST(MdSnapshot, AnExtendedXyzFileStartsTheSameRunAsTheFrameItHolds) {
  ASSERT_EQ(runTrajectory(200, ""), 0);
  std::string const source = outDir() + "/trajectory/lj.h5md";
  long long frames = 0;
  eddy::io::H5mdParticles const p = eddy::io::readH5mdParticles(source, frames);
  eddy::io::H5mdFrame const last = eddy::io::readH5mdFrame(source, frames - 1);
  std::string const xyz = outDir() + "/last_frame.xyz";
  if (eddy::test::worldRank() == 0) {
    std::FILE* f = std::fopen(xyz.c_str(), "w");
    ASSERT_NE(f, nullptr);
    auto const& lo = last.lower;
    auto const& hi = last.upper;
    std::fprintf(f,
                 "%zu\nLattice=\"%.17g 0 0 0 %.17g 0 0 0 %.17g\" Origin=\"%.17g %.17g %.17g\" "
                 "Properties=species:S:1:pos:R:3:velo:R:3:id:I:1 pbc=\"T T T\"\n",
                 p.id.size(), hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], lo[0], lo[1], lo[2]);
    for (std::size_t k = p.id.size(); k-- > 0;) {
      auto const& x = last.position[k];
      auto const& v = last.velocity[k];
      std::fprintf(f, "Ar %.17g %.17g %.17g %.17g %.17g %.17g %lld\n", x[0], x[1], x[2], v[0], v[1],
                   v[2], static_cast<long long>(p.id[k]));
    }
    std::fclose(f);
  }
  ASSERT_EQ(runFromFrame(source, "from_frame"), 0);
  ASSERT_EQ(runFromFrame(xyz, "from_xyz"), 0);
  auto const a = eddy::io::readH5mdFrame(outDir() + "/from_frame/lj.h5md", 1);
  auto const b = eddy::io::readH5mdFrame(outDir() + "/from_xyz/lj.h5md", 1);
  ASSERT_EQ(a.position.size(), p.id.size());
  EXPECT_EQ(b.step, 10);
  EXPECT_EQ(b.position, a.position);
  EXPECT_EQ(b.velocity, a.velocity);
  for (std::size_t i = 0; i < p.id.size(); ++i)
    for (int d = 0; d < 3; ++d)
      EXPECT_EQ(b.image[i][d] + last.image[i][d], a.image[i][d]) << "atom " << p.id[i];
}

}  // namespace
