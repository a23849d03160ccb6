/// @file MultigridTuning.hpp
/// @brief Developer knobs of the multigrid V-cycle (Multigrid.hpp): how the levels sweep, which
/// run in one launch or are gathered onto every rank, which overlap their exchanges. Every
/// choice gives the same bits; they differ in speed per backend.
///
/// A default-constructed record holds the backend's defaults; fromEnvironment() overrides them
/// with the EDDY_MG_ variables named at each field (core's Environment.hpp, which refuses
/// malformed values). PoissonOptions::multigrid holds one, read when the options are made.
#pragma once

#include "eddy/core/Compat.hpp"

namespace eddy::fluids {

/// How the finest multigrid level runs its red-black sweeps when it does not overlap its
/// exchanges (the numbers are those of EDDY_MG_FINE_SWEEPS).
enum class FineSweeps {
  /// Two half sweeps in place, each reading and writing the whole field.
  Halves = 0,
  /// Out of place in one pass (a 3D team kernel; a 2D level keeps Halves), alternating between
  /// the correction and the cycle's work field, with the prolongation folded into the first
  /// sweep after it and the sweep from zero as a seven-point map of the right-hand side.
  Planes = 3,
};

struct MultigridTuning {
  /// CUDA: Planes, which reads and writes each cell once a sweep instead of twice. Host
  /// backends: Halves (the one-pass kernel runs there as teams of one thread).
  /// EDDY_MG_FINE_SWEEPS=0|3.
  FineSweeps fineSweeps = compat::isCuda<ExecSpace>() ? FineSweeps::Planes : FineSweeps::Halves;
  /// With fineSweeps Planes and no overlap: the coarser levels run step by step whose blocks hold
  /// at least this many cells sweep out of place too, with one ghost layer (0: the finest level
  /// only). CUDA 2^23: level 1 of a 512^3 block does, smaller levels keep their sweeps in place.
  /// EDDY_MG_OUT_OF_PLACE_CELLS.
  long long outOfPlaceCells = compat::isCuda<ExecSpace>() ? (1LL << 23) : 0;
  /// Levels held whole on a rank with at most this many cells run, with all coarser ones, in one
  /// launch of one team (0: every level step by step). CUDA 4096: a small level otherwise costs
  /// about 22 launches of latency; on a CPU core the one-team cycle is a serial loop that gains
  /// nothing. EDDY_MG_FUSED_CELLS.
  long long fusedCoarseCells = compat::isCuda<ExecSpace>() ? 4096 : 0;
  /// On several ranks, levels with at most max(this, fusedCoarseCells) cells are gathered onto
  /// every rank and solved there redundantly. CUDA 262144 (64^3): such a level costs more in
  /// exchange latency than its work on one GPU; host backends 0: there the redundant work costs
  /// more than MPI's short exchanges save. EDDY_MG_GATHER_CELLS.
  long long gatheredCoarseCells = compat::isCuda<ExecSpace>() ? 262144 : 0;
  /// With overlap asked for (PoissonOptions::overlap): the least owned cells per rank of a level
  /// that overlaps its exchanges; smaller levels take longer to split (a launch per slab of the
  /// shell) than their messages. EDDY_MG_OVERLAP_CELLS.
  long long overlapCells = 131072;

  /// The backend's defaults overridden by the EDDY_MG_ variables that are set. Throws
  /// eddy::ConfigError naming a variable whose value is malformed.
  static MultigridTuning fromEnvironment();
};

}  // namespace eddy::fluids
