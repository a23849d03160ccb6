/// @file PassFlags.hpp
/// @brief Flags that a kernel raises from any thread and every rank reads back with one
/// MPI_Allreduce, with no reduction pass: the kernel calls raise(k) only where flag k applies.
///
/// Each pass has a number; raising flag k is an atomic max of that number into mark k, so no
/// reset is needed between passes (a mark holding an earlier pass's number is not raised).
/// Reading them back copies the N marks into pinned host memory and waits for the space.
/// Used by the LJ step's displacement test (VerletList::DisplacementWatch, which rides in the
/// drift kernel) and by migration's wrap of the axes one rank spans.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"

#include <array>
#include <string>

namespace eddy {

template <class Exec, int N>
class PassFlags {
 public:
  using memory_space = typename Exec::memory_space;

  /// What the kernels of one pass raise flags through (copied into kernels).
  struct Raiser {
    Kokkos::View<unsigned long long*, memory_space> marks;
    unsigned long long pass;
    KOKKOS_INLINE_FUNCTION void raise(int k) const { Kokkos::atomic_fetch_max(&marks(k), pass); }
  };

  /// `label` names the marks' Views (e.g. eddy::neighbor::displacementMarks).
  explicit PassFlags(std::string const& label) : m_marks(label, N), m_host(label + "Host", N) {}

  /// The raiser of a new pass; the flags of earlier passes no longer count.
  Raiser next() const { return Raiser{m_marks, ++m_pass}; }

  /// Collective over `comm`: for each flag, whether some rank raised it in the pass of `r` (by
  /// kernels on `space`, which this waits for). `r` must be the last pass's raiser; `what` names
  /// the caller in an MPI error.
  std::array<bool, N> anyRank(Exec const& space, MPI_Comm comm, Raiser const& r,
                              char const* what) const {
    EDDY_REQUIRE(r.pass == m_pass, "PassFlags (", what, "): the raiser of pass ", r.pass,
                 " is not the last one (", m_pass, ")");
    Kokkos::deep_copy(space, m_host, m_marks);
    space.fence();
    int local[N], global[N];
    for (int k = 0; k < N; ++k) local[k] = m_host(k) == r.pass ? 1 : 0;
    checkMpi(MPI_Allreduce(local, global, N, MPI_INT, MPI_MAX, comm), what);
    std::array<bool, N> raised{};
    for (int k = 0; k < N; ++k) raised[k] = global[k] != 0;
    return raised;
  }

 private:
  mutable unsigned long long m_pass = 0;  ///< the last pass's number (marks start at 0)
  Kokkos::View<unsigned long long*, memory_space> m_marks;
  Kokkos::View<unsigned long long*, PinnedHostSpace> m_host;
};

}  // namespace eddy
