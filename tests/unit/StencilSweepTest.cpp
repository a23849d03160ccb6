// Unit tests of sweepSevenPoint (StencilSweep.hpp), for every enabled backend: every iteration
// (the backend's choice, and the plane-streaming one with several tiles, depths and runs of planes
// per team) hands f the right neighbours of every cell of the box, and writes no other cell.
#include "EddyTest.hpp"

#include "eddy/core/StencilSweep.hpp"

#include <array>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using eddy::CartDecomposition;
using eddy::Field;
using eddy::Neighbours7;

template <class Exec>
class StencilSweepTest : public ::testing::Test {};
TYPED_TEST_SUITE(StencilSweepTest, eddy::test::ExecSpaces);

/// A map that tells every neighbour and the cell index apart. Its weights are powers of two and
/// the inputs are multiples of 2^-20 below 2^10, so every product is exact and every partial sum
/// fits 53 bits: the result is the same bits with or without fused multiply-adds, on any backend.
struct Tagged {
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k, Neighbours7 const& u) const {
    return u.c + 2 * u.xm + 4 * u.xp + 8 * u.ym + 16 * u.yp + 32 * u.zm + 64 * u.zp +
           0.5 * (i + 64 * j + 4096 * k);
  }
};

constexpr double kUnwritten = -12345.0;

using HostField = Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace>;

/// Random multiples of 2^-20 in [0, 1) in every entry of `in`, ghosts included; kUnwritten in
/// every entry of `out`. Returns the host copy of `in`.
template <class Mem, class Out>
HostField fill(Field<Mem>& in, Field<Mem, Out>& out, unsigned seed) {
  auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), in.view());
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, (1 << 20) - 1);
  for (std::size_t e = 0; e < h.span(); ++e) h.data()[e] = d(rng) * 0x1p-20;
  Kokkos::deep_copy(in.view(), h);
  Kokkos::deep_copy(out.view(), kUnwritten);
  return h;
}

/// Compares `out` with Tagged over the box [lo, hi) computed on the host from `h` (the input),
/// rounded to out's type, and kUnwritten everywhere else, ghosts included. Returns the number of
/// wrong entries.
template <class Mem, class Out>
long long wrongEntries(Field<Mem, Out> const& out, HostField const& h, std::array<int, 3> const& g,
                       std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
  auto const o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.view());
  auto in = [&](int i, int j, int k) {
    return h(i + g[0], j + g[1], k + g[2]);
  };
  bool const withZ = g[2] > 0;
  long long wrong = 0;
  for (int k = -g[2]; k < static_cast<int>(o.extent(2)) - g[2]; ++k)
    for (int j = -g[1]; j < static_cast<int>(o.extent(1)) - g[1]; ++j)
      for (int i = -g[0]; i < static_cast<int>(o.extent(0)) - g[0]; ++i) {
        double expected = kUnwritten;
        if (i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2]) {
          double const c = in(i, j, k);
          Neighbours7 const u{c,
                              in(i - 1, j, k),
                              in(i + 1, j, k),
                              in(i, j - 1, k),
                              in(i, j + 1, k),
                              withZ ? in(i, j, k - 1) : c,
                              withZ ? in(i, j, k + 1) : c};
          expected = static_cast<Out>(Tagged{}(i, j, k, u));
        }
        wrong += o(i + g[0], j + g[1], k + g[2]) != expected;
      }
  return wrong;
}

/// A plane sweep of Tagged over [lo, hi): tile TX x TY, Depth planes in flight, a cell or
/// (Pairs) two cells a thread, runs of `run` planes per team (0: the sweep's choice).
template <int TX, int TY, int Depth, bool Pairs = false, class Exec, class Mem>
std::function<void()> planes(Exec const& space, Field<Mem> const& in, Field<Mem> const& out,
                             std::array<int, 3> const& lo, std::array<int, 3> const& hi, int run) {
  return [=, &in, &out] {
    eddy::sweepSevenPointPlanes<TX, TY, Depth, Pairs>("eddy::test::sweep", space, in.access(),
                                                      out.access(), lo, hi, run, Tagged{});
  };
}

std::string boxName(std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
  return eddy::str("box [", lo[0], ",", lo[1], ",", lo[2], ") .. [", hi[0], ",", hi[1], ",", hi[2],
                   ")");
}

TYPED_TEST(StencilSweepTest, EveryIterationGivesEachCellOfTheBoxItsNeighbours) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  using A = std::array<int, 3>;
  Exec space;
  struct Case {
    eddy::Index3 cells;
    int ghost;
    std::vector<std::pair<A, A>> boxes;
  };
  // Extents that are not multiples of any tile, ghost widths 1 and 2; and a field whose rows
  // start on 16 bytes alike (pairs of cells).
  std::vector<Case> const cases = {
      {{37, 11, 9},
       1,
       {{{0, 0, 0}, {37, 11, 9}}, {{3, 2, 1}, {30, 10, 8}}, {{0, 0, 4}, {37, 11, 5}}}},
      {{37, 11, 9}, 2, {{{0, 0, 0}, {37, 11, 9}}, {{3, 2, 1}, {30, 10, 8}}}},
      {{38, 11, 9},
       1,
       {{{0, 0, 0}, {32, 11, 9}},
        {{0, 1, 2}, {32, 10, 7}},
        {{1, 1, 1}, {33, 10, 8}},
        {{4, 1, 1}, {5, 10, 8}},
        {{3, 0, 0}, {4, 11, 9}}}},
  };
  for (auto const& cs : cases) {
    int const ghost = cs.ghost;
    CartDecomposition const d(cs.cells, 3, {true, true, true}, 1, 0);
    Field<Mem> in(space, "eddy::test::sweepIn", d, ghost);
    Field<Mem> out(space, "eddy::test::sweepOut", d, ghost);
    A const g{ghost, ghost, ghost};
    // Rows of 40 entries (38 cells, one ghost on each side) take pairs: from lo0 + 1 at even lo0
    // (cell lo0 then computed alone) and from lo0 at odd lo0; rows of 39 do not, and asking for
    // pairs there is an error.
    if (cs.cells[0] == 38) {
      EXPECT_EQ(eddy::detail::planePairShift(out.access(), 0), 1);
      EXPECT_EQ(eddy::detail::planePairShift(out.access(), 1), 0);
    } else if (ghost == 1) {
      EXPECT_EQ(eddy::detail::planePairShift(out.access(), 0), -1);
      EXPECT_THROW((eddy::sweepSevenPointPlanes<2, 1, 2, true>("eddy::test::sweep", space,
                                                               in.access(), out.access(), {0, 0, 0},
                                                               {4, 4, 4}, 2, Tagged{})),
                   eddy::Error);
    }
    for (auto const& box : cs.boxes) {
      // Not a structured binding: the lambdas below capture the corners.
      A const lo = box.first, hi = box.second;
      struct Run {
        std::string what;
        std::function<void()> sweep;
      };
      std::vector<Run> runs = {
          {"sweepSevenPoint",
           [&] {
             eddy::sweepSevenPoint("eddy::test::sweep", space, in, out, lo, hi, Tagged{});
           }},
          {"planes 8x4, depth 1, run by the sweep", planes<8, 4, 1>(space, in, out, lo, hi, 0)},
          {"planes 8x4, depth 2, runs of 1", planes<8, 4, 2>(space, in, out, lo, hi, 1)},
          {"planes 8x4, depth 2, runs of 4", planes<8, 4, 2>(space, in, out, lo, hi, 4)},
          {"planes 4x2, depth 3, runs of 3", planes<4, 2, 3>(space, in, out, lo, hi, 3)},
          {"planes 32x8, depth 4, one run", planes<32, 8, 4>(space, in, out, lo, hi, 100)},
          {"planes 1x1 (a thread per cell on any backend), depth 2, runs of 3",
           planes<1, 1, 2>(space, in, out, lo, hi, 3)},
          {"planes 1x4, depth 1, runs of 5", planes<1, 4, 1>(space, in, out, lo, hi, 5)},
      };
      bool const pairs = eddy::detail::planePairShift(out.access(), lo[0]) >= 0;
      // sweepSevenPoint's own shape, with short runs, where it uses it (its scratch may not fit
      // the teams of host backends).
      if (eddy::GridTuning<Exec>::kPlaneSweeps) {
        runs.push_back({"planes of sweepSevenPoint's shape, runs of 2",
                        planes<eddy::kSweepTileX, eddy::kSweepTileY, eddy::kSweepDepth>(
                            space, in, out, lo, hi, 2)});
        if (pairs)
          runs.push_back({"planes of sweepSevenPoint's shape in pairs, runs of 2",
                          planes<eddy::kSweepTileX, eddy::kSweepTileY, eddy::kSweepDepth, true>(
                              space, in, out, lo, hi, 2)});
      }
      // Pairs of cells adjacent in x, where the rows of the output allow them (a tile of 2 x 1
      // runs them on a host backend's one-thread teams too).
      if (pairs) {
        runs.push_back({"planes 2x1 in pairs, depth 2, runs of 3",
                        planes<2, 1, 2, true>(space, in, out, lo, hi, 3)});
        runs.push_back({"planes 8x4 in pairs, depth 3, runs of 4",
                        planes<8, 4, 3, true>(space, in, out, lo, hi, 4)});
      }
      unsigned seed = 7;
      for (auto const& r : runs) {
        auto const h = fill(in, out, ++seed);
        r.sweep();
        space.fence();
        EXPECT_EQ(wrongEntries(out, h, g, lo, hi), 0)
            << r.what << ", ghost " << ghost << ", " << boxName(lo, hi);
      }
    }
  }
}

// Into a float field: f's values rounded as they are stored, by pairs of cells (8-byte stores,
// from lo0 or lo0 + 1 as the rows' alignment asks) and a cell at a time.
TYPED_TEST(StencilSweepTest, PlanesWriteAFloatFieldRoundedAsStored) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  using A = std::array<int, 3>;
  Exec space;
  CartDecomposition const d({38, 11, 9}, 3, {true, true, true}, 1, 0);
  Field<Mem> in(space, "eddy::test::sweepIn", d, 1);
  Field<Mem, float> out(space, "eddy::test::sweepOut32", d, 1);
  A const g{1, 1, 1};
  for (auto const& box :
       std::vector<std::pair<A, A>>{{{0, 0, 0}, {38, 11, 9}}, {{1, 1, 1}, {33, 10, 8}}}) {
    A const lo = box.first, hi = box.second;
    ASSERT_GE(eddy::detail::planePairShift(out.access(), lo[0]), 0);
    // A tile of 2 x 1 takes pairs on a host backend's one-thread teams too.
    auto h = fill(in, out, 5);
    eddy::sweepSevenPointPlanes<2, 1, 2, true>("eddy::test::sweep", space, in.access(),
                                               out.access(), lo, hi, 3, Tagged{});
    space.fence();
    EXPECT_EQ(wrongEntries(out, h, g, lo, hi), 0) << "pairs 2x1, " << boxName(lo, hi);
    h = fill(in, out, 7);
    eddy::sweepSevenPointPlanes<8, 4, 2, true>("eddy::test::sweep", space, in.access(),
                                               out.access(), lo, hi, 3, Tagged{});
    space.fence();
    EXPECT_EQ(wrongEntries(out, h, g, lo, hi), 0) << "pairs 8x4, " << boxName(lo, hi);
    h = fill(in, out, 6);
    eddy::sweepSevenPoint("eddy::test::sweep", space, in.access(), out.access(), true, lo, hi,
                          Tagged{});
    space.fence();
    EXPECT_EQ(wrongEntries(out, h, g, lo, hi), 0) << "sweepSevenPoint, " << boxName(lo, hi);
  }
}

TYPED_TEST(StencilSweepTest, A2DFieldGetsItsCentreForTheZNeighbours) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  Exec space;
  CartDecomposition const d({41, 13, 1}, 2, {true, true, false}, 1, 0);
  Field<Mem> in(space, "eddy::test::sweepIn", d, 1);
  Field<Mem> out(space, "eddy::test::sweepOut", d, 1);
  ASSERT_EQ(in.ghosts()[2], 0);
  std::array<int, 3> const lo{1, 0, 0}, hi{40, 13, 1};
  auto const h = fill(in, out, 3);
  eddy::sweepSevenPoint("eddy::test::sweep", space, in, out, lo, hi, Tagged{});
  space.fence();
  EXPECT_EQ(wrongEntries(out, h, {1, 1, 0}, lo, hi), 0);
}

TYPED_TEST(StencilSweepTest, RefusesToWriteTheFieldItReads) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  Exec space;
  CartDecomposition const d({8, 8, 8}, 3, {true, true, true}, 1, 0);
  Field<Mem> f(space, "eddy::test::sweepSame", d, 1);
  try {
    eddy::sweepSevenPoint("eddy::test::sweep", space, f, f, {0, 0, 0}, {8, 8, 8}, Tagged{});
    FAIL() << "expected an error";
  } catch (eddy::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("eddy::test::sweepSame"), std::string::npos) << e.what();
  }
}

}  // namespace
