/// @file RunFluids.hpp
/// @brief `eddy run` for a deck with a `fluids` section: the incompressible flow model.
#pragma once

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"

#include <string>

namespace eddy::app {

/// Builds the flow model from the deck's `fluids` section on `decomp`, runs `run.steps` steps
/// with a progress line every `run.progress_every` steps and a final line with the checksum,
/// continuing from the checkpoint `restart` (or the deck's run.restart) when given. Returns the
/// exit code; throws eddy::ConfigError for inconsistent settings.
int runFluids(Runtime const& rt, io::Deck const& deck, CartDecomposition const& decomp,
              std::string const& restart = std::string());

}  // namespace eddy::app
