/// @file LammpsData.hpp
/// @brief Atom configurations in the LAMMPS data file format, atomic style (the format of
/// LAMMPS' read_data and write_data, https://docs.lammps.org/read_data.html).
///
/// A file is a title line, a header (counts and box bounds, one per line) and sections, each a
/// keyword line, a blank line and one line per entry:
///
///     LAMMPS data file: 2 atoms
///
///     2 atoms
///     1 atom types
///     0.0 10.0 xlo xhi
///     0.0 10.0 ylo yhi
///     0.0 10.0 zlo zhi
///
///     Masses
///
///     1 1.0
///
///     Atoms # atomic
///
///     1 1 0.5 0.5 0.5 0 0 0
///     2 1 1.5 0.5 0.5 0 0 0
///
/// Header: `N atoms`, `N atom types`, `lo hi xlo xhi` (and y, z); counts of bonds, angles,
/// dihedrals, impropers and their types are allowed when 0. Sections: Masses (`type mass`),
/// Atoms (`id type x y z`, optionally followed by the image flags `ix iy iz`; a style comment
/// after the keyword must say atomic), Velocities (`id vx vy vz`), Pair Coeffs (`type values...`)
/// and PairIJ Coeffs (`i j values...`). `#` starts a comment anywhere. Positions are kept as
/// given, inside the box or not: the run wraps them into a periodic box, counting the images.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace eddy::io {

/// The coefficients of one pair style line: types i and j (j = i for Pair Coeffs) and the
/// numbers that follow (for lj/cut: epsilon, sigma[, cutoff]).
struct PairCoefficients {
  int i = 0, j = 0;
  std::vector<double> values;
};

/// The contents of a data file. Atoms keep the file's order.
struct LammpsData {
  std::string title;                               ///< the first line
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};  ///< the box [lo, hi) along x, y, z
  int types = 0;                                   ///< atom types 1 .. types
  std::vector<double> masses;                      ///< of type t at t - 1; empty: no Masses section
  std::vector<long long> id;                       ///< each atom's id (unique, >= 1)
  std::vector<int> type;
  std::vector<std::array<double, 3>> position;
  std::vector<std::array<int, 3>> image;        ///< 0 where the file gives no image flags
  std::vector<std::array<double, 3>> velocity;  ///< by atom; empty: no Velocities section
  std::vector<PairCoefficients> pairs;          ///< the Pair Coeffs or PairIJ Coeffs lines
  bool pairIJ = false;                          ///< pairs are PairIJ Coeffs
  /// The pair style the Pair Coeffs or PairIJ Coeffs keyword names in a comment (`lj/cut`), if
  /// it names one.
  std::string pairStyle;
};

/// Reads the data file at `path`. Throws eddy::IoError naming the path, the line and what was
/// expected: no such file; a header line that is not a count or bounds it knows, a count that
/// is not a whole number >= 0 (atoms) or >= 1 (atom types), bonds or other topology (not
/// atomic style); bounds with lo >= hi or missing; a triclinic box (tilt factors); a section it
/// does not read, one given twice (or both pair sections), or one without the line after the
/// keyword left blank; an entry with too
/// few or too many numbers, or one that is not a finite number or a whole number; fewer or more
/// entries than the header counts; an atom id given twice or < 1; a type outside 1 .. types;
/// a mass that is not > 0, or a type without one; a velocity for an atom that does not exist,
/// or an atom without one.
LammpsData readLammpsData(std::string const& path);

/// Writes `d` to `path` in that format, every number exactly (17 significant digits), so that
/// reading it back gives `d` again. Throws eddy::IoError when the file cannot be written.
void writeLammpsData(std::string const& path, LammpsData const& d);

}  // namespace eddy::io
