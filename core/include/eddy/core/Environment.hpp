/// @file Environment.hpp
/// @brief Tuning variables of the environment (EDDY_...): a value or the backend's default, and
/// an eddy::ConfigError that names the variable when its value is not one the variable takes.
#pragma once

#include <string>

namespace eddy {

/// The whole number in EDDY variable `name`, in [lo, hi]; `fallback` when the variable is unset
/// or empty. Throws eddy::ConfigError naming the variable, its value, `meaning` (what it
/// expects) and the fallback on anything else (junk, trailing characters, out of range).
long long integerFromEnvironment(char const* name, long long fallback, long long lo, long long hi,
                                 std::string const& meaning);

/// The number in EDDY variable `name`, in [lo, hi]; otherwise as integerFromEnvironment.
double numberFromEnvironment(char const* name, double fallback, double lo, double hi,
                             std::string const& meaning);

}  // namespace eddy
