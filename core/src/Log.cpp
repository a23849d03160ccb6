#include "eddy/core/Log.hpp"

#include "eddy/core/Error.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>

namespace eddy::log {

namespace {

struct State {
  int rank = 0;
  int size = 1;
  bool quiet = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::unique_ptr<std::ofstream> file;
  std::unique_ptr<std::ofstream> debug;
  std::mutex mutex;
};

State& state() {
  static State s;
  return s;
}

std::string stamp() {
  auto& s = state();
  double const t =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
  std::time_t const now = std::time(nullptr);
  char wall[32];
  std::strftime(wall, sizeof wall, "%H:%M:%S", std::localtime(&now));
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%s %9.3f s] ", wall, t);
  return buf;
}

}  // namespace

void configure(int rank, int size) {
  auto& s = state();
  s.rank = rank;
  s.size = size;
}

void addFile(std::string const& path) {
  auto& s = state();
  if (s.rank != 0) return;
  auto f = std::make_unique<std::ofstream>(path, std::ios::app);
  if (!*f) throw IoError(str("cannot open log file '", path, "' for writing"));
  s.file = std::move(f);
}

void enableDebug(std::string const& dir) {
  auto& s = state();
  std::string const path = str(dir, "/eddy.debug.", s.rank, ".log");
  auto f = std::make_unique<std::ofstream>(path, std::ios::app);
  if (!*f) throw IoError(str("cannot open debug log '", path, "' for writing"));
  s.debug = std::move(f);
}

void setQuiet(bool quiet) {
  state().quiet = quiet;
}

double elapsed() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - state().start).count();
}

namespace {
void line(std::string const& text, bool shown) {
  auto& s = state();
  if (s.rank != 0) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  std::string const stamped = stamp() + text;
  if (shown) std::cout << stamped << '\n' << std::flush;
  if (s.file) *s.file << stamped << '\n' << std::flush;
}
}  // namespace

void info(std::string const& text) {
  line(text, !state().quiet);
}

void result(std::string const& text) {
  line(text, true);
}

void warn(std::string const& line) {
  auto& s = state();
  if (s.rank != 0) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  std::string const text = stamp() + "warning: " + line;
  std::cerr << text << '\n' << std::flush;
  if (s.file) *s.file << text << '\n' << std::flush;
}

void warnLocal(std::string const& line) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::cerr << "[rank " << s.rank << "] " << stamp() << "warning: " << line << '\n' << std::flush;
}

void debug(std::string const& line) {
  auto& s = state();
  if (!s.debug) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  *s.debug << stamp() << line << '\n' << std::flush;
}

bool debugEnabled() {
  return static_cast<bool>(state().debug);
}

}  // namespace eddy::log
