// Unit tests of the split of a box around its inner part (BoxSplit.hpp) and of the reproducible
// sum built from several launches (ReproducibleAccumulator.hpp), for every enabled backend: the
// parts cover each entry once, and a sum split into parts is bitwise the one-launch sum.
#include "EddyTest.hpp"

#include "eddy/core/BoxSplit.hpp"
#include "eddy/core/ReproducibleAccumulator.hpp"
#include "eddy/core/ReproducibleSum.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using eddy::Box3;
using eddy::BoxSplit;

template <class Exec>
class BoxSplitTest : public ::testing::Test {};
TYPED_TEST_SUITE(BoxSplitTest, eddy::test::ExecSpaces);

/// (box, safe) pairs: inner part strictly inside, touching a side, empty, the whole box, 2D.
std::vector<std::pair<Box3, Box3>> splitCases() {
  return {
      {Box3{{0, 0, 0}, {7, 6, 5}}, Box3{{1, 1, 1}, {6, 5, 4}}},
      {Box3{{1, 0, 0}, {7, 6, 5}}, Box3{{1, 1, 1}, {6, 5, 4}}},
      {Box3{{0, 0, 0}, {7, 2, 5}}, Box3{{1, 1, 1}, {6, 1, 4}}},
      {Box3{{-1, -2, 0}, {4, 3, 2}}, Box3{{-5, -5, -5}, {9, 9, 9}}},
      {Box3{{0, 0, 0}, {9, 4, 1}}, Box3{{1, 1, 0}, {8, 3, 1}}},
      {Box3{{0, 0, 0}, {9, 4, 1}}, Box3{{0, 0, 0}, {8, 3, 1}}},
  };
}

TEST(BoxSplit, CoversEveryEntryOnce) {
  for (auto const& boxAndSafe : splitCases()) {
    Box3 const& box = boxAndSafe.first;  // not a structured binding: the lambda captures it
    Box3 const& safe = boxAndSafe.second;
    BoxSplit const s = BoxSplit::of(box, safe);
    EXPECT_LE(s.shell.size(), 6u);
    std::vector<int> hits(static_cast<std::size_t>(box.size()), 0);
    auto mark = [&](Box3 const& b) {
      for (int k = b.lo[2]; k < b.hi[2]; ++k)
        for (int j = b.lo[1]; j < b.hi[1]; ++j)
          for (int i = b.lo[0]; i < b.hi[0]; ++i) {
            ASSERT_TRUE(i >= box.lo[0] && i < box.hi[0] && j >= box.lo[1] && j < box.hi[1] &&
                        k >= box.lo[2] && k < box.hi[2]);
            ++hits[(i - box.lo[0]) +
                   box.extent(0) * ((j - box.lo[1]) + box.extent(1) * (k - box.lo[2]))];
          }
    };
    mark(s.inner);
    for (Box3 const& b : s.shell) {
      EXPECT_GT(b.size(), 0);
      mark(b);
    }
    for (int h : hits) EXPECT_EQ(h, 1);
    for (int a = 0; a < 3; ++a)  // the inner part lies in the safe box
      if (s.inner.size() > 0) {
        EXPECT_GE(s.inner.lo[a], safe.lo[a]);
        EXPECT_LE(s.inner.hi[a], safe.hi[a]);
      }
  }
}

// Only the axes with a peer face are cut, `away` entries from that face, ghosts out; the
// other faces keep the box's own extent, ghosts included.
TEST(BoxSplit, AwayFromPeerFacesCutsOnlyPeerFaces) {
  Box3 const box{{-2, -2, -2}, {10, 8, 6}};  // 8 x 6 x 4 owned, two ghost layers
  std::array<std::array<bool, 2>, 3> const peers{{{true, false}, {false, true}, {false, false}}};
  for (int away : {0, 1, 2}) {
    BoxSplit const s = BoxSplit::awayFromPeerFaces(box, {8, 6, 4}, peers, away);
    EXPECT_EQ(s.inner.lo, (std::array<int, 3>{away, -2, -2})) << "away " << away;
    EXPECT_EQ(s.inner.hi, (std::array<int, 3>{10, 6 - away, 6})) << "away " << away;
    long long shell = 0;
    for (Box3 const& b : s.shell) shell += b.size();
    EXPECT_EQ(shell + s.inner.size(), box.size()) << "away " << away;
  }
}

TEST(BoxSplit, SlabTilesKeepTheThreadCount) {
  using T = std::array<int, 3>;
  EXPECT_EQ(eddy::slabTile(T{32, 4, 2}, Box3{{0, 0, 0}, {1, 128, 128}}), (T{1, 128, 2}));
  EXPECT_EQ(eddy::slabTile(T{32, 4, 2}, Box3{{5, 127, 0}, {133, 128, 128}}), (T{128, 1, 2}));
  EXPECT_EQ(eddy::slabTile(T{32, 4, 2}, Box3{{0, 0, 7}, {128, 128, 8}}), (T{64, 4, 1}));
  EXPECT_EQ(eddy::slabTile(T{32, 4, 2}, Box3{{0, 0, 0}, {128, 128, 128}}), (T{32, 4, 2}));
  EXPECT_EQ(eddy::slabTile(T{32, 4, 2}, Box3{{0, 0, 0}, {3, 1, 1}}), (T{3, 1, 1}));
  EXPECT_EQ(eddy::slabTile(T{0, 0, 0}, Box3{{0, 0, 0}, {1, 128, 128}}), (T{0, 0, 0}));
}

// Kernels live in free functions: CUDA forbids extended lambdas inside a test's private body.
template <class Exec>
Kokkos::View<int***, Kokkos::LayoutLeft, Kokkos::HostSpace> shellHits(BoxSplit const& s) {
  Exec space;
  Kokkos::View<int***, Kokkos::LayoutLeft, typename Exec::memory_space> hits(
      "eddy::test::hits", s.whole.hi[0], s.whole.hi[1], s.whole.hi[2]);
  for (Box3 const& b : s.shell)
    eddy::forEachSlabCell(
        "eddy::test::slab", space, b, KOKKOS_LAMBDA(int i, int j, int k) { hits(i, j, k) += 1; });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hits);
}

TYPED_TEST(BoxSplitTest, SlabPoliciesCoverTheShell) {
  Box3 const box{{0, 0, 0}, {37, 6, 5}};
  auto const h = shellHits<TypeParam>(BoxSplit::of(box, Box3{{1, 1, 1}, {36, 5, 4}}));
  for (int k = 0; k < 5; ++k)
    for (int j = 0; j < 6; ++j)
      for (int i = 0; i < 37; ++i) {
        bool const inner = i >= 1 && i < 36 && j >= 1 && j < 5 && k >= 1 && k < 4;
        EXPECT_EQ(h(i, j, k), inner ? 0 : 1) << i << " " << j << " " << k;
      }
}

/// The ways grid kernels visit the cells of a box.
enum class Visit { Cells, Streaming, Columns };

char const* visitName(Visit v) {
  return v == Visit::Cells ? "forEachCell"
                           : (v == Visit::Streaming ? "forEachCellStreaming" : "forEachCellColumn");
}

/// How often `visit` visits each entry of a 40 x 9 x 20 array for the box [lo, hi), with the
/// array's origin at (-3, -1, -2).
template <class Exec>
Kokkos::View<int***, Kokkos::LayoutLeft, Kokkos::HostSpace> boxHits(std::array<int, 3> lo,
                                                                    std::array<int, 3> hi,
                                                                    Visit visit) {
  Exec space;
  Kokkos::View<int***, Kokkos::LayoutLeft, typename Exec::memory_space> hits("eddy::test::hits", 40,
                                                                             9, 20);
  auto const hit = KOKKOS_LAMBDA(int i, int j, int k) {
    Kokkos::atomic_add(&hits(i + 3, j + 1, k + 2), 1);
  };
  if (visit == Visit::Streaming)
    eddy::forEachCellStreaming("eddy::test::boxHits", space, lo, hi, hit);
  else if (visit == Visit::Columns)
    eddy::forEachCellColumn("eddy::test::boxHits", space, lo, hi, hit);
  else
    eddy::forEachCell("eddy::test::boxHits", space, lo, hi, hit);
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hits);
}

TYPED_TEST(BoxSplitTest, ForEachCellStreamingAndColumnVisitEveryCellOfTheBoxOnce) {
  using A = std::array<int, 3>;
  // Row counts that are and are not multiples of the rows per item, z extents that are and are
  // not multiples of the cells per column (kColumnCells), one-cell boxes and thin slabs along
  // each axis, negative corners, a 2D box, and boxes inverted along an axis (empty).
  static_assert(eddy::kColumnCells == 8, "the z extents below are chosen around 8 and 16");
  std::vector<std::pair<A, A>> const boxes = {
      {{0, 0, 0}, {37, 8, 5}},    {{-3, -1, -2}, {37, 8, 5}}, {{5, 2, 1}, {6, 3, 2}},
      {{0, 0, 0}, {1, 8, 5}},     {{0, 0, 0}, {37, 1, 5}},    {{0, 0, 0}, {37, 8, 1}},
      {{-3, 3, 0}, {20, 6, 1}},   {{4, 0, 0}, {2, 8, 5}},     {{0, 0, 3}, {37, 8, 3}},
      {{-1, -1, -2}, {36, 7, 4}}, {{0, 0, -2}, {33, 8, 15}},  {{-3, -1, -2}, {37, 8, 18}},
      {{2, 1, 1}, {35, 7, 9}},    {{0, 0, 0}, {37, 8, 16}},   {{5, 2, 3}, {6, 3, 12}}};
  for (auto const& [lo, hi] : boxes)
    for (Visit const visit : {Visit::Cells, Visit::Streaming, Visit::Columns}) {
      auto const h = boxHits<TypeParam>(lo, hi, visit);
      int wrong = 0;
      for (int k = -2; k < 18; ++k)
        for (int j = -1; j < 8; ++j)
          for (int i = -3; i < 37; ++i) {
            bool const in =
                i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
            wrong += h(i + 3, j + 1, k + 2) != (in ? 1 : 0);
          }
      EXPECT_EQ(wrong, 0) << visitName(visit) << ", box [" << lo[0] << "," << lo[1] << "," << lo[2]
                          << ") .. [" << hi[0] << "," << hi[1] << "," << hi[2] << ")";
    }
}

/// Counts the visits of z = lo2 .. lo2 + n - 1 at (4, 5) in hits, and every other visit.
struct ZHits {
  int* hits;
  int* outside;
  int lo2, n;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    if (i != 4 || j != 5 || k < lo2 || k >= lo2 + n)
      ++*outside;
    else
      ++hits[k - lo2];
  }
};

/// The columns of forEachCellColumn on GPUs, run here on the host: every z of the range once.
TEST(CellColumns, VisitEveryZOfTheirRangeOnce) {
  for (int lo2 : {-2, 0, 3})
    for (int n = 1; n <= 3 * eddy::kColumnCells + 1; ++n) {
      std::vector<int> hits(n, 0);
      int outside = 0;
      eddy::CellColumns<ZHits> const columns{ZHits{hits.data(), &outside, lo2, n}, lo2, lo2 + n};
      for (int c = 0; c < columns.columns(); ++c) columns(4, 5, c);
      EXPECT_EQ(outside, 0) << "z from " << lo2 << ", " << n << " cells";
      EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), n) << "z from " << lo2 << ", " << n;
    }
}

/// Terms of a View over the box [lo, hi).
template <class View>
struct BoxTerms {
  View v;
  int lo0, lo1, lo2;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    return v(i - lo0, j - lo1, k - lo2);
  }
};

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TYPED_TEST(BoxSplitTest, AccumulatorOverPartsIsTheOneLaunchSum) {
  using Exec = TypeParam;
  Exec space;
  Box3 const box{{-1, 0, 2}, {30, 17, 11}};
  using View = Kokkos::View<double***, Kokkos::LayoutLeft, typename Exec::memory_space>;
  View v("eddy::test::terms", box.extent(0), box.extent(1), box.extent(2));
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> expo(-60, 60);
  // Wide exponents and heavy cancellation: a rounded sum per part would differ.
  for (std::size_t t = 0; t < h.span(); ++t)
    h.data()[t] = std::ldexp(mant(rng), expo(rng)) + (t % 2 ? 1e17 : -1e17);
  Kokkos::deep_copy(v, h);
  BoxTerms<View> const terms{v, box.lo[0], box.lo[1], box.lo[2]};

  double const whole = eddy::reproducibleSum(space, MPI_COMM_SELF, box.lo, box.hi, terms);
  BoxSplit const s = BoxSplit::of(box, Box3{{2, 1, 3}, {25, 15, 9}});
  std::vector<Box3> shell = s.shell;

  eddy::ReproducibleAccumulator parts;
  parts.add(space, s.inner.lo, s.inner.hi, terms);
  parts.add(space, shell, terms);
  EXPECT_TRUE(sameBits(parts.finish(MPI_COMM_SELF), whole));
  // The other order, and every box in one launch.
  parts.add(space, shell, terms);
  parts.add(space, s.inner.lo, s.inner.hi, terms);
  EXPECT_TRUE(sameBits(parts.finish(MPI_COMM_SELF), whole));
  shell.push_back(s.inner);
  parts.add(space, shell, terms);
  EXPECT_TRUE(sameBits(parts.finish(MPI_COMM_SELF), whole));
  EXPECT_TRUE(std::isfinite(whole));

  // Special values in one part only, and infinities of both signs in two parts.
  double const inf = std::numeric_limits<double>::infinity();
  auto setTerm = [&](Box3 const& b, double x) {
    h(b.lo[0] - box.lo[0], b.lo[1] - box.lo[1], b.lo[2] - box.lo[2]) = x;
    Kokkos::deep_copy(v, h);
  };
  setTerm(s.shell.front(), inf);
  parts.add(space, s.inner.lo, s.inner.hi, terms);
  parts.add(space, s.shell, terms);
  EXPECT_EQ(parts.finish(MPI_COMM_SELF), inf);
  setTerm(s.inner, -inf);
  parts.add(space, s.inner.lo, s.inner.hi, terms);
  parts.add(space, s.shell, terms);
  EXPECT_TRUE(std::isnan(parts.finish(MPI_COMM_SELF)));
  EXPECT_TRUE(std::isnan(eddy::reproducibleSum(space, MPI_COMM_SELF, box.lo, box.hi, terms)));
}

}  // namespace
