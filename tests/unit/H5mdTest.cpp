// H5MD trajectories (io/H5md.hpp): a LAMMPS data file written by hand goes into H5MD and comes
// back the same to the bit; frames append and read back by index; what is not an H5MD file, or
// not a frame of one, is refused by name.
#include "EddyTest.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/H5md.hpp"
#include "eddy/io/LammpsData.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

using eddy::io::H5mdFrame;
using eddy::io::H5mdParticles;
using eddy::io::LammpsData;
using eddy::test::tempPath;

// A binary mixture as LAMMPS' write_data lays it out: unordered ids, image flags, velocities.
std::string const kData =
    "a binary mixture\n"
    "\n"
    "4 atoms\n"
    "2 atom types\n"
    "-1.5 8.5 xlo xhi\n"
    "0.0 10.0 ylo yhi\n"
    "0.1 12.35 zlo zhi\n"
    "\n"
    "Masses\n"
    "\n"
    "1 1.0\n"
    "2 0.3333333333333333\n"
    "\n"
    "Atoms # atomic\n"
    "\n"
    "3 2 7.25 9.5 0.125 1 -2 0\n"
    "1 1 0.0 0.5 1e-3 0 0 0\n"
    "7 1 -1.0 2.5e+0 12.0 0 0 3\n"
    "2 2 0.7071067811865476 3.141592653589793 2.718281828459045 -1 0 0\n"
    "\n"
    "Velocities\n"
    "\n"
    "1 0.1 -0.2 0.3\n"
    "3 -1 0 2\n"
    "7 0 0 0\n"
    "2 1e-17 -3.5e+2 0.333\n";

/// The configuration of `d` as H5MD particles and one frame.
std::pair<H5mdParticles, H5mdFrame> toH5md(LammpsData const& d) {
  H5mdParticles p;
  p.id = d.id;
  p.species = d.type;
  for (int t : d.type) p.mass.push_back(d.masses[t - 1]);
  p.velocities = !d.velocity.empty();
  H5mdFrame f;
  f.lower = d.lo;
  f.upper = d.hi;
  f.position = d.position;
  f.image = d.image;
  f.velocity = d.velocity;
  return {p, f};
}

/// Back: the masses by type from the particles'.
LammpsData fromH5md(H5mdParticles const& p, H5mdFrame const& f, int types) {
  LammpsData d;
  d.lo = f.lower;
  d.hi = f.upper;
  d.types = types;
  d.masses.assign(types, 0.0);
  for (std::size_t a = 0; a < p.id.size(); ++a) d.masses[p.species[a] - 1] = p.mass[a];
  d.id = p.id;
  d.type = p.species;
  d.position = f.position;
  d.image = f.image;
  d.velocity = f.velocity;
  return d;
}

TEST(H5md, ALammpsDataFileRoundTripsExactly) {
  std::string const dataPath = tempPath("mixture.data"), h5 = tempPath("mixture.h5md");
  std::ofstream(dataPath) << kData;
  LammpsData const d = eddy::io::readLammpsData(dataPath);
  {
    auto const [particles, frame] = toH5md(d);
    eddy::io::H5mdWriter w(h5, particles);
    w.append(frame);
  }
  long long frames = 0;
  H5mdParticles const p = eddy::io::readH5mdParticles(h5, frames);
  EXPECT_EQ(frames, 1);
  EXPECT_EQ(p.periodic, (std::array<bool, 3>{true, true, true}));
  LammpsData const back = fromH5md(p, eddy::io::readH5mdFrame(h5, 0), d.types);
  // And once more through the data file format.
  std::string const again = tempPath("again.data");
  eddy::io::writeLammpsData(again, back);
  LammpsData const r = eddy::io::readLammpsData(again);
  for (LammpsData const* x : {&back, &r}) {
    EXPECT_EQ(x->lo, d.lo);
    EXPECT_EQ(x->hi, d.hi);
    EXPECT_EQ(x->masses, d.masses);
    EXPECT_EQ(x->id, d.id);
    EXPECT_EQ(x->type, d.type);
    EXPECT_EQ(x->position, d.position);
    EXPECT_EQ(x->image, d.image);
    EXPECT_EQ(x->velocity, d.velocity);
  }
  for (auto const& path : {dataPath, h5, again}) std::remove(path.c_str());
}

// The layout other readers look for: /h5md version 1.1, the box's dimension and boundary, its
// edges as [frames][3][3], positions as [frames][N][3].
TEST(H5md, TheLayoutIsH5md) {
  std::string const h5 = tempPath("layout.h5md");
  H5mdParticles p;
  p.id = {1, 2};
  p.species = {1, 1};
  p.mass = {1.0, 1.0};
  p.periodic = {true, true, false};
  p.velocities = false;
  {
    eddy::io::H5mdWriter w(h5, p);
    for (long long s : {0, 10}) {
      H5mdFrame f;
      f.step = s;
      f.upper = {2.0, 3.0, 4.0};
      f.position = {{0.5, 0.5, 0.5}, {1.5, 2.5, 3.5}};
      f.image = {{0, 0, 0}, {0, 0, 0}};
      w.append(f);
    }
  }
  hid_t const file = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  int version[2] = {0, 0};
  hid_t const attr = H5Aopen_by_name(file, "/h5md", "version", H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(attr, 0);
  EXPECT_GE(H5Aread(attr, H5T_NATIVE_INT, version), 0);
  H5Aclose(attr);
  EXPECT_EQ(version[0], 1);
  EXPECT_EQ(version[1], 1);
  auto dims = [&](char const* name) {
    std::vector<hsize_t> d;
    hid_t const set = H5Dopen2(file, name, H5P_DEFAULT);
    if (set < 0) return d;
    hid_t const space = H5Dget_space(set);
    d.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, d.data(), nullptr);
    H5Sclose(space);
    H5Dclose(set);
    return d;
  };
  EXPECT_EQ(dims("/particles/trajectory/box/edges/value"), (std::vector<hsize_t>{2, 3, 3}));
  EXPECT_EQ(dims("/particles/trajectory/position/value"), (std::vector<hsize_t>{2, 2, 3}));
  EXPECT_EQ(dims("/particles/trajectory/position/step"), (std::vector<hsize_t>{2}));
  EXPECT_EQ(dims("/particles/trajectory/position/time"), (std::vector<hsize_t>{2}));
  EXPECT_EQ(dims("/particles/trajectory/species"), (std::vector<hsize_t>{2}));
  int dimension = 0;
  hid_t const dim =
      H5Aopen_by_name(file, "/particles/trajectory/box", "dimension", H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(dim, 0);
  EXPECT_GE(H5Aread(dim, H5T_NATIVE_INT, &dimension), 0);
  H5Aclose(dim);
  EXPECT_EQ(dimension, 3);
  H5Fclose(file);
  long long frames = 0;
  H5mdParticles const r = eddy::io::readH5mdParticles(h5, frames);
  EXPECT_EQ(frames, 2);
  EXPECT_EQ(r.periodic, p.periodic);
  EXPECT_FALSE(r.velocities);
  H5mdFrame const f = eddy::io::readH5mdFrame(h5, 1);
  EXPECT_EQ(f.step, 10);
  EXPECT_EQ(f.upper, (std::array<double, 3>{2.0, 3.0, 4.0}));
  EXPECT_TRUE(f.velocity.empty());
  std::remove(h5.c_str());
}

TEST(H5md, FramesAppendInOrderOfStep) {
  std::string const h5 = tempPath("order.h5md");
  H5mdParticles p;
  p.id = {5};
  p.species = {1};
  p.mass = {2.0};
  eddy::io::H5mdWriter w(h5, p);
  H5mdFrame f;
  f.upper = {1, 1, 1};
  f.position = {{0.25, 0.5, 0.75}};
  f.image = {{0, 0, 0}};
  f.velocity = {{1, 2, 3}};
  for (long long s : {100, 200, 300}) {
    f.step = s;
    f.time = 0.005 * s;
    f.position[0][0] = 0.001 * s;
    w.append(f);
  }
  EXPECT_EQ(w.frames(), 3);
  f.step = 300;
  EXPECT_THROW(w.append(f), eddy::Error);
  f.step = 400;
  f.position.clear();
  EXPECT_THROW(w.append(f), eddy::Error);
  H5mdFrame const r = eddy::io::readH5mdFrame(h5, 1);
  EXPECT_EQ(r.step, 200);
  EXPECT_EQ(r.time, 0.005 * 200);
  EXPECT_EQ(r.position[0][0], 0.001 * 200);
  EXPECT_EQ(r.velocity[0], (std::array<double, 3>{1, 2, 3}));
  std::remove(h5.c_str());
}

TEST(H5md, AResumedTrajectoryDropsTheFramesAfterItsStepAndGoesOn) {
  std::string const h5 = tempPath("resume.h5md");
  H5mdParticles p;
  p.id = {3, 7};
  p.species = {0, 1};
  p.mass = {1.0, 1.0};
  H5mdFrame f;
  f.upper = {2, 2, 2};
  f.position = {{0.5, 0.5, 0.5}, {1.5, 1.5, 1.5}};
  f.image = {{0, 0, 0}, {1, -1, 0}};
  f.velocity = {{1, 0, 0}, {0, 1, 0}};
  {
    eddy::io::H5mdWriter w(h5, p);
    for (long long s : {10, 20, 30, 40}) {
      f.step = s;
      f.position[0][0] = 0.01 * s;
      w.append(f);
    }
  }
  {
    // A restart from step 20: the frames of 30 and 40 go, the next frame follows 20.
    eddy::io::H5mdWriter w(h5, p, 20);
    EXPECT_EQ(w.frames(), 2);
    f.step = 20;
    EXPECT_THROW(w.append(f), eddy::Error);
    f.step = 30;
    f.position[0][0] = -1.0;
    w.append(f);
    EXPECT_EQ(w.frames(), 3);
  }
  long long frames = 0;
  (void)eddy::io::readH5mdParticles(h5, frames);
  EXPECT_EQ(frames, 3);
  EXPECT_EQ(eddy::io::readH5mdFrame(h5, 1).position[0][0], 0.01 * 20);
  H5mdFrame const r = eddy::io::readH5mdFrame(h5, 2);
  EXPECT_EQ(r.step, 30);
  EXPECT_EQ(r.position[0][0], -1.0);
  EXPECT_EQ(r.image[1], (std::array<int, 3>{1, -1, 0}));
  // Other particles, or no velocities where the file has them: refused, the file untouched.
  H5mdParticles other = p;
  other.id = {7, 3};
  EXPECT_THROW(eddy::io::H5mdWriter(h5, other, 30), eddy::IoError);
  other = p;
  other.velocities = false;
  EXPECT_THROW(eddy::io::H5mdWriter(h5, other, 30), eddy::IoError);
  (void)eddy::io::readH5mdParticles(h5, frames);
  EXPECT_EQ(frames, 3);
  std::remove(h5.c_str());
}

std::string errorOf(std::string const& path, long long frame) {
  try {
    eddy::io::readH5mdFrame(path, frame);
  } catch (eddy::IoError const& e) {
    return e.what();
  }
  return "";
}

TEST(H5md, WhatIsNotAFrameOfAnH5mdFileIsRefused) {
  EXPECT_NE(errorOf(tempPath("none.h5md"), 0).find("cannot be opened"), std::string::npos);
  std::string const text = tempPath("text.h5md");
  std::ofstream(text) << "not HDF5\n";
  EXPECT_NE(errorOf(text, 0).find("is not an HDF5 file"), std::string::npos);
  std::string const plain = tempPath("plain.h5");
  H5Fclose(H5Fcreate(plain.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  EXPECT_NE(errorOf(plain, 0).find("no /h5md group"), std::string::npos);
  std::string const h5 = tempPath("one.h5md");
  H5mdParticles p;
  p.id = {1};
  p.species = {1};
  p.mass = {1.0};
  p.velocities = false;
  {
    eddy::io::H5mdWriter w(h5, p);
    H5mdFrame f;
    f.upper = {1, 1, 1};
    f.position = {{0.5, 0.5, 0.5}};
    f.image = {{0, 0, 0}};
    w.append(f);
  }
  EXPECT_NE(errorOf(h5, 1).find("has 1 frames; frame 1"), std::string::npos) << errorOf(h5, 1);
  EXPECT_NE(errorOf(h5, -1).find("frame -1"), std::string::npos);
  for (auto const& path : {text, plain, h5}) std::remove(path.c_str());
}

}  // namespace
