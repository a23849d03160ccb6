#include "eddy/core/Environment.hpp"

#include "eddy/core/Error.hpp"

#include <cerrno>
#include <cstdlib>

namespace eddy {

namespace {

template <class T>
[[noreturn]] void refuse(char const* name, char const* value, std::string const& meaning,
                         T fallback) {
  throw ConfigError(
      str(name, " is '", value, "'; expected ", meaning, " (or unset: ", fallback, ")"));
}

}  // namespace

long long integerFromEnvironment(char const* name, long long fallback, long long lo, long long hi,
                                 std::string const& meaning) {
  char const* const env = std::getenv(name);
  if (!env || !*env) return fallback;
  char* end = nullptr;
  errno = 0;
  long long const v = std::strtoll(env, &end, 10);
  if (end == env || *end != '\0' || errno != 0 || v < lo || v > hi)
    refuse(name, env, meaning, fallback);
  return v;
}

double numberFromEnvironment(char const* name, double fallback, double lo, double hi,
                             std::string const& meaning) {
  char const* const env = std::getenv(name);
  if (!env || !*env) return fallback;
  char* end = nullptr;
  errno = 0;
  double const v = std::strtod(env, &end);
  if (end == env || *end != '\0' || errno != 0 || !(v >= lo && v <= hi))
    refuse(name, env, meaning, fallback);
  return v;
}

}  // namespace eddy
