// CartDecomposition without MPI: every rank's view is built in this one process and checked for
// coverage, balance, the optimal process grid, neighbour symmetry and the errors it must raise.
#include "EddyTest.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"

#include <limits>
#include <string>
#include <vector>

namespace {

using eddy::CartDecomposition;
using eddy::Index3;
using eddy::Periodic3;

struct Box {
  Index3 cells;
  int dims;
};

std::vector<Box> boxes() {
  return {{{17, 13, 11}, 3}, {{16, 16, 16}, 3}, {{7, 5, 3}, 3},  {{100, 3, 2}, 3}, {{1, 1, 40}, 3},
          {{12, 12, 1}, 2},  {{17, 13, 1}, 2},  {{31, 2, 1}, 2}, {{5, 101, 0}, 2}};
}

std::vector<int> rankCounts() {
  return {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 24};
}

/// Every decomposition of every rank of `nranks`, or empty when no grid fits the box.
std::vector<CartDecomposition> allRanks(Box const& b, Periodic3 per, int nranks,
                                        Index3 forced = {0, 0, 0}) {
  std::vector<CartDecomposition> all;
  for (int r = 0; r < nranks; ++r) all.emplace_back(b.cells, b.dims, per, nranks, r, forced);
  return all;
}

/// The minimum interior surface over every feasible grid, found by brute force.
std::int64_t bestSurface(Box const& b, int nranks) {
  Index3 const n{b.cells[0], b.cells[1], b.dims == 2 ? 1 : b.cells[2]};
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  for (int px = 1; px <= nranks; ++px)
    for (int py = 1; py <= nranks; ++py)
      for (int pz = 1; pz <= (b.dims == 2 ? 1 : nranks); ++pz) {
        if (px * py * pz != nranks || px > n[0] || py > n[1] || pz > n[2]) continue;
        std::int64_t const s = 1LL * (px - 1) * n[1] * n[2] + 1LL * (py - 1) * n[0] * n[2] +
                               1LL * (pz - 1) * n[0] * n[1];
        best = std::min(best, s);
      }
  return best;
}

TEST(Decomposition, EveryCellOwnedByExactlyOneRankAndBalanced) {
  for (Box const& b : boxes())
    for (int nranks : rankCounts()) {
      SCOPED_TRACE(eddy::str(b.dims, "D ", eddy::toString(b.cells), " over ", nranks));
      if (bestSurface(b, nranks) == std::numeric_limits<std::int64_t>::max()) {
        // No grid gives every rank a cell (e.g. 17 ranks on 16x16x16): that is an error.
        EXPECT_THROW(CartDecomposition::chooseProcGrid(b.cells, b.dims, nranks), eddy::ConfigError);
        continue;
      }
      auto const all = allRanks(b, {false, false, false}, nranks);
      Index3 const grid = all[0].procGrid();
      EXPECT_EQ(1LL * grid[0] * grid[1] * grid[2], nranks);
      Index3 const n = all[0].globalCells();
      if (b.dims == 2) {
        EXPECT_EQ(n[2], 1);
        EXPECT_EQ(grid[2], 1);
      }
      std::vector<int> owners(static_cast<std::size_t>(n[0]) * n[1] * n[2], 0);
      Index3 minExt{n}, maxExt{0, 0, 0};
      for (auto const& d : all) {
        EXPECT_EQ(d.procGrid(), grid) << "every rank must choose the same grid";
        EXPECT_EQ(d.rankOf(d.coords()), d.rank());
        EXPECT_EQ(d.coordsOf(d.rank()), d.coords());
        EXPECT_EQ(d.localCellsOf(d.rank()), d.localCells());
        EXPECT_EQ(d.offsetOf(d.rank()), d.offset());
        EXPECT_EQ(d.rank(), d.coords()[0] + grid[0] * (d.coords()[1] + grid[1] * d.coords()[2]));
        for (int a = 0; a < 3; ++a) {
          EXPECT_GE(d.localCells()[a], 1);
          minExt[a] = std::min(minExt[a], d.localCells()[a]);
          maxExt[a] = std::max(maxExt[a], d.localCells()[a]);
          // The first n % p coordinates get the extra cell.
          int const extra = d.coords()[a] < n[a] % grid[a] ? 1 : 0;
          EXPECT_EQ(d.localCells()[a], n[a] / grid[a] + extra);
        }
        Index3 const o = d.offset(), e = d.localCells();
        for (int k = o[2]; k < o[2] + e[2]; ++k)
          for (int j = o[1]; j < o[1] + e[1]; ++j)
            for (int i = o[0]; i < o[0] + e[0]; ++i) {
              ASSERT_TRUE(i >= 0 && i < n[0] && j >= 0 && j < n[1] && k >= 0 && k < n[2])
                  << "rank " << d.rank() << " owns cell outside the box";
              ++owners[(static_cast<std::size_t>(k) * n[1] + j) * n[0] + i];
            }
      }
      for (int a = 0; a < 3; ++a) EXPECT_LE(maxExt[a] - minExt[a], 1) << "axis " << a;
      std::size_t bad = 0;
      for (int c : owners) bad += c != 1;
      EXPECT_EQ(bad, 0u) << "cells owned by zero or several ranks";
      EXPECT_EQ(CartDecomposition::interiorSurface(n, grid), bestSurface(b, nranks));
    }
}

TEST(Decomposition, UnevenSplitGivesFirstRanksTheExtraCell) {
  // 17 over 5: 4 4 3 3 3 at offsets 0 4 8 11 14.
  int const counts[] = {4, 4, 3, 3, 3}, offsets[] = {0, 4, 8, 11, 14};
  for (int c = 0; c < 5; ++c) {
    EXPECT_EQ(CartDecomposition::splitCount(17, 5, c), counts[c]);
    EXPECT_EQ(CartDecomposition::splitOffset(17, 5, c), offsets[c]);
  }
  CartDecomposition const d({17, 13, 11}, 3, {false, false, false}, 5, 3, {5, 1, 1});
  EXPECT_EQ(d.localCells(), (Index3{3, 13, 11}));
  EXPECT_EQ(d.offset(), (Index3{11, 0, 0}));
}

TEST(Decomposition, ChoosesMinimalSurfaceWithDeterministicTies) {
  // (px-1)*ny + (py-1)*nx: 3x2 costs 140, 2x3 160, 6x1 200.
  EXPECT_EQ(CartDecomposition::chooseProcGrid({60, 40, 1}, 2, 6), (Index3{3, 2, 1}));
  EXPECT_EQ(CartDecomposition::chooseProcGrid({64, 64, 1}, 2, 4), (Index3{2, 2, 1}));
  // A cube over 12 ranks: 3x2x2, 2x3x2 and 2x2x3 tie; the fewest ranks along x, then y, win.
  EXPECT_EQ(CartDecomposition::chooseProcGrid({100, 100, 100}, 3, 12), (Index3{2, 2, 3}));
  EXPECT_EQ(CartDecomposition::chooseProcGrid({100, 100, 100}, 3, 8), (Index3{2, 2, 2}));
  // A prime count goes along the axis with the smallest cross-section.
  EXPECT_EQ(CartDecomposition::chooseProcGrid({17, 13, 11}, 3, 7), (Index3{7, 1, 1}));
  // Every rank needs a cell: 5 ranks cannot split 4 cells in x.
  EXPECT_EQ(CartDecomposition::chooseProcGrid({4, 100, 1}, 2, 5), (Index3{1, 5, 1}));
  EXPECT_EQ(CartDecomposition::chooseProcGrid({1, 1, 40}, 3, 6), (Index3{1, 1, 6}));
  // Partly forced grid: y fixed at 2, the rest chosen.
  EXPECT_EQ(CartDecomposition::chooseProcGrid({60, 60, 60}, 3, 8, {0, 2, 0}), (Index3{2, 2, 2}));
  EXPECT_EQ(CartDecomposition::chooseProcGrid({60, 60, 60}, 3, 8, {0, 8, 0}), (Index3{1, 8, 1}));
}

TEST(Decomposition, NeighborsAreSymmetricAndWrapPeriodicAxes) {
  std::vector<Periodic3> const periodicities = {
      {false, false, false}, {true, true, true}, {true, false, true}, {false, true, false}};
  for (Box const& b : boxes())
    for (int nranks : {1, 2, 3, 4, 5, 6, 8, 12}) {
      if (bestSurface(b, nranks) == std::numeric_limits<std::int64_t>::max()) continue;
      for (Periodic3 const& per : periodicities) {
        SCOPED_TRACE(eddy::str(b.dims, "D ", eddy::toString(b.cells), " over ", nranks,
                               " periodic ", per[0], per[1], per[2]));
        auto const all = allRanks(b, per, nranks);
        Index3 const grid = all[0].procGrid();
        for (auto const& d : all) {
          EXPECT_EQ(d.neighbor(0, 0, 0), d.rank());
          for (int a = 0; a < 3; ++a) {
            bool const periodic = a < b.dims && per[a];
            EXPECT_EQ(d.isPeriodic(a), periodic);
            EXPECT_EQ(d.isLowBoundary(a), a < b.dims && !periodic && d.coords()[a] == 0);
            EXPECT_EQ(d.isHighBoundary(a), a < b.dims && !periodic && d.coords()[a] == grid[a] - 1);
          }
          for (int di = 0; di < 27; ++di) {
            eddy::Direction const dir = eddy::directionFromIndex(di);
            ASSERT_EQ(eddy::directionIndex(dir), di);
            int const nb = d.neighbor(dir);
            // Expected: coordinates + dir, wrapped on periodic axes, else off the grid.
            Index3 c = d.coords();
            bool off = false;
            for (int a = 0; a < 3; ++a) {
              if (dir[a] == 0) continue;
              if (a >= b.dims) off = true;
              c[a] += dir[a];
              if (c[a] < 0 || c[a] >= grid[a]) {
                if (a < b.dims && per[a])
                  c[a] = (c[a] + grid[a]) % grid[a];
                else
                  off = true;
              }
            }
            if (off) {
              EXPECT_EQ(nb, MPI_PROC_NULL) << "rank " << d.rank() << " dir " << di;
              continue;
            }
            EXPECT_EQ(nb, d.rankOf(c)) << "rank " << d.rank() << " dir " << di;
            ASSERT_GE(nb, 0);
            ASSERT_LT(nb, nranks);
            EXPECT_EQ(all[nb].neighbor(-dir[0], -dir[1], -dir[2]), d.rank())
                << "rank " << d.rank() << " dir " << di << " neighbour " << nb;
          }
        }
      }
    }
}

TEST(Decomposition, TwoDimensionalHasNoZNeighbours) {
  CartDecomposition const d({12, 10, 1}, 2, {true, true, true}, 4, 1);
  EXPECT_EQ(d.dims(), 2);
  EXPECT_FALSE(d.isPeriodic(2));
  EXPECT_EQ(d.procGrid()[2], 1);
  EXPECT_EQ(d.localCells()[2], 1);
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy) {
      EXPECT_EQ(d.neighbor(dx, dy, 1), MPI_PROC_NULL);
      EXPECT_EQ(d.neighbor(dx, dy, -1), MPI_PROC_NULL);
      EXPECT_NE(d.neighbor(dx, dy, 0), MPI_PROC_NULL);  // x and y are periodic
    }
}

/// Expects `f` to throw eddy::ConfigError whose message contains every one of `parts`.
template <class F>
void expectConfigError(F&& f, std::vector<std::string> const& parts) {
  try {
    f();
    ADD_FAILURE() << "expected eddy::ConfigError";
  } catch (eddy::ConfigError const& e) {
    std::string const what = e.what();
    for (auto const& p : parts) EXPECT_NE(what.find(p), std::string::npos) << what;
    EXPECT_TRUE(e.collective());
  }
}

TEST(Decomposition, BadRequestsThrowConfigErrorNamingThem) {
  Periodic3 const np{false, false, false};
  // Product differs from the rank count.
  expectConfigError(
      [&] {
        CartDecomposition({17, 13, 11}, 3, np, 6, 0, {4, 2, 1});
      },
      {"4x2x1", "8 ranks", "6"});
  // A rank would own no cell along x.
  expectConfigError(
      [&] {
        CartDecomposition({5, 13, 11}, 3, np, 8, 0, {8, 1, 1});
      },
      {"8x1x1", "x", "5 cells"});
  // Splitting z of a 2D box.
  expectConfigError([&] { CartDecomposition({8, 8, 1}, 2, np, 4, 0, {2, 1, 2}); }, {"2x1x2", "2D"});
  // More ranks than cells.
  expectConfigError([&] { CartDecomposition({2, 2, 1}, 2, np, 5, 0); }, {"5 ranks", "2x2x1"});
  // A partly forced grid with no completion.
  expectConfigError(
      [&] {
        CartDecomposition({60, 60, 60}, 3, np, 6, 0, {4, 0, 0});
      },
      {"4x0x0", "6 ranks"});
  expectConfigError([&] { CartDecomposition({8, 8, 8}, 4, np, 1, 0); }, {"dims = 4"});
  expectConfigError([&] { CartDecomposition({8, 8, 3}, 2, np, 1, 0); }, {"8x8x3", "z"});
  expectConfigError([&] { CartDecomposition({8, 0, 8}, 3, np, 1, 0); }, {"8x0x8", "y"});
  expectConfigError([&] { CartDecomposition({8, 8, 8}, 3, np, 2, 2); }, {"rank 2"});
  expectConfigError([&] { CartDecomposition({8, 8, 8}, 3, np, 2, 0, {-1, 0, 0}); }, {"-1"});
  // A valid forced grid is taken as given.
  CartDecomposition const ok({17, 13, 11}, 3, np, 6, 5, {1, 3, 2});
  EXPECT_EQ(ok.procGrid(), (Index3{1, 3, 2}));
  EXPECT_EQ(ok.coords(), (Index3{0, 2, 1}));
}

}  // namespace
