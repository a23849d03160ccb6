// The scalars' adapter: the deck section (a Boussinesq temperature and named passive tracers,
// each optional), the deck read into scalars::Parameters, and the scalars as `eddy run` drives
// them.
// They advance inside the flow's RK stages (fluids::StageCoupling): the flow's step runs them,
// this model's step closes the step's bookkeeping.
#include "../DeckChoice.hpp"
#include "../Format.hpp"
#include "../Model.hpp"
#include "CarryingFlow.hpp"

#include "eddy/core/FieldHost.hpp"
#include "eddy/io/FieldFile.hpp"
#include "scalars/Scalars.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

namespace eddy::app {

namespace {

using io::Key;

constexpr Choice<scalars::Advection> kAdvection[] = {{"central", scalars::Advection::Central},
                                                     {"tvd", scalars::Advection::Tvd}};
constexpr Choice<scalars::BoundaryKind> kBoundary[] = {
    {"periodic", scalars::BoundaryKind::Periodic},
    {"value", scalars::BoundaryKind::Value},
    {"flux", scalars::BoundaryKind::Flux}};
constexpr Choice<scalars::Profile> kProfile[] = {{"constant", scalars::Profile::Constant},
                                                 {"linear", scalars::Profile::Linear},
                                                 {"file", scalars::Profile::Given}};
constexpr Choice<int> kAxis[] = {{"x", 0}, {"y", 1}, {"z", 2}};

/// A scalar's name and units, as the schema describes it.
struct ScalarName {
  char const* name;
  char const* units;
};
constexpr ScalarName kTemperature{"temperature", "Theta"};
constexpr ScalarName kTracer{"<name>", "1"};

/// A scalar of the deck: its name, units and deck section.
struct DeckScalar {
  std::string name, units, key;
};

/// The deck's scalars in the run's order: the temperature if there is one, then the tracers in
/// deck order.
std::vector<DeckScalar> deckScalars(io::Deck const& deck) {
  std::vector<DeckScalar> out;
  if (deck.has("scalars.temperature"))
    out.push_back({kTemperature.name, kTemperature.units, "scalars.temperature"});
  if (deck.has("scalars.tracers"))
    for (std::string const& name : deck.names("scalars.tracers"))
      out.push_back({name, kTracer.units, "scalars.tracers." + name});
  return out;
}
char const* const kFaces[6] = {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"};

Key scalarSection(ScalarName const& s, char const* doc) {
  Key faces = Key::section("boundary",
                           "Boundary per domain face: auto = periodic where grid.periodic says "
                           "so, else an insulated wall (flux 0).");
  Key values = Key::section("boundary_value",
                            "Per face: the fixed value (value), or the flux into the domain "
                            "kappa dq/dn (flux; 0 insulates).");
  for (char const* f : kFaces) {
    faces.add(Key::choice(f, choiceNames(kBoundary, {"auto"}), std::string("At ") + f + ".")
                  .defaultValue("auto"));
    values.add(Key::real(f, std::string("At ") + f + ".")
                   .defaultValue(0.0)
                   .unit(std::string(s.units) + " (value), " + s.units + " L/T (flux)"));
  }
  return Key::section(s.name, doc)
      .optional()
      .add(Key::real("diffusivity",
                     "Diffusivity kappa. For the temperature, given here or derived from "
                     "boussinesq.prandtl (kappa = nu / Pr), not both.")
               .atLeast(0)
               .unit("L^2/T"))
      .add(Key::choice("advection", choiceNames(kAdvection),
                       "Face value of the advective flux: central (second order, conserves "
                       "the integral) or tvd (van Leer limiter, keeps values within bounds).")
               .defaultValue("central"))
      .add(faces)
      .add(values)
      .add(Key::choice("initial", choiceNames(kProfile),
                       "Initial profile: constant (`value` everywhere), linear (from `value` "
                       "at 0 to `high_value` at the far end of `axis`) or file (each cell's "
                       "value from `dataset` of `file`); a Gaussian blob and a uniform random "
                       "perturbation (the same on any rank count) add to it.")
               .defaultValue("constant"))
      .add(Key::string("file",
                       "initial: file: an HDF5 file (read from the working directory) holding "
                       "the value of every cell of the grid: a dataset of shape (nz, ny, nx), "
                       "or (1, ny, nx) or (ny, nx) in 2D, x fastest, as the snapshots write "
                       "their fields.")
               .defaultValue(""))
      .add(Key::string("dataset",
                       std::string("The dataset of `file`; empty: /fields/scalars_") + s.name +
                           ", this scalar in a snapshot of a run with it.")
               .defaultValue(""))
      .add(Key::real("value", "The constant, or the linear profile's low end.")
               .defaultValue(0.0)
               .unit(s.units))
      .add(Key::choice("axis", choiceNames(kAxis), "Axis of the linear profile.")
               .defaultValue("y"))
      .add(Key::real("high_value", "Value of the linear profile at the axis' far end.")
               .defaultValue(0.0)
               .unit(s.units))
      .add(Key::real("blob_amplitude",
                     "Amplitude A of a Gaussian blob A exp(-|x - c|^2 / (2 w^2)) (nearest "
                     "periodic image); 0 = none.")
               .defaultValue(0.0)
               .unit(s.units))
      .add(Key::realList("blob_centre", "Centre c of the blob.")
               .lengths({2, 3})
               .sameLengthAs("grid.cells")
               .defaultEach(0.5)
               .unit("L"))
      .add(Key::real("blob_width", "Width w of the blob.").greaterThan(0).defaultValue(0.1).unit("L"))
      .add(Key::real("noise", "Amplitude of a uniform perturbation in [-noise, noise).")
               .atLeast(0)
               .defaultValue(0.0)
               .unit(s.units))
      .add(Key::integer("seed", "Seed of the perturbation.").atLeast(0).defaultValue(1))
      .add(Key::namedSections(
          "bodies",
          "The value held on the surface (and inside) of each body of fluids.bodies, under the "
          "body's name, e.g. cylinder: {value: 1.0}; every body needs one. Direct forcing as for "
          "the velocity: interpolation along the grid line to the surface.",
          Key::section("<name>", "One body.")
              .add(Key::real("value", "The value on the body.").required().unit(s.units))));
}

Key section() {
  return Key::section("scalars",
                      "Cell-centred scalars carried by the fluids flow (which the deck must "
                      "have), advanced in its RK3 stages: dq/dt + div(u q) = kappa lap q. The "
                      "temperature may drive the flow by Boussinesq buoyancy.")
      .optional()
      .add(scalarSection(kTemperature, "The temperature (buoyant with `boussinesq`)."))
      .add(Key::namedSections("tracers",
                              "Passive tracers, each under a name of your choice (it names its "
                              "field, scalars_<name>, and its diagnostics), e.g. dye: "
                              "{diffusivity: 1.0e-3, blob_amplitude: 1.0}.",
                              scalarSection(kTracer, "One tracer.")))
      .add(Key::section("boussinesq",
                        "Buoyancy -beta (T - T_ref) g of the temperature on the flow. Either "
                        "physical (expansion, with fluids.viscosity and "
                        "temperature.diffusivity) or dimensionless (rayleigh and prandtl: "
                        "kappa = nu / Pr, beta |g| = Ra nu kappa / (dT L^3)); both forms are "
                        "printed at start.")
               .optional()
               .add(Key::realList("gravity", "Gravity g; its direction is used in both forms.")
                        .lengths({2, 3})
                        .sameLengthAs("grid.cells")
                        .required()
                        .unit("L/T^2"))
               .add(Key::real("expansion", "Thermal expansion coefficient beta.")
                        .greaterThan(0)
                        .unit("1/Theta"))
               .add(Key::real("rayleigh", "Rayleigh number g beta dT L^3 / (nu kappa).")
                        .greaterThan(0))
               .add(Key::real("prandtl", "Prandtl number nu / kappa.").greaterThan(0))
               .add(Key::real("reference_temperature", "T_ref, where buoyancy vanishes.")
                        .defaultValue(0.0)
                        .unit("Theta"))
               .add(Key::real("length", "Length scale L of the Rayleigh number.")
                        .greaterThan(0)
                        .defaultValue(1.0)
                        .unit("L"))
               .add(Key::real("temperature_difference",
                              "Temperature scale dT of the Rayleigh number.")
                        .greaterThan(0)
                        .defaultValue(1.0)
                        .unit("Theta")));
}

std::array<double, 3> toArray3(std::vector<double> const& v, double fill = 0.0) {
  std::array<double, 3> r{fill, fill, fill};
  for (std::size_t a = 0; a < v.size() && a < 3; ++a) r[a] = v[a];
  return r;
}

double norm(std::array<double, 3> const& g) { return std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]); }

/// The Boussinesq numbers in both forms, as far as the deck gives them.
struct BoussinesqForms {
  double nu = 0, kappa = 0, beta = 0, g = 0, dT = 1, L = 1, rayleigh = 0, prandtl = 0;
};

BoussinesqForms boussinesqForms(io::Deck const& deck) {
  BoussinesqForms f;
  f.nu = deck.getDouble("fluids.viscosity");
  f.g = norm(toArray3(deck.getDoubleList("scalars.boussinesq.gravity")));
  f.L = deck.getDouble("scalars.boussinesq.length");
  f.dT = deck.getDouble("scalars.boussinesq.temperature_difference");
  if (deck.has("scalars.boussinesq.rayleigh")) {
    f.rayleigh = deck.getDouble("scalars.boussinesq.rayleigh");
    f.prandtl = deck.has("scalars.boussinesq.prandtl") ? deck.getDouble("scalars.boussinesq.prandtl")
                                                       : 1.0;
    f.kappa = f.nu / f.prandtl;
    f.beta = f.g > 0 ? f.rayleigh * f.nu * f.kappa / (f.g * f.dT * f.L * f.L * f.L) : 0.0;
  } else {
    f.kappa = deck.has("scalars.temperature.diffusivity")
                  ? deck.getDouble("scalars.temperature.diffusivity")
                  : 0.0;
    f.beta = deck.has("scalars.boussinesq.expansion") ? deck.getDouble("scalars.boussinesq.expansion")
                                                      : 0.0;
    f.prandtl = f.kappa > 0 ? f.nu / f.kappa : std::numeric_limits<double>::infinity();
    f.rayleigh = f.kappa > 0 ? f.g * f.beta * f.dT * f.L * f.L * f.L / (f.nu * f.kappa)
                             : std::numeric_limits<double>::infinity();
  }
  return f;
}

/// The dataset an initial field is read from: the deck's, or the scalar's in a snapshot.
std::string initialDataset(io::Deck const& deck, std::string const& key, std::string const& name) {
  std::string const d = deck.getString(key + ".dataset");
  return d.empty() ? "/fields/scalars_" + name : d;
}

/// The deck's scalars; with `decomp`, the values of an initial field from a file are read for
/// its block.
scalars::Parameters parameters(io::Deck const& deck, CartDecomposition const* decomp = nullptr) {
  auto const periodic = deck.getBoolList("grid.periodic");
  int const dims = static_cast<int>(periodic.size());
  bool const boussinesq = deck.has("scalars.boussinesq");
  scalars::Parameters p;
  for (DeckScalar const& n : deckScalars(deck)) {
    std::string const& key = n.key;
    scalars::ScalarParameters s;
    s.name = n.name;
    s.units = n.units;
    s.key = key;
    bool const derived = boussinesq && s.name == "temperature" &&
                         deck.has("scalars.boussinesq.rayleigh");
    s.diffusivity = derived ? boussinesqForms(deck).kappa
                    : deck.has(key + ".diffusivity") ? deck.getDouble(key + ".diffusivity")
                                                     : 0.0;
    s.advection = choiceValue(kAdvection, deck.getString(key + ".advection"));
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        auto& face = s.faces[2 * a + side];
        std::string const kind = deck.getString(key + ".boundary." + kFaces[2 * a + side]);
        bool const per = a < dims && periodic[a];
        face.kind = kind == "auto" ? (per ? scalars::BoundaryKind::Periodic
                                          : scalars::BoundaryKind::Flux)
                                   : choiceValue(kBoundary, kind);
        face.value = deck.getDouble(key + ".boundary_value." + kFaces[2 * a + side]);
      }
    std::string const in = key + ".";
    s.initial.profile = choiceValue(kProfile, deck.getString(in + "initial"));
    s.initial.value = deck.getDouble(in + "value");
    s.initial.axis = choiceValue(kAxis, deck.getString(in + "axis"));
    s.initial.highValue = deck.getDouble(in + "high_value");
    s.initial.blobAmplitude = deck.getDouble(in + "blob_amplitude");
    s.initial.blobCentre = toArray3(deck.getDoubleList(in + "blob_centre"));
    s.initial.blobWidth = deck.getDouble(in + "blob_width");
    s.initial.noise = deck.getDouble(in + "noise");
    s.initial.seed = static_cast<std::uint64_t>(deck.getInt(in + "seed"));
    if (s.initial.profile == scalars::Profile::Given && decomp) {
      std::array<int, 3> const cells = decomp->globalCells(), offset = decomp->offset(),
                               count = decomp->localCells();
      s.initial.given = std::make_shared<std::vector<double> const>(
          io::readGridField(deck.getString(in + "file"), initialDataset(deck, key, n.name),
                            dims, cells, offset, count));
    }
    p.scalars.push_back(s);
  }
  p.bodies = deck.has("fluids") && !deck.names("fluids.bodies").empty();
  if (boussinesq && deck.has("scalars.temperature")) {
    BoussinesqForms const f = boussinesqForms(deck);
    p.buoyancy.scalar = 0;  // the temperature comes first
    p.buoyancy.expansion = f.beta;
    p.buoyancy.gravity = toArray3(deck.getDoubleList("scalars.boussinesq.gravity"));
    p.buoyancy.reference = deck.getDouble("scalars.boussinesq.reference_temperature");
  }
  return p;
}

void check(io::Deck const& deck, io::DeckErrors& errors) {
  if (!deck.has("fluids")) {
    // The other rules read the flow's keys.
    errors.add(deck, "scalars", "the scalars are carried by a flow, and the deck has none",
               "expected a fluids section");
    return;
  }
  if (deckScalars(deck).empty())
    errors.add(deck, "scalars", "holds no scalar", "expected temperature, tracers or both");
  // Each scalar's field is scalars_<name>: a tracer cannot take the temperature's.
  if (deck.has("scalars.tracers"))
    for (std::string const& name : deck.names("scalars.tracers"))
      if (name == kTemperature.name)
        errors.add(deck, "scalars.tracers." + name,
                   "is named like the temperature (scalars.temperature), whose field it would "
                   "share",
                   "expected another name");
  // Every body holds every scalar at a value; a value for a body that is not there is a typo.
  std::vector<std::string> const bodies =
      deck.has("fluids") ? deck.names("fluids.bodies") : std::vector<std::string>{};
  for (DeckScalar const& n : deckScalars(deck)) {
    for (std::string const& body : bodies)
      if (!deck.has(n.key + ".bodies." + body))
        errors.add(deck, n.key,
                   str("gives no value on body '", body, "' (fluids.bodies.", body, ")"),
                   str("expected ", n.key, ".bodies.", body, ".value"));
    if (deck.has(n.key + ".bodies"))
      for (std::string const& name : deck.names(n.key + ".bodies"))
        if (std::find(bodies.begin(), bodies.end(), name) == bodies.end())
          errors.add(deck, n.key + ".bodies." + name, "names no body of fluids.bodies",
                     bodies.empty() ? std::string("expected no bodies section (the flow has none)")
                                    : str("expected the name of one of fluids.bodies (",
                                          bodies.front(), ", ...)"));
  }
  bool const boussinesq = deck.has("scalars.boussinesq");
  bool const rayleigh = boussinesq && deck.has("scalars.boussinesq.rayleigh");
  if (boussinesq) {
    if (!deck.has("scalars.temperature"))
      errors.add(deck, "scalars.boussinesq", "buoyancy without a temperature",
                 "expected a scalars.temperature section");
    bool const expansion = deck.has("scalars.boussinesq.expansion");
    if (expansion == rayleigh)
      errors.add(deck, "scalars.boussinesq",
                 expansion ? "gives both expansion and rayleigh" : "gives neither expansion nor rayleigh",
                 "expected expansion (physical form) or rayleigh and prandtl (dimensionless)");
    if (rayleigh && !deck.has("scalars.boussinesq.prandtl"))
      errors.add(deck, "scalars.boussinesq", "rayleigh without prandtl",
                 "expected prandtl beside rayleigh");
    if (!rayleigh && deck.has("scalars.boussinesq.prandtl"))
      errors.add(deck, "scalars.boussinesq.prandtl",
                 "the physical form (expansion) takes Pr from fluids.viscosity and "
                 "temperature.diffusivity",
                 "expected prandtl only with rayleigh");
    if (rayleigh && deck.has("scalars.temperature.diffusivity"))
      errors.add(deck, "scalars.temperature.diffusivity",
                 "given beside boussinesq.rayleigh, which derives it (kappa = nu / Pr)",
                 "expected no diffusivity in the dimensionless form");
    if (!(norm(toArray3(deck.getDoubleList("scalars.boussinesq.gravity"))) > 0))
      errors.add(deck, "scalars.boussinesq.gravity", "is zero", "expected a gravity vector");
  }
  for (DeckScalar const& n : deckScalars(deck)) {
    std::string const& key = n.key;
    bool const derived = rayleigh && n.name == kTemperature.name;
    if (!derived && !deck.has(key + ".diffusivity"))
      errors.add(deck, key, "has no diffusivity",
                 std::string("expected diffusivity (0 for pure advection)") +
                     (n.name == kTemperature.name
                          ? ", or boussinesq.rayleigh and prandtl to derive it"
                          : ""));
  }
  // An initial field from a file: the file given, and a dataset of the grid's cells in it.
  for (DeckScalar const& n : deckScalars(deck)) {
    std::string const& key = n.key;
    std::string const file = deck.getString(key + ".file");
    bool const fromFile = deck.getString(key + ".initial") == "file";
    if (fromFile && file.empty())
      errors.add(deck, key + ".file", "is not given",
                 str("expected the HDF5 file of the initial field (", key, ".initial is 'file')"));
    if (!fromFile && !file.empty())
      errors.add(deck, key + ".file",
                 str("is given, but ", key, ".initial is '", deck.getString(key + ".initial"), "'"),
                 str("expected ", key, ".initial: file (or remove ", key, ".file)"));
    if (!fromFile || file.empty()) continue;
    auto const cellList = deck.getIntList("grid.cells");
    std::array<int, 3> cells{1, 1, 1};
    bool sized = true;
    for (std::size_t a = 0; a < cellList.size() && a < 3; ++a) {
      sized = sized && cellList[a] > 0 && cellList[a] < (1 << 30);
      cells[a] = static_cast<int>(cellList[a]);
    }
    if (!sized) continue;  // grid.cells has its own error
    std::string const dataset = initialDataset(deck, key, n.name);
    std::string const problem =
        io::gridFieldProblem(file, dataset, static_cast<int>(cellList.size()), cells);
    if (problem.empty()) continue;
    // What is wrong with the file is the file's; what is wrong inside it, the dataset's when the
    // deck names one.
    bool const fileLevel = problem.rfind("cannot be opened", 0) == 0 ||
                           problem.rfind("is not an HDF5 file", 0) == 0;
    errors.add(deck, !fileLevel && deck.given(key + ".dataset") ? key + ".dataset" : key + ".file",
               str("field file '", file, "': ", problem),
               str("expected an HDF5 file whose dataset ", dataset,
                   " holds a finite value for each of the grid's cells"));
  }
  auto const periodic = deck.getBoolList("grid.periodic");
  std::array<bool, 3> per{false, false, false};
  for (std::size_t a = 0; a < periodic.size() && a < 3; ++a) per[a] = periodic[a];
  for (auto const& v : scalars::violations(parameters(deck), static_cast<int>(periodic.size()), per))
    errors.add(deck, v.key, v.what, v.expected);
}

std::vector<FieldInfo> fields(io::Deck const& deck) {
  std::vector<FieldInfo> f;
  for (DeckScalar const& n : deckScalars(deck)) f.push_back({n.name, n.units, Centering::Cell});
  return f;
}

double bytesPerCell(io::Deck const& deck) {
  double b = 0;
  // q and its stage increment, each scalar.
  b += 16.0 * static_cast<double>(deckScalars(deck).size());
  return b;  // the buoyancy is computed inside the flow's momentum stage: no field of its own
}

/// A TVD scalar reads two cells across a block's faces: every rank's block needs at least two
/// cells along each axis.
void checkDecomposition(io::Deck const& deck, CartDecomposition const& decomp,
                        io::DeckErrors& errors) {
  bool tvd = false;
  for (DeckScalar const& n : deckScalars(deck))
    tvd = tvd || deck.getString(n.key + ".advection") == "tvd";
  if (!tvd) return;
  char const* const axis[3] = {"x", "y", "z"};
  for (int a = 0; a < decomp.dims(); ++a) {
    int const n = decomp.globalCells()[a], ranks = decomp.procGrid()[a];
    if (n / ranks < 2)
      errors.add(deck, "grid.cells",
                 str("the ranks split ", n, " cells along ", axis[a], " into blocks of ", n / ranks,
                     " (", decomp.describe(), "); a TVD scalar reads two cells across a block face"),
                 str("expected at most ", n / 2, " ranks along ", axis[a]));
  }
}

class ScalarsModel final : public Model, public fluids::StageCoupling {
 public:
  explicit ScalarsModel(ModelContext const& c)
      : m_deck(c.deck),
        m_decomp(c.decomp),
        m_length(c.length),
        m_params(parameters(c.deck, &c.decomp)),
        m_model(ExecSpace(), c.rt.comm(), c.decomp, c.length, m_params) {}

  std::vector<std::string> startLines() const override {
    std::vector<std::string> lines;
    int const dims = m_decomp.dims();
    for (auto const& s : m_params.scalars) {
      std::string faces;
      for (int f = 0; f < 2 * dims; ++f)
        faces += str(faces.empty() ? "" : ", ", kFaces[f], " ", toString(s.faces[f].kind),
                     s.faces[f].kind == scalars::BoundaryKind::Periodic
                         ? std::string()
                         : str(" ", s.faces[f].value));
      lines.push_back(str("scalars: ", s.name, ": kappa ", s.diffusivity, " [L^2/T], advection ",
                          toString(s.advection), ", ", faces, "; diffusion limit of dt ",
                          scalars::diffusionLimit(s.diffusivity, dims, m_model.spacing()), " [T]"));
      if (s.initial.profile == scalars::Profile::Given)
        lines.push_back(str("scalars: ", s.name, ": initial field from '",
                            m_deck.getString(s.key + ".file"), "' dataset ",
                            initialDataset(m_deck, s.key, s.name)));
    }
    if (m_params.buoyancy.scalar >= 0) {
      BoussinesqForms const f = boussinesqForms(m_deck);
      auto const& g = m_params.buoyancy.gravity;
      lines.push_back(str("scalars: Boussinesq buoyancy -beta (T - T_ref) g: nu ", f.nu,
                          " [L^2/T], kappa ", f.kappa, " [L^2/T], beta ", f.beta, " [1/Theta], g (", g[0],
                          ", ", g[1], dims == 3 ? str(", ", g[2]) : std::string(), ") [L/T^2], T_ref ",
                          m_params.buoyancy.reference, " [Theta]; Ra ", f.rayleigh, ", Pr ", f.prandtl,
                          " (L ", f.L, " [L], dT ", f.dT, " [Theta])"));
    }
    double localCells = 1;
    for (int a = 0; a < dims; ++a) localCells *= m_decomp.localCells()[a];
    lines.push_back(str("scalars: ", static_cast<double>(m_model.bytes()) / localCells,
                        " bytes per cell (fields and halo buffers, ghosts included)"));
    return lines;
  }

  void couple(ModelSet& models) override {
    auto* carrier = models.find<CarryingFlow>();
    if (!carrier)
      throw ConfigError("scalars: no flow to carry the scalars; the deck needs a fluids section");
    carrier->flow().couple(*this);
    // The flow's bodies hold each scalar at the deck's value.
    if (auto const* immersed = carrier->flow().bodies()) {
      int const dims = m_decomp.dims();
      std::vector<scalars::SolidBody> solids;
      for (fluids::Body const& body : immersed->bodies()) {
        fluids::BodyGeometry const g = fluids::geometry(body, dims);
        scalars::SolidBody solid;
        solid.distance = [g](double x, double y, double z) { return g.distance(x, y, z); };
        solid.lower = body.lower(m_length);
        solid.upper = body.upper(m_length);
        for (auto const& s : m_params.scalars)
          solid.values.push_back(m_deck.getDouble(s.key + ".bodies." + body.name + ".value"));
        solids.push_back(std::move(solid));
      }
      m_model.setBodies(ExecSpace(), solids);
    }
  }

  // fluids::StageCoupling
  fluids::LinearForce force(fluids::RkStage const&) const override { return m_model.buoyancy(); }
  void advance(ExecSpace const& space, std::array<GhostedView<MemSpace>, 3> const& u,
               fluids::RkStage const& stage) override {
    m_model.stage(space, u, stage.dt, stage.a, stage.b);
  }

  double maxDt(ExecSpace const&) override {
    // Diffusion's limit; the advection CFL is the flow's own (the same velocity and stages).
    double const dt = m_model.stableDt();
    return std::isfinite(dt) ? dt : std::numeric_limits<double>::max();
  }
  void step(ExecSpace const&, double dt, long long, bool) override {
    // The stages ran inside the flow's step, which comes first in the registry.
    m_model.finishStep(dt);
  }
  long long stepCount() const override { return m_model.stepCount(); }
  double time() const override { return m_model.time(); }
  double lastDt() const override { return m_model.lastDt(); }
  std::pair<double, std::string> work() const override {
    return {globalCellCount(m_decomp) * m_model.count(), "cell-updates"};
  }

  std::string progress(ExecSpace const& space) override {
    std::string line;
    for (int s = 0; s < m_model.count(); ++s) {
      auto const d = m_model.diagnostics(space, s);
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s%s mean %.10e [%.4e, %.4e]", s ? "  " : "",
                    m_params.scalars[s].name.c_str(), d.mean, d.min, d.max);
      line += buf;
      for (int f : nusseltFaces(s)) {
        std::snprintf(buf, sizeof buf, "  Nu %s %.5f", kFaces[f], d.nusselt[f]);
        line += buf;
      }
    }
    return line;
  }
  std::vector<Column> columns() const override {
    std::vector<Column> c;
    for (int s = 0; s < m_model.count(); ++s) {
      auto const& sp = m_params.scalars[s];
      std::string const u2 = sp.units == "1" ? "1" : sp.units + "^2";
      c.push_back({sp.name + "_mean", sp.units});
      c.push_back({sp.name + "_min", sp.units});
      c.push_back({sp.name + "_max", sp.units});
      c.push_back({sp.name + "_variance", u2});
      for (int f : nusseltFaces(s)) c.push_back({sp.name + "_nusselt_" + kFaces[f], "1"});
    }
    return c;
  }
  std::vector<double> values(ExecSpace const& space) override {
    std::vector<double> v;
    for (int s = 0; s < m_model.count(); ++s) {
      auto const d = m_model.diagnostics(space, s);
      v.insert(v.end(), {d.mean, d.min, d.max, d.variance});
      for (int f : nusseltFaces(s)) v.push_back(d.nusselt[f]);
    }
    return v;
  }

  void snapshot(ExecSpace const& space, std::vector<std::string> const& fields,
                io::SnapshotData& data) override {
    data.hasGrid = true;
    data.grid = gridGeometry(m_decomp, m_length);
    for (int s = 0; s < m_model.count(); ++s) {
      auto const& sp = m_params.scalars[s];
      for (auto const& name : fields)
        if (name == sp.name)
          data.fields.push_back({sp.name, sp.units, ownedEntries(space, m_model.field(s))});
    }
  }
  void save(ExecSpace const& space, StateOut& out) override {
    saveGridSize(out, m_decomp, m_length);
    out.reals("last_dt") = {m_model.lastDt()};
    for (int s = 0; s < m_model.count(); ++s)
      out.grid(checkpointGrid(space, m_model.field(s), m_decomp, m_params.scalars[s].name,
                              m_params.scalars[s].units));
  }
  void restore(ExecSpace const& space, StateIn const& in) override {
    requireGridSize(in, m_decomp, m_length);
    std::vector<std::vector<double>> q;
    for (int s = 0; s < m_model.count(); ++s)
      q.push_back(in.readOwned(m_model.field(s), m_decomp, m_params.scalars[s].name));
    m_model.restoreState(space, q, in.file().step(), in.file().time(), in.real("last_dt"));
  }

  std::string finalLine(ExecSpace const& space, double, long long) override {
    std::string line = str("t ", m_model.time(), " [T]");
    for (int s = 0; s < m_model.count(); ++s) {
      auto const d = m_model.diagnostics(space, s);
      line += str(", ", m_params.scalars[s].name, " mean ", d.mean, " in [", d.min, ", ", d.max,
                  "], variance ", d.variance);
      for (int f : nusseltFaces(s)) line += str(", Nu ", kFaces[f], " ", d.nusselt[f]);
      line += str(", checksum ", hexBits(d.checksum), " (", d.checksum, ")");
    }
    return line;
  }

 private:
  /// The faces of scalar s whose Nusselt number is defined (both ends of the axis fixed, at
  /// different values).
  std::vector<int> nusseltFaces(int s) const {
    std::vector<int> f;
    auto const& faces = m_params.scalars[s].faces;
    for (int a = 0; a < m_decomp.dims(); ++a)
      if (faces[2 * a].kind == scalars::BoundaryKind::Value &&
          faces[2 * a + 1].kind == scalars::BoundaryKind::Value &&
          faces[2 * a].value != faces[2 * a + 1].value) {
        f.push_back(2 * a);
        f.push_back(2 * a + 1);
      }
    return f;
  }

  io::Deck const& m_deck;
  CartDecomposition const& m_decomp;
  std::array<double, 3> m_length;
  scalars::Parameters m_params;
  scalars::Model m_model;
};

}  // namespace

ModelSpec scalarsModel() {
  ModelSpec s = modelSpec<ScalarsModel>("scalars", section, check, fields, bytesPerCell);
  s.checkDecomposition = checkDecomposition;
  return s;
}

}  // namespace eddy::app
