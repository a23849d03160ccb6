// md systems started from given atoms (md/Configuration.hpp) on 1 to 4 ranks: the pair energy,
// force and pressure tensor of two atoms across a periodic face against the Lennard-Jones
// formula, positions given anywhere wrapped into the box with their images counted, and the
// lattice handed in as a configuration continuing bit for bit as the lattice itself.
#include "EddyTest.hpp"
#include "MdTestUtil.hpp"

#include "md/System.hpp"

#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace {

using eddy::md::Configuration;
using eddy::md::Parameters;
using eddy::md::System;

template <class Exec>
class MdConfiguration : public ::testing::Test {};
TYPED_TEST_SUITE(MdConfiguration, eddy::test::ExecSpaces);

/// Every rank's owned atoms by id: position plus origin, image, force (all ranks get all).
struct Atom {
  std::array<double, 3> x, f;
  std::array<int, 3> image;
};
template <class Exec>
std::map<std::int64_t, Atom> allAtoms(System<Exec> const& s) {
  auto const a = s.atomState();
  std::vector<double> mine;
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    mine.push_back(static_cast<double>(a.id[i]));
    for (int d = 0; d < 3; ++d) mine.push_back(a.x[3 * i + d] + s.origin()[d]);
    for (int d = 0; d < 3; ++d) mine.push_back(a.f[3 * i + d]);
    for (int d = 0; d < 3; ++d) mine.push_back(a.image[3 * i + d]);
  }
  auto const all = eddy::test::allGatherDoubles(mine);
  std::map<std::int64_t, Atom> out;
  for (std::size_t k = 0; k < all.size(); k += 10) {
    Atom& atom = out[static_cast<std::int64_t>(all[k])];
    for (int d = 0; d < 3; ++d) {
      atom.x[d] = all[k + 1 + d];
      atom.f[d] = all[k + 4 + d];
      atom.image[d] = static_cast<int>(all[k + 7 + d]);
    }
  }
  return out;
}

/// A box of 9 x 9.5 x 10 from (-3, 2, 0.5), 3 cells per axis (each at least cutoff + skin = 2.8
/// wide, so 1 to 4 ranks can split it), with no velocities and `x` the positions.
Parameters boxOf(std::vector<double> const& x, std::vector<std::int32_t> const& image = {}) {
  auto c = std::make_shared<Configuration>();
  c->lo = {-3.0, 2.0, 0.5};
  c->length = {9.0, 9.5, 10.0};
  for (std::size_t i = 0; i < x.size() / 3; ++i) {
    c->id.push_back(static_cast<std::int64_t>(i) + 1);
    c->type.push_back(0);
  }
  c->x = x;
  c->image = image;
  Parameters p;
  p.cells = {3, 3, 3};
  p.temperature = 0.0;
  p.start = c;
  return p;
}

TYPED_TEST(MdConfiguration, TwoAtomsAcrossAPeriodicFaceFeelTheirPairForce) {
  using Exec = TypeParam;
  Exec space;
  // 0.4 above the low x face and 0.7 below the high one: 1.1 apart through the face.
  double const r = 1.1;
  System<Exec> s(space, MPI_COMM_WORLD, boxOf({-2.6, 6.0, 5.0, 5.3, 6.0, 5.0}));
  EXPECT_EQ(s.atoms(), 2);
  auto const d = s.diagnostics(space);
  double const u = 4.0 * (std::pow(r, -12) - std::pow(r, -6));
  double const force = 24.0 * (2.0 * std::pow(r, -13) - std::pow(r, -7));  // -dU/dr
  EXPECT_NEAR(d.potential, u, 1e-12 * std::fabs(u));
  EXPECT_NEAR(d.virial, r * force, 1e-12 * std::fabs(r * force));
  auto const atoms = allAtoms(s);
  ASSERT_EQ(atoms.size(), 2u);
  // Atom 1 is pushed away from atom 2's image below it (+x), atom 2 the other way.
  EXPECT_NEAR(atoms.at(1).f[0], force, 1e-12 * force);
  EXPECT_NEAR(atoms.at(2).f[0], -force, 1e-12 * force);
  for (int a = 1; a < 3; ++a) {
    EXPECT_EQ(atoms.at(1).f[a], 0.0);
    EXPECT_EQ(atoms.at(2).f[a], 0.0);
  }
  // The positions as given, in the frame of the box's corner.
  EXPECT_NEAR(atoms.at(1).x[0], -2.6, 1e-14);
  EXPECT_NEAR(atoms.at(2).x[0], 5.3, 1e-14);
}

TYPED_TEST(MdConfiguration, ThePressureTensorOfTwoMovingAtomsIsTheFormula) {
  using Exec = TypeParam;
  Exec space;
  // Atom 2's image across the x face is r = (0.6, 0.5, -0.7) from atom 1.
  Parameters p = boxOf({-2.7, 6.0, 5.0, 5.7, 5.5, 5.7});
  auto c = std::make_shared<Configuration>(*p.start);
  c->v = {0.3, -0.2, 0.1, -0.5, 0.4, 0.2};
  p.start = c;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  double const r[3] = {0.6, 0.5, -0.7};
  double const rsq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  double const forceOverR = 24.0 * (2.0 * std::pow(rsq, -7) - std::pow(rsq, -4));
  double const volume = 9.0 * 9.5 * 10.0;
  int const a[6] = {0, 1, 2, 0, 0, 1}, b[6] = {0, 1, 2, 1, 2, 2};
  auto const tensor = s.pressureTensor(space);
  for (int k = 0; k < 6; ++k) {
    double const kinetic = c->v[a[k]] * c->v[b[k]] + c->v[3 + a[k]] * c->v[3 + b[k]];
    double const expected = (kinetic + forceOverR * r[a[k]] * r[b[k]]) / volume;
    EXPECT_NEAR(tensor[k], expected, 1e-12 * std::fabs(expected)) << "component " << k;
  }
  double const trace = (tensor[0] + tensor[1] + tensor[2]) / 3.0;
  double const pressure = s.diagnostics(space).pressure;
  EXPECT_NEAR(trace, pressure, 1e-12 * std::fabs(pressure));
}

TYPED_TEST(MdConfiguration, PositionsAnywhereAreWrappedAndTheirImagesCounted) {
  using Exec = TypeParam;
  Exec space;
  // Inside, one and two boxes below, one and three above along different axes; given images.
  std::vector<double> const x = {0.0,  5.0, 3.0,       -14.5, 5.0,
                                 3.0,  7.9, 2.0 - 9.5, 3.0,   16.0,
                                 30.0, 3.0, 0.0,       5.0,   0.5 + 3 * 10.0 + 0.2};
  std::vector<std::int32_t> const image = {0, 0, 0, 2, 0, 0, -1, 5, 0, 0, 0, 1, 0, 0, -3};
  System<Exec> s(space, MPI_COMM_WORLD, boxOf(x, image));
  std::array<double, 3> const lo{-3.0, 2.0, 0.5}, length{9.0, 9.5, 10.0};
  auto const atoms = allAtoms(s);
  ASSERT_EQ(atoms.size(), 5u);
  for (auto const& [id, atom] : atoms)
    for (int d = 0; d < 3; ++d) {
      std::size_t const k = 3 * static_cast<std::size_t>(id - 1) + d;
      EXPECT_GE(atom.x[d], lo[d]) << "atom " << id << " axis " << d;
      EXPECT_LT(atom.x[d], lo[d] + length[d]) << "atom " << id << " axis " << d;
      // The same unwrapped position: the one given, to the rounding of the wraps.
      EXPECT_NEAR(atom.x[d] + atom.image[d] * length[d], x[k] + image[k] * length[d], 1e-12)
          << "atom " << id << " axis " << d;
    }
  EXPECT_EQ(atoms.at(2).image[0], 2 - 2);  // 1.3 boxes below the corner: two wraps up
  EXPECT_EQ(atoms.at(4).image[1], 0 + 2);  // 28 above the corner along y: two wraps down
}

/// The lattice's atoms, gathered from every rank, as a configuration (its positions,
/// velocities and images).
template <class Exec>
std::shared_ptr<Configuration> asConfiguration(System<Exec> const& s) {
  auto const a = s.atomState();
  std::vector<double> mine;
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    mine.push_back(static_cast<double>(a.id[i]));
    for (int d = 0; d < 3; ++d) mine.push_back(a.x[3 * i + d]);
    for (int d = 0; d < 3; ++d) mine.push_back(a.v[3 * i + d]);
  }
  auto const all = eddy::test::allGatherDoubles(mine);
  auto c = std::make_shared<Configuration>();
  c->length = s.domain().length;
  for (std::size_t k = 0; k < all.size(); k += 7) {
    c->id.push_back(static_cast<std::int64_t>(all[k]));
    c->type.push_back(0);
    c->x.insert(c->x.end(), &all[k + 1], &all[k + 4]);
    c->v.insert(c->v.end(), &all[k + 4], &all[k + 7]);
  }
  return c;
}

TYPED_TEST(MdConfiguration, TheLatticeGivenAsAConfigurationRunsTheSameTrajectory) {
  using Exec = TypeParam;
  Exec space;
  Parameters p;
  p.cells = {6, 6, 6};  // 864 atoms
  p.reproducible = true;
  System<Exec> lattice(space, MPI_COMM_WORLD, p);
  Parameters q = p;
  q.start = asConfiguration(lattice);
  q.temperature = 0.5;  // not used: the configuration's velocities are kept
  System<Exec> given(space, MPI_COMM_WORLD, q);
  EXPECT_EQ(given.atoms(), lattice.atoms());
  EXPECT_NEAR(given.parameters().density, p.density, 1e-12);
  auto const a = lattice.diagnostics(space), b = given.diagnostics(space);
  EXPECT_EQ(a.kinetic, b.kinetic);
  EXPECT_EQ(a.potential, b.potential);
  EXPECT_EQ(a.virial, b.virial);
  for (int k = 0; k < 100; ++k) {
    lattice.step(space);
    given.step(space);
  }
  EXPECT_EQ(lattice.checksum(space), given.checksum(space));
  EXPECT_EQ(lattice.diagnostics(space).total(), given.diagnostics(space).total());
}

TYPED_TEST(MdConfiguration, AnEmptyOrSmallBoxIsRefusedByItsKey) {
  using Exec = TypeParam;
  Exec space;
  Parameters empty = boxOf({});
  auto v = eddy::md::violations(empty);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].key, "md.data_file");
  EXPECT_NE(v[0].what.find("no atoms"), std::string::npos) << v[0].what;
  EXPECT_THROW(System<Exec>(space, MPI_COMM_WORLD, empty), eddy::ConfigError);

  auto small = std::make_shared<Configuration>(*boxOf({1.0, 3.0, 1.0}).start);
  small->length[1] = 5.0;  // less than twice cutoff + skin = 5.6
  Parameters p = boxOf({});
  p.start = small;
  v = eddy::md::violations(p);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].key, "md.data_file");
  EXPECT_NE(v[0].what.find("axis 1 is 5"), std::string::npos) << v[0].what;
}

}  // namespace
