/// @file Tuning.hpp
/// @brief Developer knobs of core's kernels, one typed record per concept, with a default per
/// backend: grid kernels (GridTuning), reductions and scans (ReductionTuning), halo exchanges
/// (HaloTuning), timing regions (TimerTuning).
///
/// Choices fixed at compile time are static constexpr members, templated on the execution space
/// they apply to. Choices that may be changed at run time (to tune on other hardware) are fields:
/// a default-constructed record holds the backend's defaults, fromEnvironment() those defaults
/// overridden by the EDDY_ variables named at each field (read through Environment.hpp, which
/// refuses malformed values), and current() that record, read once per process. A knob a user
/// turns is a deck key instead, not a field here. The models keep their own records
/// (fluids::MultigridTuning, neighbor::ListTuning, md::ForceTuning).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Environment.hpp"

#include <array>
#include <cstdint>
#include <type_traits>

namespace eddy {

/// How grid kernels (BoxPolicy.hpp, StencilSweep.hpp, PlaneWindow.hpp) visit cells on `Exec`.
template <class Exec>
struct GridTuning {
  /// A row (j, k) per work item, its cells a plain loop over i (host backends: contiguous and
  /// vectorisable); else the 3D MDRange tiles of boxTile (CUDA: neighbouring threads read
  /// neighbouring x).
  static constexpr bool kCellRows = !compat::isCuda<Exec>();
  /// 3D seven-point sweeps stream planes of x-y tiles through team scratch, several planes
  /// ahead (CUDA: each value leaves L2 about once instead of once per neighbour that reads it);
  /// else each cell gathers its neighbours from the field.
  static constexpr bool kPlaneSweeps = compat::isCuda<Exec>();

  /// Tile of the 3D MDRange over a box (x fastest); 0 lets Kokkos choose. CUDA: full warps
  /// along x. EDDY_BOX_TILE=tx,ty,tz.
  std::array<int, 3> boxTile = compat::isCuda<Exec>() ? std::array<int, 3>{32, 4, 2}
                                                      : std::array<int, 3>{0, 0, 0};

  static GridTuning fromEnvironment() {
    GridTuning t;
    auto const tile = integersFromEnvironment(
        "EDDY_BOX_TILE", {t.boxTile[0], t.boxTile[1], t.boxTile[2]}, 0, 1024,
        "three tile extents tx,ty,tz from 0 to 1024 (the tile of the grid kernels' 3D ranges; 0 "
        "lets Kokkos choose)");
    for (int a = 0; a < 3; ++a) t.boxTile[a] = static_cast<int>(tile[a]);
    return t;
  }
  static GridTuning const& current() {
    static GridTuning const t = fromEnvironment();
    return t;
  }
};

/// How reductions (ReductionLanes.hpp, Reductions.hpp, ReproducibleSum.hpp) and ChunkedScan
/// run on `Exec`.
template <class Exec>
struct ReductionTuning {
  /// The lanes of a lane pass take contiguous ranges of items (host backends: each thread
  /// streams through its own part of memory), else every lanes-th item (CUDA: neighbouring
  /// threads read neighbouring terms).
  static constexpr bool kBlockedLanes = !compat::isCuda<Exec>();
  /// A plain (not reproducible) box reduction gives every item of rows its own work item (CUDA)
  /// rather than lanes.
  static constexpr bool kPlainBoxItemLanes = compat::isCuda<Exec>();
  /// A stencil kernel whose values also feed a reproducible sum (the CG operator-dot) computes
  /// both in one pass (CUDA), else stores the values and sums them in a second pass: the host
  /// compiler does not vectorise a stencil evaluated term by term through the box sum's row
  /// blocks. The same bits either way.
  static constexpr bool kFusedStencilSums = compat::isCuda<Exec>();
  /// Rows of one column per item of a reproducible box sum (BoxRowBlocks): the terms a lane
  /// loads together before it folds them in. CUDA 4: with 8, the window, two items of terms and
  /// the box's indices spill registers under ReductionLaunchBounds.
  static constexpr int kBoxRows = compat::isCuda<Exec>() ? 4 : 8;
  /// Threads of a ChunkedScan team (a chunk of 2048 indices); 0: Kokkos' choice.
  static constexpr int kScanTeamSize = compat::isCuda<Exec>() ? 256 : 0;

  /// Work items (lanes) of a lane pass on `space`. Host backends: one per thread. CUDA: one
  /// wave of 1024 threads per multiprocessor for the reproducible box sums (`oneWave`, under
  /// ReductionLaunchBounds<true>), else 2048 (concurrency()): a few waves hide the latency of
  /// the sums of term(i).
  static std::int64_t lanes(Exec const& space, [[maybe_unused]] bool oneWave) {
    std::int64_t const threads = compat::concurrency(space);
    if constexpr (compat::isCuda<Exec>())
      return threads * (oneWave ? 4 : 8) / 8;
    else
      return threads;
  }
};

/// Launch bounds of a lane pass with one wave of lanes (ReductionTuning::lanes): four blocks of
/// 256 threads per multiprocessor, i.e. at most 64 registers a thread. None otherwise. Ignored by
/// host backends.
template <bool OneWave>
using ReductionLaunchBounds =
    std::conditional_t<OneWave, Kokkos::LaunchBounds<256, 4>, Kokkos::LaunchBounds<>>;

/// How halo exchanges (HaloExchange.hpp) run on `Exec`.
template <class Exec>
struct HaloTuning {
  /// Pack and unpack a row (x line) per work item (host backends: an entry's region search and
  /// index divisions cost more than its copy), else an entry per work item (CUDA: neighbouring
  /// threads on neighbouring entries).
  static constexpr bool kRowCopies = !compat::isCuda<Exec>();

  /// The second instance of overlapped exchanges (compat::secondInstance) runs on a stream of the
  /// device's greatest priority, so that the block scheduler starts the packs and NCCL's kernels
  /// ahead of the waiting blocks of the interior work (CUDA with Kokkos 4).
  /// EDDY_HALO_STREAM_PRIORITY=0|1.
  bool streamHighPriority = false;

  static HaloTuning fromEnvironment() {
    HaloTuning t;
    t.streamHighPriority =
        integerFromEnvironment("EDDY_HALO_STREAM_PRIORITY", t.streamHighPriority ? 1 : 0, 0, 1,
                               "0 (overlapped exchanges on a stream of the default priority) or "
                               "1 (of the greatest priority)") == 1;
    return t;
  }
  static HaloTuning const& current() {
    static HaloTuning const t = fromEnvironment();
    return t;
  }
};

/// Timing regions (Timer.hpp).
struct TimerTuning {
  /// Every region fences the device at its start and end, so that its time is its own kernels'
  /// (a profiling mode: the fences cost overlap). EDDY_TIMER_FENCE=0|1.
  bool fence = false;

  static TimerTuning fromEnvironment() {
    TimerTuning t;
    t.fence = switchFromEnvironment(
        "EDDY_TIMER_FENCE", t.fence,
        "1 (every timing region fences the device at its start and end) or 0");
    return t;
  }
  static TimerTuning const& current() {
    static TimerTuning const t = fromEnvironment();
    return t;
  }
};

}  // namespace eddy
