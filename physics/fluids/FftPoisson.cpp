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

using Lines = LineTransforms::Lines;

/// The values of a global box with lines along `axis`: a pencil array, a message, or the field's
/// owned cells (rows along x). The cell c lies in the line that starts at the sum over the other
/// axes a of (c[a] - lo[a]) * step[a], at slot c[axis] - lo[axis] of it as `lines` says. Along
/// `axis` a coordinate is a slot (Lines): the global index unless the form is Complex, whose
/// lines are whole (lo[axis] = 0).
struct Side {
  Lines lines;
  int axis = 0;
  int lo[3] = {0, 0, 0};
  long long step[3] = {0, 0, 0};

  /// A pencil array's lines over `b`: adjacent along the first other axis, then the second.
  static Side pencil(Lines const& l, Box3 const& b, int axis) {
    Side s;
    s.lines = l;
    s.axis = axis;
    long long stride = l.stride;
    for (int a = 0; a < 3; ++a) {
      s.lo[a] = b.lo[a];
      if (a == axis) continue;
      s.step[a] = stride;
      stride *= b.extent(a);
    }
    return s;
  }
  /// A message: the box's values Plain along `axis`.
  static Side message(double* data, Box3 const& b, int axis) {
    Lines l;
    l.data = data;
    l.stride = l.n = b.extent(axis);
    return pencil(l, b, axis);
  }
  /// The owned cells of a field whose first owned cell is global `offset`.
  static Side field(GhostedView<MemSpace> const& v, Index3 const& offset) {
    Side s;
    s.lines.data = v.origin;
    s.lines.n = 0;  // Plain: n is not read
    for (int a = 0; a < 3; ++a) s.lo[a] = offset[a];
    s.step[1] = v.sy;
    s.step[2] = v.sz;
    return s;
  }
  bool complex() const { return lines.form == Lines::Form::Complex; }
  /// The slots a walk along `axis` visits for the global indices [from, to) (Complex: all; a
  /// walk skips those of other entries).
  int slotBegin(int from) const { return complex() ? 0 : from; }
  int slotEnd(int to) const { return complex() ? lines.slots() : to; }
};

/// A Side seen along the axes (f, m, s) of a walk, its lines' axis f or m. kPlain: the form is
/// Plain (known at compile time, so that the walks of Plain lines do no slot arithmetic).
template <bool kPlain>
struct Walker {
  Lines lines;
  bool alongF = true;
  int own = 0;  ///< lo of the lines' axis
  int lf = 0, lm = 0, ls = 0;
  long long sf = 0, sm = 0, ss = 0;
  Walker(Side const& side, int f, int m) : lines(side.lines), alongF(side.axis == f) {
    int const s = 3 - f - m;
    own = side.lo[side.axis];
    lf = side.lo[f];
    lm = side.lo[m];
    ls = side.lo[s];
    sf = side.step[f];
    sm = side.step[m];
    ss = side.step[s];
  }
  KOKKOS_INLINE_FUNCTION long long first(int cf, int cm, int cs) const {
    return (cf - lf) * sf + (cm - lm) * sm + (cs - ls) * ss;
  }
  KOKKOS_INLINE_FUNCTION int along(int cf, int cm) const { return (alongF ? cf : cm) - own; }
  KOKKOS_INLINE_FUNCTION double get(int cf, int cm, int cs) const {
    if (kPlain) return lines.data[first(cf, cm, cs) + along(cf, cm)];
    return lines.get(first(cf, cm, cs), along(cf, cm));
  }
  KOKKOS_INLINE_FUNCTION double& at(int cf, int cm, int cs) const {
    if (kPlain) return lines.data[first(cf, cm, cs) + along(cf, cm)];
    return lines.at(first(cf, cm, cs), along(cf, cm));
  }
  /// The global index of the entry at slot `s` along the lines' axis (Lines::entry).
  KOKKOS_INLINE_FUNCTION int entry(int s, bool& zero) const {
    zero = false;
    return kPlain ? s : lines.entry(s - own, zero) + own;
  }
  KOKKOS_INLINE_FUNCTION int slot(int p) const { return kPlain ? p : lines.slot(p - own) + own; }
};

struct Identity {
  KOKKOS_INLINE_FUNCTION double operator()(double v, int, int, int) const { return v; }
};

/// dst(c) = op(src(c), c along f, m, s) for every cell c of `box`, src and dst with lines along
/// the same axis f: a team per line, walking the slots of dst if it is Complex (so that its zero
/// slots are written), else those of src (skipping its zero slots).
template <bool kPlain, class Op>
void copyLinesAs(ExecSpace const& space, Side const& srcSide, Side const& dstSide, Box3 const& box,
                 Op const& op) {
  int const f = dstSide.axis, m = f == 0 ? 1 : 0, sAxis = 3 - f - m;
  Walker<kPlain> const src(srcSide, f, m), dst(dstSide, f, m);
  bool const walkDst = dstSide.complex();
  Side const& walked = walkDst ? dstSide : srcSide;
  int const first = walked.slotBegin(box.lo[f]), count = walked.slotEnd(box.hi[f]) - first;
  int const lo = box.lo[f], hi = box.hi[f], mLo = box.lo[m], sLo = box.lo[sAxis];
  int const rowsPerPlane = box.extent(m);
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "eddy::fluids::fft::copy", Team(space, box.extent(m) * box.extent(sAxis), Kokkos::AUTO),
      KOKKOS_LAMBDA(Team::member_type const& team) {
        int const row = team.league_rank();
        int const cm = mLo + row % rowsPerPlane, cs = sLo + row / rowsPerPlane;
        auto const slots = Kokkos::TeamThreadRange(team, count);  // nested: no label
        Kokkos::parallel_for(slots, [&](int e) {
          bool zero = false;
          int const s = first + e;
          if (kPlain) {
            dst.at(s, cm, cs) = op(src.get(s, cm, cs), s, cm, cs);
          } else if (walkDst) {
            int const p = dst.entry(s, zero);
            if (p < lo || p >= hi) return;
            dst.at(s, cm, cs) = zero ? 0.0 : op(src.get(src.slot(p), cm, cs), p, cm, cs);
          } else {
            int const p = src.entry(s, zero);
            if (zero || p < lo || p >= hi) return;
            dst.at(dst.slot(p), cm, cs) = op(src.get(s, cm, cs), p, cm, cs);
          }
        });
      });
}

template <class Op = Identity>
void copyLines(ExecSpace const& space, Side const& src, Side const& dst, Box3 const& box,
               Op const& op = Op()) {
  if (box.size() == 0) return;
  if (src.lines.form == Lines::Form::Plain && dst.lines.form == Lines::Form::Plain)
    copyLinesAs<true>(space, src, dst, box, op);
  else
    copyLinesAs<false>(space, src, dst, box, op);
}

constexpr int kTile = 32;

template <bool kPlain>
void transposeTiles(ExecSpace const& space, Side const& srcSide, Side const& dstSide,
                    Box3 const& box);

/// dst(c) = src(c) for every cell c of `box`: rows when src and dst have their lines along the
/// same axis, else through 32 x 32 tiles in team scratch, so that both the reads and the writes
/// run along memory (the slots of src's lines, then those of dst's).
void transfer(ExecSpace const& space, Side const& src, Side const& dst, Box3 const& box) {
  if (box.size() == 0) return;
  if (src.axis == dst.axis)
    copyLines(space, src, dst, box);
  else if (src.lines.form == Lines::Form::Plain && dst.lines.form == Lines::Form::Plain)
    transposeTiles<true>(space, src, dst, box);
  else
    transposeTiles<false>(space, src, dst, box);
}

template <bool kPlain>
void transposeTiles(ExecSpace const& space, Side const& srcSide, Side const& dstSide,
                    Box3 const& box) {
  int const f = srcSide.axis, m = dstSide.axis, sAxis = 3 - f - m;
  Walker<kPlain> const src(srcSide, f, m), dst(dstSide, f, m);
  int const fFirst = srcSide.slotBegin(box.lo[f]), fCount = srcSide.slotEnd(box.hi[f]) - fFirst;
  int const mFirst = dstSide.slotBegin(box.lo[m]), mCount = dstSide.slotEnd(box.hi[m]) - mFirst;
  int const fLo = box.lo[f], fHi = box.hi[f], mLo = box.lo[m], mHi = box.hi[m];
  int const sLo = box.lo[sAxis];
  int const tf = (fCount + kTile - 1) / kTile, tm = (mCount + kTile - 1) / kTile;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  using Scratch = typename ExecSpace::scratch_memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Tile = Kokkos::View<double[kTile][kTile + 1], Scratch, Unmanaged>;
  // A tile's rows and columns: per slot of src along f and of dst along m, the global index
  // there (-1: no entry to move) and where the line of the other side starts.
  using Edges = Kokkos::View<long long[4][kTile], Scratch, Unmanaged>;
  enum { kEntryF, kFirstDst, kEntryM, kFirstSrc };
  long long constexpr kSkip = -1, kZero = -2;  // kEntryM: no entry; a zero slot of dst
  auto policy = Team(space, tf * tm * box.extent(sAxis), Kokkos::AUTO)
                    .set_scratch_size(0, Kokkos::PerTeam(Tile::shmem_size() + Edges::shmem_size()));
  Kokkos::parallel_for(
      "eddy::fluids::fft::transpose", policy, KOKKOS_LAMBDA(Team::member_type const& team) {
        int const t = team.league_rank();
        int const bf = t % tf * kTile, bm = t / tf % tm * kTile, cs = sLo + t / (tf * tm);
        Tile tile(team.team_scratch(0));
        Edges edges(team.team_scratch(0));
        // The slots' entries once a tile, not once an element. A zero slot of src is skipped
        // (its entry comes from another slot); a zero slot of dst is written 0.
        auto const side = Kokkos::TeamThreadRange(team, kTile);  // nested: no label
        Kokkos::parallel_for(side, [&](int q) {
          bool zf = false, zm = false;
          int const sf = fFirst + bf + q, sm = mFirst + bm + q;
          int const pf = bf + q < fCount ? src.entry(sf, zf) : fLo - 1;
          int const pm = bm + q < mCount ? dst.entry(sm, zm) : mLo - 1;
          bool const fIn = !zf && pf >= fLo && pf < fHi, mIn = pm >= mLo && pm < mHi;
          edges(kEntryF, q) = fIn ? pf : kSkip;
          edges(kFirstDst, q) = fIn ? dst.first(pf, 0, cs) : 0;
          edges(kEntryM, q) = !mIn ? kSkip : zm ? kZero : pm;
          edges(kFirstSrc, q) = mIn ? src.first(0, pm, cs) : 0;
        });
        team.team_barrier();
        // Read along src's slots (f), write along dst's (m).
        auto const entries = Kokkos::TeamThreadRange(team, kTile * kTile);  // nested: no label
        Kokkos::parallel_for(entries, [&](int e) {
          int const qf = e % kTile, qm = e / kTile;
          long long const pf = edges(kEntryF, qf), pm = edges(kEntryM, qm);
          if (pf < 0 || pm < 0) return;
          tile(qm, qf) = src.lines.get(edges(kFirstSrc, qm), fFirst + bf + qf - src.own);
        });
        team.team_barrier();
        Kokkos::parallel_for(entries, [&](int e) {
          int const qm = e % kTile, qf = e / kTile;
          long long const pf = edges(kEntryF, qf), pm = edges(kEntryM, qm);
          if (pf < 0 || pm == kSkip) return;
          dst.lines.at(edges(kFirstDst, qf), mFirst + bm + qm - dst.own) =
              pm == kZero ? 0.0 : tile(qm, qf);
        });
      });
}

/// dst = src / (lambda_x + lambda_y + lambda_z) / scale over the pencil `box` (src's and dst's
/// lines along the same axis), entries by global (halfcomplex) index; the zero mode (all three
/// 0) to 0. A negative scale negates dst exactly.
void divideByEigenvalues(ExecSpace const& space, Box3 const& box, Side const& src, Side const& dst,
                         Data const (&eigen)[3], double scale) {
  // copyLines walks the lines' axis f and the axes m, s; the eigenvalues are summed x, y, z.
  int const f = dst.axis, m = f == 0 ? 1 : 0;
  int walk[3];  // walk[axis]: 0 for f, 1 for m, 2 for s
  for (int a = 0; a < 3; ++a) walk[a] = a == f ? 0 : a == m ? 1 : 2;
  Data const ef = eigen[f], em = eigen[m], es = eigen[3 - f - m];
  int const wx = walk[0], wy = walk[1], wz = walk[2];
  copyLines(
      space, src, dst, box, KOKKOS_LAMBDA(double v, int cf, int cm, int cs) {
        auto const lambda = [&](int w) {
          return w == 0 ? ef(cf) : w == 1 ? em(cm) : es(cs);
        };
        double const mu = lambda(wx) + lambda(wy) + lambda(wz);
        return mu > 0 ? v / (mu * scale) : 0.0;
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
      largest = std::max(largest, transforms.back()->values(lines(axis)));
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

  /// Runs `move` from `src` to `dst` (accesses with their lines' axes). Messages hold their box
  /// Plain along dst's axis, so that they unpack along memory.
  void run(ExecSpace const& space, Move const& move, Side const& src, Side const& dst) {
    ScopedRegion region("eddy::fluids::fft::move");
    transfer(space, src, dst, move.kept);
    if (!peers) return;
    for (auto const& part : move.sends)
      transfer(space, src, Side::message(sendBuf.data() + part.offset, part.box, dst.axis),
               part.box);
    peers->post(space, sendBuf, move.sendMessages, recvBuf, move.recvMessages);
    peers->wait(space);
    for (auto const& part : move.recvs)
      transfer(space, Side::message(recvBuf.data() + part.offset, part.box, dst.axis), dst,
               part.box);
  }

  Side pencil(Lines const& lines, int axis) const {
    return Side::pencil(lines, pencils[axis].boxes[me], axis);
  }
  /// The pencil array that does not hold `lines`.
  Data const& other(Lines const& lines) const { return lines.data == a.data() ? b : a; }
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
                       GhostedView<MemSpace> const& phi, double sign) {
  ScopedRegion region("eddy::fluids::poisson::fft");
  EDDY_REQUIRE(sign == 1.0 || sign == -1.0, "FftPoisson::solve: sign ", sign, "; expected 1 or -1");
  Impl& m = *m_impl;
  int const last = m.dims - 1;
  // Forwards: block -> x pencils, transform; -> y pencils, transform [; -> z pencils, transform],
  // each move from the array holding the last transform's coefficients into the other one.
  Lines in = m.transforms[0]->input(m.a);
  m.run(space, m.moves[0], Side::field(f, m.decomp.offset()), m.pencil(in, 0));
  Lines held = m.transforms[0]->forward(space, m.a, m.b, m.lines(0));
  for (int axis = 1; axis < m.dims; ++axis) {
    Data const& to = m.other(held);
    in = m.transforms[axis]->input(to);
    m.run(space, m.moves[axis], m.pencil(held, axis - 1), m.pencil(in, axis));
    held = m.transforms[axis]->forward(space, to, m.other(in), m.lines(axis));
  }
  Data const& to = m.other(held);
  Lines coefficients = m.transforms[last]->coefficients(to);
  divideByEigenvalues(space, m.pencils[last].boxes[m.me], m.pencil(held, last),
                      m.pencil(coefficients, last), m.eigen, sign * m.normalisation);
  held = m.transforms[last]->inverse(space, to, m.other(coefficients), m.lines(last));
  for (int axis = last; axis > 0; --axis) {
    Data const& next = m.other(held);
    coefficients = m.transforms[axis - 1]->coefficients(next);
    m.run(space, m.movesBack[axis], m.pencil(held, axis), m.pencil(coefficients, axis - 1));
    held = m.transforms[axis - 1]->inverse(space, next, m.other(coefficients), m.lines(axis - 1));
  }
  m.run(space, m.movesBack[0], m.pencil(held, 0), Side::field(phi, m.decomp.offset()));
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
