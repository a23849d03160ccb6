/// @file Format.hpp
/// @brief Small text helpers shared by the model drivers of `eddy run`.
#pragma once

#include <string>

namespace eddy::app {

/// "12.3s", "4m05s" or "3h07m": elapsed time and ETA in progress lines.
std::string formatDuration(double seconds);

/// The 16 hex digits of a double's bits, for checksums compared across runs.
std::string hexBits(double value);

}  // namespace eddy::app
