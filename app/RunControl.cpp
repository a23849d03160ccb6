#include "RunControl.hpp"

#include "Format.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <limits>

namespace eddy::app {

Schedule Schedule::steps(long long every) {
  EDDY_REQUIRE(every > 0, "Schedule::steps: every = ", every, ", expected > 0");
  Schedule s;
  s.m_steps = every;
  return s;
}

Schedule Schedule::time(double interval) {
  EDDY_REQUIRE(interval > 0 && std::isfinite(interval), "Schedule::time: interval = ", interval,
               ", expected > 0");
  Schedule s;
  s.m_interval = interval;
  return s;
}

Schedule Schedule::fromDeck(io::Deck const& deck, std::string const& section) {
  if (!deck.has(section)) return never();
  if (deck.has(section + ".every_time")) return time(deck.getDouble(section + ".every_time"));
  long long const every = deck.getInt(section + ".every");
  return every > 0 ? steps(every) : never();
}

long long lastStep(io::Deck const& deck) {
  return deck.has("run.end_time") && !deck.given("run.steps")
             ? std::numeric_limits<long long>::max()
             : deck.getInt("run.steps");
}

std::optional<double> endTime(io::Deck const& deck) {
  if (!deck.has("run.end_time")) return std::nullopt;
  return deck.getDouble("run.end_time");
}

double timeTolerance(double scale) {
  return 1e-9 * std::fabs(scale);
}

bool Schedule::due(long long step, double before, double after) const {
  if (step == 0) return active();
  if (m_steps > 0) return step % m_steps == 0;
  if (m_interval > 0) {
    double const tol = timeTolerance(m_interval);
    return std::floor((after + tol) / m_interval) > std::floor((before + tol) / m_interval);
  }
  return false;
}

double Schedule::nextTime(double t) const {
  if (m_interval <= 0) return std::numeric_limits<double>::infinity();
  return (std::floor((t + timeTolerance(m_interval)) / m_interval) + 1.0) * m_interval;
}

std::string Schedule::describe(std::string const& timeUnits) const {
  if (m_steps > 0) return str("every ", m_steps, " steps");
  if (m_interval > 0)
    return str("every ", m_interval, timeUnits == "1" ? std::string() : " [" + timeUnits + "]",
               " of simulated time");
  return "never";
}

std::optional<double> parseWallTime(std::string const& text) {
  // [D-]H:MM:SS, or a number of seconds.
  auto number = [](std::string const& s, double& out) {
    if (s.empty() || !std::all_of(s.begin(), s.end(),
                                  [](unsigned char c) { return std::isdigit(c) || c == '.'; }))
      return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
  };
  double seconds = 0;
  std::string rest = text;
  if (rest.find(':') == std::string::npos) {
    if (!number(rest, seconds)) return std::nullopt;
    return seconds;
  }
  double days = 0;
  if (auto const dash = rest.find('-'); dash != std::string::npos) {
    if (!number(rest.substr(0, dash), days)) return std::nullopt;
    rest.erase(0, dash + 1);
  }
  auto const c1 = rest.find(':');
  auto const c2 = rest.find(':', c1 + 1);
  if (c2 == std::string::npos || rest.find(':', c2 + 1) != std::string::npos) return std::nullopt;
  double h = 0, m = 0, s = 0;
  if (!number(rest.substr(0, c1), h) || !number(rest.substr(c1 + 1, c2 - c1 - 1), m) ||
      !number(rest.substr(c2 + 1), s) || m >= 60 || s >= 60)
    return std::nullopt;
  return ((days * 24 + h) * 60 + m) * 60 + s;
}

void checkRunControl(io::Deck const& deck, io::DeckErrors& errors) {
  if (deck.has("run.max_wall_time") && !parseWallTime(deck.getString("run.max_wall_time")))
    errors.add(deck, "run.max_wall_time",
               str("got '", io::elided(deck.getString("run.max_wall_time")), "'"),
               "expected seconds (3600), H:MM:SS (1:00:00) or D-HH:MM:SS (1-00:00:00)");
}

namespace {

volatile std::sig_atomic_t g_stopSignal = 0;

extern "C" void onStopSignal(int signal) {
  g_stopSignal = signal;
}

int const kStopSignals[] = {SIGTERM, SIGUSR1, SIGINT};
struct sigaction g_previous[3];

char const* signalName(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGINT:
      return "SIGINT";
    default:
      return "a signal";
  }
}

}  // namespace

StopRequest::StopRequest(Runtime const& rt, io::Deck const& deck)
    : m_comm(rt.comm()), m_rank(rt.rank()), m_wallLimit(0) {
  if (deck.has("run.max_wall_time")) {
    m_wallText = deck.getString("run.max_wall_time");
    m_wallLimit = parseWallTime(m_wallText).value_or(0.0);
  }
  g_stopSignal = 0;
  for (int i = 0; i < 3; ++i) {
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    // One delivery, then the default action again: a second signal is not held up by Eddy.
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    sigaction(kStopSignals[i], &action, &g_previous[i]);
  }
}

StopRequest::~StopRequest() {
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &g_previous[i], nullptr);
}

bool StopRequest::due(double slowestStep, double slowestCheckpoint) {
  // Bit 0: a signal on some rank (the signal's number above it); bit 1: rank 0's clock says the
  // time is up. One reduction agrees on both, so that every rank stops after the same step.
  int const signal = g_stopSignal;
  int mine = signal != 0 ? (1 | signal << 2) : 0;
  double room = 0;
  if (m_wallLimit > 0 && m_rank == 0) {
    // Room for two of the slowest steps and two of the slowest checkpoints; before the first
    // checkpoint, a tenth of the limit (at most a minute) stands in for the checkpoint.
    double const checkpoint =
        slowestCheckpoint > 0 ? slowestCheckpoint : std::min(60.0, 0.1 * m_wallLimit);
    room = 2 * slowestStep + 2 * checkpoint;
    if (log::elapsed() + room >= m_wallLimit) mine |= 2;
  }
  int all = mine;
  checkMpi(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, m_comm), "MPI_Allreduce (stop)");
  if (all == 0) return false;
  if (all & 1)
    m_reason = str(signalName(all >> 2), " received");
  else
    m_reason = str("run.max_wall_time ", m_wallText, " is near: ", formatDuration(log::elapsed()),
                   " elapsed, ", formatDuration(room), " kept for the next step and a checkpoint");
  return true;
}

}  // namespace eddy::app
