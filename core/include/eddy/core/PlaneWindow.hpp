/// @file PlaneWindow.hpp
/// @brief A pass over a box whose cells read several fields within one entry of themselves on
/// every axis: f(i, j, k, w), where w(f, dx, dy, dz) is field f at (i + dx, j + dy, k + dz),
/// |dx|, |dy|, |dz| <= 1 (up to the 27 entries around the cell, of each field).
///
/// The shape of a staggered-grid momentum stage (each face reads the velocity components around
/// it, the cross terms at diagonal neighbours). f sees the window, not the fields, so the
/// iteration brings the values in the fastest way for the backend:
/// - host backends, and fields without z ghosts (2D): forEachCellColumn (host: forEachCell), the
///   window gathering from the fields;
/// - CUDA with z ghosts: a team per x-y tile marches along z through a run of planes. It copies
///   the planes of its tile with a ghost ring in x and y, of every field, into team scratch by
///   asynchronous copies, Depth planes ahead; plane k is computed from the slots of k - 1, k and
///   k + 1. Every value then leaves L2 about once (the ring aside) instead of once per
///   neighbour that reads it.
/// Either way f gets the same values, so the results are the same bits. f writes its results
/// itself; it must not write any of the fields in the window (their entries are read by the
/// neighbouring cells, and on GPUs were copied before).
///
/// A team's scratch is limited to 40 KB: tiles of 32 x 8 at depth 1 take 32 KB for three fields,
/// a fourth field (the pressure) would not fit.
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/StencilSweep.hpp"
#include "eddy/core/Tuning.hpp"

#include <array>
#include <cstddef>
#include <string>

namespace eddy {

/// A field as the window reads it: entry (i, j, k) at origin[i + j sy + k sz].
struct WindowField {
  double const* origin = nullptr;
  int sy = 0, sz = 0;
  template <class Mem>
  static WindowField of(GhostedView<Mem> const& v) {
    return WindowField{v.origin, v.sy, v.sz};
  }
};

/// The window of a cell gathered from the fields themselves.
template <int NF>
struct FieldWindow {
  WindowField const* in;
  int i, j, k;
  KOKKOS_FORCEINLINE_FUNCTION double operator()(int f, int dx, int dy, int dz) const {
    WindowField const& w = in[f];
    return w.origin[(i + dx) + (j + dy) * w.sy + (k + dz) * w.sz];
  }
};

/// The window of a cell in team scratch: plane k + dz of field f at below/here/above, the cell at
/// entry s of a plane, rows PX entries apart, fields Plane entries apart.
template <int PX, int Plane>
struct ScratchWindow {
  double const* plane[3];  ///< the slots of planes k - 1, k, k + 1
  int s;
  KOKKOS_FORCEINLINE_FUNCTION double operator()(int f, int dx, int dy, int dz) const {
    return plane[dz + 1][f * Plane + s + dy * PX + dx];
  }
};

/// f(i, j, k, w) as a function of the cell alone, the window gathered from the fields: for
/// iterations that visit cells one by one (forEachCell, an overlap's shell slabs).
template <int NF, class F>
struct WindowCells {
  WindowField in[NF];
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    f(i, j, k, FieldWindow<NF>{in, i, j, k});
  }
};

namespace detail {

/// The plane-streaming pass of one team: tile (tx, ty) of the box, planes [k0, k1). Scratch
/// holds the pipeline's slots (PlanePipeline with Below 1); a slot holds one plane of every field
/// (field f at f * kPlane), each with a ghost ring in x and y (kPX x kPY entries). Plane k is
/// computed from the slots of k - 1, k and k + 1 while planes k + 2 .. k + Depth + 1 are in
/// flight.
template <int NF, int TX, int TY, int Depth, class Exec, class F>
struct PlaneWindows {
  using Pipeline = PlanePipeline<Depth, 1>;
  static constexpr int kThreads = TX * TY;
  static constexpr int kPX = TX + 2, kPY = TY + 2, kPlane = kPX * kPY;
  static constexpr int kSlots = Pipeline::kSlots, kSlot = NF * kPlane;
  using Team = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<double*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Window = ScratchWindow<kPX, kPlane>;

  WindowField in[NF];
  int lo0, lo1, lo2, hi0, hi1, hi2;
  int tilesX, tilesY, planesPerTeam;
  F f;

  static std::size_t scratchBytes() { return Scratch::shmem_size(kSlots * kSlot); }

  KOKKOS_INLINE_FUNCTION void operator()(Team const& team) const {
    Scratch scratch(team.team_scratch(0), kSlots * kSlot);
    double* ring = scratch.data();
    auto const p = PlaneTeam::of<TX, TY>(team.league_rank(), lo0, lo1, lo2, hi2, tilesX, tilesY,
                                         planesPerTeam);
    if (team.team_size() == kThreads)
      cellPerThread(team, ring, p.xs, p.y0, p.k0, p.k1);
    else
      anyTeamSize(team, ring, p.xs, p.y0, p.k0, p.k1);
  }

  /// Entry e of a plane's copy: its x and y in the fields and its offset in a field's plane of a
  /// slot. Entries outside [lo0 - 1, hi0] x [lo1 - 1, hi1] are clamped onto it: read, not used.
  KOKKOS_INLINE_FUNCTION void copyEntry(int e, int xs, int y0, int& gx, int& gy, int& to) const {
    int const ex = e % kPX, ey = e / kPX;
    gx = xs - 1 + ex;
    gx = gx < lo0 - 1 ? lo0 - 1 : (gx > hi0 ? hi0 : gx);
    gy = y0 - 1 + ey < hi1 ? y0 - 1 + ey : hi1;
    to = e;
  }

  /// The pipeline both ways below share: copyPlane(m, dst) starts this thread's copies of plane
  /// m of every field into slot `dst`; computePlane(k, below, here, above) computes this thread's
  /// cells of plane k from the slots of planes k - 1, k and k + 1.
  template <class CopyPlane, class ComputePlane>
  KOKKOS_INLINE_FUNCTION void march(Team const& team, double* ring, int k0, int k1,
                                    CopyPlane const& copyPlane,
                                    ComputePlane const& computePlane) const {
    Pipeline::march(
        team, k0, k1, [&](int m, int slot) { copyPlane(m, ring + slot * kSlot); },
        [&](int k, int below) {
          int const here = Pipeline::next(below);
          computePlane(k, ring + below * kSlot, ring + here * kSlot,
                       ring + Pipeline::next(here) * kSlot);
        });
  }

  /// kThreads threads (GPUs): a cell per thread; each thread's copies of a plane are worked out
  /// once.
  KOKKOS_INLINE_FUNCTION void cellPerThread(Team const& team, double* ring, int xs, int y0, int k0,
                                            int k1) const {
    constexpr int kPerThread = (kPlane + kThreads - 1) / kThreads;
    int const r = team.team_rank();
    int gx[kPerThread], gy[kPerThread], to[kPerThread];  // to < 0: none
    for (int u = 0; u < kPerThread; ++u) {
      int const e = r + u * kThreads;
      copyEntry(e, xs, y0, gx[u], gy[u], to[u]);
      if (e >= kPlane) to[u] = -1;
    }
    int const cx = r % TX, cy = r / TX;
    int const i = xs + cx, j = y0 + cy;
    int const s = (cx + 1) + (cy + 1) * kPX;
    bool const mine = i < hi0 && j < hi1;
    march(
        team, ring, k0, k1,
        [&](int m, double* dst) {
          for (int c = 0; c < NF; ++c) {
            double const* const src = in[c].origin + m * in[c].sz;
            for (int u = 0; u < kPerThread; ++u)
              if (to[u] >= 0)
                compat::asyncCopy(dst + c * kPlane + to[u], src + gx[u] + gy[u] * in[c].sy);
          }
        },
        [&](int k, double const* below, double const* here, double const* above) {
          if (mine) f(i, j, k, Window{{below, here, above}, s});
        });
  }

  /// Any team size (host backends run teams of one thread): the threads share out the copies
  /// and the cells of each plane in strided loops.
  KOKKOS_INLINE_FUNCTION void anyTeamSize(Team const& team, double* ring, int xs, int y0, int k0,
                                          int k1) const {
    int const rank = team.team_rank(), size = team.team_size();
    march(
        team, ring, k0, k1,
        [&](int m, double* dst) {
          for (int c = 0; c < NF; ++c) {
            double const* const src = in[c].origin + m * in[c].sz;
            for (int e = rank; e < kPlane; e += size) {
              int gx, gy, to;
              copyEntry(e, xs, y0, gx, gy, to);
              compat::asyncCopy(dst + c * kPlane + to, src + gx + gy * in[c].sy);
            }
          }
        },
        [&](int k, double const* below, double const* here, double const* above) {
          for (int c = rank; c < kThreads; c += size) {
            int const i = xs + c % TX, j = y0 + c / TX;
            if (i < hi0 && j < hi1)
              f(i, j, k, Window{{below, here, above}, (c % TX + 1) + (c / TX + 1) * kPX});
          }
        });
  }
};

}  // namespace detail

/// Tile and depth of the plane-streaming pass used by forEachCellWindow on CUDA (no launch bounds:
/// fewer registers a thread spill).
inline constexpr int kWindowTileX = 32, kWindowTileY = 8, kWindowDepth = 1;

/// The plane-streaming pass with an explicit tile, depth and run of planes per team (0: chosen by
/// the pass), for benchmarks and tests; runs on any backend (on host backends with one thread per
/// team and plain copies). Callers use forEachCellWindow.
template <int TX, int TY, int Depth, std::size_t NF, class Exec, class F>
void forEachCellWindowPlanes(std::string const& label, Exec const& space,
                             std::array<WindowField, NF> const& in, std::array<int, 3> const& lo,
                             std::array<int, 3> const& hi, int planesPerTeam, F const& f) {
  if (emptyBox(lo, hi)) return;
  using K = detail::PlaneWindows<static_cast<int>(NF), TX, TY, Depth, Exec, F>;
  int const teamSize = GridTuning<Exec>::kPlaneSweeps ? K::kThreads : 1;
  auto const n =
      detail::PlaneLaunch::of<TX, TY>(label, space, teamSize, lo[0], lo, hi, planesPerTeam);
  K kernel{{}, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], n.tilesX, n.tilesY, n.run, f};
  for (std::size_t c = 0; c < NF; ++c) kernel.in[c] = in[c];
  Kokkos::TeamPolicy<Exec> policy(space, n.teams, teamSize);
  detail::setPlaneScratch(
      label, policy, K::scratchBytes(),
      str("tile ", TX, " x ", TY, " of ", NF, " fields with ", Depth, " planes in flight"));
  Kokkos::parallel_for(label, policy, kernel);
}

/// f(i, j, k, w) for lo <= (i, j, k) < hi on `space`, w(f, dx, dy, dz) = in[f](i + dx, j + dy,
/// k + dz) for |dx|, |dy|, |dz| <= 1 (dz = 0 for fields without z ghosts). Every field needs a
/// ghost layer on every axis it has ghosts on; f must not write them (see the top of the file).
/// The label names the kernel (`eddy::<module>::<what>`).
template <std::size_t NF, class Exec, class F>
void forEachCellWindow(std::string const& label, Exec const& space,
                       std::array<WindowField, NF> const& in, bool withZ,
                       std::array<int, 3> const& lo, std::array<int, 3> const& hi, F const& f) {
  if constexpr (GridTuning<Exec>::kPlaneSweeps) {
    if (withZ) {
      forEachCellWindowPlanes<kWindowTileX, kWindowTileY, kWindowDepth>(label, space, in, lo, hi, 0,
                                                                        f);
      return;
    }
  }
  WindowCells<static_cast<int>(NF), F> cells{{}, f};
  for (std::size_t c = 0; c < NF; ++c) cells.in[c] = in[c];
  forEachCellColumn(label, space, lo, hi, cells);
}

}  // namespace eddy
