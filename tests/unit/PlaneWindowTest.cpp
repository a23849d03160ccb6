// Unit tests of forEachCellWindow (PlaneWindow.hpp), for every enabled backend: every iteration
// (the backend's choice, and the plane-streaming one with several tiles, depths and runs of planes
// per team) hands f every entry of every field within one of each cell of the box, and visits
// no other cell.
#include "EddyTest.hpp"

#include "eddy/core/PlaneWindow.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using eddy::CartDecomposition;
using eddy::Field;
using eddy::WindowField;

template <class Exec>
class PlaneWindowTest : public ::testing::Test {};
TYPED_TEST_SUITE(PlaneWindowTest, eddy::test::ExecSpaces);

constexpr int kFields = 3;
constexpr std::uint64_t kUnvisited = 0xdeadbeefULL;

/// A hash of the window of a cell and of its index, in integer arithmetic (the same bits on
/// every backend): each entry (a multiple of 2^-20 below 1) as an integer, times an odd weight
/// of its own field and offset. A wrong, missing or misplaced entry changes it.
KOKKOS_INLINE_FUNCTION std::uint64_t entryWeight(int f, int dx, int dy, int dz) {
  auto const n = static_cast<std::uint64_t>(((f * 3 + dz + 1) * 3 + dy + 1) * 3 + dx + 1);
  return (2 * n + 1) * 0x9E3779B97F4A7C15ULL;
}

template <class Window>
KOKKOS_INLINE_FUNCTION std::uint64_t windowHash(int i, int j, int k, Window const& w, bool withZ) {
  std::uint64_t h = static_cast<std::uint64_t>(i + 1000 * j + 1000000 * k);
  for (int f = 0; f < kFields; ++f)
    for (int dz = withZ ? -1 : 0; dz <= (withZ ? 1 : 0); ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          auto const v = static_cast<std::uint64_t>(w(f, dx, dy, dz) * 0x1p20) + 1;
          h += v * entryWeight(f, dx, dy, dz);
        }
  return h;
}

template <class Mem>
using HashView = Kokkos::View<std::uint64_t***, Kokkos::LayoutLeft, Mem>;

/// Writes the hash of each visited cell into `out`, which covers the box with one more entry on
/// every side (offset by `lo` - 1).
template <class Mem>
struct Hashing {
  HashView<Mem> out;
  int o0, o1, o2;  ///< the entry at out(0, 0, 0)
  bool withZ;
  template <class Window>
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, Window const& w) const {
    out(i - o0, j - o1, k - o2) = windowHash(i, j, k, w, withZ);
  }
};

using HostField = Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace>;

/// The host copy of a field and its ghost widths, read as the window reads it.
struct HostWindow {
  HostField const* h;
  int const (*g)[3];  ///< the ghost widths of each field
  int i, j, k;
  KOKKOS_INLINE_FUNCTION double operator()(int f, int dx, int dy, int dz) const {
    return h[f](i + dx + g[f][0], j + dy + g[f][1], k + dz + g[f][2]);
  }
};

template <int X, int Y, int Depth>
struct Tile {
  static constexpr int x = X, y = Y, depth = Depth;
};

std::string boxName(std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
  return eddy::str("box [", lo[0], ",", lo[1], ",", lo[2], ") .. [", hi[0], ",", hi[1], ",", hi[2],
                   ")");
}

/// Fields of `cells` with the ghost widths `ghosts` (different widths give different strides),
/// filled with random multiples of 2^-20, ghosts included; every way of the pass over each box
/// must give every cell of the box its hash and leave the entries around the box unvisited.
template <class Exec>
void checkEveryWay(Exec const& space, CartDecomposition const& d,
                   std::array<int, kFields> const& ghosts,
                   std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> const& boxes) {
  using Mem = typename Exec::memory_space;
  using A = std::array<int, 3>;
  bool const withZ = d.dims() == 3;
  std::vector<Field<Mem>> fields;
  HostField host[kFields];
  int g[kFields][3];
  std::array<WindowField, kFields> in;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dist(0, (1 << 20) - 1);
  fields.reserve(kFields);
  for (int f = 0; f < kFields; ++f) {
    fields.emplace_back(space, eddy::str("eddy::test::window", f), d, ghosts[f]);
    host[f] = Kokkos::create_mirror_view(Kokkos::HostSpace(), fields[f].view());
    for (std::size_t e = 0; e < host[f].span(); ++e) host[f].data()[e] = dist(rng) * 0x1p-20;
    Kokkos::deep_copy(fields[f].view(), host[f]);
    for (int a = 0; a < 3; ++a) g[f][a] = fields[f].ghosts()[a];
    in[f] = WindowField::of(fields[f].access());
  }
  for (auto const& box : boxes) {
    A const lo = box.first, hi = box.second;
    A const origin{lo[0] - 1, lo[1] - 1, lo[2] - 1};
    HashView<Mem> out("eddy::test::windowHash", hi[0] - lo[0] + 2, hi[1] - lo[1] + 2,
                      hi[2] - lo[2] + 2);
    Hashing<Mem> const hashing{out, origin[0], origin[1], origin[2], withZ};
    struct Run {
      std::string what;
      std::function<void()> pass;
    };
    auto planes = [&](auto tile, int run) {
      using T = decltype(tile);
      return [=] {
        eddy::forEachCellWindowPlanes<T::x, T::y, T::depth>("eddy::test::window", space, in, lo, hi,
                                                            run, hashing);
      };
    };
    std::vector<Run> runs = {
        {"forEachCellWindow",
         [&] {
           eddy::forEachCellWindow<kFields>("eddy::test::window", space, in, withZ, lo, hi,
                                            hashing);
         }},
    };
    if (withZ) {
      runs.push_back({"planes 8x4, depth 1, run by the pass", planes(Tile<8, 4, 1>{}, 0)});
      runs.push_back({"planes 8x4, depth 2, runs of 1", planes(Tile<8, 4, 2>{}, 1)});
      runs.push_back({"planes 4x2, depth 3, runs of 3", planes(Tile<4, 2, 3>{}, 3)});
      runs.push_back({"planes 1x1, depth 2, runs of 2", planes(Tile<1, 1, 2>{}, 2)});
      runs.push_back({"planes 1x4, depth 1, runs of 5", planes(Tile<1, 4, 1>{}, 5)});
      runs.push_back(
          {"planes of forEachCellWindow's shape, runs of 2",
           planes(Tile<eddy::kWindowTileX, eddy::kWindowTileY, eddy::kWindowDepth>{}, 2)});
    }
    for (auto const& r : runs) {
      Kokkos::deep_copy(out, kUnvisited);
      r.pass();
      space.fence();
      auto const o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      long long wrong = 0;
      for (int k = 0; k < static_cast<int>(o.extent(2)); ++k)
        for (int j = 0; j < static_cast<int>(o.extent(1)); ++j)
          for (int i = 0; i < static_cast<int>(o.extent(0)); ++i) {
            int const gi = i + origin[0], gj = j + origin[1], gk = k + origin[2];
            bool const inBox =
                gi >= lo[0] && gi < hi[0] && gj >= lo[1] && gj < hi[1] && gk >= lo[2] && gk < hi[2];
            std::uint64_t const expected =
                inBox ? windowHash(gi, gj, gk, HostWindow{host, g, gi, gj, gk}, withZ) : kUnvisited;
            wrong += o(i, j, k) != expected;
          }
      EXPECT_EQ(wrong, 0) << r.what << ", " << boxName(lo, hi);
    }
  }
}

TYPED_TEST(PlaneWindowTest, EveryIterationGivesEachCellOfTheBoxItsWindow) {
  using Exec = TypeParam;
  Exec const space;
  // Extents that are not multiples of any tile; ghost widths 1 and 2 (different strides).
  CartDecomposition const d({37, 11, 9}, 3, {true, true, true}, 1, 0);
  checkEveryWay(space, d, {1, 2, 1},
                {{{0, 0, 0}, {37, 11, 9}},
                 {{3, 2, 1}, {30, 10, 8}},
                 {{0, 0, 4}, {37, 11, 5}},
                 {{1, 1, 1}, {37, 11, 9}},
                 {{5, 3, 2}, {6, 4, 3}}});
}

TYPED_TEST(PlaneWindowTest, A2DFieldGetsTheWindowOfItsPlane) {
  using Exec = TypeParam;
  Exec const space;
  CartDecomposition const d({41, 13, 1}, 2, {true, true, false}, 1, 0);
  checkEveryWay(space, d, {1, 1, 2}, {{{0, 0, 0}, {41, 13, 1}}, {{1, 2, 0}, {40, 12, 1}}});
}

}  // namespace
