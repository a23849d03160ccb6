/// @file ExtendedXyz.hpp
/// @brief Atom configurations in the extended XYZ format (as ASE, OVITO and QUIP write it;
/// https://github.com/libAtoms/extxyz).
///
/// A file is one or more frames, each a line with the number of atoms N, a comment line of
/// key=value pairs and N atom lines whose columns the Properties key names:
///
///     2
///     Lattice="10 0 0 0 10 0 0 0 10" Properties=species:S:1:pos:R:3:velo:R:3 pbc="T T T"
///     Ar 0.5 0.5 0.5  0.1 0 0
///     Ar 1.5 0.5 0.5 -0.1 0 0
///
/// Keys: Lattice (nine numbers: the cell vectors a, b, c; orthogonal, along x, y, z), Origin
/// (the box's low corner; default 0 0 0), pbc (must be periodic on every axis when given) and
/// Properties (name:type:columns triples, type S, R, I or L; default species:S:1:pos:R:3).
/// Columns read: species (S, 1; required), pos (R, 3; required), velo, vel or velocities (R, 3),
/// mass or masses (R, 1; one value per species) and id (I, 1; unique, >= 1; default 1 .. N in
/// file order); other columns are skipped. Values may be quoted ("...") or braced ({...}); a
/// word without = is a flag and ignored. Positions are kept as given, inside the box or not.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace eddy::io {

/// The last frame of an extended XYZ file. Atoms keep the file's order.
struct ExtendedXyz {
  long long frames = 0;                            ///< frames in the file
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};  ///< the box [lo, hi) along x, y, z
  std::vector<std::string> species;                ///< names, in order of first appearance
  std::vector<double> masses;                      ///< of species t at t; empty: not given
  std::vector<long long> id;                       ///< each atom's id
  std::vector<int> type;                           ///< each atom's index into species
  std::vector<std::array<double, 3>> position;
  std::vector<std::array<double, 3>> velocity;  ///< by atom; empty: no velocity column
};

/// Whether `path` names an extended XYZ file by its extension (.xyz or .extxyz, any case).
bool isExtendedXyzPath(std::string const& path);

/// Reads the last frame of the extended XYZ file at `path`. Throws eddy::IoError naming the path,
/// the line and what was expected: no such file or no frame; an atom count that is not a whole
/// number >= 1, or fewer atom lines than it counts; a comment line without Lattice, with a
/// Lattice of other than nine numbers, a cell that is not orthogonal or has an edge <= 0, an
/// Origin of other than three numbers, a pbc that is not periodic on every axis, or a quote or
/// brace left open; Properties that are not name:type:columns triples, lack species or pos, or
/// give a column read here another type or width; an atom line with fewer or more values than
/// the Properties have columns, a value that is not a finite number or a whole number; an id
/// given twice or < 1; masses that differ within a species or are not > 0.
ExtendedXyz readExtendedXyz(std::string const& path);

}  // namespace eddy::io
