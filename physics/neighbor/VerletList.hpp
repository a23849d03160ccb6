/// @file VerletList.hpp
/// @brief Verlet neighbour lists in CSR form (offsets + neighbours), built from a BinList.
///
/// Build, in one of three ways (ListBuild; the backend's choice is compat::onePassListBuild and
/// compat::stagedListFill, and EDDY_LIST_BUILD=one-pass, two-pass or staged overrides it, to
/// measure them on other hardware).
/// All give the same CSR arrays, entry for entry.
/// - Two passes: a count pass over the candidates, a scan of the counts into the offsets, and a
///   fill pass that runs the candidate scan again and writes each row straight into place.
/// - One pass: the candidate scan writes each row's neighbours into a padded scratch area of
///   `capacity` entries per row (and a sink entry) and counts them all; a scan of the counts gives
///   the offsets and a copy packs the rows into the CSR arrays (vector lanes per row where the
///   backend has them: compat::rowCopyLanes). The capacity follows the largest row of the previous
///   build (+25%); a row that does not fit makes the pass run again with a capacity that fits, so
///   nothing is ever cut off. The candidate scan runs once instead of twice, for a copy of the
///   list.
/// - Staged: the two passes, with a fill that writes through team scratch memory. A team of
///   compat::listFillRows consecutive rows owns one contiguous run of the CSR array; its
///   threads (a row each) write their entries into a stage of `stage` entries per row (up to
///   the scratch a team may have), then the team copies the stage to the array in consecutive
///   entries. A thread per row writing straight into place stores to a different sector for
///   every thread of a warp; the copy stores whole sectors. Entries beyond the stage go
///   straight into place.
///
/// Rows are the owned particles [0, owned); neighbours are indices into owned and ghost rows
/// within the list radius (cutoff + skin).
/// - Full: every neighbour j != i of i.
/// - Half: each pair once over all ranks: owned pairs with j > i, and owned-ghost pairs when
///   id(i) < id(j). The rank owning the other particle sees the same pair with ids swapped and
///   skips it, so forces on ghosts must be summed back to their owners (ParticleGhosts::
///   reverseSum). Needs a periodic box at least twice the list radius wide, so that no two
///   images of one particle lie within the radius of another.
///
/// Order of a row: bin rows by z, then y, then the bins of the chord by x, then the order within
/// each bin. From a canonical BinList (`BinList::buildCanonical`: bins of one grid shared by the
/// ranks, each ordered by global id) that order is a function of the atoms alone, not of the
/// rank count, the row order or thread scheduling: a sum over a row then gives the same bits
/// on any rank count.
///
/// Rebuild policy: `needsRebuild` is true when some particle on some rank moved more than
/// skin / 2 since the build (then no pair can have come within the cutoff unseen).
///
/// Memory: 4 bytes per neighbour plus 4 bytes per owned particle (offsets), 24 bytes per owned
/// particle for the positions at the last build, and with one pass the scratch area (4 bytes x
/// (capacity + 1) per owned particle, about 1.3 times the neighbour array). The staged fill's stage
/// is on-chip (team scratch).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Environment.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/PortableMath.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/RowTeams.hpp"
#include "eddy/core/Timer.hpp"
#include "neighbor/BinList.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace eddy::neighbor {

enum class ListKind { Full, Half };

/// How a VerletList builds its rows (see the top of this file).
enum class ListBuild { TwoPass, OnePass, Staged };

/// The name of a build, as EDDY_LIST_BUILD spells it.
inline char const* listBuildName(ListBuild how) {
  return how == ListBuild::OnePass ? "one-pass" : how == ListBuild::TwoPass ? "two-pass" : "staged";
}

/// The build VerletLists on `Exec` use: EDDY_LIST_BUILD (one-pass, two-pass or staged) when
/// set, else the backend's (compat::onePassListBuild, compat::stagedListFill). Throws
/// eddy::ConfigError on another value of EDDY_LIST_BUILD.
template <class Exec>
ListBuild defaultListBuild() {
  ListBuild const fallback = compat::onePassListBuild<Exec>() ? ListBuild::OnePass
                             : compat::stagedListFill<Exec>() ? ListBuild::Staged
                                                              : ListBuild::TwoPass;
  char const* const env = std::getenv("EDDY_LIST_BUILD");
  if (!env || !*env) return fallback;
  std::string const v = env;
  for (ListBuild how : {ListBuild::OnePass, ListBuild::TwoPass, ListBuild::Staged})
    if (v == listBuildName(how)) return how;
  throw ConfigError(str("EDDY_LIST_BUILD is '", v,
                        "'; expected one-pass, two-pass or staged (or unset: the default of ",
                        listBuildName(fallback), " on this backend)"));
}

/// Stage entries per row of the staged fill (ListBuild::Staged) on `Exec`: EDDY_LIST_STAGE (1
/// to 1024) when set, else compat::listFillStage. Throws eddy::ConfigError on another value.
template <class Exec>
int defaultListFillStage() {
  return static_cast<int>(integerFromEnvironment("EDDY_LIST_STAGE", compat::listFillStage<Exec>(),
                                                 1, 1024, "stage entries per row, 1 to 1024"));
}

/// Device-copyable view of a CSR list: the neighbours of row i are
/// neighbors(offsets(i)) .. neighbors(offsets(i + 1) - 1).
template <class Mem>
struct NeighborView {
  Kokkos::View<int*, Mem> offsets;
  Kokkos::View<int*, Mem> neighbors;
};

template <class Exec = ExecSpace>
class VerletList {
 public:
  using memory_space = typename Exec::memory_space;
  using IntView = Kokkos::View<int*, memory_space>;
  using IdView = Kokkos::View<std::int64_t*, memory_space>;

  VerletList(ListKind kind, double cutoff, double skin, ListBuild how = defaultListBuild<Exec>())
      : m_kind(kind),
        m_build(how),
        m_stage(how == ListBuild::Staged ? defaultListFillStage<Exec>() : 0),
        m_cutoff(cutoff),
        m_skin(skin) {
    EDDY_REQUIRE(cutoff > 0, "VerletList: cutoff ", cutoff, "; expected > 0");
    EDDY_REQUIRE(skin >= 0, "VerletList: skin ", skin, "; expected >= 0");
  }

  /// Builds the list of rows [0, owned) of `x` against every binned row (owned and ghosts).
  /// `ids` are global ids (used by the half list to pick one owner of cross-rank pairs).
  void build(Exec const& space, Positions<memory_space> const& x, IdView const& ids, int owned,
             BinList<Exec> const& bins) {
    ScopedRegion region("eddy::neighbor::verletBuild");
    EDDY_REQUIRE(owned <= bins.particleCount(), "VerletList: ", owned, " owned rows but only ",
                 bins.particleCount(), " binned; expected owned <= binned");
    m_owned = owned;
    detail::ensureExtent(m_offsets, static_cast<std::size_t>(owned) + 1,
                         "eddy::neighbor::verletOffsets");
    if (m_build == ListBuild::OnePass)
      buildOnePass(space, x, ids, bins);
    else if (m_build == ListBuild::Staged)
      buildStaged(space, x, ids, bins);
    else
      buildTwoPass(space, x, ids, bins);
    // Reference positions for the displacement test.
    if (m_x0.extent(0) < static_cast<std::size_t>(owned))
      m_x0 =
          Positions<memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                     std::string("eddy::neighbor::buildPositions")),
                                  owned * 5 / 4 + 16);
    // A plain pass: deep_copy of the (owned, 3) subviews (strided on CUDA) took 6x longer.
    auto const x0 = m_x0;
    Kokkos::parallel_for(
        "eddy::neighbor::buildPositions", Kokkos::RangePolicy<Exec>(space, 0, owned),
        KOKKOS_LAMBDA(const int i) {
          x0(i, 0) = x(i, 0);
          x0(i, 1) = x(i, 1);
          x0(i, 2) = x(i, 2);
        });
    ++m_builds;
  }

  /// Collective: true when some owned particle of some rank moved more than skin / 2 since the
  /// last build (or there was none).
  /// Throws eddy::Error (collective, ExitCode::Failure) when some owned particle's position is
  /// not finite: the system blew up, and binning it would read out of bounds.
  bool needsRebuild(Exec const& space, MPI_Comm comm, Positions<memory_space> const& x) const {
    ScopedRegion region("eddy::neighbor::checkDisplacement");
    if (m_builds == 0) return true;
    double const moved = maxDisplacementSq(space, comm, x);
    if (!std::isfinite(moved))
      throw Error(str("md: a particle position is not finite (NaN or Inf) after ", m_builds,
                      " neighbour list builds; the system blew up (atoms too close, or md.dt "
                      "too large)"),
                  ExitCode::Failure, true);
    return moved > 0.25 * m_skin * m_skin;
  }
  /// Collective: the largest squared displacement of an owned particle since the last build
  /// (+Inf where a position is NaN: the global max leaves NaN out).
  double maxDisplacementSq(Exec const& space, MPI_Comm comm,
                           Positions<memory_space> const& x) const {
    auto const x0 = m_x0;
    return globalMax(
        space, comm, m_owned, KOKKOS_LAMBDA(const std::int64_t i) {
          double const dx = x(i, 0) - x0(i, 0), dy = x(i, 1) - x0(i, 1), dz = x(i, 2) - x0(i, 2);
          return math::magnitudeOrInf(dx * dx + dy * dy + dz * dz);
        });
  }

  NeighborView<memory_space> view() const { return {m_offsets, m_neighbors}; }
  ListKind kind() const { return m_kind; }
  ListBuild buildKind() const { return m_build; }
  /// Stage entries per row of the staged fill (0 for the other builds).
  int fillStage() const { return m_stage; }
  double cutoff() const { return m_cutoff; }
  double skin() const { return m_skin; }
  double radius() const { return m_cutoff + m_skin; }
  int owned() const { return m_owned; }
  /// Neighbour entries on this rank.
  int pairCount() const { return m_pairs; }
  /// Builds so far (the first one included).
  long long buildCount() const { return m_builds; }
  /// Positions of rows [0, owned()) at the last build (the reference of the displacement test).
  Positions<memory_space> const& buildPositions() const { return m_x0; }

  // Kernels; public only because CUDA lambdas may not live in private member functions.
  /// Offers the candidate neighbours j of row i accepted by the list kind to `Visit`, with
  /// whether each lies within the radius: visit(j, inside).
  template <class Visit>
  struct Scan {
    Positions<memory_space> x;   ///< positions by row
    Positions<memory_space> xs;  ///< positions in bin order
    IdView ids;
    IntView binOffsets, permutation;
    BinGrid grid;
    int owned;
    bool half;
    double radiusSq;

    KOKKOS_INLINE_FUNCTION void operator()(const int i, Visit& visit) const {
      // Locals, not members: the visitor stores ints through a pointer, which the compiler must
      // otherwise assume may overwrite an int member or the visitor's own count, and reload
      // them for every candidate (host: 36% of an LJ run in this loop, reloading).
      Visit v = visit;
      int const rows = owned;
      bool const halfList = half;
      double const r2 = radiusSq;
      double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
      std::int64_t const idi = ids(i);
      int const by = grid.axisBin(1, yi), bz = grid.axisBin(2, zi);
      double const r = math::sqrt(r2);
      int const ry = static_cast<int>(r * grid.inverseSize[1]) + 1;
      int const rz = static_cast<int>(r * grid.inverseSize[2]) + 1;
      int const ylo = by - ry > 0 ? by - ry : 0,
                yhi = by + ry < grid.n[1] ? by + ry : grid.n[1] - 1;
      int const zlo = bz - rz > 0 ? bz - rz : 0,
                zhi = bz + rz < grid.n[2] ? bz + rz : grid.n[2] - 1;
      for (int cz = zlo; cz <= zhi; ++cz) {
        double const dz = rowGap(2, cz, zi);
        if (dz * dz >= r2) continue;
        for (int cy = ylo; cy <= yhi; ++cy) {
          double const dy = rowGap(1, cy, yi);
          double const dyz = dy * dy + dz * dz;
          if (dyz >= r2) continue;
          // Only the bins of this row that the sphere's chord crosses; they are contiguous
          // in the permutation.
          double const h = math::sqrt(r2 - dyz);
          int const begin = binOffsets(grid.index(grid.axisBin(0, xi - h), cy, cz));
          int const end = binOffsets(grid.index(grid.axisBin(0, xi + h), cy, cz) + 1);
          for (int k = begin; k < end; ++k) {
            int const j = permutation(k);
            if (j == i) continue;
            if (halfList && (j < rows ? j < i : ids(j) <= idi)) continue;
            double const ex = xs(k, 0) - xi, ey = xs(k, 1) - yi, ez = xs(k, 2) - zi;
            // The sink takes every candidate with its verdict: counting and padded writes need
            // no branch on the distance (40-60% of candidates pass, so a branch mispredicts).
            v(j, ex * ex + ey * ey + ez * ez < r2);
          }
        }
      }
      visit = v;
    }
    /// Distance along axis a from p to bin row c (edge bins reach to infinity: they also hold
    /// the particles beyond the binned box).
    KOKKOS_INLINE_FUNCTION double rowGap(int a, int c, double p) const {
      double const lo = grid.binLow(a, c), hi = lo + 1.0 / grid.inverseSize[a];
      if (c > 0 && p < lo) return lo - p;
      if (c + 1 < grid.n[a] && p > hi) return p - hi;
      return 0.0;
    }
  };
  /// Counts the neighbours it is given.
  struct Counter {
    int n = 0;
    KOKKOS_INLINE_FUNCTION void operator()(int, bool inside) { n += inside; }
  };
  /// Writes the neighbours it is given from `out` on.
  struct Writer {
    int* out;
    KOKKOS_INLINE_FUNCTION void operator()(int j, bool inside) {
      if (inside) *out++ = j;
    }
  };
  /// Writes the first `cap` neighbours it is given to `out` and counts them all. Where
  /// compat::storeEveryCandidate, every candidate is stored at the next place (the place after
  /// the last is a sink, out[cap]) and only neighbours advance it: no branch on the verdict.
  /// Elsewhere only neighbours are stored.
  struct PaddedWriter {
    int* out;
    int cap;
    int n = 0;
    static constexpr bool everyCandidate = compat::storeEveryCandidate<Exec>();
    KOKKOS_INLINE_FUNCTION void operator()(int j, bool inside) {
      if constexpr (everyCandidate) {
        out[n < cap ? n : cap] = j;
        n += inside;
      } else if (inside) {
        if (n < cap) out[n] = j;
        ++n;
      }
    }
  };

  /// The candidate scan over `bins` for this list's kind and radius, feeding `Sink`.
  template <class Sink>
  Scan<Sink> scanner(Positions<memory_space> const& x, IdView const& ids,
                     BinList<Exec> const& bins) const {
    return Scan<Sink>{x,
                      bins.sortedPositions(),
                      ids,
                      bins.offsets(),
                      bins.permutation(),
                      bins.grid(),
                      m_owned,
                      m_kind == ListKind::Half,
                      radius() * radius()};
  }

  /// Count pass, scan, fill pass.
  void buildTwoPass(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                    BinList<Exec> const& bins) {
    countRows(space, x, ids, bins);
    reserveNeighbors(scanCounts(space));
    fillRows(space, x, ids, bins);
  }

  /// Count pass, scan, staged fill pass.
  void buildStaged(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                   BinList<Exec> const& bins) {
    countRows(space, x, ids, bins);
    reserveNeighbors(scanCounts(space));
    fillRowsStaged(space, x, ids, bins);
  }

  /// The padded pass (again with a larger capacity when some row did not fit), scan, pack.
  void buildOnePass(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                    BinList<Exec> const& bins) {
    int const owned = m_owned;
    int stride = 0;  // entries per row of the scratch area in the pass that fitted
    for (;;) {
      // capacity + 1 entries per row: the last is PaddedWriter's sink.
      std::int64_t const room = static_cast<std::int64_t>(owned) * (m_capacity + 1);
      if (room > INT_MAX)
        throw Error(str("VerletList: ", owned, " rows of up to ", m_capacity,
                        " neighbours on one rank; expected at most ", INT_MAX,
                        " entries (use more ranks)"));
      detail::ensureExtent(m_padded, static_cast<std::size_t>(room),
                           "eddy::neighbor::verletScratch");
      int const longest = fillPadded(space, x, ids, bins);
      bool const fitted = longest <= m_capacity;
      stride = m_capacity + 1;
      m_capacity = longest + longest / 4 + 8;  // the next build's, or this one's second try
      if (fitted) break;
    }
    reserveNeighbors(scanCounts(space));
    packRows(space, stride);
  }

  /// Sizes the neighbour array for `total` entries.
  void reserveNeighbors(std::int64_t total) {
    if (total > INT_MAX)
      throw Error(str("VerletList: ", total, " neighbours on one rank; expected at most ", INT_MAX,
                      " (use more ranks)"));
    m_pairs = static_cast<int>(total);
    detail::ensureExtent(m_neighbors, static_cast<std::size_t>(total),
                         "eddy::neighbor::verletNeighbors");
  }

  /// Counts each row's neighbours into offsets(i).
  void countRows(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                 BinList<Exec> const& bins) {
    auto const scan = scanner<Counter>(x, ids, bins);
    auto offsets = m_offsets;
    Kokkos::parallel_for(
        "eddy::neighbor::verletCount", Kokkos::RangePolicy<Exec>(space, 0, m_owned),
        KOKKOS_LAMBDA(const int i) {
          Counter c;
          scan(i, c);
          offsets(i) = c.n;
        });
  }

  /// Writes each row at its offset (the candidate scan of countRows, in the same order).
  void fillRows(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                BinList<Exec> const& bins) {
    auto const scan = scanner<Writer>(x, ids, bins);
    auto const offsets = m_offsets;
    auto neighbors = m_neighbors;
    Kokkos::parallel_for(
        "eddy::neighbor::verletFill", Kokkos::RangePolicy<Exec>(space, 0, m_owned),
        KOKKOS_LAMBDA(const int i) {
          Writer w{neighbors.data() + offsets(i)};
          scan(i, w);
        });
  }

  /// Writes the neighbours it is given to place p on of a team's run of the CSR array: into the
  /// stage while p < cap, else straight into the array (`run` is the run's start).
  struct StagedWriter {
    int* stage;
    int* run;
    int cap;
    int p;
    KOKKOS_INLINE_FUNCTION void operator()(int j, bool inside) {
      if (!inside) return;
      if (p < cap)
        stage[p] = j;
      else
        run[p] = j;
      ++p;
    }
  };

  /// The fill pass of fillRows through a stage in team scratch memory (the top of this file):
  /// m_stage entries per row of a team of compat::listFillRows rows, fewer where the backend's
  /// scratch per team is smaller.
  void fillRowsStaged(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                      BinList<Exec> const& bins) {
    using Policy = Kokkos::TeamPolicy<Exec>;
    using Stage = Kokkos::View<int*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    auto const scan = scanner<StagedWriter>(x, ids, bins);
    auto const offsets = m_offsets;
    auto neighbors = m_neighbors;
    int const owned = m_owned;
    int const rows = compat::listFillRows<Exec>();
    // The entries a team's scratch holds, less the view's own alignment overhead.
    int const fits =
        static_cast<int>((Policy::scratch_size_max(0) - Stage::shmem_size(0)) / sizeof(int));
    int const cap = std::min(rows * m_stage, fits);
    Policy policy(space, (owned + rows - 1) / rows, rows);
    policy.set_scratch_size(0, Kokkos::PerTeam(Stage::shmem_size(cap)));
    Kokkos::parallel_for(
        "eddy::neighbor::verletFillStaged", policy,
        KOKKOS_LAMBDA(typename Policy::member_type const& team) {
          Stage stage(team.team_scratch(0), cap);
          int const first = team.league_rank() * rows;
          int const last = first + rows < owned ? first + rows : owned;
          int const base = offsets(first);
          int* const run = neighbors.data() + base;
          // Nested loops take no label (only kernels do).
          auto const teamRows = Kokkos::TeamThreadRange(team, first, last);
          Kokkos::parallel_for(teamRows, [&](int i) {
            StagedWriter w{stage.data(), run, cap, offsets(i) - base};
            scan(i, w);
          });
          team.team_barrier();
          int const staged = offsets(last) - base < cap ? offsets(last) - base : cap;
          auto const entries = Kokkos::TeamThreadRange(team, staged);
          Kokkos::parallel_for(entries, [&](int k) { run[k] = stage(k); });
        });
  }

  /// The padded pass: row i's neighbours go to padded(i * (capacity + 1) ...), its count (all
  /// of them, also those beyond the capacity) to offsets(i). Returns the largest count.
  int fillPadded(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                 BinList<Exec> const& bins) {
    auto const scan = scanner<PaddedWriter>(x, ids, bins);
    auto offsets = m_offsets;
    auto padded = m_padded;
    int const cap = m_capacity;
    int longest = 0;
    Kokkos::parallel_reduce(
        "eddy::neighbor::verletFillPadded", Kokkos::RangePolicy<Exec>(space, 0, m_owned),
        KOKKOS_LAMBDA(const int i, int& most) {
          PaddedWriter w{padded.data() + static_cast<std::size_t>(i) * (cap + 1), cap};
          scan(i, w);
          offsets(i) = w.n;
          if (w.n > most) most = w.n;
        },
        Kokkos::Max<int>(longest));
    return longest > 0 ? longest : 0;  // no rows: the reducer leaves its identity (INT_MIN)
  }

  /// Turns the counts in offsets(0 .. owned - 1) into offsets (offsets(owned) = total) and
  /// returns the total. (The count is a kernel of its own: parallel_scan calls its functor twice
  /// on GPU and OpenMP backends, which would run the candidate scan twice.)
  std::int64_t scanCounts(Exec const& space) {
    auto offsets = m_offsets;
    int const owned = m_owned;
    std::int64_t total = 0;
    Kokkos::parallel_scan(
        "eddy::neighbor::verletOffsets", Kokkos::RangePolicy<Exec>(space, 0, owned + 1),
        KOKKOS_LAMBDA(const int i, std::int64_t& prefix, const bool final) {
          int const count = i < owned ? offsets(i) : 0;
          if (final) offsets(i) = static_cast<int>(prefix);
          prefix += count;
        },
        total);
    return total;
  }

  /// Copies each row from the scratch area (`stride` entries per row) to its place in the CSR
  /// array, with compat::rowCopyLanes vector lanes per row (1 on host backends: a plain loop).
  void packRows(Exec const& space, int stride) {
    auto const offsets = m_offsets;
    auto const padded = m_padded;
    auto neighbors = m_neighbors;
    forEachRowWithLanes(
        "eddy::neighbor::verletPack", space, m_owned, compat::rowCopyLanes<Exec>(),
        KOKKOS_LAMBDA(typename Kokkos::TeamPolicy<Exec>::member_type const& team, int i) {
          int const begin = offsets(i);
          int const* const from = padded.data() + static_cast<std::size_t>(i) * stride;
          // Nested loops take no label (only kernels do).
          auto const entries = Kokkos::ThreadVectorRange(team, offsets(i + 1) - begin);
          Kokkos::parallel_for(entries, [&](int k) { neighbors(begin + k) = from[k]; });
        });
  }

 private:
  ListKind m_kind;
  ListBuild m_build;
  int m_stage;  ///< stage entries per row of the staged fill (0: another build)
  double m_cutoff, m_skin;
  int m_owned = 0;
  int m_pairs = 0;
  long long m_builds = 0;
  IntView m_offsets, m_neighbors;
  IntView m_padded;     ///< scratch of the build: `m_capacity` + 1 entries per row
  int m_capacity = 64;  ///< entries per row of the scratch area at the next pass
  Positions<memory_space> m_x0;
};

}  // namespace eddy::neighbor
