/// @file HaloExchange.hpp
/// @brief Fills the ghost entries of a Field from the ranks that own them.
///
/// Every ghost entry in all 26 directions (8 in 2D) -- faces, edges, corners, across periodic
/// wraps -- receives exactly the owner's value. Ghosts across a non-periodic domain boundary are
/// left untouched: boundary conditions own them.
///
/// Region algebra along an axis with n owned cells, ghost width g, s = 1 on the face axis of a
/// face-centred field (else 0) and n_own = n + s at a non-periodic high boundary (else n):
///
///   direction      receive into         send from (to the neighbour in that direction)
///   -1             [-g, 0)              [0, g + s)
///    0             [0, n_own)           [0, n_own)
///   +1             [n, n + g + s)       [n - g, n)
///
/// A region is the product of the three axis ranges. A message travelling in direction d is
/// tagged directionIndex(d), so two directions to the same rank (two ranks periodic, or a rank
/// sending to itself) never mix. Messages to other ranks take the process transport (NCCL,
/// GPU-aware MPI or pinned host staging, see Transport.hpp) on a private duplicate of the
/// communicator; messages to this rank itself are device copies.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/FixedPoint.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Transport.hpp"
#include "eddy/core/Tuning.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace eddy {

namespace detail {

/// Columns of a region table row: first thread of the region, box low corner, box extents,
/// buffer offset of its data (or -1: the data is the field itself at the source box, a message
/// of this rank to itself), source box low corner, first row (x line) of the region.
enum HaloColumn {
  kHaloThread = 0,
  kHaloLo = 1,
  kHaloExtent = 4,
  kHaloBuffer = 7,
  kHaloSourceLo = 8,
  kHaloRow = 11,
  kHaloColumns = 12
};

/// The region of work item t: the last row of `regions` whose column `first` is <= t.
template <class Regions>
KOKKOS_INLINE_FUNCTION int haloRegionOf(Regions const& regions, int nregions, int first, int t) {
  int lo = 0, hi = nregions - 1;
  while (lo < hi) {
    int const mid = (lo + hi + 1) / 2;
    if (regions(mid, first) <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// One message: peer rank, tag, entry count, buffer offset and the local box it covers.
struct HaloMessage {
  int peer = MPI_PROC_NULL;
  int tag = 0;
  int count = 0;
  int offset = 0;
  Box3 box;
};

/// Copies between a field's boxes and a flat buffer, x fastest within each box: pack when
/// `Pack`, unpack otherwise; unpacking a region without buffer data copies from the field's
/// source box (messages of a rank to itself: owned cells to ghosts, never overlapping). One
/// launch covers every region. Work item t copies entry t, or with `Rows` the t-th x line of the
/// regions (its entries are neighbours in the field and in the buffer: HaloTuning::kRowCopies);
/// it finds its region by a binary search over the regions' first entries (rows). The buffer
/// holds values of the field's type T (the transport's double buffers seen as T). With `Add`
/// (fixed-point sums, HaloExchange::sumIntoOwners) an unpack adds instead of copying,
/// atomically (regions overlap there), and a region without buffer data adds the field at the
/// box to the field at the source box: an exchange reversed.
template <class Mem, bool Pack, bool Rows, class T = double, bool Add = false>
struct HaloCopy {
  Kokkos::View<int* [kHaloColumns], Mem> regions;
  int nregions = 0;
  Kokkos::View<T*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> buffer;
  GhostedView<Mem, T> field;

  KOKKOS_INLINE_FUNCTION void operator()(const int t) const {
    int constexpr first = Rows ? kHaloRow : kHaloThread;
    int const lo = haloRegionOf(regions, nregions, first, t);
    int const l = t - regions(lo, first);
    int const ex = regions(lo, kHaloExtent + 0);
    int const ey = regions(lo, kHaloExtent + 1);
    int const line = Rows ? l : l / ex;  // x line of the region: lj + ey lk
    int const begin = Rows ? 0 : l - line * ex, end = Rows ? ex : begin + 1;
    int const lj = line % ey, lk = line / ey;
    int const i = regions(lo, kHaloLo + 0), j = regions(lo, kHaloLo + 1) + lj,
              k = regions(lo, kHaloLo + 2) + lk;
    int const at = regions(lo, kHaloBuffer) + line * ex;  // entry li is at + li
    if constexpr (Pack) {
      for (int li = begin; li < end; ++li) buffer(at + li) = field(i + li, j, k);
    } else if constexpr (Add) {
      if (regions(lo, kHaloBuffer) >= 0) {
        for (int li = begin; li < end; ++li) addExactly(&field(i + li, j, k), buffer(at + li));
      } else {
        int const si = regions(lo, kHaloSourceLo + 0), sj = regions(lo, kHaloSourceLo + 1) + lj,
                  sk = regions(lo, kHaloSourceLo + 2) + lk;
        for (int li = begin; li < end; ++li)
          addExactly(&field(si + li, sj, sk), field(i + li, j, k));
      }
    } else if (regions(lo, kHaloBuffer) >= 0) {
      for (int li = begin; li < end; ++li) field(i + li, j, k) = buffer(at + li);
    } else {
      int const si = regions(lo, kHaloSourceLo + 0), sj = regions(lo, kHaloSourceLo + 1) + lj,
                sk = regions(lo, kHaloSourceLo + 2) + lk;
      for (int li = begin; li < end; ++li) field(i + li, j, k) = field(si + li, sj, sk);
    }
  }
};

}  // namespace detail

/// Halo exchange of fields with one FieldLayout, on execution space `Exec`.
///
/// Buffers are allocated once, at construction, and owned here. `start` packs on the given
/// instance and posts the messages; `finish` completes them and enqueues the unpack on the
/// instance (fence it before reading ghosts on the host). With MPI transports `start` fences
/// the instance and `finish` blocks; with nccl both only enqueue on the instance's stream.
/// Between the two, work may run (on another instance to overlap with nccl) that neither writes
/// the send regions (owned entries within the ghost width of a face towards another rank) nor
/// reads the ghosts; messages of a rank to itself are copied from the field in `finish`. To
/// overlap, `exchangeBeside`: `start` on a second instance (compat::secondInstance, ordered
/// after the writer by compat::orderAfter), `copySelf` on the compute instance, the entries whose
/// stencil reads no ghost of a peer face (BoxSplit::awayFromPeerFaces with peerFaces()),
/// `finishPeers` on the second instance, compat::orderAfter back, then the shell.
/// Construction and destruction are collective over `comm` (it is duplicated).
///
/// Fields of T (double or float): the transport moves doubles, so the buffers hold T values
/// packed two to a double for float, each message padded to whole doubles.
///
/// Buffer bytes: 2 sizeof(T) per ghost entry sent to or received from another rank (send +
/// receive), doubled when staged through host memory.
template <class Exec = ExecSpace, class T = double>
class HaloExchange {
  static_assert(sizeof(double) % sizeof(T) == 0, "HaloExchange: T must pack into doubles");
  /// T values in a double of the transport's buffers.
  static constexpr int kPerDouble = static_cast<int>(sizeof(double) / sizeof(T));

 public:
  using execution_space = Exec;
  using memory_space = typename Exec::memory_space;
  using value_type = T;
  using field_type = Field<memory_space, T>;

  /// Prepares the exchange of fields shaped like `layout` on `decomp`'s rank of `comm`. Throws
  /// eddy::ConfigError when some rank's extent is smaller than the ghost width (+1 on the face
  /// axis), the same on every rank.
  /// `transport` defaults to the process choice (transport::current()).
  HaloExchange(Exec const& space, MPI_Comm comm, CartDecomposition const& decomp,
               FieldLayout const& layout, TransportKind transport = transport::current())
      : m_layout(layout) {
    validate(comm, decomp);
    m_rank = decomp.rank();
    buildMessages(decomp);
    m_comm = mpi::DuplicatedComm(comm);
    verifyMessageCounts(m_comm.get(), m_peerSends, m_peerRecvs, "HaloExchange");
    m_peers = PeerExchange<Exec>(m_comm.get(), transport, /*coalesce=*/true);
    allocate(space);
  }
  /// Prepares the exchange of fields shaped like `field`.
  HaloExchange(Exec const& space, MPI_Comm comm, CartDecomposition const& decomp,
               field_type const& field, TransportKind transport = transport::current())
      : HaloExchange(space, comm, decomp, field.layout(), transport) {}

  ~HaloExchange() {
    m_peers = PeerExchange<Exec>();  // cancels messages still in flight, before m_comm goes
  }
  HaloExchange(HaloExchange const&) = delete;
  HaloExchange& operator=(HaloExchange const&) = delete;

  /// Packs `field`'s send regions on `space` and posts the messages.
  void start(Exec const& space, field_type& field) {
    ScopedRegion region("eddy::halo::start");
    checkField(field, "start");
    if (m_inFlight)
      throw Error(str("HaloExchange::start on field '", field.label(),
                      "': the previous exchange was not finished"));
    if (m_sendTotal > 0)
      copy<true>(space, m_sendRegions, int(m_peerSends.size()), m_sendBuf, field, {0, m_sendTotal},
                 {0, m_sendRows}, "eddy::halo::pack");
    if (!m_peerSends.empty() || !m_peerRecvs.empty())
      m_peers.post(space, m_sendBuf, m_peerSends, m_recvBuf, m_peerRecvs);
    m_inFlight = true;
  }

  /// Waits for the messages of `start` and unpacks them into `field`'s ghosts on `space`
  /// (asynchronously: fence `space` before reading them elsewhere). One launch unpacks what
  /// arrived and copies the messages of this rank to itself.
  void finish(Exec const& space, field_type& field) {
    complete(space, field, "finish", {m_unpackThreads, m_unpackRows}, "eddy::halo::unpack");
  }

  /// `finish` for the messages of other ranks only: the ghosts that this rank sends itself
  /// (across a periodic axis it owns whole) are left to copySelf, which may run before, on
  /// another instance, while the messages travel.
  void finishPeers(Exec const& space, field_type& field) {
    complete(space, field, "finishPeers", {m_recvTotal, m_recvRows}, "eddy::halo::unpackPeers");
  }

  /// Copies, on `space`, the ghosts of `field` that this rank sends itself, from its owned
  /// entries: the part of an exchange that needs no message. With start and finishPeers it
  /// makes a whole exchange.
  void copySelf(Exec const& space, field_type& field) {
    checkField(field, "copySelf");
    unpack(space, field, {m_recvTotal, m_unpackThreads}, {m_recvRows, m_unpackRows},
           "eddy::halo::copySelf");
  }

  /// Whether the ghost layer across face `side` (0 low, 1 high) of `axis` comes from another
  /// rank (and so arrives with the messages, not with copySelf). Entries whose stencil reads
  /// no such ghost can be computed while the messages travel.
  bool peerFace(int axis, int side) const { return m_peerFace[axis][side]; }
  /// peerFace for every axis and side (for BoxSplit::awayFromPeerFaces).
  std::array<std::array<bool, 2>, 3> peerFaces() const {
    std::array<std::array<bool, 2>, 3> f{};
    for (int a = 0; a < 3; ++a) f[a] = {m_peerFace[a][0], m_peerFace[a][1]};
    return f;
  }
  /// Whether any ghost comes from another rank.
  bool hasPeers() const { return !m_peerRecvs.empty(); }

  /// A whole exchange of `field` beside work on `space`: the messages travel on `haloSpace`
  /// (another instance, compat::secondInstance) while `inner()` enqueues work on `space` after the
  /// ghosts this rank sends itself; `shell()` enqueues its work once the messages are unpacked.
  /// `inner`'s work must neither read a ghost of a peer face nor write an entry sent to a peer
  /// (BoxSplit::awayFromPeerFaces); `field` may have been written on `space` just before.
  template <class Inner, class Shell>
  void exchangeBeside(Exec const& space, Exec const& haloSpace, field_type& field,
                      Inner const& inner, Shell const& shell) {
    compat::orderAfter(haloSpace, space);  // field was written on space; haloSpace packs it
    start(haloSpace, field);
    copySelf(space, field);
    inner();
    finishPeers(haloSpace, field);
    compat::orderAfter(space, haloSpace);  // the ghosts unpacked on haloSpace are read on space
    shell();
  }

  /// The adjoint of an exchange, for fixed-point sums (long long fields, FixedPoint.hpp): every
  /// ghost entry that an exchange fills
  /// from its owner is added to that owned entry instead (across periodic wraps and from this
  /// rank itself too; ghosts across a non-periodic domain boundary are left out). Owned entries
  /// end as their own value plus every ghost copy of them on every rank; ghosts keep theirs.
  /// Integer additions are exact in any order, so the result is the same on any decomposition
  /// and transport (a floating-point sum would depend on the order of arrival). Collective;
  /// blocks as exchange does, the additions enqueued on `space`.
  void sumIntoOwners(Exec const& space, field_type& field) {
    static_assert(std::is_same_v<T, long long>,
                  "HaloExchange::sumIntoOwners: fixed-point (long long) fields only (a "
                  "floating-point sum depends on the order of its terms)");
    ScopedRegion region("eddy::halo::sumIntoOwners");
    checkField(field, "sumIntoOwners");
    if (m_inFlight)
      throw Error(str("HaloExchange::sumIntoOwners on field '", field.label(),
                      "': an exchange is in flight"));
    // An exchange's messages reversed: the ghosts of each receive region travel back in the
    // receive buffer's layout and arrive in the send buffer's, where the owner adds them to the
    // entries it would have sent.
    int const regions = int(m_recvs.size());
    if (m_recvTotal > 0)
      copy<true, false>(space, m_recvRegions, regions, m_recvBuf, field, {0, m_recvTotal},
                        {0, m_recvRows}, "eddy::halo::packGhosts");
    if (!m_peerSends.empty() || !m_peerRecvs.empty())
      m_peers.post(space, m_recvBuf, m_peerRecvs, m_sendBuf, m_peerSends);
    copy<false, true>(space, m_recvRegions, regions, m_recvBuf, field,
                      {m_recvTotal, m_unpackThreads}, {m_recvRows, m_unpackRows},
                      "eddy::halo::addSelf");
    if (m_peers.inFlight()) m_peers.wait(space);
    if (m_sendTotal > 0)
      copy<false, true>(space, m_sendRegions, int(m_peerSends.size()), m_sendBuf, field,
                        {0, m_sendTotal}, {0, m_sendRows}, "eddy::halo::addGhosts");
  }

  /// `start` then `finish`.
  void exchange(Exec const& space, field_type& field) {
    ScopedRegion region("eddy::halo::exchange");
    start(space, field);
    finish(space, field);
  }
  /// On a default instance of `Exec`.
  void exchange(field_type& field) { exchange(Exec(), field); }

  FieldLayout const& layout() const { return m_layout; }
  bool inFlight() const { return m_inFlight; }
  /// True when buffers go through pinned host memory (device memory, MPI not GPU-aware).
  bool stagedThroughHost() const { return m_peers.staged(); }
  /// The transport of messages to other ranks.
  TransportKind transportKind() const { return m_peers.kind(); }
  /// Messages sent (and received) per exchange.
  int messageCount() const { return static_cast<int>(m_sends.size()); }
  /// Values sent to and received from other ranks per exchange.
  int sendCount() const { return m_sendTotal; }
  int recvCount() const { return m_recvTotal; }
  /// Bytes of memory_space held: the send and receive buffers and the region tables (host
  /// staging of the mpi-staged transport not included).
  std::size_t bytes() const {
    return sizeof(double) * (m_sendBuf.span() + m_recvBuf.span()) +
           sizeof(int) * (m_sendRegions.span() + m_recvRegions.span());
  }

 private:
  void validate(MPI_Comm comm, CartDecomposition const& decomp) {
    if (m_layout.cells != decomp.localCells() || m_layout.dims != decomp.dims())
      throw Error(str("HaloExchange: field layout of ", toString(m_layout.cells),
                      " cells does not match the decomposition's ", toString(decomp.localCells())));
    // The smallest extent along an axis is that of the last coordinate; every rank checks every
    // rank, so all throw the same error.
    char const* const axisName[3] = {"x", "y", "z"};
    for (int a = 0; a < m_layout.dims; ++a) {
      int const need = m_layout.ghosts[a] + m_layout.faces[a];
      Index3 c{0, 0, 0};
      c[a] = decomp.procGrid()[a] - 1;
      int const n =
          CartDecomposition::splitCount(decomp.globalCells()[a], decomp.procGrid()[a], c[a]);
      if (n < need)
        throw ConfigError(str("HaloExchange: rank ", decomp.rankOf(c), " owns ", n, " cells along ",
                              axisName[a], " (", decomp.describe(),
                              "), fewer than the ghost width ", m_layout.ghosts[a],
                              m_layout.faces[a] ? " + 1 for the face axis" : "", " of a ",
                              toString(m_layout.centering), " field; expected at least ", need,
                              " (use fewer ranks along that axis or a smaller ghost width)"));
    }
    int size = 0, rank = 0;
    checkMpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    if (size != decomp.nranks() || rank != decomp.rank())
      throw Error(str("HaloExchange: decomposition is for rank ", decomp.rank(), " of ",
                      decomp.nranks(), ", but the communicator has rank ", rank, " of ", size));
  }

  void buildMessages(CartDecomposition const& decomp) {
    long long sendTotal = 0, recvTotal = 0;
    for (int di = 0; di < 27; ++di) {
      Direction const d = directionFromIndex(di);
      if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
      int const peer = decomp.neighbor(d);
      if (peer == MPI_PROC_NULL) continue;
      detail::HaloMessage send, recv;
      for (int a = 0; a < 3; ++a) {
        int const n = m_layout.cells[a], g = m_layout.ghosts[a], s = m_layout.faces[a];
        int const own = m_layout.owned[a];
        int const rlo[3] = {-g, 0, n}, rhi[3] = {0, own, n + g + s};
        int const slo[3] = {0, 0, n - g}, shi[3] = {g + s, own, n};
        recv.box.lo[a] = rlo[d[a] + 1];
        recv.box.hi[a] = rhi[d[a] + 1];
        send.box.lo[a] = slo[d[a] + 1];
        send.box.hi[a] = shi[d[a] + 1];
      }
      Direction const back{-d[0], -d[1], -d[2]};
      recv.peer = send.peer = peer;
      recv.tag = directionIndex(back);  // it travels towards us: direction -d
      send.tag = directionIndex(d);
      recv.count = static_cast<int>(recv.box.size());
      send.count = static_cast<int>(send.box.size());
      recv.offset = static_cast<int>(recvTotal);
      send.offset = static_cast<int>(sendTotal);
      recvTotal += recv.count;
      sendTotal += send.count;
      if (recvTotal > INT_MAX || sendTotal > INT_MAX)
        throw ConfigError(str("HaloExchange: more than ", INT_MAX,
                              " ghost values per exchange on rank ", decomp.rank()));
      m_recvs.push_back(recv);
      m_sends.push_back(send);
      int const axes = (d[0] != 0) + (d[1] != 0) + (d[2] != 0);
      if (axes == 1 && peer != decomp.rank())
        for (int a = 0; a < 3; ++a)
          if (d[a] != 0) m_peerFace[a][d[a] > 0 ? 1 : 0] = true;
    }
    // Buffers hold the messages to other ranks only, by (peer, tag), so that those of one
    // peer travel as one message; the unpack threads cover every received region, those of
    // this rank to itself included. Offsets count T values; each message starts on a double
    // (the transport's unit), so its T count is rounded up to whole doubles.
    m_unpackThreads = static_cast<int>(recvTotal);
    auto place = [&decomp](std::vector<detail::HaloMessage>& msgs,
                           std::vector<PeerMessage>& peerMsgs, int& values) {
      std::vector<std::size_t> order(msgs.size());
      for (std::size_t q = 0; q < order.size(); ++q) order[q] = q;
      std::sort(order.begin(), order.end(), [&msgs](std::size_t a, std::size_t b) {
        return msgs[a].peer != msgs[b].peer ? msgs[a].peer < msgs[b].peer
                                            : msgs[a].tag < msgs[b].tag;
      });
      long long at = 0;
      values = 0;
      for (std::size_t q : order) {
        auto& m = msgs[q];
        if (m.peer == decomp.rank()) continue;
        long long const doubles = (m.count + kPerDouble - 1) / kPerDouble;
        m.offset = static_cast<int>(at);
        peerMsgs.push_back(PeerMessage{m.peer, m.tag, static_cast<std::size_t>(at / kPerDouble),
                                       static_cast<std::size_t>(doubles)});
        at += doubles * kPerDouble;
        values += m.count;
        if (at > INT_MAX)
          throw ConfigError(str("HaloExchange: more than ", INT_MAX,
                                " ghost values per exchange on rank ", decomp.rank()));
      }
      return static_cast<int>(at);
    };
    m_sendLength = place(m_sends, m_peerSends, m_sendTotal);
    m_recvLength = place(m_recvs, m_peerRecvs, m_recvTotal);
  }

  void allocate(Exec const& space) {
    using Regions = Kokkos::View<int * [detail::kHaloColumns], memory_space>;
    int const self = m_rank;
    // Pack: the sends to other ranks. Unpack: every receive, those from this rank itself
    // reading the field at the box of its send with the same tag.
    // The receive rows of other ranks come first, so that their unpack threads are
    // [0, m_recvTotal) and those of this rank to itself the rest (finishPeers, copySelf).
    auto table = [&](bool pack, char const* label) {
      std::vector<std::array<int, detail::kHaloColumns>> rows;
      int thread = 0, row = 0, peerRows = 0;
      std::vector<detail::HaloMessage> ordered;
      for (auto const& m : pack ? m_sends : m_recvs)
        if (m.peer != self) ordered.push_back(m);
      if (!pack)
        for (auto const& m : m_recvs)
          if (m.peer == self) ordered.push_back(m);
      for (auto const& m : ordered) {
        std::array<int, detail::kHaloColumns> r{};
        r[detail::kHaloThread] = thread;
        r[detail::kHaloRow] = row;
        r[detail::kHaloBuffer] = m.peer == self ? -1 : m.offset;
        for (int a = 0; a < 3; ++a) {
          r[detail::kHaloLo + a] = m.box.lo[a];
          r[detail::kHaloExtent + a] = m.box.extent(a);
        }
        if (m.peer == self) {
          auto const src = std::find_if(m_sends.begin(), m_sends.end(), [&m, self](auto const& s) {
            return s.peer == self && s.tag == m.tag;
          });
          if (src == m_sends.end() || src->count != m.count)
            throw Error(str("HaloExchange: no send of rank ", self,
                            " to itself matches its receive with tag ", m.tag));
          for (int a = 0; a < 3; ++a) r[detail::kHaloSourceLo + a] = src->box.lo[a];
        }
        thread += m.count;
        row += m.box.extent(1) * m.box.extent(2);
        if (m.peer != self) peerRows = row;  // the messages of other ranks come first
        rows.push_back(r);
      }
      (pack ? m_sendRows : m_unpackRows) = row;
      if (!pack) m_recvRows = peerRows;
      Regions v(Kokkos::view_alloc(space, std::string(label)), rows.size());
      auto h = Kokkos::create_mirror_view(v);
      for (std::size_t m = 0; m < rows.size(); ++m)
        for (int c = 0; c < detail::kHaloColumns; ++c) h(m, c) = rows[m][c];
      Kokkos::deep_copy(space, v, h);
      space.fence();  // h dies here
      return v;
    };
    m_sendRegions = table(true, "eddy::halo::sendRegions");
    m_recvRegions = table(false, "eddy::halo::recvRegions");
    m_sendBuf = Buffer(Kokkos::view_alloc(space, std::string("eddy::halo::sendBuffer")),
                       m_sendLength / kPerDouble);
    m_recvBuf = Buffer(Kokkos::view_alloc(space, std::string("eddy::halo::recvBuffer")),
                       m_recvLength / kPerDouble);
    // The host tables above die here; their copies must be complete.
    space.fence();
  }

  /// finish / finishPeers: waits for the messages and unpacks entries [0, end[0]) (rows
  /// [0, end[1])).
  void complete(Exec const& space, field_type& field, char const* what, std::array<int, 2> end,
                char const* label) {
    ScopedRegion region("eddy::halo::finish");
    checkField(field, what);
    if (!m_inFlight)
      throw Error(
          str("HaloExchange::", what, " on field '", field.label(), "': no exchange was started"));
    m_inFlight = false;
    if (m_peers.inFlight()) m_peers.wait(space);
    unpack(space, field, {0, end[0]}, {0, end[1]}, label);
  }

  /// Unpacks entries [entries[0], entries[1]), i.e. rows [rows[0], rows[1]): those of the
  /// messages of other ranks come first (entries below m_recvTotal, rows below m_recvRows),
  /// those of this rank to itself after.
  void unpack(Exec const& space, field_type& field, std::array<int, 2> entries,
              std::array<int, 2> rows, char const* label) {
    copy<false>(space, m_recvRegions, int(m_recvs.size()), m_recvBuf, field, entries, rows, label);
  }
  /// Packs (Pack) or unpacks the entries [entries[0], entries[1]) of `regions`, a work item per
  /// entry, or their rows [rows[0], rows[1]), a work item per row, where HaloTuning::kRowCopies.
  template <bool Pack, bool Add = false>
  void copy(Exec const& space,
            Kokkos::View<int * [detail::kHaloColumns], memory_space> const& regions, int nregions,
            Kokkos::View<double*, memory_space> const& buffer, field_type& field,
            std::array<int, 2> entries, std::array<int, 2> rows, char const* label) {
    constexpr bool byRows = HaloTuning<Exec>::kRowCopies;
    auto const [begin, end] = byRows ? rows : entries;
    if (end <= begin) return;
    using Values = Kokkos::View<T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    Values const values(reinterpret_cast<T*>(buffer.data()), buffer.extent(0) * kPerDouble);
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(space, begin, end),
                         detail::HaloCopy<memory_space, Pack, byRows, T, Add>{
                             regions, nregions, values, field.access()});
  }

  void checkField(field_type const& field, char const* what) const {
    if (field.layout() != m_layout)
      throw Error(str("HaloExchange::", what, ": field '", field.label(), "' (",
                      toString(field.centering()), ", ", toString(field.cells()), " cells, ghost ",
                      field.ghost(), ") differs from the layout this exchange ", "was built for (",
                      toString(m_layout.centering), ", ", toString(m_layout.cells),
                      " cells, ghost ", m_layout.ghosts[0], ")"));
  }

  using Buffer = Kokkos::View<double*, memory_space>;

  FieldLayout m_layout;
  mpi::DuplicatedComm m_comm;
  std::vector<detail::HaloMessage> m_sends, m_recvs;
  int m_sendTotal = 0, m_recvTotal = 0;    ///< values to / from other ranks
  int m_sendLength = 0, m_recvLength = 0;  ///< their buffers' extents in T (padded messages)
  int m_unpackThreads = 0;                 ///< values received, from this rank included
  int m_sendRows = 0, m_recvRows = 0;      ///< rows (x lines) of m_sendTotal, m_recvTotal
  int m_unpackRows = 0;                    ///< rows of m_unpackThreads
  int m_rank = 0;
  bool m_peerFace[3][2] = {{false, false}, {false, false}, {false, false}};
  Kokkos::View<int * [detail::kHaloColumns], memory_space> m_sendRegions, m_recvRegions;
  Buffer m_sendBuf, m_recvBuf;
  bool m_inFlight = false;
  std::vector<PeerMessage> m_peerSends, m_peerRecvs;  ///< messages to other ranks
  PeerExchange<Exec> m_peers;
};

}  // namespace eddy
