/// @file ParticleTuning.hpp
/// @brief Developer knobs of the particle cloud (Cloud.hpp). Every setting gives the same
/// trajectories: they change only the order of the rows.
///
/// Fields start from their defaults, and fromEnvironment() overrides them with the
/// EDDY_PARTICLES_ variables named at each field (core's Environment.hpp, which refuses
/// malformed values).
#pragma once

#include "eddy/core/Environment.hpp"

namespace eddy::particles {

struct ParticleTuning {
  /// Each rank reorders its particles by bins of four cells every this many steps (and after
  /// seeding and restarts), so that neighbouring threads gather neighbouring faces; 0: never.
  /// EDDY_PARTICLES_SORT_EVERY.
  int sortEvery = 10;

  /// The defaults overridden by the EDDY_PARTICLES_ variables that are set. Throws
  /// eddy::ConfigError naming a variable whose value is malformed.
  static ParticleTuning fromEnvironment() {
    ParticleTuning t;
    t.sortEvery = static_cast<int>(integerFromEnvironment(
        "EDDY_PARTICLES_SORT_EVERY", t.sortEvery, 0, 1000000,
        "an integer from 0 (never) to 1000000: steps between reorderings of the particles"));
    return t;
  }
};

}  // namespace eddy::particles
