/// @file ListTuning.hpp
/// @brief Developer knobs of the neighbour lists (BinList.hpp, VerletList.hpp) and the kernels
/// that walk them, with a default per backend. Every setting gives the same neighbours.
///
/// Compile-time choices are static constexpr members; run-time fields start from the backend's
/// defaults, and fromEnvironment() overrides them with the EDDY_LIST_ variables named at each
/// field (core's Environment.hpp, which refuses malformed values).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Environment.hpp"

#include <climits>

namespace eddy::neighbor {

template <class Exec>
struct ListTuning {
  /// Vector lanes per row of the kernels that walk a list (the full-list forces, the pair sums):
  /// CUDA 2, two lanes reading consecutive entries of a padded row together; host backends 1, a
  /// thread per row.
  static constexpr int kLanes = compat::isCuda<Exec>() ? 2 : 1;
  /// The padded build stores every candidate at the row's next place and advances only on
  /// neighbours, with no branch on the distance test (host backends: 40-60% of the candidates
  /// pass, so the branch mispredicts), else stores neighbours only, four at a time (CUDA: the
  /// extra stores cost more than the divergence).
  static constexpr bool kStoreEveryCandidate = !compat::isCuda<Exec>();

  /// Edge of the bins a list is built from, as a fraction of the list radius, 0.25 to 1. A row's
  /// candidates are the atoms of the bins its sphere's chords cross: about 2.5 times the
  /// sphere's volume at 0.5, 1.9 at 1/3 and 1.7 at 1/4 (more, shorter chords to visit instead),
  /// 4.9 at 1. EDDY_LIST_BIN_FRACTION.
  double binFraction = 0.5;
  /// Rows whose padded places would pass this many on one rank are built in two passes into
  /// packed (CSR) rows instead of one pass into padded rows (VerletList.hpp): the same rows.
  /// INT_MAX, beyond which an int no longer indexes a place; tests lower it to build packed rows.
  long long maxPaddedPlaces = INT_MAX;

  /// The backend's defaults overridden by the EDDY_LIST_ variables that are set. Throws
  /// eddy::ConfigError naming a variable whose value is malformed.
  static ListTuning fromEnvironment() {
    ListTuning t;
    t.binFraction =
        numberFromEnvironment("EDDY_LIST_BIN_FRACTION", t.binFraction, 0.25, 1.0,
                              "a number from 0.25 to 1 (the bin edge over the list radius)");
    return t;
  }
};

}  // namespace eddy::neighbor
