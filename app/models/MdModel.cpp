// The molecular dynamics model's adapter: its deck section, the deck read into md::Parameters
// (with the atoms of a data file to start from), the Lennard-Jones system as `eddy run` drives it
// (physics/md holds the system itself), and its analyses written as CSV (g(r), speeds).
#include "../DeckChoice.hpp"
#include "../Format.hpp"
#include "../Model.hpp"

#include "eddy/core/Log.hpp"
#include "eddy/io/ExtendedXyz.hpp"
#include "eddy/io/H5md.hpp"
#include "eddy/io/LammpsData.hpp"
#include "eddy/io/ParticleFile.hpp"
#include "eddy/io/TimeSeries.hpp"
#include "md/Analysis.hpp"
#include "md/System.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

namespace eddy::app {

namespace {

using io::Key;

constexpr Choice<bool> kLattice[] = {{"fcc", true}, {"random", false}};
constexpr Choice<neighbor::ListKind> kList[] = {{"half", neighbor::ListKind::Half},
                                                {"full", neighbor::ListKind::Full}};
constexpr Choice<bool> kMixing[] = {{"lorentz_berthelot", true}, {"none", false}};
constexpr Choice<md::Thermostat> kThermostat[] = {{"none", md::Thermostat::None},
                                                  {"berendsen", md::Thermostat::Berendsen},
                                                  {"langevin", md::Thermostat::Langevin},
                                                  {"nose_hoover", md::Thermostat::NoseHoover}};
constexpr Choice<bool> kBarostat[] = {{"none", false}, {"mtk", true}};

Key section() {
  return Key::section(
             "md",
             "Lennard-Jones 12-6 molecular dynamics in Lennard-Jones units (lengths in sigma, "
             "energies in epsilon, the atom mass m, time tau = sigma sqrt(m / epsilon), "
             "temperature epsilon / k_B: each 1) in a periodic 3D box. The atoms start on a "
             "lattice: grid.cells counts cubic lattice cells of edge (4 / density)^(1/3) per "
             "axis, 4 atoms each (N = 4 nx ny nz); or from a data file (data_file): grid.cells "
             "counts the cells its box is split into. The ranks split these cells "
             "(parallel.decomposition applies; each rank's block must be at least cutoff + skin "
             "wide), grid.periodic must be all true and grid.length is not used. Velocity Verlet "
             "(NVE), optionally thermostatted; neighbour lists with a skin, rebuilt when an atom "
             "moved more than skin/2.")
      .optional()
      .add(Key::string("data_file",
                       "Start from the atoms of this file (read from the working directory) "
                       "instead of the lattice: a LAMMPS data file (atomic style: "
                       "https://docs.lammps.org/read_data.html), an extended XYZ file (named "
                       ".xyz or .extxyz; its last frame: Lattice, Origin, and the columns "
                       "species, pos and optionally velo, mass and id; "
                       "https://github.com/libAtoms/extxyz) or an H5MD trajectory (its last "
                       "frame; md.trajectory writes one). Its box (orthogonal, periodic; outputs "
                       "keep its low corner), atoms with their ids, types and image flags, "
                       "velocities when it has them (else they are drawn at md.temperature) and "
                       "masses when it gives them (else 1; md.species.<name>.mass overrides). An "
                       "XYZ file's species names are the type names (md.species, when it names "
                       "the types, must name each); a data file's Pair Coeffs (lj/cut) give the "
                       "pairs md.species and md.pairs leave out. lattice and density are then not "
                       "used. Empty = the lattice.")
               .defaultValue(""))
      .add(Key::choice("lattice", choiceNames(kLattice),
                       "Initial positions: the fcc lattice, or 4 atoms uniformly at random in each "
                       "lattice cell (overlaps give huge forces: for tests, or with a thermostat "
                       "and a small dt).")
               .defaultValue("fcc"))
      .add(Key::real("density", "Number density rho*.")
               .greaterThan(0)
               .defaultValue(0.8442)
               .unit("sigma^-3"))
      .add(Key::real("temperature",
                     "Initial temperature T*: Gaussian velocities drawn per atom from (seed, "
                     "global id), zero total momentum, rescaled to exactly T* (the same state on "
                     "any rank count).")
               .atLeast(0)
               .defaultValue(1.44)
               .unit("epsilon/k_B"))
      .add(Key::real("cutoff", "Cutoff radius rc of the potential.")
               .greaterThan(0)
               .defaultValue(2.5)
               .unit("sigma"))
      .add(Key::real("skin", "Verlet skin: lists hold pairs within rc + skin.")
               .atLeast(0)
               .defaultValue(0.3)
               .unit("sigma"))
      .add(Key::boolean("shift", "Shift the potential so that U(rc) = 0 (of each pair).")
               .defaultValue(false))
      .add(Key::boolean("force_shift",
                        "Force-shifted potential: U(r) - U(rc) + (r - rc) F(rc) and F(r) - F(rc) "
                        "(of each pair), so that the force and the energy both go to zero at the "
                        "cutoff (energy conservation without a jump at rc; shift then says "
                        "nothing).")
               .defaultValue(false))
      .add(Key::boolean("wca",
                        "Weeks-Chandler-Andersen: every pair cut at its minimum 2^(1/6) sigma and "
                        "shifted, so purely repulsive (the pairs' cutoffs given elsewhere and "
                        "md.cutoff are not used: the neighbour lists, and g(r), reach the "
                        "largest WCA cutoff plus the skin). Not with tail.")
               .defaultValue(false))
      .add(Key::boolean("tail",
                        "Add the analytic long-range corrections of every pair beyond its "
                        "cutoff (the atoms spread uniformly there) to the potential energy and "
                        "the pressure, as LAMMPS' pair_modify tail yes; the forces do not "
                        "change. Not with force_shift.")
               .defaultValue(false))
      .add(Key::namedSections(
          "species",
          "Atom types, each under a name of your choice (letters and digits), in the order of "
          "their type numbers (1, 2, ... of a data file), e.g. A: {fraction: 0.8}. Absent: one "
          "type, epsilon = sigma = 1 (the units). Each type's own pair A-A has its epsilon, sigma "
          "and cutoff, and each type its mass.",
          Key::section("<name>", "One atom type.")
              .add(Key::real("fraction",
                             "Its share of the lattice's atoms (the shares add up to 1): the "
                             "types go to the atoms evenly mixed, by the golden-ratio sequence "
                             "of their ids, each count within a few atoms of its share. Not "
                             "used with data_file.")
                       .atLeast(0)
                       .atMost(1)
                       .defaultValue(0.0))
              .add(Key::real("mass",
                             "Mass of its atoms; 0 = the data file's (its Masses section), else 1 "
                             "(the mass unit).")
                       .atLeast(0)
                       .defaultValue(0.0)
                       .unit("m"))
              .add(Key::real("epsilon", "Energy of its like pair.")
                       .greaterThan(0)
                       .defaultValue(1.0)
                       .unit("epsilon"))
              .add(Key::real("sigma", "Length of its like pair.")
                       .greaterThan(0)
                       .defaultValue(1.0)
                       .unit("sigma"))
              .add(Key::real("cutoff", "Cutoff of its like pair; 0 = md.cutoff (at most that).")
                       .atLeast(0)
                       .defaultValue(0.0)
                       .unit("sigma"))))
      .add(Key::namedSections(
          "pairs",
          "Pairs of unlike types, each under the names of its two types joined by _ (A_B), e.g. "
          "A_B: {epsilon: 1.5, sigma: 0.8, cutoff: 2.0}. A pair not given mixes its two types' "
          "own parameters by `mixing`.",
          Key::section("<type>_<type>", "One pair of unlike types.")
              .add(Key::real("epsilon", "Energy of the pair.")
                       .greaterThan(0)
                       .required()
                       .unit("epsilon"))
              .add(
                  Key::real("sigma", "Length of the pair.").greaterThan(0).required().unit("sigma"))
              .add(Key::real("cutoff",
                             "Cutoff of the pair; 0 = the mean of its types' cutoffs (at most "
                             "md.cutoff).")
                       .atLeast(0)
                       .defaultValue(0.0)
                       .unit("sigma"))))
      .add(Key::choice("mixing", choiceNames(kMixing),
                       "The parameters of an unlike pair that md.pairs does not give: "
                       "lorentz_berthelot (epsilon the geometric mean of its types', sigma and "
                       "cutoff the arithmetic means), or none (md.pairs must give every unlike "
                       "pair).")
               .defaultValue("lorentz_berthelot"))
      .add(Key::real("dt", "Time step.").greaterThan(0).defaultValue(0.005).unit("tau"))
      .add(Key::choice("neighbor", choiceNames(kList, {"auto"}),
                       "Neighbour list: half (each pair once, scatter-add forces, ghost forces "
                       "summed back to their owners), full (no atomics, twice the pairs), or "
                       "auto: the faster on the backend (full on GPUs, half on CPUs).")
               .defaultValue("auto"))
      .add(Key::boolean("sort", "Reorder the atoms by bin at every rebuild (memory locality).")
               .defaultValue(true))
      .add(Key::choice("thermostat", choiceNames(kThermostat),
                       "Thermostat; none gives NVE. berendsen rescales the velocities towards "
                       "the target (equilibration only: it does not sample the canonical "
                       "ensemble); langevin is BAOAB Langevin dynamics (friction and noise "
                       "applied exactly between two half drifts), which samples the canonical "
                       "ensemble at any damping; nose_hoover is a Nose-Hoover chain (MTK "
                       "integration), deterministic and canonical, with a conserved extended "
                       "energy (the diagnostics' H).")
               .defaultValue("none"))
      .add(Key::real("thermostat_temperature", "Target temperature of the thermostat.")
               .greaterThan(0)
               .defaultValue(1.44)
               .unit("epsilon/k_B"))
      .add(Key::integer("thermostat_steps",
                        "Steps the thermostat acts for, then NVE; 0 = the whole run.")
               .atLeast(0)
               .defaultValue(0))
      .add(Key::real("berendsen_tau", "Berendsen coupling time.")
               .greaterThan(0)
               .defaultValue(0.5)
               .unit("tau"))
      .add(Key::real("langevin_damping", "Langevin friction coefficient gamma.")
               .greaterThan(0)
               .defaultValue(1.0)
               .unit("1/tau"))
      .add(Key::real("nose_hoover_tau",
                     "Period of the Nose-Hoover chain's oscillation (its masses: Q_1 = Nf T "
                     "tau^2, Q_j = T tau^2, as LAMMPS' Tdamp); about 100 time steps is usual.")
               .greaterThan(0)
               .defaultValue(0.5)
               .unit("tau"))
      .add(Key::integer("nose_hoover_chain",
                        "Thermostats in the Nose-Hoover chain (and in the barostat's).")
               .atLeast(1)
               .atMost(10)
               .defaultValue(3))
      .add(Key::choice("barostat", choiceNames(kBarostat),
                       "Barostat; none keeps the box. mtk is the isotropic Martyna-Tobias-Klein "
                       "barostat (Tuckerman et al. 2006 integration, as LAMMPS' fix npt iso): "
                       "with thermostat nose_hoover, which it requires, the atoms sample the "
                       "isothermal-isobaric ensemble at thermostat_temperature and pressure; the "
                       "box edges scale together about the box's low corner, the rank blocks "
                       "with them. The diagnostics' H then includes the barostat's energy and "
                       "P V; V and rho are added to them. Stops with the thermostat after "
                       "thermostat_steps.")
               .defaultValue("none"))
      .add(Key::real("pressure",
                     "Target pressure of the barostat (the tail correction's included with "
                     "tail).")
               .defaultValue(0.0)
               .unit("epsilon/sigma^3"))
      .add(Key::real("barostat_tau",
                     "Period of the box's oscillation (its mass W = (Nf + 3) T tau^2, as "
                     "Tuckerman et al.; LAMMPS' Pdamp); about 1000 time steps is usual.")
               .greaterThan(0)
               .defaultValue(5.0)
               .unit("tau"))
      .add(Key::integer("seed",
                        "Seed of the counter-based random numbers (velocities, random lattice, "
                        "Langevin noise), which are functions of (seed, atom id, step).")
               .atLeast(0)
               .defaultValue(12345))
      .add(Key::boolean("reproducible",
                        "Bitwise the same trajectory on any rank count: forces from the full list "
                        "summed in a canonical order (bins of one grid shared by the ranks, each "
                        "ordered by global id), reproducible global sums (neighbor: half is "
                        "replaced by full).")
               .defaultValue(false))
      .add(Key::section("rdf",
                        "Radial distribution function g(r) from the neighbour-list pairs (owned "
                        "and ghost), written to <output_dir>/<run.name>.rdf.csv; with several "
                        "types also each pair of types' g_<A>_<B>.")
               .add(Key::integer("every", "Sample g(r) every this many steps; 0 = never.")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::real("r_max", "Largest distance; 0 = the cutoff (at most the cutoff).")
                        .atLeast(0)
                        .defaultValue(0.0)
                        .unit("sigma"))
               .add(Key::integer("bins", "Number of shells over [0, r_max).")
                        .atLeast(1)
                        .atMost(1 << 20)
                        .defaultValue(100)))
      .add(Key::section("msd",
                        "Mean-squared displacement of the unwrapped positions since step `start` "
                        "(all atoms and, with several types, each type), written to "
                        "<output_dir>/<run.name>.msd.csv; at the end of the run the "
                        "self-diffusion coefficient D = slope / 6 of its least-squares line over "
                        "the lags from `fit_from` on is logged.")
               .add(Key::integer("every", "A sample every this many steps; 0 = none.")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::integer("start",
                                 "The step the displacements are measured from (after "
                                 "equilibration).")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::real("fit_from",
                              "The shortest lag the slope for D is fitted over (past the "
                              "ballistic start, where the MSD grows as t^2); 0 = half the "
                              "longest lag of the run.")
                        .atLeast(0)
                        .defaultValue(0.0)
                        .unit("tau")))
      .add(Key::section("vacf",
                        "Velocity autocorrelation C(t) = <v(t0 + t) . v(t0)> (all atoms and, "
                        "with several types, each type), averaged over the atoms and over time "
                        "origins t0: from step `start` on, the samples are cut into windows of "
                        "`lags` samples, each window's first sample its origin. Written at the "
                        "end of the run to <output_dir>/<run.name>.vacf.csv with the Green-Kubo "
                        "self-diffusion coefficient D(t) = 1/3 of the integral of C up to t; the "
                        "last D is logged.")
               .add(Key::integer("every", "A sample every this many steps; 0 = none.")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::integer("lags",
                                 "Samples per window (lags 0 .. lags - 1): a window spans lags x "
                                 "every steps, longer than C takes to decay.")
                        .atLeast(2)
                        .atMost(1 << 20)
                        .defaultValue(100))
               .add(Key::integer("start", "The first origin's step (after equilibration).")
                        .atLeast(0)
                        .defaultValue(0)))
      .add(Key::section("trajectory",
                        "Every atom's position (in the data file's frame), image counts and "
                        "velocity, with the box, appended as frames to the H5MD file "
                        "<output_dir>/<run.name>.h5md (read by MDAnalysis with "
                        "convert_units=False, and VMD's h5md plugin); atoms in order of id. A "
                        "restart continues the file, dropping the frames after its step.")
               .add(Key::integer("every", "A frame every this many steps; 0 = none.")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::boolean("velocities", "Frames hold the velocities.").defaultValue(true)))
      .add(Key::section("velocity_histogram",
                        "Distribution of the atom speeds |v|, written to "
                        "<output_dir>/<run.name>.speeds.csv.")
               .add(Key::integer("every", "Sample every this many steps; 0 = never.")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::integer("bins", "Number of bins over [0, v_max).")
                        .atLeast(1)
                        .atMost(1 << 20)
                        .defaultValue(50))
               .add(Key::real("v_max", "Upper end of the bins; faster atoms are counted apart.")
                        .greaterThan(0)
                        .defaultValue(5.0)
                        .unit("sigma/tau")));
}

/// A data file read into a configuration, or why it cannot start the run (a deck error at
/// md.data_file: what is wrong and what was expected).
struct StartFile {
  std::shared_ptr<md::Configuration const> atoms;  ///< null when there is a problem
  std::string problem, expected;
  int types = 0;                            ///< the file's atom types
  std::vector<io::PairCoefficients> pairs;  ///< its Pair Coeffs or PairIJ Coeffs
  std::vector<double> masses;               ///< of each type (empty: the file gives none)
  std::vector<std::string> names;           ///< of each type; empty: numbered 1 .. types
};

/// The configuration of LAMMPS data file `d` (types 1 .. n become 0 .. n - 1) and its pair
/// coefficients, or the reason it does not fit the md model.
StartFile configurationOf(io::LammpsData const& d, std::string const& path) {
  StartFile out;
  auto refuse = [&](std::string what, std::string expected) {
    out.problem = str("'", path, "' ", what);
    out.expected = std::move(expected);
    return out;
  };
  if (!d.pairStyle.empty() && d.pairStyle != "lj/cut")
    return refuse(str("gives pair coefficients of style ", d.pairStyle),
                  "expected lj/cut (epsilon, sigma and optionally a cutoff)");
  for (auto const& c : d.pairs)
    if (c.values.size() < 2 || c.values.size() > 3)
      return refuse(
          str("has the pair coefficients ", listText(c.values), " for types ", c.i, " and ", c.j),
          "expected epsilon, sigma and optionally a cutoff (lj/cut)");
  auto c = std::make_shared<md::Configuration>();
  std::size_t const n = d.id.size();
  for (int a = 0; a < 3; ++a) {
    c->lo[a] = d.lo[a];
    c->length[a] = d.hi[a] - d.lo[a];
  }
  c->id.assign(d.id.begin(), d.id.end());
  c->type.reserve(n);
  for (int t : d.type) c->type.push_back(t - 1);
  c->x.reserve(3 * n);
  c->image.reserve(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      c->x.push_back(d.position[i][a]);
      c->image.push_back(d.image[i][a]);
    }
  for (auto const& v : d.velocity) c->v.insert(c->v.end(), v.begin(), v.end());
  out.atoms = std::move(c);
  out.types = d.types;
  out.pairs = d.pairs;
  out.masses = d.masses;
  return out;
}

/// The configuration of the last frame of H5MD trajectory `path` (species 0 .. n - 1 become the
/// types), or the reason it does not fit the md model.
StartFile configurationOfH5md(std::string const& path) {
  StartFile out;
  long long frames = 0;
  io::H5mdParticles const p = io::readH5mdParticles(path, frames);
  if (frames < 1) {
    out.problem = str("'", path, "' holds no frame");
    out.expected = "expected an H5MD trajectory with at least one frame";
    return out;
  }
  io::H5mdFrame const f = io::readH5mdFrame(path, frames - 1);
  std::vector<double> mass(md::kMaxTypes, 0.0);
  for (std::size_t i = 0; i < p.id.size(); ++i) {
    int const t = p.species[i];
    std::string what;
    if (t < 0 || t >= md::kMaxTypes)
      what = str("gives particle ", p.id[i], " the species ", t);
    else if (!(p.mass[i] > 0) || (mass[t] > 0 && p.mass[i] != mass[t]))
      what = str("gives particle ", p.id[i], " of species ", t, " the mass ", p.mass[i]);
    if (!what.empty()) {
      out.problem = str("'", path, "' ", what);
      out.expected =
          str("expected species 0 to ", md::kMaxTypes - 1, " and one mass > 0 per species");
      return out;
    }
    mass[t] = p.mass[i];
    out.types = std::max(out.types, t + 1);
  }
  for (int t = 0; t < out.types; ++t) out.masses.push_back(mass[t] > 0 ? mass[t] : 1.0);
  for (int a = 0; a < 3; ++a)
    if (!p.periodic[a]) {
      out.problem = str("'", path, "' has a box that is not periodic along axis ", a);
      out.expected = "expected a box periodic on every axis";
      return out;
    }
  auto c = std::make_shared<md::Configuration>();
  for (int a = 0; a < 3; ++a) {
    c->lo[a] = f.lower[a];
    c->length[a] = f.upper[a] - f.lower[a];
  }
  c->id.assign(p.id.begin(), p.id.end());
  c->type.assign(p.species.begin(), p.species.end());
  for (std::size_t i = 0; i < p.id.size(); ++i)
    for (int a = 0; a < 3; ++a) {
      c->x.push_back(f.position[i][a]);
      c->image.push_back(f.image[i][a]);
      if (p.velocities) c->v.push_back(f.velocity[i][a]);
    }
  out.atoms = std::move(c);
  return out;
}

/// The configuration of the last frame of extended XYZ file `x` (its species, in order of first
/// appearance, become the types; ids, masses and velocities where it gives them).
StartFile configurationOfXyz(io::ExtendedXyz const& x, std::string const& path) {
  StartFile out;
  for (std::string const& name : x.species)
    if (name.find('_') != std::string::npos) {
      out.problem = str("'", path, "' has atoms of species '", name, "'");
      out.expected = "expected species names without _ (md.pairs joins two names with _)";
      return out;
    }
  if (x.species.size() > static_cast<std::size_t>(md::kMaxTypes)) {
    out.problem = str("'", path, "' has ", x.species.size(), " species");
    out.expected = str("expected at most ", md::kMaxTypes);
    return out;
  }
  auto c = std::make_shared<md::Configuration>();
  std::size_t const n = x.id.size();
  for (int a = 0; a < 3; ++a) {
    c->lo[a] = x.lo[a];
    c->length[a] = x.hi[a] - x.lo[a];
  }
  c->id.assign(x.id.begin(), x.id.end());
  c->type.assign(x.type.begin(), x.type.end());
  c->x.reserve(3 * n);
  for (auto const& p : x.position) c->x.insert(c->x.end(), p.begin(), p.end());
  c->image.assign(3 * n, 0);
  for (auto const& v : x.velocity) c->v.insert(c->v.end(), v.begin(), v.end());
  out.atoms = std::move(c);
  out.types = static_cast<int>(x.species.size());
  out.masses = x.masses;
  out.names = x.species;
  return out;
}

/// `file` with its named types in the order of md.species (`deckNames`, when the deck names
/// any): a species of the file the deck does not name is a problem; a species the file has no
/// atoms of keeps mass 1 unless the deck gives one.
StartFile inDeckOrder(StartFile file, std::vector<std::string> const& deckNames,
                      std::string const& path) {
  if (!file.atoms || file.names.empty() || deckNames.empty() || file.names == deckNames)
    return file;
  std::vector<int> to(file.names.size());
  for (std::size_t t = 0; t < file.names.size(); ++t) {
    auto const it = std::find(deckNames.begin(), deckNames.end(), file.names[t]);
    if (it == deckNames.end()) {
      StartFile out;
      out.problem = str("'", path, "' has atoms of species '", file.names[t],
                        "', which md.species does not name");
      out.expected = str("expected the species of md.species: ", listText(deckNames));
      return out;
    }
    to[t] = static_cast<int>(it - deckNames.begin());
  }
  auto c = std::make_shared<md::Configuration>(*file.atoms);
  for (int& t : c->type) t = to[static_cast<std::size_t>(t)];
  std::vector<double> masses(deckNames.size(), 1.0);
  for (std::size_t t = 0; t < file.masses.size(); ++t)
    masses[static_cast<std::size_t>(to[t])] = file.masses[t];
  file.atoms = std::move(c);
  file.types = static_cast<int>(deckNames.size());
  file.masses = file.masses.empty() ? std::vector<double>{} : masses;
  file.names = deckNames;
  return file;
}

/// The configuration of md.data_file (null for the lattice) in md.species' order, read and
/// ordered once per file version and species: the check, the memory estimate and the run all
/// ask for it. Keyed by the path, size and modification time, and the deck's species.
StartFile startFile(io::Deck const& deck) {
  struct Read {
    std::string path;
    std::uintmax_t size = 0;
    std::filesystem::file_time_type time;
    std::vector<std::string> names;
    StartFile ordered;
  };
  static std::optional<Read> last;
  std::string const path = deck.getString("md.data_file");
  if (path.empty()) return {};
  std::error_code sizeError, timeError;
  std::uintmax_t const size = std::filesystem::file_size(path, sizeError);
  auto const time = std::filesystem::last_write_time(path, timeError);
  bool const known = !sizeError && !timeError;
  auto const deckNames = deck.names("md.species");
  if (known && last && last->path == path && last->size == size && last->time == time &&
      last->names == deckNames)
    return last->ordered;
  StartFile file;
  try {
    if (io::isHdf5File(path))
      file = configurationOfH5md(path);
    else if (io::isExtendedXyzPath(path))
      file = configurationOfXyz(io::readExtendedXyz(path), path);
    else
      file = configurationOf(io::readLammpsData(path), path);
  } catch (IoError const& e) {
    // The reader's message ends in what it expected, when it says.
    std::string const what = e.what();
    auto const cut = what.rfind("; expected ");
    file.problem = what.substr(0, cut);
    file.expected =
        cut == std::string::npos
            ? "expected a readable LAMMPS data file, extended XYZ file or H5MD trajectory"
            : what.substr(cut + 2);
  }
  file = inDeckOrder(std::move(file), deckNames, path);
  if (known) last = Read{path, size, time, deckNames, file};
  return file;
}

/// The atom types of the deck (and of the data file it starts from) and their pair parameters,
/// with the deck errors they give.
struct Interactions {
  std::vector<std::string> names;         ///< of type t at t
  std::vector<double> masses;             ///< of type t at t
  std::vector<double> fractions;          ///< the lattice's shares (empty: one type)
  std::vector<md::PairParameters> pairs;  ///< types x types
  std::vector<Violation> errors;
};

/// md.species and md.pairs (and a data file's pair coefficients where the deck gives none):
/// each type's own pair from its species entry, else from the file, else epsilon = sigma = 1
/// cut at md.cutoff; each unlike pair from md.pairs, else from the file's PairIJ Coeffs, else
/// mixed by md.mixing.
Interactions interactions(io::Deck const& deck, StartFile const& start) {
  Interactions out;
  double const cutoff = deck.getDouble("md.cutoff");
  out.names = deck.names("md.species");
  bool const named = !out.names.empty();
  if (start.atoms && start.types != static_cast<int>(out.names.size())) {
    if (named)
      out.errors.push_back({"md.species", str("names ", out.names.size(), " types"),
                            str("expected the ", start.types, " of md.data_file")});
    out.names = start.names;
    for (int t = static_cast<int>(out.names.size()) + 1; t <= start.types; ++t)
      out.names.push_back(str(t));
  }
  if (out.names.empty()) out.names = {"1"};
  int const n = static_cast<int>(out.names.size());
  for (std::string const& name : deck.names("md.species"))
    if (name.find('_') != std::string::npos)
      out.errors.push_back({"md.species." + name, "has a _ in its name",
                            "expected letters and digits (md.pairs joins two names with _)"});
  auto fileValue = [&](int a, int b) -> io::PairCoefficients const* {
    for (auto const& c : start.pairs)
      if ((c.i == a + 1 && c.j == b + 1) || (c.i == b + 1 && c.j == a + 1)) return &c;
    return nullptr;
  };
  auto fromFile = [&](io::PairCoefficients const& c) {
    return md::PairParameters{c.values[0], c.values[1], c.values.size() > 2 ? c.values[2] : cutoff};
  };
  std::vector<md::PairParameters> like(n, md::PairParameters{1.0, 1.0, cutoff});
  std::vector<std::string> likeKey(n, "md.data_file");
  for (int t = 0; t < n; ++t) {
    std::string const key = "md.species." + out.names[t];
    if (named && deck.has(key)) {
      double const c = deck.getDouble(key + ".cutoff");
      like[t] = {deck.getDouble(key + ".epsilon"), deck.getDouble(key + ".sigma"),
                 c > 0 ? c : cutoff};
      likeKey[t] = key + ".cutoff";
    } else if (auto const* c = fileValue(t, t)) {
      like[t] = fromFile(*c);
    }
  }
  out.pairs.assign(static_cast<std::size_t>(n * n), md::PairParameters{});
  std::vector<std::string> pairKey(static_cast<std::size_t>(n * n), "md.data_file");
  for (int t = 0; t < n; ++t) {
    out.pairs[t * n + t] = like[t];
    pairKey[t * n + t] = likeKey[t];
  }
  std::vector<bool> given(static_cast<std::size_t>(n * n), false);
  for (std::string const& name : deck.names("md.pairs")) {
    std::string const key = "md.pairs." + name;
    auto const cut = name.find('_');
    auto index = [&](std::string const& type) {
      auto const it = std::find(out.names.begin(), out.names.end(), type);
      return it == out.names.end() ? -1 : static_cast<int>(it - out.names.begin());
    };
    int const a = cut == std::string::npos ? -1 : index(name.substr(0, cut));
    int const b = cut == std::string::npos ? -1 : index(name.substr(cut + 1));
    if (a < 0 || b < 0) {
      out.errors.push_back({key, "does not name two types joined by _",
                            str("expected <type>_<type> of the types ", listText(out.names))});
      continue;
    }
    if (a == b) {
      out.errors.push_back({key, "is a type's own pair",
                            str("expected its parameters in md.species.", out.names[a])});
      continue;
    }
    if (given[a * n + b]) {
      out.errors.push_back(
          {key, str("gives the pair of ", out.names[a], " and ", out.names[b], " a second time"),
           "expected each pair once"});
      continue;
    }
    double const c = deck.getDouble(key + ".cutoff");
    md::PairParameters const q{deck.getDouble(key + ".epsilon"), deck.getDouble(key + ".sigma"),
                               c > 0 ? c : 0.5 * (like[a].cutoff + like[b].cutoff)};
    for (int k : {a * n + b, b * n + a}) {
      out.pairs[k] = q;
      pairKey[k] = key + ".cutoff";
      given[k] = true;
    }
  }
  bool const mix = choiceValue(kMixing, deck.getString("md.mixing"));
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      if (given[a * n + b]) continue;
      md::PairParameters q;
      if (auto const* c = fileValue(a, b); c && c->i != c->j) {
        q = fromFile(*c);
      } else if (mix) {
        q = {std::sqrt(like[a].epsilon * like[b].epsilon), 0.5 * (like[a].sigma + like[b].sigma),
             0.5 * (like[a].cutoff + like[b].cutoff)};
        pairKey[a * n + b] = "md.mixing";
      } else {
        out.errors.push_back({"md.pairs", str("gives no pair ", out.names[a], "_", out.names[b]),
                              "expected every unlike pair with md.mixing: none"});
        continue;
      }
      out.pairs[a * n + b] = out.pairs[b * n + a] = q;
    }
  if (deck.getBool("md.wca"))
    for (auto& q : out.pairs) q.cutoff = std::pow(2.0, 1.0 / 6.0) * q.sigma;
  for (int k = 0; k < n * n; ++k)
    if (!deck.getBool("md.wca") && out.pairs[k].cutoff > cutoff && (k / n) <= (k % n)) {
      out.errors.push_back(
          {pairKey[k],
           str("gives the pair ", out.names[k / n], "_", out.names[k % n], " the cutoff ",
               out.pairs[k].cutoff),
           str("expected at most md.cutoff = ", cutoff, " (which sizes the neighbour lists)")});
    }
  auto const deckNames = deck.names("md.species");
  for (int t = 0; t < n; ++t) {
    bool const inDeck =
        std::find(deckNames.begin(), deckNames.end(), out.names[t]) != deckNames.end();
    double const mass = inDeck ? deck.getDouble("md.species." + out.names[t] + ".mass") : 0.0;
    out.masses.push_back(mass > 0 ? mass
                                  : (static_cast<std::size_t>(t) < start.masses.size()
                                         ? start.masses[static_cast<std::size_t>(t)]
                                         : 1.0));
  }
  if (named && !start.atoms && n > 1) {
    double sum = 0.0;
    for (auto const& name : out.names) {
      out.fractions.push_back(deck.getDouble("md.species." + name + ".fraction"));
      sum += out.fractions.back();
    }
    if (std::fabs(sum - 1.0) > 1e-9)
      out.errors.push_back({"md.species", str("has fractions adding up to ", sum),
                            "expected shares of the lattice's atoms adding up to 1"});
  }
  return out;
}

/// The parameters of the deck: the lattice cells those of grid.cells (3 of them: check()), or
/// the atoms of md.data_file (none when it cannot be read: check() says why).
md::Parameters parameters(io::Deck const& deck, int ranks) {
  md::Parameters p;
  StartFile const start = startFile(deck);
  p.start = start.atoms;
  Interactions const types = interactions(deck, start);
  p.types = static_cast<int>(types.names.size());
  p.pairs = types.pairs;
  p.fractions = types.fractions;
  p.masses = types.masses;
  p.forceShift = deck.getBool("md.force_shift");
  p.tail = deck.getBool("md.tail");
  auto const cells = deck.getIntList("grid.cells");
  for (std::size_t a = 0; a < cells.size() && a < 3; ++a) p.cells[a] = static_cast<int>(cells[a]);
  p.fcc = choiceValue(kLattice, deck.getString("md.lattice"));
  p.density = deck.getDouble("md.density");
  p.temperature = deck.getDouble("md.temperature");
  p.cutoff = deck.getDouble("md.cutoff");
  p.skin = deck.getDouble("md.skin");
  p.shift = deck.getBool("md.shift");
  if (deck.getBool("md.wca")) {
    p.shift = true;
    p.cutoff = 0.0;
    for (auto const& q : p.pairs) p.cutoff = std::max(p.cutoff, q.cutoff);
  }
  // g(r) reads the neighbour lists: every pair stays listed out to its r_max.
  if (deck.getInt("md.rdf.every") > 0) {
    double const rMax = deck.getDouble("md.rdf.r_max");
    p.listReach = rMax > 0 ? rMax : p.cutoff;
  }
  p.dt = deck.getDouble("md.dt");
  std::string const list = deck.getString("md.neighbor");
  p.list = list == "auto" ? md::ForceTuning<ExecSpace>::kAutoList : choiceValue(kList, list);
  p.sortByBin = deck.getBool("md.sort");
  p.thermostat = choiceValue(kThermostat, deck.getString("md.thermostat"));
  p.thermostatTemperature = deck.getDouble("md.thermostat_temperature");
  p.berendsenTau = deck.getDouble("md.berendsen_tau");
  p.langevinDamping = deck.getDouble("md.langevin_damping");
  p.noseHooverTau = deck.getDouble("md.nose_hoover_tau");
  p.chainLength = static_cast<int>(deck.getInt("md.nose_hoover_chain"));
  p.barostat = choiceValue(kBarostat, deck.getString("md.barostat"));
  p.pressure = deck.getDouble("md.pressure");
  p.barostatTau = deck.getDouble("md.barostat_tau");
  p.seed = static_cast<std::uint64_t>(deck.getInt("md.seed"));
  p.reproducible = deck.getBool("md.reproducible");
  std::string const overlap = deck.getString("parallel.overlap");
  p.overlap = overlap == "on" || (overlap == "auto" && ranks > 1);
  return p;
}

void check(io::Deck const& deck, io::DeckErrors& errors) {
  if (deck.getInt("grid.ghost") != 1)
    errors.add(deck, "grid.ghost", str("is ", deck.getInt("grid.ghost")),
               "expected 1 for md (its ghost atoms lie within cutoff + skin, whatever "
               "grid.ghost says)");
  auto const cells = deck.getIntList("grid.cells");
  if (cells.size() != 3)
    errors.add(deck, "grid.cells", str("has ", cells.size(), " entries"),
               "expected 3 for md (lattice cells per axis of the 3D box)");
  auto const periodic = deck.getBoolList("grid.periodic");
  if (std::find(periodic.begin(), periodic.end(), false) != periodic.end())
    errors.add(deck, "grid.periodic", "has a false entry",
               "expected [true, true, true] for md (the md box is periodic)");
  if (cells.size() != 3) return;  // the parameters below are those of a 3D lattice
  StartFile const start = startFile(deck);
  if (!start.problem.empty()) {
    errors.add(deck, "md.data_file", start.problem, start.expected);
    return;
  }
  Interactions const types = interactions(deck, start);
  for (auto const& v : types.errors) errors.add(deck, v.key, v.what, v.expected);
  if (deck.getBool("md.tail") && deck.getBool("md.wca"))
    errors.add(deck, "md.tail", "is true with md.wca",
               "expected no tail corrections for a purely repulsive potential (nothing lies "
               "beyond its cutoff)");
  if (deck.getBool("md.tail") && deck.getBool("md.force_shift"))
    errors.add(deck, "md.tail", "is true with md.force_shift",
               "expected tail corrections of a cut or shifted potential (a force-shifted one "
               "is a different potential beyond which nothing is left to correct)");
  if (!types.errors.empty()) return;  // the parameters below would repeat them
  md::Parameters const p = parameters(deck, 1);
  for (auto const& v : md::violations(p)) errors.add(deck, v.key, v.what, v.expected);
  if (deck.getInt("md.rdf.every") > 0 && deck.getDouble("md.rdf.r_max") > p.cutoff)
    errors.add(deck, "md.rdf.r_max", str("is ", deck.getDouble("md.rdf.r_max")),
               str("expected at most md.cutoff = ", p.cutoff,
                   " (the neighbour list holds every pair within the cutoff)"));
}

std::vector<FieldInfo> fields(io::Deck const&) {
  return {};  // particles only
}

/// Atoms per unit volume: the lattice's, or the configuration's.
double numberDensity(md::Parameters const& p) {
  return p.start ? static_cast<double>(p.start->atoms()) / p.start->volume() : p.density;
}

/// Neighbour-list entries per atom: the atoms within cutoff + skin (half of them for a half list).
double neighboursPerAtom(md::Parameters const& p) {
  double const r = p.cutoff + p.skin;
  double const all = 4.0 / 3.0 * 3.14159265358979 * r * r * r * numberDensity(p);
  return p.list == neighbor::ListKind::Full || p.reproducible ? all : 0.5 * all;
}

/// Atoms per cell of grid.cells: 4 on the lattice, the configuration's atoms shared evenly.
double atomsPerCell(io::Deck const& deck, md::Parameters const& p) {
  if (!p.start) return 4.0;
  double cells = 1.0;
  for (auto n : deck.getIntList("grid.cells")) cells *= static_cast<double>(n);
  return static_cast<double>(p.start->atoms()) / cells;
}

/// Per cell: the particle arrays, bins and list rows of its atoms (System.hpp's costs), the rows
/// padded by a quarter.
double bytesPerCell(io::Deck const& deck) {
  md::Parameters const p = parameters(deck, 1);
  return atomsPerCell(deck, p) *
         (md::Particles<>::bytesPerParticle() + 32 + 24 + 1.25 * 4 * neighboursPerAtom(p));
}

/// Every rank's block must hold the ghost shell (cutoff + skin wide) and index its atoms, ghosts
/// included, with ints.
void checkDecomposition(io::Deck const& deck, CartDecomposition const& decomp,
                        io::DeckErrors& errors) {
  md::Parameters const p = parameters(deck, 1);
  if (deck.getString("md.data_file") != "" && !p.start) return;  // check() reports the file
  auto const length = md::boxLength(p);
  double const w = p.cutoff + p.skin;
  char const* const axis[3] = {"x", "y", "z"};
  double rows = numberDensity(p);  // atoms of the largest block with its ghost shell
  for (int d = 0; d < 3; ++d) {
    int const n = decomp.globalCells()[d], ranks = decomp.procGrid()[d];
    double const h = length[d] / n;  // a cell's edge
    double const narrowest = (n / ranks) * h, widest = (n / ranks + (n % ranks ? 1 : 0)) * h;
    if (narrowest < w) {
      // Blocks of at least ceil(w / h) cells.
      int const most = std::max(1, n / std::max(1, static_cast<int>(std::ceil(w / h))));
      errors.add(deck, "grid.cells",
                 str("the ranks split ", n, p.start ? " cells" : " lattice cells", " along ",
                     axis[d], " into blocks as narrow as ", narrowest, " (", decomp.describe(),
                     "), less than cutoff + skin = ", w),
                 str("expected at most ", most, " ranks along ", axis[d],
                     " (run on fewer ranks, or a larger system)"));
    }
    rows *= widest + 2 * w;
  }
  if (rows >= 2147483647.0)
    errors.add(deck, "grid.cells",
               str("the largest rank's block holds about ", rows, " atoms with its ghosts"),
               str("expected fewer than 2^31 per rank: use at least ",
                   static_cast<long long>(decomp.nranks() * rows / 2147483647.0) + 1, " ranks"));
}

/// The H5MD trajectory of md.trajectory, <output_dir>/<run.name>.h5md: each frame gathers every
/// atom to rank 0 (40 or 64 bytes an atom: id, type, position, image and velocity), which writes
/// them in order of id.
class Trajectory {
 public:
  /// Collective: opens the file (a new one, or on a restart the one it continues).
  Trajectory(Runtime const& rt, std::string path, long long every, bool velocities,
             md::System<ExecSpace> const& s, long long restartStep)
      : m_comm(rt.comm()),
        m_rank(rt.rank()),
        m_size(rt.size()),
        m_path(std::move(path)),
        m_every(every),
        m_velocities(velocities) {
    auto const atoms = gather(s);
    if (m_rank != 0) return;
    io::H5mdParticles p;
    p.velocities = velocities;
    for (auto const& a : atoms) {
      p.id.push_back(a.id);
      p.species.push_back(a.type);
      p.mass.push_back(s.massOf(a.type));
    }
    if (restartStep >= 0 && std::filesystem::exists(m_path))
      m_writer = std::make_unique<io::H5mdWriter>(m_path, p, restartStep);
    else
      m_writer = std::make_unique<io::H5mdWriter>(m_path, p);
  }
  bool due(long long step) const { return m_every > 0 && step % m_every == 0; }
  /// Collective: appends the frame of the system's current step.
  void write(md::System<ExecSpace> const& s) {
    auto const atoms = gather(s);
    if (m_rank != 0) return;
    io::H5mdFrame f;
    f.step = s.steps();
    f.time = static_cast<double>(s.steps()) * s.parameters().dt;
    for (int a = 0; a < 3; ++a) {
      f.lower[a] = s.origin()[a];
      f.upper[a] = s.origin()[a] + s.domain().length[a];
    }
    for (auto const& a : atoms) {
      f.position.push_back(a.x);
      f.image.push_back(a.image);
      if (m_velocities) f.velocity.push_back(a.v);
    }
    m_writer->append(f);
  }
  std::string const& path() const { return m_path; }

 private:
  struct Atom {
    long long id;
    int type;
    std::array<double, 3> x, v;
    std::array<int, 3> image;
  };
  /// Every atom on rank 0, in order of id (none elsewhere); positions in the data file's frame.
  std::vector<Atom> gather(md::System<ExecSpace> const& s) const {
    md::AtomState const a = s.atomState();
    int const width = m_velocities ? 11 : 8;
    std::vector<double> mine;
    mine.reserve(a.id.size() * static_cast<std::size_t>(width));
    for (std::size_t i = 0; i < a.id.size(); ++i) {
      mine.push_back(static_cast<double>(a.id[i]));  // ids below 2^53: exact
      mine.push_back(a.type[i]);
      for (int d = 0; d < 3; ++d) mine.push_back(a.x[3 * i + d] + s.origin()[d]);
      for (int d = 0; d < 3; ++d) mine.push_back(a.image[3 * i + d]);
      if (m_velocities)
        for (int d = 0; d < 3; ++d) mine.push_back(a.v[3 * i + d]);
    }
    int const size = m_size;
    int const n = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size(), 0);
    checkMpi(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, m_comm),
             "MPI_Gather (md trajectory)");
    for (int r = 1; r < size && m_rank == 0; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    std::vector<double> all(m_rank == 0 ? static_cast<std::size_t>(displs[size - 1]) +
                                              static_cast<std::size_t>(counts[size - 1])
                                        : 0);
    checkMpi(MPI_Gatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                         MPI_DOUBLE, 0, m_comm),
             "MPI_Gatherv (md trajectory)");
    std::vector<Atom> out;
    for (std::size_t k = 0; k + static_cast<std::size_t>(width) <= all.size(); k += width) {
      Atom t{};
      t.id = static_cast<long long>(all[k]);
      t.type = static_cast<int>(all[k + 1]);
      for (int d = 0; d < 3; ++d) {
        t.x[d] = all[k + 2 + d];
        t.image[d] = static_cast<int>(all[k + 5 + d]);
        t.v[d] = m_velocities ? all[k + 8 + d] : 0.0;
      }
      out.push_back(t);
    }
    std::sort(out.begin(), out.end(), [](Atom const& x, Atom const& y) { return x.id < y.id; });
    return out;
  }

  MPI_Comm m_comm;
  int m_rank, m_size;
  std::string m_path;
  long long m_every;
  bool m_velocities;
  std::unique_ptr<io::H5mdWriter> m_writer;  ///< rank 0's
};

/// The velocity autocorrelation's sums a checkpoint holds (md::VelocityAutocorrelation), with
/// the md.vacf.every they were taken at (0: none).
struct VacfSums {
  std::int64_t every = 0;
  std::vector<double> sums;
  std::vector<std::int64_t> counts;
};

/// g(r) and the speed distribution, each appended to its own CSV in long form (one row per bin
/// and sample): <output_dir>/<run.name>.rdf.csv and .speeds.csv; the MSD (.msd.csv, a row per
/// sample) and the velocity autocorrelation (.vacf.csv, written at the end).
class Analyses {
 public:
  /// `types`: the names of the atom types (MSD and VACF columns with several); `msdRows` and
  /// `vacf`: the MSD samples and VACF sums of the run a restart continues.
  Analyses(Runtime const& rt, io::Deck const& deck, double cutoff, long long restartStep,
           std::vector<std::string> const& types, std::vector<std::vector<double>> msdRows,
           VacfSums vacf)
      : m_comm(rt.comm()), m_types(types), m_msdRows(std::move(msdRows)) {
    auto start = [restartStep](io::TimeSeries& series) {
      if (restartStep >= 0)
        series.resume(restartStep);
      else
        series.open();
    };
    std::string const base = deck.getString("run.output_dir") + "/" + deck.getString("run.name");
    long long const rdfEvery = deck.getInt("md.rdf.every");
    long long const speedEvery = deck.getInt("md.velocity_histogram.every");
    if (rdfEvery > 0) {
      m_rMax = deck.getDouble("md.rdf.r_max");
      if (m_rMax == 0.0) m_rMax = cutoff;
      m_rdfBins = static_cast<int>(deck.getInt("md.rdf.bins"));
      m_rdf = std::make_unique<io::TimeSeries>(m_comm, base + ".rdf.csv", rdfEvery);
      for (auto const& c : std::vector<Column>{
               {"step", "1"}, {"r_low", "sigma"}, {"r_high", "sigma"}, {"pairs", "1"}, {"g", "1"}})
        m_rdf->addColumn(c.name, c.unit);
      if (types.size() > 1)
        for (std::size_t a = 0; a < types.size(); ++a)
          for (std::size_t b = a; b < types.size(); ++b)
            m_rdf->addColumn("g_" + types[a] + "_" + types[b], "1");
      start(*m_rdf);
    }
    if (speedEvery > 0) {
      m_vMax = deck.getDouble("md.velocity_histogram.v_max");
      m_speedBins = static_cast<int>(deck.getInt("md.velocity_histogram.bins"));
      m_speeds = std::make_unique<io::TimeSeries>(m_comm, base + ".speeds.csv", speedEvery);
      for (auto const& c : std::vector<Column>{{"step", "1"},
                                               {"v_low", "sigma/tau"},
                                               {"v_high", "sigma/tau"},
                                               {"atoms", "1"},
                                               {"pdf", "tau/sigma"}})
        m_speeds->addColumn(c.name, c.unit);
      start(*m_speeds);
    }
    if (long long const every = deck.getInt("md.msd.every"); every > 0) {
      m_msdEvery = every;
      m_msdStart = deck.getInt("md.msd.start");
      m_fitFrom = deck.getDouble("md.msd.fit_from");
      m_msd = std::make_unique<io::TimeSeries>(m_comm, base + ".msd.csv", every);
      m_msd->addColumn("step", "1");
      m_msd->addColumn("lag", "tau");
      m_msd->addColumn("msd", "sigma^2");
      if (types.size() > 1)
        for (auto const& name : types) m_msd->addColumn("msd_" + name, "sigma^2");
      start(*m_msd);
      if (restartStep >= 0 && restartStep < m_msdStart) m_msdRows.clear();
    }
    if (long long const every = deck.getInt("md.vacf.every"); every > 0) {
      m_vacfEvery = every;
      m_vacfStart = deck.getInt("md.vacf.start");
      m_vacfPath = base + ".vacf.csv";
      int const values = static_cast<int>(types.size()) + 1;
      m_vacf = std::make_unique<md::VelocityAutocorrelation>(
          static_cast<int>(deck.getInt("md.vacf.lags")), values);
      // The sums of the run this one continues, when taken the same way and not to be retaken.
      if (restartStep >= m_vacfStart && vacf.every == every &&
          vacf.counts.size() == static_cast<std::size_t>(m_vacf->lags()) &&
          vacf.sums.size() == vacf.counts.size() * static_cast<std::size_t>(values))
        m_vacf->restore(std::move(vacf.sums), std::move(vacf.counts));
    }
  }
  bool due(long long step) const {
    return (m_rdf && m_rdf->due(step)) || (m_speeds && m_speeds->due(step)) || msdDue(step) ||
           vacfDue(step);
  }
  /// Collective: samples whichever analysis is due at the system's current step (at md.msd.start
  /// it first takes the atoms' positions as the references of the displacements).
  void sample(ExecSpace const& space, md::System<ExecSpace>& system) {
    auto const step = static_cast<double>(system.steps());
    if (msdDue(system.steps())) {
      if (system.steps() == m_msdStart) {
        system.markReferences(space);
        m_msdRows.clear();
      }
      auto const msd = system.meanSquaredDisplacements(space);  // per type, then all
      double const lag = static_cast<double>(system.steps() - m_msdStart) * system.parameters().dt;
      std::vector<double> row{step, lag, msd.back()};
      if (m_types.size() > 1) row.insert(row.end(), msd.begin(), msd.end() - 1);
      m_msd->record(row);
      m_msdRows.push_back(std::vector<double>(row.begin() + 1, row.end()));
    }
    if (vacfDue(system.steps())) {
      int const lag =
          static_cast<int>(((system.steps() - m_vacfStart) / m_vacfEvery) % m_vacf->lags());
      if (lag == 0) system.markVelocityOrigins(space);
      m_vacf->add(lag, system.velocityAutocorrelations(space));  // per type, then all
    }
    if (m_rdf && m_rdf->due(system.steps())) {
      auto const r = md::radialDistribution(space, m_comm, system, m_rMax, m_rdfBins);
      for (std::size_t b = 0; b < r.g.size(); ++b) {
        std::vector<double> row{step, r.rLow[b], r.rHigh[b], static_cast<double>(r.pairs[b]),
                                r.g[b]};
        for (auto const& g : r.gPair) row.push_back(g[b]);
        m_rdf->record(row);
      }
    }
    if (m_speeds && m_speeds->due(system.steps())) {
      auto const d = md::speedDistribution(space, m_comm, system, m_vMax, m_speedBins);
      for (std::size_t b = 0; b < d.counts.size(); ++b)
        m_speeds->record(
            {step, d.vLow[b], d.vHigh[b], static_cast<double>(d.counts[b]), d.pdf[b]});
    }
  }

  /// The MSD samples so far (lag, MSD of all atoms, of each type with several), for checkpoints.
  std::vector<std::vector<double>> const& msdRows() const { return m_msdRows; }
  /// The velocity autocorrelation's sums so far (null without md.vacf), for checkpoints.
  md::VelocityAutocorrelation const* vacf() const { return m_vacf.get(); }

  /// Collective: writes the velocity autocorrelation (null without md.vacf) and returns the line
  /// that gives its Green-Kubo D (empty without md.vacf). `dt`: the time step.
  std::string writeVacf(double dt) const {
    if (!m_vacf) return {};
    double const spacing = static_cast<double>(m_vacfEvery) * dt;
    int const values = m_vacf->values();
    int reached = 0;
    while (reached < m_vacf->lags() && m_vacf->count(reached) > 0) ++reached;
    io::TimeSeries out(m_comm, m_vacfPath, 1);
    out.addColumn("lag", "tau");
    out.addColumn("origins", "1");
    out.addColumn("vacf", "sigma^2/tau^2");
    bool const several = m_types.size() > 1;
    if (several)
      for (auto const& name : m_types) out.addColumn("vacf_" + name, "sigma^2/tau^2");
    out.addColumn("D", "sigma^2/tau");
    if (several)
      for (auto const& name : m_types) out.addColumn("D_" + name, "sigma^2/tau");
    out.open();
    std::vector<std::vector<double>> d;  // all, then each type
    d.push_back(m_vacf->greenKubo(values - 1, spacing));
    for (int t = 0; several && t < values - 1; ++t) d.push_back(m_vacf->greenKubo(t, spacing));
    for (int k = 0; k < reached; ++k) {
      std::vector<double> row{k * spacing, static_cast<double>(m_vacf->count(k)),
                              m_vacf->mean(k, values - 1)};
      for (int t = 0; several && t < values - 1; ++t) row.push_back(m_vacf->mean(k, t));
      for (auto const& column : d) row.push_back(column[static_cast<std::size_t>(k)]);
      out.record(row);
    }
    if (reached < 2)
      return str("md: velocity autocorrelation: ", reached,
                 " lag(s) sampled (md.vacf); D needs at least 2 (a longer run, or more often)");
    std::vector<double> last;
    for (auto const& column : d) last.push_back(column[static_cast<std::size_t>(reached - 1)]);
    return diffusionValues(last) +
           str(" sigma^2/tau, Green-Kubo: 1/3 of the integral of the velocity "
               "autocorrelation over lags 0 to ",
               (reached - 1) * spacing, " tau (", m_vacf->count(0), " origins; ", m_vacfPath, ")");
  }

  /// The self-diffusion line of the end of the run (empty without md.msd): D = slope / 6 of the
  /// least-squares line of the MSD over the lags from md.msd.fit_from (or half the longest) on.
  std::string diffusionLine() const {
    if (!m_msd) return {};
    double const longest = m_msdRows.empty() ? 0.0 : m_msdRows.back()[0];
    double const from = m_fitFrom > 0 ? m_fitFrom : 0.5 * longest;
    std::vector<std::vector<double> const*> used;
    for (auto const& r : m_msdRows)
      if (r[0] >= from && r[0] > 0) used.push_back(&r);
    if (used.size() < 3)
      return str("md: self-diffusion: ", used.size(), " MSD samples at lags from ", from,
                 " tau on (md.msd.fit_from); D needs at least 3 (a longer run, or more often)");
    auto slope = [&](std::size_t column) {
      double const n = static_cast<double>(used.size());
      double mt = 0.0, my = 0.0;
      for (auto const* r : used) {
        mt += (*r)[0] / n;
        my += (*r)[column] / n;
      }
      double sty = 0.0, stt = 0.0;
      for (auto const* r : used) {
        sty += ((*r)[0] - mt) * ((*r)[column] - my);
        stt += ((*r)[0] - mt) * ((*r)[0] - mt);
      }
      return sty / stt;
    };
    std::vector<double> d;
    for (std::size_t c = 1; c < used.front()->size(); ++c) d.push_back(slope(c) / 6.0);
    return diffusionValues(d) + str(" sigma^2/tau, from the MSD slope / 6 over lags ",
                                    (*used.front())[0], " to ", (*used.back())[0], " tau (",
                                    used.size(), " samples)");
  }

 private:
  /// "md: self-diffusion D = <all>" and, with several types, " (<A> <a>, <B> <b>)": `d` holds
  /// the value of all atoms, then one per type.
  std::string diffusionValues(std::vector<double> const& d) const {
    std::string line = str("md: self-diffusion D = ", d[0]);
    if (m_types.size() > 1) {
      line += " (";
      for (std::size_t t = 0; t < m_types.size(); ++t)
        line += str(t ? ", " : "", m_types[t], " ", d[t + 1]);
      line += ")";
    }
    return line;
  }
  bool msdDue(long long step) const {
    return m_msd && step >= m_msdStart && (step - m_msdStart) % m_msdEvery == 0;
  }
  bool vacfDue(long long step) const {
    return m_vacf && step >= m_vacfStart && (step - m_vacfStart) % m_vacfEvery == 0;
  }

  MPI_Comm m_comm;
  double m_rMax = 0.0, m_vMax = 0.0;
  int m_rdfBins = 1, m_speedBins = 1;
  std::unique_ptr<io::TimeSeries> m_rdf, m_speeds, m_msd;
  long long m_msdEvery = 0, m_msdStart = 0;
  double m_fitFrom = 0.0;
  std::vector<std::string> m_types;
  std::vector<std::vector<double>> m_msdRows;  ///< lag, MSD of all, of each type
  std::unique_ptr<md::VelocityAutocorrelation> m_vacf;
  long long m_vacfEvery = 0, m_vacfStart = 0;
  std::string m_vacfPath;
};

/// Appends the rows of `from` to `to` for which keep(row) is true.
template <class Keep>
void appendRows(io::CheckpointParticles const& from, md::AtomState& to, Keep keep) {
  auto column = [&](char const* name) {
    auto const* c = from.column(name);
    if (!c || c->width != 3)
      throw IoError(str("checkpoint: particle array '", name, "' is missing or not 3 wide"), true);
    return c;
  };
  auto const *x = column("position"), *v = column("velocity"), *f = column("force"),
             *x0 = column("build_position");
  // Written before images were kept: none (restoreState takes them as 0).
  auto const* image = from.column("image");
  if (image && image->width != 3)
    throw IoError(str("checkpoint: particle array 'image' is ", image->width, " wide, not 3"),
                  true);
  // Written before references or velocity origins were kept: none (restoreState takes the
  // positions and velocities then).
  auto optional = [&](char const* name) {
    auto const* c = from.column(name);
    if (c && c->width != 3)
      throw IoError(str("checkpoint: particle array '", name, "' is ", c->width, " wide, not 3"),
                    true);
    return c;
  };
  auto const *reference = optional("reference"), *origin = optional("velocity_origin");
  for (std::size_t i = 0; i < from.count(); ++i) {
    if (!keep(&x0->values[3 * i])) continue;
    for (int d = 0; d < 3; ++d) {
      to.x.push_back(x->values[3 * i + d]);
      to.v.push_back(v->values[3 * i + d]);
      to.f.push_back(f->values[3 * i + d]);
      to.x0.push_back(x0->values[3 * i + d]);
      if (image) to.image.push_back(static_cast<std::int32_t>(image->values[3 * i + d]));
      if (reference) to.reference.push_back(reference->values[3 * i + d]);
      if (origin) to.origin.push_back(origin->values[3 * i + d]);
    }
    to.id.push_back(from.id[i]);
    to.type.push_back(from.type[i]);
  }
}

class MdModel final : public Model {
 public:
  explicit MdModel(ModelContext const& c)
      : m_rt(c.rt),
        m_deck(c.deck),
        m_setupStart(log::elapsed()),
        m_system(ExecSpace(), c.rt.comm(), c.decomp, parameters(c.deck, c.rt.size())),
        m_setupSeconds(log::elapsed() - m_setupStart),
        m_thermostatSteps(c.deck.getInt("md.thermostat_steps")),
        m_types(interactions(c.deck, startFile(c.deck))) {}

  std::vector<std::string> startLines() const override {
    auto const& p = m_system.parameters();
    std::vector<std::string> lines;
    auto const& box = m_system.domain().length;
    auto const& list = m_system.list();
    lines.push_back(str("md: ", m_system.atoms(), " atoms (",
                        p.start ? str("from ", m_deck.getString("md.data_file"), ", rho* ",
                                      p.density, p.start->v.empty() ? "" : ", its velocities")
                                : str(p.fcc ? "fcc" : "random", ", rho* ", p.density,
                                      ", lattice constant ", m_system.latticeConstant()),
                        "), box ", box[0], " x ", box[1], " x ", box[2],
                        p.start ? str(" from ", listText(m_system.origin())) : std::string(),
                        ", rank grid ", toString(m_system.decomposition().procGrid()), ", rc ",
                        p.cutoff, p.forceShift ? " (force-shifted)" : (p.shift ? " (shifted)" : ""),
                        p.tail ? " (tail corrections)" : "", ", skin ", p.skin, ", ",
                        p.list == neighbor::ListKind::Half ? "half" : "full", " list",
                        m_deck.getString("md.neighbor") == "auto" ? " (md.neighbor: auto)" : "",
                        p.reproducible ? " (reproducible)" : "",
                        p.list == neighbor::ListKind::Full && m_system.lanes() > 1
                            ? str(" (", m_system.lanes(), " vector lanes per atom)")
                            : std::string(),
                        ", dt ", p.dt, ", thermostat ", m_deck.getString("md.thermostat"),
                        p.thermostat != md::Thermostat::None && m_thermostatSteps > 0
                            ? str(" for ", m_thermostatSteps, " steps")
                            : std::string(),
                        p.barostat
                            ? str(", barostat mtk at P* ", p.pressure, " (tau ", p.barostatTau, ")")
                            : std::string(),
                        "; setup ", formatDuration(m_setupSeconds)));
    if (p.types > 1 || m_system.mixture()) lines.push_back(typesLine());
    for (auto const& line : std::vector<std::string>{
             str("md: ghost refresh overlap ", p.overlap ? "on" : "off", " (parallel.overlap ",
                 m_deck.getString("parallel.overlap"), ", ", m_rt.size(), " rank(s))"),
             str("md: list build ", neighbor::listBuildName(list.lastBuild()), ", bins ",
                 m_system.listTuning().binFraction, " x (cutoff + skin) (EDDY_LIST_BIN_FRACTION)")})
      lines.push_back(line);
    return lines;
  }

  /// The types with their atom counts and every pair's epsilon, sigma and cutoff.
  std::string typesLine() const {
    auto const& p = m_system.parameters();
    std::string line = "md: types";
    for (int t = 0; t < p.types; ++t)
      line +=
          str(t ? ", " : " ", m_types.names[t], " (", m_system.typeCounts()[t], " atoms",
              m_system.masses().uniform ? std::string() : str(", mass ", m_system.massOf(t)), ")");
    line += p.forceShift ? "; pairs force-shifted" : (p.shift ? "; pairs shifted" : "; pairs cut");
    for (int a = 0; a < p.types; ++a)
      for (int b = a; b < p.types; ++b) {
        auto const& q = p.pairs[a * p.types + b];
        line += str(a + b ? ", " : " ", m_types.names[a], "_", m_types.names[b], " epsilon ",
                    q.epsilon, " sigma ", q.sigma, " rc ", q.cutoff);
      }
    return line;
  }

  void begin(ExecSpace const&, long long restartStep) override {
    m_analyses =
        std::make_unique<Analyses>(m_rt, m_deck, m_system.parameters().cutoff, restartStep,
                                   m_types.names, std::move(m_msdRows), std::move(m_vacfSaved));
    if (long long const every = m_deck.getInt("md.trajectory.every"); every > 0) {
      m_trajectory = std::make_unique<Trajectory>(
          m_rt,
          m_deck.getString("run.output_dir") + "/" + m_deck.getString("run.name") + ".h5md", every,
          m_deck.getBool("md.trajectory.velocities"), m_system, restartStep);
      log::info(str("md: trajectory every ", every, " steps to ", m_trajectory->path(),
                    " (H5MD)"));
    }
  }

  double maxDt(ExecSpace const&) override { return m_system.parameters().dt; }
  void step(ExecSpace const& space, double dt, long long s, bool more) override {
    if (dt != m_system.parameters().dt)
      throw Error(str("md: step ", s + 1, " asked for a time step of ", dt,
                      "; the md model takes its fixed md.dt = ", m_system.parameters().dt),
                  ExitCode::Failure, true);
    // From step thermostat_steps on (also in a run restarted later): NVE.
    if (m_thermostatSteps > 0 && s >= m_thermostatSteps)
      m_system.setThermostat(md::Thermostat::None);
    // With nothing read before the next step, the closing half kick joins its drift.
    m_system.step(space, more);
  }
  bool fixedStep() const override { return true; }
  long long stepCount() const override { return m_system.steps(); }
  double time() const override {
    return static_cast<double>(m_system.steps()) * m_system.parameters().dt;
  }
  double lastDt() const override { return m_system.parameters().dt; }
  std::string timeUnits() const override { return "tau"; }
  std::pair<double, std::string> work() const override {
    return {static_cast<double>(m_system.atoms()), "atom-steps"};
  }

  std::string progress(ExecSpace const& space) override {
    auto const d = m_system.diagnostics(space);
    double const atoms = static_cast<double>(m_system.atoms());
    std::string line;
    auto add = [&line](char const* format, auto... values) {
      char buf[160];
      std::snprintf(buf, sizeof buf, format, values...);
      line += buf;
    };
    add("T %.6f  PE %.8f  KE %.8f  E %.10f  P %.6f  rebuilds %lld", d.temperature,
        d.potential / atoms, d.kinetic / atoms, d.total() / atoms, d.pressure, m_system.rebuilds());
    if (d.conserved != d.total()) add("  H %.10f", d.conserved / atoms);
    if (m_system.barostat().on()) add("  rho %.6f", atoms / d.volume);
    m_system.checkSane(d);
    if (!m_first) m_first = d;
    m_last = d;
    return line;
  }
  /// H is the integrator's conserved quantity (md::Diagnostics::conserved; E in NVE), Pxx ..
  /// Pyz the pressure tensor. With several types, each type's temperature (T_<name>) after the
  /// common columns; with a barostat, the volume V and number density rho last.
  std::vector<Column> columns() const override {
    std::vector<Column> c{{"time", "tau"},        {"T", "epsilon/k_B"},  {"PE", "epsilon/atom"},
                          {"KE", "epsilon/atom"}, {"E", "epsilon/atom"}, {"P", "epsilon/sigma^3"},
                          {"rebuilds", "1"},      {"H", "epsilon/atom"}};
    for (char const* name : {"Pxx", "Pyy", "Pzz", "Pxy", "Pxz", "Pyz"})
      c.push_back({name, "epsilon/sigma^3"});
    if (m_system.parameters().types > 1)
      for (auto const& name : m_types.names) c.push_back({"T_" + name, "epsilon/k_B"});
    if (m_system.barostat().on()) {
      c.push_back({"V", "sigma^3"});
      c.push_back({"rho", "sigma^-3"});
    }
    return c;
  }
  std::vector<double> values(ExecSpace const& space) override {
    auto const d = m_system.diagnostics(space);
    m_system.checkSane(d);
    double const atoms = static_cast<double>(m_system.atoms());
    std::vector<double> v{time(),
                          d.temperature,
                          d.potential / atoms,
                          d.kinetic / atoms,
                          d.total() / atoms,
                          d.pressure,
                          static_cast<double>(m_system.rebuilds()),
                          d.conserved / atoms};
    for (double p : m_system.pressureTensor(space)) v.push_back(p);
    if (m_system.parameters().types > 1)
      for (double t : m_system.typeTemperatures(space)) v.push_back(t);
    if (m_system.barostat().on()) {
      v.push_back(d.volume);
      v.push_back(atoms / d.volume);
    }
    return v;
  }
  bool sampleDue(long long step) const override {
    return (m_analyses && m_analyses->due(step)) || (m_trajectory && m_trajectory->due(step));
  }
  void sample(ExecSpace const& space) override {
    if (m_analyses) m_analyses->sample(space, m_system);
    if (m_trajectory && m_trajectory->due(m_system.steps())) m_trajectory->write(m_system);
  }

  void snapshot(ExecSpace const& space, std::vector<std::string> const&,
                io::SnapshotData& data) override {
    m_system.checkSane(m_system.diagnostics(space));  // no output of a state that blew up
    data.hasParticles = true;
    md::AtomState const a = m_system.atomState();
    auto& out = data.particles;
    out.position = a.x;
    auto const& origin = m_system.origin();
    for (std::size_t i = 0; i < out.position.size(); ++i) out.position[i] += origin[i % 3];
    out.velocity = a.v;
    out.id = a.id;
    out.type = a.type;
    out.positionUnits = "sigma";
    out.velocityUnits = "sigma/tau";
    out.hasImages = true;
    out.image = a.image;
    out.hasBox = true;
    out.boxLow = origin;
    out.boxLength = m_system.domain().length;
  }

  /// The state: every atom's position, velocity, force, position at the last neighbour-list
  /// build and periodic image (rows in rank order), the step and the builds so far; the box the
  /// run started with (`box`, which a restart's deck must give again), the box now and at the
  /// last build (a barostat changes them) and the barostat's state.
  void save(ExecSpace const& space, StateOut& out) override {
    m_system.checkSane(m_system.diagnostics(space));  // no checkpoint of a state that blew up
    auto const& p = m_system.parameters();
    auto const box = md::boxLength(p);
    auto const& grid = m_system.decomposition().procGrid();
    for (int c = 0; c < 3; ++c) {
      out.integers("cells").push_back(p.cells[c]);
      out.reals("box").push_back(box[c]);
      out.reals("box_now").push_back(m_system.domain().length[c]);
      out.reals("box_build").push_back(m_system.buildLength()[c]);
      out.integers("proc_grid").push_back(grid[c]);
    }
    if (m_system.barostat().on()) out.reals("barostat") = m_system.barostatState();
    out.integers("atoms") = {m_system.atoms()};
    out.integers("rebuilds") = {m_system.rebuilds()};
    out.integers("seed") = {static_cast<std::int64_t>(p.seed)};
    out.reals("dt") = {p.dt};
    out.reals("thermostat") = m_system.thermostatState();
    md::AtomState const s = m_system.atomState();
    io::CheckpointParticles particles;
    particles.id = s.id;
    particles.type = s.type;
    // Image counts are small integers: exact in the float64 of a checkpoint column.
    particles.columns = {{"position", 3, "sigma", s.x},
                         {"velocity", 3, "sigma/tau", s.v},
                         {"force", 3, "epsilon/sigma", s.f},
                         {"build_position", 3, "sigma", s.x0},
                         {"image", 3, "1", std::vector<double>(s.image.begin(), s.image.end())},
                         {"reference", 3, "sigma", s.reference},
                         {"velocity_origin", 3, "sigma/tau", s.origin}};
    out.particles(std::move(particles));
    if (m_analyses && !m_analyses->msdRows().empty()) {
      auto const& rows = m_analyses->msdRows();
      out.integers("msd_width") = {static_cast<std::int64_t>(rows.front().size())};
      auto& flat = out.reals("msd_samples");
      for (auto const& r : rows) flat.insert(flat.end(), r.begin(), r.end());
    }
    if (m_analyses && m_analyses->vacf()) {
      auto const& c = *m_analyses->vacf();
      out.integers("vacf_every") = {m_deck.getInt("md.vacf.every")};
      out.integers("vacf_counts") = c.counts();
      out.reals("vacf_sums") = c.sums();
    }
  }

  /// On the ranks and decomposition that wrote the checkpoint, each rank takes back its rows in
  /// their order; on any other, each rank takes the atoms whose position at the last list build
  /// lies in its box (the rows pass by in bounded pieces).
  void restore(ExecSpace const& space, StateIn const& in) override {
    auto const& file = in.file();
    auto const& p = m_system.parameters();
    auto const box = md::boxLength(p);
    in.requireSame("grid.cells", listText(p.cells), listText(in.integers("cells")));
    in.requireSame("particle count", str(m_system.atoms()), str(in.integer("atoms")));
    in.requireSame("box", listText(box), listText(in.reals("box")));
    in.requireSame("particle rows", str(m_system.atoms()), str(file.particleCount()));
    MPI_Comm const comm = m_rt.comm();
    int const rank = m_rt.rank(), size = m_rt.size();
    std::vector<std::int64_t> grid;
    for (int c = 0; c < 3; ++c) grid.push_back(m_system.decomposition().procGrid()[c]);
    bool const sameLayout = file.ranks() == size && in.integers("proc_grid") == grid;
    // Written before the box could change: the box it started with.
    std::optional<std::array<double, 3>> boxNow;
    if (in.hasReal("box_now") && in.hasReal("box_build")) {
      auto const three = [&](char const* name) {
        auto const& r = in.reals(name);
        if (r.size() != 3 || !(r[0] > 0 && r[1] > 0 && r[2] > 0))
          throw IoError(str("restart file '", file.path(), "': '", name, "' is ", listText(r),
                            "; expected 3 box edges > 0"),
                        true);
        return std::array<double, 3>{r[0], r[1], r[2]};
      };
      boxNow = three("box_now");
      m_system.setBox(three("box_build"));  // the lists are rebuilt in the box of their build
    }
    md::AtomState atoms;
    if (sameLayout) {
      long long first = 0;
      for (int r = 0; r < rank; ++r) first += file.rowsPerRank()[r];
      appendRows(file.readParticles(first, file.rowsPerRank()[rank]), atoms,
                 [](double const*) { return true; });
    } else {
      auto const& dom = m_system.domain();
      auto mine = [&](double const* x0) {
        for (int d = 0; d < 3; ++d) {
          double const q = md::wrapIntoBox(x0[d], 0.0, dom.length[d]).q;
          if (q < dom.lo[d] || q >= dom.hi[d]) return false;
        }
        return true;
      };
      long long const piece = 1 << 16;
      for (long long first = 0; first < file.particleCount(); first += piece)
        appendRows(file.readParticles(first, std::min(piece, file.particleCount() - first)),
                   atoms, mine);
    }
    m_system.restoreState(space, atoms, sameLayout, file.step(), in.integer("rebuilds"), boxNow);
    m_msdRows.clear();
    if (in.hasInteger("msd_width") && in.hasReal("msd_samples")) {
      auto const width = static_cast<std::size_t>(in.integer("msd_width"));
      auto const& flat = in.reals("msd_samples");
      if (width < 2 || flat.size() % width != 0)
        throw IoError(str("restart file '", file.path(), "': ", flat.size(),
                          " MSD values in rows of ", width, "; expected whole rows of at least 2"),
                      true);
      for (std::size_t k = 0; k < flat.size(); k += width)
        m_msdRows.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(k),
                               flat.begin() + static_cast<std::ptrdiff_t>(k + width));
    }
    m_vacfSaved = {};
    if (in.hasInteger("vacf_every") && in.hasInteger("vacf_counts") && in.hasReal("vacf_sums"))
      m_vacfSaved = {in.integer("vacf_every"), in.reals("vacf_sums"), in.integers("vacf_counts")};
    // Written before the thermostats' state was kept: none to restore.
    if (in.hasReal("thermostat")) {
      auto const& t = in.reals("thermostat");
      int const saved = t.empty() ? 0 : static_cast<int>(t.size() - 1) / 2;
      int const mine = p.thermostat == md::Thermostat::NoseHoover ? p.chainLength : 0;
      if (saved > 0 && mine > 0)
        in.requireSame("Nose-Hoover chain length (md.nose_hoover_chain)", str(mine), str(saved));
      m_system.setThermostatState(t);
    }
    if (in.hasReal("barostat")) m_system.setBarostatState(in.reals("barostat"));
    long long const mineCount = m_system.owned();
    long long total = 0;
    checkMpi(MPI_Allreduce(&mineCount, &total, 1, MPI_LONG_LONG, MPI_SUM, comm),
             "MPI_Allreduce(restored atoms)");
    if (total != m_system.atoms())
      throw Error(str("restart from '", file.path(), "': the ranks took ", total, " of ",
                      m_system.atoms(), " atoms"),
                  ExitCode::Failure, true);
  }

  std::string finalLine(ExecSpace const& space, double loopSeconds, long long stepsRun) override {
    if (m_analyses) {
      if (std::string const line = m_analyses->diffusionLine(); !line.empty()) log::info(line);
      if (std::string const line = m_analyses->writeVacf(m_system.parameters().dt); !line.empty())
        log::info(line);
    }
    double const atoms = static_cast<double>(m_system.atoms());
    double const checksum = m_system.checksum(space);
    return str("step ", m_system.steps(), ", E/N ", m_last.total() / atoms,
               ", relative change of E ",
               (m_last.total() - m_first->total()) / std::fabs(m_first->total()), ", T ",
               m_last.temperature, ", P ", m_last.pressure, ", rebuilds ", m_system.rebuilds(),
               ", ", stepsRun > 0 && loopSeconds > 0 ? atoms * stepsRun / loopSeconds : 0.0,
               " atom-steps/s, trajectory checksum ", hexBits(checksum), " (", checksum, ")");
  }

 private:
  Runtime const& m_rt;
  io::Deck const& m_deck;
  double m_setupStart;
  md::System<ExecSpace> m_system;
  double m_setupSeconds;
  long long m_thermostatSteps;
  Interactions m_types;  ///< the types' names and pairs
  std::unique_ptr<Analyses> m_analyses;
  std::vector<std::vector<double>> m_msdRows;  ///< a checkpoint's MSD samples, until begin()
  VacfSums m_vacfSaved;                        ///< a checkpoint's VACF sums, until begin()
  std::unique_ptr<Trajectory> m_trajectory;
  std::optional<md::Diagnostics> m_first;  ///< of the first progress line (the energy drift)
  md::Diagnostics m_last;                  ///< of the last progress line
};

}  // namespace

ModelSpec mdModel() {
  ModelSpec s = modelSpec<MdModel>("md", section, check, fields, bytesPerCell);
  s.checkDecomposition = checkDecomposition;
  s.sharesGrid = false;
  return s;
}

}  // namespace eddy::app
