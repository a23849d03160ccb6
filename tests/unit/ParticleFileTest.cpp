// Particle files (io/ParticleFile.hpp): CSV files written by hand as spreadsheets and numpy lay
// them out read as written, extended XYZ files through their reader, and files that cannot be
// read are refused with their line and what was expected.
#include "EddyTest.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/ParticleFile.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

using eddy::test::writtenFile;

TEST(ParticleFile, ACsvFileReadsAsWritten) {
  // Columns in any order, spaces around names and values, a column that is not read, a comment
  // line, a blank line and a Windows line end.
  std::string const path = writtenFile("particles.csv",
                                       "# seeded by hand\n"
                                       " id , x, y ,z, u,v,w, size\n"
                                       "7, 0.25, 0.5, 0.125, 1, -2, 3e-1, 9\r\n"
                                       "\n"
                                       "3,1e-3,0.75,0.5,0,0,0,9\n");
  auto const p = eddy::io::readParticleFile(path, 3);
  ASSERT_EQ(p.position.size(), 2u);
  EXPECT_EQ(p.position[0], (std::array<double, 3>{0.25, 0.5, 0.125}));
  EXPECT_EQ(p.position[1], (std::array<double, 3>{1e-3, 0.75, 0.5}));
  ASSERT_EQ(p.velocity.size(), 2u);
  EXPECT_EQ(p.velocity[0], (std::array<double, 3>{1.0, -2.0, 0.3}));
  EXPECT_EQ(p.id, (std::vector<long long>{7, 3}));
  // A 2D run skips z and w.
  auto const flat = eddy::io::readParticleFile(path, 2);
  EXPECT_EQ(flat.position[0], (std::array<double, 3>{0.25, 0.5, 0.0}));
  EXPECT_EQ(flat.velocity[0], (std::array<double, 3>{1.0, -2.0, 0.0}));
  std::remove(path.c_str());

  // Positions only: no velocities, no ids.
  std::string const bare = writtenFile("bare.csv", "x,y\n0.1,0.2\n0.3,0.4\n");
  auto const b = eddy::io::readParticleFile(bare, 2);
  std::remove(bare.c_str());
  EXPECT_EQ(b.position.size(), 2u);
  EXPECT_TRUE(b.velocity.empty());
  EXPECT_TRUE(b.id.empty());
}

TEST(ParticleFile, AnExtendedXyzFileGivesItsLastFrame) {
  std::string const path =
      writtenFile("particles.xyz",
                  "1\nLattice=\"1 0 0 0 1 0 0 0 1\" Properties=species:S:1:pos:R:3\nA 0 0 0\n"
                  "2\nLattice=\"1 0 0 0 1 0 0 0 1\" Properties=species:S:1:pos:R:3:velo:R:3\n"
                  "A 0.5 0.25 0.75 1 2 3\nA 0.1 0.2 0.3 0 0 0\n");
  auto const p = eddy::io::readParticleFile(path, 3);
  std::remove(path.c_str());
  ASSERT_EQ(p.position.size(), 2u);
  EXPECT_EQ(p.position[0], (std::array<double, 3>{0.5, 0.25, 0.75}));
  EXPECT_EQ(p.velocity[0], (std::array<double, 3>{1.0, 2.0, 3.0}));
  EXPECT_FALSE(eddy::io::isHdf5File(path));
}

TEST(ParticleFile, UnreadableFilesAreRefusedWithTheirLineAndWhatWasExpected) {
  struct Case {
    char const* text;
    int dims;
    char const* message;
  };
  Case const cases[] = {
      {"x,u,v\n0,0,0\n", 2, "line 1: the header 'x,u,v' has no column y; expected columns x and y"},
      {"x,y\n", 3, "line 1: the header 'x,y' has no column z; expected columns x, y and z"},
      {"x,y,z,u\n0,0,0,1\n", 3,
       "line 1: the header gives some velocity columns but not all; expected u, v and w"},
      {"x,y,x\n0,0,0\n", 2, "line 1: the header names column x twice"},
      {"x,y\n0.5,0.5\n0.1\n", 2, "line 3: 1 values; expected 2, one per column of the header"},
      {"x,y\n0.5,nan\n", 2, "line 2: column y: 'nan' is not a finite number"},
      {"x,y\n0.5,\n", 2, "line 2: column y: '' is not a finite number"},
      {"x,y,id\n0.5,0.5,-1\n", 2, "line 2: id '-1'; expected a whole number >= 0"},
      {"x,y,id\n0.5,0.5,2.5\n", 2, "line 2: id '2.5'; expected a whole number >= 0"},
      {"x,y,id\n0.5,0.5,4\n0.1,0.1,4\n", 2, "id 4 is given twice; expected each id once"},
      {"# nothing\n", 2, "no header; expected a header line naming the columns"},
      {"x,y\n", 2, "holds no particle; expected one or more"},
  };
  for (Case const& c : cases) {
    std::string const path = writtenFile("bad.csv", c.text);
    try {
      eddy::io::readParticleFile(path, c.dims);
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (eddy::IoError const& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << e.what() << "\nexpected: " << c.message;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
  }
  EXPECT_THROW(eddy::io::readParticleFile("/nonexistent/particles.csv", 3), eddy::IoError);
}

}  // namespace
