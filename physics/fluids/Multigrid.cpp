#include "fluids/Multigrid.hpp"

#include "fluids/PoissonKernels.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/BoxSplit.hpp"
#include "eddy/core/Environment.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/HaloExchange.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Tuning.hpp"

#include <algorithm>
#include <climits>
#include <string>

namespace eddy::fluids {

using FieldType = Field<MemSpace>;
using Halo = HaloExchange<ExecSpace>;

MultigridTuning MultigridTuning::fromEnvironment() {
  MultigridTuning t;
  std::string const sweeps = choiceFromEnvironment(
      "EDDY_MG_FINE_SWEEPS", t.fineSweeps == FineSweeps::Planes ? "3" : "0", {"0", "3"},
      "0 or 3 (how the finest multigrid level sweeps: 0 two half sweeps in place, 3 out of place "
      "in one pass with the sweep from zero as a seven-point map of the right-hand side)");
  t.fineSweeps = sweeps == "3" ? FineSweeps::Planes : FineSweeps::Halves;
  t.outOfPlaceCells = integerFromEnvironment(
      "EDDY_MG_OUT_OF_PLACE_CELLS", t.outOfPlaceCells, 0, LLONG_MAX,
      "a cell count >= 0 (with EDDY_MG_FINE_SWEEPS=3, the coarser multigrid levels whose blocks "
      "hold at least that many cells sweep out of place too; 0: the finest level only)");
  t.fusedCoarseCells =
      integerFromEnvironment("EDDY_MG_FUSED_CELLS", t.fusedCoarseCells, 0, LLONG_MAX,
                             "a cell count >= 0 (0: every multigrid level launched step by step)");
  t.gatheredCoarseCells = integerFromEnvironment(
      "EDDY_MG_GATHER_CELLS", t.gatheredCoarseCells, 0, LLONG_MAX,
      "a cell count >= 0 (multigrid levels of at most that many cells are gathered onto every "
      "rank)");
  t.overlapCells = integerFromEnvironment(
      "EDDY_MG_OVERLAP_CELLS", t.overlapCells, 0, LLONG_MAX,
      "a cell count >= 0 (with overlap, multigrid levels whose ranks own at least that many cells "
      "overlap their exchanges)");
  return t;
}

namespace {
/// Half sweep n (0 .. 2 sweeps - 1) of a smoothing: its colour, whether it starts from x = 0,
/// and whether x's ghosts are exchanged before it, in the one-launch tail (one ghost layer: the
/// sequence Multigrid::smooth follows on one-layer levels).
struct HalfSweep {
  int colour;
  bool fromZero, exchangeFirst;
};
KOKKOS_INLINE_FUNCTION HalfSweep halfSweepAt(int n, bool redFirst, Multigrid::SmoothStart start) {
  using Start = Multigrid::SmoothStart;
  bool const fromZero = n == 0 && start == Start::FromZero;
  return {redFirst ? n % 2 : 1 - n % 2, fromZero,
          !fromZero && !(n == 0 && start == Start::GhostsCurrent)};
}

/// Most levels of the one-launch tail (the functor carries them by value).
constexpr int kMaxFusedLevels = 8;

/// One level of the one-launch tail: its grid and fields (the level's correction x,
/// right-hand side b and residual).
struct FusedLevel {
  detail::PoissonGrid g;
  detail::CellView x, b, res;
};

/// The V-cycle from level 0 of `lv` down to the coarsest, in one team: each step of
/// Multigrid::cycle as a team loop over the same cells with the same cell functions, a halo
/// exchange as a team copy of the periodic ghosts (the levels are whole on this rank), and a
/// barrier after each step.
struct FusedCycle {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  FusedLevel lv[kMaxFusedLevels];
  int count = 0;
  int pre = 2, post = 2, coarseSweeps = 4;

  /// The exchange of a level held whole: every ghost across periodic axes only gets the owned
  /// value at the wrapped index; ghosts beyond a wall are left alone.
  KOKKOS_INLINE_FUNCTION void fill(Member const& team, detail::PoissonGrid const& g,
                                   detail::CellView const& f) const {
    int const ex = g.nx + 2, ey = g.ny + 2, ez = g.dims == 3 ? g.nz + 2 : 1;
    auto const cells = Kokkos::TeamThreadRange(team, ex * ey * ez);
    Kokkos::parallel_for(cells, [&](int t) {
      int i = t % ex - 1, j = (t / ex) % ey - 1, k = g.dims == 3 ? t / (ex * ey) - 1 : 0;
      bool const outX = i < 0 || i >= g.nx, outY = j < 0 || j >= g.ny, outZ = k < 0 || k >= g.nz;
      if (!(outX || outY || outZ)) return;                             // owned
      if ((outX && g.wx) || (outY && g.wy) || (outZ && g.wz)) return;  // beyond a wall
      int const si = outX ? (i + g.nx) % g.nx : i, sj = outY ? (j + g.ny) % g.ny : j,
                sk = outZ ? (k + g.nz) % g.nz : k;
      f(i, j, k) = f(si, sj, sk);
    });
    team.team_barrier();
  }

  /// Half sweep of `colour` (smoothColour), or the first one from zero (smoothColourFromZero).
  KOKKOS_INLINE_FUNCTION void halfSweep(Member const& team, FusedLevel const& L, int colour,
                                        bool fromZero) const {
    detail::PoissonGrid const& g = L.g;
    int const shift = colour + g.ox + g.oy + g.oz;
    if (fromZero) {
      auto const cells = Kokkos::TeamThreadRange(team, g.nx * g.ny * g.nz);
      Kokkos::parallel_for(cells, [&](int t) {
        int const i = t % g.nx, j = (t / g.nx) % g.ny, k = t / (g.nx * g.ny);
        L.x(i, j, k) = detail::fromZeroCell(g, L.b, shift, i, j, k);
      });
    } else {
      int const hx = (g.nx + 1) / 2;
      auto const cells = Kokkos::TeamThreadRange(team, hx * g.ny * g.nz);
      Kokkos::parallel_for(cells, [&](int t) {
        detail::smoothColourItem(g, L.b, L.x, shift, t % hx, (t / hx) % g.ny, t / (hx * g.ny));
      });
    }
    team.team_barrier();
  }

  /// Multigrid::smooth.
  KOKKOS_INLINE_FUNCTION void smooth(Member const& team, FusedLevel const& L, int sweeps,
                                     bool redFirst, Multigrid::SmoothStart start) const {
    for (int n = 0; n < 2 * sweeps; ++n) {
      HalfSweep const h = halfSweepAt(n, redFirst, start);
      if (h.exchangeFirst) fill(team, L.g, L.x);
      halfSweep(team, L, h.colour, h.fromZero);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(Member const& team) const {
    using Start = Multigrid::SmoothStart;
    for (int l = 0; l + 1 < count; ++l) {
      FusedLevel const& L = lv[l];
      FusedLevel const& C = lv[l + 1];
      detail::PoissonGrid const& g = L.g;
      if (pre == 0) {  // the zero guess, ghosts included
        int const ex = g.nx + 2, ey = g.ny + 2, ez = g.dims == 3 ? g.nz + 2 : 1;
        int const dz = g.dims == 3 ? 1 : 0;
        auto const cells = Kokkos::TeamThreadRange(team, ex * ey * ez);
        Kokkos::parallel_for(
            cells, [&](int t) { L.x(t % ex - 1, (t / ex) % ey - 1, t / (ex * ey) - dz) = 0.0; });
        team.team_barrier();
      }
      smooth(team, L, pre, true, Start::FromZero);
      fill(team, g, L.x);
      auto const owned = Kokkos::TeamThreadRange(team, g.nx * g.ny * g.nz);
      Kokkos::parallel_for(owned, [&](int t) {
        int const i = t % g.nx, j = (t / g.nx) % g.ny, k = t / (g.nx * g.ny);
        L.res(i, j, k) = detail::residualCell(g, L.b, L.x, i, j, k);
      });
      team.team_barrier();
      fill(team, g, L.res);
      detail::PoissonGrid const& c = C.g;
      auto const coarse = Kokkos::TeamThreadRange(team, c.nx * c.ny * c.nz);
      Kokkos::parallel_for(coarse, [&](int t) {
        int const i = t % c.nx, j = (t / c.nx) % c.ny, k = t / (c.nx * c.ny);
        C.b(i, j, k) = detail::restrictCell(g, L.res, c, i, j, k);
      });
      team.team_barrier();
    }
    FusedLevel const& bottom = lv[count - 1];
    smooth(team, bottom, coarseSweeps, true, Start::FromZero);
    smooth(team, bottom, coarseSweeps, false, Start::GhostsStale);
    for (int l = count - 2; l >= 0; --l) {
      FusedLevel const& L = lv[l];
      FusedLevel const& C = lv[l + 1];
      detail::PoissonGrid const& g = L.g;
      fill(team, C.g, C.x);
      // Owned cells, then their ghosts by copy: the prolongation into the ghosts gives the
      // same bits (see prolongAdd).
      auto const owned = Kokkos::TeamThreadRange(team, g.nx * g.ny * g.nz);
      Kokkos::parallel_for(owned, [&](int t) {
        int const i = t % g.nx, j = (t / g.nx) % g.ny, k = t / (g.nx * g.ny);
        L.x(i, j, k) += detail::prolongCell(g, C.g, C.x, i, j, k);
      });
      team.team_barrier();
      fill(team, g, L.x);
      smooth(team, L, post, false, Start::GhostsCurrent);
    }
  }
};

/// Halo exchange, skipped when there is no message (one rank, no periodic axis): the exchange
/// would still fence the instance.
template <class Exchange, class F>
void exchange(ExecSpace const& space, Exchange& halo, F& field) {
  if (halo.messageCount() > 0) halo.exchange(space, field);
}
}  // namespace

/// One level of the hierarchy: its decomposition (the caller's process grid, or one rank on
/// MPI_COMM_SELF when replicated), fields and halo exchange. The last distributed level before a
/// replicated one also holds the gather of its residual onto every rank ("twin"). The finest
/// level holds no field: its three come from the caller of apply.
struct Multigrid::Level {
  Level(int levelNumber, MPI_Comm c, CartDecomposition const& d,
        std::array<double, 3> const& cellSize, bool isReplicated)
      : number(levelNumber),
        decomp(d),
        comm(c),
        replicated(isReplicated),
        h(cellSize),
        grid(detail::PoissonGrid::make(d, cellSize)) {}

  /// The level's fields (not on the finest level: its come from the caller) with `ghost` layers
  /// of ghosts, and their exchange.
  void allocate(ExecSpace const& space, int ghost) {
    std::string const tag = "eddy::fluids::poisson::level" + std::to_string(number);
    if (number > 0) {
      x = std::make_unique<FieldType>(space, tag + "::correction", decomp, ghost);
      b = std::make_unique<FieldType>(space, tag + "::rhs", decomp, ghost);
      res = std::make_unique<FieldType>(space, tag + "::residual", decomp, ghost);
    }
    layout = FieldLayout::make(decomp, ghost, Centering::Cell, tag);
    halo = std::make_unique<Halo>(space, comm, decomp, layout);
  }

  int number;
  CartDecomposition decomp;
  MPI_Comm comm;
  bool replicated;
  std::array<double, 3> h;
  detail::PoissonGrid grid;
  FieldLayout layout;  ///< of every field of the level
  std::unique_ptr<FieldType> x, b, res;
  std::unique_ptr<Halo> halo;
  /// The exchange of the finest level's float work field (mixed precision only).
  std::unique_ptr<HaloExchange<ExecSpace, float>> halo32;
  /// With overlap: exchanges before the level's kernels run beside the cells that read no
  /// ghost from another rank (exchangeThen, aroundPeers).
  bool overlap = false;
  /// Sweeps out of place (smoothOutOfPlace) when it does not overlap; then the slabs where the
  /// second colour waits for an exchange (detail::ghostFaceShell).
  bool outOfPlace = false;
  std::vector<Box3> sweepShell;

  /// `cells` (withGhostRings) split for a kernel beside an exchange (BoxSplit::awayFromPeerFaces):
  /// `away` is the ghost width for a half sweep of the exchanged x (it writes x, whose owned cells
  /// within the ghost width of the face are sent), 1 for a kernel that reads neighbours one cell
  /// away and writes another field, 0 for one that reads only the cell itself.
  BoxSplit aroundPeers(Box3 const& cells, int away) const {
    return BoxSplit::awayFromPeerFaces(cells, layout.cells, halo->peerFaces(), away);
  }

  // Gather point only.
  std::unique_ptr<CartDecomposition> twinDecomp;
  detail::PoissonGrid twinGrid;
  std::unique_ptr<FieldType> twin;
  std::unique_ptr<Halo> twinHalo;
  /// Every rank's block, rank after rank: this rank packs its own into its place and sends it
  /// from there to every other rank, through the process transport (with nccl on the stream: no
  /// host staging, no synchronisation), which fills the other places.
  Kokkos::View<double*, MemSpace> gathered;
  Kokkos::View<int*, MemSpace> gatherMap;  ///< global cell (x fastest) -> gathered position
  std::vector<PeerMessage> gatherSends, gatherRecvs;
  PeerExchange<ExecSpace> gatherPeers;
  mpi::DuplicatedComm gatherComm;  ///< a duplicate of comm, so its messages match no other
  int gatherAt = 0;                ///< this rank's place in `gathered`

  ~Level() {
    gatherPeers = PeerExchange<ExecSpace>();  // cancels messages still in flight first
  }
  Level(Level const&) = delete;
  Level& operator=(Level const&) = delete;

  void setupGather(ExecSpace const& space) {
    Index3 const G = decomp.globalCells();
    twinDecomp = std::make_unique<CartDecomposition>(G, decomp.dims(), decomp.periodic(), 1, 0);
    twinGrid = detail::PoissonGrid::make(*twinDecomp, h);
    twin = std::make_unique<FieldType>(space, "eddy::fluids::poisson::gathered", *twinDecomp, 1);
    twinHalo = std::make_unique<Halo>(space, MPI_COMM_SELF, *twinDecomp, twin->layout());
    long long const total = static_cast<long long>(G[0]) * G[1] * G[2];
    if (total > INT_MAX)
      throw ConfigError(str("PoissonSolver: the multigrid level of ", toString(G),
                            " cells must be gathered onto every rank, but has more than ", INT_MAX,
                            " cells; use a rank count that divides the grid evenly"));
    int const nranks = decomp.nranks();
    auto mapHost = Kokkos::View<int*, Kokkos::HostSpace>("eddy::fluids::poisson::gatherMapHost",
                                                         static_cast<std::size_t>(total));
    int at = 0;
    for (int r = 0; r < nranks; ++r) {
      Index3 const n = decomp.localCellsOf(r), o = decomp.offsetOf(r);
      int const count = n[0] * n[1] * n[2];
      if (r == decomp.rank()) {
        gatherAt = at;
      } else {
        gatherRecvs.push_back(
            PeerMessage{r, 0, static_cast<std::size_t>(at), static_cast<std::size_t>(count)});
      }
      for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
          for (int i = 0; i < n[0]; ++i)
            mapHost((o[0] + i) + G[0] * ((o[1] + j) + static_cast<long long>(G[1]) * (o[2] + k))) =
                at + i + n[0] * (j + n[1] * k);
      at += count;
    }
    Index3 const n = decomp.localCells();
    std::size_t const ownCount = static_cast<std::size_t>(n[0]) * n[1] * n[2];
    for (int r = 0; r < nranks; ++r)
      if (r != decomp.rank())
        gatherSends.push_back(PeerMessage{r, 0, static_cast<std::size_t>(gatherAt), ownCount});
    gatherMap = Kokkos::View<int*, MemSpace>(
        Kokkos::view_alloc(space, std::string("eddy::fluids::poisson::gatherMap")), total);
    Kokkos::deep_copy(space, gatherMap, mapHost);
    gathered = Kokkos::View<double*, MemSpace>(
        Kokkos::view_alloc(space, std::string("eddy::fluids::poisson::gathered")), total);
    gatherComm = mpi::DuplicatedComm(comm);
    gatherPeers = PeerExchange<ExecSpace>(gatherComm.get(), transport::current());
    space.fence();  // mapHost dies here
  }

  std::size_t bytes() const {
    std::size_t s = 0;
    for (auto const* f : {x.get(), b.get(), res.get(), twin.get()})
      if (f) s += f->bytes();
    s += halo->bytes();
    if (halo32) s += halo32->bytes();
    if (twinHalo) s += twinHalo->bytes();
    s += gathered.span() * 8 + gatherMap.span() * sizeof(int);
    return s;
  }
};

namespace {
/// The exchange of `field` on `halo`, then `work` over `cells` (work takes a box and whether it
/// is a slab of an overlap's shell). Without `overlap`, or without messages to other ranks, one
/// after the other on `space`. With them, the messages travel on `haloSpace` while `work` runs
/// on the inner cells of `splitter.aroundPeers(cells, away)` (after the ghosts this rank sends
/// itself), then on each slab of its shell once they have arrived: `away` must keep the inner
/// cells from reading a ghost that another rank sends and from writing an entry sent to one.
template <class Exchange, class F, class Work>
void exchangeThen(ExecSpace const& space, ExecSpace const& haloSpace, bool overlap, Exchange& halo,
                  F& field, Multigrid::Level const& splitter, Box3 const& cells, int away,
                  Work const& work) {
  if (!overlap || !halo.hasPeers()) {
    exchange(space, halo, field);
    work(cells, false);
    return;
  }
  BoxSplit const split = splitter.aroundPeers(cells, away);
  halo.exchangeBeside(
      space, haloSpace, field, [&] { work(split.inner, false); },
      [&] {
        for (Box3 const& slab : split.shell) work(slab, true);
      });
}
}  // namespace

Multigrid::Multigrid(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
                     std::array<double, 3> const& h, int preSmooth, int postSmooth,
                     MultigridTuning const& tuning, bool overlap, bool mixedPrecision)
    : m_pre(preSmooth),
      m_post(postSmooth),
      m_fineSweeps(tuning.fineSweeps),
      m_mixed(mixedPrecision) {
  if (tuning.fineSweeps != FineSweeps::Halves && tuning.fineSweeps != FineSweeps::Planes)
    throw ConfigError(str("PoissonSolver: multigrid fine sweeps ",
                          static_cast<int>(tuning.fineSweeps),
                          "; expected 0 (halves in place) or 3 (out of place in one pass)"));
  if (tuning.fusedCoarseCells < 0 || tuning.gatheredCoarseCells < 0 || tuning.overlapCells < 0 ||
      tuning.outOfPlaceCells < 0)
    throw ConfigError(str("PoissonSolver: multigrid cell counts fused ", tuning.fusedCoarseCells,
                          ", gathered ", tuning.gatheredCoarseCells, ", overlap ",
                          tuning.overlapCells, ", out of place ", tuning.outOfPlaceCells,
                          "; expected >= 0"));
  if (preSmooth < 0 || postSmooth < 0)
    throw ConfigError(str("PoissonSolver: multigrid smoothing sweeps pre = ", preSmooth,
                          ", post = ", postSmooth, "; expected >= 0"));
  long long const fusedCells = tuning.fusedCoarseCells;
  int const dims = decomp.dims();
  m_levels.push_back(std::make_unique<Level>(0, comm, decomp, h, false));
  while (true) {
    Level& f = *m_levels.back();
    Index3 const G = f.decomp.globalCells();
    bool coarsen = true;
    for (int a = 0; a < dims; ++a) coarsen = coarsen && G[a] % 2 == 0 && G[a] / 2 >= 2;
    if (!coarsen) break;
    Index3 gc = G;
    std::array<double, 3> hc = f.h;
    for (int a = 0; a < dims; ++a) gc[a] /= 2, hc[a] *= 2;
    bool distributed = !f.replicated;
    if (distributed) {
      // Every block must halve into whole cells, at least two per axis: the block extents are
      // G / p (+1), all even only when 2p divides G.
      Index3 const p = f.decomp.procGrid();
      for (int a = 0; a < dims; ++a)
        distributed = distributed && G[a] % (2 * p[a]) == 0 && G[a] / (2 * p[a]) >= 2;
      // A level small enough for the one-launch tail, or for gatherCells, is gathered even when
      // it could stay distributed: one gather per V-cycle then replaces the halo exchanges of
      // every coarser level, whose work is too small to gain from being split.
      long long coarseCells = 1;
      for (int a = 0; a < dims; ++a) coarseCells *= gc[a];
      long long const gatherBelow = std::max(fusedCells, tuning.gatheredCoarseCells);
      if (gatherBelow > 0 && f.decomp.nranks() > 1 && coarseCells <= gatherBelow)
        distributed = false;
    }
    if (distributed) {
      CartDecomposition const dc(gc, dims, f.decomp.periodic(), f.decomp.nranks(), f.decomp.rank(),
                                 f.decomp.procGrid());
      m_levels.push_back(std::make_unique<Level>(levels(), f.comm, dc, hc, false));
    } else {
      if (!f.replicated) f.setupGather(space);
      CartDecomposition const dc(gc, dims, f.decomp.periodic(), 1, 0);
      m_levels.push_back(std::make_unique<Level>(levels(), MPI_COMM_SELF, dc, hc, true));
    }
  }
  // Coarsest level: a fixed number of symmetric sweep pairs, enough for the few cells it
  // normally has (2..8 per axis), capped where coarsening stopped early on an odd extent.
  Index3 const gc = m_levels.back()->decomp.globalCells();
  int maxExtent = 1;
  for (int a = 0; a < dims; ++a) maxExtent = std::max(maxExtent, gc[a]);
  m_coarseSweeps = std::min(64, std::max(4, 2 * maxExtent));
  for (int l = 0; l < levels(); ++l)
    m_levelRegions.push_back(str("eddy::fluids::poisson::level", l));
  // The one-launch tail: the coarsest levels that are whole on this rank (one rank, or
  // replicated) and small enough, at most kMaxFusedLevels of them.
  m_fusedFrom = levels();
  // With mixed precision the finest level keeps its own steps (on one rank as on several).
  int const firstFusable = m_mixed ? 1 : 0;
  if (fusedCells > 0)
    while (m_fusedFrom > firstFusable && levels() - m_fusedFrom < kMaxFusedLevels) {
      Level const& level = *m_levels[m_fusedFrom - 1];
      if (level.decomp.nranks() != 1 || level.grid.globalCount() > fusedCells) break;
      --m_fusedFrom;
    }
  // The levels that may sweep out of place (see the top of Multigrid.hpp), each with one ghost
  // layer: the finest (unless it overlaps its exchanges, decided below), and the coarser ones
  // run step by step whose blocks hold at least outOfPlaceCells cells, when no level overlaps.
  // Two ghost layers for the other levels run step by step but the finest (the caller's fields) and
  // the coarsest (sweeps only), unless the second layer would not be what its owner computes: a
  // block thinner than two cells, or a periodic axis of odd extent (the colours of the sweeps
  // would not match across the wrap).
  bool const anyOutOfPlace = tuning.fineSweeps == FineSweeps::Planes && dims == 3;
  for (int l = 0; l < levels(); ++l) {
    Level& level = *m_levels[l];
    long long const owned = static_cast<long long>(level.grid.nx) * level.grid.ny * level.grid.nz;
    level.outOfPlace =
        (anyOutOfPlace || (m_mixed && l == 0)) && l + 1 < levels() && l < m_fusedFrom &&
        (l == 0 || (!overlap && tuning.outOfPlaceCells > 0 && owned >= tuning.outOfPlaceCells));
    if (level.outOfPlace) level.sweepShell = detail::ghostFaceShell(level.grid);
    bool wide = !level.outOfPlace && l > 0 && l < m_fusedFrom && l + 1 < levels() && m_pre > 0 &&
                m_post > 0;
    Index3 const G = level.decomp.globalCells();
    for (int a = 0; a < dims && wide; ++a) {
      wide = !level.decomp.isPeriodic(a) || G[a] % 2 == 0;
      for (int r = 0; r < level.decomp.nranks() && wide; ++r)
        wide = level.decomp.localCellsOf(r)[a] >= 2;
    }
    level.allocate(space, wide ? 2 : 1);
    if (m_mixed && l == 0 && level.outOfPlace)
      level.halo32 = std::make_unique<HaloExchange<ExecSpace, float>>(space, level.comm,
                                                                      level.decomp, level.layout);
  }
  // Overlap on the distributed levels with a rank behind some face (not the coarsest: it only
  // sweeps, and is gathered or whole on every rank in practice).
  bool anyOverlap = false;
  for (int l = 0; overlap && l + 1 < levels() && l < m_fusedFrom; ++l) {
    Level& level = *m_levels[l];
    long long const owned = static_cast<long long>(level.grid.nx) * level.grid.ny * level.grid.nz;
    if (level.replicated || !level.halo->hasPeers() || owned < tuning.overlapCells) continue;
    if (level.halo32) continue;  // mixed precision: the finest level runs without overlap
    level.overlap = true;
    anyOverlap = true;
  }
  if (anyOverlap)
    m_haloSpace = compat::secondInstance(space, HaloTuning<ExecSpace>::current().streamHighPriority);
}

bool Multigrid::overlaps(int l) const {
  EDDY_REQUIRE(l >= 0 && l < levels(), "Multigrid::overlaps: level ", l, " of ", levels());
  return m_levels[l]->overlap;
}

Multigrid::~Multigrid() = default;

int Multigrid::levels() const {
  return static_cast<int>(m_levels.size());
}

int Multigrid::firstReplicatedLevel() const {
  for (int l = 0; l < levels(); ++l)
    if (m_levels[l]->replicated) return l;
  return levels();
}

Index3 Multigrid::levelCells(int l) const {
  EDDY_REQUIRE(l >= 0 && l < levels(), "Multigrid::levelCells: level ", l, " of ", levels());
  return m_levels[l]->decomp.globalCells();
}

std::size_t Multigrid::bytes() const {
  std::size_t s = 0;
  for (auto const& l : m_levels) s += l->bytes();
  return s;
}

int Multigrid::correctionGhost(int l) const {
  EDDY_REQUIRE(l >= 0 && l < levels(), "Multigrid::correctionGhost: level ", l, " of ", levels());
  return m_levels[l]->layout.ghosts[0];
}

void Multigrid::apply(ExecSpace const& space, FieldType const& r, FieldType& z, FieldType& work) {
  Level const& fine = *m_levels.front();
  for (FieldType const* f :
       {&r, static_cast<FieldType const*>(&z), static_cast<FieldType const*>(&work)})
    if (f->layout() != fine.layout)
      throw Error(str("Multigrid::apply: field '", f->label(), "' has ", toString(f->cells()),
                      " cells and ghost width ", f->ghost(), "; expected ",
                      toString(fine.layout.cells), " cells, ghost width 1, cell-centred"));
  if (&work == &r || &work == &z || &r == &z)
    throw Error(str("Multigrid::apply: r '", r.label(), "', z '", z.label(), "' and work '",
                    work.label(), "' must be three different fields"));
  ScopedRegion region("eddy::fluids::poisson::vcycle");
  cycle(space, 0, r, z, work);
}

Multigrid::Rings Multigrid::smooth(ExecSpace const& space, Level& level, FieldType const& b,
                                   FieldType& x, int sweeps, bool redFirst, bool fromZero,
                                   Rings current, bool exchangeB) {
  int const width = x.ghost();  // b is current width - 1 layers out (see cycle)
  EDDY_REQUIRE(!exchangeB || (fromZero && sweeps > 0 && level.b.get() == &b),
               "Multigrid::smooth: b's exchange goes with the first half sweep from zero of a "
               "level that holds b");
  Rings d = current;
  for (int n = 0; n < 2 * sweeps; ++n) {
    int const colour = redFirst ? n % 2 : 1 - n % 2;
    if (n == 0 && fromZero) {
      // Writes both colours (the other as 0) of its cells from b alone, reading b only at the
      // cell itself: beside b's exchange only the ghost cells across peer faces wait for it.
      int const rings = width - 1;
      Box3 const all = detail::withGhostRings(level.grid, rings);
      auto const sweep = [&](Box3 const& cells, bool slab) {
        detail::smoothColourFromZero(space, level.grid, b.access(), x.access(), colour, cells,
                                     slab);
      };
      if (exchangeB)
        exchangeThen(space, m_haloSpace, level.overlap, *level.halo, *level.b, level, all, 0,
                     sweep);
      else
        sweep(all, false);
      d.colour[0] = d.colour[1] = rings;
      continue;
    }
    auto const sweep = [&](Box3 const& cells, bool slab) {
      detail::smoothColour(space, level.grid, b.access(), x.access(), colour, cells, slab);
    };
    if (d.colour[1 - colour] == 0) {
      // The other colour's first ghost layer is stale: exchange x as it is before this half
      // sweep (with overlap its shell writes the sent cells after the pack); with every ghost
      // current the sweep also computes width - 1 ghost layers.
      int const rings = width - 1;
      exchangeThen(space, m_haloSpace, level.overlap, *level.halo, x, level,
                   detail::withGhostRings(level.grid, rings), width, sweep);
      d.colour[1 - colour] = width;
      d.colour[colour] = rings;
      continue;
    }
    int const rings = std::min(d.colour[1 - colour] - 1, width - 1);
    sweep(detail::withGhostRings(level.grid, rings), false);
    d.colour[colour] = rings;
  }
  return d;
}

template <class Work, class WorkHalo>
Multigrid::Rings Multigrid::smoothOutOfPlace(ExecSpace const& space, Level& level,
                                             FieldType const& b, FieldType& x, Work& other,
                                             WorkHalo& otherHalo, int sweeps, bool redFirst,
                                             bool fromZero, Rings current,
                                             detail::CoarseCorrection const* fold) {
  EDDY_REQUIRE(!fold || (!fromZero && sweeps % 2 == 0 && sweeps > 0),
               "Multigrid::smoothOutOfPlace: a coarse correction folds into an even count of "
               "sweeps that do not start from zero");
  int const colour = redFirst ? 0 : 1;  // every sweep starts with it (see smooth)
  Rings d = current;
  int n = 0;
  if (!fromZero && sweeps % 2 == 1) {  // an odd count: the first in place, so the last ends in x
    d = smooth(space, level, b, x, 1, redFirst, false, d);
    n = 1;
  }
  // Halves asked for (mixed precision sweeps out of place anyway): by two loops.
  auto const way =
      m_fineSweeps == FineSweeps::Planes ? detail::SweepWay::Planes : detail::SweepWay::Loops;
  // One sweep from `in` into `out`, then the second colour next to faces with ghosts, which
  // reads the first colour's ghosts: exchanged now (the second colour's ghosts sent with them
  // are xin's, as in place).
  auto const sweep = [&](auto& in, auto& inHalo, auto& out, auto& outHalo, bool zero,
                         auto const&... foldIfAny) {
    if (!zero && d.least() < 1) exchange(space, inHalo, in);
    detail::smoothSweep(space, level.grid, b.access(), in.access(), out.access(), colour, zero, way,
                        foldIfAny...);
    if (!level.sweepShell.empty()) {
      exchange(space, outHalo, out);
      detail::smoothSweepShell(space, level.grid, b.access(), out.access(), 1 - colour,
                               level.sweepShell);
    }
    d.colour[colour] = 1;
    d.colour[1 - colour] = 0;
  };
  for (; n < sweeps; ++n) {
    bool const zero = fromZero && n == 0;
    // The last sweep writes x, so every other one before it writes `other`. A fold goes with
    // the first of an even count: from x.
    if ((sweeps - 1 - n) % 2 == 0)
      sweep(other, otherHalo, x, *level.halo, zero);
    else
      sweep(x, *level.halo, other, otherHalo, zero, n == 0 ? fold : nullptr);
  }
  return d;
}

template <class T>
void Multigrid::gather(ExecSpace const& space, Level& level, Field<MemSpace, T> const& res) {
  ScopedRegion region("eddy::fluids::poisson::gather");
  auto const r = res.access();
  auto const all = level.gathered;
  int const nx = level.grid.nx, ny = level.grid.ny, at = level.gatherAt;
  forEachCell(
      "eddy::fluids::poisson::gatherPack", space, {0, 0, 0},
      {level.grid.nx, level.grid.ny, level.grid.nz},
      KOKKOS_LAMBDA(int i, int j, int k) { all(at + i + nx * (j + ny * k)) = r(i, j, k); });
  // Sent from this rank's place, received into the others' (disjoint ranges of one buffer).
  level.gatherPeers.post(space, all, level.gatherSends, all, level.gatherRecvs);
  level.gatherPeers.wait(space);
  auto const t = level.twin->access();
  auto const map = level.gatherMap;
  int const gx = level.twinGrid.nx, gy = level.twinGrid.ny;
  forEachCell(
      "eddy::fluids::poisson::gatherUnpack", space, {0, 0, 0},
      {level.twinGrid.nx, level.twinGrid.ny, level.twinGrid.nz},
      KOKKOS_LAMBDA(int i, int j, int k) { t(i, j, k) = all(map(i + gx * (j + gy * k))); });
  exchange(space, *level.twinHalo, *level.twin);
}

void Multigrid::fusedCycle(ExecSpace const& space, int l, FieldType const& b, FieldType& x,
                           FieldType& res) {
  ScopedRegion region("eddy::fluids::poisson::fusedLevels");
  FusedCycle f;
  f.count = levels() - l;
  f.pre = m_pre;
  f.post = m_post;
  f.coarseSweeps = m_coarseSweeps;
  f.lv[0] = FusedLevel{m_levels[l]->grid, x.access(), b.access(), res.access()};
  for (int k = 1; k < f.count; ++k) {
    Level const& level = *m_levels[l + k];
    f.lv[k] = FusedLevel{level.grid, level.x->access(), level.b->access(), level.res->access()};
  }
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  if (m_fusedTeam == 0)  // the functor type is fixed: ask once
    m_fusedTeam = std::min(Policy(space, 1, 1).team_size_max(f, Kokkos::ParallelForTag()), 1024);
  Kokkos::parallel_for("eddy::fluids::poisson::fusedCycle", Policy(space, 1, m_fusedTeam), f);
}

void Multigrid::cycle(ExecSpace const& space, int l, FieldType const& b, FieldType& x,
                      FieldType& res) {
  if (l == m_fusedFrom) {
    fusedCycle(space, l, b, x, res);
    return;
  }
  Level& level = *m_levels[l];
  if (l + 1 == levels()) {
    ScopedRegion region("eddy::fluids::poisson::coarseSolve");
    ScopedRegion own(m_levelRegions[l]);
    // >= 4 sweeps each way. The second starts with the colour the first ended with: its ghosts
    // count as stale (across an odd periodic wrap, which the coarsest level may have, a cell
    // reads ghosts of its own colour).
    smooth(space, level, b, x, m_coarseSweeps, true, true, {});
    smooth(space, level, b, x, m_coarseSweeps, false, false, {});
    return;
  }
  if (!level.halo32) {
    cycleLevel(space, level, b, x, res, *level.halo);
    return;
  }
  // Mixed precision: the work field is the float view of the caller's, made once per work
  // field (the solver passes the same one every time), so nothing is allocated per V-cycle. It
  // holds that field's allocation: no other field can take its address while it is cached.
  if (!m_work32 || m_work32->view().data() != reinterpret_cast<float*>(res.view().data()))
    m_work32 =
        std::make_unique<Field<MemSpace, float>>("eddy::fluids::poisson::level0::work32", res);
  cycleLevel(space, level, b, x, *m_work32, *level.halo32);
}

template <class Work, class WorkHalo>
void Multigrid::cycleLevel(ExecSpace const& space, Level& level, FieldType const& b, FieldType& x,
                           Work& res, WorkHalo& resHalo) {
  int const l = level.number;
  Level& coarse = *m_levels[l + 1];
  // Two ghost layers of x (see the top of Multigrid.hpp): b's first layer lets the sweeps and
  // the residual compute x's first ghost layer, and the residual's first layer is then computed,
  // not exchanged, for the restriction.
  bool const wide = x.ghost() > 1;
  bool const gathers = coarse.replicated && !level.replicated;
  // A level may sweep out of place, alternating between x and res: res holds the residual only
  // from the residual to the restriction (see smoothOutOfPlace).
  bool const outOfPlace = level.outOfPlace && !level.overlap && !wide;
  Rings d;
  {
    ScopedRegion own(m_levelRegions[l]);
    // b is the level's own (not the finest): its ghosts are exchanged with the first half sweep.
    if (wide && m_pre == 0) exchange(space, *level.halo, *level.b);
    if (m_pre == 0) {
      Kokkos::deep_copy(space, x.view(), 0.0);  // ghosts too: all current
      d.colour[0] = d.colour[1] = x.ghost();
    }
    if (outOfPlace && m_pre > 0)
      d = smoothOutOfPlace(space, level, b, x, res, resHalo, m_pre, true, true, d);
    else
      d = smooth(space, level, b, x, m_pre, true, m_pre > 0, d, wide && m_pre > 0);
    int const resRings = wide && !gathers ? 1 : 0;
    auto const residualOn = [&](Box3 const& cells, bool slab) {
      detail::residual(space, level.grid, b.access(), x.access(), res.access(), cells, slab);
    };
    Box3 const resCells = detail::withGhostRings(level.grid, resRings);
    if (d.least() < resRings + 1) {
      exchangeThen(space, m_haloSpace, level.overlap, *level.halo, x, level, resCells, 1,
                   residualOn);
      d.colour[0] = d.colour[1] = x.ghost();
    } else {
      residualOn(resCells, false);
    }
    if (gathers) {
      gather(space, level, res);
      detail::restrictResidual(space, level.twinGrid, level.twin->access(), coarse.grid,
                               coarse.b->access());
    } else {
      auto const restrictOn = [&](Box3 const& coarseCells, bool slab) {
        detail::restrictResidual(space, level.grid, res.access(), coarse.grid, coarse.b->access(),
                                 coarseCells, slab);
      };
      Box3 const coarseCells{{0, 0, 0}, coarse.grid.hi()};
      // A coarse cell one cell from a face reads no fine ghost across it; the coarse level is
      // split over the same ranks.
      if (resRings == 0)
        exchangeThen(space, m_haloSpace, level.overlap, resHalo, res, coarse, coarseCells, 1,
                     restrictOn);
      else
        restrictOn(coarseCells, false);
    }
  }
  cycle(space, l + 1, *coarse.b, *coarse.x, *coarse.res);
  ScopedRegion own(m_levelRegions[l]);
  // The prolongation also brings x's ghosts up to date, as deep as they were current (x is not
  // written between the residual and here) and as the coarse correction's ghosts reach. With
  // overlap, the fine cells whose parent and its neighbour are owned go first, beside the
  // coarse correction's exchange.
  if (outOfPlace && m_post > 0 && m_post % 2 == 0) {
    // The first sweep reads x + P e without x being written (see smoothOutOfPlace).
    exchange(space, *coarse.halo, *coarse.x);
    detail::CoarseCorrection const fold{coarse.grid, coarse.x->access()};
    smoothOutOfPlace(space, level, b, x, res, resHalo, m_post, false, false, d, &fold);
    return;
  }
  int const rings = std::min(d.least(), coarse.x->ghost());
  Box3 const fineCells = detail::withGhostRings(level.grid, rings);
  auto const prolong = [&](Box3 const& cells, bool slab) {
    detail::prolongAdd(space, level.grid, x.access(), coarse.grid, coarse.x->access(), cells, slab);
  };
  exchangeThen(space, m_haloSpace, level.overlap, *coarse.halo, *coarse.x, level, fineCells, 1,
               prolong);
  d.colour[0] = d.colour[1] = rings;
  if (outOfPlace)
    smoothOutOfPlace(space, level, b, x, res, resHalo, m_post, false, false, d);
  else
    smooth(space, level, b, x, m_post, false, false, d);
}

}  // namespace eddy::fluids
