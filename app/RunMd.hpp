/// @file RunMd.hpp
/// @brief `eddy run` of a deck with an `md` section: the Lennard-Jones model with progress lines.
#pragma once

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Deck.hpp"

#include <string>

namespace eddy::app {

/// Runs the md section of `deck` (grid.cells = lattice cells), continuing from the checkpoint
/// `restart` (or the deck's run.restart) when given. Returns the exit code.
int runMd(Runtime const& rt, io::Deck const& deck, std::string const& restart = std::string());

}  // namespace eddy::app
