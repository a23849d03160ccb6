/// @file Error.hpp
/// @brief Exceptions with context, process exit codes and the fatal-error path that never hangs.
#pragma once

#include <mpi.h>

#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace eddy {

/// Process exit codes of `eddy` (documented in docs/running.md).
enum class ExitCode : int {
  Success = 0,
  Failure = 1,    ///< a run-time error (solver failure, bad state, ...)
  Usage = 2,      ///< bad command line
  Deck = 3,       ///< the deck failed validation or does not fit its restart file
  Io = 4,         ///< a file or directory could not be read or written
  Internal = 70,  ///< an error raised on some ranks only; the job was aborted
};

/// Concatenates anything printable into one string: `str("n = ", n)`.
template <class... Args>
std::string str(Args const&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

/// Base of Eddy's exceptions. `collective()` errors are raised identically by every rank (for
/// example a bad deck, which all ranks parse); the others may come from a single rank.
class Error : public std::runtime_error {
 public:
  explicit Error(std::string const& what, ExitCode code = ExitCode::Failure,
                 bool collective = false)
      : std::runtime_error(what), m_code(code), m_collective(collective) {}
  ExitCode code() const noexcept { return m_code; }
  bool collective() const noexcept { return m_collective; }

 private:
  ExitCode m_code;
  bool m_collective;
};

/// The command line was wrong (raised on every rank).
class UsageError : public Error {
 public:
  explicit UsageError(std::string const& what) : Error(what, ExitCode::Usage, true) {}
};

/// The deck failed validation, or does not fit the checkpoint it restarts from (another model,
/// grid, box, particle count, or a step beyond run.steps); raised on every rank: all parse the
/// same text and read the same checkpoint header.
class DeckError : public Error {
 public:
  explicit DeckError(std::string const& what) : Error(what, ExitCode::Deck, true) {}
};

/// A file system or HDF5 operation failed.
class IoError : public Error {
 public:
  explicit IoError(std::string const& what, bool collective = false)
      : Error(what, ExitCode::Io, collective) {}
};

/// A configuration error every rank detects identically (bad decomposition request, ...).
class ConfigError : public Error {
 public:
  explicit ConfigError(std::string const& what) : Error(what, ExitCode::Failure, true) {}
};

/// A parameter a model cannot run with, found by the model's one check of its parameters: the
/// deck key it comes from (`fluids.boundary.x_low`), what is wrong and what is expected. The
/// model's constructor throws the first as an eddy::ConfigError; `eddy validate` and `run`
/// report it at the key's place in the deck (exit code 3) before anything is built.
struct Violation {
  std::string key;
  std::string what;
  std::string expected;
};

/// Throws eddy::ConfigError "key: what; expected" for the first of `violations`, if any.
inline void throwFirst(std::vector<Violation> const& violations) {
  if (violations.empty()) return;
  auto const& v = violations.front();
  throw ConfigError(str(v.key, ": ", v.what, "; ", v.expected));
}

/// Throws `eddy::Error` naming the call site when `cond` is false. The message should name the
/// object, the value and what was expected.
#define EDDY_REQUIRE(cond, ...)                                                          \
  do {                                                                                   \
    if (!(cond))                                                                         \
      throw ::eddy::Error(::eddy::str(__VA_ARGS__, " [", __FILE__, ":", __LINE__, "]")); \
  } while (false)

/// Throws when an MPI call failed, naming the call and MPI's error string.
void checkMpi(int rc, char const* call);

/// Reports an exception that escaped to `main` and decides how the process ends.
///
/// Collective errors are printed once, by rank 0; the ranks then agree (with a time-out, so a
/// rank that never arrives cannot hang the job) and the function returns the exit code for a
/// normal shutdown. Any other error is printed by the rank that raised it, prefixed `[rank N]`,
/// and the job is ended with MPI_Abort. Never returns in the abort case.
int reportFatal(std::exception const& e, MPI_Comm comm);

}  // namespace eddy
