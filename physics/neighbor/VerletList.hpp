/// @file VerletList.hpp
/// @brief Verlet neighbour lists (rows of neighbour indices), built from a BinList.
///
/// Build: one pass into padded rows, or two passes into packed rows where padded ones would not
/// fit (ListBuild). Both give the same rows, entry for entry; they differ in where a row lies
/// (NeighborView::begin, end), and in memory.
/// - One pass (padded rows): the candidate scan writes row i's neighbours from place
///   i * stride on, `stride` a little more than the longest row of the previous build (+25%),
///   and counts them all; a row that does not fit makes the pass run again with a stride that
///   fits, so nothing is ever cut off. No second candidate scan, no scan of counts, no copy;
///   the gaps after the rows are never read.
/// - Two passes (packed rows, CSR): a count pass over the candidates, a scan of the counts into
///   the offsets, and a fill pass that runs the candidate scan again and writes each row
///   straight into place. Taken where the padded rows would pass ListTuning::maxPaddedPlaces
///   places on one rank (INT_MAX: int places, as the packed offsets).
/// Rows are written by a thread each. The fill pass, and the padded pass where
/// ListTuning::kStoreEveryCandidate does not hold (CUDA), gather a row's entries in aligned
/// groups of four and store each group in one 16-byte store (Writer): a thread per row storing
/// entry by entry writes a different sector per thread of a warp for every entry.
///
/// Rows are the owned particles [0, owned); neighbours are indices into owned and ghost rows
/// within the list radius (cutoff + skin). With pair cutoffs (setPairCutoffs: a cutoff per pair
/// of particle classes, e.g. atom types), a pair is a neighbour within its own radius,
/// cutoff_ab + skin: the pairs of shorter cutoffs then leave out the entries that could not
/// come within their cutoff before the next rebuild (in the Kob-Andersen mixture, 15% of a
/// row).
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
/// Rebuild policy: a rebuild is due when some particle on some rank moved more than skin / 2
/// since the build (then no pair can have come within the cutoff unseen). The test
/// (DisplacementWatch, rebuildDue) rides in the kernel that moves the particles, or runs on its
/// own (needsRebuild). In a box scaled by s since the build (a barostat's), positions are
/// measured from the scaled build positions, and the pairs left out, at least s (cutoff + skin)
/// apart in the scaled box less their displacements, stay out of the cutoff while every
/// particle moved less than (s (cutoff + skin) - cutoff) / 2: the least of that over the pair
/// cutoffs (the largest when the box shrank, the smallest when it grew).
///
/// Memory: 24 bytes per owned particle for the positions at the last build, 4 for the counts or
/// offsets, and the rows: 4 bytes per neighbour when packed; padded, 4 x stride per owned
/// particle (stride: the longest row x 1.25 + 8, rounded up to a multiple of 4 on CUDA).
#pragma once

#include "eddy/core/ChunkedScan.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/PassFlags.hpp"
#include "eddy/core/PortableMath.hpp"
#include "eddy/core/Timer.hpp"
#include "neighbor/BinList.hpp"
#include "neighbor/ListTuning.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace eddy::neighbor {

enum class ListKind { Full, Half };

/// How a VerletList built its rows (see the top of this file).
enum class ListBuild { TwoPass, OnePass };

/// "one-pass" or "two-pass".
inline char const* listBuildName(ListBuild how) {
  return how == ListBuild::OnePass ? "one-pass" : "two-pass";
}

/// Device-copyable view of a list: the neighbours of row i are neighbors(begin(i)) ..
/// neighbors(end(i) - 1). Packed rows (CSR; stride 0): `offsets` holds rows + 1 offsets.
/// Padded rows (stride > 0): row i begins at i * stride and `offsets`(i) is its count.
template <class Mem>
struct NeighborView {
  Kokkos::View<int*, Mem> offsets;
  Kokkos::View<int*, Mem> neighbors;
  int stride = 0;

  KOKKOS_INLINE_FUNCTION int begin(int i) const { return stride > 0 ? i * stride : offsets(i); }
  KOKKOS_INLINE_FUNCTION int end(int i) const {
    return stride > 0 ? i * stride + offsets(i) : offsets(i + 1);
  }
  KOKKOS_INLINE_FUNCTION int count(int i) const {
    return stride > 0 ? offsets(i) : offsets(i + 1) - offsets(i);
  }
};

/// The longest row and the entries of a padded pass (VerletList::fillPadded), reduced together.
struct RowStats {
  int longest = 0;
  long long entries = 0;
  KOKKOS_INLINE_FUNCTION RowStats& operator+=(RowStats const& o) {
    longest = o.longest > longest ? o.longest : longest;
    entries += o.entries;
    return *this;
  }
  // Kokkos 3.x joins through volatile references (a template: unused with Kokkos 4).
  template <class Other>
  KOKKOS_INLINE_FUNCTION void operator+=(volatile Other const& o) volatile {
    longest = o.longest > longest ? o.longest : longest;
    entries += o.entries;
  }
};
}  // namespace eddy::neighbor

namespace Kokkos {
template <>
struct reduction_identity<eddy::neighbor::RowStats> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::neighbor::RowStats sum() {
    return eddy::neighbor::RowStats{};
  }
};
}  // namespace Kokkos

namespace eddy::neighbor {

template <class Exec = ExecSpace>
class VerletList {
 public:
  using memory_space = typename Exec::memory_space;
  using IntView = Kokkos::View<int*, memory_space>;
  using IdView = Kokkos::View<std::int64_t*, memory_space>;

  VerletList(ListKind kind, double cutoff, double skin,
             ListTuning<Exec> const& tuning = ListTuning<Exec>{})
      : m_kind(kind), m_tuning(tuning), m_cutoff(cutoff), m_skin(skin) {
    EDDY_REQUIRE(cutoff > 0, "VerletList: cutoff ", cutoff, "; expected > 0");
    EDDY_REQUIRE(skin >= 0, "VerletList: skin ", skin, "; expected >= 0");
  }

  /// The skin of the builds from now on (lists without pair cutoffs); the displacement test
  /// takes it at once, so build before the next check.
  void setSkin(double skin) {
    EDDY_REQUIRE(skin >= 0 && m_classes == 0, "VerletList::setSkin: skin ", skin, " with ",
                 m_classes, " pair classes; expected skin >= 0 and no pair cutoffs");
    m_skin = skin;
  }

  /// Gives each pair of `classes` particle classes its own cutoff (`cutoffs`, classes x classes,
  /// row-major, symmetric, each in (0, cutoff()]): a pair is a neighbour within its cutoff +
  /// skin. Every build then takes the rows' classes.
  void setPairCutoffs(int classes, std::vector<double> const& cutoffs) {
    EDDY_REQUIRE(classes > 0 && cutoffs.size() == static_cast<std::size_t>(classes * classes),
                 "VerletList: ", cutoffs.size(), " pair cutoffs for ", classes,
                 " classes; expected classes^2");
    Kokkos::View<double*, memory_space> radiusSq("eddy::neighbor::pairRadiusSq", cutoffs.size());
    auto host = Kokkos::create_mirror_view(radiusSq);
    m_cutoffMin = m_cutoff;
    for (int a = 0; a < classes; ++a)
      for (int b = 0; b < classes; ++b) {
        double const c = cutoffs[static_cast<std::size_t>(a * classes + b)];
        EDDY_REQUIRE(
            c > 0 && c <= m_cutoff && c == cutoffs[static_cast<std::size_t>(b * classes + a)],
            "VerletList: pair cutoff (", a, ", ", b, ") ", c, "; expected symmetric and in (0, ",
            m_cutoff, "]");
        host(a * classes + b) = (c + m_skin) * (c + m_skin);
        m_cutoffMin = std::min(m_cutoffMin, c);
      }
    Kokkos::deep_copy(radiusSq, host);
    m_pairRadiusSq = radiusSq;
    m_classes = classes;
  }
  /// Classes with pair cutoffs (setPairCutoffs), or 0: one radius for every pair.
  int classes() const { return m_classes; }
  /// Every pair closer than this is in the list at any step between rebuilds: the least pair
  /// cutoff, or cutoff() without pair cutoffs.
  double reach() const { return m_cutoffMin; }

  /// Builds the list of rows [0, owned) of `x` against every binned row (owned and ghosts).
  /// `ids` are global ids (used by the half list to pick one owner of cross-rank pairs);
  /// `classes`, the class of every binned row, is read with pair cutoffs only.
  void build(Exec const& space, Positions<memory_space> const& x, IdView const& ids, int owned,
             BinList<Exec> const& bins, IntView const& classes = {}) {
    ScopedRegion region("eddy::neighbor::verletBuild");
    EDDY_REQUIRE(owned <= bins.particleCount(), "VerletList: ", owned, " owned rows but only ",
                 bins.particleCount(), " binned; expected owned <= binned");
    EDDY_REQUIRE(
        m_classes == 0 || classes.extent(0) >= static_cast<std::size_t>(bins.particleCount()),
        "VerletList: classes of ", classes.extent(0), " rows with pair cutoffs; expected ",
        bins.particleCount(), " (every binned row)");
    m_buildClasses = classes;
    m_owned = owned;
    detail::ensureExtent(m_offsets, static_cast<std::size_t>(owned) + 1,
                         "eddy::neighbor::verletOffsets");
    buildOnePass(space, x, ids, bins);
    m_buildClasses = IntView();  // not kept: a sort replaces the rows' arrays
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
  /// last build (or there was none): the DisplacementWatch given the rows of `x` by a pass of
  /// its own (the model's step gives it the drift's positions instead).
  /// Throws eddy::Error (collective, ExitCode::Failure) when some owned particle's position is
  /// not finite: the system blew up, and binning it would read out of bounds.
  bool needsRebuild(Exec const& space, MPI_Comm comm, Positions<memory_space> const& x) const {
    return rebuildDue(space, comm, watchPositions(space, x));
  }
  /// The displacement test folded into the kernel that moves the owned rows (md::kickDrift):
  /// called with a row's new position, it marks the check when the row lies more than skin / 2
  /// from its position at the last build (flag 0) or its distance is not finite (flag 1)
  /// (PassFlags); `rebuildDue` reads the flags. There is no pass over the rows of its own and no
  /// reduction: only rows past the limit write. A row that moved farther than the list radius
  /// since the last build ran away (flag 2): no integration step moves an atom that far, and
  /// migration could not place it.
  struct DisplacementWatch {
    Positions<memory_space> x0;
    typename PassFlags<Exec, 3>::Raiser flags;
    double limitSq;
    double runawaySq;
    double scale = 1.0;  ///< of the box since the build

    KOKKOS_INLINE_FUNCTION void operator()(const int i, double x, double y, double z) const {
      double const dx = x - scale * x0(i, 0), dy = y - scale * x0(i, 1), dz = z - scale * x0(i, 2);
      double const d2 = dx * dx + dy * dy + dz * dz;
      bool const finite = d2 - d2 == 0.0;  // NaN for NaN and Inf
      if (!(d2 <= limitSq)) flags.raise(!finite ? 1 : d2 > runawaySq ? 2 : 0);
    }
  };
  /// The watch of the next check: give it every owned row's new position, then ask rebuildDue.
  /// `boxScale`: the box edges now over those at the build (a rebuild is due at once when the
  /// box shrank by the skin's share of the list radius).
  DisplacementWatch displacementWatch(double boxScale = 1.0) const {
    double const skin = boxScale == 1.0 ? m_skin
                                        : std::min(boxScale * radius() - m_cutoff,
                                                   boxScale * (m_cutoffMin + m_skin) - m_cutoffMin);
    double const limitSq = skin > 0 ? 0.25 * skin * skin : -1.0;
    return DisplacementWatch{m_x0, m_flags.next(), limitSq, radius() * radius(), boxScale};
  }
  /// What a check found: a rebuild is due, a position is not finite, a row ran away.
  struct Displacement {
    bool rebuild = false, notFinite = false, runaway = false;
  };
  /// The watch of a new check, given the owned rows of `x` by a pass of its own (on `space`).
  DisplacementWatch watchPositions(Exec const& space, Positions<memory_space> const& x,
                                   double boxScale = 1.0) const {
    auto const watch = displacementWatch(boxScale);
    Kokkos::parallel_for(
        "eddy::neighbor::watchPositions", Kokkos::RangePolicy<Exec>(space, 0, m_owned),
        KOKKOS_LAMBDA(const int i) { watch(i, x(i, 0), x(i, 1), x(i, 2)); });
    return watch;
  }
  /// Collective: whether a rebuild is due for the positions `watch` was given (by a kernel on
  /// `space`), from its marks: true also before the first build. Throws eddy::Error
  /// (collective, ExitCode::Failure) as needsRebuild.
  bool rebuildDue(Exec const& space, MPI_Comm comm, DisplacementWatch const& watch) const {
    auto const d = checkDisplacement(space, comm, watch);
    if (d.notFinite || d.runaway) throwNotFinite();
    return d.rebuild;
  }
  /// Collective: what the marks of `watch` say, for a caller that reports a blow-up itself.
  Displacement checkDisplacement(Exec const& space, MPI_Comm comm,
                                 DisplacementWatch const& watch) const {
    ScopedRegion region("eddy::neighbor::checkDisplacement");
    if (m_builds == 0) return {true, false, false};
    auto const raised =
        m_flags.anyRank(space, comm, watch.flags, "MPI_Allreduce (eddy::neighbor::rebuildDue)");
    return {raised[0] || raised[2], raised[1], raised[2]};
  }

  NeighborView<memory_space> view() const {
    return {m_offsets, m_stride > 0 ? m_padded : m_neighbors, m_stride};
  }
  ListKind kind() const { return m_kind; }
  /// How the last build wrote its rows (TwoPass before the first).
  ListBuild lastBuild() const { return m_stride > 0 ? ListBuild::OnePass : ListBuild::TwoPass; }
  ListTuning<Exec> const& tuning() const { return m_tuning; }
  double cutoff() const { return m_cutoff; }
  double skin() const { return m_skin; }
  double radius() const { return m_cutoff + m_skin; }
  int owned() const { return m_owned; }
  /// Neighbour entries on this rank.
  int pairCount() const { return m_pairs; }
  /// Places from one row's start to the next's (padded rows), or 0 (packed rows: CSR).
  int stride() const { return m_stride; }
  /// Builds so far (the first one included).
  long long buildCount() const { return m_builds; }
  /// Positions of rows [0, owned()) at the last build (the reference of the displacement test).
  Positions<memory_space> const& buildPositions() const { return m_x0; }

  // Kernels; public only because CUDA lambdas may not live in private member functions.
  /// Offers the candidate neighbours j of row i accepted by the list kind to `Visit`, with
  /// whether each lies within the radius (of its pair of classes, with pair cutoffs):
  /// visit(j, inside).
  template <class Visit>
  struct Scan {
    Positions<memory_space> x;   ///< positions by row
    Positions<memory_space> xs;  ///< positions in bin order
    IdView ids;
    IntView binOffsets, permutation;
    BinGrid grid;
    int owned;
    bool half;
    double radiusSq;                                   ///< the largest radius, squared
    int classes;                                       ///< with pair cutoffs, else 0
    IntView classOf;                                   ///< by row, with pair cutoffs
    Kokkos::View<double*, memory_space> pairRadiusSq;  ///< classes x classes, with pair cutoffs

    KOKKOS_INLINE_FUNCTION void operator()(const int i, Visit& visit) const {
      // Locals, not members: the visitor stores ints through a pointer, which the compiler must
      // otherwise assume may overwrite an int member or the visitor's own count, and reload
      // them for every candidate (a large part of an LJ run on a host core).
      Visit v = visit;
      int const rows = owned;
      bool const halfList = half;
      double const r2 = radiusSq;
      int const nc = classes;
      auto const cls = classOf;
      auto const pairR2 = pairRadiusSq;
      int const ci = nc > 0 ? cls(i) * nc : 0;
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
            double const limit = nc > 0 ? pairR2(ci + cls(j)) : r2;
            // The sink takes every candidate with its verdict: counting and padded writes need
            // no branch on the distance (40-60% of candidates pass, so a branch mispredicts).
            v(j, ex * ex + ey * ey + ez * ez < limit);
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
  /// Writes the neighbours it is given to base[p], base[p + 1], ... from p = first on, up to
  /// place `limit` (exclusive; the places beyond are counted, not stored). Each aligned group of
  /// four places that lies wholly within [first, limit) is gathered in four registers and
  /// stored in one 16-byte store (compat::store4); the partial groups at a row's ends go entry
  /// by entry. (A thread per row storing entry by entry writes a different sector per thread of
  /// a warp, once per entry; by groups, once per four.) `base` is 16-byte aligned.
  struct Writer {
    int* base;
    int first;  ///< the row's first place
    int limit;  ///< the first place not stored
    int p;      ///< the next place
    int g0 = 0, g1 = 0, g2 = 0, g3 = 0;
    KOKKOS_INLINE_FUNCTION Writer(int* base_, int first_, int limit_)
        : base(base_), first(first_), limit(limit_), p(first_) {}
    KOKKOS_INLINE_FUNCTION void operator()(int j, bool inside) {
      if (!inside) return;
      int const slot = p & 3;
      g0 = slot == 0 ? j : g0;
      g1 = slot == 1 ? j : g1;
      g2 = slot == 2 ? j : g2;
      g3 = slot == 3 ? j : g3;
      ++p;
      if (slot == 3) store(p - 4);
    }
    /// Stores the entries left in the last group (after the scan).
    KOKKOS_INLINE_FUNCTION void finish() const {
      if (p & 3) store(p & ~3);
    }
    /// Neighbours given so far (also those at or beyond `limit`).
    KOKKOS_INLINE_FUNCTION int count() const { return p - first; }
    /// Stores the group of places g .. g + 3 (g a multiple of four) that lie in [first, p) and
    /// below `limit`.
    KOKKOS_INLINE_FUNCTION void store(int g) const {
      int const lo = g > first ? g : first, hi = p < limit ? p : limit;
      if (lo == g && hi - g >= 4) {
        compat::store4(base + g, g0, g1, g2, g3);
        return;
      }
      if (lo <= g && g < hi) base[g] = g0;
      if (lo <= g + 1 && g + 1 < hi) base[g + 1] = g1;
      if (lo <= g + 2 && g + 2 < hi) base[g + 2] = g2;
      if (lo <= g + 3 && g + 3 < hi) base[g + 3] = g3;
    }
  };
  /// Writes the first `cap` neighbours it is given to `out` and counts them all; every candidate
  /// is stored at the next place (the place after the last is a sink, out[cap]) and only
  /// neighbours advance it: no branch on the verdict. The padded pass's sink where
  /// ListTuning::kStoreEveryCandidate; elsewhere it uses Writer, with rows of a multiple of four
  /// places.
  struct PaddedWriter {
    int* out;
    int cap;
    int n = 0;
    KOKKOS_INLINE_FUNCTION void operator()(int j, bool inside) {
      out[n < cap ? n : cap] = j;
      n += inside;
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
                      radius() * radius(),
                      m_classes,
                      m_buildClasses,
                      m_pairRadiusSq};
  }

  /// Count pass, scan, fill pass.
  void buildTwoPass(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                    BinList<Exec> const& bins) {
    m_stride = 0;
    countRows(space, x, ids, bins);
    reserveNeighbors(scanCounts(space));
    fillRows(space, x, ids, bins);
  }

  /// The padded pass, again with a larger capacity when some row did not fit. Rows whose places
  /// would pass ListTuning::maxPaddedPlaces (at most INT_MAX: int places, as the packed offsets)
  /// take two passes instead.
  void buildOnePass(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                    BinList<Exec> const& bins) {
    int const owned = m_owned;
    std::int64_t const most = std::min<std::int64_t>(m_tuning.maxPaddedPlaces, INT_MAX);
    for (;;) {
      int const stride = paddedStride(m_capacity);
      std::int64_t const room = static_cast<std::int64_t>(owned) * stride;
      if (room > most) {
        buildTwoPass(space, x, ids, bins);
        return;
      }
      detail::ensureExtent(m_padded, static_cast<std::size_t>(room),
                           "eddy::neighbor::verletPaddedRows");
      RowStats const rows = fillPadded(space, x, ids, bins);
      bool const fitted = rows.longest <= m_capacity;
      // The next build's capacity, or this one's second try.
      m_capacity = rows.longest + rows.longest / 4 + 8;
      if (fitted) {
        m_stride = stride;
        m_pairs = static_cast<int>(rows.entries);  // at most room
        return;
      }
    }
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
          Writer w(neighbors.data(), offsets(i), INT_MAX);
          scan(i, w);
          w.finish();
        });
  }

  /// Places per padded row (the stride) for `capacity` neighbours: capacity + 1 where
  /// ListTuning::kStoreEveryCandidate (the last is PaddedWriter's sink), else capacity rounded
  /// up to a multiple of four (Writer's groups then line up with the rows).
  static int paddedStride(int capacity) {
    return ListTuning<Exec>::kStoreEveryCandidate ? capacity + 1 : (capacity + 3) / 4 * 4;
  }

  /// Writes row i's first `cap` neighbours to base[first ...] and returns its count.
  template <class Sink>
  KOKKOS_INLINE_FUNCTION static int padRow(Scan<Sink> const& scan, int i, int* base, int first,
                                           int cap) {
    if constexpr (std::is_same_v<Sink, PaddedWriter>) {
      PaddedWriter w{base + first, cap};
      scan(i, w);
      return w.n;
    } else {
      Writer w(base, first, first + cap);
      scan(i, w);
      w.finish();
      return w.count();
    }
  }

  /// The padded pass: row i's neighbours go to padded(i * paddedStride(capacity) ...), its
  /// count (all of them, also those beyond the capacity) to offsets(i). Returns the largest
  /// count and the sum of the counts.
  RowStats fillPadded(Exec const& space, Positions<memory_space> const& x, IdView const& ids,
                      BinList<Exec> const& bins) {
    constexpr bool everyCandidate = ListTuning<Exec>::kStoreEveryCandidate;
    using Sink = std::conditional_t<everyCandidate, PaddedWriter, Writer>;
    auto const scan = scanner<Sink>(x, ids, bins);
    auto offsets = m_offsets;
    auto padded = m_padded;
    int const cap = m_capacity;
    int const stride = paddedStride(cap);
    RowStats rows;
    Kokkos::parallel_reduce(
        "eddy::neighbor::verletFillPadded", Kokkos::RangePolicy<Exec>(space, 0, m_owned),
        KOKKOS_LAMBDA(const int i, RowStats& sum) {
          int const n = padRow(scan, i, padded.data(), i * stride, cap);
          offsets(i) = n;
          sum += RowStats{n, n};
        },
        Kokkos::Sum<RowStats>(rows));
    return rows;
  }

  /// Turns the counts in offsets(0 .. owned - 1) into offsets (offsets(owned) = total) and
  /// returns the total. (The count is a kernel of its own: parallel_scan calls its functor twice
  /// on GPU and OpenMP backends, which would run the candidate scan twice.)
  std::int64_t scanCounts(Exec const& space) {
    auto offsets = m_offsets;
    int const owned = m_owned;
    auto const count = KOKKOS_LAMBDA(const int i) {
      return i < owned ? offsets(i) : 0;
    };
    std::int64_t const total = m_scan.sum(space, owned + 1, count, true);
    m_scan.store(
        space, owned + 1, count,
        KOKKOS_LAMBDA(const int i, const std::int64_t at) { offsets(i) = static_cast<int>(at); });
    return total;
  }

 private:
  [[noreturn]] void throwNotFinite() const {
    throw Error(str("md: a particle position is not finite (NaN or Inf), or moved farther than "
                    "cutoff + skin, after ", m_builds, " neighbour list builds; the system blew "
                    "up (atoms too close, or md.dt too large)"),
                ExitCode::Failure, true);
  }

  ListKind m_kind;
  ListTuning<Exec> m_tuning;
  double m_cutoff, m_skin;
  double m_cutoffMin = m_cutoff;  ///< the least pair cutoff (m_cutoff without pair cutoffs)
  int m_classes = 0;              ///< with pair cutoffs, else 0
  Kokkos::View<double*, memory_space> m_pairRadiusSq;  ///< (cutoff_ab + skin)^2
  IntView m_buildClasses;                              ///< the rows' classes of the build under way
  int m_owned = 0;
  int m_pairs = 0;
  long long m_builds = 0;
  IntView m_offsets, m_neighbors;
  IntView m_padded;     ///< padded rows (one pass): `m_stride` places per row
  int m_stride = 0;     ///< of the rows of the last build (0: packed, in m_neighbors)
  int m_capacity = 64;  ///< entries per row at the next padded pass
  Positions<memory_space> m_x0;
  ChunkedScan<Exec> m_scan;  ///< of the counts into the offsets
  /// The displacement test's flags: 0 moved past skin / 2, 1 not finite (DisplacementWatch).
  PassFlags<Exec, 3> m_flags{"eddy::neighbor::displacementMarks"};
};

}  // namespace eddy::neighbor
