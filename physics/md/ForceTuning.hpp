/// @file ForceTuning.hpp
/// @brief Developer knobs of the Lennard-Jones forces (LennardJones.hpp), with a default per
/// backend.
///
/// Compile-time choices are static constexpr members; run-time fields start from the backend's
/// defaults, and fromEnvironment() overrides them with the EDDY_MD_ variables named at each
/// field (core's Environment.hpp, which refuses malformed values).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Environment.hpp"
#include "neighbor/VerletList.hpp"

#include <string>

namespace eddy::md {

template <class Exec>
struct ForceTuning {
  /// The list `md.neighbor: auto` takes. CUDA: full, since the half list's scatter-adds are
  /// atomics; host backends: half, which computes each pair once.
  static constexpr neighbor::ListKind kAutoList =
      compat::isCuda<Exec>() ? neighbor::ListKind::Full : neighbor::ListKind::Half;

  /// List entries a vector lane of the full-list forces takes at a time, their loads issued
  /// before their arithmetic: 1, 2, 4 or 8. 1 everywhere: on CUDA the one-type potential runs
  /// as fast at 1 as at 2 or 4, and a mixture, whose entries each read their pair's
  /// coefficients, fastest at 1 (at 4 it runs out of registers); host backends run a thread
  /// per row (ListTuning::kLanes), where it does not apply. Every value makes the same
  /// additions in the same order. EDDY_MD_FORCE_UNROLL.
  int entriesAtOnce = 1;

  /// The backend's defaults overridden by the EDDY_MD_ variables that are set. Throws
  /// eddy::ConfigError naming a variable whose value is malformed.
  static ForceTuning fromEnvironment() {
    ForceTuning t;
    t.entriesAtOnce = std::stoi(
        choiceFromEnvironment("EDDY_MD_FORCE_UNROLL", std::to_string(t.entriesAtOnce),
                              {"1", "2", "4", "8"}, "1, 2, 4 or 8 list entries at a time"));
    return t;
  }
};

}  // namespace eddy::md
