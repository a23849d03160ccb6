// LAMMPS data files, atomic style (io/LammpsData.hpp): a file written by hand reads as written,
// a configuration written and read back is the same to the bit, and files that cannot be read
// are refused with their line and what was expected.
#include "EddyTest.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/LammpsData.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using eddy::io::LammpsData;
using eddy::test::tempPath;
using eddy::test::writtenFile;

// As LAMMPS' write_data lays a file out, with comments, Windows line ends on one line, image
// flags on one atom only and the atoms out of id order.
std::string const kHandWritten =
    "LAMMPS data file via write_data, a binary mixture\n"
    "\n"
    "3 atoms\n"
    "2 atom types   # A and B\n"
    "0 bonds\n"
    "-1.5 8.5 xlo xhi\n"
    "0.0 10.0 ylo yhi\r\n"
    "0.0 12.25 zlo zhi\n"
    "\n"
    "Masses\n"
    "\n"
    "1 1.0\n"
    "2 0.5   # B\n"
    "\n"
    "Pair Coeffs # lj/cut\n"
    "\n"
    "1 1.0 1.0\n"
    "2 0.5 0.88\n"
    "\n"
    "Atoms # atomic\n"
    "\n"
    "3 2 7.25 9.5 0.125 1 -2 0\n"
    "1 1 0.0 0.5 1e-3\n"
    "2 1 -1.0 2.5e+0 12.0 0 0 3\n"
    "\n"
    "Velocities\n"
    "\n"
    "1 0.1 -0.2 0.3\n"
    "3 -1 0 2\n"
    "2 0 0 0\n";

TEST(LammpsData, AHandWrittenFileReadsAsWritten) {
  std::string const path = writtenFile("hand.data", kHandWritten);
  LammpsData const d = eddy::io::readLammpsData(path);
  std::remove(path.c_str());
  EXPECT_EQ(d.title, "LAMMPS data file via write_data, a binary mixture");
  EXPECT_EQ(d.lo, (std::array<double, 3>{-1.5, 0.0, 0.0}));
  EXPECT_EQ(d.hi, (std::array<double, 3>{8.5, 10.0, 12.25}));
  EXPECT_EQ(d.types, 2);
  EXPECT_EQ(d.masses, (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(d.id, (std::vector<long long>{3, 1, 2}));
  EXPECT_EQ(d.type, (std::vector<int>{2, 1, 1}));
  ASSERT_EQ(d.position.size(), 3u);
  EXPECT_EQ(d.position[0], (std::array<double, 3>{7.25, 9.5, 0.125}));
  EXPECT_EQ(d.position[1], (std::array<double, 3>{0.0, 0.5, 1e-3}));
  EXPECT_EQ(d.position[2], (std::array<double, 3>{-1.0, 2.5, 12.0}));
  EXPECT_EQ(d.image[0], (std::array<int, 3>{1, -2, 0}));
  EXPECT_EQ(d.image[1], (std::array<int, 3>{0, 0, 0}));
  EXPECT_EQ(d.image[2], (std::array<int, 3>{0, 0, 3}));
  ASSERT_EQ(d.velocity.size(), 3u);  // by atom, in the Atoms section's order
  EXPECT_EQ(d.velocity[0], (std::array<double, 3>{-1.0, 0.0, 2.0}));
  EXPECT_EQ(d.velocity[1], (std::array<double, 3>{0.1, -0.2, 0.3}));
  EXPECT_EQ(d.velocity[2], (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(d.pairStyle, "lj/cut");
  EXPECT_FALSE(d.pairIJ);
  ASSERT_EQ(d.pairs.size(), 2u);
  EXPECT_EQ(d.pairs[1].i, 2);
  EXPECT_EQ(d.pairs[1].j, 2);
  EXPECT_EQ(d.pairs[1].values, (std::vector<double>{0.5, 0.88}));
}

// Every number survives writing and reading back: 17 significant digits.
TEST(LammpsData, WrittenAndReadBackIsTheSameToTheBit) {
  LammpsData d;
  d.title = "round trip";
  d.lo = {-0.1, 1.0 / 3.0, -1e-300};
  d.hi = {std::nextafter(10.0, 11.0), 7.0, 3e300};
  d.types = 3;
  d.masses = {39.948, 1.0 / 7.0, 6.02214076e23};
  d.pairIJ = true;
  d.pairStyle = "lj/cut";
  for (int i = 1; i <= 3; ++i)
    for (int j = i; j <= 3; ++j)
      d.pairs.push_back({i, j, {0.1 * i + 0.01 * j, std::sqrt(static_cast<double>(i * j)), 2.5}});
  for (int a = 0; a < 50; ++a) {
    d.id.push_back(1000 - 7 * a);
    d.type.push_back(1 + a % 3);
    d.position.push_back({std::sin(a) * 5, std::exp(-a) * 3, -0.0 + a / 3.0});
    d.image.push_back({a % 5 - 2, -(1 << 29) + a, a});
    d.velocity.push_back({std::cos(a), 1e-17 * a, -a / 11.0});
  }
  std::string const path = tempPath("round_trip.data");
  eddy::io::writeLammpsData(path, d);
  LammpsData const r = eddy::io::readLammpsData(path);
  std::remove(path.c_str());
  EXPECT_EQ(r.title, d.title);
  EXPECT_EQ(r.lo, d.lo);
  EXPECT_EQ(r.hi, d.hi);
  EXPECT_EQ(r.types, d.types);
  EXPECT_EQ(r.masses, d.masses);
  EXPECT_EQ(r.id, d.id);
  EXPECT_EQ(r.type, d.type);
  EXPECT_EQ(r.position, d.position);
  EXPECT_EQ(r.image, d.image);
  EXPECT_EQ(r.velocity, d.velocity);
  EXPECT_EQ(r.pairIJ, d.pairIJ);
  EXPECT_EQ(r.pairStyle, d.pairStyle);
  ASSERT_EQ(r.pairs.size(), d.pairs.size());
  for (std::size_t p = 0; p < d.pairs.size(); ++p) {
    EXPECT_EQ(r.pairs[p].i, d.pairs[p].i);
    EXPECT_EQ(r.pairs[p].j, d.pairs[p].j);
    EXPECT_EQ(r.pairs[p].values, d.pairs[p].values);
  }
}

TEST(LammpsData, NoSuchFileIsNamed) {
  try {
    eddy::io::readLammpsData(tempPath("no_such.data"));
    FAIL() << "read a file that does not exist";
  } catch (eddy::IoError const& e) {
    EXPECT_NE(std::string(e.what()).find("no_such.data"), std::string::npos) << e.what();
  }
}

// Each damaged file is refused with the line (where there is one) and the words that say why.
TEST(LammpsData, FilesItCannotReadAreRefusedAtTheirLine) {
  std::string const head = "t\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n";
  std::string const atoms = "\nAtoms\n\n1 1 0 0 0\n2 1 0.5 0.5 0.5\n";
  eddy::test::RefusedFiles const cases = {
      {"", {"is empty"}},
      {"t\n\n2 atoms\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n" + atoms, {"no 'N atom types'"}},
      {"t\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n" + atoms, {"no 'zlo zhi'"}},
      {"t\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n1 1 zlo zhi\n" + atoms,
       {"line 7", "lo < hi"}},
      {head + "0 0 0 xy xz yz\n" + atoms, {"line 8", "triclinic"}},
      {head + "4 bonds\n" + atoms, {"line 8", "0 bonds"}},
      {head + "2 ellipsoids\n" + atoms, {"line 8", "not a header line"}},
      {"t\n\n-2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n", {"line 3", ">= 0"}},
      {head + "\nBonds\n\n1 1 1 2\n", {"line 9", "'Bonds' is not read"}},
      {head + "\nAtoms # full\n\n1 1 1 0 0 0 0\n", {"line 9", "style atomic"}},
      {head + "\nAtoms\n1 1 0 0 0\n2 1 0.5 0.5 0.5\n", {"line 10", "blank line"}},
      {head + "\nAtoms\n\n1 1 0 0 0\n", {"ends after 1 of the 2"}},
      {head + "\nAtoms\n\n1 1 0 0 0\n\nVelocities\n\n1 0 0 0\n", {"line 13", "after 1 of the 2"}},
      {head + atoms + "3 1 0 0 0\n", {"line 13", "after the last section"}},
      {head + "\nAtoms\n\n1 1 0 0 0\n1 1 0.5 0.5 0.5\n", {"line 12", "second atom with id 1"}},
      {head + "\nAtoms\n\n1 1 0 0 0\n2 2 0.5 0.5 0.5\n", {"line 12", "atom type 2", "1 .. 1"}},
      {head + "\nAtoms\n\n1 1 0 0 0\n2 1 0.5 nan 0.5\n", {"line 12", "'nan' is not a finite"}},
      {head + "\nAtoms\n\n1 1 0 0 0\n2 1 0.5 0.5\n", {"line 12", "4 numbers", "id type x y z"}},
      {head + "\nAtoms\n\n1 1 0 0 0\n2.5 1 0.5 0.5 0.5\n", {"line 12", "not a whole number"}},
      {head + "\nMasses\n\n1 0\n" + atoms, {"line 11", "mass > 0"}},
      {"t\n\n2 atoms\n2 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\nMasses\n\n1 1\n1 "
       "2\n" +
           atoms,
       {"line 12", "second mass for type 1"}},
      {head + atoms + "\nAtoms\n\n1 1 0 0 0\n2 1 0 0 0\n", {"line 14", "second 'Atoms'"}},
      {head + atoms + "\nVelocities\n\n1 0 0 0\n7 0 0 0\n", {"line 17", "atom 7"}},
      {head + atoms + "\nVelocities\n\n1 0 0 0\n1 0 0 0\n", {"line 17", "second velocity"}},
      {head + "\nPair Coeffs\n\n1 1 1\n\nPairIJ Coeffs\n\n1 1 1 1\n" + atoms,
       {"line 13", "both Pair Coeffs and PairIJ Coeffs"}},
      {head, {"no 'Atoms' section"}},
  };
  eddy::test::expectRefused("bad.data", cases,
                            [](std::string const& p) { eddy::io::readLammpsData(p); });
}

}  // namespace
