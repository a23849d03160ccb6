/// @file DeckSections.hpp
/// @brief The sections of a deck that belong to no model: run control, the grid, the parallel
/// layout and the outputs. Each model declares its own section (app/ModelRegistry.cpp puts the
/// whole schema together, in the order run, grid, parallel, the models, diagnostics, output,
/// checkpoint).
#pragma once

#include "eddy/io/Schema.hpp"

namespace eddy::io::sections {

Key run();          ///< run control: name, steps, output directory, progress, debug log
Key grid();         ///< the Cartesian grid: cells per direction (2D or 3D), lengths, periodicity
Key parallel();     ///< MPI decomposition, transport and overlap
Key diagnostics();  ///< diagnostics time series (CSV) of any model (optional section)
Key output();       ///< HDF5 snapshots + XDMF index (optional section)
Key checkpoint();   ///< checkpoints for restarts (optional section)

}  // namespace eddy::io::sections
