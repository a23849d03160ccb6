/// @file Multigrid.hpp
/// @brief Geometric multigrid V-cycle for the cell-centred Poisson operator of PoissonKernels.hpp,
/// used as a symmetric preconditioner by PoissonSolver.
///
/// Hierarchy: a fixed function of the global grid. Every axis is halved while every spatial
/// global extent is even and the halved extent is >= 2. A level stays distributed over the ranks
/// (same process grid, each block halved) while every rank's block halves into whole cells (its
/// extent along each axis is even) of at least 2 cells, and, on several ranks, while the level
/// has more than max(fusedCells, gatherCells) cells (when that is > 0); otherwise the residual of
/// the last distributed level is gathered onto every rank (each rank's block to every other,
/// through the process transport: on the GPU stream with nccl) and all coarser levels are solved
/// redundantly on MPI_COMM_SELF with the same arithmetic. The coarse correction is then read back
/// from the replicated level by each rank for its own block (no message). The hierarchy itself (the
/// levels' global grids) depends on the global grid alone.
///
/// V-cycle with zero initial guess on every level (the first half sweep writes every cell from
/// b alone, so x is never zeroed): `pre` red-black Gauss-Seidel sweeps (red then black), residual,
/// restriction R = P^T / 2^d (weights (1, 3, 3, 1) / 8 per axis), recursion, bilinear / trilinear
/// prolongation P (into x's ghosts too, which saves an exchange), `post` sweeps in the reverse
/// colour order (black then red); the coarsest level does a fixed number of symmetric sweeps. With
/// pre == post the cycle is a symmetric operator, as preconditioned CG needs. No reduction depends
/// on the rank count, so the cycle is bitwise identical on any decomposition.
///
/// Exchanges: a half sweep reads the other colour one cell beyond the cells it updates. With
/// one ghost layer every half sweep but a first one needs an exchange of x before it, and the
/// residual needs one for the restriction: 9 per level and V-cycle. The levels run step by step,
/// but the finest and the coarsest, hold their fields with two ghost layers instead (where
/// every block is at least two cells thick, no periodic axis is odd and both sweep counts are
/// positive): after an exchange a half sweep also updates the first ghost layer (computing there
/// exactly what the owner computes, see withGhostRings), so the next half sweep needs no exchange; the first sweep from zero and the residual do the same with b's ghosts,
/// exchanged once, and the prolongation fills both layers where the coarser correction has two.
/// That is 5 exchanges per level and V-cycle (2 sweeps before and after), with the same bits.
/// The finest level keeps one layer: it is bound by bandwidth, not by exchanges, and its extra
/// layer of cells costs more than its exchanges save.
/// With overlap (PoissonOptions::overlap) the levels split over several ranks run every
/// exchange of a V-cycle beside the cells of the next kernel that read no ghost from another
/// rank and write no entry sent to one: x's before a half sweep and before the residual, b's
/// before the first half sweep, the residual's before the restriction, and the coarser
/// correction's before the prolongation.
///
/// The finest level can run its sweeps out of place instead (MultigridTuning::fineSweeps, when it
/// does not overlap its exchanges): each sweep reads one of two fields, x and the cycle's work
/// field (free during the smoothing: the residual lives in it only from the residual to the
/// restriction), and writes the other, the first colour from the field read and the second from the
/// first colour's new values (detail::smoothSweep); the last sweep writes x. In one pass (a 3D team
/// kernel) that reads and writes each cell once per sweep, where two half sweeps in place read
/// and write every 32-byte sector of x twice and of b twice; the first post-smoothing sweep
/// also adds the prolongated correction to the values it reads, so x is not written by a
/// prolongation pass. The second colour next to a face with ghosts waits for an exchange of the
/// first colour's values (smoothSweepShell): two exchanges a sweep, as in place. The same bits.
/// Coarser levels run step by step may do the same (MultigridTuning::outOfPlaceCells), with one
/// ghost layer.
///
/// Mixed precision (`mixedPrecision`): the finest level's work field (the sweeps' other field,
/// then the residual until its restriction) holds floats, in the memory of the caller's work
/// field (half of it): every sweep into it and the residual round their values to float (the
/// first colour's before the second colour reads them), and the sweeps and the restriction
/// that read it read floats. b, x and every coarser level stay double, and so do all sums. The
/// finest level then always sweeps out of place (by two loops where fineSweeps asks for half
/// sweeps in place, and in 2D; in one pass where it asks for Planes), never overlaps its exchanges
/// and is never part of the one-launch tail, on any rank count, so the cycle stays bitwise the same
/// on any decomposition. A finest-level sweep moves 20 bytes a cell instead of 24 (from zero 12
/// instead of 16), the residual 20 instead of 24 and the restriction's read 4 instead of 8:
/// about a fifth of the level's bytes; the level's time falls by less, since its sweeps are held
/// by more than DRAM traffic (L2 and the plane barriers).
///
/// Memory: per coarse level three cell fields (correction, right-hand side, residual; level 0
/// takes all three from the caller), i.e. about 24 (1/4 + 1/16 + ...) = 8 bytes per fine cell
/// in 2D and 24 (1/8 + 1/64 + ...) = 3.4 in 3D, plus ghosts, the gathered level on every rank
/// and halo buffers.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "fluids/MultigridTuning.hpp"

#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace eddy::fluids {

namespace detail {
struct CoarseCorrection;  // PoissonKernels.hpp
}

class Multigrid {
 public:
  /// Collective over `comm`: builds every level, its fields and halo exchanges, as `tuning`
  /// says (every setting gives the same bits):
  /// - fusedCoarseCells > 0: the levels held whole on each rank (one rank, or replicated) with
  ///   at most that many cells run, with all coarser ones, in one launch of one team
  ///   (fusedCycle): the same arithmetic cell by cell, without a launch and a halo exchange per
  ///   half sweep. On several ranks the levels with at most that many cells are gathered onto
  ///   every rank for it (see the hierarchy above). 0: every level step by step.
  /// - gatheredCoarseCells: on several ranks the levels with at most max(fusedCoarseCells,
  ///   gatheredCoarseCells) cells are gathered onto every rank; those above fusedCoarseCells then
  ///   run step by step there, with kernels over the whole level and no message between ranks.
  /// - overlapCells, with `overlap`: on the distributed levels whose ranks own at least that many
  ///   cells each and have another rank behind some face, every exchange of a V-cycle (see above)
  ///   runs on a second execution-space instance (compat::secondInstance) while the cells that
  ///   read no ghost from another rank are computed; the cells next to those faces follow once
  ///   the messages have arrived.
  /// - fineSweeps: how the finest level runs its sweeps when it does not overlap its exchanges:
  ///   two half sweeps in place, or out of place in one pass (smoothOutOfPlace; 3D, a 2D level
  ///   keeps the half sweeps), the sweep from zero as a seven-point map of b.
  /// - outOfPlaceCells > 0 (with fineSweeps Planes, and no overlap asked for): the coarser levels
  ///   run step by step whose blocks hold at least that many cells sweep out of place too, with
  ///   one ghost layer.
  /// `mixedPrecision`: the finest level's work field in single precision (see the top of this
  /// file).
  Multigrid(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
            std::array<double, 3> const& h, int preSmooth, int postSmooth,
            MultigridTuning const& tuning, bool overlap = false, bool mixedPrecision = false);
  ~Multigrid();
  Multigrid(Multigrid const&) = delete;
  Multigrid& operator=(Multigrid const&) = delete;

  /// Collective: z = M r, one V-cycle with zero initial guess. `r`, `z` and `work` are three
  /// cell fields with ghost width 1 on the fine decomposition; z's ghosts are overwritten, and
  /// `work` (the fine residual of the cycle) entirely.
  void apply(ExecSpace const& space, Field<MemSpace> const& r, Field<MemSpace>& z,
             Field<MemSpace>& work);
  /// Ghost layers of level l's correction (1 or 2, see the top of this file).
  int correctionGhost(int l) const;
  /// Whether level l overlaps its exchanges with its work (see the constructor).
  bool overlaps(int l) const;
  /// Whether the finest level's work field holds floats (the constructor's mixedPrecision).
  bool mixedPrecision() const { return m_mixed; }

  /// Number of levels, the finest included.
  int levels() const;
  /// Index of the first level held redundantly on every rank (levels() when none is).
  int firstReplicatedLevel() const;
  /// Global cells of level `l`.
  Index3 levelCells(int l) const;
  /// The first level run in the one-launch tail (levels() when there is none).
  int firstFusedLevel() const { return m_fusedFrom; }
  /// Symmetric sweep pairs on the coarsest level.
  int coarseSweeps() const { return m_coarseSweeps; }
  /// Device bytes held (fields, gather buffers and maps, halo buffers).
  std::size_t bytes() const;

  struct Level;

  /// The state of x when a smoothing of the one-launch tail starts: FromZero, x counts as 0
  /// everywhere (the first half sweep writes every owned cell without reading x); GhostsCurrent,
  /// x's ghosts hold the owners' values; GhostsStale, they must be exchanged first.
  enum class SmoothStart { FromZero, GhostsCurrent, GhostsStale };

  /// How many layers of x's ghosts hold their owners' current values, per colour (index 0 red,
  /// 1 black): what a level-by-level smoothing starts from and leaves. (Across a periodic axis of
  /// odd extent a cell also reads ghosts of its own colour; only one-layer levels have such
  /// axes, and there every half sweep but a first one exchanges anyway.)
  struct Rings {
    int colour[2] = {0, 0};
    int least() const { return colour[0] < colour[1] ? colour[0] : colour[1]; }
  };

  // Steps of the cycle; public only because CUDA lambdas may not live in private members.
  void cycle(ExecSpace const& space, int l, Field<MemSpace> const& b, Field<MemSpace>& x,
             Field<MemSpace>& res);
  /// `sweeps` sweeps on `level` (red then black, or the reverse), exchanging x only when the
  /// next half sweep reads ghosts that are not current; a half sweep also updates x's first
  /// ghost layer where x has two (b must then be current one layer out). `fromZero`: x counts as
  /// 0 and the first half sweep writes its cells from b alone; else `current` says which of x's
  /// ghosts are current. `exchangeB` (with `fromZero`, on a level that holds its own b):
  /// exchange b's ghosts before the first half sweep, beside it with overlap. Returns what is
  /// current at the end.
  Rings smooth(ExecSpace const& space, Level& level, Field<MemSpace> const& b, Field<MemSpace>& x,
               int sweeps, bool redFirst, bool fromZero, Rings current, bool exchangeB = false);
  /// `sweeps` sweeps of the finest level out of place (detail::smoothSweep), alternating between
  /// x and `other` so that the last one writes x (with an odd count and not `fromZero`, the
  /// first runs in place, by smooth). Each sweep exchanges the field it reads when its ghosts
  /// are not current, and the one it wrote before its shell (smoothSweepShell): two exchanges
  /// a sweep, as the half sweeps in place, but each cell of the field read and written once
  /// instead of twice. Same arguments and result as smooth. `fold` (an even count of sweeps, not
  /// from zero): the coarse correction that the first sweep adds to x as it reads it (the
  /// prolongation; in one pass x is then never written with it, which saves a pass). `other`
  /// is a double field or the finest level's float work field, `otherHalo` its exchange.
  template <class Work, class WorkHalo>
  Rings smoothOutOfPlace(ExecSpace const& space, Level& level, Field<MemSpace> const& b,
                         Field<MemSpace>& x, Work& other, WorkHalo& otherHalo, int sweeps,
                         bool redFirst, bool fromZero, Rings current,
                         detail::CoarseCorrection const* fold = nullptr);
  /// Gathers level's residual `res` (double, or float with mixed precision) onto every rank.
  template <class T>
  void gather(ExecSpace const& space, Level& level, Field<MemSpace, T> const& res);
  /// Level `level` of the cycle, neither the coarsest nor in the one-launch tail: `res` is its
  /// work field (double, or the finest level's float one with mixed precision) and `resHalo`
  /// that field's exchange.
  template <class Work, class WorkHalo>
  void cycleLevel(ExecSpace const& space, Level& level, Field<MemSpace> const& b,
                  Field<MemSpace>& x, Work& res, WorkHalo& resHalo);
  /// Levels l .. levels() - 1 of the cycle in one launch; `b`, `x`, `res` are level l's.
  void fusedCycle(ExecSpace const& space, int l, Field<MemSpace> const& b, Field<MemSpace>& x,
                  Field<MemSpace>& res);

 private:
  std::vector<std::unique_ptr<Level>> m_levels;
  int m_pre = 2;
  int m_post = 2;
  int m_coarseSweeps = 4;
  int m_fusedFrom = 0;   ///< set by the constructor
  int m_fusedTeam = 0;   ///< team size of the one launch (0 until the first)
  FineSweeps m_fineSweeps = FineSweeps::Halves;  ///< of the finest level
  bool m_mixed = false;  ///< the finest level's work field in floats
  /// With m_mixed: the float field over the caller's last work field (see cycle).
  std::unique_ptr<Field<MemSpace, float>> m_work32;
  ExecSpace m_haloSpace;  ///< the exchanges of the overlapping levels (when any level does)
  /// Timing region of each level's own work (its sweeps, exchanges and transfers, the coarser
  /// levels excluded): "eddy::fluids::poisson::level<l>".
  std::vector<std::string> m_levelRegions;
};

}  // namespace eddy::fluids
