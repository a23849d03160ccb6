// The model seam (app/Model.hpp): the registry builds the deck's schema and checks, and a run of
// two models advances both on the run's one decomposition with one time step, each exactly as
// it runs alone.
#include "EddyTest.hpp"
#include "ModelRegistry.hpp"
#include "Simulation.hpp"

#include "eddy/core/Runtime.hpp"
#include "eddy/io/Checkpoint.hpp"
#include "eddy/io/Deck.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using eddy::app::deckSchema;

int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

std::string outDir(std::string const& name) {
  return "output/test_model_seam/" + name + "_np" + std::to_string(ranks());
}

/// A 24 x 16 cavity (fixed walls, a lid) and/or a diffusing mode between walls, 12 steps, a
/// checkpoint at the end, diagnostics every 3 steps; `dt` 0: each model's own step.
std::string deck(std::string const& name, bool fluids, bool diffusion, double dt) {
  std::ostringstream d;
  d << "run: {name: " << name << ", steps: 12, progress_every: 4, output_dir: " << outDir(name)
    << "}\n"
    << "grid: {cells: [24, 16], length: [1.5, 1.0]}\n";
  if (fluids)
    d << "fluids:\n  viscosity: 0.02\n  dt: " << dt << "\n  boundary: {y_high: moving_wall}\n"
      << "  wall_velocity: {y_high: [1.0, 0.0]}\n";
  if (diffusion) d << "diffusion: {diffusivity: 0.05, dt: " << dt << ", mode: [1, 2]}\n";
  d << "diagnostics: {every: 3}\ncheckpoint: {every: 0, at_end: true}\n";
  return d.str();
}

/// Runs `text` as `eddy run` does, from its deck to its checkpoint; returns the checkpoint.
std::string run(std::string const& name, std::string const& text) {
  eddy::Runtime const& rt = eddy::test::runtime();
  eddy::io::Deck const d = eddy::io::parseDeck(text, name + ".yaml", deckSchema());
  eddy::app::checkDeck(d);
  EXPECT_EQ(eddy::app::runDeck(rt, d), 0);
  auto const found =
      eddy::io::listCheckpoints(MPI_COMM_WORLD, outDir(name) + "/checkpoints", name);
  EXPECT_FALSE(found.empty()) << "no checkpoint of " << name;
  return found.empty() ? std::string() : found.back().second;
}

/// The whole of grid array `name` of checkpoint `path` on every rank.
std::vector<double> array(std::string const& path, std::string const& name) {
  eddy::io::CheckpointReader const f(MPI_COMM_WORLD, path);
  eddy::Index3 const shape = f.gridShape(name);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Rank 0 reads it all, the others nothing.
  eddy::Index3 const count = rank == 0 ? shape : eddy::Index3{0, 0, 0};
  std::vector<double> v = f.readGrid(name, {0, 0, 0}, count);
  long long n = static_cast<long long>(shape[0]) * shape[1] * shape[2];
  v.resize(static_cast<std::size_t>(n));
  MPI_Bcast(v.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return v;
}

bool sameBits(std::vector<double> const& a, std::vector<double> const& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

/// The rows of a diagnostics CSV (header dropped), read on every rank.
std::vector<std::vector<double>> rows(std::string const& path, std::string* header) {
  std::ifstream in(path);
  std::vector<std::vector<double>> out;
  std::string line;
  std::getline(in, *header);
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) row.push_back(std::stod(c));
    out.push_back(row);
  }
  return out;
}

TEST(ModelSeam, TheSchemaHoldsEveryRegisteredModelBetweenTheRunAndTheOutputSections) {
  std::vector<std::string> names;
  for (auto const& s : deckSchema().sections()) names.push_back(s.name());
  std::vector<std::string> const expected{"run",         "grid",    "parallel",  "fluids",
                                          "diffusion",   "scalars", "particles", "md",
                                          "diagnostics", "output",  "checkpoint"};
  EXPECT_EQ(names, expected);
  for (auto const& m : eddy::app::modelRegistry())
    EXPECT_NE(deckSchema().find(m.name), nullptr) << m.name;
}

TEST(ModelSeam, TwoModelsInOneRunEachAdvanceAsTheyDoAlone) {
  // Both at a fixed step of 1e-3 s (below either limit): the run of both must hold each
  // model's fields bit for bit as its run alone does, on the same decomposition.
  std::string const both = run("both", deck("both", true, true, 1e-3));
  std::string const flow = run("flow", deck("flow", true, false, 1e-3));
  std::string const heat = run("heat", deck("heat", false, true, 1e-3));
  for (char const* c : {"u", "v", "pressure", "poisson_guess"})
    EXPECT_TRUE(sameBits(array(both, std::string("fluids_") + c), array(flow, c))) << c;
  EXPECT_TRUE(sameBits(array(both, "diffusion_u"), array(heat, "u")));
  eddy::io::CheckpointReader const f(MPI_COMM_WORLD, both);
  EXPECT_EQ(f.model(), "fluids+diffusion");
  EXPECT_EQ(f.step(), 12);
  EXPECT_NEAR(f.time(), 12e-3, 1e-15);
}

TEST(ModelSeam, TwoModelsTakeTheSmallerOfTheirStepsTogether) {
  // Each model's own step (the flow's CFL target and viscous limit, the diffusion's stability
  // limit): the run takes the smaller each step, so both clocks read the same in every row.
  run("own", deck("own", true, true, 0.0));
  std::string header;
  auto const table = rows(outDir("own") + "/diagnostics.csv", &header);
  ASSERT_EQ(table.size(), 5u);  // steps 0, 3, 6, 9, 12
  EXPECT_EQ(header.rfind("step [1],fluids_t [T],fluids_dt [T]", 0), 0u) << header;
  std::vector<std::string> names;
  std::istringstream h(header);
  for (std::string c; std::getline(h, c, ',');) names.push_back(c.substr(0, c.find(' ')));
  auto column = [&names](char const* n) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == n) return i;
    ADD_FAILURE() << "no column " << n;
    return std::size_t(0);
  };
  std::size_t const ft = column("fluids_t"), dt = column("diffusion_t");
  std::size_t const fdt = column("fluids_dt"), ddt = column("diffusion_dt");
  // The diffusion limit 1 / (2 kappa (1/hx^2 + 1/hy^2)) at half of it is the smaller here.
  double const hx = 1.5 / 24, hy = 1.0 / 16;
  double const diffusionDt = 0.5 * 0.5 / (0.05 * (1 / (hx * hx) + 1 / (hy * hy)));
  for (std::size_t r = 1; r < table.size(); ++r) {
    EXPECT_EQ(table[r][ft], table[r][dt]) << "row " << r;
    EXPECT_EQ(table[r][fdt], table[r][ddt]) << "row " << r;
    EXPECT_NEAR(table[r][fdt], diffusionDt, 1e-6 * diffusionDt) << "row " << r;
  }
}

TEST(ModelSeam, ModelsThatCannotShareARunAreADeckError) {
  std::string const text =
      "grid: {cells: [8, 8, 8], periodic: [true, true, true]}\nfluids: {}\nmd: {}\n";
  eddy::io::Deck const d = eddy::io::parseDeck(text, "mixed.yaml", deckSchema());
  try {
    eddy::app::checkDeck(d);
    FAIL() << "md with fluids was accepted";
  } catch (eddy::DeckError const& e) {
    EXPECT_NE(std::string(e.what()).find("mixed.yaml:3:1: md: the md model reads grid.cells"),
              std::string::npos)
        << e.what();
  }
}

/// The text of the XDMF index of a run of `fields` (output.fields) on a Taylor-Green box of
/// 8^dims cells, alone or (`withDiffusion`) with a diffusion model beside the flow: step 0.
std::string indexOf(std::string const& name, int dims, std::string const& fields,
                    bool withDiffusion = false) {
  std::ostringstream d;
  d << "run: {name: " << name << ", steps: 0, output_dir: " << outDir(name) << "}\n"
    << "grid: {cells: " << (dims == 3 ? "[8, 8, 8]" : "[8, 8]")
    << ", periodic: " << (dims == 3 ? "[true, true, true]" : "[true, true]") << "}\n"
    << "fluids: {initial: taylor_green}\n"
    << (withDiffusion ? "diffusion: {}\n" : "") << "output: {every: 1, fields: \"" << fields
    << "\"}\n";
  eddy::io::Deck const deck = eddy::io::parseDeck(d.str(), name + ".yaml", deckSchema());
  eddy::app::checkDeck(deck);
  EXPECT_EQ(eddy::app::runDeck(eddy::test::runtime(), deck), 0);
  std::ifstream in(outDir(name) + "/" + name + ".xmf");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool has(std::string const& text, std::string const& what) {
  return text.find(what) != std::string::npos;
}

TEST(ModelSeam, DerivedFieldsAreWrittenOnlyWhenNamed) {
  std::string const all = indexOf("derived_all", 3, "all");
  EXPECT_TRUE(has(all, "/fields/pressure<")) << all;
  EXPECT_TRUE(has(all, "Attribute Name=\"velocity\" AttributeType=\"Vector\"")) << all;
  for (char const* derived : {"vorticity", "q_criterion", "speed"})
    EXPECT_FALSE(has(all, derived)) << derived;

  // 3D: vorticity is a vector of its three stored components, as the velocity is.
  std::string const named = indexOf("derived_named", 3, "all, vorticity q_criterion speed");
  EXPECT_TRUE(has(named, "/fields/pressure<"));
  EXPECT_TRUE(has(named, "Attribute Name=\"vorticity\" AttributeType=\"Vector\"")) << named;
  for (char const* c : {"vorticity_x", "vorticity_y", "vorticity_z", "q_criterion", "speed"})
    EXPECT_TRUE(has(named, eddy::str("Attribute Name=\"", c, "\" AttributeType=\"Scalar\""))) << c;

  // Named alone: only they are written. 2D: the vorticity is the scalar omega_z.
  std::string const flat = indexOf("derived_2d", 2, "vorticity");
  EXPECT_TRUE(has(flat, "Attribute Name=\"vorticity\" AttributeType=\"Scalar\"")) << flat;
  EXPECT_FALSE(has(flat, "vorticity_"));
  EXPECT_FALSE(has(flat, "/fields/pressure<"));
  EXPECT_FALSE(has(flat, "speed"));

  // In a run of several models the names carry the model's prefix, the components too.
  std::string const coupled =
      indexOf("derived_coupled", 3, "fluids_vorticity diffusion_u", true);
  EXPECT_TRUE(has(coupled, "Attribute Name=\"fluids_vorticity\" AttributeType=\"Vector\""));
  EXPECT_TRUE(has(coupled, "/fields/fluids_vorticity_x<"));
  EXPECT_TRUE(has(coupled, "/fields/diffusion_u<"));
  EXPECT_FALSE(has(coupled, "fluids_u<"));
}

}  // namespace
