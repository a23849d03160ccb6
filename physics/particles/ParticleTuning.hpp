/// @file ParticleTuning.hpp
/// @brief Developer knobs of the particle cloud (Cloud.hpp) and its two-way coupling
/// (MomentumExchange.hpp). Every setting gives the same bits: they change only the order of the
/// rows and of integer additions.
///
/// Fields start from their defaults, and fromEnvironment() overrides them with the
/// EDDY_PARTICLES_ variables named at each field (core's Environment.hpp, which refuses
/// malformed values).
#pragma once

#include "eddy/core/Environment.hpp"

namespace eddy::particles {

/// How the two-way coupling sums the particles' shares onto the faces (MomentumExchange.hpp).
enum class Deposit {
  Atomic,  ///< each particle adds its shares to the faces atomically
  Gather,  ///< each face adds up the shares of the particles in the cells around it
};

struct ParticleTuning {
  /// Each rank reorders its particles by bins of four cells every this many steps (and after
  /// seeding and restarts), so that neighbouring threads gather neighbouring faces; 0: never.
  /// EDDY_PARTICLES_SORT_EVERY.
  int sortEvery = 10;
  /// The deposit of the drag impulses. Atomic on every backend; Gather writes each face once
  /// instead of adding to it, for loadings of about one share a face, where each atomic add is a
  /// memory transaction of its own (on host backends it is slower: a face visits 27 cells).
  /// EDDY_PARTICLES_DEPOSIT=atomic|gather.
  Deposit deposit = Deposit::Atomic;

  /// The defaults overridden by the EDDY_PARTICLES_ variables that are set. Throws
  /// eddy::ConfigError naming a variable whose value is malformed.
  static ParticleTuning fromEnvironment() {
    ParticleTuning t;
    t.sortEvery = static_cast<int>(integerFromEnvironment(
        "EDDY_PARTICLES_SORT_EVERY", t.sortEvery, 0, 1000000,
        "an integer from 0 (never) to 1000000: steps between reorderings of the particles"));
    t.deposit = choiceFromEnvironment("EDDY_PARTICLES_DEPOSIT",
                                      t.deposit == Deposit::Gather ? "gather" : "atomic",
                                      {"atomic", "gather"},
                                      "how the drag impulses are summed onto the faces") == "gather"
                    ? Deposit::Gather
                    : Deposit::Atomic;
    return t;
  }
};

}  // namespace eddy::particles
