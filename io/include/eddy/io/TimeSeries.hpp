/// @file TimeSeries.hpp
/// @brief Diagnostics time series: a CSV file in the run's output directory, written by rank 0,
/// one row per sample, flushed after every row so that a crashed run keeps its history.
///
/// The model registers its columns (name and unit) before the first row; the header line
/// names them as `name [unit]` (unit `1` for dimensionless quantities), e.g.
///   step [1],time [tau],T [eps/kB]
/// Values are written with 17 significant digits (doubles round-trip exactly). Rows are taken
/// every `every` steps by the driver (`due(step)`); `record` is collective in the sense that
/// every rank calls it with the same values, but only rank 0 touches the file.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace eddy::io {

class TimeSeries {
 public:
  /// A series written to `path` by rank 0 of `comm`, one row every `every` steps (>= 1).
  /// Nothing is opened until `open()`. Throws eddy::ConfigError when every < 1.
  TimeSeries(MPI_Comm comm, std::string path, std::int64_t every);
  ~TimeSeries();
  TimeSeries(TimeSeries const&) = delete;
  TimeSeries& operator=(TimeSeries const&) = delete;

  /// Registers a column; only before `open()`. Throws eddy::Error on a duplicate name or
  /// after `open()`.
  void addColumn(std::string name, std::string unit);
  /// Collective: rank 0 creates (truncates) the file and writes the header. Throws eddy::IoError
  /// (on every rank) when the file cannot be created.
  void open();
  /// Collective, instead of open() for a run restarted at step `step`: continues the series in
  /// its existing file. Rank 0 keeps the header and the rows whose first value (the step) is at
  /// most `step`, drops later rows (written by a run that went on past that step), rewrites the
  /// file through `<path>.tmp` and a rename, and appends from there. Without a file it starts
  /// one as open() does. Throws eddy::IoError (on every rank) when the file cannot be read or
  /// written, or when its header is not the one of these columns.
  void resume(std::int64_t step);

  /// True when a row is due at `step` (every `every` steps, step 0 included).
  bool due(std::int64_t step) const { return step % m_every == 0; }
  /// Writes one row (rank 0), flushed. Throws eddy::Error unless there is one value per
  /// column, or eddy::IoError when the write fails.
  void record(std::vector<double> const& values);

  std::string const& path() const { return m_path; }
  std::int64_t every() const { return m_every; }
  std::size_t columns() const { return m_names.size(); }
  std::int64_t rows() const { return m_rows; }
  /// The header line (without the newline).
  std::string header() const;

 private:
  MPI_Comm m_comm;
  std::string m_path;
  std::int64_t m_every;
  int m_rank = 0;
  std::vector<std::string> m_names, m_units;
  std::FILE* m_file = nullptr;
  bool m_open = false;
  std::int64_t m_rows = 0;
};

}  // namespace eddy::io
