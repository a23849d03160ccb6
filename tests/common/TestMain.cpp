// GoogleTest main for every Eddy test program: starts MPI and Kokkos through eddy::Runtime, lets
// rank 0 print the full report and the other ranks only their failures, and fails the program
// on every rank when any rank failed.
#include "EddyTest.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Runtime.hpp"

#include <gtest/gtest.h>

#include <cstdio>

namespace {

eddy::Runtime const* g_runtime = nullptr;

/// Prints failed assertions of a non-zero rank, prefixed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : m_rank(rank) {}
  void OnTestPartResult(::testing::TestPartResult const& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", m_rank,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int m_rank;
};

}  // namespace

eddy::Runtime const& eddy::test::runtime() {
  return *g_runtime;
}

int main(int argc, char** argv) {
  int result = 1;
  try {
    eddy::Runtime runtime(argc, argv);
    g_runtime = &runtime;
    ::testing::InitGoogleTest(&argc, argv);
    if (runtime.rank() != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new RankFailurePrinter(runtime.rank()));
    }
    int const local = RUN_ALL_TESTS();
    MPI_Allreduce(&local, &result, 1, MPI_INT, MPI_MAX, runtime.comm());
  } catch (std::exception const& e) {
    return eddy::reportFatal(e, MPI_COMM_WORLD);
  }
  return result;
}
