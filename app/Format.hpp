/// @file Format.hpp
/// @brief Small text helpers shared by the model drivers of `eddy run`.
#pragma once

#include "eddy/core/Error.hpp"

#include <string>

namespace eddy::app {

/// "12.3s", "4m05s" or "3h07m": elapsed time and ETA in progress lines.
std::string formatDuration(double seconds);

/// The tail of a progress line: "elapsed 12.3s  ETA 4m05s  1.234e+08 <unit>/s", from the seconds
/// since the loop started, the `fraction` of the loop done, the steps it took, and the work
/// (cells, atoms) of one step.
std::string progressTail(double elapsed, double fraction, long long steps, double workPerStep,
                         char const* unit);

/// The 16 hex digits of a double's bits, for checksums compared across runs.
std::string hexBits(double value);

/// "[1, 2, 3]": a list (vector or array) as a deck writes it, for messages.
template <class List>
std::string listText(List const& v) {
  std::string s = "[";
  for (std::size_t a = 0; a < v.size(); ++a) s += str(a ? ", " : "", v[a]);
  return s + "]";
}

}  // namespace eddy::app
