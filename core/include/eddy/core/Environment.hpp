/// @file Environment.hpp
/// @brief The one reader of Eddy's environment variables (EDDY_...): developer tuning knobs
/// (the fields of the tuning records, Tuning.hpp and the models' own) and run-time switches.
///
/// Each reader returns the variable's value, or `fallback` when the variable is unset or empty,
/// and throws an eddy::ConfigError that names the variable, its value, `meaning` (what it takes)
/// and the fallback on anything else: junk, trailing characters, a value out of range or not
/// among the choices. No other file of core/, physics/ or tests/ calls std::getenv on an EDDY_
/// variable (a source rule).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace eddy {

/// The whole number in EDDY variable `name`, in [lo, hi].
long long integerFromEnvironment(char const* name, long long fallback, long long lo, long long hi,
                                 std::string const& meaning);

/// The number in EDDY variable `name`, in [lo, hi] (NaN and infinities refused).
double numberFromEnvironment(char const* name, double fallback, double lo, double hi,
                             std::string const& meaning);

/// EDDY variable `name` as a switch: 1, on or true, or 0, off or false.
bool switchFromEnvironment(char const* name, bool fallback, std::string const& meaning);

/// EDDY variable `name` as one of `choices` (spelled exactly), returned as spelled.
std::string choiceFromEnvironment(char const* name, std::string const& fallback,
                                  std::vector<std::string> const& choices,
                                  std::string const& meaning);

/// EDDY variable `name` as fallback.size() whole numbers separated by commas, each in [lo, hi]
/// (e.g. a tile "32,4,2").
std::vector<long long> integersFromEnvironment(char const* name,
                                               std::vector<long long> const& fallback,
                                               long long lo, long long hi,
                                               std::string const& meaning);

/// The text of EDDY variable `name`, or nothing when it is unset or empty (for a variable whose
/// presence matters, as an override of a probe, before it is read with one of the above).
std::optional<std::string> textFromEnvironment(char const* name);

}  // namespace eddy
