/// @file Analysis.hpp
/// @brief Structure and velocity analyses of an md::System across ranks: the radial
/// distribution function g(r) and the speed distribution, both as exact integer histograms
/// (eddy/core/Histogram.hpp, team-privatised when the bins fit in scratch), and the velocity
/// autocorrelation averaged over time origins.
///
/// g(r) counts the pairs of the Verlet list (owned-owned and owned-ghost, so pairs across
/// subdomain faces and the periodic boundary are seen) closer than r_max. The list holds every
/// pair within the cutoff at any step between rebuilds (the skin / 2 rule), so r_max must not
/// exceed the cutoff, nor the list's reach where pairs have shorter cutoffs of their own
/// (Parameters::listReach keeps them listed to r_max). A half list holds each pair once over all
/// ranks and every count is doubled; a full list holds it once per side. The counts are therefore
/// ordered pairs, the same integers for any rank count, and
///   g(shell) = ordered pairs in shell * V / (N (N - 1) V_shell),   V_shell = 4/3 pi (r2^3 - r1^3),
/// which is 1 in every shell for an ideal gas. With several types, each unordered pair of types
/// {a, b} has its own: g_aa = ordered a-a pairs * V / (N_a (N_a - 1) V_shell) and, for a != b,
/// g_ab = ordered pairs of either order * V / (2 N_a N_b V_shell); their sum weighted by
/// N_a N_b (N_a (N_a - 1) for a = b) is N (N - 1) g.
#pragma once

#include "eddy/core/Histogram.hpp"
#include "md/System.hpp"

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace eddy::md {

/// g(r) over `bins` shells of [0, r_max): ordered pair counts and the normalised values.
struct RadialDistribution {
  double rMax = 0.0;
  std::vector<double> rLow, rHigh;    ///< shell edges
  std::vector<HistogramCount> pairs;  ///< ordered pairs per shell (all ranks)
  std::vector<double> g;              ///< normalised g(r)
  /// With several types: g of each unordered pair of types a <= b (in the order (0,0), (0,1),
  /// ..., (1,1), ...), each over the shells.
  std::vector<std::vector<double>> gPair;
};

/// The index of the unordered pair of types {a, b} of `types` (a <= b, row by row).
KOKKOS_INLINE_FUNCTION int typePairIndex(int a, int b, int types) {
  if (a > b) {
    int const t = a;
    a = b;
    b = t;
  }
  return a * types - a * (a - 1) / 2 + (b - a);
}

/// Speed distribution |v| over `bins` bins of [0, v_max), with the count above v_max.
struct SpeedDistribution {
  double vMax = 0.0;
  std::vector<double> vLow, vHigh;
  std::vector<HistogramCount> counts;  ///< atoms per bin (all ranks)
  HistogramCount above = 0;            ///< atoms at or above v_max
  std::vector<double> pdf;             ///< counts / (N dv): a probability density of the speed
};

namespace detail {

/// Sample source: for owned row i, the distance to each list neighbour closer than r_max.
template <class Mem>
struct PairDistances {
  Positions<Mem> x;
  neighbor::NeighborView<Mem> list;
  double rMaxSq;
  template <class Add>
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, Add const& add) const {
    int const i = static_cast<int>(t);
    double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
    int const end = list.end(i);
    for (int k = list.begin(i); k < end; ++k) {
      int const j = list.neighbors(k);
      double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
      double const rsq = dx * dx + dy * dy + dz * dz;
      if (rsq < rMaxSq) add(math::sqrt(rsq));
    }
  }
};

/// Sample source: as PairDistances, each distance placed in the shells of its pair of types:
/// the centre of shell s (as `shells` bins it) of type pair k lands in bin k * bins + s of a
/// histogram of types (types + 1) / 2 spans of r_max.
template <class Mem>
struct TypedPairDistances {
  Positions<Mem> x;
  Types<Mem> type;
  neighbor::NeighborView<Mem> list;
  double rMaxSq;
  BinGrid shells;
  int types;
  template <class Add>
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, Add const& add) const {
    int const i = static_cast<int>(t);
    double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
    int const ti = type(i);
    double const width = (shells.hi - shells.lo) / shells.bins;
    int const end = list.end(i);
    for (int k = list.begin(i); k < end; ++k) {
      int const j = list.neighbors(k);
      double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
      double const rsq = dx * dx + dy * dy + dz * dz;
      if (rsq < rMaxSq) {
        int const shell = shells.slot(math::sqrt(rsq)) - 1;
        int const pair = typePairIndex(ti, type(j), types);
        add((static_cast<double>(pair) * shells.bins + shell + 0.5) * width);
      }
    }
  }
};

/// Sample source: the speed of owned row i.
template <class Mem>
struct Speed {
  Velocities<Mem> v;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t t) const {
    int const i = static_cast<int>(t);
    return math::sqrt(v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2));
  }
};

}  // namespace detail

/// Collective over `comm` (the system's communicator): g(r) of the current positions. Ghost
/// positions must be current (as after System::step). Throws eddy::ConfigError unless
/// 0 < r_max <= the list's reach (cutoff, or the shortest listed pair cutoff) and bins >= 1.
template <class Exec>
RadialDistribution radialDistribution(Exec const& space, MPI_Comm comm, System<Exec> const& s,
                                      double rMax, int bins,
                                      HistogramMethod method = HistogramMethod::Auto) {
  ScopedRegion region("eddy::md::radialDistribution");
  using Mem = typename Exec::memory_space;
  double const cutoff = s.list().cutoff();
  if (!(rMax > 0) || rMax > cutoff)
    throw ConfigError(str("md.rdf.r_max is ", rMax, "; expected 0 < r_max <= cutoff ", cutoff,
                          " (the neighbour list holds every pair within the cutoff)"));
  if (rMax > s.list().reach())
    throw ConfigError(str("md.rdf.r_max is ", rMax,
                          "; the neighbour list holds every pair only "
                          "within ",
                          s.list().reach(),
                          ", its shortest pair cutoff (expected "
                          "Parameters::listReach >= r_max)"));
  int const types = s.parameters().types;
  int const classes = types * (types + 1) / 2;
  Histogram<Mem> h(space, "eddy::md::rdfHistogram", bins, 0.0, rMax);
  // With several types each distance goes to the shells of its pair of types; the shells of
  // all pairs then add up to the same counts as one histogram would hold.
  Histogram<Mem> typed(space, "eddy::md::rdfTypedHistogram", types > 1 ? classes * bins : 1, 0.0,
                       types > 1 ? classes * rMax : rMax);
  if (types > 1)
    typed.fill(space, s.owned(),
               detail::TypedPairDistances<Mem>{s.particles().positions(), s.particles().types(),
                                               s.list().view(), rMax * rMax, h.grid(), types},
               method);
  else
    h.fill(space, s.owned(),
           detail::PairDistances<Mem>{s.particles().positions(), s.list().view(), rMax * rMax},
           method);
  auto const counts = (types > 1 ? typed : h).globalCounts(space, comm);
  HistogramCount const factor = s.list().kind() == neighbor::ListKind::Half ? 2 : 1;
  RadialDistribution r;
  r.rMax = rMax;
  double const n = static_cast<double>(s.atoms());
  double const pairDensity = n > 1 ? n * (n - 1) / s.volume() : 0.0;
  double const pi = 3.14159265358979323846;
  auto const& number = s.typeCounts();
  if (types > 1) r.gPair.assign(static_cast<std::size_t>(classes), {});
  for (int b = 0; b < bins; ++b) {
    double const lo = h.grid().edge(b), hi = h.grid().edge(b + 1);
    double const shell = 4.0 / 3.0 * pi * (hi * hi * hi - lo * lo * lo);
    r.rLow.push_back(lo);
    r.rHigh.push_back(hi);
    HistogramCount all = 0;
    for (int a = 0, k = 0; a < types; ++a)
      for (int c = a; c < types; ++c, ++k) {
        HistogramCount const here = factor * counts[static_cast<std::size_t>(k * bins + b + 1)];
        all += here;
        if (types == 1) continue;
        double const na = static_cast<double>(number[a]), nc = static_cast<double>(number[c]);
        double const density = (a == c ? na * (na - 1.0) : 2.0 * na * nc) / s.volume();
        r.gPair[k].push_back(density > 0 ? static_cast<double>(here) / (density * shell) : 0.0);
      }
    r.pairs.push_back(all);
    r.g.push_back(pairDensity > 0 ? static_cast<double>(all) / (pairDensity * shell) : 0.0);
  }
  return r;
}

/// Collective: the distribution of the owned atoms' speeds over [0, v_max).
template <class Exec>
SpeedDistribution speedDistribution(Exec const& space, MPI_Comm comm, System<Exec> const& s,
                                    double vMax, int bins,
                                    HistogramMethod method = HistogramMethod::Auto) {
  ScopedRegion region("eddy::md::speedDistribution");
  using Mem = typename Exec::memory_space;
  if (!(vMax > 0))
    throw ConfigError(str("md.velocity_histogram.v_max is ", vMax, "; expected > 0"));
  Histogram<Mem> h(space, "eddy::md::speedHistogram", bins, 0.0, vMax);
  h.fill(space, s.owned(), sampleSource(detail::Speed<Mem>{s.particles().velocities()}), method);
  auto const counts = h.globalCounts(space, comm);
  SpeedDistribution d;
  d.vMax = vMax;
  double const n = static_cast<double>(s.atoms());
  for (int b = 0; b < bins; ++b) {
    d.vLow.push_back(h.grid().edge(b));
    d.vHigh.push_back(h.grid().edge(b + 1));
    d.counts.push_back(counts[b + 1]);
    d.pdf.push_back(n > 0 ? static_cast<double>(counts[b + 1]) / (n * h.grid().width()) : 0.0);
  }
  d.above = counts[bins + 1];
  return d;
}

/// The velocity autocorrelation C(t) = <v(t0 + t) . v(t0)>, averaged over atoms and time
/// origins t0: the sampled steps are cut into windows of `lags` samples, each window's first
/// sample its origin (System::markVelocityOrigins), and C at lag k is the mean over the windows
/// that reached k. Every sample holds one value per type, then the one of all atoms
/// (System::velocityAutocorrelations). Host side; every rank holds the same sums.
class VelocityAutocorrelation {
 public:
  VelocityAutocorrelation(int lags, int values)
      : m_lags(lags),
        m_values(values),
        m_sums(static_cast<std::size_t>(lags * values), 0.0),
        m_counts(static_cast<std::size_t>(lags), 0) {}

  int lags() const { return m_lags; }
  int values() const { return m_values; }
  /// Adds the correlations `c` (values()) of the sample at lag `lag` (0 <= lag < lags()).
  void add(int lag, std::vector<double> const& c) {
    for (int j = 0; j < m_values; ++j) m_sums[index(lag, j)] += c[static_cast<std::size_t>(j)];
    ++m_counts[static_cast<std::size_t>(lag)];
  }
  /// Windows that reached lag `lag`.
  std::int64_t count(int lag) const { return m_counts[static_cast<std::size_t>(lag)]; }
  /// C at lag `lag` of value `j` (0 when no window reached it).
  double mean(int lag, int j) const {
    auto const n = count(lag);
    return n > 0 ? m_sums[index(lag, j)] / static_cast<double>(n) : 0.0;
  }
  /// The Green-Kubo self-diffusion coefficient up to each lag, D(t_k) = 1/3 of the integral of C
  /// (value `j`) from 0 to t_k, by the trapezoidal rule over lags `spacing` apart (0 at lag 0).
  std::vector<double> greenKubo(int j, double spacing) const {
    std::vector<double> d(static_cast<std::size_t>(m_lags), 0.0);
    for (int k = 1; k < m_lags; ++k)
      d[static_cast<std::size_t>(k)] =
          d[static_cast<std::size_t>(k - 1)] + spacing * (mean(k - 1, j) + mean(k, j)) / 6.0;
    return d;
  }

  /// The sums and counts, for checkpoints, and back.
  std::vector<double> const& sums() const { return m_sums; }
  std::vector<std::int64_t> const& counts() const { return m_counts; }
  void restore(std::vector<double> sums, std::vector<std::int64_t> counts) {
    EDDY_REQUIRE(sums.size() == m_sums.size() && counts.size() == m_counts.size(),
                 "VelocityAutocorrelation::restore: ", sums.size(), " sums and ", counts.size(),
                 " counts; expected ", m_sums.size(), " and ", m_counts.size());
    m_sums = std::move(sums);
    m_counts = std::move(counts);
  }

 private:
  std::size_t index(int lag, int j) const { return static_cast<std::size_t>(lag * m_values + j); }

  int m_lags, m_values;
  std::vector<double> m_sums;          ///< lag-major: lags x values
  std::vector<std::int64_t> m_counts;  ///< windows per lag
};

}  // namespace eddy::md
