// Run control (app/RunControl.hpp): output schedules in steps and in simulated time, and the
// wall-time limit's formats.
#include "RunControl.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace eddy::app {
namespace {

TEST(Schedule, StepsAreDueOnMultiplesAndAtStepZero) {
  Schedule const s = Schedule::steps(10);
  EXPECT_TRUE(s.due(0, 0.0, 0.0));
  EXPECT_FALSE(s.due(9, 0.8, 0.9));
  EXPECT_TRUE(s.due(10, 0.9, 1.0));
  EXPECT_FALSE(s.due(11, 1.0, 1.1));
  EXPECT_TRUE(std::isinf(s.nextTime(0.5)));
}

TEST(Schedule, TimeIsDueWhenAStepReachesOrCrossesAMultiple) {
  Schedule const s = Schedule::time(0.1);
  EXPECT_TRUE(s.due(0, 0.0, 0.0));
  EXPECT_FALSE(s.due(1, 0.0, 0.05));
  EXPECT_TRUE(s.due(2, 0.05, 0.1));           // lands on it
  EXPECT_FALSE(s.due(3, 0.1, 0.15));          // the event at 0.1 is behind
  EXPECT_TRUE(s.due(4, 0.15, 0.25));          // crosses 0.2
  EXPECT_TRUE(s.due(5, 0.25, 0.3 - 1e-15));   // short of 0.3 by round-off only
  EXPECT_FALSE(s.due(6, 0.3 - 1e-15, 0.35));  // ... so the event was that step's
  EXPECT_TRUE(s.due(7, 0.35, 0.75));          // crosses several: one row
}

TEST(Schedule, NextTimeIsTheNextMultiple) {
  Schedule const s = Schedule::time(0.25);
  EXPECT_EQ(s.nextTime(0.0), 0.25);
  EXPECT_EQ(s.nextTime(0.1), 0.25);
  EXPECT_EQ(s.nextTime(0.25), 0.5);
  EXPECT_EQ(s.nextTime(0.25 - 1e-15), 0.5);  // there up to round-off
  EXPECT_EQ(s.nextTime(1.3), 1.5);
}

TEST(Schedule, NeverIsNeverDue) {
  Schedule const s = Schedule::never();
  EXPECT_FALSE(s.active());
  EXPECT_FALSE(s.due(0, 0.0, 0.0));
  EXPECT_FALSE(s.due(100, 1.0, 2.0));
  EXPECT_TRUE(std::isinf(s.nextTime(1.0)));
}

TEST(WallTime, ParsesSecondsAndClockFormats) {
  EXPECT_EQ(parseWallTime("3600"), 3600.0);
  EXPECT_EQ(parseWallTime("2.5"), 2.5);
  EXPECT_EQ(parseWallTime("1:00:00"), 3600.0);
  EXPECT_EQ(parseWallTime("0:30:15"), 1815.0);
  EXPECT_EQ(parseWallTime("47:59:59"), 47 * 3600.0 + 59 * 60 + 59);
  EXPECT_EQ(parseWallTime("1-00:00:00"), 86400.0);
  EXPECT_EQ(parseWallTime("2-12:30:00"), 2 * 86400.0 + 12 * 3600 + 30 * 60);
}

TEST(WallTime, RefusesWhatIsNotATime) {
  for (char const* bad : {"", "abc", "1h", "-5", "1:30", "1:60:00", "1:00:60", "1::00",
                          "1:00:00:00", "x-1:00:00", "1e3"})
    EXPECT_FALSE(parseWallTime(bad).has_value()) << "'" << bad << "'";
}

}  // namespace
}  // namespace eddy::app
