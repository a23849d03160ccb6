/// @file StencilSweep.hpp
/// @brief One sweep of a seven-point map over a box: out(i, j, k) = f(i, j, k, the values of
/// `in` at (i, j, k) and its six face neighbours).
///
/// The sweep is the shape of an explicit diffusion step or a Jacobi smoother: every cell of the
/// box reads its neighbourhood in one field and writes one value of another. f sees values, not
/// the field, so the iteration is free to bring them in the fastest way for the backend:
/// - host backends (compat::planeSweeps false), and 2D fields: forEachCellStreaming, each cell
///   gathering its neighbours from `in`;
/// - CUDA, 3D: a team per x-y tile of kSweepTileX x kSweepTileY cells marches along z through a
///   run of planes, a thread per cell. The team copies each plane of its tile (with a ghost ring
///   in x and y) into team scratch with asynchronous copies, kSweepDepth planes ahead of the
///   plane it computes; a cell's seven values then come from scratch, so each value of `in`
///   leaves L2 about once instead of once per neighbour that reads it.
/// Either way f gets the same values in the same order, so the results are the same bits.
///
/// Measured on an H200 (bench_stencil 512, ratio of effective bandwidth to deep_copy's): the
/// plane sweep 0.780-0.787 against 0.751 for the best gathering iteration (row blocks of 4).
/// What holds it there is the width of the accesses, not the stencil: the same plane iteration
/// copying the field (f = centre) reaches 0.806, a flat copy kernel moving 8 bytes a thread 0.791
/// and one moving 16 bytes a thread 0.995. ncu: the plane sweep moves the ideal bytes to and
/// from DRAM, with L2 throughput at 89% of peak and the warps mostly waiting at the plane barrier.
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"

#include <array>
#include <string>

namespace eddy {

/// The values of a field at a cell (c) and its six face neighbours (m: index - 1, p: index + 1).
/// In 2D (a field without z ghosts) zm and zp hold c.
struct Neighbours7 {
  double c, xm, xp, ym, yp, zm, zp;
};

namespace detail {

/// The plane-streaming sweep of one team: tile (tx, ty) of the box, planes [k0, k1).
/// Scratch holds kSlots planes of (TX + 2) x (TY + 2) values; plane m lives in slot
/// (m - k0 + 1) % kSlots. The team computes plane k from slots k - 1, k, k + 1 while planes
/// k + 2 .. k + Depth + 1 are in flight; the copy into a slot starts only after the barrier that
/// follows the last reads of the plane it held (k - 2), so Depth + 3 slots suffice.
template <int TX, int TY, int Depth, int Rows, class Exec, class Mem, class F>
struct PlaneSweep {
  static_assert(Depth >= 1, "PlaneSweep: at least one plane in flight");
  static_assert(TY % Rows == 0, "PlaneSweep: the tile's rows split evenly among its threads");
  /// Threads of a team on GPUs: each takes Rows cells of the tile, one per TY / Rows rows.
  static constexpr int kThreads = TX * TY / Rows;
  static constexpr int kPX = TX + 2, kPY = TY + 2, kPlane = kPX * kPY, kSlots = Depth + 3;
  using Team = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<double*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  GhostedView<Mem> in, out;
  int lo0, lo1, lo2, hi0, hi1, hi2;
  int tilesX, tilesY, planesPerTeam;
  F f;

  static std::size_t scratchBytes() { return Scratch::shmem_size(kSlots * kPlane); }

  KOKKOS_INLINE_FUNCTION void operator()(Team const& team) const {
    Scratch ring(team.team_scratch(0), kSlots * kPlane);
    int const t = team.league_rank();
    int const x0 = lo0 + (t % tilesX) * TX;
    int const y0 = lo1 + (t / tilesX % tilesY) * TY;
    int const k0 = lo2 + t / (tilesX * tilesY) * planesPerTeam;
    int const k1 = k0 + planesPerTeam < hi2 ? k0 + planesPerTeam : hi2;
    if (team.team_size() == kThreads)
      cellPerThread(team, ring.data(), x0, y0, k0, k1);
    else
      anyTeamSize(team, ring.data(), x0, y0, k0, k1);
  }

  /// kThreads threads (GPUs): each thread's copies of a plane (at most a few) and its cells are
  /// worked out once, so a plane costs each thread its copies, one barrier, and seven scratch
  /// reads and one store per cell.
  KOKKOS_INLINE_FUNCTION void cellPerThread(Team const& team, double* ring, int x0, int y0, int k0,
                                            int k1) const {
    constexpr int kPerThread = (kPlane + kThreads - 1) / kThreads;
    int const r = team.team_rank();
    int from[kPerThread], to[kPerThread];  // offsets in a plane of `in`, in a slot; to < 0: none
    for (int u = 0; u < kPerThread; ++u) {
      int const e = r + u * kThreads;
      int const ex = e % kPX, ey = e / kPX;
      // Entries past the box's high side are clamped onto the first ghost: read, not used.
      int const gx = x0 - 1 + ex < hi0 ? x0 - 1 + ex : hi0;
      int const gy = y0 - 1 + ey < hi1 ? y0 - 1 + ey : hi1;
      from[u] = gx + gy * in.sy;
      to[u] = e < kPlane ? e : -1;
    }
    // Plane m into slot `slot`; always one commit, so that the count of groups in flight is the
    // same on every path (a group past the run is empty).
    auto issue = [&](int m, int slot) {
      if (m <= k1) {
        double const* const plane = in.origin + m * in.sz;
        for (int u = 0; u < kPerThread; ++u)
          if (to[u] >= 0) compat::asyncCopy(ring + slot * kPlane + to[u], plane + from[u]);
      }
      compat::asyncCommit();
    };
    auto next = [](int slot) {
      return slot + 1 == kSlots ? 0 : slot + 1;
    };
    int const i = x0 + r % TX;
    int const s = r % TX + 1 + (r / TX + 1) * kPX;  // the first cell's entry in a slot
    int slot = 0;                                   // the slot of the next plane to issue
    for (int m = k0 - 1; m <= k0 + Depth; ++m, slot = next(slot)) issue(m, slot);
    int below = 0;  // the slot of plane k - 1
    for (int k = k0; k < k1; ++k) {
      compat::asyncWait<Depth - 1>();  // planes up to k + 1 have landed (this thread's part)
      team.team_barrier();             // ... and every thread's; plane k - 2 is read by no one
      issue(k + Depth + 1, slot);
      slot = next(slot);
      int const here = next(below), above = next(here);
      for (int q = 0; q < Rows; ++q) {
        int const j = y0 + r / TX + q * (TY / Rows);
        if (i < hi0 && j < hi1) {
          int const c = s + q * (TY / Rows) * kPX;
          double const* const h = ring + here * kPlane;
          Neighbours7 const nb{h[c],
                               h[c - 1],
                               h[c + 1],
                               h[c - kPX],
                               h[c + kPX],
                               ring[below * kPlane + c],
                               ring[above * kPlane + c]};
          out(i, j, k) = f(i, j, k, nb);
        }
      }
      below = here;
    }
  }

  /// Any team size (host backends run teams of one thread): the threads share out the copies
  /// and the cells of each plane in strided loops.
  KOKKOS_INLINE_FUNCTION void anyTeamSize(Team const& team, double* ring, int x0, int y0, int k0,
                                          int k1) const {
    int const rank = team.team_rank(), size = team.team_size();
    double const* const src = in.origin;
    int const sy = in.sy, sz = in.sz;
    auto issue = [&](int m) {
      if (m <= k1) {
        double* const slot = ring + (m - k0 + 1) % kSlots * kPlane;
        for (int e = rank; e < kPlane; e += size) {
          int const ex = e % kPX, ey = e / kPX;
          int const gx = x0 - 1 + ex < hi0 ? x0 - 1 + ex : hi0;
          int const gy = y0 - 1 + ey < hi1 ? y0 - 1 + ey : hi1;
          compat::asyncCopy(slot + e, src + (gx + gy * sy + m * sz));
        }
      }
      compat::asyncCommit();
    };
    for (int m = k0 - 1; m <= k0 + Depth; ++m) issue(m);
    for (int k = k0; k < k1; ++k) {
      compat::asyncWait<Depth - 1>();
      team.team_barrier();
      issue(k + Depth + 1);
      double const* const below = ring + (k - k0) % kSlots * kPlane;
      double const* const here = ring + (k - k0 + 1) % kSlots * kPlane;
      double const* const above = ring + (k - k0 + 2) % kSlots * kPlane;
      for (int c = rank; c < TX * TY; c += size) {
        int const i = x0 + c % TX, j = y0 + c / TX;
        if (i < hi0 && j < hi1) {
          int const s = c % TX + 1 + (c / TX + 1) * kPX;
          Neighbours7 const nb{here[s],       here[s - 1], here[s + 1], here[s - kPX],
                               here[s + kPX], below[s],    above[s]};
          out(i, j, k) = f(i, j, k, nb);
        }
      }
    }
  }
};

/// Planes per team when the caller leaves it to the sweep (0): runs of 64 planes, shorter where
/// that would leave fewer than two teams per resident team slot, down to 8 planes. H200, 512^3,
/// tile 128 x 4, depth 3 (bench_stencil, ratio to copy), runs of 32 / 64 / 128 planes: the plain
/// stencil 0.790-0.795 / 0.790-0.791 / 0.770-0.774, the diffusion model's arithmetic
/// 0.743-0.747 / 0.762-0.763 / 0.767-0.771.
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

}  // namespace detail

/// Tile and depth of the plane-streaming sweep used by sweepSevenPoint on CUDA (a thread per
/// cell). H200, 512^3, runs of 32 or 64 planes (bench_stencil, ratio to copy): 128 x 4 depth 3
/// 0.791-0.802, depth 2 0.779-0.787, depth 1 0.715-0.724; 128 x 2 0.772-0.774, 256 x 2 0.765,
/// 64 x 8 0.718-0.750, 32 x 8 0.601; two or four cells per thread (128 x 4, 128 x 6, 64 x 8,
/// 64 x 16) 0.64-0.80, no better. Wider tiles read longer runs of each row. Depth 3 takes 37 KB of
/// the 40 KB of scratch a team can have.
inline constexpr int kSweepTileX = 128, kSweepTileY = 4, kSweepDepth = 3;

/// The plane-streaming sweep with an explicit tile, depth and run of planes per team (0: chosen
/// by the sweep), for benchmarks and tests; runs on any backend (on host backends with one thread
/// per team and plain copies). Callers use sweepSevenPoint.
template <int TX, int TY, int Depth, int Rows = 1, class Exec, class Mem, class F>
void sweepSevenPointPlanes(std::string const& label, Exec const& space, GhostedView<Mem> const& in,
                           GhostedView<Mem> const& out, std::array<int, 3> const& lo,
                           std::array<int, 3> const& hi, int planesPerTeam, F const& f) {
  for (int d = 0; d < 3; ++d)
    if (hi[d] <= lo[d]) return;
  using K = detail::PlaneSweep<TX, TY, Depth, Rows, Exec, Mem, F>;
  int const teamSize = compat::planeSweeps<Exec>() ? K::kThreads : 1;
  long long const tilesX = (hi[0] - lo[0] + TX - 1) / TX;
  long long const tilesY = (hi[1] - lo[1] + TY - 1) / TY;
  int const planes = hi[2] - lo[2];
  int const run = planesPerTeam > 0
                      ? planesPerTeam
                      : detail::defaultPlanesPerTeam(space, teamSize, tilesX * tilesY, planes);
  long long const teams = tilesX * tilesY * ((planes + run - 1) / run);
  EDDY_REQUIRE(teams < (1LL << 31), "sweepSevenPoint '", label, "': ", teams, " teams for box [",
               lo[0], ",", hi[0], ") x [", lo[1], ",", hi[1], ") x [", lo[2], ",", hi[2],
               "), expected fewer than 2^31");
  Kokkos::TeamPolicy<Exec> policy(space, static_cast<int>(teams), teamSize);
  EDDY_REQUIRE(K::scratchBytes() <= static_cast<std::size_t>(policy.scratch_size_max(0)),
               "sweepSevenPoint '", label, "': tile ", TX, " x ", TY, " with ", Depth,
               " planes in flight needs ", K::scratchBytes(),
               " bytes of team scratch, more than the ", policy.scratch_size_max(0),
               " a team can have");
  policy.set_scratch_size(0, Kokkos::PerTeam(K::scratchBytes()));
  Kokkos::parallel_for(label, policy,
                       K{in, out, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2],
                         static_cast<int>(tilesX), static_cast<int>(tilesY), run, f});
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
  bool const withZ = in.ghosts()[2] >= 1;
  auto const u = in.access();
  auto const o = out.access();
  if constexpr (compat::planeSweeps<Exec>()) {
    if (withZ) {
      sweepSevenPointPlanes<kSweepTileX, kSweepTileY, kSweepDepth>(label, space, u, o, lo, hi, 0,
                                                                   f);
      return;
    }
  }
  forEachCellStreaming(
      label, space, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        double const c = u(i, j, k);
        Neighbours7 const nb{c,
                             u(i - 1, j, k),
                             u(i + 1, j, k),
                             u(i, j - 1, k),
                             u(i, j + 1, k),
                             withZ ? u(i, j, k - 1) : c,
                             withZ ? u(i, j, k + 1) : c};
        o(i, j, k) = f(i, j, k, nb);
      });
}

}  // namespace eddy
