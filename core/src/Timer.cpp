#include "eddy/core/Timer.hpp"

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Tuning.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace eddy {

namespace {
struct Entry {
  long long calls = 0;
  double seconds = 0.0;
};
std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}
/// Every region fences the device when it starts and ends (TimerTuning::fence).
bool fencedTimers() {
  return TimerTuning::current().fence;
}
void fenceForTimer() {
  if (fencedTimers() && Kokkos::is_initialized()) Kokkos::fence();
}
}  // namespace

ScopedRegion::ScopedRegion(std::string name) : m_name(std::move(name)) {
  fenceForTimer();  // earlier work is not charged to this region
  m_start = std::chrono::steady_clock::now();
  compat::pushRegion(m_name);
}

ScopedRegion::~ScopedRegion() {
  compat::popRegion();
  fenceForTimer();  // this region's kernels are charged here
  timing::record(m_name,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
}

namespace timing {

long long calls(std::string const& name) {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto const e = registry().find(name);
  return e == registry().end() ? 0 : e->second.calls;
}

void record(std::string const& name, double seconds) {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto& e = registry()[name];
  e.calls += 1;
  e.seconds += seconds;
}

void reset() {
  std::lock_guard<std::mutex> lock(registryMutex());
  registry().clear();
}

std::string summary(MPI_Comm comm, double wallSeconds) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  // Serialise "name\tcalls\tseconds\n" lines; rank 0 gathers every rank's text, so ranks need
  // not share one set of regions.
  std::ostringstream os;
  os.precision(17);
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    for (auto const& [name, e] : registry())
      os << name << '\t' << e.calls << '\t' << e.seconds << '\n';
  }
  std::string const mine = os.str();
  int const len = static_cast<int>(mine.size());
  std::vector<int> lens(rank == 0 ? size : 0), offs(rank == 0 ? size : 0);
  checkMpi(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm), "MPI_Gather(timers)");
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) offs[r] = total, total += lens[r];
    all.resize(total);
  }
  checkMpi(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR,
                       0, comm),
           "MPI_Gatherv(timers)");
  if (rank != 0) return {};

  struct Stat {
    long long calls = 0;
    double min = 1e300, max = 0, sum = 0;
    int ranks = 0;
  };
  std::map<std::string, Stat> stats;
  std::istringstream is(all);
  std::string line;
  while (std::getline(is, line)) {
    auto const a = line.find('\t'), b = line.rfind('\t');
    if (a == std::string::npos || a == b) continue;
    auto& s = stats[line.substr(0, a)];
    double const t = std::stod(line.substr(b + 1));
    s.calls = std::max(s.calls, std::stoll(line.substr(a + 1, b - a - 1)));
    s.min = std::min(s.min, t);
    s.max = std::max(s.max, t);
    s.sum += t;
    s.ranks += 1;
  }
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-44s %10s %11s %11s %11s %7s\n", "region", "calls", "min [s]",
                "mean [s]", "max [s]", "% wall");
  out << buf;
  for (auto const& [name, s] : stats) {
    double const mean = s.sum / s.ranks;
    std::snprintf(buf, sizeof buf, "%-44s %10lld %11.4f %11.4f %11.4f %7.1f\n", name.c_str(),
                  s.calls, s.min, mean, s.max, wallSeconds > 0 ? 100.0 * s.max / wallSeconds : 0.0);
    out << buf;
  }
  std::snprintf(buf, sizeof buf, "%-44s %10s %11s %11s %11.4f\n", "wall time", "", "", "",
                wallSeconds);
  out << buf;
  if (fencedTimers()) out << "(regions fenced at start and end: EDDY_TIMER_FENCE=1)\n";
  return out.str();
}

}  // namespace timing
}  // namespace eddy
