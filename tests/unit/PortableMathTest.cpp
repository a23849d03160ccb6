// Unit tests of portableSin / portableCos (PortableMath.hpp): within 1 ulp of a long double
// reference over the reducible range (points near multiples of pi/2 included), odd / even, the
// library value beyond the range, and bitwise the host's result when evaluated on the default
// execution space (a GPU in a CUDA build; this target is compiled as the fluid model is, without
// multiply-add contraction).
#include "EddyTest.hpp"

#include "eddy/core/PortableMath.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using eddy::math::portableCos;
using eddy::math::portableSin;

/// Test arguments: small values and subnormals, a dense sweep of [-8, 8], a sweep of the whole
/// reducible range, and the doubles nearest to multiples of pi/2 (the hard cases of a reduction).
std::vector<double> arguments() {
  std::vector<double> xs = {0.0,    -0.0,  1e-310, -1e-310, 1e-300,  1e-20,   3.7e-9,
                            1e-5,   0.1,   0.3,    0.5,     0.7,     0.78125, 0.785,
                            0.7854, 1.0,   1.5707, 2.0,     3.14159, 6.28318, 100.0,
                            1.0e4,  1.0e5, 1.0e6,  1.6e6,   -2.5,    -1.0e3};
  for (int i = -16000; i <= 16000; ++i) xs.push_back(i * 5e-4 + 1e-7 * (i % 7));
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 20000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double const u = static_cast<double>(s >> 11) * 0x1.0p-53;  // [0, 1)
    xs.push_back((2 * u - 1) * 1.6e6 * (i % 2 ? 1.0 : 1e-3));
  }
  long double const halfPi = 1.5707963267948966192313216916397514L;
  for (long n = 1; n < 1000000; n = n * 3 + 1) {
    double const x = static_cast<double>(n * halfPi);
    xs.push_back(x);
    xs.push_back(std::nextafter(x, 0.0));
    xs.push_back(std::nextafter(x, 1e300));
    xs.push_back(-x);
  }
  return xs;
}

/// |a - exact| in units of the last place of the double nearest to `exact`.
double ulps(double a, long double exact) {
  double const e = static_cast<double>(exact);
  double const ulp =
      e == 0.0
          ? std::numeric_limits<double>::denorm_min()
          : std::nextafter(std::fabs(e), std::numeric_limits<double>::infinity()) - std::fabs(e);
  return static_cast<double>(std::fabs(static_cast<long double>(a) - exact)) / ulp;
}

TEST(PortableMath, WithinOneUlpOverTheReducibleRange) {
  double worstSin = 0, worstCos = 0;
  for (double x : arguments()) {
    long double const lx = x;
    double const es = ulps(portableSin(x), std::sin(lx));
    double const ec = ulps(portableCos(x), std::cos(lx));
    EXPECT_LE(es, 1.0) << "sin(" << x << ")";
    EXPECT_LE(ec, 1.0) << "cos(" << x << ")";
    worstSin = std::max(worstSin, es);
    worstCos = std::max(worstCos, ec);
  }
  std::printf("largest error: sin %.3f ulp, cos %.3f ulp\n", worstSin, worstCos);
}

TEST(PortableMath, SinIsOddAndCosIsEven) {
  for (double x : arguments()) {
    EXPECT_EQ(portableSin(-x), -portableSin(x)) << x;
    EXPECT_EQ(portableCos(-x), portableCos(x)) << x;
  }
  EXPECT_EQ(portableSin(0.0), 0.0);
  EXPECT_TRUE(std::signbit(portableSin(-0.0)));
  EXPECT_EQ(portableCos(0.0), 1.0);
}

TEST(PortableMath, TheLibraryValueBeyondTheRange) {
  for (double x : {2e6, -3e7, 1e300}) {
    EXPECT_EQ(portableSin(x), std::sin(x)) << x;
    EXPECT_EQ(portableCos(x), std::cos(x)) << x;
  }
  EXPECT_TRUE(std::isnan(portableSin(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(portableCos(std::numeric_limits<double>::infinity())));
}

/// sin and cos of each argument, on the execution space of the Views.
struct Evaluate {
  Kokkos::View<double const*, eddy::MemSpace> x;
  Kokkos::View<double**, eddy::MemSpace> out;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    out(i, 0) = portableSin(x(i));
    out(i, 1) = portableCos(x(i));
  }
};

TEST(PortableMath, TheDefaultSpaceGivesTheHostBits) {
  std::vector<double> const xs = arguments();
  int const n = static_cast<int>(xs.size());
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hostX(
      const_cast<double*>(xs.data()), xs.size());
  Kokkos::View<double*, eddy::MemSpace> x("eddy::test::portableMath::x", xs.size());
  Kokkos::deep_copy(x, hostX);
  Kokkos::View<double**, eddy::MemSpace> out("eddy::test::portableMath::out", xs.size(), 2);
  Kokkos::parallel_for("eddy::test::portableMath::evaluate",
                       Kokkos::RangePolicy<eddy::ExecSpace>(0, n), Evaluate{x, out});
  auto const got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int differ = 0;
  for (int i = 0; i < n; ++i) {
    double const s = portableSin(xs[i]), c = portableCos(xs[i]);
    if (std::memcmp(&s, &got(i, 0), sizeof s) != 0 || std::memcmp(&c, &got(i, 1), sizeof c) != 0) {
      if (++differ <= 5) ADD_FAILURE() << "x = " << xs[i] << ": host " << s << ", " << c;
    }
  }
  EXPECT_EQ(differ, 0) << "of " << n << " arguments";
}

}  // namespace
