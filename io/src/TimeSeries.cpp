#include "eddy/io/TimeSeries.hpp"

#include "eddy/core/Error.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

namespace eddy::io {

TimeSeries::TimeSeries(MPI_Comm comm, std::string path, std::int64_t every)
    : m_comm(comm), m_path(std::move(path)), m_every(every) {
  if (every < 1)
    throw ConfigError(str("time series '", m_path, "': every = ", every, "; expected >= 1"));
  checkMpi(MPI_Comm_rank(comm, &m_rank), "MPI_Comm_rank (eddy::io::TimeSeries)");
}

TimeSeries::~TimeSeries() {
  if (m_file) std::fclose(m_file);
}

void TimeSeries::addColumn(std::string name, std::string unit) {
  if (m_open)
    throw Error(str("time series '", m_path, "': column '", name,
                    "' added after open(); expected every column before the first row"));
  for (auto const& n : m_names)
    if (n == name)
      throw Error(str("time series '", m_path, "': column '", name,
                      "' registered twice; expected unique names"));
  m_names.push_back(std::move(name));
  m_units.push_back(unit.empty() ? std::string("1") : std::move(unit));
}

std::string TimeSeries::header() const {
  std::string h;
  for (std::size_t c = 0; c < m_names.size(); ++c)
    h += (c ? "," : "") + m_names[c] + " [" + m_units[c] + "]";
  return h;
}

void TimeSeries::open() {
  if (m_open) return;
  char reason[256] = {0};
  if (m_rank == 0) {
    m_file = std::fopen(m_path.c_str(), "w");
    if (!m_file) {
      std::snprintf(reason, sizeof reason, "%s", std::strerror(errno));
    } else if (std::fprintf(m_file, "%s\n", header().c_str()) < 0 || std::fflush(m_file) != 0) {
      std::snprintf(reason, sizeof reason, "writing the header failed");
    }
  }
  checkMpi(MPI_Bcast(reason, sizeof reason, MPI_CHAR, 0, m_comm), "MPI_Bcast (TimeSeries open)");
  if (reason[0] != '\0')
    throw IoError(str("cannot create time series '", m_path, "': ", reason), true);
  m_open = true;
}

void TimeSeries::record(std::vector<double> const& values) {
  if (!m_open)
    throw Error(str("time series '", m_path, "': record() before open(); expected open() first"));
  if (values.size() != m_names.size())
    throw Error(str("time series '", m_path, "': ", values.size(), " values; expected ",
                    m_names.size(), " (one per column: ", header(), ")"));
  ++m_rows;
  if (m_rank != 0) return;
  std::string line;
  char buf[40];
  for (std::size_t c = 0; c < values.size(); ++c) {
    std::snprintf(buf, sizeof buf, "%s%.17g", c ? "," : "", values[c]);
    line += buf;
  }
  line += '\n';
  if (std::fputs(line.c_str(), m_file) < 0 || std::fflush(m_file) != 0)
    throw IoError(str("cannot write to time series '", m_path, "': ", std::strerror(errno)));
}

}  // namespace eddy::io
