// Run control (app/RunControl.hpp): output schedules in steps and in simulated time, and the
// wall-time limit's formats, and what the time loop does on the step a run stops after.
#include "RunControl.hpp"
#include "TimeLoop.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

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

// A run that stops on a step whose snapshot is due writes that snapshot before the checkpoint:
// the run continuing it starts after the step and would never write it.
TEST(TimeLoop, AStoppedStepWritesTheOutputDueOnIt) {
  Schedule const output = Schedule::time(0.5);
  std::vector<std::string> events;
  long long count = 0;
  double const dt = 0.25;
  auto plan = [&] {
    NextStep n;
    n.step = count + 1;
    n.dt = dt;
    n.before = count * dt;
    n.after = n.before + dt;
    n.last = n.stop = n.step == 4;  // t = 1: an output time
    return n;
  };
  auto step = [&](NextStep const& n, bool) {
    count = n.step;
    events.push_back("step " + std::to_string(n.step));
  };
  NextStep start;
  NextStep const last =
      runTimeLoop(true, start,
                  loopActions(
                      plan, step, [](NextStep const&) { return false; }, [] {},
                      [](NextStep const&) { return false; }, [](NextStep const&) {},
                      [&](NextStep const& n) { return output.due(n.step, n.before, n.after); },
                      [&] { events.push_back("snapshot " + std::to_string(count)); },
                      [](NextStep const&) { return false; },
                      [&] { events.push_back("checkpoint " + std::to_string(count)); }));
  EXPECT_TRUE(last.stop);
  EXPECT_EQ(last.step, 4);
  std::vector<std::string> const want{"snapshot 0", "step 1", "step 2",     "snapshot 2",
                                      "step 3",     "step 4", "snapshot 4", "checkpoint 4"};
  EXPECT_EQ(events, want);
}

}  // namespace
}  // namespace eddy::app
