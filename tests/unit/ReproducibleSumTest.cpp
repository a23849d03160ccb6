// Unit tests of eddy::reproducibleSum / reproducibleDot on one rank, for every enabled backend:
// results are compared with an independent exact reference, and with themselves under shuffling.
#include "EddyTest.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

/// Exact sum of doubles, independent of the implementation under test: a fixed-point integer
/// in units of 2^-1074 (the smallest subnormal) wide enough for any sum of up to 2^60 doubles,
/// built with frexp/ldexp rather than IEEE bit fields, rounded once at the end.
class ExactReference {
 public:
  void add(double x) {
    if (x == 0.0) return;
    int e = 0;
    double const m = std::frexp(std::fabs(x), &e);  // |x| = m 2^e, m in [0.5, 1)
    auto mant = static_cast<unsigned __int128>(std::ldexp(m, 53));
    int pos = e - 53 + 1074;  // bit position of mant's bit 0 in units of 2^-1074
    if (pos < 0) {            // subnormal x: the low bits of mant are zero
      mant >>= -pos;
      pos = 0;
    }
    unsigned __int128 const shifted = mant << (pos % 32);
    for (int d = 0; d < 3; ++d) {
      auto const chunk = static_cast<std::int64_t>((shifted >> (32 * d)) & 0xffffffffu);
      m_digit[pos / 32 + d] += x < 0 ? -chunk : chunk;
    }
  }

  /// The exact sum rounded to nearest even.
  double value() const {
    std::vector<std::int64_t> d = m_digit;
    for (std::size_t i = 0; i + 1 < d.size(); ++i) {  // carries; top digit keeps the sign
      std::int64_t const carry = (d[i] - (d[i] & 0xffffffff)) / (std::int64_t(1) << 32);
      d[i] &= 0xffffffff;
      d[i + 1] += carry;
    }
    bool const negative = d.back() < 0;
    if (negative) {  // magnitude of -(value): negate every digit and carry again
      for (auto& v : d) v = -v;
      for (std::size_t i = 0; i + 1 < d.size(); ++i) {
        std::int64_t const carry = (d[i] - (d[i] & 0xffffffff)) / (std::int64_t(1) << 32);
        d[i] &= 0xffffffff;
        d[i + 1] += carry;
      }
    }
    // Highest non-zero digit, then gather 96 bits below the top into an __int128 with sticky.
    int top = static_cast<int>(d.size()) - 1;
    while (top >= 0 && d[top] == 0) --top;
    if (top < 0) return 0.0;
    unsigned __int128 window = 0;
    bool sticky = false;
    int const low = std::max(0, top - 2);
    for (int i = top; i >= low; --i) window = (window << 32) | static_cast<std::uint64_t>(d[i]);
    for (int i = 0; i < low; ++i) sticky = sticky || d[i] != 0;
    int scale = 32 * low - 1074;  // value = (window + fraction) * 2^scale
    // Keep 53 bits (fewer when the result is subnormal), round half to even.
    int bits = 0;
    for (unsigned __int128 w = window; w != 0; w >>= 1) ++bits;
    int drop = bits - 53;
    if (scale + drop < -1074) drop = -1074 - scale;
    if (drop <= 0) return sign(negative, std::ldexp(static_cast<double>(window), scale));
    unsigned __int128 const kept = window >> drop;
    unsigned __int128 const rest = window - (kept << drop);
    unsigned __int128 const half = static_cast<unsigned __int128>(1) << (drop - 1);
    bool const up = rest > half || (rest == half && (sticky || (kept & 1) != 0));
    double const r = std::ldexp(static_cast<double>(kept + (up ? 1 : 0)), scale + drop);
    return sign(negative, r);
  }

 private:
  static double sign(bool negative, double r) { return negative ? -r : r; }
  std::vector<std::int64_t> m_digit = std::vector<std::int64_t>(72, 0);
};

double exactSum(std::vector<double> const& x) {
  ExactReference r;
  for (double v : x) r.add(v);
  return r.value();
}

/// Distance in units in the last place between two finite doubles of the same sign.
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

/// Values sign * 10^u, u uniform in [lo, hi], with exact duplicates and cancelling pairs.
std::vector<double> spreadValues(std::size_t n, double lo, double hi, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> expo(lo, hi);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    double const v = std::pow(10.0, expo(gen));
    x[i] = (gen() & 1u) ? v : -v;
    if (i % 97 == 5) x[i] = -x[i - 1];  // exact cancellation
  }
  return x;
}

/// The documented result of the one-pass sum, derived independently of the implementation
/// (frexp/ldexp, no IEEE bit fields): bins of 52 bits counted from 2^-1108, a term's top bin is
/// the one above the bin of its mantissa's lowest bit, T the largest top bin and
/// G = 52 (T-3) - 1108. Terms with top bin >= T-2 are kept, those with top bin T-3 are truncated
/// toward zero to a multiple of 2^G, lower ones dropped. `kept` holds what remains of each term,
/// `lost` the rest.
struct Truncation {
  std::vector<double> kept, lost;
  int maxExponent = 0;  ///< E with 2^(E-1) <= max|x| < 2^E
  int bottom = 0;       ///< G
};
Truncation truncateLikeTheWindow(std::vector<double> const& x) {
  auto topBin = [](double v) {
    int e = 0;
    (void)std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
    // Position of the mantissa's bit 0 over 2^-1108 (subnormals: 2^-1074).
    return (std::max(e + 1021, 0) + 34) / 52 + 1;
  };
  Truncation t;
  int top = 0;
  double maxAbs = 0.0;
  for (double v : x) {
    if (v == 0.0) continue;
    top = std::max(top, topBin(v));
    maxAbs = std::max(maxAbs, std::fabs(v));
  }
  (void)std::frexp(maxAbs, &t.maxExponent);
  int const g = 52 * (top - 3) - 1108;
  t.bottom = g;
  for (double v : x) {
    int const b = v == 0.0 ? top : topBin(v);
    double const k =
        b >= top - 2 ? v : (b == top - 3 ? std::ldexp(std::trunc(std::ldexp(v, -g)), g) : 0.0);
    t.kept.push_back(k);
    t.lost.push_back(v - k);  // exact: the bits of v below 2^g
  }
  return t;
}

/// Random doubles with a uniformly drawn exponent field (subnormals to 1.8e308) and sign.
std::vector<double> fullRangeValues(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<double> x(n);
  for (auto& v : x) {
    std::uint64_t const field = gen() % 2047;  // 0 (subnormal) .. 2046, never Inf/NaN
    std::uint64_t const bits = (gen() & 0x800fffffffffffffull) | (field << 52);
    std::memcpy(&v, &bits, sizeof v);
  }
  return x;
}

/// The stated error bound n * 2^(E-157) + 0.5 ulp(result), checked with exact arithmetic.
void expectWithinBound(std::vector<double> const& x, double result) {
  Truncation const t = truncateLikeTheWindow(x);
  std::vector<double> diff = x;
  diff.push_back(-result);
  double const err = std::fabs(exactSum(diff));  // exact - result, rounded once
  double const n = static_cast<double>(x.size());
  double const halfUlp = result == 0.0 ? 0.0 : std::ldexp(0.5, std::ilogb(result) - 52);
  EXPECT_LE(err, n * std::ldexp(1.0, t.maxExponent - 157) + halfUlp) << result;
}

template <class Exec>
class ReproducibleSum : public ::testing::Test {
 public:
  using Mem = typename Exec::memory_space;
  using DeviceVector = Kokkos::View<double*, Mem>;

  static DeviceVector toDevice(std::vector<double> const& h) {
    DeviceVector v("eddy::test::reproducibleSum::values", h.size());
    auto m = Kokkos::create_mirror_view(v);
    for (std::size_t i = 0; i < h.size(); ++i) m(i) = h[i];
    Kokkos::deep_copy(v, m);
    return v;
  }
  static double sum(std::vector<double> const& h) {
    return eddy::reproducibleSum(Exec(), MPI_COMM_SELF, toDevice(h));
  }
};
TYPED_TEST_SUITE(ReproducibleSum, eddy::test::ExecSpaces);

/// Term functor over a 3D View (box sums) and over a 1D View read backwards (functor sums).
/// An (nx + 2) x (ny + 2) x (nz + 2) field whose interior holds `interior` (k fastest) and whose
/// ghost layer holds NaN, so that a sum reading a ghost shows.
template <class Exec>
Kokkos::View<double***, typename Exec::memory_space> ghostedField(
    int nx, int ny, int nz, std::vector<double> const& interior) {
  Kokkos::View<double***, typename Exec::memory_space> f("eddy::test::reproducibleSum::field",
                                                         nx + 2, ny + 2, nz + 2);
  auto h = Kokkos::create_mirror_view(f);
  std::size_t c = 0;
  for (int i = 0; i < nx + 2; ++i)
    for (int j = 0; j < ny + 2; ++j)
      for (int k = 0; k < nz + 2; ++k) {
        bool const ghost = i == 0 || j == 0 || k == 0 || i > nx || j > ny || k > nz;
        h(i, j, k) = ghost ? std::numeric_limits<double>::quiet_NaN() : interior[c++];
      }
  Kokkos::deep_copy(f, h);
  return f;
}

template <class View>
struct BoxTerm {
  View f;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const { return f(i, j, k); }
};
template <class View>
struct ReversedTerm {
  View v;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return v(n - 1 - i); }
};

TYPED_TEST(ReproducibleSum, SmallExactSums) {
  std::vector<double> x(1000);
  for (int i = 0; i < 1000; ++i) x[i] = i + 1;
  EXPECT_EQ(this->sum(x), 500500.0);
  EXPECT_EQ(this->sum({1e16, 1.0, -1e16}), 1.0);
  EXPECT_EQ(this->sum({1.0, 1e30, 1.0, -1e30}), 2.0);
  // Documented limit: terms below 2^(E-128), E = exponent of max|x|, are truncated (here the
  // ones, against 1e100 < 2^333); the error stays within n * 2^(E-128).
  EXPECT_EQ(this->sum({1.0, 1e100, 1.0, -1e100}), 0.0);
  // No intermediate overflow: the fixed point has headroom above max|x|.
  EXPECT_EQ(this->sum({1e308, 1e308, -1e308}), 1e308);
  // A true overflow is the correctly rounded +Inf.
  double const big = std::numeric_limits<double>::max();
  EXPECT_EQ(this->sum({big, big}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(this->sum({-big, -big / 2, big / 4}), exactSum({-big, -big / 2, big / 4}));
}

TYPED_TEST(ReproducibleSum, RoundsOnceToNearestEven) {
  double const t = std::ldexp(1.0, -53);                                     // half an ulp of 1.0
  EXPECT_EQ(this->sum({1.0, t}), 1.0);                                       // tie: to even
  EXPECT_EQ(this->sum({1.0, t, std::ldexp(1.0, -100)}), 1.0 + 2 * t);        // just above tie
  EXPECT_EQ(this->sum({1.0 + 2 * t, t}), 1.0 + 4 * t);                       // tie: to even
  EXPECT_EQ(this->sum({-1.0, -t, -std::ldexp(1.0, -100)}), -(1.0 + 2 * t));  // negative
  // Naive left-to-right summation would give 0 here.
  EXPECT_EQ(this->sum({t, 1.0, t, -1.0}), 2 * t);
}

TYPED_TEST(ReproducibleSum, SpecialCases) {
  double const inf = std::numeric_limits<double>::infinity();
  double const nan = std::numeric_limits<double>::quiet_NaN();
  double const empty = this->sum({});
  EXPECT_EQ(empty, 0.0);
  double const zeros = this->sum({0.0, -0.0, 0.0});
  EXPECT_EQ(zeros, 0.0);
  EXPECT_FALSE(std::signbit(zeros));
  for (double v : {-3.7, 1e300, -1e-300, 4.9e-324, -2.2250738585072014e-308, 0.1})
    EXPECT_EQ(this->sum({v}), v) << v;
  EXPECT_EQ(this->sum({-1.5, -2.25, -0.125}), -3.875);
  EXPECT_TRUE(std::isnan(this->sum({1.0, nan, 2.0})));
  EXPECT_TRUE(std::isnan(this->sum({inf, 1.0, -inf})));
  EXPECT_TRUE(std::isnan(this->sum({nan, inf})));
  EXPECT_EQ(this->sum({1.0, inf, 1e308}), inf);
  EXPECT_EQ(this->sum({-inf, 1.0, -inf}), -inf);
}

TYPED_TEST(ReproducibleSum, SubnormalsAreExact) {
  std::vector<double> x;
  double const tiny = std::numeric_limits<double>::denorm_min();
  for (int i = 1; i <= 3000; ++i) x.push_back((i % 3 == 0 ? -1 : 1) * i * 7919.0 * tiny);
  x.push_back(2.2250738585072014e-308);  // smallest normal
  double const s = this->sum(x);
  EXPECT_EQ(s, exactSum(x));
  std::reverse(x.begin(), x.end());
  EXPECT_EQ(this->sum(x), s);
}

TYPED_TEST(ReproducibleSum, WideRangeMatchesReferenceAndIsOrderFree) {
  for (auto [lo, hi] : {std::pair{-300.0, 300.0}, std::pair{-20.0, 20.0}, std::pair{-5.0, 0.0}}) {
    std::vector<double> x = spreadValues(20000, lo, hi, 42);
    double const s = this->sum(x);
    double const ref = exactSum(x);
    EXPECT_LE(ulpDistance(s, ref), 1)
        << "range 1e" << lo << "..1e" << hi << ": " << s << " vs " << ref;
    std::mt19937_64 gen(7);
    for (int trial = 0; trial < 3; ++trial) {
      std::shuffle(x.begin(), x.end(), gen);
      double const shuffled = this->sum(x);
      EXPECT_EQ(std::memcmp(&shuffled, &s, sizeof s), 0) << shuffled << " vs " << s;
    }
  }
}

TYPED_TEST(ReproducibleSum, IllConditionedSumIsExact) {
  // Large values cancel exactly; the answer is the sum of the small ones.
  std::vector<double> x = spreadValues(5000, -3.0, 3.0, 3);
  std::vector<double> y = x;
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> big(1e15, 1e17);
  for (int i = 0; i < 5000; ++i) {
    double const b = big(gen);
    y.push_back(b);
    y.push_back(-b);
  }
  std::shuffle(y.begin(), y.end(), gen);
  double const s = this->sum(y);
  EXPECT_EQ(s, exactSum(y));
  EXPECT_LE(ulpDistance(s, exactSum(x)), 1);
}

TYPED_TEST(ReproducibleSum, LargeCountMatchesReference) {
  std::size_t const n = std::size_t(1) << 22;
  std::vector<double> x(n);
  std::mt19937_64 gen(2024);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& v : x) v = std::ldexp(u(gen), static_cast<int>(gen() % 40) - 20);
  x[17] = 0.999999999999;  // all chunks of this term are near 2^32 - 1
  double const s = this->sum(x);
  EXPECT_LE(ulpDistance(s, exactSum(x)), 1) << s << " vs " << exactSum(x);
  std::reverse(x.begin(), x.end());
  EXPECT_EQ(this->sum(x), s);
  // Same-sign terms, all chunks near full: stresses the carry limb.
  std::vector<double> ones(n, 0.999999999999);
  EXPECT_EQ(this->sum(ones), exactSum(ones));
}

TYPED_TEST(ReproducibleSum, FunctorAndBoxFormsAgreeWithViewForm) {
  using Exec = TypeParam;
  int const nx = 13, ny = 7, nz = 5;
  std::vector<double> const interior = spreadValues(nx * ny * nz, -8.0, 8.0, 5);
  auto const f = ghostedField<Exec>(nx, ny, nz, interior);
  double const box = eddy::reproducibleSum(Exec(), MPI_COMM_SELF, {1, 1, 1},
                                           {nx + 1, ny + 1, nz + 1}, BoxTerm<decltype(f)>{f});
  double const flat = this->sum(interior);
  EXPECT_EQ(box, flat);
  EXPECT_LE(ulpDistance(flat, exactSum(interior)), 1);
  auto v = this->toDevice(interior);
  auto const n = static_cast<std::int64_t>(interior.size());
  EXPECT_EQ(eddy::reproducibleSum(Exec(), MPI_COMM_SELF, n, ReversedTerm<decltype(v)>{v, n}), flat);
  // Empty box and empty range.
  EXPECT_EQ(
      eddy::reproducibleSum(Exec(), MPI_COMM_SELF, {1, 1, 1}, {1, 5, 5}, BoxTerm<decltype(f)>{f}),
      0.0);
  EXPECT_EQ(eddy::reproducibleSum(Exec(), MPI_COMM_SELF, std::int64_t(0),
                                  ReversedTerm<decltype(v)>{v, n}),
            0.0);
}

TYPED_TEST(ReproducibleSum, DotMatchesReference) {
  std::vector<double> a = spreadValues(30000, -6.0, 6.0, 8), b = spreadValues(30000, -6.0, 6.0, 9);
  std::vector<double> products(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) products[i] = a[i] * b[i];
  auto da = this->toDevice(a), db = this->toDevice(b);
  double const d = eddy::reproducibleDot(TypeParam(), MPI_COMM_SELF, da, db);
  EXPECT_LE(ulpDistance(d, exactSum(products)), 1) << d << " vs " << exactSum(products);
  EXPECT_EQ(eddy::reproducibleDot(TypeParam(), MPI_COMM_SELF, db, da), d);
  EXPECT_EQ(d, this->sum(products));
  auto shorter = Kokkos::subview(db, std::make_pair(0, 10));
  try {
    (void)eddy::reproducibleDot(TypeParam(), MPI_COMM_SELF, da, shorter);
    FAIL() << "reproducibleDot accepted Views of different lengths";
  } catch (eddy::Error const& e) {
    std::string const w = e.what();
    EXPECT_NE(w.find("30000"), std::string::npos) << w;
    EXPECT_NE(w.find("10"), std::string::npos) << w;
  }
}

TYPED_TEST(ReproducibleSum, WholeExponentRangeMatchesTheDocumentedTruncation) {
  // Subnormals to 1.8e308 in random order: the result is the exactly rounded sum of the terms
  // truncated at the window's bottom, whatever the order, and within the stated bound.
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    std::vector<double> x = fullRangeValues(3000, seed);
    x.push_back(std::numeric_limits<double>::denorm_min());
    x.push_back(-std::numeric_limits<double>::max());
    double const s = this->sum(x);
    Truncation const t = truncateLikeTheWindow(x);
    EXPECT_EQ(s, exactSum(t.kept));
    EXPECT_LE(std::fabs(exactSum(t.lost)),
              x.size() * std::ldexp(1.0, t.maxExponent - 157));  // each loss below 2^G
    expectWithinBound(x, s);
    std::mt19937_64 gen(seed);
    for (int trial = 0; trial < 3; ++trial) {
      std::shuffle(x.begin(), x.end(), gen);
      double const shuffled = this->sum(x);
      EXPECT_EQ(std::memcmp(&shuffled, &s, sizeof s), 0) << shuffled << " vs " << s;
    }
    for (auto& v : x) v = -v;  // truncation toward zero: the sum is odd
    EXPECT_EQ(this->sum(x), -s);
  }
  // Subnormals and normals below 2^-900 (2^-1100 .. 2^-902): documented to be summed exactly.
  std::vector<double> tiny = fullRangeValues(2000, 4);
  for (std::size_t i = 0; i < tiny.size(); ++i)
    if (tiny[i] != 0.0) tiny[i] = std::ldexp(tiny[i], -1100 - std::ilogb(tiny[i]) + int(i % 199));
  EXPECT_EQ(this->sum(tiny), exactSum(tiny));
}

/// Terms whose pieces straddle the bottom of the window that kHuge sets (2^452 for 2^640):
/// 2^300 .. 2^470, mixed signs. With the cancelling pair kHuge, -kHuge the sum is so small that
/// a single unit of 2^452 lost or gained shows in its last bits.
std::vector<double> straddlingValues(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(n);
  for (auto& v : x) v = std::ldexp(u(gen), 300 + static_cast<int>(gen() % 171));
  return x;
}
double const kHuge = std::ldexp(1.2345678901234567, 640);

TYPED_TEST(ReproducibleSum, LateMaximumGivesTheSameBits) {
  // Many small terms first, then the ones that slide the window up past them (some fall below
  // its bottom, some straddle it, some stay whole), against the largest first.
  std::vector<double> const x = straddlingValues(5000, 17);
  for (double last : {kHuge, -kHuge}) {
    std::vector<double> lateMax = x;
    lateMax.push_back(kHuge);
    lateMax.push_back(-kHuge);
    lateMax.push_back(last);
    std::vector<double> earlyMax{last, -kHuge, kHuge};
    earlyMax.insert(earlyMax.end(), x.begin(), x.end());
    double const late = this->sum(lateMax);
    double const early = this->sum(earlyMax);
    EXPECT_EQ(std::memcmp(&late, &early, sizeof late), 0) << late << " vs " << early;
    EXPECT_EQ(late, exactSum(truncateLikeTheWindow(lateMax).kept));
    expectWithinBound(lateMax, late);
  }
  // Cancelling pair only: the result (about 2^476) has its last bit below the window's bottom.
  std::vector<double> y = x;
  y.push_back(kHuge);
  y.push_back(-kHuge);
  double const s = this->sum(y);
  Truncation const t = truncateLikeTheWindow(y);
  EXPECT_LT(std::fabs(s), std::ldexp(1.0, t.bottom + 52));
  EXPECT_EQ(s, exactSum(t.kept));
  // The window rising in many small steps (ascending magnitudes) against descending ones.
  std::sort(y.begin(), y.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  double const ascending = this->sum(y);
  std::reverse(y.begin(), y.end());
  EXPECT_EQ(this->sum(y), ascending);
  EXPECT_EQ(ascending, s);
}

TYPED_TEST(ReproducibleSum, MassiveCancellationLeavesTheExactTinySum) {
  // Pairs x, -x from 2^-60 to 2^100 (many of them cut by the window's bottom, 2^-68 here)
  // cancel exactly; the tiny terms, multiples of 2^-50, survive exactly.
  std::mt19937_64 gen(23);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  std::vector<double> x;
  double tinySum = 0.0;
  for (int i = 0; i < 3000; ++i) {
    double const v = std::ldexp(u(gen), static_cast<int>(gen() % 161) - 60);
    x.push_back(v);
    x.push_back(-v);
    double const t = std::ldexp(static_cast<double>(gen() % 2001) - 1000.0, -50);
    x.push_back(t);
    tinySum += t;  // exact: integers below 2^30 times 2^-50
  }
  std::shuffle(x.begin(), x.end(), gen);
  EXPECT_EQ(this->sum(x), tinySum);
  std::reverse(x.begin(), x.end());
  EXPECT_EQ(this->sum(x), tinySum);
}

TYPED_TEST(ReproducibleSum, SpecialValuesInEveryForm) {
  // NaN and Inf among the largest finite values, through the View, functor, box and dot forms
  // (each has its own pass that tells which special values occurred).
  using Exec = TypeParam;
  double const inf = std::numeric_limits<double>::infinity();
  double const nan = std::numeric_limits<double>::quiet_NaN();
  double const big = std::numeric_limits<double>::max();
  std::vector<double> x = spreadValues(300, -300.0, 300.0, 41);
  x.push_back(big);
  x.push_back(-big);
  auto withAt = [&](std::size_t at, std::vector<double> const& extra) {
    std::vector<double> y = x;
    y.insert(y.begin() + static_cast<std::ptrdiff_t>(at), extra.begin(), extra.end());
    return y;
  };
  for (std::size_t at : {std::size_t(0), std::size_t(150), x.size()}) {
    EXPECT_EQ(this->sum(withAt(at, {inf})), inf);
    EXPECT_EQ(this->sum(withAt(at, {-inf, -inf})), -inf);
    EXPECT_TRUE(std::isnan(this->sum(withAt(at, {inf, -inf}))));
    EXPECT_TRUE(std::isnan(this->sum(withAt(at, {-nan}))));
    EXPECT_TRUE(std::isnan(this->sum(withAt(at, {inf, nan}))));
  }
  std::vector<double> const y = withAt(7, {-inf});
  auto v = this->toDevice(y);
  auto const n = static_cast<std::int64_t>(y.size());
  EXPECT_EQ(eddy::reproducibleSum(Exec(), MPI_COMM_SELF, n, ReversedTerm<decltype(v)>{v, n}), -inf);
  Kokkos::View<double***, typename Exec::memory_space> f("eddy::test::reproducibleSum::box", 3, 5,
                                                         21);
  auto h = Kokkos::create_mirror_view(f);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 21; ++k) h(i, j, k) = (i + j + k) % 2 ? 1e300 : -2.5;
  h(1, 2, 17) = inf;
  Kokkos::deep_copy(f, h);
  EXPECT_EQ(
      eddy::reproducibleSum(Exec(), MPI_COMM_SELF, {0, 0, 0}, {3, 5, 21}, BoxTerm<decltype(f)>{f}),
      inf);
  h(2, 4, 0) = nan;  // outside the box below: only the Inf counts
  Kokkos::deep_copy(f, h);
  EXPECT_EQ(
      eddy::reproducibleSum(Exec(), MPI_COMM_SELF, {0, 0, 1}, {3, 5, 21}, BoxTerm<decltype(f)>{f}),
      inf);
  EXPECT_TRUE(std::isnan(eddy::reproducibleSum(Exec(), MPI_COMM_SELF, {0, 0, 0}, {3, 5, 21},
                                               BoxTerm<decltype(f)>{f})));
  // The product of two finite terms overflows to Inf.
  auto a = this->toDevice({1e200, 1.0, -3.0}), b = this->toDevice({-1e200, 2.0, 4.0});
  EXPECT_EQ(eddy::reproducibleDot(Exec(), MPI_COMM_SELF, a, b), -inf);
}

// The accumulate pass gives the same bits for any number of work items (lanes), each adding the
// items lane, lane + lanes, ... or a contiguous chunk of them, with the next item's terms loaded
// ahead: one lane, lane counts that divide the items and ones that do not, one lane per item;
// over a View and over a box whose ghosts hold NaN (a term read out of place would show).
TYPED_TEST(ReproducibleSum, AnyNumberOfLanesGivesTheSameBits) {
  using Exec = TypeParam;
  using eddy::detail::kTermsPerItem;
  auto const finish = [](eddy::detail::BinnedSum const& w) {
    return eddy::detail::reproducibleFinish(MPI_COMM_SELF, w, w.top);
  };
  std::vector<double> x = spreadValues(20000, -300.0, 300.0, 5);
  std::vector<double> const more = straddlingValues(7001, 31);
  x.insert(x.end(), more.begin(), more.end());
  auto const v = this->toDevice(x);
  auto const n = static_cast<std::int64_t>(x.size());
  using Load = eddy::detail::ItemsOfTerms<eddy::detail::ViewTerm<decltype(v)>>;
  std::int64_t const items = Load::itemsFor(n);
  double const expected = this->sum(x);
  EXPECT_EQ(expected, exactSum(truncateLikeTheWindow(x).kept));
  for (bool blocked : {false, true})
    for (std::int64_t lanes : {std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(64),
                               std::int64_t(1000), items - 1, items}) {
      double const got = finish(
          eddy::detail::accumulate(Exec(), items, Load{{v}, n, items}, lanes, blocked));
      EXPECT_EQ(std::memcmp(&got, &expected, sizeof got), 0)
          << lanes << " lanes, blocked " << blocked << ": " << got;
    }
  int const nx = 37, ny = 11, nz = 9;
  std::vector<double> const interior = spreadValues(nx * ny * nz, -40.0, 40.0, 7);
  auto const f = ghostedField<Exec>(nx, ny, nz, interior);
  auto const blocks = eddy::BoxRowBlocks<kTermsPerItem>::of({1, 1, 1}, {nx + 1, ny + 1, nz + 1});
  using BoxLoad = eddy::detail::ItemsOfBox<BoxTerm<decltype(f)>>;
  double const flat = this->sum(interior);
  for (bool blocked : {false, true})
    for (std::int64_t lanes :
         {std::int64_t(1), std::int64_t(5), std::int64_t(37), blocks.items - 1, blocks.items}) {
      double const got = finish(eddy::detail::accumulate(
          Exec(), blocks.items, BoxLoad{{f}, blocks}, lanes, blocked));
      EXPECT_EQ(std::memcmp(&got, &flat, sizeof got), 0)
          << lanes << " lanes, blocked " << blocked << ": " << got;
    }
  EXPECT_THROW(eddy::detail::accumulate(Exec(), items, Load{{v}, n, items}, items + 1, false),
               eddy::Error);
}

// The plain sum, max and min share that lane pass (ReductionLanes.hpp): for any lanes, either
// way, they give the exact sum of small integers (any order adds them exactly) and the right
// bounds. The terms are all negative, so a zero where an item has no term would show in the
// max; NaN terms and NaN ghosts are left out of max and min.
TYPED_TEST(ReproducibleSum, PlainReductionsOverAnyNumberOfLanes) {
  using Exec = TypeParam;
  double const nan = std::numeric_limits<double>::quiet_NaN();
  double const inf = std::numeric_limits<double>::infinity();
  std::int64_t const n = 20011;  // not a multiple of the terms per item
  std::vector<double> x(n);
  double exact = 0.0, most = -inf, least = inf;
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = -1.0 - static_cast<double>((i * 7919) % 1013);
    if (i % 997 == 3) x[i] = nan;
    if (x[i] == x[i]) {
      exact += x[i];
      most = std::max(most, x[i]);
      least = std::min(least, x[i]);
    }
  }
  auto const v = this->toDevice(x);
  using Term = eddy::detail::ViewTerm<decltype(v)>;
  using Load = eddy::detail::ItemsOfTerms<Term, eddy::detail::kPlainTermsPerItem>;
  std::int64_t const items = Load::itemsFor(n);
  std::vector<double> y = x;
  for (double& t : y)
    if (t != t) t = 0.0;  // the sum is NaN with NaN terms: sum the others
  auto const w = this->toDevice(y);
  for (bool blocked : {false, true})
    for (std::int64_t lanes : {std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(64),
                               std::int64_t(1000), items - 1, items}) {
      EXPECT_EQ(eddy::detail::localSum(Exec(), items, Load{Term{w}, n, items, 0.0}, lanes, blocked),
                exact)
          << lanes << " lanes, blocked " << blocked;
      EXPECT_EQ(eddy::detail::localBound<true>(Exec(), items, Load{Term{v}, n, items, -inf}, lanes,
                                               blocked),
                most)
          << lanes << " lanes, blocked " << blocked;
      EXPECT_EQ(eddy::detail::localBound<false>(Exec(), items, Load{Term{v}, n, items, inf}, lanes,
                                                blocked),
                least)
          << lanes << " lanes, blocked " << blocked;
    }
  EXPECT_THROW(
      eddy::detail::localSum(Exec(), items, Load{Term{w}, n, items, 0.0}, items + 1, false),
      eddy::Error);
  // Only NaN: no bound.
  auto const nans = this->toDevice(std::vector<double>(13, nan));
  EXPECT_EQ(eddy::globalMax(Exec(), MPI_COMM_SELF, nans), -inf);
  EXPECT_EQ(eddy::globalMin(Exec(), MPI_COMM_SELF, nans), inf);
  EXPECT_EQ(eddy::globalMax(Exec(), MPI_COMM_SELF, this->toDevice(std::vector<double>{-inf, nan})),
            -inf);

  // A box whose ghosts hold NaN, every interior term negative.
  int const nx = 37, ny = 11, nz = 9;
  std::vector<double> interior(nx * ny * nz);
  double boxSum = 0.0, boxMost = -inf, boxLeast = inf;
  for (std::size_t c = 0; c < interior.size(); ++c) {
    interior[c] = -3.0 - static_cast<double>((c * 31) % 97);
    boxSum += interior[c];
    boxMost = std::max(boxMost, interior[c]);
    boxLeast = std::min(boxLeast, interior[c]);
  }
  auto const f = ghostedField<Exec>(nx, ny, nz, interior);
  std::array<int, 3> const lo{1, 1, 1}, hi{nx + 1, ny + 1, nz + 1};
  BoxTerm<decltype(f)> const term{f};
  auto const blocks = eddy::BoxRowBlocks<eddy::detail::kBoxRowsPerItem>::of(lo, hi);
  using BoxLoad = eddy::detail::ItemsOfBox<BoxTerm<decltype(f)>, eddy::detail::kBoxRowsPerItem>;
  for (bool blocked : {false, true})
    for (std::int64_t lanes :
         {std::int64_t(1), std::int64_t(5), std::int64_t(37), blocks.items - 1, blocks.items}) {
      EXPECT_EQ(
          eddy::detail::localSum(Exec(), blocks.items, BoxLoad{term, blocks, 0.0}, lanes, blocked),
          boxSum)
          << lanes << " lanes, blocked " << blocked;
      EXPECT_EQ(eddy::detail::localBound<true>(Exec(), blocks.items, BoxLoad{term, blocks, -inf},
                                               lanes, blocked),
                boxMost)
          << lanes << " lanes, blocked " << blocked;
    }
  EXPECT_EQ(eddy::globalSum(Exec(), MPI_COMM_SELF, lo, hi, term), boxSum);
  EXPECT_EQ(eddy::globalMax(Exec(), MPI_COMM_SELF, lo, hi, term), boxMost);
  EXPECT_EQ(eddy::globalMin(Exec(), MPI_COMM_SELF, lo, hi, term), boxLeast);
}

// The same on the window itself, term by term, with every slot of the window hit (the rounded
// sum above hides the low bins).
TEST(ReproducibleSumBins, BranchingDepositGivesTheSameWindow) {
  using eddy::detail::BinnedSum;
  std::vector<double> x = spreadValues(20000, -300.0, 300.0, 5);
  std::vector<double> const more = straddlingValues(7000, 31);
  x.insert(x.end(), more.begin(), more.end());
  BinnedSum a = BinnedSum::empty(), b = BinnedSum::empty();
  // The accumulate pass's window: slot branches with the signs applied late.
  eddy::detail::SignDeferredSum d(BinnedSum::empty());
  int hits[5] = {0, 0, 0, 0, 0};  // slots 0..3, and below the window
  int negatives = 0;
  for (double v : x) {
    std::int64_t lo = 0, hi = 0;
    int const bin = BinnedSum::split(v, lo, hi);
    int const slot = std::max(a.top, bin + 1) - 1 - bin;
    ++hits[std::min(slot, 4)];
    negatives += v < 0 ? 1 : 0;
    a.add(v);
    b.depositBranching(v);
    if (++b.pending >= BinnedSum::kFoldPeriod) b.fold();
    double const one[1] = {v};
    d.addAll(one);
    BinnedSum const c = eddy::detail::SignDeferredSum(d).settled();
    ASSERT_EQ(a.top, b.top) << v;
    ASSERT_EQ(a.top, c.top) << v;
    for (int k = 0; k < BinnedSum::kBins; ++k) {
      ASSERT_EQ(a.digit[k], b.digit[k]) << "slot " << k << " after " << v;
      ASSERT_EQ(a.carry[k], b.carry[k]) << "slot " << k << " after " << v;
      ASSERT_EQ(a.digit[k], c.digit[k]) << "slot " << k << " after " << v << " (signs deferred)";
      ASSERT_EQ(a.carry[k], c.carry[k]) << "slot " << k << " after " << v << " (signs deferred)";
    }
  }
  EXPECT_GT(negatives, 1000);
  for (int k = 0; k < 5; ++k) EXPECT_GT(hits[k], 0) << "no term in slot " << k;
}

TEST(ReproducibleSumBins, PartitionsJoinedInAnyOrderGiveTheSameBits) {
  // The reducer's join on the host: uneven chunks (empty ones, ones above a fold period, ones
  // whose window sits far below the global one), joined left to right, right to left and as a
  // tree, all give the bits of one sequential accumulation.
  using eddy::detail::BinnedSum;
  std::vector<double> x = straddlingValues(3000, 32);  // first: small terms only
  std::vector<double> rest = straddlingValues(4000, 31);
  for (int e : {520, 600}) {  // then chunks whose top bins are two and one below the global one
    for (double y : straddlingValues(50, e)) {
      x.push_back(std::ldexp(std::fabs(y), e - 470));  // cancelled by terms in other chunks
      rest.push_back(-std::ldexp(std::fabs(y), e - 470));
    }
  }
  for (int i = 0; i < 2500; ++i) rest.push_back(std::ldexp(9007199254740991.0, 380));  // full
  rest.push_back(kHuge);
  rest.push_back(-kHuge);
  std::mt19937_64 gen(33);
  std::shuffle(rest.begin(), rest.end(), gen);
  x.insert(x.end(), rest.begin(), rest.end());
  std::vector<std::size_t> cuts{0,    0,    1,    7,    7,    1500, 1501,    3000,
                                3050, 3100, 4200, 6999, 7000, 9100, x.size()};
  std::vector<BinnedSum> chunk;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    BinnedSum s = BinnedSum::empty();
    for (std::size_t i = cuts[c]; i < cuts[c + 1]; ++i) s.add(x[i]);
    chunk.push_back(s);
  }
  BinnedSum sequential = BinnedSum::empty();
  for (double v : x) sequential.add(v);
  auto finish = [](BinnedSum const& s) {
    return eddy::detail::reproducibleFinish(MPI_COMM_SELF, s, s.top);
  };
  double const expected = finish(sequential);
  EXPECT_EQ(expected, exactSum(truncateLikeTheWindow(x).kept));

  BinnedSum result = BinnedSum::empty();
  eddy::detail::BinnedSumReducer const reducer(result);
  BinnedSum left = BinnedSum::empty();
  for (auto const& c : chunk) reducer.join(left, c);
  BinnedSum right = BinnedSum::empty();
  for (auto it = chunk.rbegin(); it != chunk.rend(); ++it) reducer.join(right, *it);
  std::vector<BinnedSum> level = chunk;
  while (level.size() > 1) {  // pairwise tree
    std::vector<BinnedSum> next;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      BinnedSum a = level[i];
      if (i + 1 < level.size()) reducer.join(a, level[i + 1]);
      next.push_back(a);
    }
    level = next;
  }
  // Kokkos 3.x joins through volatile references.
  volatile BinnedSum viaVolatile = chunk.back();
  for (std::size_t i = 0; i + 1 < chunk.size(); ++i) {
    volatile BinnedSum const& c = chunk[i];
    reducer.join(viaVolatile, c);
  }
  BinnedSum copied = BinnedSum::empty();
  for (int k = 0; k < BinnedSum::kBins; ++k) {
    copied.digit[k] = viaVolatile.digit[k];
    copied.carry[k] = viaVolatile.carry[k];
  }
  copied.top = viaVolatile.top;
  for (double v : {finish(left), finish(right), finish(level[0]), finish(copied)})
    EXPECT_EQ(std::memcmp(&v, &expected, sizeof v), 0) << v << " vs " << expected;
  // Chunks of small terms only kept bins that the global window drops; the sum is small enough
  // that one unit of the window's bottom shows.
  EXPECT_EQ(chunk[4].top, sequential.top - 3);
  EXPECT_EQ(chunk[7].top, sequential.top - 2);
  EXPECT_EQ(chunk[8].top, sequential.top - 1);
  EXPECT_LT(std::fabs(expected), std::ldexp(1.0, truncateLikeTheWindow(x).bottom + 52));
}

TEST(ReproducibleSumDefaults, DefaultSpaceOverloads) {
  Kokkos::View<double*, eddy::MemSpace> v("eddy::test::reproducibleSum::defaults", 4);
  Kokkos::deep_copy(v, 0.25);
  EXPECT_EQ(eddy::reproducibleSum(MPI_COMM_SELF, v), 1.0);
  EXPECT_EQ(eddy::reproducibleDot(MPI_COMM_SELF, v, v), 0.25);
  EXPECT_EQ(eddy::reproducibleSum(MPI_COMM_SELF, std::int64_t(4), ReversedTerm<decltype(v)>{v, 4}),
            1.0);
}

TEST(ReproducibleSumDefaults, NegativeCountIsRejected) {
  Kokkos::View<double*, eddy::MemSpace> v("eddy::test::reproducibleSum::negative", 1);
  try {
    (void)eddy::reproducibleSum(MPI_COMM_SELF, std::int64_t(-3), ReversedTerm<decltype(v)>{v, 1});
    FAIL() << "reproducibleSum accepted a negative count";
  } catch (eddy::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("-3"), std::string::npos) << e.what();
  }
}

TEST(ReproducibleSumFixedPoint, ConversionRoundsCorrectly) {
  using eddy::detail::FixedPointSum;
  // 2^32 + 1 in units of 2^0, negative values, and a value in the signed top limb.
  EXPECT_EQ(eddy::detail::fixedPointToDouble(FixedPointSum{{0, 0, 0, 0, 0, 0, 0, 1, 1}}, 0),
            4294967297.0);
  EXPECT_EQ(eddy::detail::fixedPointToDouble(FixedPointSum{{0, 0, 0, 0, 0, 0, 0, -1, 0}}, -32),
            -1.0);
  EXPECT_EQ(eddy::detail::fixedPointToDouble(FixedPointSum{{1, 0, 0, 0, 0, 0, 0, 0, 0}}, -256),
            1.0);
  EXPECT_EQ(eddy::detail::fixedPointToDouble(FixedPointSum{{-1, 0, 0, 0, 0, 0, 0, 0, 5}}, -256),
            -1.0 + std::ldexp(5.0, -256));
  // Subnormal results round at 2^-1074.
  EXPECT_EQ(eddy::detail::fixedPointToDouble(FixedPointSum{{0, 0, 0, 0, 0, 0, 0, 0, 3}}, -1075),
            std::ldexp(2.0, -1074));  // 1.5 ulp -> tie to even 2
}

}  // namespace
