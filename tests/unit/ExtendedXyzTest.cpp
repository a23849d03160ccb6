// Extended XYZ files (io/ExtendedXyz.hpp): a file written by hand, as ASE and OVITO lay one out,
// reads as written (its last frame), and files that cannot be read are refused with their line
// and what was expected.
#include "EddyTest.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/ExtendedXyz.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using eddy::test::tempPath;
using eddy::test::writtenFile;

// Two frames; the second has the species out of order, quoted and braced values with spaces, a
// flag, a column that is not read (forces), lowercase keys and a Windows line end.
std::string const kHandWritten =
    "2\n"
    "Lattice=\"5 0 0 0 5 0 0 0 5\" Properties=species:S:1:pos:R:3 Time=0.0\n"
    "A 0 0 0\n"
    "A 1 1 1\n"
    "3\n"
    "lattice=\"8.5 0.0 0.0 0.0 10 0 0 0 12.25\" Origin={-1.5 0 0} pbc=\"T T T\" "
    "Properties=species:S:1:pos:R:3:forces:R:3:velo:R:3:mass:R:1:id:I:1 "
    "comment=\"a \\\"quoted\\\" word\" is_relaxed energy=-3.5\r\n"
    "B 7.25 9.5 0.125   0 0 0   -1 0 2    0.5 3\n"
    "A 0.0 0.5 1e-3     1 2 3   0.1 -0.2 0.3  1.0 1\n"
    "A -1.0 2.5e+0 12.0 0 0 0   0 0 0     1.0 2\n";

TEST(ExtendedXyz, AHandWrittenFileReadsItsLastFrameAsWritten) {
  std::string const path = writtenFile("hand.xyz", kHandWritten);
  auto const x = eddy::io::readExtendedXyz(path);
  std::remove(path.c_str());
  EXPECT_EQ(x.frames, 2);
  EXPECT_EQ(x.lo, (std::array<double, 3>{-1.5, 0.0, 0.0}));
  EXPECT_EQ(x.hi, (std::array<double, 3>{7.0, 10.0, 12.25}));
  EXPECT_EQ(x.species, (std::vector<std::string>{"B", "A"}));
  EXPECT_EQ(x.masses, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(x.id, (std::vector<long long>{3, 1, 2}));
  EXPECT_EQ(x.type, (std::vector<int>{0, 1, 1}));
  ASSERT_EQ(x.position.size(), 3u);
  EXPECT_EQ(x.position[0], (std::array<double, 3>{7.25, 9.5, 0.125}));
  EXPECT_EQ(x.position[1], (std::array<double, 3>{0.0, 0.5, 1e-3}));
  EXPECT_EQ(x.position[2], (std::array<double, 3>{-1.0, 2.5, 12.0}));  // outside: kept
  ASSERT_EQ(x.velocity.size(), 3u);
  EXPECT_EQ(x.velocity[0], (std::array<double, 3>{-1.0, 0.0, 2.0}));
  EXPECT_EQ(x.velocity[1], (std::array<double, 3>{0.1, -0.2, 0.3}));
}

TEST(ExtendedXyz, WithoutPropertiesTheColumnsAreSpeciesAndPosition) {
  std::string const path =
      writtenFile("plain.xyz", "2\nLattice=\"3 0 0 0 4 0 0 0 5\"\nAr 0.5 1 1.5\nAr 2 2 2\n\n\n");
  auto const x = eddy::io::readExtendedXyz(path);
  std::remove(path.c_str());
  EXPECT_EQ(x.frames, 1);
  EXPECT_EQ(x.hi, (std::array<double, 3>{3.0, 4.0, 5.0}));
  EXPECT_EQ(x.species, std::vector<std::string>{"Ar"});
  EXPECT_EQ(x.id, (std::vector<long long>{1, 2}));
  EXPECT_TRUE(x.velocity.empty());
  EXPECT_TRUE(x.masses.empty());
}

TEST(ExtendedXyz, ItIsKnownByItsExtension) {
  EXPECT_TRUE(eddy::io::isExtendedXyzPath("start.xyz"));
  EXPECT_TRUE(eddy::io::isExtendedXyzPath("dir.v2/Start.EXTXYZ"));
  EXPECT_FALSE(eddy::io::isExtendedXyzPath("start.data"));
  EXPECT_FALSE(eddy::io::isExtendedXyzPath("dir.xyz/start"));
  EXPECT_FALSE(eddy::io::isExtendedXyzPath("xyz"));
}

TEST(ExtendedXyz, NoSuchFileIsNamed) {
  try {
    eddy::io::readExtendedXyz(tempPath("no_such.xyz"));
    FAIL() << "read a file that does not exist";
  } catch (eddy::IoError const& e) {
    EXPECT_NE(std::string(e.what()).find("no_such.xyz"), std::string::npos) << e.what();
  }
}

// Each damaged file is refused with the line and the words that say why.
TEST(ExtendedXyz, FilesItCannotReadAreRefusedAtTheirLine) {
  std::string const cell = "Lattice=\"4 0 0 0 4 0 0 0 4\"";
  std::string const two = "A 0 0 0\nA 1 1 1\n";
  eddy::test::RefusedFiles const cases = {
      {"", {"no frame"}},
      {"two\n" + cell + "\n" + two, {"line 1", "not a whole number"}},
      {"0\n" + cell + "\n", {"line 1", ">= 1"}},
      {"2 atoms\n" + cell + "\n" + two, {"line 1", "alone on its line"}},
      {"3\n" + cell + "\n" + two, {"line 1", "followed by 3 lines"}},
      {"2\n" + cell + "\n" + two + "\n2\n" + cell + "\n" + two, {"line 5", "blank line"}},
      {"2\nProperties=species:S:1:pos:R:3\n" + two, {"line 2", "no Lattice"}},
      {"2\nLattice=\"4 0 0 0 4 0 0 0\"\n" + two, {"line 2", "8 numbers", "nine"}},
      {"2\nLattice=\"4 0 0 1 4 0 0 0 4\"\n" + two, {"line 2", "not orthogonal", "triclinic"}},
      {"2\nLattice=\"4 0 0 0 -4 0 0 0 4\"\n" + two, {"line 2", "edge -4 along axis 1"}},
      {"2\nLattice=\"4 0 0 0 4 0 0 0 4\n" + two, {"line 2", "no closing \""}},
      {"2\n" + cell + " pbc=\"T T F\"\n" + two, {"line 2", "periodic on every axis"}},
      {"2\n" + cell + " Origin=\"0 0\"\n" + two, {"line 2", "Origin has 2 numbers"}},
      {"2\n" + cell + " Properties=species:S:1:pos:R\n" + two, {"line 2", "triples"}},
      {"2\n" + cell + " Properties=species:S:1:pos:X:3\n" + two, {"line 2", "triples"}},
      {"2\n" + cell + " Properties=pos:R:3\n0 0 0\n1 1 1\n", {"line 2", "without species"}},
      {"2\n" + cell + " Properties=species:S:1:pos:R:2\n" + two, {"line 2", "pos is R:2"}},
      {"2\n" + cell + "\nA 0 0 0\nA 1 1\n", {"line 4", "3 values", "4 (Properties="}},
      {"2\n" + cell + "\nA 0 0 0\nA 1 inf 1\n", {"line 4", "'inf' is not a finite number"}},
      {"2\n" + cell + " Properties=species:S:1:pos:R:3:id:I:1\nA 0 0 0 1\nA 1 1 1 1\n",
       {"line 4", "id 1 a second time"}},
      {"2\n" + cell + " Properties=species:S:1:pos:R:3:id:I:1\nA 0 0 0 1\nA 1 1 1 0\n",
       {"line 4", "id 0", ">= 1"}},
      {"2\n" + cell + " Properties=species:S:1:pos:R:3:mass:R:1\nA 0 0 0 1\nA 1 1 1 2\n",
       {"line 4", "mass 2 for species A (1 before)", "one mass > 0 per species"}},
      {"2\n" + cell + " Properties=species:S:1:pos:R:3:mass:R:1\nA 0 0 0 0\nB 1 1 1 2\n",
       {"line 3", "mass 0"}},
  };
  eddy::test::expectRefused("bad.xyz", cases,
                            [](std::string const& p) { eddy::io::readExtendedXyz(p); });
}

}  // namespace
