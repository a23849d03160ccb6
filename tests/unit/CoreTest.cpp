// Unit tests of the runtime pieces that need no decomposition: compat, errors, timers.
#include "EddyTest.hpp"

#include "eddy/core/Compat.hpp"
#include "eddy/core/Environment.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/FixedPoint.hpp"
#include "eddy/core/Log.hpp"
#include "eddy/core/ParticleComm.hpp"
#include "eddy/core/PassFlags.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Tuning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

TEST(Compat, VersionStringMatchesMacroDigits) {
  std::string const v = eddy::compat::kokkosVersion();
  // "major.minor.patch", and the major version is one Eddy supports.
  ASSERT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
  int const major = std::stoi(v.substr(0, v.find('.')));
  EXPECT_TRUE(major == 3 || major == 4 || major == 5) << v;
  EXPECT_FALSE(eddy::compat::enabledBackends().empty());
}

// Kernels live in free functions: CUDA forbids extended lambdas inside a test's private body.
Kokkos::View<double*, Kokkos::HostSpace> evaluateMathInKernel() {
  Kokkos::View<double*, eddy::MemSpace> out("eddy::test::math", 3);
  Kokkos::parallel_for(
      "eddy::test::math", Kokkos::RangePolicy<eddy::ExecSpace>(0, 1), KOKKOS_LAMBDA(int) {
        out(0) = eddy::math::sqrt(2.0);
        out(1) = eddy::math::fabs(-3.5);
        out(2) = eddy::math::exp(0.0) + eddy::math::sin(0.0);
      });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
}

TEST(Compat, MathFunctionsInKernels) {
  auto const h = evaluateMathInKernel();
  EXPECT_DOUBLE_EQ(h(0), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(h(1), 3.5);
  EXPECT_DOUBLE_EQ(h(2), 1.0);
}

TEST(Compat, ConcurrencyIsPositive) {
  EXPECT_GE(eddy::compat::concurrency(eddy::HostExecSpace()), 1);
  EXPECT_GE(eddy::compat::concurrency(eddy::ExecSpace()), 1);
}

TEST(Error, RequireNamesConditionSite) {
  try {
    int const n = 3;
    EDDY_REQUIRE(n == 4, "field 'u': extent ", n, ", expected 4");
    FAIL() << "EDDY_REQUIRE did not throw";
  } catch (eddy::Error const& e) {
    std::string const w = e.what();
    EXPECT_NE(w.find("field 'u': extent 3, expected 4"), std::string::npos) << w;
    EXPECT_NE(w.find("CoreTest.cpp"), std::string::npos) << w;
    EXPECT_FALSE(e.collective());
    EXPECT_EQ(e.code(), eddy::ExitCode::Failure);
  }
}

TEST(Error, KindsCarryExitCodes) {
  EXPECT_EQ(eddy::DeckError("x").code(), eddy::ExitCode::Deck);
  EXPECT_TRUE(eddy::DeckError("x").collective());
  EXPECT_EQ(eddy::UsageError("x").code(), eddy::ExitCode::Usage);
  EXPECT_EQ(eddy::IoError("x").code(), eddy::ExitCode::Io);
  EXPECT_FALSE(eddy::IoError("x").collective());
}

TEST(Error, CheckMpiThrowsWithMpiText) {
  EXPECT_NO_THROW(eddy::checkMpi(MPI_SUCCESS, "MPI_Nothing"));
  try {
    eddy::checkMpi(MPI_ERR_COUNT, "MPI_Send(halo)");
    FAIL();
  } catch (eddy::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("MPI_Send(halo) failed"), std::string::npos);
  }
}

TEST(Timer, RegionsAccumulateCallsAndTime) {
  eddy::timing::reset();
  for (int i = 0; i < 3; ++i) {
    eddy::ScopedRegion r("eddy::test::sleep");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string const s = eddy::timing::summary(MPI_COMM_SELF, 1.0);
  auto const pos = s.find("eddy::test::sleep");
  ASSERT_NE(pos, std::string::npos) << s;
  std::istringstream line(s.substr(pos));
  std::string name;
  long long calls = 0;
  double tmin = 0;
  line >> name >> calls >> tmin;
  EXPECT_EQ(calls, 3);
  EXPECT_GE(tmin, 0.015);
  EXPECT_LT(tmin, 1.0);
}

TEST(Str, ConcatenatesMixedTypes) {
  EXPECT_EQ(eddy::str("a", 1, ' ', 2.5), "a1 2.5");
}

/// a(i) = i on `space`, doubled on `second` after it, plus one on `space` after that, each
/// step ordered after the last by compat::orderAfter; returns the cells that came out wrong.
long long wrongAfterTwoInstances(eddy::ExecSpace const& space, eddy::ExecSpace const& second) {
  int const n = 1 << 20;
  Kokkos::View<double*, eddy::MemSpace> a("eddy::test::twoInstances", n);
  using Policy = Kokkos::RangePolicy<eddy::ExecSpace>;
  Kokkos::parallel_for(
      "eddy::test::fill", Policy(space, 0, n), KOKKOS_LAMBDA(int i) { a(i) = i; });
  eddy::compat::orderAfter(second, space);
  Kokkos::parallel_for(
      "eddy::test::twice", Policy(second, 0, n), KOKKOS_LAMBDA(int i) { a(i) *= 2; });
  eddy::compat::orderAfter(space, second);
  Kokkos::parallel_for(
      "eddy::test::plusOne", Policy(space, 0, n), KOKKOS_LAMBDA(int i) { a(i) += 1; });
  long long wrong = 0;
  Kokkos::parallel_reduce(
      "eddy::test::check", Policy(space, 0, n),
      KOKKOS_LAMBDA(int i, long long& w) { w += a(i) == 2.0 * i + 1 ? 0 : 1; }, wrong);
  space.fence();
  return wrong;
}

}  // namespace

TEST(Compat, ASecondInstanceRunsOrderedWorkAtEitherStreamPriority) {
  using Tuning = eddy::HaloTuning<eddy::ExecSpace>;
  EXPECT_FALSE(Tuning{}.streamHighPriority) << "the default priority by default";
  for (char const* priority : {"0", "1"}) {
    eddy::test::ScopedEnv env("EDDY_HALO_STREAM_PRIORITY", priority);
    bool const high = Tuning::fromEnvironment().streamHighPriority;
    EXPECT_EQ(high, priority[0] == '1');
    eddy::ExecSpace const space;
    EXPECT_EQ(wrongAfterTwoInstances(space, eddy::compat::secondInstance(space, high)), 0)
        << "EDDY_HALO_STREAM_PRIORITY=" << priority;
  }
  eddy::test::ScopedEnv bad("EDDY_HALO_STREAM_PRIORITY", "high");
  EXPECT_THROW((void)Tuning::fromEnvironment(), eddy::ConfigError);
}

// Each core record starts from the backend's defaults; fromEnvironment overrides its run-time
// fields and refuses malformed values.
TEST(Tuning, CoreRecordsTakeTheirDefaultsThenTheEnvironment) {
  using Grid = eddy::GridTuning<eddy::ExecSpace>;
  std::array<int, 3> const tile = Grid{}.boxTile;
  EXPECT_EQ(Grid::fromEnvironment().boxTile, tile);
  {
    eddy::test::ScopedEnv env("EDDY_BOX_TILE", "16,8,1");
    EXPECT_EQ(Grid::fromEnvironment().boxTile, (std::array<int, 3>{16, 8, 1}));
  }
  {
    eddy::test::ScopedEnv env("EDDY_BOX_TILE", "16,8");
    EXPECT_THROW((void)Grid::fromEnvironment(), eddy::ConfigError);
  }
  EXPECT_FALSE(eddy::TimerTuning{}.fence);
  {
    eddy::test::ScopedEnv env("EDDY_TIMER_FENCE", "1");
    EXPECT_TRUE(eddy::TimerTuning::fromEnvironment().fence);
  }
  {
    eddy::test::ScopedEnv env("EDDY_TIMER_FENCE", "yes");
    EXPECT_THROW((void)eddy::TimerTuning::fromEnvironment(), eddy::ConfigError);
  }
}

TEST(Environment, TuningVariablesTakeTheirRangeOrFail) {
  char const* const name = "EDDY_TEST_TUNING";
  unsetenv(name);
  EXPECT_EQ(eddy::integerFromEnvironment(name, 7, 1, 10, "a count"), 7) << "unset: the fallback";
  EXPECT_EQ(eddy::numberFromEnvironment(name, 0.5, 0.0, 1.0, "a fraction"), 0.5);
  {
    eddy::test::ScopedEnv env(name, "");
    EXPECT_EQ(eddy::integerFromEnvironment(name, 7, 1, 10, "a count"), 7) << "empty means unset";
  }
  {
    eddy::test::ScopedEnv env(name, "10");
    EXPECT_EQ(eddy::integerFromEnvironment(name, 7, 1, 10, "a count"), 10);
    EXPECT_EQ(eddy::numberFromEnvironment(name, 0.5, 0.0, 10.0, "a number"), 10.0);
  }
  for (char const* bad : {"0", "11", "4x", "four", "-3", "99999999999999999999"}) {
    eddy::test::ScopedEnv env(name, bad);
    try {
      (void)eddy::integerFromEnvironment(name, 7, 1, 10, "a count from 1 to 10");
      ADD_FAILURE() << "expected eddy::ConfigError for '" << bad << "'";
    } catch (eddy::ConfigError const& e) {
      std::string const what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find(bad), std::string::npos) << what;
      EXPECT_NE(what.find("a count from 1 to 10"), std::string::npos) << what;
    }
  }
  for (char const* bad : {"1.5", "-0.1", "0.5x", "nan", "half"}) {
    eddy::test::ScopedEnv env(name, bad);
    EXPECT_THROW((void)eddy::numberFromEnvironment(name, 0.5, 0.0, 1.0, "a fraction"),
                 eddy::ConfigError)
        << bad;
  }
}

TEST(Environment, SwitchesChoicesAndListsTakeTheirValuesOrFail) {
  char const* const name = "EDDY_TEST_TUNING";
  unsetenv(name);
  EXPECT_TRUE(eddy::switchFromEnvironment(name, true, "a switch")) << "unset: the fallback";
  EXPECT_EQ(eddy::choiceFromEnvironment(name, "b", {"a", "b"}, "a or b"), "b");
  EXPECT_EQ(eddy::integersFromEnvironment(name, {1, 2, 3}, 0, 9, "three digits"),
            (std::vector<long long>{1, 2, 3}));
  EXPECT_FALSE(eddy::textFromEnvironment(name).has_value());
  for (char const* on : {"1", "on", "true"}) {
    eddy::test::ScopedEnv env(name, on);
    EXPECT_TRUE(eddy::switchFromEnvironment(name, false, "a switch")) << on;
  }
  for (char const* off : {"0", "off", "false"}) {
    eddy::test::ScopedEnv env(name, off);
    EXPECT_FALSE(eddy::switchFromEnvironment(name, true, "a switch")) << off;
  }
  {
    eddy::test::ScopedEnv env(name, "a");
    EXPECT_EQ(eddy::choiceFromEnvironment(name, "b", {"a", "b"}, "a or b"), "a");
    EXPECT_EQ(eddy::textFromEnvironment(name).value_or(""), "a");
  }
  {
    eddy::test::ScopedEnv env(name, "32,4,0");
    EXPECT_EQ(eddy::integersFromEnvironment(name, {1, 2, 3}, 0, 64, "three extents"),
              (std::vector<long long>{32, 4, 0}));
  }
  auto const refused = [&](char const* bad, auto const& read) {
    eddy::test::ScopedEnv env(name, bad);
    try {
      read();
      ADD_FAILURE() << "expected eddy::ConfigError for '" << bad << "'";
    } catch (eddy::ConfigError const& e) {
      std::string const what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find(bad), std::string::npos) << what;
    }
  };
  for (char const* bad : {"2", "yes", "On", "1x"})
    refused(bad, [&] { (void)eddy::switchFromEnvironment(name, false, "a switch"); });
  for (char const* bad : {"c", "A", "a "})
    refused(bad, [&] { (void)eddy::choiceFromEnvironment(name, "b", {"a", "b"}, "a or b"); });
  for (char const* bad : {"32,4", "32,4,2,1", "32,,2", "32,4,x", "32,4,65", "-1,4,2", "32;4;2"})
    refused(bad, [&] {
      (void)eddy::integersFromEnvironment(name, {1, 2, 3}, 0, 64, "three extents");
    });
}

namespace {
/// Side bits of row i for selectSides: runs of each kind and isolated rows, from a hash.
struct HashedSide {
  unsigned salt;
  KOKKOS_INLINE_FUNCTION int operator()(const int i) const {
    unsigned h = (static_cast<unsigned>(i) / 7u + salt) * 2654435761u;
    h ^= h >> 15;
    return static_cast<int>(h % 5u) % 4;  // 0 more often than 1, 2 and 3
  }
};
}  // namespace

// selectSides lists the rows of each side in increasing order, counting both bits of a row,
// whatever the row count against its chunks (none, one partial, exact multiples, many), into
// lists too short at first.
// A fixed-point sum rounds each term once to the scale's unit (error at most half a unit, the
// unit at most 2^(bits - 61) of the largest term for 2^bits terms), never leaves the int64 range,
// and is the same for every order of the terms.
TEST(FixedPoint, SumsAreExactIntegersInAnyOrderWithinTheBound) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> terms(5000);
  double largest = 0.0;
  for (double& t : terms) {
    t = dist(gen) * std::pow(10.0, dist(gen) * 6);
    largest = std::max(largest, std::fabs(t));
  }
  eddy::FixedPoint const f =
      eddy::FixedPoint::forBound(largest, static_cast<long long>(terms.size()));
  EXPECT_LE(f.unit, largest * std::ldexp(1.0, 13 - 61));  // 5000 <= 2^13
  EXPECT_EQ(f.unit * f.perUnit, 1.0);
  long long sum = 0;
  long double exact = 0;
  for (double t : terms) {
    long long const q = f.quantize(t);
    EXPECT_LE(std::fabs(f.value(q) - t), 0.5 * f.unit) << t;
    sum += q;
    exact += t;
  }
  EXPECT_NEAR(f.value(sum), static_cast<double>(exact), 0.5 * f.unit * terms.size());
  std::reverse(terms.begin(), terms.end());
  std::shuffle(terms.begin(), terms.end(), gen);
  long long again = 0;
  for (double t : terms) again += f.quantize(t);
  EXPECT_EQ(again, sum);
  // The bound: every term at the largest magnitude, all of one sign, stays below 2^62.
  long long const most = f.quantize(largest);
  EXPECT_LT(static_cast<long double>(most) * terms.size(), std::ldexp(1.0L, 62));
  EXPECT_EQ(f.quantize(-largest), -most);
  // No bound (no nonzero term): the unit scale.
  EXPECT_EQ(eddy::FixedPoint::forBound(0.0, 10).unit, 1.0);
}

TEST(ParticleComm, SelectSidesListsEachSideInIncreasingOrder) {
  using Mem = eddy::ExecSpace::memory_space;
  eddy::ExecSpace const space;
  Kokkos::View<int*, Mem> list0, list1;
  eddy::ChunkedScan<> scan;
  int const c = eddy::ChunkedScan<>::kRows;
  for (int n : {0, 1, 5, c - 1, c, c + 1, 3 * c, 7 * c + 123, 40000}) {
    HashedSide const side{static_cast<unsigned>(n)};
    std::vector<int> want0, want1;
    for (int i = 0; i < n; ++i) {
      if (side(i) & 1) want0.push_back(i);
      if (side(i) & 2) want1.push_back(i);
    }
    auto const count = eddy::detail::selectSides(space, n, side, list0, list1, scan,
                                                 "eddy::test::side0", "eddy::test::side1");
    ASSERT_EQ(count[0], static_cast<int>(want0.size())) << "n = " << n;
    ASSERT_EQ(count[1], static_cast<int>(want1.size())) << "n = " << n;
    auto const h0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list0);
    auto const h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list1);
    int wrong = 0;
    for (int k = 0; k < count[0]; ++k) wrong += h0(k) != want0[k];
    for (int k = 0; k < count[1]; ++k) wrong += h1(k) != want1[k];
    EXPECT_EQ(wrong, 0) << "n = " << n;
    if (n >= c) {
      EXPECT_TRUE(count[0] > 0 && count[1] > 0) << "n = " << n;
    }
  }
}

namespace {
using TestFlags = eddy::PassFlags<eddy::ExecSpace, 2>;
// Raises flag `flag` from every row i of [0, n) with i % every == 0 (none when every is 0).
void raiseFlags(TestFlags::Raiser const& r, int n, int every, int flag) {
  Kokkos::parallel_for(
      "eddy::test::raiseFlags", Kokkos::RangePolicy<eddy::ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int i) {
        if (every > 0 && i % every == 0) r.raise(flag);
      });
}
}  // namespace

// A pass's flags are those its kernels raised, from any number of rows; the next pass starts
// clear without a reset; a raiser that is not the last pass's is refused.
TEST(PassFlags, APassSeesTheFlagsItsKernelsRaisedAndNoEarlierOnes) {
  eddy::ExecSpace const space;
  TestFlags flags("eddy::test::flags");
  auto const first = flags.next();
  raiseFlags(first, 10000, 37, 1);
  auto const a = flags.anyRank(space, MPI_COMM_WORLD, first, "test");
  EXPECT_FALSE(a[0]);
  EXPECT_TRUE(a[1]);
  auto const second = flags.next();
  raiseFlags(second, 10000, 0, 1);
  auto const b = flags.anyRank(space, MPI_COMM_WORLD, second, "test");
  EXPECT_FALSE(b[0]);
  EXPECT_FALSE(b[1]) << "a flag of the pass before counted";
  auto const third = flags.next();
  raiseFlags(third, 1, 1, 0);
  EXPECT_THROW(flags.anyRank(space, MPI_COMM_WORLD, second, "test"), eddy::Error);
  auto const c = flags.anyRank(space, MPI_COMM_WORLD, third, "test");
  EXPECT_TRUE(c[0]);
  EXPECT_FALSE(c[1]);
}
