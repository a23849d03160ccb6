/// @file StencilSweep.hpp
/// @brief One sweep of a seven-point map over a box: out(i, j, k) = f(i, j, k, the values of
/// `in` at (i, j, k) and its six face neighbours).
///
/// The sweep is the shape of an explicit diffusion step or a Jacobi smoother: every cell of the
/// box reads its neighbourhood in one field and writes one value of another. f sees values, not
/// the field, so the iteration is free to bring them in the fastest way for the backend:
/// - host backends (GridTuning::kPlaneSweeps false), and 2D fields: forEachCellStreaming, each cell
///   gathering its neighbours from `in`;
/// - CUDA, 3D: a team per x-y tile of kSweepTileX x kSweepTileY cells marches along z through a
///   run of planes. The team copies each plane of its tile (with a ghost ring in x and y) into
///   team scratch with asynchronous copies, kSweepDepth planes ahead of the plane it computes; a
///   cell's values then come from scratch (the one below from the thread's registers: it read it
///   as the centre one plane before), so each value of `in` leaves L2 about once instead of once
///   per neighbour that reads it. Where the rows of `out` allow it, a thread
///   takes two cells adjacent in x and stores them in one 16-byte store (kSweepPairs).
/// Either way f gets the same values in the same order, so the results are the same bits.
/// No launch bounds: bounding the registers for more teams a multiprocessor costs the sweep more
/// (spills) than the extra teams gain.
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/Tuning.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace eddy {

/// The values of a field at a cell (c) and its six face neighbours (m: index - 1, p: index + 1).
/// In 2D (a field without z ghosts) zm and zp hold c.
struct Neighbours7 {
  double c, xm, xp, ym, yp, zm, zp;
  /// The neighbour at offset (di, dj, dk), one of the six unit offsets, or the cell at 0.
  KOKKOS_INLINE_FUNCTION double at(int di, int dj, int dk) const {
    return di < 0 ? xm : di > 0 ? xp : dj < 0 ? ym : dj > 0 ? yp : dk < 0 ? zm : dk > 0 ? zp : c;
  }
};

namespace detail {

/// Where team t of a plane-streaming pass works: tiles of TX x TY cells from (xs0, lo1), runs of
/// `planesPerTeam` planes from lo2; the team's tile starts at (xs, y0), its planes are [k0, k1).
struct PlaneTeam {
  int xs, y0, k0, k1;
  template <int TX, int TY>
  KOKKOS_INLINE_FUNCTION static PlaneTeam of(int t, int xs0, int lo1, int lo2, int hi2, int tilesX,
                                             int tilesY, int planesPerTeam) {
    int const k0 = lo2 + t / (tilesX * tilesY) * planesPerTeam;
    return PlaneTeam{xs0 + (t % tilesX) * TX, lo1 + (t / tilesX % tilesY) * TY, k0,
                     k0 + planesPerTeam < hi2 ? k0 + planesPerTeam : hi2};
  }
};

/// The pipeline of a plane-streaming pass over planes [k0, k1) with Depth planes in flight, each
/// computed plane reading the slots of planes k - Below .. k + 1: copyPlane(m, slot) starts this
/// thread's copies of plane m into `slot`; computePlane(k, slot) computes this thread's cells of
/// plane k, `slot` holding plane k - Below and the planes above it following in the next slots
/// (next). Plane m lives in slot (m - k0 + Below) % kSlots. The copy into a slot starts
/// only after the barrier that follows the last reads of the plane it held, so Depth + 2 + Below
/// slots suffice. Every issue commits one group, so the count of groups in flight is the same on
/// every path (a group past the run is empty).
template <int Depth, int Below>
struct PlanePipeline {
  static_assert(Depth >= 1, "PlanePipeline: at least one plane in flight");
  static constexpr int kSlots = Depth + 2 + Below;

  KOKKOS_INLINE_FUNCTION static int next(int slot) { return slot + 1 == kSlots ? 0 : slot + 1; }

  template <class Team, class CopyPlane, class ComputePlane>
  KOKKOS_INLINE_FUNCTION static void march(Team const& team, int k0, int k1,
                                           CopyPlane const& copyPlane,
                                           ComputePlane const& computePlane) {
    auto issue = [&](int m, int slot) {
      if (m <= k1) copyPlane(m, slot);
      compat::asyncCommit();
    };
    int slot = 0;  // the slot of the next plane to issue
    for (int m = k0 - Below; m <= k0 + Depth; ++m, slot = next(slot)) issue(m, slot);
    int first = 0;  // the slot of plane k - Below
    for (int k = k0; k < k1; ++k) {
      compat::asyncWait<Depth - 1>();  // planes up to k + 1 have landed (this thread's part)
      team.team_barrier();  // ... and every thread's; plane k - Below - 1 is read by no one
      issue(k + Depth + 1, slot);
      slot = next(slot);
      computePlane(k, first);
      first = next(first);
    }
  }
};

/// The plane-streaming sweep of one team: tile (tx, ty) of the box, planes [k0, k1).
/// Scratch holds the pipeline's slots (PlanePipeline with Below 0), a plane of the tile with a
/// ghost ring in x and y each. The team computes plane k from the slots of k and k + 1 while
/// planes k + 2 .. k + Depth + 1 are in flight: a cell's neighbours in x and y come from slot k,
/// its neighbour above from slot k + 1, and the one below from the thread's registers (the centre
/// it read at k - 1; at k0 from `in`).
///
/// With Pairs a thread takes two cells adjacent in x: it reads their values from scratch in
/// 16-byte loads and stores them to `out` in one store (16 bytes, 8 for floats). The tiles then
/// start at xs0, the first x from lo0 on where the pairs of `out` are aligned (lo0 or lo0 + 1:
/// planePairShift); when that is lo0 + 1, the first thread of each row of the first tiles also
/// computes cell lo0 alone. A cell of a pair past the box is not stored.
template <int TX, int TY, int Depth, bool Pairs, class Exec, class Mem, class F, class Out = double>
struct PlaneSweep {
  static_assert(!Pairs || TX % 2 == 0, "PlaneSweep: pairs of cells need an even tile width");
  static constexpr int kWidth = Pairs ? 2 : 1;       ///< cells per thread
  static constexpr int kThreads = TX * TY / kWidth;  ///< threads of a team on GPUs
  /// Scratch index of the tile's first x in a row; a row holds x from xs - kPad on. With pairs
  /// kPad is even, so a pair's first value is 16-byte aligned, and the row holds xs - 2 for the
  /// cell before the tile.
  static constexpr int kPad = Pairs ? 2 : 1;
  using Pipeline = PlanePipeline<Depth, 0>;
  static constexpr int kPX = TX + 2 * kPad, kPY = TY + 2, kPlane = kPX * kPY;
  static constexpr int kSlots = Pipeline::kSlots;
  /// Entries of a row copied per plane (x from xs - kPad to xs + TX), and of a plane.
  static constexpr int kRowCopies = TX + kPad + 1, kCopies = kRowCopies * kPY;
  using Team = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<double*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  GhostedView<Mem> in;
  GhostedView<Mem, Out> out;  ///< double, or float (values rounded as they are stored)
  int xs0;                    ///< x of the first tile's first cell
  int lo0, lo1, lo2, hi0, hi1, hi2;
  int tilesX, tilesY, planesPerTeam;
  F f;

  /// The ring, and one more value so that it can start on 16 bytes.
  static std::size_t scratchBytes() { return Scratch::shmem_size(kSlots * kPlane + 1); }

  KOKKOS_INLINE_FUNCTION void operator()(Team const& team) const {
    Scratch scratch(team.team_scratch(0), kSlots * kPlane + 1);
    double* ring = scratch.data();
    if (reinterpret_cast<std::uintptr_t>(ring) % 16 != 0) ring += 1;
    auto const p = PlaneTeam::of<TX, TY>(team.league_rank(), xs0, lo1, lo2, hi2, tilesX, tilesY,
                                         planesPerTeam);
    if (team.team_size() == kThreads)
      cellsPerThread(team, ring, p.xs, p.y0, p.k0, p.k1);
    else
      anyTeamSize(team, ring, p.xs, p.y0, p.k0, p.k1);
  }

  /// Entry e of a plane's copy: its offset in a plane of `in` and in a slot. Entries outside
  /// [lo0 - 1, hi0] x [lo1 - 1, hi1] are clamped onto it: read, not used.
  KOKKOS_INLINE_FUNCTION void copyEntry(int e, int xs, int y0, int& from, int& to) const {
    int const ex = e % kRowCopies, ey = e / kRowCopies;
    int gx = xs - kPad + ex;
    gx = gx < lo0 - 1 ? lo0 - 1 : (gx > hi0 ? hi0 : gx);
    int const gy = y0 - 1 + ey < hi1 ? y0 - 1 + ey : hi1;
    from = gx + gy * in.sy;
    to = ey * kPX + ex;
  }

  /// The pipeline both ways below share: copyPlane(src, dst) starts this thread's copies of the
  /// tile's plane at `src` (a plane of `in`) into `dst` (a slot); computePlane(k, here, above)
  /// computes this thread's cells of plane k from the slots of planes k and k + 1.
  template <class CopyPlane, class ComputePlane>
  KOKKOS_INLINE_FUNCTION void march(Team const& team, double* ring, int k0, int k1,
                                    CopyPlane const& copyPlane,
                                    ComputePlane const& computePlane) const {
    Pipeline::march(
        team, k0, k1,
        [&](int m, int slot) { copyPlane(in.origin + m * in.sz, ring + slot * kPlane); },
        [&](int k, int here) {
          computePlane(k, ring + here * kPlane, ring + Pipeline::next(here) * kPlane);
        });
  }

  /// kThreads threads (GPUs): each thread's copies of a plane (at most a few) and its cells are
  /// worked out once, so a plane costs each thread its copies, one barrier, and six scratch reads
  /// and a store per cell (per pair with Pairs); the value below is the centre of the plane before.
  KOKKOS_INLINE_FUNCTION void cellsPerThread(Team const& team, double* ring, int xs, int y0, int k0,
                                             int k1) const {
    constexpr int kPerThread = (kCopies + kThreads - 1) / kThreads;
    int const r = team.team_rank();
    int from[kPerThread], to[kPerThread];  // offsets in a plane of `in`, in a slot; to < 0: none
    for (int u = 0; u < kPerThread; ++u) {
      int const e = r + u * kThreads;
      copyEntry(e, xs, y0, from[u], to[u]);
      if (e >= kCopies) to[u] = -1;
    }
    constexpr int kRowThreads = TX / kWidth;
    int const cx = kWidth * (r % kRowThreads), cy = r / kRowThreads;
    int const i = xs + cx, j = y0 + cy;
    int const s = cx + kPad + (cy + 1) * kPX;  // the (first) cell's entry in a slot
    bool const row = j < hi1;
    bool const in0 = row && i >= lo0 && i < hi0;
    bool const in1 = Pairs && row && i + 1 >= lo0 && i + 1 < hi0;
    bool const edge = Pairs && row && cx == 0 && xs - 1 == lo0 && lo0 < hi0;  // cell lo0 alone
    // The values below this thread's cells, carried from plane to plane: plane k0 - 1 from `in`.
    double zm0 = 0, zm1 = 0, zmEdge = 0;
    if (in0) zm0 = in(i, j, k0 - 1);
    if (in1) zm1 = in(i + 1, j, k0 - 1);
    if (edge) zmEdge = in(i - 1, j, k0 - 1);
    march(
        team, ring, k0, k1,
        [&](double const* src, double* dst) {
          for (int u = 0; u < kPerThread; ++u)
            if (to[u] >= 0) compat::asyncCopy(dst + to[u], src + from[u]);
        },
        [&](int k, double const* here, double const* above) {
          double const* const h = here + s;
          double const* const a = above + s;
          if constexpr (Pairs) {
            auto const c = compat::load2(h), ym = compat::load2(h - kPX),
                       yp = compat::load2(h + kPX);
            auto const zp = compat::load2(a);
            Neighbours7 const nb0{c.x, h[-1], c.y, ym.x, yp.x, zm0, zp.x};
            Neighbours7 const nb1{c.y, c.x, h[2], ym.y, yp.y, zm1, zp.y};
            if (in0 && in1) {
              compat::store2(&out(i, j, k), f(i, j, k, nb0), f(i + 1, j, k, nb1));
            } else {
              if (in0) out(i, j, k) = f(i, j, k, nb0);
              if (in1) out(i + 1, j, k) = f(i + 1, j, k, nb1);
            }
            zm0 = c.x;
            zm1 = c.y;
            if (edge) {
              Neighbours7 const nb{h[-1], h[-2], c.x, h[-1 - kPX], h[-1 + kPX], zmEdge, a[-1]};
              out(i - 1, j, k) = f(i - 1, j, k, nb);
              zmEdge = h[-1];
            }
          } else if (in0) {
            Neighbours7 const nb{h[0], h[-1], h[1], h[-kPX], h[kPX], zm0, a[0]};
            out(i, j, k) = f(i, j, k, nb);
            zm0 = h[0];
          }
        });
  }

  /// Any team size (host backends run teams of one thread): the threads share out the copies
  /// and the cells of each plane in strided loops, a cell at a time.
  KOKKOS_INLINE_FUNCTION void anyTeamSize(Team const& team, double* ring, int xs, int y0, int k0,
                                          int k1) const {
    int const rank = team.team_rank(), size = team.team_size();
    march(
        team, ring, k0, k1,
        [&](double const* src, double* dst) {
          for (int e = rank; e < kCopies; e += size) {
            int from, to;
            copyEntry(e, xs, y0, from, to);
            compat::asyncCopy(dst + to, src + from);
          }
        },
        [&](int k, double const* here, double const* above) {
          // Cells xs - 1 .. xs + TX - 1 of each row; xs - 1 only as the pairs' cell lo0 alone.
          // The values below come from `in` (a thread here has many cells a plane).
          for (int c = rank; c < (TX + 1) * TY; c += size) {
            int const cx = c % (TX + 1) - 1, i = xs + cx, j = y0 + c / (TX + 1);
            bool const mine = cx >= 0 || (Pairs && i == lo0);
            if (mine && i >= lo0 && i < hi0 && j < hi1) {
              int const s = cx + kPad + (c / (TX + 1) + 1) * kPX;
              Neighbours7 const nb{here[s],       here[s - 1],     here[s + 1], here[s - kPX],
                                   here[s + kPX], in(i, j, k - 1), above[s]};
              out(i, j, k) = f(i, j, k, nb);
            }
          }
        });
  }
};

/// Where the tiles of a plane sweep with pairs start so that every pair's first cell is aligned
/// to the pair's size in `out` (16 bytes for doubles, 8 for floats): 0 (at lo0) or 1 (at lo0 +
/// 1); -1 when the rows of `out` do not all share one alignment (odd strides).
template <class Mem, class T>
int planePairShift(GhostedView<Mem, T> const& out, int lo0) {
  if (out.sy % 2 != 0 || out.sz % 2 != 0) return -1;
  auto const at = reinterpret_cast<std::uintptr_t>(out.origin + lo0) % (2 * sizeof(T));
  return at == 0 ? 0 : (at == sizeof(T) ? 1 : -1);
}

/// Planes per team when the caller leaves it to the sweep (0): runs of 64 planes (longer runs
/// refill the pipeline less often, shorter ones spread small boxes over more teams), shorter where
/// that would leave fewer than two teams per resident team slot, down to 8 planes.
template <class Exec>
int defaultPlanesPerTeam(Exec const& space, int threadsPerTeam, long long tiles, int planes) {
  long long resident = compat::concurrency(space) / threadsPerTeam;
  if (resident < 1) resident = 1;
  long long runs = (planes + 63) / 64;
  long long const wanted = (2 * resident + tiles - 1) / tiles;
  if (runs < wanted) runs = wanted;
  long long const maxRuns = (planes + 7) / 8;
  if (runs > maxRuns) runs = maxRuns;
  if (runs < 1) runs = 1;
  return static_cast<int>((planes + runs - 1) / runs);
}

/// The teams of a plane-streaming pass over x from xs0, y and z in [lo1, hi1) x [lo2, hi2): tiles
/// of TX x TY, runs of `planesPerTeam` planes (0: defaultPlanesPerTeam), one team per tile and
/// run (fewer than 2^31).
struct PlaneLaunch {
  int tilesX, tilesY, run, teams;
  template <int TX, int TY, class Exec>
  static PlaneLaunch of(std::string const& label, Exec const& space, int teamSize, int xs0,
                        std::array<int, 3> const& lo, std::array<int, 3> const& hi,
                        int planesPerTeam) {
    long long tilesX = (hi[0] - xs0 + TX - 1) / TX;
    if (tilesX < 1) tilesX = 1;  // a box one cell wide, that cell alone (pairs from lo0 + 1)
    long long const tilesY = (hi[1] - lo[1] + TY - 1) / TY;
    int const planes = hi[2] - lo[2];
    int const run = planesPerTeam > 0
                        ? planesPerTeam
                        : defaultPlanesPerTeam(space, teamSize, tilesX * tilesY, planes);
    long long const teams = tilesX * tilesY * ((planes + run - 1) / run);
    EDDY_REQUIRE(teams < (1LL << 31), "'", label, "': ", teams, " teams for box [", lo[0], ",",
                 hi[0], ") x [", lo[1], ",", hi[1], ") x [", lo[2], ",", hi[2],
                 "), expected fewer than 2^31");
    return PlaneLaunch{static_cast<int>(tilesX), static_cast<int>(tilesY), run,
                       static_cast<int>(teams)};
  }
};

/// Gives each team of `policy` `bytes` of level-0 scratch, or throws naming the kernel and what
/// needs them (`what`) when a team cannot have that much.
template <class Policy>
void setPlaneScratch(std::string const& label, Policy& policy, std::size_t bytes,
                     std::string const& what) {
  EDDY_REQUIRE(bytes <= static_cast<std::size_t>(policy.scratch_size_max(0)), "'", label,
               "': ", what, " needs ", bytes, " bytes of team scratch, more than the ",
               policy.scratch_size_max(0), " a team can have");
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
}

}  // namespace detail

/// Tile, depth and cells per thread of the plane-streaming sweep used by sweepSevenPoint on CUDA
/// (the fastest of the tiles and depths bench_stencil times). A team's scratch is limited to
/// 40 KB: 128 x 4 with pairs takes 25 KB at depth 2, 32 KB at depth 3.
inline constexpr int kSweepTileX = 128, kSweepTileY = 4, kSweepDepth = 2;

/// Whether sweepSevenPoint on CUDA gives each thread two cells adjacent in x (16-byte loads and
/// stores) where the rows of the output allow it (even strides; otherwise a cell per thread).
inline constexpr bool kSweepPairs = true;

/// The plane-streaming sweep with an explicit tile, depth and run of planes per team (0: chosen
/// by the sweep), for benchmarks and tests; runs on any backend (on host backends with one thread
/// per team and plain copies). Callers use sweepSevenPoint.
template <int TX, int TY, int Depth, bool Pairs = false, class Exec, class Mem, class Out, class F>
void sweepSevenPointPlanes(std::string const& label, Exec const& space, GhostedView<Mem> const& in,
                           GhostedView<Mem, Out> const& out, std::array<int, 3> const& lo,
                           std::array<int, 3> const& hi, int planesPerTeam, F const& f) {
  if (emptyBox(lo, hi)) return;
  using K = detail::PlaneSweep<TX, TY, Depth, Pairs, Exec, Mem, F, Out>;
  int xs0 = lo[0];
  if constexpr (Pairs) {
    int const shift = detail::planePairShift(out, lo[0]);
    EDDY_REQUIRE(shift >= 0, "sweepSevenPoint '", label,
                 "': pairs of cells need rows of the output that start on 16 bytes alike (strides ",
                 out.sy, ", ", out.sz, ")");
    xs0 += shift;
  }
  int const teamSize = GridTuning<Exec>::kPlaneSweeps ? K::kThreads : 1;
  auto const n =
      detail::PlaneLaunch::of<TX, TY>(label, space, teamSize, xs0, lo, hi, planesPerTeam);
  Kokkos::TeamPolicy<Exec> policy(space, n.teams, teamSize);
  detail::setPlaneScratch(label, policy, K::scratchBytes(),
                          str("tile ", TX, " x ", TY, " with ", Depth, " planes in flight"));
  Kokkos::parallel_for(
      label, policy,
      K{in, out, xs0, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], n.tilesX, n.tilesY, n.run, f});
}

/// sweepSevenPoint on views: `withZ` whether `in` has a ghost layer in z (3D); `out` holds
/// doubles or floats (f's values rounded as they are stored). The callers check the fields.
template <class Exec, class Mem, class Out, class F>
void sweepSevenPoint(std::string const& label, Exec const& space, GhostedView<Mem> const& u,
                     GhostedView<Mem, Out> const& o, bool withZ, std::array<int, 3> const& lo,
                     std::array<int, 3> const& hi, F const& f) {
  if constexpr (GridTuning<Exec>::kPlaneSweeps) {
    if (withZ) {
      if (kSweepPairs && detail::planePairShift(o, lo[0]) >= 0)
        sweepSevenPointPlanes<kSweepTileX, kSweepTileY, kSweepDepth, true>(label, space, u, o, lo,
                                                                           hi, 0, f);
      else
        sweepSevenPointPlanes<kSweepTileX, kSweepTileY, kSweepDepth, false>(label, space, u, o, lo,
                                                                            hi, 0, f);
      return;
    }
  }
  // 3D and 2D in separate kernels: with a choice per cell between loading a z neighbour and not,
  // the row loop does not vectorise as well on a host core.
  if (withZ)
    forEachCellStreaming(
        label, space, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
          Neighbours7 const nb{u(i, j, k),     u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k),
                               u(i, j + 1, k), u(i, j, k - 1), u(i, j, k + 1)};
          o(i, j, k) = f(i, j, k, nb);
        });
  else
    forEachCellStreaming(
        label, space, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
          double const c = u(i, j, k);
          Neighbours7 const nb{c, u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k), u(i, j + 1, k), c,
                               c};
          o(i, j, k) = f(i, j, k, nb);
        });
}

/// out(i, j, k) = f(i, j, k, Neighbours7 of `in` at (i, j, k)) for lo <= (i, j, k) < hi, on
/// `space`. `in` needs a ghost layer on every axis it has ghosts on (the neighbours of the box's
/// edge cells are read from it); `in` and `out` must be different fields (cells are written
/// while their neighbours are read). The label names the kernel (`eddy::<module>::<what>`).
template <class Exec, class Mem, class F>
void sweepSevenPoint(std::string const& label, Exec const& space, Field<Mem> const& in,
                     Field<Mem>& out, std::array<int, 3> const& lo, std::array<int, 3> const& hi,
                     F const& f) {
  EDDY_REQUIRE(in.view().data() != out.view().data(), "sweepSevenPoint '", label, "': field '",
               in.label(), "' is both read and written; expected two fields");
  EDDY_REQUIRE(in.ghosts()[0] >= 1 && in.ghosts()[1] >= 1, "sweepSevenPoint '", label, "': field '",
               in.label(), "' has ghost widths ", in.ghosts()[0], ", ", in.ghosts()[1],
               " in x, y; expected at least 1");
  sweepSevenPoint(label, space, in.access(), out.access(), in.ghosts()[2] >= 1, lo, hi, f);
}

}  // namespace eddy
