/// @file DeckSections.hpp
/// @brief The sections of deckSchema(), one function each. A model adds its section here (a
/// function returning Key::section(...)) and one line in deckSchema().
#pragma once

#include "eddy/io/Schema.hpp"

namespace eddy::io::sections {

Key run();          ///< run control: name, steps, output directory, progress, debug log
Key grid();         ///< the Cartesian grid: cells per direction (2D or 3D), lengths, periodicity
Key parallel();     ///< MPI decomposition and GPU-aware MPI
Key diffusion();    ///< the scalar diffusion model (optional section)
Key fluids();       ///< the incompressible Navier-Stokes model (optional section)
Key md();           ///< Lennard-Jones molecular dynamics (optional section)
Key diagnostics();  ///< diagnostics time series (CSV) of any model (optional section)
Key output();       ///< HDF5 snapshots + XDMF index (optional section)

}  // namespace eddy::io::sections
