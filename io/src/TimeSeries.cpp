#include "eddy/io/TimeSeries.hpp"

#include "eddy/core/Error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
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

void TimeSeries::resume(std::int64_t step) {
  if (m_open) return;
  char reason[512] = {0};
  long long kept = 0;
  if (m_rank == 0) {
    errno = 0;
    std::ifstream in(m_path);
    bool const existed = static_cast<bool>(in);
    if (!in) {
      if (errno != ENOENT)
        std::snprintf(reason, sizeof reason, "cannot read it: errno %d: %s", errno,
                      std::strerror(errno));
    } else {
      std::string const tmp = m_path + ".tmp";
      std::string line;
      std::getline(in, line);
      if (line != header()) {
        std::snprintf(reason, sizeof reason,
                      "its header '%.200s' is not the expected '%.200s' (a different model?)",
                      line.c_str(), header().c_str());
      } else {
        std::FILE* out = std::fopen(tmp.c_str(), "w");
        bool good = out && std::fprintf(out, "%s\n", line.c_str()) >= 0;
        while (good && std::getline(in, line)) {
          if (line.empty()) continue;
          // Rows up to `step` were flushed before the checkpoint was written; later ones (a
          // partial last line of a crashed run among them) are dropped.
          char* end = nullptr;
          double const s = std::strtod(line.c_str(), &end);
          if (end == line.c_str() || s > static_cast<double>(step)) continue;
          good = std::fprintf(out, "%s\n", line.c_str()) >= 0;
          ++kept;
        }
        int const err = errno;
        if (out && std::fclose(out) != 0) good = false;
        if (!good || std::rename(tmp.c_str(), m_path.c_str()) != 0) {
          std::snprintf(reason, sizeof reason, "rewriting it through '%s' failed: errno %d: %s",
                        tmp.c_str(), errno ? errno : err, std::strerror(errno ? errno : err));
          std::remove(tmp.c_str());
        }
      }
    }
    if (reason[0] == '\0') {
      m_file = std::fopen(m_path.c_str(), "a");
      if (!m_file) {
        std::snprintf(reason, sizeof reason, "cannot open it to append: errno %d: %s", errno,
                      std::strerror(errno));
      } else if (!existed &&
                 (std::fprintf(m_file, "%s\n", header().c_str()) < 0 || std::fflush(m_file) != 0)) {
        std::snprintf(reason, sizeof reason, "writing the header failed");
      }
    }
  }
  checkMpi(MPI_Bcast(reason, sizeof reason, MPI_CHAR, 0, m_comm), "MPI_Bcast (TimeSeries resume)");
  if (reason[0] != '\0')
    throw IoError(str("cannot continue time series '", m_path, "': ", reason), true);
  checkMpi(MPI_Bcast(&kept, 1, MPI_LONG_LONG, 0, m_comm), "MPI_Bcast (TimeSeries rows)");
  m_rows = kept;
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
