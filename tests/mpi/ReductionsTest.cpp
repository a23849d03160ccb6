// Global reductions across ranks (registered at 1, 2, 3 and 4 ranks): sum/max/min/minloc/maxloc
// and several maxima in one pass against values known analytically, and the reproducible sum, which
// must give the bitwise same double for every rank count and every way of distributing the terms.
#include "EddyTest.hpp"

#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

/// This rank's contiguous slice [begin, end) of n items when rank r gets a share r + 1 (uneven).
std::pair<std::int64_t, std::int64_t> unevenSlice(std::int64_t n, int rank, int size) {
  std::int64_t const total = std::int64_t(size) * (size + 1) / 2;
  std::int64_t const before = std::int64_t(rank) * (rank + 1) / 2;
  return {n * before / total, n * (before + rank + 1) / total};
}

/// The rank that owns global item g under unevenSlice.
int ownerOf(std::int64_t g, std::int64_t n, int size) {
  for (int r = 0; r < size; ++r)
    if (g < unevenSlice(n, r, size).second) return r;
  return size - 1;
}

/// Global array of pseudo-random values spanning 1e-30..1e30 with both signs and exact
/// cancelling pairs; the same on every rank.
std::vector<double> globalValues(std::size_t n) {
  std::mt19937_64 gen(20240607);
  std::uniform_real_distribution<double> expo(-30.0, 30.0);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    double const v = std::pow(10.0, expo(gen));
    x[i] = (gen() & 1u) ? v : -v;
    if (i % 101 == 7) x[i] = -x[i - 1];
  }
  return x;
}

/// Independent high-precision reference: Neumaier-compensated long double sum in order of
/// increasing magnitude.
double referenceSum(std::vector<double> x) {
  std::sort(x.begin(), x.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  long double s = 0.0L, c = 0.0L;
  for (double v : x) {
    long double const t = s + v;
    c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
    s = t;
  }
  return static_cast<double>(s + c);
}

std::int64_t ulpDistance(double a, double b) {
  if (a == b) return 0;
  auto key = [](double v) {
    std::int64_t i = 0;
    std::memcpy(&i, &v, sizeof v);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
  };
  std::int64_t const d = key(a) - key(b);
  return d < 0 ? -d : d;
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Term functors (device-callable). Slice of the formula arrays a(g) = g + 1, b(g) = (g-317)^2.
struct LinearTerm {
  std::int64_t offset;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    return static_cast<double>(offset + i + 1);
  }
};
struct ParabolaTerm {
  std::int64_t offset;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    double const d = static_cast<double>(offset + i - 317);
    return d * d;
  }
};
struct GlobalId {
  std::int64_t offset;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return offset + i; }
};
/// Box term over a slab decomposition in x: value gx + 10 j + 100 k at interior (i, j, k).
template <class View>
struct SlabTerm {
  View f;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const { return f(i, j, k); }
};
struct SlabId {
  int x0, nx, ny;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(int i, int j, int k) const {
    return (x0 + i - 1) + std::int64_t(nx) * ((j - 1) + std::int64_t(ny) * (k - 1));
  }
};
template <class View>
struct OffsetTerm {
  View all;
  std::int64_t offset;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return all(offset + i); }
};

/// This rank's slab [x0, x0 + nx) along x of a field of ny x nz rows with one ghost layer:
/// gx + 10 j + 100 k at interior (i, j, k), 1e6 in the ghosts (which no box reduction may see).
template <class Exec>
Kokkos::View<double***, typename Exec::memory_space> slabField(int ny, int nz, int x0, int nx) {
  Kokkos::View<double***, typename Exec::memory_space> f("eddy::test::reductions::field", nx + 2,
                                                         ny + 2, nz + 2);
  auto h = Kokkos::create_mirror_view(f);
  for (int i = 0; i < nx + 2; ++i)
    for (int j = 0; j < ny + 2; ++j)
      for (int k = 0; k < nz + 2; ++k) {
        bool const ghost = i == 0 || j == 0 || k == 0 || i > nx || j > ny || k > nz;
        h(i, j, k) = ghost ? 1e6 : static_cast<double>(x0 + i - 1) + 10.0 * j + 100.0 * k;
      }
  Kokkos::deep_copy(f, h);
  return f;
}

template <class Exec>
class Reductions : public ::testing::Test {
 public:
  using DeviceVector = Kokkos::View<double*, typename Exec::memory_space>;
  static DeviceVector toDevice(std::vector<double> const& h) {
    DeviceVector v("eddy::test::reductions::values", h.size());
    auto m = Kokkos::create_mirror_view(v);
    for (std::size_t i = 0; i < h.size(); ++i) m(i) = h[i];
    Kokkos::deep_copy(v, m);
    return v;
  }
};
TYPED_TEST_SUITE(Reductions, eddy::test::ExecSpaces);

TYPED_TEST(Reductions, SumMaxMinOfFormulaArrays) {
  using Exec = TypeParam;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = eddy::test::worldRank(), size = eddy::test::worldSize();
  std::int64_t const n = 1000;
  auto const [begin, end] = unevenSlice(n, rank, size);
  std::int64_t const local = end - begin;

  EXPECT_EQ(eddy::globalSum(Exec(), comm, local, LinearTerm{begin}), 500500.0);
  EXPECT_EQ(eddy::globalMax(Exec(), comm, local, LinearTerm{begin}), 1000.0);
  EXPECT_EQ(eddy::globalMin(Exec(), comm, local, LinearTerm{begin}), 1.0);
  EXPECT_EQ(eddy::globalMin(Exec(), comm, local, ParabolaTerm{begin}), 0.0);

  eddy::ValueLocation const mx =
      eddy::globalMaxLoc(Exec(), comm, local, LinearTerm{begin}, GlobalId{begin});
  EXPECT_EQ(mx.value, 1000.0);
  EXPECT_EQ(mx.index, 999);
  EXPECT_EQ(mx.rank, ownerOf(999, n, size));
  eddy::ValueLocation const mn =
      eddy::globalMinLoc(Exec(), comm, local, ParabolaTerm{begin}, GlobalId{begin});
  EXPECT_EQ(mn.value, 0.0);
  EXPECT_EQ(mn.index, 317);
  EXPECT_EQ(mn.rank, ownerOf(317, n, size));
  // Without an index functor the local index is reported.
  eddy::ValueLocation const mnLocal = eddy::globalMinLoc(Exec(), comm, local, ParabolaTerm{begin});
  EXPECT_EQ(mnLocal.index, 317 - unevenSlice(n, mn.rank, size).first);

  // View forms: the slice itself.
  std::vector<double> slice(static_cast<std::size_t>(local));
  for (std::int64_t i = 0; i < local; ++i) slice[i] = static_cast<double>(begin + i + 1);
  auto v = this->toDevice(slice);
  EXPECT_EQ(eddy::globalSum(Exec(), comm, v), 500500.0);
  EXPECT_EQ(eddy::globalMax(Exec(), comm, v), 1000.0);
  EXPECT_EQ(eddy::globalMin(Exec(), comm, v), 1.0);
  EXPECT_EQ(eddy::globalMaxLoc(Exec(), comm, v).rank, size - 1);
  EXPECT_EQ(eddy::globalMinLoc(Exec(), comm, v).index, 0);
}

TYPED_TEST(Reductions, BoxReductionsSkipGhosts) {
  using Exec = TypeParam;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = eddy::test::worldRank(), size = eddy::test::worldSize();
  int const NX = 23, ny = 5, nz = 4;
  auto const [x0, x1] = unevenSlice(NX, rank, size);
  int const nx = static_cast<int>(x1 - x0);
  auto const f = slabField<Exec>(ny, nz, static_cast<int>(x0), nx);
  std::array<int, 3> const lo{1, 1, 1}, hi{nx + 1, ny + 1, nz + 1};
  SlabTerm<decltype(f)> const term{f};
  // Sum over gx in [0,NX), j in [1,ny], k in [1,nz] of gx + 10 j + 100 k.
  double const expected = ny * nz * (NX * (NX - 1) / 2.0) + NX * nz * 10.0 * (ny * (ny + 1) / 2) +
                          NX * ny * 100.0 * (nz * (nz + 1) / 2);
  EXPECT_EQ(eddy::globalSum(Exec(), comm, lo, hi, term), expected);
  EXPECT_EQ(eddy::globalMax(Exec(), comm, lo, hi, term), (NX - 1) + 10.0 * ny + 100.0 * nz);
  EXPECT_EQ(eddy::globalMin(Exec(), comm, lo, hi, term), 110.0);
  SlabId const id{static_cast<int>(x0), NX, ny};
  eddy::ValueLocation const mx = eddy::globalMaxLoc(Exec(), comm, lo, hi, term, id);
  EXPECT_EQ(mx.rank, size - 1);
  EXPECT_EQ(mx.index, (NX - 1) + std::int64_t(NX) * ((ny - 1) + ny * (nz - 1)));
  eddy::ValueLocation const mn = eddy::globalMinLoc(Exec(), comm, lo, hi, term);
  EXPECT_EQ(mn.value, 110.0);
  EXPECT_EQ(mn.rank, 0);
  EXPECT_EQ(mn.index, 0);
  EXPECT_EQ(eddy::reproducibleSum(Exec(), comm, lo, hi, term), expected);
}

// Several maxima in one pass: each quantity's own largest value over the interior, NaN left out,
// -Inf for a quantity without any value, whatever the rank count.
template <class View>
struct ThreeMaxima {
  View f;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, eddy::Maxima<3>& m) const {
    double const v = f(i, j, k);
    m.include(0, v);
    m.include(1, -v);
    if (j == 2)
      m.include(2,
                k == 1 ? eddy::math::fromBits(0x7FF8000000000000ull) : 2.0 * v);  // a NaN: left out
  }
};
template <class View>
struct NoSecond {
  View f;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, eddy::Maxima<2>& m) const {
    m.include(0, f(i, j, k));
  }
};
TYPED_TEST(Reductions, MaximaOfSeveralQuantitiesInOnePass) {
  using Exec = TypeParam;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = eddy::test::worldRank(), size = eddy::test::worldSize();
  int const NX = 23, ny = 5, nz = 4;
  auto const [x0, x1] = unevenSlice(NX, rank, size);
  int const nx = static_cast<int>(x1 - x0);
  auto const f = slabField<Exec>(ny, nz, static_cast<int>(x0), nx);
  std::array<int, 3> const lo{1, 1, 1}, hi{nx + 1, ny + 1, nz + 1};
  auto const m = eddy::globalMaxima<3>(Exec(), comm, lo, hi, ThreeMaxima<decltype(f)>{f});
  EXPECT_EQ(m[0], (NX - 1) + 10.0 * ny + 100.0 * nz);
  EXPECT_EQ(m[1], -110.0);
  EXPECT_EQ(m[2], 2.0 * ((NX - 1) + 20.0 + 100.0 * nz));
  auto const two = eddy::globalMaxima<2>(Exec(), comm, lo, hi, NoSecond<decltype(f)>{f});
  EXPECT_EQ(two[0], m[0]);
  EXPECT_EQ(two[1], -std::numeric_limits<double>::infinity());
}

TYPED_TEST(Reductions, LocationTiesGoToLowestRankThenIndex) {
  using Exec = TypeParam;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = eddy::test::worldRank(), size = eddy::test::worldSize();
  // Every rank holds the same values: the extremum occurs twice on every rank.
  auto v = this->toDevice({2.0, -5.0, 7.0, -5.0, 7.0});
  eddy::ValueLocation const mn = eddy::globalMinLoc(Exec(), comm, v);
  EXPECT_EQ(mn.value, -5.0);
  EXPECT_EQ(mn.rank, 0);
  EXPECT_EQ(mn.index, 1);
  eddy::ValueLocation const mx = eddy::globalMaxLoc(Exec(), comm, v);
  EXPECT_EQ(mx.value, 7.0);
  EXPECT_EQ(mx.rank, 0);
  EXPECT_EQ(mx.index, 2);
  // Rank 0 holds nothing: the next rank wins.
  auto w = this->toDevice(rank == 0 ? std::vector<double>{} : std::vector<double>{3.0, 3.0});
  eddy::ValueLocation const m2 = eddy::globalMinLoc(Exec(), comm, w);
  EXPECT_EQ(m2.rank, size > 1 ? 1 : -1);
  EXPECT_EQ(m2.index, size > 1 ? 0 : -1);
  // NaN terms are ignored; no terms at all give -Inf / +Inf and rank -1.
  double const nan = std::numeric_limits<double>::quiet_NaN();
  auto z = this->toDevice({nan});
  EXPECT_EQ(eddy::globalMax(Exec(), comm, z), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(eddy::globalMin(Exec(), comm, z), std::numeric_limits<double>::infinity());
  EXPECT_EQ(eddy::globalMinLoc(Exec(), comm, z).rank, -1);
  auto y =
      this->toDevice(rank == size - 1 ? std::vector<double>{nan, -1.0} : std::vector<double>{nan});
  eddy::ValueLocation const m3 = eddy::globalMaxLoc(Exec(), comm, y);
  EXPECT_EQ(m3.value, -1.0);
  EXPECT_EQ(m3.rank, size - 1);
  EXPECT_EQ(m3.index, 1);
}

TYPED_TEST(Reductions, ReproducibleSumIsIndependentOfDistribution) {
  using Exec = TypeParam;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = eddy::test::worldRank(), size = eddy::test::worldSize();
  std::size_t const n = 100003;
  std::vector<double> const all = globalValues(n);

  // Every rank computes the whole sum alone: the value each distribution must reproduce.
  auto allDevice = this->toDevice(all);
  double const self = eddy::reproducibleSum(Exec(), MPI_COMM_SELF, allDevice);
  double const ref = referenceSum(all);
  EXPECT_LE(ulpDistance(self, ref), 1) << self << " vs reference " << ref;

  // A: uneven contiguous slices.
  auto const [begin, end] = unevenSlice(static_cast<std::int64_t>(n), rank, size);
  std::vector<double> a(all.begin() + begin, all.begin() + end);
  double const sumA = eddy::reproducibleSum(Exec(), comm, this->toDevice(a));
  EXPECT_TRUE(sameBits(sumA, self)) << sumA << " vs " << self;
  // The same slices through a functor reading the global array.
  double const sumF = eddy::reproducibleSum(Exec(), comm, end - begin,
                                            OffsetTerm<decltype(allDevice)>{allDevice, begin});
  EXPECT_TRUE(sameBits(sumF, self)) << sumF << " vs " << self;

  // B: a global shuffle dealt round-robin, each rank's share reversed.
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::size_t(0));
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(99));
  std::vector<double> b;
  for (std::size_t i = static_cast<std::size_t>(rank); i < n; i += static_cast<std::size_t>(size))
    b.push_back(all[perm[i]]);
  std::reverse(b.begin(), b.end());
  double const sumB = eddy::reproducibleSum(Exec(), comm, this->toDevice(b));
  EXPECT_TRUE(sameBits(sumB, self)) << sumB << " vs " << self;

  // C: everything on the last rank, the others empty.
  std::vector<double> c = rank == size - 1 ? all : std::vector<double>{};
  double const sumC = eddy::reproducibleSum(Exec(), comm, this->toDevice(c));
  EXPECT_TRUE(sameBits(sumC, self)) << sumC << " vs " << self;

  // Dot product of the shuffled share with itself equals the whole array's.
  auto bDevice = this->toDevice(b);
  double const dot = eddy::reproducibleDot(Exec(), comm, bDevice, bDevice);
  double const dotSelf = eddy::reproducibleDot(Exec(), MPI_COMM_SELF, allDevice, allDevice);
  EXPECT_TRUE(sameBits(dot, dotSelf)) << dot << " vs " << dotSelf;

  // The fast sum agrees to rounding.
  double const fast = eddy::globalSum(Exec(), comm, this->toDevice(a));
  double sumAbs = 0.0;
  for (double x : all) sumAbs += std::fabs(x);
  EXPECT_NEAR(fast, ref, 1e-12 * sumAbs);

  // Every rank got the same bits.
  double mn = 0.0, mx = 0.0;
  MPI_Allreduce(&sumB, &mn, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&sumB, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
  EXPECT_TRUE(sameBits(mn, mx));
}

TYPED_TEST(Reductions, ReproducibleSpecialValuesAgreeOnEveryRank) {
  using Exec = TypeParam;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = eddy::test::worldRank(), size = eddy::test::worldSize();
  double const inf = std::numeric_limits<double>::infinity();
  // One rank holds +Inf, another (or the same) -Inf: NaN everywhere.
  auto p = this->toDevice(rank == 0 ? std::vector<double>{1.0, inf} : std::vector<double>{2.0});
  EXPECT_EQ(eddy::reproducibleSum(Exec(), comm, p), inf);
  auto q = this->toDevice(rank == size - 1 ? std::vector<double>{-inf} : std::vector<double>{});
  EXPECT_EQ(eddy::reproducibleSum(Exec(), comm, q), -inf);
  std::vector<double> both{3.0};
  if (rank == 0) both.push_back(inf);
  if (rank == size - 1) both.push_back(-inf);
  EXPECT_TRUE(std::isnan(eddy::reproducibleSum(Exec(), comm, this->toDevice(both))));
  // Nothing anywhere is +0.0.
  EXPECT_EQ(eddy::reproducibleSum(Exec(), comm, this->toDevice({})), 0.0);
}

}  // namespace
