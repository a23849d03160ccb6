// Solid bodies in the flow (immersed boundary, Bodies.hpp): the steady DFG benchmark 2D-1 of
// Schaefer & Turek (1996) at three resolutions, the drag converging on the benchmark's at better
// than first order; the faces a body forces; bodies and their forces bitwise the same on 1 to 4
// ranks with the body cut by rank boundaries; the checks of bad bodies; bodies from shape files
// and from triangulated surfaces.
#include "EddyTest.hpp"
#include "FluidsCases.hpp"
#include "StlWriter.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/ShapeFile.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <memory>
#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace {

using eddy::test::FlowCase;

/// The DFG channel (2.2 x 0.41, parabolic inflow of peak `peak`, nu 1e-3, convective outflow)
/// with the cylinder of diameter 0.1 at (0.2, 0.2); n cells across (5.366 n along, so that the
/// cells are square: n a multiple of 41).
FlowCase dfgChannel(int n, double peak) {
  FlowCase c = eddy::test::openChannel(n * 220 / 41, n, 2.2, peak,
                                       eddy::fluids::OutflowCondition::Convective);
  c.length = {2.2, 0.41, 1.0};
  c.params.viscosity = 1e-3;
  c.params.cfl = 0.8;
  c.params.poisson.method = eddy::fluids::PoissonMethod::Fft;
  c.params.poisson.tolerance = 1e-12;
  eddy::fluids::Body b;
  b.name = "cylinder";
  b.shape = eddy::fluids::BodyShape::Circle;
  b.center = {0.2, 0.2, 0.0};
  b.radius = 0.05;
  c.params.bodies.push_back(b);
  return c;
}

struct Coefficients {
  double drag = 0.0, lift = 0.0;
};

/// DFG 2D-1 (Re = U_mean D / nu = 20, U_mean = 0.2): the coefficients 2 F / (U_mean^2 D) at
/// t = end. The drag settles by t = 3; the lift, a five-hundredth of it, only once the start's
/// wake has left the channel (2.2 long, crossed at 0.2): it swings by 15% until t ~ 6. So with
/// `end` 10 both must hold steady over the last two units; with `end` 4, for a drag only, the
/// drag over the last one.
Coefficients dfg1(int n, double end = 10.0, eddy::fluids::Body const* replacement = nullptr) {
  FlowCase channel = dfgChannel(n, 0.3);
  if (replacement) channel.params.bodies[0] = *replacement;
  auto model = channel.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  double const scale = 0.5 * 0.2 * 0.2 * 0.1;
  bool const lift = end >= 10.0;
  double const settled = end - (lift ? 2.0 : 1.0);
  Coefficients before;
  while (model->time() < end) {
    model->step(space);
    if (before.drag == 0.0 && model->time() >= settled) {
      auto const& f = model->bodyForces(space)[0];
      before = {f.total[0] / scale, f.total[1] / scale};
    }
  }
  auto const& f = model->bodyForces(space)[0];
  Coefficients c{f.total[0] / scale, f.total[1] / scale};
  EXPECT_NEAR(c.drag, before.drag, (lift ? 1e-4 : 1e-3) * c.drag)
      << n << " cells across: not steady";
  if (lift) {
    EXPECT_NEAR(c.lift, before.lift, 5e-3 * c.lift) << n << " cells across: not steady";
  }
  // The parts add up (the pressure part is the total less the viscous one, which is positive
  // along the flow).
  EXPECT_GT(f.viscous[0], 0.0);
  EXPECT_GT(f.pressure[0], f.viscous[0]);
  return c;
}

// Schaefer & Turek (1996), Table 4 (tests/data/schaefer_turek1996_dfg.csv): c_D in [5.57, 5.59],
// c_L in [0.0104, 0.0110]. D/h = 10 and 20 here (the drag within 0.5% at 20, both errors falling
// faster than h^1.5); D/h = 40 in the slow test below.
TEST(FluidsBodies, DfgBenchmark2D1ConvergesOnTheBenchmarkDrag) {
  double const drag = 5.58, lift = 0.0107;
  Coefficients const c10 = dfg1(41), c20 = dfg1(82);
  double const e10 = std::fabs(c10.drag - drag), e20 = std::fabs(c20.drag - drag);
  double const l10 = std::fabs(c10.lift - lift), l20 = std::fabs(c20.lift - lift);
  std::printf(
      "DFG 2D-1, D/h = 10, 20: c_D %.5f %.5f, c_L %.5f %.5f; order %.2f (drag), %.2f (lift)\n",
      c10.drag, c20.drag, c10.lift, c20.lift, std::log2(e10 / e20), std::log2(l10 / l20));
  EXPECT_NEAR(c20.drag, drag, 0.005 * drag);
  EXPECT_NEAR(c20.lift, lift, 0.0012);
  EXPECT_GT(e10 / e20, std::pow(2.0, 1.5));
  EXPECT_GT(l10 / l20, std::pow(2.0, 1.5));
}

// On a CPU (about 2 min on one core). Measured: c_D 5.5812, c_L 0.010722 (c_L 0.01644 and
// 0.01152 at D/h 10 and 20: second order and more, onto the benchmark's 0.0106 to 0.0107).
TEST(FluidsBodies, DISABLED_DfgBenchmark2D1AtFortyCellsADiameter) {
  Coefficients const c40 = dfg1(164);
  std::printf("DFG 2D-1, D/h = 40: c_D %.5f, c_L %.5f\n", c40.drag, c40.lift);
  // Within the benchmark's intervals.
  EXPECT_GE(c40.drag, 5.57);
  EXPECT_LE(c40.drag, 5.59);
  EXPECT_GE(c40.lift, 0.0104);
  EXPECT_LE(c40.lift, 0.0110);
}

/// The DFG cylinder (D = 0.1 at (0.2, 0.2)) sampled on a box of 0.2 x 0.2 with the run's cells
/// of 0.41 / n, written to a shape file and read back: its signed distance, or its solid
/// fraction (by 16 x 16 points a cell).
eddy::io::ShapeSamples circleSamples(int n, bool fraction) {
  eddy::io::ShapeSamples s;
  s.fraction = fraction;
  s.dims = 2;
  double const h = 0.41 / n;
  int const m = static_cast<int>(std::lround(0.2 / h));
  s.n = {m, m, 1};
  s.spacing = {h, h, 0.0};
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      double const x = (i + 0.5 - 0.5 * m) * h, y = (j + 0.5 - 0.5 * m) * h;
      if (!fraction) {
        s.values.push_back(std::hypot(x, y) - 0.05);
        continue;
      }
      int inside = 0;
      for (int q = 0; q < 16; ++q)
        for (int p = 0; p < 16; ++p)
          inside += std::hypot(x + (p + 0.5 - 8) * h / 16, y + (q + 0.5 - 8) * h / 16) < 0.05;
      s.values.push_back(inside / 256.0);
    }
  return s;
}

eddy::fluids::Body fileBody(std::string const& path) {
  eddy::io::ShapeSamples r = eddy::io::readShapeFile(path);
  eddy::fluids::Body b;
  b.name = "cylinder";
  b.shape = eddy::fluids::BodyShape::File;
  b.file = path;
  b.center = {0.2, 0.2, 0.0};
  b.sampled = eddy::fluids::sampledShape(r.fraction, r.dims, r.n, r.spacing, std::move(r.values));
  return b;
}

using eddy::test::tempPath;

// A shape file: the DFG cylinder as its signed distance on the run's cells gives the drag of the
// analytic circle to 0.3% (the faces' distances are interpolated between cell centres, which
// moves the surface by O(h^2 / R)) and the benchmark's to 0.5%; as its solid fraction (the
// surface within a cell) the benchmark's to 1%.
// Its extent, the length of its coefficients, is the diameter to within a sample.
TEST(FluidsBodies, ACircleFromAShapeFileGivesTheBenchmarkDrag) {
  Coefficients const analytic = dfg1(82, 4.0);
  std::string const distancePath = tempPath("circle_distance.h5");
  std::string const fractionPath = tempPath("circle_fraction.h5");
  eddy::io::writeShapeFile(distancePath, circleSamples(82, false));
  eddy::io::writeShapeFile(fractionPath, circleSamples(82, true));
  eddy::fluids::Body const distance = fileBody(distancePath), fraction = fileBody(fractionPath);
  std::filesystem::remove(distancePath);
  std::filesystem::remove(fractionPath);
  EXPECT_NEAR(distance.extent(0), 0.1, 0.41 / 82 * 1.01);
  EXPECT_NEAR(distance.extent(1), 0.1, 0.41 / 82 * 1.01);
  Coefficients const fromDistance = dfg1(82, 4.0, &distance),
                     fromFraction = dfg1(82, 4.0, &fraction);
  std::printf("DFG 2D-1, D/h = 20: c_D analytic %.5f, distance file %.5f, fraction file %.5f\n",
              analytic.drag, fromDistance.drag, fromFraction.drag);
  EXPECT_NEAR(fromDistance.drag, analytic.drag, 3e-3 * analytic.drag);
  EXPECT_NEAR(fromDistance.drag, 5.58, 0.005 * 5.58);
  EXPECT_NEAR(fromFraction.drag, 5.58, 0.01 * 5.58);
}

// Shape files that cannot make a body: the reader's and the checks' messages.
TEST(FluidsBodies, BadShapeFilesAreRefused) {
  auto readError = [](std::string const& path) {
    try {
      eddy::io::readShapeFile(path);
    } catch (eddy::IoError const& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string const path = tempPath("bad_shape.h5");
  EXPECT_NE(readError(path).find("cannot be opened"), std::string::npos);
  eddy::io::ShapeSamples s = circleSamples(41, false);
  s.values[7] = std::nan("");
  eddy::io::writeShapeFile(path, s);
  EXPECT_NE(readError(path).find("at sample (7, 0)"), std::string::npos) << readError(path);
  s = circleSamples(41, true);
  s.values[3] = 1.5;
  eddy::io::writeShapeFile(path, s);
  EXPECT_NE(readError(path).find("expected a fraction in [0, 1]"), std::string::npos);

  auto refused = [&](eddy::io::ShapeSamples const& samples, std::string const& part) {
    eddy::io::writeShapeFile(path, samples);
    FlowCase c = dfgChannel(41, 0.3);
    c.params.bodies[0] = fileBody(path);
    std::vector<eddy::Violation> v;
    eddy::fluids::checkBodies(c.params.bodies, 2, {2.2, 0.41, 1.0},
                              {2.2 / 220, 0.41 / 41, 1.0}, {false, false, false}, v);
    ASSERT_EQ(v.size(), 1u) << part;
    EXPECT_EQ(v[0].key, "fluids.bodies.cylinder.file");
    EXPECT_NE(v[0].what.find(part), std::string::npos) << v[0].what;
  };
  s = circleSamples(41, false);
  for (double& v : s.values) v += 1.0;
  refused(s, "has no sample inside the body");
  s = circleSamples(41, false);
  for (double& v : s.values) v -= 0.06;  // a radius of 0.11 in a box of 0.2
  refused(s, "reach the edge of its samples' box");
  s = circleSamples(41, false);
  s.dims = 3;
  s.n[2] = 2;
  s.spacing[2] = 0.01;
  s.values.insert(s.values.end(), s.values.begin(), s.values.end());
  refused(s, "holds a 3D shape in a 2D run");
  std::filesystem::remove(path);
}

// DFG 2D-2 (Re 100), Schaefer & Turek (1996), Table 4: c_D max in [3.22, 3.24], c_L max in
// [0.99, 1.01], St in [0.295, 0.305]. From rest over t in [0, end]; from t = 2 the wake sheds
// and by t = 6 the amplitude is steady: the last 2 units (about 6 periods) are sampled each step.
struct Shedding {
  double dragMax = 0.0, liftMax = 0.0, strouhal = 0.0;
};

Shedding dfg2(int n, double end = 8.0) {
  auto model = dfgChannel(n, 1.5).make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  Shedding r;
  std::vector<std::array<double, 2>> lift;
  while (model->time() < end) {
    model->step(space);
    if (model->time() < end - 2.0) continue;
    auto const& f = model->bodyForces(space)[0];
    double const scale = 0.5 * 1.0 * 1.0 * 0.1;
    r.dragMax = std::max(r.dragMax, f.total[0] / scale);
    r.liftMax = std::max(r.liftMax, f.total[1] / scale);
    lift.push_back({model->time(), f.total[1] / scale});
  }
  int periods = 0;
  r.strouhal = eddy::fluids::signalFrequency(lift, periods) * 0.1 / 1.0;
  EXPECT_GE(periods, 2) << n;
  std::printf("DFG 2D-2, D/h = %d: c_D max %.4f, c_L max %.4f, St %.4f\n", n * 10 / 41,
              r.dragMax, r.liftMax, r.strouhal);
  return r;
}

// On a CPU (about 4 min on one core): D/h = 20 and 40, the Strouhal number within the
// benchmark's interval at 40 and the maxima closing on it at better than first order.
TEST(FluidsBodies, DISABLED_DfgBenchmark2D2SheddingConverges) {
  Shedding const s20 = dfg2(82), s40 = dfg2(164);
  EXPECT_GE(s40.strouhal, 0.295);
  EXPECT_LE(s40.strouhal, 0.305);
  EXPECT_GT((3.23 - s20.dragMax) / (3.23 - s40.dragMax), 2.0);
  EXPECT_GT((1.0 - s20.liftMax) / (1.0 - s40.liftMax), 2.0);
  EXPECT_GT(s40.dragMax, 3.18);
  EXPECT_GT(s40.liftMax, 0.9);
}

// On one GPU (a few minutes; D/h = 160 is 2.3M cells and 80k steps): D/h = 40, 80 and 160.
// At 160 the drag and lift maxima and St are within the benchmark's intervals; the two
// refinements give the order of c_D max, log2((c40 - c80) / (c80 - c160)), at least 1.5.
// Measured on an H100 at D/h = 40, 80, 160: c_D max 3.2023, 3.2238, 3.2272 (order 2.65), St
// 0.3024, 0.3019, 0.3018 within the intervals; c_L max 0.9369, 0.9777, 0.9850, which converge
// on about 0.987 and so stop short of 0.99: this test fails on that check. The lift's mean over
// a period, -0.017, is the same at every resolution, as with a zero-gradient outflow or half the
// time step; c_L max at D/h 40 moves by 2e-4 with half the time step and by 1e-6 with either
// outflow condition or a channel twice as long (at D/h 20).
TEST(FluidsBodies, DISABLED_DfgBenchmark2D2OnTheBenchmarkAt160CellsADiameter) {
  Shedding const s40 = dfg2(164), s80 = dfg2(328), s160 = dfg2(656);
  double const order = std::log2((s80.dragMax - s40.dragMax) / (s160.dragMax - s80.dragMax));
  std::printf("DFG 2D-2: order of c_D max %.2f\n", order);
  EXPECT_GE(s160.dragMax, 3.22);
  EXPECT_LE(s160.dragMax, 3.24);
  EXPECT_GE(s160.liftMax, 0.99);
  EXPECT_LE(s160.liftMax, 1.01);
  EXPECT_GE(s160.strouhal, 0.295);
  EXPECT_LE(s160.strouhal, 0.305);
  EXPECT_GE(order, 1.5);
}

// The faces a circle forces: inside it (set to 0), and the interface faces whose interpolation
// puts 0 on its surface. A staircase of solid faces alone is first order; the interface faces
// make it second.
TEST(FluidsBodies, ACircleForcesItsInsideAndItsInterface) {
  FlowCase c = dfgChannel(41, 0.3);
  auto model = c.make(MPI_COMM_SELF);
  auto const* ib = model->bodies();
  ASSERT_NE(ib, nullptr);
  // pi r^2 / h^2 = 78.5 faces inside for each component, plus a ring of about 2 pi r / h * 1.3.
  for (int comp = 0; comp < 2; ++comp) {
    EXPECT_GT(ib->forcedFaces(comp), 90u);
    EXPECT_LT(ib->forcedFaces(comp), 140u);
  }
  std::vector<double> const solid = ib->solidCells();
  double inside = 0;
  for (double s : solid) inside += s;
  EXPECT_NEAR(inside, 3.14159265 * 25.0, 6.0);
  // The flow goes round it: faster beside it than the inflow's mean (0.2), slower behind.
  eddy::ExecSpace space;
  for (int s = 0; s < 20; ++s) model->step(space);
  auto const U = model->gather(space, 0);
  auto const e = model->globalExtent(0);
  EXPECT_GT(U[20 + e[0] * 27], 0.25);  // the face at (0.2, 0.275), above the top at 0.25
  EXPECT_LT(U[27 + e[0] * 20], 0.05);  // at (0.27, 0.205), just behind it
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Three bodies (a circle, a rectangle and a circle from a shape file) in a channel with the
// inflow ramped up, cut by the rank boundaries of 2, 3 and 4 ranks: the fields and every force
// the same bits as on one rank.
TEST(FluidsBodies, BodiesAndTheirForcesAreTheSameOnAnyRankCount) {
  FlowCase c = dfgChannel(41, 1.5);
  c.cells = {88, 41, 1};
  c.length = {0.88, 0.41, 1.0};
  c.params.boundaries.at(0, 0).inflow.ramp = eddy::fluids::InflowRamp::Smooth;
  c.params.boundaries.at(0, 0).inflow.rampTime = 0.05;
  eddy::fluids::Body r;
  r.name = "post";
  r.shape = eddy::fluids::BodyShape::Rectangle;
  r.center = {0.5, 0.23, 0.0};
  r.size = {0.06, 0.1, 0.0};
  c.params.bodies.push_back(r);
  // A third from a shape file (a circle's solid fraction; each rank reads its own copy).
  std::string const path = tempPath("rank_circle.h5");
  eddy::io::writeShapeFile(path, circleSamples(41, true));
  c.params.bodies.push_back(fileBody(path));
  std::filesystem::remove(path);
  c.params.bodies.back().name = "sampled";
  c.params.bodies.back().center = {0.7, 0.2, 0.0};
  for (auto method : {eddy::fluids::PoissonMethod::Fft, eddy::fluids::PoissonMethod::MultigridCG}) {
    SCOPED_TRACE(eddy::fluids::toString(method));
    c.params.poisson.method = method;
    auto one = c.make(MPI_COMM_SELF);
    auto all = c.make(MPI_COMM_WORLD);
    eddy::ExecSpace space;
    for (int s = 0; s < 15; ++s) {
      one->step(space);
      all->step(space);
    }
    auto const d1 = one->diagnostics(space), dn = all->diagnostics(space);
    for (int f = 0; f < 4; ++f) EXPECT_TRUE(sameBits(d1.fieldChecksum[f], dn.fieldChecksum[f])) << f;
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a < 2; ++a) {
        EXPECT_TRUE(sameBits(one->bodyForces(space)[b].total[a], all->bodyForces(space)[b].total[a]))
            << "body " << b << " axis " << a;
        EXPECT_TRUE(
            sameBits(one->bodyForces(space)[b].viscous[a], all->bodyForces(space)[b].viscous[a]))
            << "body " << b << " axis " << a;
      }
    EXPECT_NE(one->bodyForces(space)[1].total[0], 0.0);
    EXPECT_NE(one->bodyForces(space)[2].total[0], 0.0);
  }
}

// The 3D shapes: a cylinder along the periodic z axis, a box and a sphere in a stream between slip
// walls, cut by the rank boundaries: the same bits on any rank count, and no force across a
// symmetry plane of the set-up (the cylinder's and the box's side force along z is round-off).
TEST(FluidsBodies, ThreeDimensionalBodiesAreTheSameOnAnyRankCount) {
  FlowCase c;
  c.dims = 3;
  c.cells = {48, 24, 16};
  c.length = {4.0, 2.0, 1.0};
  c.periodic = {false, false, true};
  eddy::test::wallsWherePeriodicIsOff(c);
  c.params.boundaries.at(0, 0).kind = eddy::fluids::BoundaryKind::Inflow;
  c.params.boundaries.at(0, 1).kind = eddy::fluids::BoundaryKind::Outflow;
  c.params.boundaries.at(1, 0).kind = eddy::fluids::BoundaryKind::SlipWall;
  c.params.boundaries.at(1, 1).kind = eddy::fluids::BoundaryKind::SlipWall;
  c.params.initial = eddy::fluids::InitialCondition::Uniform;
  c.params.uniformVelocity = {1.0, 0.0, 0.0};
  c.params.viscosity = 0.01;
  c.params.poisson.method = eddy::fluids::PoissonMethod::Fft;
  auto body = [](char const* name, eddy::fluids::BodyShape shape, std::array<double, 3> centre) {
    eddy::fluids::Body b;
    b.name = name;
    b.shape = shape;
    b.center = centre;
    b.radius = 0.25;
    b.size = {0.4, 0.4, 0.3};
    b.axis = 2;
    return b;
  };
  c.params.bodies = {body("pipe", eddy::fluids::BodyShape::Cylinder, {1.0, 1.0, 0.5}),
                     body("block", eddy::fluids::BodyShape::Box, {2.0, 1.0, 0.5}),
                     body("ball", eddy::fluids::BodyShape::Sphere, {3.0, 0.9, 0.5})};
  auto one = c.make(MPI_COMM_SELF);
  auto all = c.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  // 20 steps: past the start's transient, in which the forces of the impulsively started
  // bodies swing through zero.
  for (int s = 0; s < 20; ++s) {
    one->step(space);
    all->step(space);
  }
  auto const d1 = one->diagnostics(space), dn = all->diagnostics(space);
  for (int f = 0; f < 4; ++f) EXPECT_TRUE(sameBits(d1.fieldChecksum[f], dn.fieldChecksum[f])) << f;
  auto const& f1 = one->bodyForces(space);
  auto const& fn = all->bodyForces(space);
  for (int b = 0; b < 3; ++b) {
    for (int a = 0; a < 3; ++a) {
      EXPECT_TRUE(sameBits(f1[b].total[a], fn[b].total[a])) << "body " << b << " axis " << a;
      EXPECT_TRUE(sameBits(f1[b].viscous[a], fn[b].viscous[a])) << "body " << b << " axis " << a;
    }
    EXPECT_GT(f1[b].total[0], 0.0) << b;  // drag along the stream
  }
  // The cylinder and the box sit on the mid-plane z = 0.5: no side force beyond round-off.
  for (int b = 0; b < 2; ++b)
    EXPECT_LT(std::fabs(f1[b].total[2]), 1e-9 * f1[b].total[0]) << b;
}

// Bodies the flow cannot hold are refused with their key.
TEST(FluidsBodies, BadBodiesAreRefused) {
  auto violations = [](FlowCase const& c) {
    std::vector<eddy::Violation> out;
    eddy::fluids::FlowGrid g;
    g.dims = c.dims;
    for (int a = 0; a < 3; ++a) {
      g.periodic[a] = c.periodic[a];
      g.length[a] = c.length[a];
      g.spacing[a] = c.length[a] / c.cells[a];
    }
    return eddy::fluids::violations(c.params, g);
  };
  auto expectRefused = [&](FlowCase const& c, std::string const& key, std::string const& part) {
    auto const v = violations(c);
    ASSERT_FALSE(v.empty()) << key;
    EXPECT_EQ(v.front().key, key);
    EXPECT_NE(v.front().what.find(part), std::string::npos) << v.front().what;
  };
  FlowCase c = dfgChannel(41, 0.3);
  EXPECT_TRUE(violations(c).empty());
  FlowCase outside = c;
  outside.params.bodies[0].center = {0.02, 0.2, 0.0};
  expectRefused(outside, "fluids.bodies.cylinder.center", "across the low face");
  FlowCase close = c;
  close.params.bodies[0].center = {0.2, 0.08, 0.0};
  expectRefused(close, "fluids.bodies.cylinder.center", "closer than 4 cells");
  FlowCase sphere = c;
  sphere.params.bodies[0].shape = eddy::fluids::BodyShape::Sphere;
  expectRefused(sphere, "fluids.bodies.cylinder.shape", "'sphere' in a 2D run");
  FlowCase flat = c;
  flat.params.bodies[0].radius = 0.0;
  expectRefused(flat, "fluids.bodies.cylinder.radius", "is 0");
}

// A sphere as a triangulated surface (STL, 5120 facets) in a stream between slip walls, D/h = 8:
// the distance interpolated between samples at the run's cell size moves a surface of radius R
// inwards by up to h^2 / (8 R), and the facets lie up to 5e-4 inside the sphere: 1% of R here.
// The drag of the start, 20 steps in, scales between R^2 and R^3 (mostly the pressure of the
// accelerated fluid): the analytic sphere's to 3%; its solid cells the same to a shell's worth.
TEST(FluidsBodies, ASphereFromAnStlSurfaceGivesTheAnalyticSpheresDrag) {
  FlowCase c;
  c.dims = 3;
  c.cells = {64, 32, 32};
  c.length = {4.0, 2.0, 2.0};
  c.periodic = {false, false, false};
  eddy::test::wallsWherePeriodicIsOff(c);
  c.params.boundaries.at(0, 0).kind = eddy::fluids::BoundaryKind::Inflow;
  c.params.boundaries.at(0, 1).kind = eddy::fluids::BoundaryKind::Outflow;
  for (int a = 1; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      c.params.boundaries.at(a, side).kind = eddy::fluids::BoundaryKind::SlipWall;
  c.params.initial = eddy::fluids::InitialCondition::Uniform;
  c.params.uniformVelocity = {1.0, 0.0, 0.0};
  c.params.viscosity = 0.01;
  c.params.poisson.method = eddy::fluids::PoissonMethod::Fft;
  eddy::fluids::Body ball;
  ball.name = "ball";
  ball.shape = eddy::fluids::BodyShape::Sphere;
  ball.center = {1.5, 1.0, 1.0};
  ball.radius = 0.25;
  std::string const path = tempPath("ball.stl");
  ASSERT_TRUE(eddy::test::writeStl(path, eddy::test::icosphere(0.25, 4), true));
  eddy::io::ShapeSamples r = eddy::io::sampleSurfaceFile(path, 2.0 / 32);
  std::filesystem::remove(path);
  eddy::fluids::Body surface = ball;
  surface.shape = eddy::fluids::BodyShape::File;
  surface.file = path;
  surface.sampled = eddy::fluids::sampledShape(r.fraction, r.dims, r.n, r.spacing,
                                               std::move(r.values));
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(surface.extent(a), 0.5, 2.0 / 32) << a;

  auto run = [&](eddy::fluids::Body const& b, double& solid) {
    FlowCase k = c;
    k.params.bodies = {b};
    auto model = k.make(MPI_COMM_WORLD);
    eddy::ExecSpace space;
    for (int s = 0; s < 20; ++s) model->step(space);
    solid = 0.0;
    for (double v : model->bodies()->solidCells()) solid += v;
    double total = solid;
    MPI_Allreduce(&total, &solid, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return model->bodyForces(space)[0].total[0];
  };
  double solidAnalytic = 0.0, solidSurface = 0.0;
  double const analytic = run(ball, solidAnalytic), fromSurface = run(surface, solidSurface);
  std::printf("sphere D/h 8: drag analytic %.5f, STL %.5f; solid cells %.0f, %.0f\n", analytic,
              fromSurface, solidAnalytic, solidSurface);
  EXPECT_GT(analytic, 0.0);
  EXPECT_NEAR(fromSurface, analytic, 0.03 * analytic);
  // 4/3 pi (R/h)^3 = 268 cells.
  EXPECT_NEAR(solidSurface, 268.1, 0.05 * 268.1);
  EXPECT_NEAR(solidSurface, solidAnalytic, 0.03 * solidAnalytic);
}

}  // namespace
