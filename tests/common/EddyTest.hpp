/// @file EddyTest.hpp
/// @brief Helpers shared by the test programs: one test body for every enabled backend.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace eddy {
class Runtime;
}

namespace eddy::test {

/// The runtime the test program's main started (MPI and Kokkos).
Runtime const& runtime();

template <class List>
struct ToGTestTypes;
template <class... Spaces>
struct ToGTestTypes<ExecSpaceList<Spaces...>> {
  using type = ::testing::Types<Spaces...>;
};

/// `::testing::Types` of every execution space compiled in (e.g. Cuda and OpenMP, or Serial);
/// only the default one when configured with -DEDDY_TESTS_DEFAULT_SPACE_ONLY=ON (quicker GPU
/// builds: the typed tests are compiled once instead of once per space).
#if defined(EDDY_TESTS_DEFAULT_SPACE_ONLY)
using ExecSpaces = ::testing::Types<ExecSpace>;
#else
using ExecSpaces = typename ToGTestTypes<EnabledExecSpaces>::type;
#endif

inline int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int worldSize() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// A path in the temporary directory for file `name`, distinct per process and rank.
inline std::string tempPath(std::string const& name) {
  return (std::filesystem::temp_directory_path() / ("eddy_" + std::to_string(::getpid()) + "_" +
                                                    std::to_string(worldRank()) + "_" + name))
      .string();
}

/// Writes `text` to tempPath(name) and returns that path.
inline std::string writtenFile(std::string const& name, std::string const& text) {
  std::string const path = tempPath(name);
  std::ofstream(path) << text;
  return path;
}

/// File texts a reader must refuse, each with words its message must contain.
using RefusedFiles = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// Writes each text of `cases` to tempPath(name), reads it with `read(path)` and expects an
/// eddy::IoError whose message has every word of the case.
template <class Read>
void expectRefused(std::string const& name, RefusedFiles const& cases, Read read) {
  for (auto const& [text, words] : cases) {
    std::string const path = writtenFile(name, text);
    std::string what;
    try {
      read(path);
    } catch (IoError const& e) {
      what = e.what();
    }
    std::remove(path.c_str());
    ASSERT_FALSE(what.empty()) << "accepted:\n" << text;
    for (auto const& w : words)
      EXPECT_NE(what.find(w), std::string::npos) << what << "\n--\n" << text;
  }
}

/// True on every rank when `ok` is true on every rank (for assertions on distributed results).
inline bool allRanks(bool ok) {
  int v = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

/// Sets an environment variable for a scope (unset again at its end, also when an assertion
/// leaves the test early).
struct ScopedEnv {
  char const* name;
  ScopedEnv(char const* n, char const* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name); }
  ScopedEnv(ScopedEnv const&) = delete;
  ScopedEnv& operator=(ScopedEnv const&) = delete;
};

}  // namespace eddy::test
