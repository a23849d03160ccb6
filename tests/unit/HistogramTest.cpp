// Unit tests of eddy::Histogram on one rank, for every enabled backend: exact totals, the
// global-atomic and privatised fills agree bin for bin, out-of-range samples land in the under-
// and overflow slots, weights sum correctly, and counts match a host reference.
#include "EddyTest.hpp"

#include "eddy/core/Histogram.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace {

using eddy::BinGrid;
using eddy::Histogram;
using eddy::HistogramCount;
using eddy::HistogramMethod;

/// A hash-based sample in about [-0.25, 1.25): some below 0, some at or above 1, skewed so that
/// a few bins are heavily contended.
KOKKOS_INLINE_FUNCTION double sampleValue(std::int64_t i) {
  std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  double const u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
  return (i % 4 == 0) ? 0.5 : 1.5 * u - 0.25;  // a quarter of the samples hit one bin
}

struct HashSample {
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return sampleValue(i); }
};

/// Two weighted samples per index: value with weight 0.5, and value / 2 with weight 0.25
/// (binary fractions: every partial sum is exact in double, so weights compare exactly too).
struct WeightedPairs {
  template <class Add>
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, Add const& add) const {
    double const x = sampleValue(i);
    add(x, 0.5);
    add(0.5 * x, 0.25);
  }
};

/// Samples that are NaN or at the exact range edges.
struct EdgeSample {
  double lo, hi, nan;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    switch (i % 4) {
      case 0:
        return lo;  // first bin
      case 1:
        return hi;  // overflow (bins are half-open)
      case 2:
        return nan;  // overflow
      default:
        return lo - 1.0;  // underflow
    }
  }
};

template <class Exec>
std::vector<HistogramCount> fillCounts(std::int64_t n, int bins, HistogramMethod method) {
  Exec space;
  Histogram<typename Exec::memory_space> h(space, "eddy::test::histogram", bins, 0.0, 1.0);
  h.fill(space, n, eddy::sampleSource(HashSample{}), method);
  return h.globalCounts(space, MPI_COMM_SELF);
}

template <class Exec>
class HistogramTest : public ::testing::Test {};
TYPED_TEST_SUITE(HistogramTest, eddy::test::ExecSpaces);

TYPED_TEST(HistogramTest, TotalsEqualSampleCountExactly) {
  std::int64_t const n = (std::int64_t(1) << 20) + 12345;
  for (auto method : {HistogramMethod::GlobalAtomic, HistogramMethod::Privatized}) {
    for (int bins : {1, 7, 1024, 5000}) {
      auto const c = fillCounts<TypeParam>(n, bins, method);
      ASSERT_EQ(c.size(), static_cast<std::size_t>(bins + 2));
      HistogramCount const total = std::accumulate(c.begin(), c.end(), HistogramCount(0));
      EXPECT_EQ(total, static_cast<HistogramCount>(n)) << bins << " bins";
      EXPECT_GT(c.front(), 0u) << "no underflow: the samples do not test it";
      EXPECT_GT(c.back(), 0u) << "no overflow: the samples do not test it";
    }
  }
}

TYPED_TEST(HistogramTest, PrivatizedEqualsGlobalAtomicAndHostReference) {
  std::int64_t const n = 300001;
  for (int bins : {3, 64, 1024, 4094}) {
    auto const global = fillCounts<TypeParam>(n, bins, HistogramMethod::GlobalAtomic);
    auto const priv = fillCounts<TypeParam>(n, bins, HistogramMethod::Privatized);
    auto const autoPick = fillCounts<TypeParam>(n, bins, HistogramMethod::Auto);
    EXPECT_EQ(global, priv) << bins << " bins";
    EXPECT_EQ(global, autoPick) << bins << " bins";
    BinGrid g;
    g.bins = bins;
    g.invWidth = bins;
    std::vector<HistogramCount> ref(bins + 2, 0);
    for (std::int64_t i = 0; i < n; ++i) ++ref[g.slot(sampleValue(i))];
    EXPECT_EQ(global, ref) << bins << " bins";
  }
}

TYPED_TEST(HistogramTest, AutoPicksPrivatizedWhenBinsFitInScratch) {
  TypeParam space;
  using Mem = typename TypeParam::memory_space;
  EXPECT_EQ(Histogram<Mem>(space, "eddy::test::small", 1024, 0, 1).autoMethod(),
            HistogramMethod::Privatized);
  EXPECT_EQ(Histogram<Mem>(space, "eddy::test::weighted", 1024, 0, 1, true).autoMethod(),
            HistogramMethod::Privatized);
  EXPECT_EQ(Histogram<Mem>(space, "eddy::test::large", 100000, 0, 1).autoMethod(),
            HistogramMethod::GlobalAtomic);
}

TYPED_TEST(HistogramTest, OutOfRangeAndNaNGoToUnderflowAndOverflow) {
  TypeParam space;
  for (auto method : {HistogramMethod::GlobalAtomic, HistogramMethod::Privatized}) {
    Histogram<typename TypeParam::memory_space> h(space, "eddy::test::edges", 10, -2.0, 3.0);
    h.fill(space, 4000,
           eddy::sampleSource(EdgeSample{-2.0, 3.0, std::numeric_limits<double>::quiet_NaN()}),
           method);
    auto const c = h.globalCounts(space, MPI_COMM_SELF);
    EXPECT_EQ(c[0], 1000u);   // below lo
    EXPECT_EQ(c[1], 1000u);   // exactly lo: first bin
    EXPECT_EQ(c[11], 2000u);  // exactly hi and NaN
    for (int b = 2; b <= 10; ++b) EXPECT_EQ(c[b], 0u) << "bin " << b;
  }
}

TYPED_TEST(HistogramTest, WeightedSumsMatchAndResetClears) {
  TypeParam space;
  std::int64_t const n = 100000;
  using H = Histogram<typename TypeParam::memory_space>;
  H a(space, "eddy::test::weightedGlobal", 50, 0.0, 1.0, true);
  H b(space, "eddy::test::weightedPrivate", 50, 0.0, 1.0, true);
  a.fill(space, n, WeightedPairs{}, HistogramMethod::GlobalAtomic);
  b.fill(space, n, WeightedPairs{}, HistogramMethod::Privatized);
  auto const ca = a.globalCounts(space, MPI_COMM_SELF), cb = b.globalCounts(space, MPI_COMM_SELF);
  auto const wa = a.globalWeights(space, MPI_COMM_SELF);
  auto const wb = b.globalWeights(space, MPI_COMM_SELF);
  EXPECT_EQ(ca, cb);
  EXPECT_EQ(std::accumulate(ca.begin(), ca.end(), HistogramCount(0)), 2u * n);
  EXPECT_EQ(std::accumulate(wa.begin(), wa.end(), 0.0), 0.75 * n);
  for (std::size_t s = 0; s < wa.size(); ++s) EXPECT_EQ(wa[s], wb[s]) << "slot " << s;
  a.reset(space);
  auto const cleared = a.globalCounts(space, MPI_COMM_SELF);
  EXPECT_EQ(std::accumulate(cleared.begin(), cleared.end(), HistogramCount(0)), 0u);
}

TEST(HistogramErrors, BadBinsOrRangeNameTheHistogram) {
  using H = Histogram<eddy::MemSpace>;
  try {
    H("eddy::test::bad", 0, 0.0, 1.0);
    FAIL() << "expected a ConfigError";
  } catch (eddy::ConfigError const& e) {
    EXPECT_NE(std::string(e.what()).find("eddy::test::bad"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("0 bins"), std::string::npos);
  }
  EXPECT_THROW(H("eddy::test::bad", 4, 1.0, 1.0), eddy::ConfigError);
  EXPECT_THROW(H("nolabel", 4, 0.0, 1.0), eddy::ConfigError);
}

}  // namespace
