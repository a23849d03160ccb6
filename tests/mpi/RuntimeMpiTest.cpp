// The runtime across ranks: node-local ranks, device mapping, timing summary over ranks.
#include "EddyTest.hpp"

#include "eddy/core/Compat.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Timer.hpp"

namespace {

TEST(Runtime, NodeLocalRanksAreDistinctAndDense) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int lr = 0, ls = 0;
  MPI_Comm_rank(node, &lr);
  MPI_Comm_size(node, &ls);
  std::vector<int> all(ls);
  MPI_Allgather(&lr, 1, MPI_INT, all.data(), 1, MPI_INT, node);
  std::sort(all.begin(), all.end());
  for (int i = 0; i < ls; ++i) EXPECT_EQ(all[i], i);
  MPI_Comm_free(&node);
}

TEST(Runtime, EachRankUsesTheGpuOfItsNodeLocalRank) {
  int const ndev = eddy::compat::visibleDeviceCount();
  if (ndev == 0) {
    EXPECT_EQ(eddy::compat::activeDeviceId(), -1);
    return;
  }
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int lr = 0;
  MPI_Comm_rank(node, &lr);
  MPI_Comm_free(&node);
  EXPECT_EQ(eddy::compat::activeDeviceId(), lr % ndev);
}

TEST(Timer, SummaryCoversRegionsOfEveryRank) {
  eddy::timing::reset();
  int const r = eddy::test::worldRank();
  { eddy::ScopedRegion region("eddy::test::everyone"); }
  if (r == eddy::test::worldSize() - 1) {
    eddy::ScopedRegion region("eddy::test::lastRankOnly");
  }
  std::string const s = eddy::timing::summary(MPI_COMM_WORLD, 1.0);
  if (r == 0) {
    EXPECT_NE(s.find("eddy::test::everyone"), std::string::npos) << s;
    EXPECT_NE(s.find("eddy::test::lastRankOnly"), std::string::npos) << s;
  } else {
    EXPECT_TRUE(s.empty());
  }
}

}  // namespace
