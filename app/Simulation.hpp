/// @file Simulation.hpp
/// @brief `eddy run`: turns a validated deck into a model run with progress lines, logs and a
/// timing summary.
#pragma once

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"

#include <string>

namespace eddy::app {

/// Runs the model the deck describes, continuing from the checkpoint `restart` (the `--restart`
/// option; empty: the deck's run.restart) when given. Returns the exit code.
int runDeck(Runtime const& rt, io::Deck const& deck, std::string const& restart = std::string());

/// Collective: creates `path` (and its parents) on rank 0 and makes every rank throw the same
/// eddy::IoError, naming the path and the system's reason, when that fails.
void createOutputDirectory(MPI_Comm comm, std::string const& path);

}  // namespace eddy::app
