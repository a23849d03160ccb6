/// @file Log.hpp
/// @brief Rank-0 log with timestamps, and an optional per-rank debug log.
#pragma once

#include <iosfwd>
#include <string>

namespace eddy::log {

/// Sets the rank that logs (rank 0 writes info/warn lines). Called by `eddy::Runtime`.
void configure(int rank, int size);

/// Also writes rank 0's lines to `path` (the run log in the output directory). Flushed per line.
void addFile(std::string const& path);

/// Opens `dir/eddy.debug.<rank>.log` on every rank; `debug()` lines go there.
void enableDebug(std::string const& dir);

/// Keeps `info` lines off stdout (`eddy run --quiet`); the log file still gets them, and
/// warnings and `result` lines are printed as before.
void setQuiet(bool quiet);

/// Seconds since the runtime started (monotonic clock).
double elapsed();

/// A line from rank 0, prefixed with the wall-clock time and the elapsed seconds.
void info(std::string const& line);
/// A line of the outcome from rank 0 (a run's final lines): as `info`, but printed when quiet.
void result(std::string const& line);
/// A warning from rank 0 (to stderr as well as the log file).
void warn(std::string const& line);
/// A warning from this rank, whichever it is, prefixed `[rank N]`.
void warnLocal(std::string const& line);
/// A line in this rank's debug log; does nothing unless `enableDebug` was called.
void debug(std::string const& line);
/// True when debug lines are recorded (to skip building expensive messages).
bool debugEnabled();

}  // namespace eddy::log
