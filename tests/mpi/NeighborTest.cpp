// Neighbour lists, ghosts, migration and Lennard-Jones forces against O(N^2) brute force, with
// the minimum image of the periodic box, on any rank count.
#include "EddyTest.hpp"
#include "MdTestUtil.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using eddy::md::Parameters;
using eddy::md::System;
using eddy::neighbor::ListKind;
using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

template <class Exec>
class Neighbor : public ::testing::Test {};
TYPED_TEST_SUITE(Neighbor, eddy::test::ExecSpaces);

Parameters smallSystem(bool fcc, ListKind kind, int cells = 6) {
  Parameters p;
  p.fcc = fcc;
  p.cells = {cells, cells, cells};
  p.temperature = 0.0;
  p.list = kind;
  p.seed = 2024;
  return p;
}

/// The list's pairs against brute force; for a half list, each unordered pair exactly once.
template <class Exec>
void expectPairsMatch(System<Exec> const& s, char const* what) {
  auto const all = eddy::test::gatherParticles(s);
  ASSERT_EQ(static_cast<std::int64_t>(all.size()), s.atoms()) << what;
  Pairs const expected = eddy::test::bruteForcePairs(all, s.domain().length, s.list().radius());
  Pairs got = eddy::test::gatherListPairs(s);
  if (s.list().kind() == ListKind::Half) {
    // Every unordered pair once: no duplicates, and both orders together give the full set.
    Pairs const both = eddy::test::bothOrders(got);
    EXPECT_EQ(std::adjacent_find(both.begin(), both.end()), both.end())
        << what << ": a pair occurs twice in the half list";
    EXPECT_EQ(got.size() * 2, expected.size()) << what;
    got = both;
  }
  EXPECT_EQ(got.size(), expected.size()) << what;
  EXPECT_TRUE(got == expected) << what << ": neighbour pairs differ from brute force";
  EXPECT_GT(expected.size(), all.size()) << what << ": too few pairs to be a test";
}

/// Between rebuilds: every pair now within the cutoff is still in the list.
template <class Exec>
void expectListCoversCutoff(System<Exec> const& s, char const* what) {
  auto const all = eddy::test::gatherParticles(s);
  Pairs const inside = eddy::test::bruteForcePairs(all, s.domain().length, s.list().cutoff());
  Pairs got = eddy::test::gatherListPairs(s);
  if (s.list().kind() == ListKind::Half) got = eddy::test::bothOrders(got);
  EXPECT_TRUE(std::includes(got.begin(), got.end(), inside.begin(), inside.end()))
      << what << ": a pair within the cutoff is missing from the list";
}

template <class Exec>
void checkPairs(bool fcc, ListKind kind) {
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, smallSystem(fcc, kind));
  expectPairsMatch(s, fcc ? "fcc" : "random");
  // Large displacements: atoms cross ranks (several hops) and the periodic boundary.
  eddy::test::displaceParticles(s, 2.0, 99);
  s.rebuild(space);
  expectPairsMatch(s, fcc ? "fcc displaced" : "random displaced");
}

/// `n` atoms uniformly in a cube of side `side` (ids 0 .. n - 1), on the host and in `Mem`.
template <class Mem>
struct Cloud {
  eddy::Positions<Mem> x;
  Kokkos::View<std::int64_t*, Mem> ids;
  typename eddy::Positions<Mem>::HostMirror hx;

  Cloud(int n, double side, unsigned seed)
      : x("eddy::test::x", n), ids("eddy::test::ids", n), hx(Kokkos::create_mirror_view(x)) {
    auto hid = Kokkos::create_mirror_view(ids);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, side);
    for (int i = 0; i < n; ++i) {
      for (int d = 0; d < 3; ++d) hx(i, d) = u(rng);
      hid(i) = i;
    }
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(ids, hid);
  }
};

/// A list of no rows (a rank without atoms), then of rows whose neighbour counts exceed the
/// capacity the empty build left: pairs against a direct count, in padded rows (one pass) or
/// packed ones (two passes, as lists past ListTuning::maxPaddedPlaces are built).
template <class Exec>
void checkEmptyThenFull(eddy::neighbor::ListBuild how) {
  eddy::neighbor::ListTuning<Exec> tuning;
  if (how == eddy::neighbor::ListBuild::TwoPass) tuning.maxPaddedPlaces = 0;
  Exec space;
  int const n = 600;  // atoms in a 3 x 3 x 3 box, dense enough for rows of 100 and more
  Cloud<typename Exec::memory_space> const c(n, 3.0, 7);
  auto const& hx = c.hx;
  eddy::neighbor::BinList<Exec> bins;
  eddy::neighbor::VerletList<Exec> list(ListKind::Full, 1.0, 0.2, tuning);
  std::array<double, 3> const lo{0.0, 0.0, 0.0}, hi{3.0, 3.0, 3.0};
  bins.build(space, c.x, 0, lo, hi, 0.6);
  list.build(space, c.x, c.ids, 0, bins);
  EXPECT_EQ(list.pairCount(), 0);
  bins.build(space, c.x, n, lo, hi, 0.6);
  list.build(space, c.x, c.ids, n, bins);
  auto const rows = eddy::test::hostRows(list.view(), n);
  long long expected = 0;
  int longest = 0, wrongRows = 0;
  for (int i = 0; i < n; ++i) {
    std::vector<int> want;
    for (int j = 0; j < n; ++j) {
      double r2 = 0.0;
      for (int d = 0; d < 3; ++d) r2 += (hx(i, d) - hx(j, d)) * (hx(i, d) - hx(j, d));
      if (i != j && r2 < 1.2 * 1.2) want.push_back(j);
    }
    std::vector<int> got = rows[i];
    std::sort(got.begin(), got.end());
    wrongRows += got != want;
    expected += static_cast<long long>(want.size());
    longest = std::max(longest, static_cast<int>(want.size()));
  }
  EXPECT_EQ(list.pairCount(), expected);
  EXPECT_EQ(list.lastBuild(), how);
  EXPECT_EQ(wrongRows, 0) << "rows whose neighbours differ from brute force";
  EXPECT_GT(longest, 64) << "rows must be longer than the first build's capacity";
}
TYPED_TEST(Neighbor, AnEmptyBuildThenLongRows) {
  checkEmptyThenFull<TypeParam>(eddy::neighbor::ListBuild::OnePass);
  checkEmptyThenFull<TypeParam>(eddy::neighbor::ListBuild::TwoPass);
}

/// One pass gives the rows of two passes (the build of lists past ListTuning::maxPaddedPlaces),
/// entry for entry, for both list kinds, over several builds of moving atoms (the one-pass
/// stride follows the rows). Where the rows are stored by groups of four (VerletList::Writer:
/// CUDA), the thousands of rows of random lengths start and end at every place of a group.
template <class Exec>
void checkBuildsAgree(ListKind kind) {
  using eddy::neighbor::ListBuild;
  Exec space;
  int const n = 3000;
  std::array<double, 3> const lo{0.0, 0.0, 0.0}, hi{6.0, 6.0, 6.0};
  eddy::neighbor::ListTuning<Exec> packed;
  packed.maxPaddedPlaces = 0;
  eddy::neighbor::VerletList<Exec> two(kind, 1.0, 0.3, packed);
  {
    eddy::neighbor::VerletList<Exec> other(kind, 1.0, 0.3);
    char const* const name = "one pass";
    for (unsigned seed : {1u, 2u, 3u}) {
      // Denser each time: rows outgrow the capacity of the build before.
      Cloud<typename Exec::memory_space> const c(n * static_cast<int>(seed), 6.0, seed);
      eddy::neighbor::BinList<Exec> bins;
      bins.build(space, c.x, n * static_cast<int>(seed), lo, hi, 0.65);
      other.build(space, c.x, c.ids, n * static_cast<int>(seed), bins);
      two.build(space, c.x, c.ids, n * static_cast<int>(seed), bins);
      ASSERT_EQ(other.pairCount(), two.pairCount()) << name << ", seed " << seed;
      EXPECT_GT(other.pairCount(), 10 * n) << "too few pairs to be a test";
      EXPECT_GT(other.stride(), 0) << name << ": rows not padded, seed " << seed;
      EXPECT_EQ(other.lastBuild(), ListBuild::OnePass);
      EXPECT_EQ(two.stride(), 0) << "two passes: rows not packed, seed " << seed;
      EXPECT_EQ(two.lastBuild(), ListBuild::TwoPass);
      EXPECT_TRUE(eddy::test::hostRows(other.view(), other.owned()) ==
                  eddy::test::hostRows(two.view(), two.owned()))
          << name << ": rows differ, seed " << seed;
    }
  }
}

TYPED_TEST(Neighbor, EveryBuildGivesTheListsOfTwoPasses) {
  checkBuildsAgree<TypeParam>(ListKind::Full);
  checkBuildsAgree<TypeParam>(ListKind::Half);
}

TYPED_TEST(Neighbor, FullListPairsEqualBruteForce) {
  checkPairs<TypeParam>(true, ListKind::Full);
  checkPairs<TypeParam>(false, ListKind::Full);
}

TYPED_TEST(Neighbor, HalfListHoldsEachPairOnce) {
  checkPairs<TypeParam>(true, ListKind::Half);
  checkPairs<TypeParam>(false, ListKind::Half);
}

/// Per-atom forces of a perturbed lattice against brute force; returns them by id.
template <class Exec>
std::vector<eddy::test::HostParticle> checkForces(ListKind kind, bool shift) {
  Exec space;
  auto p = smallSystem(true, kind);
  p.shift = shift;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  eddy::test::displaceParticles(s, 0.15, 7);
  s.rebuild(space);
  s.computeForces(space);
  auto const all = eddy::test::gatherParticles(s);
  std::vector<std::array<double, 3>> expected;
  std::vector<double> scale;
  eddy::test::bruteForceForces(all, s.domain().length, s.potential(), expected, scale);
  double worst = 0.0;
  for (std::size_t i = 0; i < all.size(); ++i)
    for (int c = 0; c < 3; ++c)
      worst = std::max(worst, std::fabs(all[i].f[c] - expected[i][c]) / scale[i]);
  EXPECT_LT(worst, 1e-12) << (kind == ListKind::Half ? "half" : "full") << " list";
  return all;
}

TYPED_TEST(Neighbor, ForcesEqualBruteForceAndFullAgreesWithHalf) {
  auto const full = checkForces<TypeParam>(ListKind::Full, false);
  auto const half = checkForces<TypeParam>(ListKind::Half, true);
  ASSERT_EQ(full.size(), half.size());
  double worst = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < full.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      worst = std::max(worst, std::fabs(full[i].f[c] - half[i].f[c]));
      largest = std::max(largest, std::fabs(full[i].f[c]));
    }
  EXPECT_LT(worst, 1e-12 * largest);
  EXPECT_GT(largest, 1.0);
}

/// The displacement test alone (VerletList::needsRebuild: the DisplacementWatch given every
/// owned row's position by a pass of its own, as the drift kernel gives them), without the
/// rebuild updateNeighbors makes.
template <class Exec>
bool watchedRebuildDue(Exec const& space, System<Exec> const& s) {
  return s.list().needsRebuild(space, MPI_COMM_WORLD, s.particles().positions());
}

template <class Exec>
void checkRebuildPolicy(ListKind kind) {
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, smallSystem(true, kind));
  double const half = 0.5 * s.parameters().skin;
  long long const builds = s.rebuilds();
  EXPECT_FALSE(watchedRebuildDue(space, s));
  EXPECT_FALSE(s.updateNeighbors(space));
  // Id 1 moves to just below skin/2: no rebuild; a little further: a rebuild.
  eddy::test::moveParticle(s, 1, half * 0.999);
  EXPECT_FALSE(watchedRebuildDue(space, s));
  EXPECT_FALSE(s.updateNeighbors(space));
  EXPECT_EQ(s.rebuilds(), builds);
  eddy::test::moveParticle(s, 1, half * 0.002);
  EXPECT_TRUE(watchedRebuildDue(space, s));
  EXPECT_TRUE(watchedRebuildDue(space, s));  // a later check, same positions: the same answer
  EXPECT_TRUE(s.updateNeighbors(space));
  EXPECT_EQ(s.rebuilds(), builds + 1);
  // Displacements count from the new build.
  EXPECT_FALSE(watchedRebuildDue(space, s));
  eddy::test::moveParticle(s, 7, -half * 0.99);
  eddy::test::moveParticle(s, 1, half * 0.99);
  EXPECT_FALSE(watchedRebuildDue(space, s));
  EXPECT_FALSE(s.updateNeighbors(space));
  EXPECT_EQ(s.rebuilds(), builds + 1);
  expectListCoversCutoff(s, "after the moves");
}

TYPED_TEST(Neighbor, RebuildExactlyWhenAnAtomMovedMoreThanHalfTheSkin) {
  checkRebuildPolicy<TypeParam>(ListKind::Half);
  checkRebuildPolicy<TypeParam>(ListKind::Full);
}

/// In a box scaled by s since the build, the displacement limit keeps every left-out pair out of
/// its cutoff: (s (cutoff + skin) - cutoff) / 2, with pair cutoffs the least of it over the
/// pairs (the smallest cutoff's once the box grew, the largest's once it shrank).
template <class Exec>
void checkScaledLimit() {
  eddy::neighbor::VerletList<Exec> list(ListKind::Full, 1.0, 0.2);
  auto const limit = [&](double scale) {
    return 2.0 * std::sqrt(list.displacementWatch(scale).limitSq);
  };
  EXPECT_NEAR(limit(1.0), 0.2, 1e-15);
  EXPECT_NEAR(limit(1.1), 1.1 * 1.2 - 1.0, 1e-14);
  list.setPairCutoffs(2, {1.0, 0.5, 0.5, 0.8});
  EXPECT_EQ(list.classes(), 2);
  EXPECT_NEAR(limit(1.0), 0.2, 1e-15);
  EXPECT_NEAR(limit(1.1), 1.1 * 0.7 - 0.5, 1e-14);
  EXPECT_NEAR(limit(0.95), 0.95 * 1.2 - 1.0, 1e-14);
}
TYPED_TEST(Neighbor, AScaledBoxTakesTheLeastSkinOfItsPairs) {
  checkScaledLimit<TypeParam>();
}

/// Between rebuilds only the ghost positions are refreshed (on a rank that owns an axis whole,
/// by a direct copy): every ghost row then holds its owner's current position, shifted by the
/// same box lengths as at the build (which placed it by the message path).
template <class Exec>
void checkGhostRefresh() {
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, smallSystem(true, ListKind::Full));
  auto const& length = s.domain().length;
  int const first = s.owned(), ghosts = s.ghosts().ghostCount();
  // Each ghost coordinate's image: -1, 0 or +1 box lengths from its owner's.
  auto images = [&] {
    auto const all = eddy::test::gatherParticles(s);
    auto const& p = s.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.positions());
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.ids());
    std::vector<int> image;
    for (int g = first; g < first + ghosts; ++g) {
      auto const& owner = all.at(static_cast<std::size_t>(id(g) - 1));
      for (int d = 0; d < 3; ++d) {
        double const v = x(g, d), o = owner.x[d];
        image.push_back(v == o ? 0 : v == o + length[d] ? 1 : v == o - length[d] ? -1 : 99);
      }
    }
    return image;
  };
  std::vector<int> const built = images();
  long long const builds = s.rebuilds();
  eddy::test::displaceParticles(s, 0.05, 11);  // below skin / 2: no rebuild
  EXPECT_FALSE(s.updateNeighbors(space));
  EXPECT_EQ(s.rebuilds(), builds);
  std::vector<int> const refreshed = images();
  long long wrong = 0, shifted = 0;
  for (std::size_t k = 0; k < built.size(); ++k) {
    wrong += built[k] == 99 || refreshed[k] != built[k];
    shifted += built[k] != 0;
  }
  EXPECT_EQ(wrong, 0) << "ghost coordinates that are not their owner's, shifted as at the "
                      << "build, on rank " << eddy::test::worldRank();
  EXPECT_TRUE(eddy::test::allRanks(ghosts > 0 && shifted > 0)) << "too few ghosts to be a test";
}

TYPED_TEST(Neighbor, GhostRefreshGivesTheOwnersPositions) {
  checkGhostRefresh<TypeParam>();
}

/// Long run at high temperature: many migrations; the global count and id set stay exact and
/// every particle lies in its owner's box after each rebuild.
template <class Exec>
void checkMigrationRun(int steps) {
  Exec space;
  auto p = smallSystem(true, ListKind::Half, 5);
  p.temperature = 3.0;
  p.skin = 0.2;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  long long lastBuilds = s.rebuilds();
  int checked = 0;
  for (int k = 0; k < steps; ++k) {
    s.step(space);
    if (s.rebuilds() == lastBuilds) continue;
    lastBuilds = s.rebuilds();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().positions());
    auto const& dom = s.domain();
    bool inside = true;
    for (int i = 0; i < s.owned(); ++i)
      for (int d = 0; d < 3; ++d) inside = inside && x(i, d) >= dom.lo[d] && x(i, d) < dom.hi[d];
    ASSERT_TRUE(eddy::test::allRanks(inside)) << "step " << k;
    if (++checked % 20 == 0) {
      auto const all = eddy::test::gatherParticles(s);
      ASSERT_EQ(static_cast<std::int64_t>(all.size()), s.atoms());
      for (std::size_t i = 0; i < all.size(); ++i)
        ASSERT_EQ(all[i].id, static_cast<std::int64_t>(i) + 1) << "step " << k;
    }
  }
  auto const all = eddy::test::gatherParticles(s);
  ASSERT_EQ(static_cast<std::int64_t>(all.size()), s.atoms());
  for (std::size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(all[i].id, static_cast<std::int64_t>(i) + 1);
  EXPECT_GT(s.rebuilds(), 20);
}

TYPED_TEST(Neighbor, MigrationKeepsCountAndIdsOverALongRun) {
  checkMigrationRun<TypeParam>(3000);
}

}  // namespace
