#include "fluids/FftPoisson.hpp"

#include "fluids/LineTransforms.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Transport.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace eddy::fluids {

namespace {
using Data = Kokkos::View<double*, MemSpace>;
using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>;

/// A box of GLOBAL cell indices [lo, hi).
Box3 intersect(Box3 const& a, Box3 const& b) {
  Box3 r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::max(r.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return r;
}

/// Where each rank's cells are: one global box per rank.
struct Layout {
  std::vector<Box3> boxes;
  int axis = -1;  ///< the axis of full lines (a pencil), -1 for the flow's blocks
  Index3 grid{1, 1, 1};

  static Layout blocks(CartDecomposition const& d) {
    Layout l;
    l.grid = d.procGrid();
    for (int r = 0; r < d.nranks(); ++r) {
      Index3 const o = d.offsetOf(r), n = d.localCellsOf(r);
      l.boxes.push_back(Box3{o, {o[0] + n[0], o[1] + n[1], o[2] + n[2]}});
    }
    return l;
  }
  /// Full lines along `axis`, the other axes split as a CartDecomposition with one rank along
  /// `axis` would split them.
  static Layout pencils(CartDecomposition const& d, int axis) {
    Index3 forced{0, 0, 0};
    forced[axis] = 1;
    std::optional<CartDecomposition> p;
    try {
      p.emplace(d.globalCells(), d.dims(), d.periodic(), d.nranks(), 0, forced);
    } catch (ConfigError const&) {
      throw ConfigError(str(d.nranks(), " ranks cannot share whole lines along ", "xyz"[axis],
                            " of ", eddy::toString(d.globalCells()), " cells"));
    }
    Layout l = blocks(*p);
    l.axis = axis;
    return l;
  }
  long long count(int rank) const { return boxes[static_cast<std::size_t>(rank)].size(); }
};

/// A pencil array (or a message): the values of a global box, `axis` fastest, then the other
/// axes in order.
struct PencilAccess {
  double* data = nullptr;
  int lo0 = 0, lo1 = 0, lo2 = 0;
  long long s0 = 0, s1 = 0, s2 = 0;
  PencilAccess(double* d, Box3 const& b, int axis) : data(d) {
    lo0 = b.lo[0];
    lo1 = b.lo[1];
    lo2 = b.lo[2];
    long long s[3];
    long long stride = 1;
    s[axis] = stride;
    stride *= b.extent(axis);
    for (int a = 0; a < 3; ++a)
      if (a != axis) {
        s[a] = stride;
        stride *= b.extent(a);
      }
    s0 = s[0];
    s1 = s[1];
    s2 = s[2];
  }
  KOKKOS_INLINE_FUNCTION double& operator()(int i, int j, int k) const {
    return data[(i - lo0) * s0 + (j - lo1) * s1 + (k - lo2) * s2];
  }
};

/// A field's owned cells, addressed by global index (x fastest).
struct FieldAccess {
  GhostedView<MemSpace> v;
  int o0 = 0, o1 = 0, o2 = 0;
  FieldAccess(GhostedView<MemSpace> const& view, Index3 const& offset)
      : v(view), o0(offset[0]), o1(offset[1]), o2(offset[2]) {}
  KOKKOS_INLINE_FUNCTION double& operator()(int i, int j, int k) const {
    return v(i - o0, j - o1, k - o2);
  }
};

/// The axes of a box as kernels walk it: `f` (a row), then `m`, then `s`; the global cell of a
/// position (pf, pm, ps) from the box's low corner.
struct Walk {
  int f = 0, m = 1, s = 2;
  int lo[3] = {0, 0, 0};
  int n[3] = {1, 1, 1};
  Walk(Box3 const& b, int fastest, int middle) : f(fastest), m(middle), s(3 - fastest - middle) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = b.lo[a];
      n[a] = b.extent(a);
    }
  }
  /// Fastest `fastest`, the other two in order.
  Walk(Box3 const& b, int fastest) : Walk(b, fastest, fastest == 0 ? 1 : 0) {}
  KOKKOS_INLINE_FUNCTION int at(int axis, int pf, int pm, int ps) const {
    return lo[axis] + (axis == f ? pf : axis == m ? pm : ps);
  }
};

/// fn(i, j, k) for every cell of `box`: a team per row along `fastest` (one index division a
/// row, consecutive threads on consecutive cells of the row).
template <class Fn>
void forRows(ExecSpace const& space, char const* label, Box3 const& box, int fastest,
             Fn const& fn) {
  if (box.size() == 0) return;
  Walk const w(box, fastest);
  int const rowsPerPlane = w.n[w.m];
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      label, Team(space, w.n[w.m] * w.n[w.s], Kokkos::AUTO),
      KOKKOS_LAMBDA(Team::member_type const& team) {
        int const row = team.league_rank();
        int const pm = row % rowsPerPlane, ps = row / rowsPerPlane;
        auto const cells = Kokkos::TeamThreadRange(team, w.n[w.f]);  // nested: no label
        Kokkos::parallel_for(cells, [&](int pf) {
          fn(w.at(0, pf, pm, ps), w.at(1, pf, pm, ps), w.at(2, pf, pm, ps));
        });
      });
}

constexpr int kTile = 32;

/// dst(c) = src(c) for every cell c of `box`, src's values `srcFast` fastest in memory, dst's
/// `dstFast`: rows when they agree, else through 32 x 32 tiles in team scratch, so that both
/// the reads and the writes run along memory.
template <class Src, class Dst>
void transfer(ExecSpace const& space, Src const& src, int srcFast, Dst const& dst, int dstFast,
              Box3 const& box) {
  if (box.size() == 0) return;
  if (srcFast == dstFast) {
    forRows(
        space, "eddy::fluids::fft::copy", box, dstFast,
        KOKKOS_LAMBDA(int i, int j, int k) { dst(i, j, k) = src(i, j, k); });
    return;
  }
  Walk const w(box, srcFast, dstFast);
  int const tf = (w.n[w.f] + kTile - 1) / kTile, tm = (w.n[w.m] + kTile - 1) / kTile;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  using Tile = Kokkos::View<double[kTile][kTile + 1], typename ExecSpace::scratch_memory_space,
                            Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  auto policy = Team(space, tf * tm * w.n[w.s], Kokkos::AUTO)
                    .set_scratch_size(0, Kokkos::PerTeam(Tile::shmem_size()));
  Kokkos::parallel_for(
      "eddy::fluids::fft::transpose", policy, KOKKOS_LAMBDA(Team::member_type const& team) {
        int const t = team.league_rank();
        int const bf = t % tf * kTile, bm = t / tf % tm * kTile, ps = t / (tf * tm);
        Tile tile(team.team_scratch(0));
        // Read along src's fast axis (f), write along dst's (m).
        auto const entries = Kokkos::TeamThreadRange(team, kTile * kTile);  // nested: no label
        Kokkos::parallel_for(entries, [&](int e) {
          int const pf = bf + e % kTile, pm = bm + e / kTile;
          if (pf < w.n[w.f] && pm < w.n[w.m])
            tile(e / kTile, e % kTile) =
                src(w.at(0, pf, pm, ps), w.at(1, pf, pm, ps), w.at(2, pf, pm, ps));
        });
        team.team_barrier();
        Kokkos::parallel_for(entries, [&](int e) {
          int const pm = bm + e % kTile, pf = bf + e / kTile;
          if (pf < w.n[w.f] && pm < w.n[w.m])
            dst(w.at(0, pf, pm, ps), w.at(1, pf, pm, ps), w.at(2, pf, pm, ps)) =
                tile(e % kTile, e / kTile);
        });
      });
}

/// v = v / (lambda_x + lambda_y + lambda_z) / scale over the transformed pencil `at` of `box`
/// (`fastest` its axis); the zero mode (all three 0) to 0.
void divideByEigenvalues(ExecSpace const& space, Box3 const& box, int fastest,
                         PencilAccess const& at, Data const (&eigen)[3], double scale) {
  auto const ex = eigen[0], ey = eigen[1], ez = eigen[2];
  forRows(
      space, "eddy::fluids::fft::divide", box, fastest, KOKKOS_LAMBDA(int i, int j, int k) {
        double const mu = ex(i) + ey(j) + ez(k);
        double& v = at(i, j, k);
        v = mu > 0 ? v / (mu * scale) : 0.0;
      });
}

/// The messages that take this rank's cells from layout `from` to layout `to`: for each other
/// rank, the box both hold, in message order; what this rank keeps is copied directly.
struct Move {
  struct Part {
    int peer = 0;
    Box3 box;
    std::size_t offset = 0;
  };
  std::vector<Part> sends, recvs;
  std::vector<PeerMessage> sendMessages, recvMessages;
  Box3 kept;
  std::size_t sendCount = 0, recvCount = 0;

  Move(Layout const& from, Layout const& to, int me, int tag) {
    int const n = static_cast<int>(from.boxes.size());
    kept = intersect(from.boxes[me], to.boxes[me]);
    for (int r = 0; r < n; ++r) {
      if (r == me) continue;
      Box3 const out = intersect(from.boxes[me], to.boxes[r]);
      if (out.size() > 0) {
        sends.push_back({r, out, sendCount});
        sendMessages.push_back({r, tag, sendCount, static_cast<std::size_t>(out.size())});
        sendCount += static_cast<std::size_t>(out.size());
      }
      Box3 const in = intersect(from.boxes[r], to.boxes[me]);
      if (in.size() > 0) {
        recvs.push_back({r, in, recvCount});
        recvMessages.push_back({r, tag, recvCount, static_cast<std::size_t>(in.size())});
        recvCount += static_cast<std::size_t>(in.size());
      }
    }
  }
};
}  // namespace

struct FftPoisson::Impl {
  CartDecomposition decomp;
  int dims;
  int me;
  std::vector<Layout> pencils;  ///< x, y [, z]
  std::vector<std::unique_ptr<LineTransforms>> transforms;
  /// Moves block -> x, x -> y [, y -> z]; the solve runs them forwards, then backwards.
  std::vector<Move> moves, movesBack;
  Data a, b;              ///< pencil arrays (the solve alternates between them)
  Data sendBuf, recvBuf;  ///< messages of a move
  Data eigen[3];          ///< lambda_p / h^2 per axis
  double normalisation = 1;
  mpi::DuplicatedComm ownComm;
  std::unique_ptr<PeerExchange<ExecSpace>> peers;

  Impl(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& d,
       std::array<double, 3> const& h)
      : decomp(d), dims(d.dims()), me(d.rank()) {
    Index3 const n = d.globalCells();
    std::size_t largest = 0;
    for (int axis = 0; axis < dims; ++axis) {
      pencils.push_back(Layout::pencils(d, axis));
      LineKind const kind = d.isPeriodic(axis) ? LineKind::Periodic : LineKind::Neumann;
      std::size_t const globalLines =
          static_cast<std::size_t>(n[0]) * n[1] * n[2] / static_cast<std::size_t>(n[axis]);
      transforms.push_back(std::make_unique<LineTransforms>(space, n[axis], kind, globalLines));
      largest = std::max(largest, transforms.back()->paddedLines(lines(axis)) * n[axis]);
      normalisation *= LineTransforms::scale(kind, n[axis]);

      auto host = Kokkos::View<double*, Kokkos::HostSpace>("eddy::fluids::fft::eigen", n[axis]);
      double const c2 = 1.0 / (h[axis] * h[axis]);
      for (int p = 0; p < n[axis]; ++p) host(p) = LineTransforms::eigenvalue(kind, n[axis], p) * c2;
      eigen[axis] = Data("eddy::fluids::fft::eigen", n[axis]);
      Kokkos::deep_copy(space, eigen[axis], host);
    }
    for (int axis = dims; axis < 3; ++axis) eigen[axis] = Data("eddy::fluids::fft::eigen", 1);
    a = Data("eddy::fluids::fft::a", largest);
    b = Data("eddy::fluids::fft::b", largest);

    std::size_t sendMax = 0, recvMax = 0;
    Layout const block = Layout::blocks(d);
    for (int s = 0; s < dims; ++s) {
      Layout const& from = s == 0 ? block : pencils[s - 1];
      moves.emplace_back(from, pencils[s], me, 2 * s);
      movesBack.emplace_back(pencils[s], from, me, 2 * s + 1);
      for (Move const* m : {&moves.back(), &movesBack.back()}) {
        sendMax = std::max(sendMax, m->sendCount);
        recvMax = std::max(recvMax, m->recvCount);
      }
    }
    if (d.nranks() > 1) {
      ownComm = mpi::DuplicatedComm(comm);
      peers = std::make_unique<PeerExchange<ExecSpace>>(ownComm.get(), transport::current());
      sendBuf = Data(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                        std::string("eddy::fluids::fft::send")),
                     sendMax);
      recvBuf = Data(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                        std::string("eddy::fluids::fft::recv")),
                     recvMax);
      for (Move const& m : moves)
        verifyMessageCounts(ownComm.get(), m.sendMessages, m.recvMessages, "fft pencils");
      for (Move const& m : movesBack)
        verifyMessageCounts(ownComm.get(), m.sendMessages, m.recvMessages, "fft pencils");
    }
    space.fence();
  }

  /// Runs `move` from `src` (values `srcFast` fastest) to `dst` (`dstFast` fastest). Messages
  /// hold their box in dst's order, so that they unpack along memory.
  template <class Src, class Dst>
  void run(ExecSpace const& space, Move const& move, Src const& src, int srcFast, Dst const& dst,
           int dstFast) {
    ScopedRegion region("eddy::fluids::fft::move");
    transfer(space, src, srcFast, dst, dstFast, move.kept);
    if (!peers) return;
    for (auto const& part : move.sends)
      transfer(space, src, srcFast, PencilAccess(sendBuf.data() + part.offset, part.box, dstFast),
               dstFast, part.box);
    peers->post(space, sendBuf, move.sendMessages, recvBuf, move.recvMessages);
    peers->wait(space);
    for (auto const& part : move.recvs)
      transfer(space, PencilAccess(recvBuf.data() + part.offset, part.box, dstFast), dstFast, dst,
               dstFast, part.box);
  }

  PencilAccess pencil(Data const& data, int axis) const {
    return PencilAccess(data.data(), pencils[axis].boxes[me], axis);
  }
  std::size_t lines(int axis) const {
    return static_cast<std::size_t>(pencils[axis].count(me)) /
           static_cast<std::size_t>(decomp.globalCells()[axis]);
  }
};

std::string FftPoisson::refusal(CartDecomposition const& decomp) {
  try {
    for (int axis = 0; axis < decomp.dims(); ++axis) Layout::pencils(decomp, axis);
  } catch (ConfigError const& e) {
    return e.what();
  }
  return "";
}

FftPoisson::FftPoisson(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
                       std::array<double, 3> const& h) {
  std::string const why = refusal(decomp);
  if (!why.empty())
    throw ConfigError(
        str("fluids.poisson.method fft: ", why, "; run on fewer ranks or use method mgcg"));
  m_impl = std::make_unique<Impl>(space, comm, decomp, h);
}

FftPoisson::~FftPoisson() = default;

void FftPoisson::solve(ExecSpace const& space, GhostedView<MemSpace> const& f,
                       GhostedView<MemSpace> const& phi) {
  ScopedRegion region("eddy::fluids::poisson::fft");
  Impl& m = *m_impl;
  int const last = m.dims - 1;
  // Forwards: block -> x pencils (a), transform; -> y pencils (b), transform; -> z pencils (a).
  Data* here = &m.a;
  Data* there = &m.b;
  m.run(space, m.moves[0], FieldAccess(f, m.decomp.offset()), 0, m.pencil(*here, 0), 0);
  m.transforms[0]->forward(space, *here, m.lines(0));
  for (int axis = 1; axis < m.dims; ++axis) {
    m.run(space, m.moves[axis], m.pencil(*here, axis - 1), axis - 1, m.pencil(*there, axis), axis);
    std::swap(here, there);
    m.transforms[axis]->forward(space, *here, m.lines(axis));
  }
  divideByEigenvalues(space, m.pencils[last].boxes[m.me], last, m.pencil(*here, last), m.eigen,
                      m.normalisation);
  for (int axis = last; axis > 0; --axis) {
    m.transforms[axis]->inverse(space, *here, m.lines(axis));
    m.run(space, m.movesBack[axis], m.pencil(*here, axis), axis, m.pencil(*there, axis - 1),
          axis - 1);
    std::swap(here, there);
  }
  m.transforms[0]->inverse(space, *here, m.lines(0));
  m.run(space, m.movesBack[0], m.pencil(*here, 0), 0, FieldAccess(phi, m.decomp.offset()), 0);
}

std::size_t FftPoisson::bytes() const {
  Impl const& m = *m_impl;
  std::size_t s = 8 * (m.a.span() + m.b.span() + m.sendBuf.span() + m.recvBuf.span());
  for (auto const& t : m.transforms) s += t->bytes();
  return s;
}

std::string FftPoisson::describe() const {
  Impl const& m = *m_impl;
  std::string s;
  for (int axis = 0; axis < m.dims; ++axis)
    s += str(axis ? ", " : "", "xyz"[axis], " pencils ", eddy::toString(m.pencils[axis].grid));
  return str(s, " ranks; ", LineTransforms::library());
}

}  // namespace eddy::fluids
