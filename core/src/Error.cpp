#include "eddy/core/Error.hpp"

#include "eddy/core/Environment.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

namespace eddy {

void checkMpi(int rc, char const* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(str(call, " failed: ", std::string(text, len)));
}

namespace {

int worldRank() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// Seconds the ranks wait for each other after a collective error before aborting
/// (EDDY_ERROR_TIMEOUT). Read while an error is reported: a malformed value is reported too and
/// the default taken, since throwing here would lose the error being reported.
double agreementTimeout() {
  double const fallback = 30.0;
  try {
    return numberFromEnvironment("EDDY_ERROR_TIMEOUT", fallback, 0.0, 1e6,
                                 "seconds from 0 to 1e6 (how long ranks wait for each other "
                                 "after an error)");
  } catch (ConfigError const& e) {
    std::fprintf(stderr, "eddy: warning: %s; waiting %g s\n", e.what(), fallback);
    return fallback;
  }
}

}  // namespace

int reportFatal(std::exception const& e, MPI_Comm comm) {
  auto const* err = dynamic_cast<Error const*>(&e);
  int const code = err ? static_cast<int>(err->code()) : static_cast<int>(ExitCode::Failure);
  int const rank = worldRank();
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  bool const mpiUp = initialized && !finalized;

  if (err && err->collective()) {
    if (rank == 0) {
      std::fprintf(stderr, "eddy: error: %s\n", e.what());
      std::fflush(stderr);
    }
    if (!mpiUp) return code;
    // Every rank should be here; confirm it with a barrier that cannot hang.
    MPI_Request req;
    MPI_Ibarrier(comm, &req);
    auto const deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(agreementTimeout());
    int done = 0;
    while (!done) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (done) break;
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "[rank %d] eddy: error: %s (other ranks did not stop; aborting)\n",
                     rank, e.what());
        std::fflush(stderr);
        MPI_Abort(comm, code);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return code;
  }

  std::fprintf(stderr, "[rank %d] eddy: error: %s\n", rank, e.what());
  std::fflush(stderr);
  std::fflush(stdout);
  if (mpiUp) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size > 1) MPI_Abort(comm, static_cast<int>(ExitCode::Internal));
  }
  return code;
}

}  // namespace eddy
