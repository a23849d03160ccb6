// The flow model's adapter: its deck section, the deck read into fluids::Parameters, and the
// incompressible flow as `eddy run` drives it (physics/fluids holds the model itself).
#include "../DeckChoice.hpp"
#include "../Format.hpp"
#include "../Model.hpp"
#include "../SnapshotOutput.hpp"
#include "CarryingFlow.hpp"
#include "particles/MacInterpolation.hpp"

#include "eddy/core/FieldHost.hpp"
#include "eddy/io/ShapeFile.hpp"
#include "fluids/FftPoisson.hpp"
#include "fluids/NavierStokes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace eddy::app {

namespace {

using io::Key;

constexpr Choice<fluids::InitialCondition> kInitial[] = {
    {"rest", fluids::InitialCondition::Rest},
    {"taylor_green", fluids::InitialCondition::TaylorGreen},
    {"poiseuille", fluids::InitialCondition::Poiseuille},
    {"uniform", fluids::InitialCondition::Uniform}};
constexpr Choice<fluids::BoundaryKind> kBoundary[] = {
    {"periodic", fluids::BoundaryKind::Periodic},
    {"wall", fluids::BoundaryKind::Wall},
    {"moving_wall", fluids::BoundaryKind::MovingWall},
    {"slip_wall", fluids::BoundaryKind::SlipWall},
    {"inflow", fluids::BoundaryKind::Inflow},
    {"outflow", fluids::BoundaryKind::Outflow}};
constexpr Choice<fluids::InflowProfile> kProfile[] = {
    {"uniform", fluids::InflowProfile::Uniform}, {"parabolic", fluids::InflowProfile::Parabolic}};
constexpr Choice<fluids::InflowRamp> kRamp[] = {{"none", fluids::InflowRamp::None},
                                                {"linear", fluids::InflowRamp::Linear},
                                                {"smooth", fluids::InflowRamp::Smooth}};
constexpr Choice<fluids::BodyShape> kShape[] = {{"circle", fluids::BodyShape::Circle},
                                                {"rectangle", fluids::BodyShape::Rectangle},
                                                {"sphere", fluids::BodyShape::Sphere},
                                                {"cylinder", fluids::BodyShape::Cylinder},
                                                {"box", fluids::BodyShape::Box},
                                                {"file", fluids::BodyShape::File}};
constexpr Choice<int> kAxis[] = {{"x", 0}, {"y", 1}, {"z", 2}};
constexpr Choice<fluids::OutflowCondition> kOutflow[] = {
    {"convective", fluids::OutflowCondition::Convective},
    {"zero_gradient", fluids::OutflowCondition::ZeroGradient}};
constexpr Choice<fluids::PoissonMethod> kMethod[] = {
    {"auto", fluids::PoissonMethod::Auto},
    {"fft", fluids::PoissonMethod::Fft},
    {"mgcg", fluids::PoissonMethod::MultigridCG},
    {"cg", fluids::PoissonMethod::CG},
    {"jacobi", fluids::PoissonMethod::Jacobi}};
constexpr Choice<fluids::PoissonGuess> kGuess[] = {{"quadratic", fluids::PoissonGuess::Quadratic},
                                                   {"linear", fluids::PoissonGuess::Linear},
                                                   {"previous", fluids::PoissonGuess::Previous},
                                                   {"zero", fluids::PoissonGuess::Zero}};
constexpr Choice<bool> kMixedPrecision[] = {{"double", false}, {"mixed", true}};

Key section() {
  auto face = [](char const* name, char const* where) {
    return Key::choice(name, choiceNames(kBoundary, {"auto"}),
                       std::string("Boundary at ") + where +
                           ": auto = periodic if grid.periodic says so, else a fixed wall. "
                           "wall and moving_wall: no slip; slip_wall: no flow through, no shear "
                           "stress (a symmetry plane); inflow: fluids.inflow enters; outflow: "
                           "the flow leaves (fluids.outflow), the pressure's reference.")
        .defaultValue("auto");
  };
  auto inflow = [](char const* name) {
    return Key::section(name, "The inflow at this face, when fluids.boundary makes it one.")
        .add(Key::choice("profile", choiceNames(kProfile),
                         "uniform: the speed across the whole face; parabolic: the speed at the "
                         "centre times 4 s (1 - s) along each bounded axis across the face (s "
                         "the position over the domain length; a channel's Poiseuille "
                         "profile, whose mean is 2/3 of the peak per bounded axis).")
                 .defaultValue("uniform"))
        .add(Key::real("speed", "Speed of the flow into the domain (the peak of a parabola).")
                 .greaterThan(0)
                 .defaultValue(1.0)
                 .unit("L/T"))
        .add(Key::choice("ramp", choiceNames(kRamp),
                         "How the inflow starts from rest: at full speed (none), or its speed "
                         "times t / ramp_time (linear) or sin^2(pi t / (2 ramp_time)) (smooth) "
                         "until ramp_time.")
                 .defaultValue("none"))
        .add(Key::real("ramp_time", "Duration of the ramp.")
                 .atLeast(0)
                 .defaultValue(0.0)
                 .unit("T"))
        .add(Key::section("window",
                          "An inlet slot: the inflow enters only between these corners (the "
                          "entries along the face normal are not used), the rest of the face "
                          "is a fixed wall; the parabola spans the window. Without it, the "
                          "whole face.")
                 .optional()
                 .add(Key::realList("low", "The window's low corner.")
                          .lengths({2, 3})
                          .sameLengthAs("grid.cells")
                          .required()
                          .unit("L"))
                 .add(Key::realList("high", "The window's high corner.")
                          .lengths({2, 3})
                          .sameLengthAs("grid.cells")
                          .required()
                          .unit("L")));
  };
  auto velocity = [](char const* name) {
    return Key::realList(name, "Velocity of this face when it is a moving_wall (tangential).")
        .lengths({2, 3})
        .sameLengthAs("grid.cells")
        .defaultEach(0.0)
        .unit("L/T");
  };
  return Key::section("fluids",
                      "Incompressible Navier-Stokes on a staggered (MAC) grid: RK3 with one "
                      "pressure projection per step. The Reynolds number is U L / viscosity.")
      .optional()
      .add(Key::real("viscosity", "Kinematic viscosity nu (e.g. 1 / Re for U = L = 1).")
               .greaterThan(0)
               .defaultValue(0.01)
               .unit("L^2/T"))
      .add(Key::real("density", "Density; scales the reported pressure only.")
               .greaterThan(0)
               .defaultValue(1.0)
               .unit("M/L^3"))
      .add(Key::choice("initial", choiceNames(kInitial),
                       "Initial velocity: at rest, the Taylor-Green vortex (periodic domain), "
                       "the Poiseuille parabola of a channel (periodic x, walls in y), or the "
                       "uniform_velocity (zero along axes bounded by walls).")
               .defaultValue("rest"))
      .add(Key::realList("uniform_velocity", "Velocity of the uniform initial flow.")
               .lengths({2, 3})
               .sameLengthAs("grid.cells")
               .defaultEach(0.0)
               .unit("m/s"))
      .add(Key::real("velocity_scale", "Amplitude U of the Taylor-Green vortex.")
               .greaterThan(0)
               .defaultValue(1.0)
               .unit("L/T"))
      .add(Key::realList("body_force", "Body force per unit mass (drives a periodic channel).")
               .lengths({2, 3})
               .sameLengthAs("grid.cells")
               .defaultEach(0.0)
               .unit("L/T^2"))
      .add(Key::real("dt",
                     "Fixed time step; 0 follows the cfl target (capped by max_dt and the "
                     "viscous limit).")
               .atLeast(0)
               .defaultValue(0.0)
               .unit("T"))
      .add(Key::real("cfl", "Target CFL number dt sum_a max|u_a| / h_a when dt is 0.")
               .greaterThan(0)
               .atMost(1.7)
               .defaultValue(0.5))
      .add(Key::real("max_dt", "Upper bound of the time step; 0 = none.")
               .atLeast(0)
               .defaultValue(0.0)
               .unit("T"))
      .add(Key::section("boundary", "Boundary condition per domain face.")
               .add(face("x_low", "x = 0"))
               .add(face("x_high", "x = Lx"))
               .add(face("y_low", "y = 0"))
               .add(face("y_high", "y = Ly"))
               .add(face("z_low", "z = 0 (3D)"))
               .add(face("z_high", "z = Lz (3D)")))
      .add(Key::section("wall_velocity",
                        "Velocity of each moving wall, e.g. the lid of a cavity: y_high: [1, 0]. "
                        "Must be zero along the face normal, and zero on plain walls.")
               .add(velocity("x_low"))
               .add(velocity("x_high"))
               .add(velocity("y_low"))
               .add(velocity("y_high"))
               .add(velocity("z_low"))
               .add(velocity("z_high")))
      .add(Key::section("inflow",
                        "What enters at each inflow face, normal to it, e.g. x_low: {profile: "
                        "parabolic, speed: 1.5}. The boundary values of a step are those at its "
                        "end time.")
               .add(inflow("x_low"))
               .add(inflow("x_high"))
               .add(inflow("y_low"))
               .add(inflow("y_high"))
               .add(inflow("z_low"))
               .add(inflow("z_high")))
      .add(Key::choice("outflow", choiceNames(kOutflow),
                       "Condition on the normal velocity of every outflow face: convective "
                       "(du/dt + U du/dn = 0, U the bulk outflow speed: eddies leave without "
                       "reflecting) or zero_gradient (du/dn = 0). Either way the outflow is "
                       "then shifted uniformly so that the volume leaving equals the volume "
                       "entering each step, and the pressure's mean next to it is 0.")
               .defaultValue("convective"))
      .add(Key::namedSections(
          "bodies",
          "Solid bodies in the flow, each under a name of your choice (it names its columns "
          "in the diagnostics), e.g. cylinder: {shape: circle, center: [0.2, 0.2], radius: "
          "0.05}. Fixed, by a second-order immersed-boundary method (direct forcing with "
          "interpolation to the surface); the pressure solve keeps the whole box. Each "
          "body's drag, lift (and side) coefficients, with their pressure and viscous parts, "
          "go to the diagnostics time series.",
          Key::section("<name>", "One body.")
              .add(Key::choice("shape", choiceNames(kShape),
                               "2D: circle (center, radius) or rectangle (center, size); 3D: "
                               "sphere (center, radius), cylinder (center, radius, axis; it "
                               "spans the periodic domain along its axis) or box (center, "
                               "size). Rectangles and boxes are aligned with the axes. Any "
                               "shape, 2D or 3D: file (file, center).")
                       .required())
              .add(Key::string("file",
                               "A shape file (HDF5, read from the working directory): the "
                               "body's signed distance (dataset 'distance', negative inside) "
                               "or solid fraction (dataset 'solid_fraction'), indexed [z][y][x], "
                               "sampled at the cell centres of a box whose centre is `center`, "
                               "the dataset's attribute 'spacing' giving the samples' spacing "
                               "per axis. A distance gives the surface to second order, a solid "
                               "fraction to within its samples. Or, for a 3D run, a closed "
                               "triangulated surface in STL (a name ending in .stl; binary or "
                               "ASCII; its coordinates in the deck's length unit), sampled as its signed distance at the run's finest cell "
                               "size, its bounding box's centre placed at `center`.")
                       .defaultValue(""))
              .add(Key::realList("center", "Its centre (a file's: the centre of its samples' box; "
                                           "a surface's: of its bounding box).")
                       .lengths({2, 3})
                       .sameLengthAs("grid.cells")
                       .required()
                       .unit("L"))
              .add(Key::real("radius", "Radius of a circle, sphere or cylinder.")
                       .atLeast(0)
                       .defaultValue(0.0)
                       .unit("L"))
              .add(Key::realList("size", "Full extents of a rectangle or box along each axis.")
                       .lengths({2, 3})
                       .sameLengthAs("grid.cells")
                       .defaultEach(0.0)
                       .unit("L"))
              .add(Key::choice("axis", choiceNames(kAxis), "The axis of a cylinder.")
                       .defaultValue("z"))
              .add(Key::real("reference_speed",
                             "U of the force coefficients C = F / (rho U^2 L / 2) (2D) or F / "
                             "(rho U^2 A / 2) (3D); drag is along x, lift along y, side force "
                             "along z.")
                       .greaterThan(0)
                       .defaultValue(1.0)
                       .unit("L/T"))
              .add(Key::real("reference_length",
                             "L of the coefficients in 2D and of the Strouhal number St = f L / "
                             "U of the lift's frequency f; 0 = the diameter, or the body's "
                             "size along y.")
                       .atLeast(0)
                       .defaultValue(0.0)
                       .unit("L"))
              .add(Key::real("reference_area",
                             "A of the coefficients in 3D; 0 = the frontal area (normal to x).")
                       .atLeast(0)
                       .defaultValue(0.0)
                       .unit("L^2"))))
      .add(Key::section("poisson", "The pressure Poisson solver of the projection.")
               .add(Key::choice("method", choiceNames(kMethod),
                                "fft: a direct solve by fast transforms along each axis (the "
                                "exact discrete eigenvalues: FFT along periodic axes, cosine "
                                "transforms between walls), the same bits on any rank count. "
                                "Multigrid-preconditioned CG, plain CG, or damped Jacobi iterate "
                                "to the tolerance. auto: fft, or mgcg where the ranks cannot "
                                "hold whole grid lines of every axis (the log says which).")
                        .defaultValue("auto"))
               .add(Key::real("tolerance",
                              "Relative residual ||r|| / ||rhs|| to reach (fft: its round-off "
                              "residual is reported; it fails above max(tolerance, 1e-8)).")
                        .greaterThan(0)
                        .defaultValue(1e-12))
               .add(Key::integer("max_iterations",
                                 "Iteration cap; missing the tolerance stops the run.")
                        .atLeast(1)
                        .atMost(1000000)
                        .defaultValue(500))
               .add(Key::integer("pre_sweeps",
                                 "mgcg: red-black Gauss-Seidel sweeps on each multigrid level "
                                 "before its residual goes to the next level (the coarsest "
                                 "level is solved by its own sweeps).")
                        .atLeast(0)
                        .atMost(64)
                        .defaultValue(2))
               .add(Key::integer("post_sweeps",
                                 "mgcg: sweeps on each level after the coarser level's "
                                 "correction is added; pre_sweeps + post_sweeps >= 1. Fewer "
                                 "sweeps make a V-cycle cheaper and may take more iterations.")
                        .atLeast(0)
                        .atMost(64)
                        .defaultValue(2))
               .add(Key::choice("guess", choiceNames(kGuess),
                                "Initial guess of each step's solve: the pressure increments of "
                                "the last three or two steps extrapolated to the new step, the "
                                "last one as it is, or zero. The extrapolations save iterations "
                                "and keep two or one more cell field (16 or 8 bytes a cell). "
                                "fft ignores it.")
                        .defaultValue("quadratic"))
               .add(Key::choice("precision", choiceNames(kMixedPrecision),
                                "mgcg: precision of the finest multigrid level's work field "
                                "(its sweeps' intermediate values and residual). mixed keeps "
                                "it in single precision in the memory of a double field: fewer "
                                "bytes a V-cycle, the same tolerance reached (CG, its sums and "
                                "the solution stay double), the same bits on any rank count. "
                                "double: the bits of earlier releases.")
                        .defaultValue("mixed")));
}

std::array<double, 3> toArray3(std::vector<double> const& v, double fill = 0.0) {
  std::array<double, 3> r{fill, fill, fill};
  for (std::size_t a = 0; a < v.size() && a < 3; ++a) r[a] = v[a];
  return r;
}

/// The grid of the deck: dimensions, periodicity and cell sizes.
fluids::FlowGrid flowGrid(io::Deck const& deck) {
  auto const cells = deck.getIntList("grid.cells");
  auto const length = deck.getDoubleList("grid.length");
  auto const periodic = deck.getBoolList("grid.periodic");
  fluids::FlowGrid g;
  g.dims = static_cast<int>(cells.size());
  for (int a = 0; a < g.dims; ++a) {
    g.periodic[a] = periodic[a];
    g.spacing[a] = length[a] / cells[a];
    g.length[a] = length[a];
  }
  return g;
}

/// A shape read in this process: `eddy run` checks the deck, then builds the model from it, and
/// a surface's sampling takes seconds for large meshes. Keyed by the file's path, size and
/// modification time and the sampling spacing.
struct ReadShape {
  std::string path;
  double spacing;
  std::uintmax_t size;
  std::filesystem::file_time_type time;
  std::shared_ptr<fluids::SampledShape const> shape;
};

/// The samples of shape file `path` (prepared), or null with b.file and b.fileProblem set: a deck
/// error that fluids::checkBodies reports. A surface file (STL) is sampled `spacing` apart.
std::shared_ptr<fluids::SampledShape const> readShape(std::string const& path, double spacing,
                                                      fluids::Body& b) {
  b.file = path;
  if (path.empty()) return nullptr;
  if (io::isSurfaceFile(path) && !(spacing > 0 && std::isfinite(spacing))) {
    b.fileProblem = str("'", path, "' is not sampled: the grid's cell size is not valid");
    return nullptr;
  }
  static std::vector<ReadShape> read;
  std::error_code sizeError, timeError;
  std::uintmax_t const size = std::filesystem::file_size(path, sizeError);
  auto const time = std::filesystem::last_write_time(path, timeError);
  bool const known = !sizeError && !timeError;
  if (known)
    for (auto const& r : read)
      if (r.path == path && r.spacing == spacing && r.size == size && r.time == time)
        return r.shape;
  try {
    io::ShapeSamples f = io::isSurfaceFile(path) ? io::sampleSurfaceFile(path, spacing)
                                                 : io::readShapeFile(path);
    auto shape = fluids::sampledShape(f.fraction, f.dims, f.n, f.spacing, std::move(f.values));
    if (known) read.push_back({path, spacing, size, time, shape});
    return shape;
  } catch (IoError const& e) {
    b.fileProblem = e.what();
    return nullptr;
  }
}

fluids::Parameters parameters(io::Deck const& deck) {
  fluids::FlowGrid const grid = flowGrid(deck);
  fluids::Parameters p;
  p.viscosity = deck.getDouble("fluids.viscosity");
  p.density = deck.getDouble("fluids.density");
  p.initial = choiceValue(kInitial, deck.getString("fluids.initial"));
  p.velocityScale = deck.getDouble("fluids.velocity_scale");
  p.uniformVelocity = toArray3(deck.getDoubleList("fluids.uniform_velocity"));
  p.bodyForce = toArray3(deck.getDoubleList("fluids.body_force"));
  p.dt = deck.getDouble("fluids.dt");
  p.cfl = deck.getDouble("fluids.cfl");
  p.maxDt = deck.getDouble("fluids.max_dt");
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      auto& face = p.boundaries.at(a, side);
      std::string const name = fluids::FlowBoundaries::faceName(a, side);
      std::string const kind = deck.getString("fluids.boundary." + name);
      if (kind == "auto")
        face.kind = grid.periodic[a] ? fluids::BoundaryKind::Periodic : fluids::BoundaryKind::Wall;
      else
        face.kind = choiceValue(kBoundary, kind);
      face.velocity = toArray3(deck.getDoubleList("fluids.wall_velocity." + name));
      std::string const in = "fluids.inflow." + name;
      face.inflow.profile = choiceValue(kProfile, deck.getString(in + ".profile"));
      face.inflow.speed = deck.getDouble(in + ".speed");
      face.inflow.ramp = choiceValue(kRamp, deck.getString(in + ".ramp"));
      face.inflow.rampTime = deck.getDouble(in + ".ramp_time");
      face.inflow.windowed = deck.has(in + ".window");
      if (face.inflow.windowed) {
        face.inflow.low = toArray3(deck.getDoubleList(in + ".window.low"));
        face.inflow.high = toArray3(deck.getDoubleList(in + ".window.high"));
      }
    }
  }
  p.boundaries.outflow = choiceValue(kOutflow, deck.getString("fluids.outflow"));
  for (std::string const& name : deck.names("fluids.bodies")) {
    std::string const key = "fluids.bodies." + name;
    fluids::Body b;
    b.name = name;
    b.shape = choiceValue(kShape, deck.getString(key + ".shape"));
    b.center = toArray3(deck.getDoubleList(key + ".center"));
    b.radius = deck.getDouble(key + ".radius");
    b.size = toArray3(deck.getDoubleList(key + ".size"));
    b.axis = choiceValue(kAxis, deck.getString(key + ".axis"));
    if (b.shape == fluids::BodyShape::File) {
      // A surface is sampled at the run's finest cell size.
      double finest = grid.spacing[0];
      for (int a = 1; a < grid.dims; ++a) finest = std::min(finest, grid.spacing[a]);
      b.sampled = readShape(deck.getString(key + ".file"), finest, b);
    }
    p.bodies.push_back(b);
  }
  p.poisson.method = choiceValue(kMethod, deck.getString("fluids.poisson.method"));
  p.poisson.tolerance = deck.getDouble("fluids.poisson.tolerance");
  p.poisson.maxIterations = static_cast<int>(deck.getInt("fluids.poisson.max_iterations"));
  p.poisson.preSmooth = static_cast<int>(deck.getInt("fluids.poisson.pre_sweeps"));
  p.poisson.postSmooth = static_cast<int>(deck.getInt("fluids.poisson.post_sweeps"));
  p.guess = choiceValue(kGuess, deck.getString("fluids.poisson.guess"));
  p.poisson.mixedPrecision = choiceValue(kMixedPrecision, deck.getString("fluids.poisson.precision"));
  // auto = off for the flow: its interior / shell split adds launches to a latency-bound step.
  p.overlap = deck.getString("parallel.overlap") == "on";
  // Particles interpolate the velocity up to 1.5 cells beyond their block (particles/Cloud.hpp).
  if (deck.has("particles"))
    p.ghostLayers = particles::velocityGhosts(deck.getString("particles.interpolation") == "m4"
                                                  ? particles::Interpolation::M4
                                                  : particles::Interpolation::Linear);
  return p;
}

void check(io::Deck const& deck, io::DeckErrors& errors) {
  if (deck.getInt("grid.ghost") != 1)
    errors.add(deck, "grid.ghost", str("is ", deck.getInt("grid.ghost")),
               "expected 1 for fluids (its stencils read one ghost layer; wider halos are not "
               "used)");
  fluids::Parameters const p = parameters(deck);
  for (auto const& v : fluids::violations(p, flowGrid(deck)))
    errors.add(deck, v.key, v.what, v.expected);
  // An inflow set for a face that is none would be ignored: say so (its defaults, as a resolved
  // deck writes them, set nothing).
  int const dims = static_cast<int>(deck.getIntList("grid.cells").size());
  fluids::Inflow const unset;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      std::string const name = fluids::FlowBoundaries::faceName(a, side);
      std::string const key = "fluids.inflow." + name;
      fluids::Inflow const& in = p.boundaries.at(a, side).inflow;
      bool const set = in.profile != unset.profile || in.speed != unset.speed ||
                       in.ramp != unset.ramp || in.rampTime != unset.rampTime || in.windowed;
      if (!deck.given(key) || !set) continue;
      if (a >= dims)
        errors.add(deck, key, str("is given, but the grid is ", dims, "D"),
                   "no z faces in 2D (remove it)");
      else if (p.boundaries.at(a, side).kind != fluids::BoundaryKind::Inflow)
        errors.add(deck, key,
                   str("is given, but fluids.boundary.", name, " is '",
                       toString(p.boundaries.at(a, side).kind), "'"),
                   str("expected fluids.boundary.", name, ": inflow (or remove ", key, ")"));
    }
  // A shape file on a body of another shape would be ignored (an empty one, as a resolved deck
  // writes the default, is none).
  for (auto const& b : p.bodies) {
    std::string const key = "fluids.bodies." + b.name + ".file";
    if (b.shape != fluids::BodyShape::File && !deck.getString(key).empty())
      errors.add(deck, key, str("is given, but the body's shape is '", toString(b.shape), "'"),
                 str("expected shape: file (or remove ", key, ")"));
  }
}

std::vector<FieldInfo> fields(io::Deck const& deck) {
  std::vector<FieldInfo> f{{"pressure", "M/(L T^2)", Centering::Cell},
                           {"u", "L/T", Centering::FaceX},
                           {"v", "L/T", Centering::FaceY}};
  bool const three = deck.getIntList("grid.cells").size() == 3;
  if (three) f.push_back({"w", "L/T", Centering::FaceZ});
  f.push_back({"divergence", "1/T", Centering::Cell});
  // Derived at cell centres for the snapshot (snapshot() below): on request only.
  f.push_back({"vorticity", "1/T", Centering::Cell, true});
  f.push_back({"q_criterion", "1/T^2", Centering::Cell, true});
  f.push_back({"speed", "L/T", Centering::Cell, true});
  // 1 in the cells whose centre is inside a body, 0 elsewhere (to hide them in ParaView).
  if (!deck.names("fluids.bodies").empty()) f.push_back({"solid", "1", Centering::Cell});
  return f;
}

/// Whether output.fields names a derived field (alone or, in a run of several models, with its
/// prefix).
bool wantsDerived(io::Deck const& deck) {
  for (std::string const& w : requestedFields(deck))
    for (char const* name : {"vorticity", "q_criterion", "speed"})
      if (w == name || w == std::string("fluids_") + name) return true;
  return false;
}

double bytesPerCell(io::Deck const& deck) {
  // The two keys it needs, not parameters(): that reads every body's shape file.
  auto const method = choiceValue(kMethod, deck.getString("fluids.poisson.method"));
  auto const guess = choiceValue(kGuess, deck.getString("fluids.poisson.guess"));
  int const dims = static_cast<int>(deck.getIntList("grid.cells").size());
  // auto may run either: counted as mgcg, which holds more.
  bool const fft = method == fluids::PoissonMethod::Fft;
  bool const mgcg =
      method == fluids::PoissonMethod::MultigridCG || method == fluids::PoissonMethod::Auto;
  // Velocity and its stage buffer per component, pressure, phi and the older increments of the
  // guess (none with fft), the solver's work fields (fft: two, and two pencil arrays); mgcg's
  // coarser levels add about 3 fields / (2^dims - 1). A derived snapshot field holds one more
  // cell field while it is computed.
  double const fields = 2.0 * dims + 2 + (fft ? 0 : fluids::guessHistory(guess)) +
                        (mgcg || fft ? 4 : 3) +
                        (mgcg ? 3.0 / ((1 << dims) - 1) : 0) + (wantsDerived(deck) ? 1 : 0);
  return 8.0 * fields;
}

/// rho U^2 L / 2 (2D) or rho U^2 A / 2 (3D) of body `name`: what its force is divided by to give
/// its coefficients.
double coefficientScale(io::Deck const& deck, fluids::Body const& b, int dims,
                        std::array<double, 3> const& length) {
  std::string const key = "fluids.bodies." + b.name;
  double const U = deck.getDouble(key + ".reference_speed");
  double const rho = deck.getDouble("fluids.density");
  double size;
  if (dims == 2) {
    size = deck.getDouble(key + ".reference_length");
    if (!(size > 0)) size = b.crossLength();
  } else {
    size = deck.getDouble(key + ".reference_area");
    if (!(size > 0)) {
      if (b.shape == fluids::BodyShape::File)
        size = b.sampled ? b.sampled->frontalArea : 0.0;
      else if (b.shape == fluids::BodyShape::Sphere)
        size = 3.14159265358979323846 * b.radius * b.radius;
      else if (b.shape == fluids::BodyShape::Cylinder)
        size = b.axis == 0 ? 3.14159265358979323846 * b.radius * b.radius
                           : 2 * b.radius * length[b.axis];
      else
        size = b.size[1] * b.size[2];
    }
  }
  return 0.5 * rho * U * U * size;
}

char const* const kVelocityName[3] = {"u", "v", "w"};
char const* const kAxisName[3] = {"x", "y", "z"};

class FluidsModel final : public Model, public CarryingFlow {
 public:
  explicit FluidsModel(ModelContext const& c)
      : m_deck(c.deck),
        m_decomp(c.decomp),
        m_params(parameters(c.deck)),
        m_model(ExecSpace(), c.rt.comm(), c.decomp, c.length, m_params) {
    for (auto const& b : m_params.bodies) {
      m_coefficientScale.push_back(coefficientScale(c.deck, b, c.decomp.dims(), c.length));
      std::string const key = "fluids.bodies." + b.name;
      m_referenceSpeed.push_back(c.deck.getDouble(key + ".reference_speed"));
      double const length = c.deck.getDouble(key + ".reference_length");
      m_strouhalLength.push_back(length > 0 ? length : b.crossLength());
    }
    m_lift.resize(m_params.bodies.size());
  }

  /// The pressure solve as it runs, e.g. "fft (x pencils 1x2x2, ...; fftw-3.3.10-sse2-avx),
  /// tolerance 1e-12" or "mgcg (7 levels, V(2,2), mixed precision, tolerance 1e-12, cap 500,
  /// guess quadratic)", and what auto chose.
  std::string poissonLine() const {
    auto const& p = m_model.parameters();  // the method resolved
    bool const automatic = m_params.poisson.method == fluids::PoissonMethod::Auto;
    if (p.poisson.method == fluids::PoissonMethod::Fft)
      return str(m_model.poisson().describe(), ", tolerance ", p.poisson.tolerance,
                 automatic ? " (auto)" : "");
    bool const mgcg = p.poisson.method == fluids::PoissonMethod::MultigridCG;
    return str(toString(p.poisson.method), " (", m_model.poisson().levels(), " levels",
               mgcg ? str(", V(", p.poisson.preSmooth, ",", p.poisson.postSmooth, ")",
                          p.poisson.mixedPrecision ? ", mixed precision" : "")
                    : std::string(),
               ", tolerance ", p.poisson.tolerance, ", cap ", p.poisson.maxIterations,
               ", guess ", toString(p.guess), ")",
               automatic
                   ? str(" (auto: fft refused, ", fluids::FftPoisson::refusal(m_decomp), ")")
                   : "");
  }

  std::vector<std::string> startLines() const override {
    auto const& p = m_params;
    double localCells = 1;
    for (int a = 0; a < m_decomp.dims(); ++a) localCells *= m_decomp.localCells()[a];
    std::string faces;
    for (int a = 0; a < m_decomp.dims(); ++a)
      for (int side = 0; side < 2; ++side)
        faces += str(faces.empty() ? "" : ", ", fluids::FlowBoundaries::faceName(a, side), " ",
                     toString(p.boundaries.at(a, side).kind));
    std::string const overlap = m_deck.getString("parallel.overlap");
    std::vector<std::string> lines{
        str("fluids: ", m_decomp.dims(), "D MAC grid, nu ", p.viscosity, " [L^2/T], initial ",
            toString(p.initial), ", ", faces, "; dt ",
            p.dt > 0 ? str(p.dt, " [T] fixed") : str("from cfl ", p.cfl), " (viscous limit ",
            m_model.viscousDt(), " [T]); poisson ", poissonLine(), "; ",
            static_cast<double>(m_model.bytes()) / localCells,
            " bytes per cell (fields, halo buffers and Poisson solver, ghosts included)"),
        str("fluids: halo overlap ", p.overlap ? "on" : "off", " (parallel.overlap ", overlap,
            overlap == "auto" ? " = off for the flow model" : "", ", ", m_decomp.nranks(),
            " rank(s))")};
    std::string const open = openLine();
    if (!open.empty()) lines.push_back(open);
    for (std::size_t b = 0; b < m_params.bodies.size(); ++b) lines.push_back(bodyLine(b));
    return lines;
  }

  /// "fluids: body cylinder: circle of radius 0.05 [L] at (0.2, 0.2), 20 cells across;
  /// coefficients over 0.5 rho U^2 L with U 1 [L/T], L 0.1 [L]".
  std::string bodyLine(std::size_t b) const {
    auto const& body = m_params.bodies[b];
    int const dims = m_decomp.dims();
    auto const& h = m_model.spacing();
    std::string at;
    for (int a = 0; a < dims; ++a) at += str(a ? ", " : "", body.center[a]);
    bool const round = body.round();
    std::string size;
    if (body.shape == fluids::BodyShape::File) {
      auto const& f = *body.sampled;
      size = str(" '", body.file, "' (",
                 f.fraction                       ? "solid fraction"
                 : io::isSurfaceFile(body.file) ? "a surface, sampled as its distance"
                                                  : "distance",
                 ", ");
      for (int a = 0; a < dims; ++a) size += str(a ? " x " : "", f.n[a]);
      size += " samples of";
      for (int a = 0; a < dims; ++a) size += str(a ? " x " : " ", f.spacing[a]);
      size += " [L]; the body spans";
      for (int a = 0; a < dims; ++a) size += str(a ? " x " : " ", body.extent(a));
      size += " [L])";
    } else if (round) {
      size = str(" of radius ", body.radius, " [L]",
                 body.shape == fluids::BodyShape::Cylinder
                     ? str(" along ", kAxisName[body.axis])
                     : std::string());
    } else {
      size = " of size";
      for (int a = 0; a < dims; ++a) size += str(a ? " x " : " ", body.size[a]);
      size += " [L]";
    }
    // The fewest cells across it along the axes it has an extent on.
    double across = 1e300;
    for (int a = 0; a < dims; ++a)
      if (!(body.shape == fluids::BodyShape::Cylinder && a == body.axis))
        across = std::min(across, body.extent(a) / h[a]);
    return str("fluids: body ", body.name, ": ", toString(body.shape), size, " at (", at, "), ",
               across, " cells across; coefficients over 0.5 rho U^2 ",
               dims == 2 ? "L" : "A", " with U ", m_referenceSpeed[b], " [L/T], ",
               dims == 2 ? "L " : "A ",
               m_coefficientScale[b] / (0.5 * m_params.density * m_referenceSpeed[b] *
                                        m_referenceSpeed[b]),
               dims == 2 ? " [L]" : " [L^2]");
  }

  /// "y 0.5 to 1" (per axis across the face, ", " between axes).
  static std::string windowText(fluids::Inflow const& in, int axis, int dims) {
    std::string t;
    for (int b = 0; b < dims; ++b)
      if (b != axis)
        t += str(t.empty() ? "" : ", ", kAxisName[b], " ", in.low[b], " to ", in.high[b]);
    return t;
  }

  /// The open faces, e.g. "fluids: inflow at x_low parabolic, peak 1.5 [L/T] (smooth ramp over
  /// 1 [T]); outflow at x_high convective (bulk speed 1 [L/T]), the pressure's reference".
  std::string openLine() const {
    auto const& bc = m_params.boundaries;
    int const dims = m_decomp.dims();
    if (!bc.hasOpen(dims)) return {};
    std::string in, out;
    for (int a = 0; a < dims; ++a)
      for (int side = 0; side < 2; ++side) {
        auto const& f = bc.at(a, side);
        std::string const name = fluids::FlowBoundaries::faceName(a, side);
        if (f.kind == fluids::BoundaryKind::Inflow)
          in += str(in.empty() ? "" : ", ", name, " ", toString(f.inflow.profile),
                    f.inflow.profile == fluids::InflowProfile::Parabolic ? ", peak " : " ",
                    f.inflow.speed, " [L/T]",
                    f.inflow.windowed ? str(" in a window ", windowText(f.inflow, a, dims))
                                      : std::string(),
                    f.inflow.ramp == fluids::InflowRamp::None
                        ? std::string()
                        : str(" (", toString(f.inflow.ramp), " ramp over ", f.inflow.rampTime,
                              " [T])"));
        if (f.kind == fluids::BoundaryKind::Outflow) out += str(out.empty() ? "" : ", ", name);
      }
    return str("fluids: inflow at ", in.empty() ? std::string("none") : in, "; outflow at ",
               out.empty() ? std::string("none") : out, " ", toString(bc.outflow),
               " (bulk speed ", m_model.openBoundaries().bulkOutflowSpeed(1e300),
               " [L/T]), corrected to the inflow's volume each step; the pressure's reference "
               "is its mean next to the outflow");
  }

  fluids::Model& flow() override { return m_model; }

  double maxDt(ExecSpace const& space) override { return m_model.stableDt(space); }
  void step(ExecSpace const& space, double dt, long long, bool more) override {
    // A step followed by another with nothing read in between leaves its solve unchecked.
    m_poissonIterations += m_model.step(space, dt, !more).poissonIterations;
  }
  long long stepCount() const override { return m_model.stepCount(); }
  double time() const override { return m_model.time(); }
  double lastDt() const override { return m_model.lastStep().dt; }
  std::pair<double, std::string> work() const override {
    return {globalCellCount(m_decomp), "cell-updates"};
  }

  std::string progress(ExecSpace const& space) override {
    auto const d = m_model.diagnostics(space);
    auto const& s = m_model.lastStep();
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  "t %.6e  dt %.3e  CFL %.3f  poisson %3d it (res %.1e)  KE %.10e  max|div| %.1e",
                  m_model.time(), s.dt, s.cfl, s.poissonIterations, s.poissonResidual,
                  d.kineticEnergy, d.maxDivergence);
    m_last = d;
    return buf;
  }
  std::vector<Column> columns() const override {
    std::vector<Column> c{{"t", "T"},
            {"dt", "T"},
            {"CFL", "1"},
            {"KE", "L^2/T^2"},
            {"enstrophy", "1/T^2"},
            {"max_div", "1/T"},
            {"poisson_iterations", "1"},
            {"poisson_residual", "1"}};
    if (m_params.boundaries.hasOpen(m_decomp.dims())) {
      char const* const unit = m_decomp.dims() == 3 ? "L^3/T" : "L^2/T";
      c.push_back({"inflow", unit});
      c.push_back({"outflow", unit});
    }
    char const* const coefficient[3] = {"cd", "cl", "cs"};
    for (auto const& b : m_params.bodies)
      for (char const* part : {"", "_pressure", "_viscous"})
        for (int a = 0; a < m_decomp.dims(); ++a)
          c.push_back({str(b.name, "_", coefficient[a], part), "1"});
    return c;
  }
  std::vector<double> values(ExecSpace const& space) override {
    auto const d = m_model.diagnostics(space);
    auto const& s = m_model.lastStep();
    std::vector<double> v{m_model.time(),       s.dt,
                          s.cfl,                d.kineticEnergy,
                          d.enstrophy,          d.maxDivergence,
                          static_cast<double>(s.poissonIterations), s.poissonResidual};
    if (d.hasOpenBoundaries) {
      v.push_back(d.flux.in);
      v.push_back(d.flux.out);
    }
    if (m_model.bodies()) {
      auto const& forces = m_model.bodyForces(space);
      for (std::size_t b = 0; b < forces.size(); ++b) {
        auto const& f = forces[b];
        for (auto const* part : {&f.total, &f.pressure, &f.viscous})
          for (int a = 0; a < m_decomp.dims(); ++a)
            v.push_back((*part)[a] / m_coefficientScale[b]);
        // The lift at each sample of the run, for its Strouhal number at the end.
        if (m_model.stepCount() > 0)
          m_lift[b].push_back({m_model.time(), f.total[1] / m_coefficientScale[b]});
      }
    }
    return v;
  }

  void snapshot(ExecSpace const& space, std::vector<std::string> const& fields,
                io::SnapshotData& data) override {
    data.hasGrid = true;
    data.grid = gridGeometry(m_decomp, m_model.length());
    auto const wants = [&fields](char const* name) {
      return std::find(fields.begin(), fields.end(), name) != fields.end();
    };
    // The model's pressure is kinematic (p / rho); the file holds rho times it, in M/(L T^2).
    if (wants("pressure"))
      data.fields.push_back(
          {"pressure", "M/(L T^2)", ownedEntries(space, m_model.pressure(), m_params.density)});
    for (int c = 0; c < m_decomp.dims(); ++c)
      if (wants(kVelocityName[c]))
        data.fields.push_back({kVelocityName[c], "L/T", m_model.cellValues(space, c)});
    if (wants("divergence"))
      data.fields.push_back({"divergence", "1/T", m_model.cellValues(space, -1)});
    io::GridVector velocity{"velocity", {}};
    for (int c = 0; c < m_decomp.dims(); ++c)
      if (wants(kVelocityName[c])) velocity.components.push_back(kVelocityName[c]);
    if (static_cast<int>(velocity.components.size()) == m_decomp.dims())
      data.vectors.push_back(velocity);
    // Derived at cell centres from the face velocities (fluids::Model::derivedValues).
    if (wants("vorticity")) {
      if (m_decomp.dims() == 2) {
        data.fields.push_back(
            {"vorticity", "1/T", m_model.derivedValues(space, fluids::Derived::VorticityZ)});
      } else {
        io::GridVector vorticity{"vorticity", {}};
        fluids::Derived const component[3] = {fluids::Derived::VorticityX,
                                              fluids::Derived::VorticityY,
                                              fluids::Derived::VorticityZ};
        for (int c = 0; c < 3; ++c) {
          std::string const name = str("vorticity_", kAxisName[c]);
          data.fields.push_back({name, "1/T", m_model.derivedValues(space, component[c])});
          vorticity.components.push_back(name);
        }
        data.vectors.push_back(vorticity);
      }
    }
    if (wants("q_criterion"))
      data.fields.push_back(
          {"q_criterion", "1/T^2", m_model.derivedValues(space, fluids::Derived::QCriterion)});
    if (wants("speed"))
      data.fields.push_back({"speed", "L/T", m_model.derivedValues(space, fluids::Derived::Speed)});
    if (wants("solid") && m_model.bodies())
      data.fields.push_back({"solid", "1", m_model.bodies()->solidCells()});
  }

  /// The state: face velocities, pressure and the Poisson guess with the increments it
  /// extrapolates from, as global arrays (any rank count reads them back), and the last step's
  /// statistics.
  void save(ExecSpace const& space, StateOut& out) override {
    saveGridSize(out, m_decomp, m_model.length());
    auto const& s = m_model.lastStep();
    out.reals("last_dt") = {s.dt};
    out.reals("last_cfl") = {s.cfl};
    out.integers("last_poisson_iterations") = {s.poissonIterations};
    out.reals("last_poisson_residual") = {s.poissonResidual};
    out.reals("last_max_divergence") = {s.maxDivergence};
    for (int c = 0; c < m_decomp.dims(); ++c)
      out.grid(checkpointGrid(space, m_model.velocity(c), m_decomp, kVelocityName[c], "L/T"));
    // Kinematic pressure (p / rho), as the model holds it.
    out.grid(checkpointGrid(space, m_model.pressure(), m_decomp, "pressure", "L^2/T^2"));
    out.grid(checkpointGrid(space, m_model.poissonGuess(), m_decomp, "poisson_guess", "L^2/T^2"));
    int const known = m_model.poissonIncrements();
    out.integers("poisson_increments") = {known};
    for (int i = 1; i < known; ++i)
      out.grid(checkpointGrid(space, m_model.poissonIncrement(i), m_decomp,
                              str("poisson_increment_", i), "L^2/T^2"));
    auto const& dts = m_model.poissonIncrementDt();
    if (known > 0) out.reals("poisson_increment_dt") = {dts.begin(), dts.begin() + known};
  }

  void restore(ExecSpace const& space, StateIn const& in) override {
    requireGridSize(in, m_decomp, m_model.length());
    auto const block = [&](Field<MemSpace> const& f, std::string const& name) {
      return in.readOwned(f, m_decomp, name);
    };
    std::array<std::vector<double>, 3> u;
    for (int c = 0; c < m_decomp.dims(); ++c) u[c] = block(m_model.velocity(c), kVelocityName[c]);
    std::vector<double> const p = block(m_model.pressure(), "pressure");
    fluids::GuessState guess;
    guess.phi.push_back(block(m_model.poissonGuess(), "poisson_guess"));
    if (in.hasInteger("poisson_increments")) {
      // Only the increments this run's guess reads.
      int const kept = 1 + fluids::guessHistory(m_model.parameters().guess);
      guess.known =
          static_cast<int>(std::min<std::int64_t>(in.integer("poisson_increments"), kept));
      if (guess.known > 0) {
        std::vector<double> const& dts = in.reals("poisson_increment_dt");
        if (static_cast<int>(dts.size()) < guess.known)
          throw IoError(
              str("restart file '", in.file().path(), "': poisson_increment_dt holds ",
                  dts.size(), " time step(s); expected ", guess.known, " (poisson_increments)"),
              true);
        for (int i = 0; i < guess.known; ++i) guess.dt[i] = dts[i];
      }
      for (int i = 1; i < guess.known; ++i)
        guess.phi.push_back(block(m_model.poissonGuess(), str("poisson_increment_", i)));
    } else {
      // Written before the guess was extrapolated: poisson_guess is the last step's increment.
      guess.known = in.real("last_dt") > 0 ? 1 : 0;
      guess.dt[0] = in.real("last_dt");
    }
    fluids::StepStats last;
    last.dt = in.real("last_dt");
    last.cfl = in.real("last_cfl");
    last.poissonIterations = static_cast<int>(in.integer("last_poisson_iterations"));
    last.poissonResidual = in.real("last_poisson_residual");
    last.maxDivergence = in.real("last_max_divergence");
    m_model.restoreState(space, u, p, guess, in.file().step(), in.file().time(), last);
  }

  std::string finalLine(ExecSpace const& space, double, long long stepsRun) override {
    auto const& last = m_last;
    std::string const reference =
        last.hasReference ? str(", error vs analytic: L2 ", last.l2Error, ", max ",
                                last.maxError, " (relative ", last.maxError / last.referenceScale,
                                ")")
                          : std::string();
    std::string const open =
        last.hasOpenBoundaries
            ? str(", volume flux in ", last.flux.in, " out ", last.flux.out,
                  " (relative difference ",
                  last.flux.in != 0 ? (last.flux.out - last.flux.in) / last.flux.in : 0.0, ")")
            : std::string();
    std::string bodies;
    if (m_model.bodies())
      for (std::size_t b = 0; b < m_params.bodies.size(); ++b) {
        auto const& f = m_model.bodyForces(space)[b];
        double const q = m_coefficientScale[b];
        int periods = 0;
        double const frequency = fluids::signalFrequency(m_lift[b], periods);
        bodies += str(", ", m_params.bodies[b].name, ": c_D ", f.total[0] / q, " (pressure ",
                      f.pressure[0] / q, "), c_L ", f.total[1] / q,
                      periods >= 3 ? str(", St ", frequency * m_strouhalLength[b] /
                                                     m_referenceSpeed[b],
                                        " (", periods, " periods of the sampled lift)")
                                  : std::string(", St - (no periodic lift)"));
      }
    return str("t ", m_model.time(), " [T], KE ", last.kineticEnergy, ", enstrophy ",
               last.enstrophy, ", max|div u| ", last.maxDivergence, open, reference, bodies,
               ", checksum ",
               hexBits(last.checksum), " (", last.checksum, "); Poisson ", m_poissonIterations,
               " iterations in ", stepsRun, " steps",
               stepsRun > 0 ? str(" (", static_cast<double>(m_poissonIterations) / stepsRun,
                                  " a step)")
                            : std::string());
  }

 private:
  io::Deck const& m_deck;
  CartDecomposition const& m_decomp;
  fluids::Parameters m_params;
  fluids::Model m_model;
  std::vector<double> m_coefficientScale;  ///< per body (coefficientScale)
  std::vector<double> m_referenceSpeed, m_strouhalLength;  ///< per body: U and L of St
  /// Per body, (t, lift coefficient) after each step of this run.
  std::vector<std::vector<std::array<double, 2>>> m_lift;
  long long m_poissonIterations = 0;  ///< of this run's steps: how the guess and the cycle do
  fluids::Diagnostics m_last;         ///< of the last progress line
};

/// fft needs whole grid lines of every axis on some rank (auto falls back to mgcg instead).
void checkDecomposition(io::Deck const& deck, CartDecomposition const& decomp,
                        io::DeckErrors& errors) {
  if (deck.getString("fluids.poisson.method") != "fft") return;
  std::string const why = fluids::FftPoisson::refusal(decomp);
  if (!why.empty())
    errors.add(deck, "fluids.poisson.method", str("fft on ", decomp.describe(), ": ", why),
               "expected fewer ranks, or method auto (mgcg where fft cannot run) or mgcg");
}

}  // namespace

ModelSpec fluidsModel() {
  ModelSpec s = modelSpec<FluidsModel>("fluids", section, check, fields, bytesPerCell);
  s.checkDecomposition = checkDecomposition;
  return s;
}

}  // namespace eddy::app
