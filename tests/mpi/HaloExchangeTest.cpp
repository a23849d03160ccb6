// Halo exchange across ranks: owned entries hold a unique function of their global index, ghosts
// start as a sentinel; after the exchange every ghost must hold its owner's value (periodic wrap
// included) and every ghost across a non-periodic domain boundary must still hold the sentinel.
#include "EddyTest.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Environment.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/HaloExchange.hpp"
#include "eddy/core/Transport.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using eddy::Box3;
using eddy::CartDecomposition;
using eddy::Centering;
using eddy::Index3;
using eddy::Periodic3;

constexpr double kSentinel = -12345.0;

/// Exact in a double for global indices < 1000 and small field ids; for a float field exact in
/// a float (indices < 32, the field id modulo 16).
template <class T = double>
T encode(int fieldId, Index3 const& g) {
  if constexpr (sizeof(T) < sizeof(double))
    return static_cast<T>(1 + g[0] + 32 * (g[1] + 32 * (g[2] + 32 * (fieldId % 16))));
  else
    return 1.0 + g[0] + 1000.0 * (g[1] + 1000.0 * (g[2] + 1000.0 * fieldId));
}

/// Owned entries get encode(fieldId, global index); all others the sentinel.
template <class Mem, class T>
void fill(eddy::Field<Mem, T> const& f, int fieldId) {
  auto h = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(h, kSentinel);
  Box3 const own = f.ownedBox();
  Index3 const g = f.ghosts(), off = f.globalOffset();
  for (int k = own.lo[2]; k < own.hi[2]; ++k)
    for (int j = own.lo[1]; j < own.hi[1]; ++j)
      for (int i = own.lo[0]; i < own.hi[0]; ++i)
        h(i + g[0], j + g[1], k + g[2]) = encode<T>(fieldId, {off[0] + i, off[1] + j, off[2] + k});
  Kokkos::deep_copy(f.view(), h);
}

/// Counts entries (owned and ghost) that differ from what the owner holds, or from the sentinel
/// across a non-periodic boundary; describes the first few in `report`.
template <class Mem, class T>
long long countWrong(eddy::Field<Mem, T> const& f, CartDecomposition const& d, int fieldId,
                     std::string& report, long long* boundaryEntries = nullptr) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  Box3 const all = f.allocatedBox();
  Index3 const g = f.ghosts(), off = f.globalOffset(), n = d.globalCells();
  int const fa = f.faceAxis();
  long long wrong = 0, boundary = 0;
  std::ostringstream os;
  for (int k = all.lo[2]; k < all.hi[2]; ++k)
    for (int j = all.lo[1]; j < all.hi[1]; ++j)
      for (int i = all.lo[0]; i < all.hi[0]; ++i) {
        Index3 const e{i, j, k};
        Index3 gl{};
        bool outside = false;
        for (int a = 0; a < 3; ++a) {
          gl[a] = off[a] + e[a];
          if (a >= d.dims()) continue;
          if (d.isPeriodic(a))
            gl[a] = ((gl[a] % n[a]) + n[a]) % n[a];  // face n is face 0
          else if (gl[a] < 0 || gl[a] >= n[a] + (a == fa ? 1 : 0))
            outside = true;
        }
        boundary += outside;
        T const expected = outside ? static_cast<T>(kSentinel) : encode<T>(fieldId, gl);
        T const got = h(i + g[0], j + g[1], k + g[2]);
        if (got != expected) {
          if (wrong < 5)
            os << "  local (" << i << "," << j << "," << k << ") global (" << gl[0] << "," << gl[1]
               << "," << gl[2] << "): got " << got << ", expected " << expected << "\n";
          ++wrong;
        }
      }
  report = os.str();
  if (boundaryEntries) *boundaryEntries = boundary;
  return wrong;
}

struct Case {
  char const* name;
  int dims;
  Index3 cells;
  Periodic3 periodic;
  bool allRanksAlongX;  ///< force the grid nranks x 1 x 1 (else the chosen one)
};

/// Sizes fit ghost width 2 on face fields at up to 6 ranks, with uneven splits.
std::vector<Case> cases() {
  return {
      {"3D periodic", 3, {19, 11, 9}, {true, true, true}, false},
      {"3D mixed", 3, {19, 11, 9}, {true, false, true}, false},
      {"3D mixed along x", 3, {19, 11, 9}, {false, true, false}, true},
      {"3D closed", 3, {19, 11, 9}, {false, false, false}, false},
      {"2D periodic", 2, {23, 17, 1}, {true, true, false}, false},
      {"2D mixed", 2, {23, 17, 1}, {false, true, false}, false},
      {"2D mixed along x", 2, {23, 17, 1}, {true, false, false}, true},
  };
}

/// Value k of round r that rank `from` sends (AMessageSet...): exact in a double.
KOKKOS_INLINE_FUNCTION double roundValue(int from, int r, int k) {
  return 1.0 + k + 4096.0 * (r + 64.0 * from);
}

/// `rounds` rounds of a message set (AMessageSet...): rank r sends roundValue(r,
/// round, k) as value k, received values are checked on the device and counted in `wrong`.
/// Values below `split` come from the left neighbour, the others from the right.
template <class Exec, class Buffer, class Count>
void runRounds(Exec const& space, eddy::PeerExchange<Exec>& peers, Buffer const& send,
               std::vector<eddy::PeerMessage> const& sends, Buffer const& recv,
               std::vector<eddy::PeerMessage> const& recvs, int split, int rounds,
               Count const& wrong) {
  int const size = eddy::test::worldSize(), rank = eddy::test::worldRank();
  int const left = (rank + size - 1) % size, right = (rank + 1) % size;
  int const n = static_cast<int>(send.extent(0));
  Buffer busy("eddy::test::busy", 1 << 22);
  for (int r = 0; r < rounds; ++r) {
    Kokkos::parallel_for(
        "eddy::test::fillRound", Kokkos::RangePolicy<Exec>(space, 0, n),
        KOKKOS_LAMBDA(int const k) { send(k) = roundValue(rank, r, k); });
    peers.post(space, send, sends, recv, recvs);
    if (rank % 2 == 1)
      Kokkos::parallel_for(
          "eddy::test::delay", Kokkos::RangePolicy<Exec>(space, 0, int(busy.extent(0))),
          KOKKOS_LAMBDA(int const k) { busy(k) = busy(k) * 0.5 + k; });
    peers.wait(space);
    Kokkos::parallel_for(
        "eddy::test::checkRound", Kokkos::RangePolicy<Exec>(space, 0, n),
        KOKKOS_LAMBDA(int const k) {
          double const expect = k < split ? roundValue(left, r, k) : roundValue(right, r, k);
          if (recv(k) != expect) Kokkos::atomic_add(&wrong(), 1LL);
        });
  }
  space.fence();
}

template <class Exec>
class HaloExchangeTest : public ::testing::Test {};
TYPED_TEST_SUITE(HaloExchangeTest, eddy::test::ExecSpaces);

/// Every case, centering, ghost width and transport with fields of T: every ghost holds its
/// owner's value (FillsEveryGhostWithTheOwnersValue).
template <class Exec, class T>
void fillsEveryGhost() {
  using Mem = typename Exec::memory_space;
  Exec const space;
  int const nranks = eddy::test::worldSize();
  int fieldId = 0;
  for (Case const& c : cases()) {
    Index3 const forced = c.allRanksAlongX ? Index3{nranks, 1, 1} : Index3{0, 0, 0};
    auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, c.cells, c.dims, c.periodic, forced);
    std::vector<Centering> centerings = {Centering::Cell, Centering::FaceX, Centering::FaceY};
    if (c.dims == 3) centerings.push_back(Centering::FaceZ);
    for (Centering centering : centerings)
      for (int ghost : {1, 2})
        for (eddy::TransportKind kind : eddy::transport::available()) {
          ++fieldId;
          std::string const what = eddy::str(
              c.name, " (", d.describe(), "), ", eddy::toString(centering), ", ghost ", ghost,
              ", transport ", eddy::transport::name(kind), ", ", sizeof(T), "-byte values");
          SCOPED_TRACE(what);
          eddy::Field<Mem, T> f(space, "eddy::test::halo", d, ghost, centering);
          eddy::HaloExchange<Exec, T> halo(space, MPI_COMM_WORLD, d, f, kind);
          EXPECT_EQ(halo.transportKind(), eddy::transport::forSpace<Mem>(kind));
          fill(f, fieldId);
          halo.exchange(space, f);
          space.fence();
          std::string report;
          long long boundary = 0;
          long long const wrong = countWrong(f, d, fieldId, report, &boundary);
          EXPECT_EQ(wrong, 0) << "rank " << d.rank() << ":\n" << report;
          ASSERT_TRUE(eddy::test::allRanks(wrong == 0)) << what;
          // Closed axes must leave ghosts for the boundary conditions, and only closed axes.
          bool const closed = !c.periodic[0] || !c.periodic[1] || (c.dims == 3 && !c.periodic[2]);
          EXPECT_EQ(eddy::test::allRanks(boundary == 0), !closed);
        }
  }
}

TYPED_TEST(HaloExchangeTest, FillsEveryGhostWithTheOwnersValue) {
  fillsEveryGhost<TypeParam, double>();
}

// Single-precision fields (multigrid work fields): their values travel two to a double of the
// transport's buffers, each message padded to whole doubles (odd counts in these cases).
TYPED_TEST(HaloExchangeTest, FillsEveryGhostOfAFloatField) {
  fillsEveryGhost<TypeParam, float>();
}

// The exchange in two parts for overlap: start on a second instance, copySelf on the first,
// finishPeers on the second. Together they fill every ghost as one exchange does; copySelf alone
// fills exactly the ghosts that do not come from another rank, and peerFace names the faces
// whose ghost layer does.
template <class Exec, class T>
void peersAndSelfCopiesFillEveryGhost() {
  using Mem = typename Exec::memory_space;
  Exec const space;
  Exec const second = eddy::compat::secondInstance(space, eddy::HaloTuning<Exec>::current().streamHighPriority);
  int const nranks = eddy::test::worldSize();
  int fieldId = 500;
  for (Case const& c : cases()) {
    Index3 const forced = c.allRanksAlongX ? Index3{nranks, 1, 1} : Index3{0, 0, 0};
    auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, c.cells, c.dims, c.periodic, forced);
    for (Centering centering : {Centering::Cell, Centering::FaceX})
      for (int ghost : {1, 2}) {
        ++fieldId;
        std::string const what =
            eddy::str(c.name, " (", d.describe(), "), ", eddy::toString(centering), ", ghost ",
                      ghost, ", ", sizeof(T), "-byte values");
        SCOPED_TRACE(what);
        eddy::Field<Mem, T> f(space, "eddy::test::halo", d, ghost, centering);
        eddy::HaloExchange<Exec, T> halo(space, MPI_COMM_WORLD, d, f);
        // A face's ghosts come from another rank exactly when its neighbour is another rank.
        bool anyPeer = false;
        for (int a = 0; a < 3; ++a)
          for (int side = 0; side < 2; ++side) {
            eddy::Direction dir{0, 0, 0};
            dir[a] = side ? 1 : -1;
            int const peer = a < c.dims ? d.neighbor(dir) : MPI_PROC_NULL;
            bool const expected = peer != MPI_PROC_NULL && peer != d.rank();
            EXPECT_EQ(halo.peerFace(a, side), expected) << "axis " << a << " side " << side;
            EXPECT_EQ(halo.peerFaces()[a][side], expected);
            anyPeer = anyPeer || expected;
          }
        EXPECT_EQ(halo.hasPeers(), halo.sendCount() > 0);
        if (!anyPeer) {
          EXPECT_FALSE(halo.hasPeers());
        }

        // copySelf alone: the ghosts of this rank's own messages only. Counted against a full
        // exchange: every ghost it leaves at the sentinel must be one from another rank.
        fill(f, fieldId);
        halo.copySelf(space, f);
        space.fence();
        std::string report;
        long long const missing = countWrong(f, d, fieldId, report);
        EXPECT_EQ(missing, halo.recvCount()) << "rank " << d.rank() << ":\n" << report;

        fill(f, fieldId);
        eddy::compat::orderAfter(second, space);
        halo.start(second, f);
        halo.copySelf(space, f);
        halo.finishPeers(second, f);
        eddy::compat::orderAfter(space, second);
        space.fence();
        long long const wrong = countWrong(f, d, fieldId, report);
        EXPECT_EQ(wrong, 0) << "rank " << d.rank() << ":\n" << report;
        ASSERT_TRUE(eddy::test::allRanks(wrong == 0)) << what;
        EXPECT_FALSE(halo.inFlight());
      }
  }
}

TYPED_TEST(HaloExchangeTest, PeersAndSelfCopiesTogetherFillEveryGhost) {
  peersAndSelfCopiesFillEveryGhost<TypeParam, double>();
  peersAndSelfCopiesFillEveryGhost<TypeParam, float>();
}

TYPED_TEST(HaloExchangeTest, BuffersAreReusedAcrossExchangesAndFields) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  Exec const space;
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, {19, 11, 9}, 3, {true, false, true});
  eddy::Field<Mem> a(space, "eddy::test::a", d, 2, Centering::FaceY);
  eddy::Field<Mem> b(space, "eddy::test::b", d, 2, Centering::FaceY);
  std::string report;
  for (eddy::TransportKind kind : eddy::transport::available()) {
    SCOPED_TRACE(eddy::transport::name(kind));
    eddy::HaloExchange<Exec> halo(space, MPI_COMM_WORLD, d, a.layout(), kind);
    for (int round = 0; round < 3; ++round) {
      fill(a, 100 + round);
      fill(b, 200 + round);
      // Split API: interior work could run between start and finish.
      halo.start(space, a);
      EXPECT_TRUE(halo.inFlight());
      EXPECT_THROW(halo.start(space, a), eddy::Error);
      halo.finish(space, a);
      EXPECT_FALSE(halo.inFlight());
      halo.exchange(space, b);
      space.fence();
      EXPECT_EQ(countWrong(a, d, 100 + round, report), 0) << report;
      EXPECT_EQ(countWrong(b, d, 200 + round, report), 0) << report;
    }
    EXPECT_THROW(halo.finish(space, a), eddy::Error);
  }
  EXPECT_TRUE(eddy::test::allRanks(!::testing::Test::HasFailure()));
}

// A message set whose receives leave a gap in the buffer (the multigrid gather keeps its own
// block there): every transport fills the received ranges and leaves the gap as it was, the
// staged one included (it copies back only what arrived).
TYPED_TEST(HaloExchangeTest, PeerMessagesLeaveTheGapsOfTheReceiveBuffer) {
  using Exec = TypeParam;
  using Buffer = Kokkos::View<double*, typename Exec::memory_space>;
  Exec const space;
  int const size = eddy::test::worldSize(), rank = eddy::test::worldRank();
  int const left = (rank + size - 1) % size, right = (rank + 1) % size;
  // Receive buffer: 3 values from the left, a gap of 5 live values, 2 from the right.
  Buffer send("eddy::test::peerSend", 5), recv("eddy::test::peerRecv", 10);
  auto hs = Kokkos::create_mirror_view(send);
  for (int k = 0; k < 5; ++k) hs(k) = 100.0 * rank + k;
  Kokkos::deep_copy(send, hs);
  auto hr = Kokkos::create_mirror_view(recv);
  for (int k = 0; k < 10; ++k) hr(k) = -1.0 - k;
  Kokkos::deep_copy(recv, hr);
  // To the right: values 0..2 (tag 1); to the left: values 3..4 (tag 2).
  std::vector<eddy::PeerMessage> const sends{{right, 1, 0, 3}, {left, 2, 3, 2}};
  std::vector<eddy::PeerMessage> const recvs{{left, 1, 0, 3}, {right, 2, 8, 2}};
  for (eddy::TransportKind kind : {eddy::TransportKind::Mpi, eddy::TransportKind::MpiStaged,
                                   eddy::TransportKind::Nccl}) {
    auto const available = eddy::transport::available();
    if (std::find(available.begin(), available.end(), kind) == available.end()) continue;
    // NCCL carries messages between ranks only (callers copy what a rank sends itself).
    if (eddy::transport::usesNccl(kind) && size == 1) continue;
    SCOPED_TRACE(eddy::transport::name(kind));
    Kokkos::deep_copy(recv, hr);
    {
      eddy::PeerExchange<Exec> peers(MPI_COMM_WORLD, kind);
      peers.post(space, send, sends, recv, recvs);
      peers.wait(space);
      space.fence();
    }
    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), recv);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(got(k), 100.0 * left + k) << "entry " << k;
    for (int k = 3; k < 8; ++k) EXPECT_EQ(got(k), -1.0 - k) << "gap entry " << k;
    for (int k = 0; k < 2; ++k) EXPECT_EQ(got(8 + k), 100.0 * right + 3 + k) << "entry " << 8 + k;
  }
}

// A message set posted from the same buffers for many rounds without a fence (as a halo
// exchange is): each round's values must arrive, none from an earlier round and none
// overwritten by the next before it was received. Odd ranks delay their side of each round with
// extra work, so that a fast sender would overwrite its buffer while the slow one still reads
// it, were the rounds not ordered.
TYPED_TEST(HaloExchangeTest, AMessageSetCarriesEveryRoundInOrder) {
  using Exec = TypeParam;
  using Buffer = Kokkos::View<double*, typename Exec::memory_space>;
  Exec const space;
  int const size = eddy::test::worldSize(), rank = eddy::test::worldRank();
  int const left = (rank + size - 1) % size, right = (rank + 1) % size;
  // 3000 values to the right (tag 1), 1000 to the left (tag 2); with two ranks both go to the
  // one peer and travel as one message.
  int constexpr nr = 3000, nl = 1000, rounds = 40;
  std::vector<eddy::PeerMessage> const sends{{right, 1, 0, nr}, {left, 2, nr, nl}};
  std::vector<eddy::PeerMessage> const recvs{{left, 1, 0, nr}, {right, 2, nr, nl}};
  Kokkos::View<long long, typename Exec::memory_space> wrong("eddy::test::wrong");
  for (eddy::TransportKind kind : eddy::transport::available()) {
    // NCCL carries messages between ranks only.
    if (eddy::transport::usesNccl(kind) && size == 1) continue;
    SCOPED_TRACE(eddy::transport::name(kind));
    Kokkos::deep_copy(wrong, 0);
    {
      eddy::PeerExchange<Exec> peers(MPI_COMM_WORLD, kind, /*coalesce=*/true);
      Buffer const send("eddy::test::sendBuffer", nr + nl), recv("eddy::test::recvBuffer", nr + nl);
      runRounds(space, peers, send, sends, recv, recvs, nr, rounds, wrong);
      space.fence();
    }
    long long got = 0;
    Kokkos::deep_copy(got, wrong);
    EXPECT_EQ(got, 0) << "values of " << rounds << " rounds arrived wrong on rank " << rank;
  }
  EXPECT_TRUE(eddy::test::allRanks(!::testing::Test::HasFailure()));
}

// sumIntoOwners is the adjoint of an exchange: for owned values U and ghost values G,
// sum over owned entries of (sumIntoOwners(G) - G_owned) U equals sum over ghosts of G E(U), E
// the exchange (ghosts it does not fill count 0). So every ghost is added to the entry an
// exchange fills it from, once, on every rank count, transport and centering, and owned values
// are kept.
TYPED_TEST(HaloExchangeTest, SumIntoOwnersIsTheExchangeReversed) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  using Int = long long;
  Exec const space;
  int const nranks = eddy::test::worldSize(), rank = eddy::test::worldRank();
  for (Case const& c : cases()) {
    Index3 const forced = c.allRanksAlongX ? Index3{nranks, 1, 1} : Index3{0, 0, 0};
    auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, c.cells, c.dims, c.periodic, forced);
    std::vector<Centering> centerings = {Centering::Cell, Centering::FaceX, Centering::FaceY};
    if (c.dims == 3) centerings.push_back(Centering::FaceZ);
    for (Centering centering : centerings)
      for (int ghost : {1, 2})
        for (eddy::TransportKind kind : eddy::transport::available()) {
          std::string const what =
              eddy::str(c.name, " (", d.describe(), "), ", eddy::toString(centering), ", ghost ",
                        ghost, ", transport ", eddy::transport::name(kind));
          SCOPED_TRACE(what);
          eddy::Field<Mem, Int> u(space, "eddy::test::owned", d, ghost, centering);
          eddy::Field<Mem, Int> g(space, "eddy::test::ghosts", d, ghost, centering);
          eddy::HaloExchange<Exec, Int> halo(space, MPI_COMM_WORLD, d, u, kind);
          auto hu = Kokkos::create_mirror_view(u.view());
          auto hg = Kokkos::create_mirror(g.view());  // a copy: kept as it was
          Box3 const all = u.allocatedBox(), own = u.ownedBox();
          Index3 const gh = u.ghosts(), off = u.globalOffset();
          auto owned = [&](int i, int j, int k) {
            Index3 const e{i, j, k};
            for (int a = 0; a < 3; ++a)
              if (e[a] < own.lo[a] || e[a] >= own.hi[a]) return false;
            return true;
          };
          for (int k = all.lo[2]; k < all.hi[2]; ++k)
            for (int j = all.lo[1]; j < all.hi[1]; ++j)
              for (int i = all.lo[0]; i < all.hi[0]; ++i) {
                Int const global = (off[0] + i) + 31 * (off[1] + j) + 7 * (off[2] + k);
                Int const local = (i - all.lo[0]) + 37 * (j - all.lo[1]) + 11 * (k - all.lo[2]);
                hu(i + gh[0], j + gh[1], k + gh[2]) = owned(i, j, k) ? 1 + global % 97 : 0;
                hg(i + gh[0], j + gh[1], k + gh[2]) = 1 + (131 * rank + local) % 89;
              }
          Kokkos::deep_copy(u.view(), hu);
          Kokkos::deep_copy(g.view(), hg);
          halo.exchange(space, u);
          halo.sumIntoOwners(space, g);
          space.fence();
          auto const ru = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
          auto const rg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.view());
          long long sums[2] = {0, 0};  // owned side, ghost side
          for (int k = all.lo[2]; k < all.hi[2]; ++k)
            for (int j = all.lo[1]; j < all.hi[1]; ++j)
              for (int i = all.lo[0]; i < all.hi[0]; ++i) {
                int const a = i + gh[0], b = j + gh[1], e = k + gh[2];
                if (owned(i, j, k)) {
                  sums[0] += (rg(a, b, e) - hg(a, b, e)) * ru(a, b, e);
                } else {
                  sums[1] += hg(a, b, e) * ru(a, b, e);
                  EXPECT_EQ(rg(a, b, e), hg(a, b, e)) << "ghost " << i << "," << j << "," << k;
                }
              }
          long long total[2] = {0, 0};
          MPI_Allreduce(sums, total, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
          EXPECT_EQ(total[0], total[1]);
          ASSERT_TRUE(eddy::test::allRanks(!::testing::Test::HasFailure())) << what;
        }
  }
}

TEST(Transport, ChoicesAreValidatedAndNamed) {
  auto const available = eddy::transport::available();
  ASSERT_FALSE(available.empty());
  // The staged path works on every build; host builds add plain MPI, GPU builds nccl or
  // GPU-aware MPI when present.
  EXPECT_NE(std::find(available.begin(), available.end(), eddy::TransportKind::MpiStaged),
            available.end());
  for (auto k : available) EXPECT_EQ(eddy::transport::parse(eddy::transport::name(k)), k);
  EXPECT_THROW(eddy::transport::parse("infiniband"), eddy::ConfigError);
  EXPECT_THROW(eddy::transport::select("carrier-pigeon"), eddy::ConfigError);
  for (auto k : {eddy::TransportKind::Nccl, eddy::TransportKind::Mpi,
                 eddy::TransportKind::MpiStaged}) {
    bool const offered = std::find(available.begin(), available.end(), k) != available.end();
    if (offered) {
      eddy::transport::select(eddy::transport::name(k));
      EXPECT_EQ(eddy::transport::current(), k);
      EXPECT_NE(eddy::transport::describe().find(eddy::transport::name(k)), std::string::npos);
    } else {
      try {
        eddy::transport::select(eddy::transport::name(k));
        ADD_FAILURE() << "expected " << eddy::transport::name(k) << " to be refused";
      } catch (eddy::ConfigError const& e) {
        EXPECT_NE(std::string(e.what()).find("not available"), std::string::npos) << e.what();
      }
    }
  }
  eddy::transport::select("auto");
  std::string const env = eddy::textFromEnvironment("EDDY_TRANSPORT").value_or("auto");
  if (env == "auto")
    EXPECT_EQ(eddy::transport::current(), available.front());
  else
    EXPECT_EQ(eddy::transport::current(), eddy::transport::parse(env));
}

TYPED_TEST(HaloExchangeTest, ARankAloneExchangesWithItselfOnPeriodicAxes) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  Exec const space;
  std::string report;
  for (int dims : {2, 3}) {
    Index3 const cells{5, 4, dims == 3 ? 3 : 1};
    CartDecomposition const per(cells, dims, {true, true, true}, 1, 0);
    eddy::Field<Mem> f(space, "eddy::test::self", per, 2, Centering::FaceX);
    eddy::HaloExchange<Exec> halo(space, MPI_COMM_SELF, per, f);
    // All neighbours are this rank; the direction tags keep the messages apart.
    EXPECT_EQ(halo.messageCount(), dims == 3 ? 26 : 8);
    fill(f, 7);
    halo.exchange(space, f);
    space.fence();
    EXPECT_EQ(countWrong(f, per, 7, report), 0) << report;

    CartDecomposition const closed(cells, dims, {false, false, false}, 1, 0);
    eddy::Field<Mem> c(space, "eddy::test::closed", closed, 1, Centering::FaceY);
    eddy::HaloExchange<Exec> none(space, MPI_COMM_SELF, closed, c);
    EXPECT_EQ(none.messageCount(), 0);
    fill(c, 8);
    none.exchange(space, c);
    space.fence();
    EXPECT_EQ(countWrong(c, closed, 8, report), 0) << report;
  }
}

TYPED_TEST(HaloExchangeTest, FieldLayoutFollowsTheOwnershipRule) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  Exec const space;
  // Two ranks along x of 9 cells (5 + 4), x closed, y periodic.
  for (int r = 0; r < 2; ++r) {
    CartDecomposition const d({9, 6, 4}, 3, {false, true, false}, 2, r, {2, 1, 1});
    int const nx = r == 0 ? 5 : 4;
    eddy::Field<Mem> cell(space, "eddy::test::cell", d, 2);
    EXPECT_EQ(cell.extents(), (Index3{nx + 4, 10, 8}));
    EXPECT_EQ(cell.ownedBox().hi, (Index3{nx, 6, 4}));
    EXPECT_EQ(cell.bytes(), sizeof(double) * (nx + 4) * 10 * 8);
    eddy::Field<Mem> fx(space, "eddy::test::fx", d, 2, Centering::FaceX);
    EXPECT_EQ(fx.extents(), (Index3{nx + 5, 10, 8}));
    // Face nx is owned only at the closed high boundary (rank 1).
    EXPECT_EQ(fx.ownedBox().hi, (Index3{r == 1 ? nx + 1 : nx, 6, 4}));
    EXPECT_EQ(fx.allocatedBox().lo, (Index3{-2, -2, -2}));
    EXPECT_EQ(fx.allocatedBox().hi, (Index3{nx + 3, 8, 6}));
    eddy::Field<Mem> fy(space, "eddy::test::fy", d, 1, Centering::FaceY);
    EXPECT_EQ(fy.ownedBox().hi, (Index3{nx, 6, 4}));  // y periodic: face 6 is a ghost
    eddy::Field<Mem> fz(space, "eddy::test::fz", d, 1, Centering::FaceZ);
    EXPECT_EQ(fz.ownedBox().hi, (Index3{nx, 6, 5}));  // z closed, one rank: owns face 4
    EXPECT_EQ(fz.faceAxis(), 2);
  }
  CartDecomposition const flat({8, 6, 1}, 2, {true, true, false}, 1, 0);
  eddy::Field<Mem> f2(space, "eddy::test::flat", flat, 3, Centering::FaceY);
  EXPECT_EQ(f2.ghosts(), (Index3{3, 3, 0}));
  EXPECT_EQ(f2.extents(), (Index3{14, 13, 1}));
  EXPECT_EQ(f2.label(), "eddy::test::flat");
  EXPECT_THROW(eddy::Field<Mem>(space, "eddy::test::bad", flat, 1, Centering::FaceZ),
               eddy::ConfigError);
  EXPECT_THROW(eddy::Field<Mem>(space, "eddy::test::bad", flat, 0), eddy::ConfigError);
  EXPECT_THROW(eddy::Field<Mem>(space, "unprefixed", flat, 1), eddy::ConfigError);
}

// A float field in the memory of a double one (the multigrid's single-precision work field):
// the same layout over the same allocation, in half its bytes; it keeps the allocation alive,
// and its values are exchanged like any field's.
TYPED_TEST(HaloExchangeTest, AFloatFieldBorrowsTheStorageOfADoubleField) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  Exec const space;
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, {19, 11, 9}, 3, {true, false, true});
  auto wide = std::make_unique<eddy::Field<Mem>>(space, "eddy::test::wide", d, 1);
  eddy::Field<Mem, float> narrow("eddy::test::narrow", *wide);
  EXPECT_EQ(narrow.layout(), wide->layout());
  EXPECT_EQ(narrow.globalOffset(), wide->globalOffset());
  EXPECT_EQ(narrow.label(), "eddy::test::narrow");
  EXPECT_EQ(static_cast<void const*>(narrow.view().data()),
            static_cast<void const*>(wide->view().data()));
  EXPECT_EQ(2 * narrow.bytes(), wide->bytes());
  using Narrow = eddy::Field<Mem, float>;
  EXPECT_THROW(Narrow("unprefixed", *wide), eddy::ConfigError);
  wide.reset();  // the borrowed allocation outlives its first owner
  eddy::HaloExchange<Exec, float> halo(space, MPI_COMM_WORLD, d, narrow);
  fill(narrow, 3);
  halo.exchange(space, narrow);
  space.fence();
  std::string report;
  EXPECT_EQ(countWrong(narrow, d, 3, report), 0) << report;
}

TYPED_TEST(HaloExchangeTest, RejectsExtentsSmallerThanTheGhostWidth) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  Exec const space;
  // 9 cells over 3 ranks along y: 3 each; ghost 3 on a FaceY field needs 4.
  CartDecomposition const d({8, 9, 8}, 3, {true, true, true}, 3, 0, {1, 3, 1});
  eddy::Field<Mem> f(space, "eddy::test::thin", d, 3, Centering::FaceY);
  try {
    // Rejected before the communicator (here of the wrong size) is looked at.
    eddy::HaloExchange<Exec> halo(space, MPI_COMM_SELF, d, f);
    ADD_FAILURE() << "expected eddy::ConfigError";
  } catch (eddy::ConfigError const& e) {
    std::string const what = e.what();
    for (char const* part : {"rank 2", "3 cells along y", "ghost width 3", "FaceY", "at least 4"})
      EXPECT_NE(what.find(part), std::string::npos) << what;
  } catch (eddy::Error const& e) {
    ADD_FAILURE() << "wrong error: " << e.what();
  }
  // One rank owns all 9 cells along y: ghost 3 passes.
  CartDecomposition const one({8, 9, 8}, 3, {true, true, true}, 1, 0);
  eddy::Field<Mem> ok(space, "eddy::test::ok", one, 3, Centering::FaceY);
  eddy::Field<Mem> other(space, "eddy::test::other", one, 2, Centering::FaceY);
  eddy::HaloExchange<Exec> halo(space, MPI_COMM_SELF, one, ok);
  EXPECT_THROW(halo.exchange(space, other), eddy::Error);  // layout differs
  EXPECT_FALSE(halo.inFlight());
}

}  // namespace
