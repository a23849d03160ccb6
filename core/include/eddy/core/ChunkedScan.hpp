/// @file ChunkedScan.hpp
/// @brief Exclusive prefix sums over [0, n) in two launches of a team per chunk of rows: the
/// index compaction and offset scans of the particle code (ghost and migration lists, bin and
/// Verlet offsets).
///
/// `sum` has each team add its chunk's terms; `store` has each team add the sums of the chunks
/// before its own (from the first pass), each thread scan a run of the chunk, and one scan over
/// the team's threads place the runs, handing every index its prefix. Both passes evaluate the
/// terms, so a term should be cheap to compute again. Against Kokkos' range scan (a count pass,
/// then two launches), two launches in all; team size ReductionTuning::kScanTeamSize.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Tuning.hpp"

#include <cstdint>
#include <string>

namespace eddy {

template <class Exec = ExecSpace>
class ChunkedScan {
 public:
  using memory_space = typename Exec::memory_space;
  /// Indices a team takes.
  static constexpr int kRows = 2048;

  /// First pass over term(i), i in [0, n) (std::int64_t values): the sum of each chunk. With
  /// `total`, returns the sum of all (waiting for it); else 0, without waiting.
  template <class Term>
  std::int64_t sum(Exec const& space, int n, Term const& term, bool total) {
    EDDY_REQUIRE(n >= 0, "ChunkedScan: ", n, " terms; expected n >= 0");
    m_n = n;
    int const teams = chunks(n);
    if (teams == 0) return 0;
    if (static_cast<int>(m_sums.extent(0)) < teams)
      m_sums = Kokkos::View<std::int64_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("eddy::scan::chunkSums")),
          teams + teams / 4 + 16);
    auto const sums = m_sums;
    using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
    auto const chunkSum = KOKKOS_LAMBDA(Member const& m) {
      int const begin = m.league_rank() * kRows;
      int const end = n - begin < kRows ? n : begin + kRows;
      std::int64_t part = 0;
      auto const rows = Kokkos::TeamThreadRange(m, begin, end);  // nested: no label
      Kokkos::parallel_reduce(
          rows, [&](const int i, std::int64_t& s) { s += static_cast<std::int64_t>(term(i)); },
          part);
      return part;
    };
    auto const policy = teamPolicy(space, teams);
    if (!total) {
      Kokkos::parallel_for(
          "eddy::scan::chunkSums", policy, KOKKOS_LAMBDA(Member const& m) {
            std::int64_t const part = chunkSum(m);
            Kokkos::single(Kokkos::PerTeam(m), [&] { sums(m.league_rank()) = part; });
          });
      return 0;
    }
    std::int64_t all = 0;
    Kokkos::parallel_reduce(
        "eddy::scan::chunkSums", policy,
        KOKKOS_LAMBDA(Member const& m, std::int64_t& s) {
          std::int64_t const part = chunkSum(m);
          Kokkos::single(Kokkos::PerTeam(m), [&] {
            sums(m.league_rank()) = part;
            s += part;
          });
        },
        all);
    return all;
  }

  /// Second pass, after `sum` with the same n and terms: put(i, prefix) for every i in [0, n),
  /// prefix the sum of term(k) for k < i. term(i) is read before put(i, ...) is called, so
  /// `put` may overwrite what `term` reads at i (an in-place scan).
  template <class Term, class Put>
  void store(Exec const& space, int n, Term const& term, Put const& put) const {
    EDDY_REQUIRE(n == m_n, "ChunkedScan::store: ", n, " terms, but the chunk sums are of ", m_n,
                 "; expected sum with the same terms first");
    int const teams = chunks(n);
    if (teams == 0) return;
    auto const sums = m_sums;
    using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
    Kokkos::parallel_for(
        "eddy::scan::chunkStore", teamPolicy(space, teams), KOKKOS_LAMBDA(Member const& m) {
          int const c = m.league_rank();
          std::int64_t before = 0;
          auto const earlier = Kokkos::TeamThreadRange(m, 0, c);  // nested loops: no labels
          Kokkos::parallel_reduce(
              earlier, [&](const int k, std::int64_t& s) { s += sums(k); }, before);
          // Each thread takes a run of the chunk; one scan over the team's threads places the
          // runs (Kokkos' scan over a TeamThreadRange scans the team once per team-size rows).
          int const begin = c * kRows;
          int const end = n - begin < kRows ? n : begin + kRows;
          int const size = m.team_size();
          int const run = (end - begin + size - 1) / size;
          int const lo = begin + m.team_rank() * run;
          int const hi = end - lo < run ? end : lo + run;
          std::int64_t mine = 0;
          for (int i = lo; i < hi; ++i) mine += static_cast<std::int64_t>(term(i));
          std::int64_t at = before + m.team_scan(mine);
          for (int i = lo; i < hi; ++i) {
            auto const v = static_cast<std::int64_t>(term(i));
            put(i, at);
            at += v;
          }
        });
  }

 private:
  static int chunks(int n) { return n > 0 ? (n - 1) / kRows + 1 : 0; }
  /// A team per chunk, of ReductionTuning::kScanTeamSize threads (0: Kokkos' choice).
  static Kokkos::TeamPolicy<Exec> teamPolicy(Exec const& space, int teams) {
    int const size = ReductionTuning<Exec>::kScanTeamSize;
    if (size > 0) return Kokkos::TeamPolicy<Exec>(space, teams, size);
    return Kokkos::TeamPolicy<Exec>(space, teams, Kokkos::AUTO);
  }

  int m_n = 0;
  Kokkos::View<std::int64_t*, memory_space> m_sums;
};

}  // namespace eddy
