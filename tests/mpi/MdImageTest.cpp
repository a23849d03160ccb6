// Periodic images of the md model: atoms that move at one velocity, with no force between them,
// cross the periodic box several times, through migration between ranks and wraps in place;
// every atom's position plus its image times the box edge stays x0 + v t to round-off.
#include "EddyTest.hpp"

#include "md/System.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <vector>

namespace {

using eddy::md::Parameters;
using eddy::md::System;

template <class Exec>
class MdImages : public ::testing::Test {};
TYPED_TEST_SUITE(MdImages, eddy::test::ExecSpaces);

/// 4 x 4 x 4 fcc cells (256 atoms, box edge 6.72) at rest, with a cutoff far below the nearest
/// neighbour distance (1.19): no pair ever interacts, so each atom flies in a straight line.
/// The skin makes the lists rebuild (and the atoms migrate and wrap) every few steps.
Parameters freeFlight(bool sortByBin) {
  Parameters p;
  p.cells = {4, 4, 4};
  p.temperature = 0.0;
  p.cutoff = 0.2;
  p.skin = 0.1;
  p.dt = 0.01;
  p.sortByBin = sortByBin;
  return p;
}

template <class Exec>
void checkUnwrapped(bool sortByBin) {
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, freeFlight(sortByBin));
  double const v[3] = {3.7, -2.3, 1.1};
  {
    auto const vel = s.particles().velocities();
    auto h = Kokkos::create_mirror_view(vel);
    for (int i = 0; i < s.owned(); ++i)
      for (int d = 0; d < 3; ++d) h(i, d) = v[d];
    Kokkos::deep_copy(space, vel, h);
    space.fence();
  }
  std::map<std::int64_t, std::array<double, 3>> start;
  {
    auto const a = s.atomState();
    for (std::size_t i = 0; i < a.id.size(); ++i) {
      start[a.id[i]] = {a.x[3 * i], a.x[3 * i + 1], a.x[3 * i + 2]};
      for (int d = 0; d < 3; ++d) EXPECT_EQ(a.image[3 * i + d], 0);
    }
  }
  // 600 steps of 0.01: x travels 22.2 (3.3 box edges), y -13.8 (2.1), z 6.6 (1.0). Atoms start
  // on this rank; positions may leave it for others, which is what is tested.
  int const steps = 600;
  for (int k = 0; k < steps; ++k) s.step(space);
  double const t = steps * s.parameters().dt;
  auto const& box = s.domain().length;
  auto const a = s.atomState();
  // The starts of the atoms this rank now holds: every rank has every start.
  std::vector<double> mine;
  for (auto const& [id, x] : start) {
    mine.push_back(static_cast<double>(id));
    for (int d = 0; d < 3; ++d) mine.push_back(x[d]);
  }
  int const n = static_cast<int>(mine.size()), size = eddy::test::worldSize();
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  std::map<std::int64_t, std::array<double, 3>> everyStart;
  for (std::size_t k = 0; k < all.size(); k += 4)
    everyStart[static_cast<std::int64_t>(all[k])] = {all[k + 1], all[k + 2], all[k + 3]};

  double worst = 0.0;
  int maxImage[3] = {0, 0, 0}, missing = 0;
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    auto const it = everyStart.find(a.id[i]);
    if (it == everyStart.end()) {
      ++missing;
      continue;
    }
    for (int d = 0; d < 3; ++d) {
      double const unwrapped = a.x[3 * i + d] + a.image[3 * i + d] * box[d];
      worst = std::fmax(worst, std::fabs(unwrapped - (it->second[d] + v[d] * t)));
      maxImage[d] = std::max(maxImage[d], std::abs(a.image[3 * i + d]));
    }
  }
  double worstAll = 0.0;
  int maxAll[3] = {0, 0, 0}, missingAll = 0;
  long long owned = s.owned(), ownedAll = 0;
  MPI_Allreduce(&worst, &worstAll, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(maxImage, maxAll, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&missing, &missingAll, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&owned, &ownedAll, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(missingAll, 0);
  EXPECT_EQ(ownedAll, s.atoms());
  // Each step adds dt v and each wrap +-L, a few ulp of 30 each: far below 1e-9.
  EXPECT_LT(worstAll, 1e-9);
  // Several crossings along x and y (the box is 6.72 wide): 3 or 4 and 2 or 3 images.
  EXPECT_GE(maxAll[0], 3);
  EXPECT_GE(maxAll[1], 2);
  EXPECT_GE(maxAll[2], 1);
  // The neighbour lists were rebuilt, so the atoms did migrate and wrap along the way.
  EXPECT_GT(s.rebuilds(), steps / 10);
}

TYPED_TEST(MdImages, UnwrappedPositionsFollowTheFlightSortedByBin) {
  checkUnwrapped<TypeParam>(true);
}

TYPED_TEST(MdImages, UnwrappedPositionsFollowTheFlightUnsorted) {
  checkUnwrapped<TypeParam>(false);
}

}  // namespace
