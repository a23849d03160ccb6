#include "Format.hpp"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace eddy::app {

std::string formatDuration(double s) {
  char buf[32];
  if (s < 120) {
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  } else if (s < 7200) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600,
                  static_cast<int>(s) / 60 % 60);
  }
  return buf;
}

std::string progressTail(double elapsed, double fraction, long long steps, double workPerStep,
                         char const* unit) {
  double const rate = steps > 0 && elapsed > 0 ? workPerStep * steps / elapsed : 0.0;
  double const eta = fraction > 0 ? elapsed / fraction * (1.0 - fraction) : 0.0;
  char buf[128];
  std::snprintf(buf, sizeof buf, "elapsed %s  ETA %s  %.3e %s/s", formatDuration(elapsed).c_str(),
                formatDuration(eta).c_str(), rate, unit);
  return buf;
}

std::string hexBits(double value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, bits);
  return buf;
}

}  // namespace eddy::app
