/// @file Histogram.hpp
/// @brief Histograms of uniform bins filled with atomics on an execution space: global atomics,
/// or team-privatised bins in scratch memory, with exact integer counts and optional weights.
///
/// Bins: `bins` equal bins over [lo, hi). Out-of-range samples are counted, not clamped: below
/// lo in the underflow slot, at or above hi (and NaN) in the overflow slot, so the counts of
/// bins + underflow + overflow always total the number of samples exactly.
///
/// Methods:
/// - GlobalAtomic: every sample does one `Kokkos::atomic_add` on the global count (and weight).
/// - Privatized: each team of a TeamPolicy zeroes a copy of the bins in level-0 scratch,
///   accumulates its share of the samples there with atomics on scratch (contended only within
///   the team), then adds its non-zero bins to the global ones.
/// - Auto: Privatized when the team copy fits in `kPrivateScratchBytes`, else GlobalAtomic.
/// Counts are unsigned 64-bit integers, so both methods give identical counts on every backend
/// and any thread order; weights are doubles and depend on the order in their last bits.
///
/// A sample source is a device-copyable functor called once per index i with an "add" object:
///   template <class Add> KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, Add const& add)
///   const { add(x); /* or add(x, w) for a weighted sample, any number of times */ }
/// `SampleSource<F>` wraps a functor f(i) -> double into one sample per index.
///
/// Memory: 8 bytes per bin (+ 8 for weights), plus the host copy made by `globalCounts`.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace eddy {

/// Count type of histogram bins: std::uint64_t, the type for which Kokkos 4 (desul) issues a
/// native 64-bit atomic add on CUDA. (`unsigned long long` is a distinct type there and falls
/// back to a compare-and-swap loop, which contended bins make orders of magnitude slower.)
using HistogramCount = std::uint64_t;

/// How a histogram is filled.
enum class HistogramMethod { Auto, GlobalAtomic, Privatized };

/// Uniform bin geometry; device-copyable, plain scalars. Slot 0 is the underflow, slots
/// 1..bins the bins, slot bins + 1 the overflow (and NaN).
struct BinGrid {
  double lo = 0.0;
  double hi = 1.0;
  double invWidth = 1.0;
  int bins = 1;

  KOKKOS_INLINE_FUNCTION int slot(double x) const {
    if (x < lo) return 0;
    if (!(x < hi)) return bins + 1;  // also NaN
    int b = static_cast<int>((x - lo) * invWidth);
    if (b >= bins) b = bins - 1;  // rounding just below hi
    return b + 1;
  }
  int slots() const { return bins + 2; }
  double width() const { return (hi - lo) / bins; }
  /// Low edge of bin b in [0, bins].
  double edge(int b) const { return lo + (hi - lo) * b / bins; }
};

/// Wraps a functor f(i) -> double into a source of one unweighted sample per index.
template <class F>
struct SampleSource {
  F f;
  template <class Add>
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, Add const& add) const {
    add(static_cast<double>(f(i)));
  }
};
template <class F>
SampleSource<F> sampleSource(F const& f) {
  return SampleSource<F>{f};
}

namespace detail {

template <class Counts, class Weights>
struct HistogramAdd {
  BinGrid grid;
  Counts counts;
  Weights weights;
  KOKKOS_INLINE_FUNCTION void operator()(double x) const {
    Kokkos::atomic_add(&counts(grid.slot(x)), HistogramCount(1));
  }
  KOKKOS_INLINE_FUNCTION void operator()(double x, double w) const {
    int const s = grid.slot(x);
    Kokkos::atomic_add(&counts(s), HistogramCount(1));
    if (weights.extent(0) > 0) Kokkos::atomic_add(&weights(s), w);
  }
};

template <class Exec, class Mem, class Source>
struct HistogramGlobalKernel {
  using Add = HistogramAdd<Kokkos::View<HistogramCount*, Mem>, Kokkos::View<double*, Mem>>;
  Source source;
  Add add;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { source(i, add); }
};

template <class Exec, class Mem, class Source>
struct HistogramPrivateKernel {
  using Team = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = typename Exec::scratch_memory_space;
  using CountScratch =
      Kokkos::View<HistogramCount*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using WeightScratch = Kokkos::View<double*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Source source;
  BinGrid grid;
  Kokkos::View<HistogramCount*, Mem> counts;
  Kokkos::View<double*, Mem> weights;
  std::int64_t n;
  std::int64_t perTeam;

  static std::size_t scratchBytes(int slots, bool weighted) {
    return CountScratch::shmem_size(slots) + (weighted ? WeightScratch::shmem_size(slots) : 0);
  }

  KOKKOS_INLINE_FUNCTION void operator()(Team const& team) const {
    int const slots = grid.bins + 2;
    bool const weighted = weights.extent(0) > 0;
    CountScratch c(team.team_scratch(0), slots);
    WeightScratch w(team.team_scratch(0), weighted ? slots : 0);
    // Nested team loops take no label (only kernels do).
    auto const slotLoop = Kokkos::TeamThreadRange(team, slots);
    Kokkos::parallel_for(slotLoop, [&](int s) {
      c(s) = 0;
      if (weighted) w(s) = 0.0;
    });
    team.team_barrier();
    std::int64_t const begin = team.league_rank() * perTeam;
    std::int64_t const end = begin + perTeam < n ? begin + perTeam : n;
    HistogramAdd<CountScratch, WeightScratch> const add{grid, c, w};
    auto const sampleLoop = Kokkos::TeamThreadRange(team, begin, end);
    Kokkos::parallel_for(sampleLoop, [&](std::int64_t i) { source(i, add); });
    team.team_barrier();
    // Merge: one global atomic per non-empty bin per team.
    Kokkos::parallel_for(slotLoop, [&](int s) {
      if (c(s) != 0) Kokkos::atomic_add(&counts(s), c(s));
      if (weighted && w(s) != 0.0) Kokkos::atomic_add(&weights(s), w(s));
    });
  }
};

}  // namespace detail

/// A histogram of `bins` uniform bins over [lo, hi) with under- and overflow, owned counts
/// (and optionally weights) in memory space `Mem`. Bytes: 8 (bins + 2), doubled when weighted.
template <class Mem = MemSpace>
class Histogram {
 public:
  using memory_space = Mem;
  using CountView = Kokkos::View<HistogramCount*, Mem>;
  using WeightView = Kokkos::View<double*, Mem>;
  /// Largest team copy (counts and weights) that Auto privatises: fits the 48 KiB of shared
  /// memory a CUDA block gets without opting in, with room for the kernel's own use.
  static constexpr std::size_t kPrivateScratchBytes = 32 * 1024;

  /// Zeroed histogram `label` (`eddy::<module>::<what>`); `weighted` also keeps sums of weights.
  /// Throws eddy::ConfigError unless bins >= 1 and lo < hi (both finite).
  template <class Exec>
  Histogram(Exec const& space, std::string label, int bins, double lo, double hi,
            bool weighted = false)
      : m_label(std::move(label)) {
    if (m_label.rfind("eddy::", 0) != 0)
      throw ConfigError(str("Histogram '", m_label, "': label must start with 'eddy::'"));
    if (bins < 1)
      throw ConfigError(str("Histogram '", m_label, "': ", bins, " bins; expected >= 1"));
    if (!(lo < hi) || !(hi - lo < 1.7976931348623157e308))
      throw ConfigError(
          str("Histogram '", m_label, "': range [", lo, ", ", hi, "); expected finite lo < hi"));
    m_grid.lo = lo;
    m_grid.hi = hi;
    m_grid.bins = bins;
    m_grid.invWidth = bins / (hi - lo);
    m_counts = CountView(Kokkos::view_alloc(space, m_label + "::counts"), m_grid.slots());
    m_weights =
        WeightView(Kokkos::view_alloc(space, m_label + "::weights"), weighted ? m_grid.slots() : 0);
  }
  Histogram(std::string label, int bins, double lo, double hi, bool weighted = false)
      : Histogram(typename Mem::execution_space(), std::move(label), bins, lo, hi, weighted) {}

  std::string const& label() const { return m_label; }
  BinGrid const& grid() const { return m_grid; }
  int bins() const { return m_grid.bins; }
  bool weighted() const { return m_weights.extent(0) > 0; }
  /// Device counts, slot 0 underflow, 1..bins, bins + 1 overflow (this rank only).
  CountView const& counts() const { return m_counts; }
  WeightView const& weights() const { return m_weights; }

  /// The method Auto picks for this histogram.
  HistogramMethod autoMethod() const {
    return privateBytes() <= kPrivateScratchBytes ? HistogramMethod::Privatized
                                                  : HistogramMethod::GlobalAtomic;
  }
  std::size_t privateBytes() const {
    return static_cast<std::size_t>(m_grid.slots()) * (weighted() ? 16 : 8);
  }

  /// Zeroes every slot.
  template <class Exec>
  void reset(Exec const& space) {
    Kokkos::deep_copy(space, m_counts, HistogramCount(0));
    if (weighted()) Kokkos::deep_copy(space, m_weights, 0.0);
  }

  /// Adds the samples of `source` for indices [0, n) (see the file comment), on `space`.
  template <class Exec, class Source>
  void fill(Exec const& space, std::int64_t n, Source const& source,
            HistogramMethod method = HistogramMethod::Auto) {
    static_assert(Kokkos::SpaceAccessibility<Exec, Mem>::accessible,
                  "eddy::Histogram::fill: the counts are not accessible from the space");
    EDDY_REQUIRE(n >= 0, "Histogram '", m_label, "': ", n, " samples; expected >= 0");
    if (n == 0) return;
    if (method == HistogramMethod::Auto) method = autoMethod();
    if (method == HistogramMethod::GlobalAtomic) {
      ScopedRegion region("eddy::histogram::fillGlobal");
      using K = detail::HistogramGlobalKernel<Exec, Mem, Source>;
      Kokkos::parallel_for("eddy::histogram::fillGlobal",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(space, 0, n),
                           K{source, {m_grid, m_counts, m_weights}});
      return;
    }
    ScopedRegion region("eddy::histogram::fillPrivate");
    using K = detail::HistogramPrivateKernel<Exec, Mem, Source>;
    // Enough teams to fill the space, each over a contiguous block of at least 256 samples.
    std::int64_t const maxTeams = compat::concurrency(space) > 1
                                      ? std::int64_t(compat::concurrency(space)) / 32 + 1
                                      : std::int64_t(1);
    std::int64_t teams = (n + 255) / 256;
    if (teams > maxTeams) teams = maxTeams;
    std::int64_t const perTeam = (n + teams - 1) / teams;
    teams = (n + perTeam - 1) / perTeam;
    Kokkos::TeamPolicy<Exec> policy(space, static_cast<int>(teams), Kokkos::AUTO);
    policy.set_scratch_size(0, Kokkos::PerTeam(K::scratchBytes(m_grid.slots(), weighted())));
    Kokkos::parallel_for("eddy::histogram::fillPrivate", policy,
                         K{source, m_grid, m_counts, m_weights, n, perTeam});
  }

  /// Collective: every rank's counts summed (MPI_Allreduce), on the host; slot layout as
  /// `counts()`. Exact for any rank count.
  template <class Exec>
  std::vector<HistogramCount> globalCounts(Exec const& space, MPI_Comm comm) const {
    auto host = Kokkos::create_mirror_view(m_counts);
    Kokkos::deep_copy(space, host, m_counts);
    space.fence();
    std::vector<HistogramCount> local(host.data(), host.data() + host.extent(0)), global(local);
    checkMpi(MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()),
                           MPI_UINT64_T, MPI_SUM, comm),
             "MPI_Allreduce (eddy::Histogram counts)");
    return global;
  }
  /// Collective: every rank's weight sums (empty unless weighted).
  template <class Exec>
  std::vector<double> globalWeights(Exec const& space, MPI_Comm comm) const {
    auto host = Kokkos::create_mirror_view(m_weights);
    Kokkos::deep_copy(space, host, m_weights);
    space.fence();
    std::vector<double> local(host.data(), host.data() + host.extent(0)), global(local);
    checkMpi(MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE,
                           MPI_SUM, comm),
             "MPI_Allreduce (eddy::Histogram weights)");
    return global;
  }

 private:
  std::string m_label;
  BinGrid m_grid;
  CountView m_counts;
  WeightView m_weights;
};

}  // namespace eddy
