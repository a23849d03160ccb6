// Overlapping the halo exchanges with the interior work (parallel.overlap) changes when an entry
// is computed, never its value: on the same ranks, the runs with and without overlap must hold
// bitwise the same local arrays after each step -- velocity, pressure and Poisson guess, ghosts
// included -- and report the same step statistics (registered at 1, 2 and 4 ranks; blocks two
// cells wide, whose inner box is empty, included). The multigrid cases overlap the exchanges of
// every one-layer multigrid level, however small (MultigridTuning::overlapCells = 0).
#include "EddyTest.hpp"
#include "FluidsCases.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace {

using eddy::test::FlowCase;

/// The whole allocated array of `f` (ghosts included) on the host.
std::vector<double> localArray(eddy::Field<eddy::MemSpace> const& f) {
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  return std::vector<double>(h.data(), h.data() + h.span());
}

/// Index of the first entry whose bits differ, or -1.
long long firstDifference(std::vector<double> const& a, std::vector<double> const& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return static_cast<long long>(i);
  return -1;
}

/// One field of the run without overlap and the same field of the run with it.
struct FieldPair {
  std::string name;
  eddy::Field<eddy::MemSpace> const* off;
  eddy::Field<eddy::MemSpace> const* on;
};

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expectOverlapInvariant(FlowCase c, int steps, char const* name) {
  c.params.overlap = false;
  auto off = c.make(MPI_COMM_WORLD);
  c.params.overlap = true;
  auto on = c.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  int const dims = c.dims;
  int poissonIterations = 0;
  for (int s = 1; s <= steps; ++s) {
    auto const a = off->step(space);
    auto const b = on->step(space);
    poissonIterations += a.poissonIterations;
    EXPECT_TRUE(sameBits(a.dt, b.dt)) << name << " step " << s;
    EXPECT_EQ(a.poissonIterations, b.poissonIterations) << name << " step " << s;
    EXPECT_TRUE(sameBits(a.poissonResidual, b.poissonResidual)) << name << " step " << s;
    EXPECT_TRUE(sameBits(a.maxDivergence, b.maxDivergence)) << name << " step " << s;
    space.fence();
    std::vector<FieldPair> fields;
    for (int f = 0; f < dims; ++f)
      fields.push_back({"u" + std::to_string(f), &off->velocity(f), &on->velocity(f)});
    fields.push_back({"p", &off->pressure(), &on->pressure()});
    fields.push_back({"phi", &off->poissonGuess(), &on->poissonGuess()});
    for (auto const& f : fields) {
      long long const at = firstDifference(localArray(*f.off), localArray(*f.on));
      EXPECT_EQ(at, -1) << name << ": " << f.name << " differs at local entry " << at
                        << " after step " << s << " on rank " << eddy::test::worldRank();
    }
  }
  EXPECT_GT(poissonIterations, 0) << name;
  auto const d = on->diagnostics(space);
  EXPECT_NE(d.fieldChecksum[0], 0.0) << name;
  EXPECT_NE(d.fieldChecksum[1], 0.0) << name;
}

TEST(FluidsOverlap, Cavity2DMultigrid) {
  FlowCase c = eddy::test::cavity(23, 100.0);
  c.cells = {23, 19, 1};
  c.params.poisson.multigrid.overlapCells =
      0;  // the multigrid levels of this small grid overlap too
  expectOverlapInvariant(c, 5, "cavity 2D");
}

TEST(FluidsOverlap, ThinBlocks2D) {
  // 8 x 5 cells: on 4 ranks blocks of 4 x 2 or 4 x 3 cells, whose inner box is empty along y
  // (every face and cell is in the shell).
  FlowCase c = eddy::test::cavity(8, 50.0);
  c.cells = {8, 5, 1};
  c.params.poisson.method = eddy::fluids::PoissonMethod::CG;
  expectOverlapInvariant(c, 4, "thin blocks 2D");
}

TEST(FluidsOverlap, Box3DWithMovingWallAndForceCG) {
  expectOverlapInvariant(eddy::test::box3DWithMovingWallAndForce(), 4, "box 3D");
}

TEST(FluidsOverlap, TaylorGreen3DMultigrid) {
  FlowCase c = eddy::test::taylorGreen(16, 3, 0.01);
  c.cells = {16, 12, 8};
  c.params.poisson.multigrid.overlapCells = 0;
  expectOverlapInvariant(c, 4, "Taylor-Green 3D");
}

}  // namespace
