#include "eddy/core/Environment.hpp"

#include "eddy/core/Error.hpp"

#include <cerrno>
#include <cstdlib>

namespace eddy {

namespace {

template <class T>
[[noreturn]] void refuse(char const* name, std::string const& value, std::string const& meaning,
                         T const& fallback) {
  throw ConfigError(
      str(name, " is '", value, "'; expected ", meaning, " (or unset: ", fallback, ")"));
}

/// The whole number that is all of `text`, in [lo, hi].
bool parseInteger(std::string const& text, long long lo, long long hi, long long& v) {
  char const* const s = text.c_str();
  char* end = nullptr;
  errno = 0;
  v = std::strtoll(s, &end, 10);
  return end != s && *end == '\0' && errno == 0 && v >= lo && v <= hi;
}

std::string joined(std::vector<long long> const& values) {
  std::string s;
  for (long long v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

}  // namespace

std::optional<std::string> textFromEnvironment(char const* name) {
  char const* const env = std::getenv(name);
  if (!env || !*env) return std::nullopt;
  return std::string(env);
}

long long integerFromEnvironment(char const* name, long long fallback, long long lo, long long hi,
                                 std::string const& meaning) {
  auto const text = textFromEnvironment(name);
  if (!text) return fallback;
  long long v = 0;
  if (!parseInteger(*text, lo, hi, v)) refuse(name, *text, meaning, fallback);
  return v;
}

double numberFromEnvironment(char const* name, double fallback, double lo, double hi,
                             std::string const& meaning) {
  auto const text = textFromEnvironment(name);
  if (!text) return fallback;
  char const* const s = text->c_str();
  char* end = nullptr;
  errno = 0;
  double const v = std::strtod(s, &end);
  if (end == s || *end != '\0' || errno != 0 || !(v >= lo && v <= hi))
    refuse(name, *text, meaning, fallback);
  return v;
}

bool switchFromEnvironment(char const* name, bool fallback, std::string const& meaning) {
  auto const text = textFromEnvironment(name);
  if (!text) return fallback;
  if (*text == "1" || *text == "on" || *text == "true") return true;
  if (*text == "0" || *text == "off" || *text == "false") return false;
  refuse(name, *text, meaning, fallback ? "1" : "0");
}

std::string choiceFromEnvironment(char const* name, std::string const& fallback,
                                  std::vector<std::string> const& choices,
                                  std::string const& meaning) {
  auto const text = textFromEnvironment(name);
  if (!text) return fallback;
  for (auto const& c : choices)
    if (*text == c) return c;
  refuse(name, *text, meaning, fallback);
}

std::vector<long long> integersFromEnvironment(char const* name,
                                               std::vector<long long> const& fallback,
                                               long long lo, long long hi,
                                               std::string const& meaning) {
  auto const text = textFromEnvironment(name);
  if (!text) return fallback;
  std::vector<long long> values;
  std::size_t at = 0;
  while (true) {
    std::size_t const comma = text->find(',', at);
    long long v = 0;
    if (!parseInteger(text->substr(at, comma == std::string::npos ? comma : comma - at), lo, hi,
                      v))
      refuse(name, *text, meaning, joined(fallback));
    values.push_back(v);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (values.size() != fallback.size()) refuse(name, *text, meaning, joined(fallback));
  return values;
}

}  // namespace eddy
