// Deck parsing and validation: defaults, getters, the resolved deck, one located message per kind
// of mistake, and docs/deck-reference.md against the schema.
#include "ModelRegistry.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Schema.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef EDDY_SOURCE_DIR
#error "test_deck needs EDDY_SOURCE_DIR (tests/unit/CMakeLists.txt)"
#endif

namespace {

using eddy::app::deckSchema;
using eddy::io::Key;
using eddy::io::parseDeck;

/// The DeckError message of parsing `text` as "t.yaml" ("" if it parsed).
std::string deckError(std::string const& text, eddy::io::Schema const& schema = deckSchema()) {
  try {
    parseDeck(text, "t.yaml", schema);
  } catch (eddy::DeckError const& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_EQ(e.code(), eddy::ExitCode::Deck);
    return e.what();
  }
  return "";
}

/// Expects a DeckError whose message contains every one of `parts`, the first at the start.
void expectError(std::string const& text, std::vector<std::string> const& parts) {
  std::string const msg = deckError(text);
  ASSERT_FALSE(msg.empty()) << "deck was accepted:\n" << text;
  EXPECT_EQ(msg.rfind(parts.at(0), 0), 0u) << "message: " << msg;
  for (auto const& p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
}

std::string const kGood = R"(run:
  name: "channel"
  steps: 20
grid:
  cells: [64, 32]
  periodic: [true, false]
parallel:
  gpu_aware_mpi: "off"
)";

TEST(Deck, GoodDeckResolvesWithDefaults) {
  auto const d = parseDeck(kGood, "good.yaml", deckSchema());
  EXPECT_EQ(d.path(), "good.yaml");
  EXPECT_EQ(d.getString("run.name"), "channel");
  EXPECT_EQ(d.getInt("run.steps"), 20);
  EXPECT_EQ(d.getString("run.output_dir"), "output");
  EXPECT_EQ(d.getInt("run.progress_every"), 10);
  EXPECT_FALSE(d.getBool("run.debug_log"));
  EXPECT_EQ(d.getIntList("grid.cells"), (std::vector<std::int64_t>{64, 32}));
  EXPECT_EQ(d.getDoubleList("grid.length"), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(d.getBoolList("grid.periodic"), (std::vector<bool>{true, false}));
  EXPECT_EQ(d.getInt("grid.ghost"), 1);
  EXPECT_EQ(d.getIntList("parallel.decomposition"), (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(d.getString("parallel.gpu_aware_mpi"), "off");
  EXPECT_TRUE(d.has("grid"));
  EXPECT_TRUE(d.has("grid.cells"));
  EXPECT_FALSE(d.has("grid.nope"));
}

TEST(Deck, ThreeDimensionalDefaultsFollowCells) {
  auto const d =
      parseDeck("grid:\n  cells: [4, 5, 6]\n  length: [1, 2.5, 3e-2]\n", "g.yaml", deckSchema());
  EXPECT_EQ(d.getDoubleList("grid.length"), (std::vector<double>{1.0, 2.5, 0.03}));
  EXPECT_EQ(d.getBoolList("grid.periodic"), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(d.getInt("run.steps"), 100);  // a section that is not given takes its defaults
  EXPECT_EQ(d.getString("run.name"), "eddy");
}

TEST(Deck, GettersRejectWrongTypeAndUnknownPath) {
  auto const d = parseDeck(kGood, "good.yaml", deckSchema());
  EXPECT_THROW(d.getDouble("run.steps"), eddy::Error);
  EXPECT_THROW(d.getInt("grid.cells"), eddy::Error);
  EXPECT_THROW(d.getInt("run.nope"), eddy::Error);
  EXPECT_THROW(d.getInt("run"), eddy::Error);
}

TEST(Deck, CopyAndMoveKeepValues) {
  auto const d = parseDeck(kGood, "good.yaml", deckSchema());
  eddy::io::Deck c(d);
  eddy::io::Deck m(std::move(c));
  eddy::io::Deck a;
  a = m;
  EXPECT_EQ(a.getInt("run.steps"), 20);
  EXPECT_EQ(m.resolvedYaml(), d.resolvedYaml());
}

TEST(Deck, ResolvedYamlRoundTrips) {
  std::string const text =
      "run:\n  name: \"a \\\"quoted\\\": # name\\tx\"\n  debug_log: true\n"
      "grid:\n  cells: [3, 7]\n  length: [0.1, 3.0000000000000001e-08]\n"
      "parallel:\n  decomposition: [2, 0]\n  gpu_aware_mpi: on\n";
  auto const d = parseDeck(text, "r.yaml", deckSchema());
  std::string const resolved = d.resolvedYaml();
  EXPECT_EQ(resolved.rfind("run:\n  name: ", 0), 0u) << resolved;
  EXPECT_NE(resolved.find("  ghost: 1\n"), std::string::npos) << resolved;
  auto const again = parseDeck(resolved, "resolved.yaml", deckSchema());
  EXPECT_EQ(again.resolvedYaml(), resolved);
  EXPECT_EQ(again.getString("run.name"), "a \"quoted\": # name\tx");
  EXPECT_TRUE(again.getBool("run.debug_log"));
  EXPECT_EQ(again.getDoubleList("grid.length"), d.getDoubleList("grid.length"));
  EXPECT_EQ(again.getDoubleList("grid.length")[1], 3.0000000000000001e-08);
  EXPECT_EQ(again.getIntList("parallel.decomposition"), (std::vector<std::int64_t>{2, 0}));
  EXPECT_EQ(again.getString("parallel.gpu_aware_mpi"), "on");
  EXPECT_EQ(again.getInt("run.steps"), 100);
}

TEST(DeckErrors, UnknownKeySuggestsClosest) {
  expectError("run:\n  stpes: 3\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:3: run.stpes: unknown key 'stpes'", "did you mean 'steps'?",
               "allowed keys in run: name, steps, output_dir, progress_every, debug_log"});
  // A key of another section says where it belongs.
  expectError("grid:\n  cells: [2, 2]\n  steps: 3\n",
              {"t.yaml:3:3: grid.steps: unknown key", "did you mean run.steps?",
               "allowed keys in grid: cells, length, periodic, ghost"});
  expectError(
      "grid:\n  cells: [2, 2]\nsolver: {}\n",
      {"t.yaml:3:1: solver: unknown section 'solver'", "allowed sections: run, grid, parallel"});
  EXPECT_EQ(deckError("grid:\n  cells: [2, 2]\n  xyzzy: 1\n").find("did you mean"),
            std::string::npos);
}

TEST(DeckErrors, DuplicateKeysTopLevelAndNested) {
  expectError("grid:\n  cells: [2, 2]\nrun: {}\ngrid:\n  cells: [4, 4]\n",
              {"t.yaml:4:1: grid: duplicate key (first given at line 1)", "only once"});
  expectError("run:\n  steps: 1\n  name: x\n  steps: 2\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:4:3: run.steps: duplicate key (first given at line 2)"});
  expectError("grid: {cells: [2, 2], ghost: 1, ghost: 2}\n",
              {"t.yaml:1:33: grid.ghost: duplicate key (first given at line 1)"});
  // Duplicates are found even in sections Eddy does not know, and reported with the schema's
  // errors, in file order.
  expectError("grid:\n  cells: [2, 2]\nfoo:\n  a: 1\n  a: 2\n",
              {"t.yaml:3:1: foo: unknown section 'foo'", "\nt.yaml:5:3: foo.a: duplicate key"});
  // The first value is kept and checked.
  expectError("run:\n  steps: -1\n  steps: 2\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:10: run.steps: -1 is out of range",
               "\nt.yaml:3:3: run.steps: duplicate key (first given at line 2)"});
}

TEST(DeckErrors, WrongTypes) {
  expectError(
      "run:\n  steps: 1.5\ngrid:\n  cells: [2, 2]\n",
      {"t.yaml:2:10: run.steps: got '1.5', which is not an integer", "expected an integer >= 0"});
  expectError("run:\n  steps: \"10\"\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:10: run.steps: got the string \"10\"", "expected an integer"});
  expectError(
      "grid:\n  cells: [2, 2]\n  length: [1.0, two]\n",
      {"t.yaml:3:17: grid.length[1]: got 'two', which is not a number", "expected a number > 0"});
  expectError("grid:\n  cells: [2, 2]\n  ghost: {layers: 2}\n",
              {"t.yaml:3:3: grid.ghost: got a map", "expected an integer in [1, 4]"});
  expectError("grid:\n  cells: [2, 2]\n  ghost: [1]\n", {"t.yaml:3:3: grid.ghost: got a list"});
  expectError("grid:\n  cells: 64\n",
              {"t.yaml:2:3: grid.cells: got '64'",
               "expected a list of 2 or 3 integers, each in [1, 1073741824]"});
  expectError("run:\n  debug_log: yes\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:14: run.debug_log: got 'yes'", "expected true or false"});
  expectError("run:\n  steps:\ngrid:\n  cells: [2, 2]\n", {"t.yaml:2:3: run.steps: got no value"});
  expectError("run:\n  name: [a]\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:3: run.name: got a list", "expected a string"});
  expectError("run: 5\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:1:1: run: got '5'", "expected a section (a map) with keys: name, steps"});
  expectError("run:\n  steps: 99999999999999999999\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:10: run.steps: 99999999999999999999 does not fit in a 64-bit integer"});
  expectError("grid:\n  cells: [2, 2]\n  length: [.inf, 1]\n",
              {"t.yaml:3:12: grid.length[0]: got '.inf'"});
  expectError("grid:\n  cells: [2, 2]\n  length: [1e999, 1]\n",
              {"t.yaml:3:12: grid.length[0]: 1e999 is not a finite"});
}

TEST(DeckErrors, ListLengths) {
  expectError("grid:\n  cells: [2, 2, 2, 2]\n", {"t.yaml:2:3: grid.cells: got a list of 4 elements",
                                                 "expected a list of 2 or 3 integers"});
  expectError("grid:\n  cells: [2, 2]\n  length: [1.0, 1.0, 1.0]\n",
              {"t.yaml:3:3: grid.length: has 3 elements but grid.cells has 2",
               "expected one per element of grid.cells (2)"});
  expectError("grid:\n  cells: [2, 2, 2]\n  periodic: [true, false]\n",
              {"t.yaml:3:3: grid.periodic: has 2 elements but grid.cells has 3"});
}

TEST(DeckErrors, MissingRequired) {
  expectError("run:\n  steps: 1\ngrid:\n  ghost: 2\n",
              {"t.yaml:3:1: grid.cells: missing required key 'cells'",
               "expected a list of 2 or 3 integers, each in [1, 1073741824]"});
  expectError(
      "run:\n  steps: 1\n",
      {"t.yaml:1:1: grid.cells: missing required key 'cells' (section 'grid' is not in the deck)"});
  expectError("run:\n  steps: 1\ngrid:\n", {"t.yaml:3:1: grid.cells: missing required key"});
}

TEST(DeckErrors, OutOfRangeAndEnum) {
  expectError("grid:\n  cells: [2, 2]\n  ghost: 5\n",
              {"t.yaml:3:10: grid.ghost: 5 is out of range", "expected an integer in [1, 4]"});
  expectError("grid:\n  cells: [2, 0]\n",
              {"t.yaml:2:14: grid.cells[1]: 0 is out of range", "in [1, 1073741824]"});
  expectError("grid:\n  cells: [2, 2]\n  length: [1, 0]\n",
              {"t.yaml:3:15: grid.length[1]: 0 is out of range", "> 0"});
  expectError("run:\n  steps: -1\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:10: run.steps: -1 is out of range", ">= 0"});
  expectError("run:\n  progress_every: 0\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:19: run.progress_every: 0 is out of range"});
  expectError(
      "grid:\n  cells: [2, 2]\nparallel:\n  gpu_aware_mpi: maybe\n",
      {"t.yaml:4:3: parallel.gpu_aware_mpi: got 'maybe'", "expected one of: auto, on, off"});
  expectError("grid:\n  cells: [2, 2]\nparallel:\n  decomposition: [2, -1]\n",
              {"t.yaml:4:22: parallel.decomposition[1]: -1 is out of range"});
  // Cells and ranks are read as 32-bit integers by the run: 2^31 would wrap to a negative box.
  expectError("grid:\n  cells: [2147483648, 2]\n",
              {"t.yaml:2:11: grid.cells[0]: 2147483648 is out of range",
               "expected an integer in [1, 1073741824]"});
  expectError("grid:\n  cells: [2, 2]\nparallel:\n  decomposition: [4294967297, 1]\n",
              {"t.yaml:4:19: parallel.decomposition[0]: 4294967297 is out of range"});
  EXPECT_EQ(deckError("grid:\n  cells: [1073741824, 1]\n"), "");
}

TEST(DeckErrors, SyntaxAndTopLevel) {
  // yaml-cpp places syntax errors (the column may differ between yaml-cpp versions).
  std::string const flow = deckError("grid:\n  cells: [16, 16\nrun:\n  steps: 10\n");
  EXPECT_EQ(flow.rfind("t.yaml:3:", 0), 0u) << flow;
  EXPECT_NE(
      flow.find(": YAML syntax error: end of sequence flow not found; the deck must be valid YAML"),
      std::string::npos)
      << flow;
  std::string const indent = deckError("run:\n  steps: 1\n name: x\n");
  EXPECT_EQ(indent.rfind("t.yaml:3:", 0), 0u) << indent;
  EXPECT_NE(indent.find(": YAML syntax error: "), std::string::npos) << indent;
  expectError("", {"t.yaml:1:1: (top level): the deck is empty",
                   "expected a map of sections: run, grid, parallel"});
  expectError("# only a comment\n", {"t.yaml:1:1: (top level): the deck is empty"});
  expectError("- run\n- grid\n", {"t.yaml:1:1: (top level): the deck is a list"});
  expectError("hello\n", {"t.yaml:1:1: (top level): the deck is 'hello'"});
  expectError("grid:\n  cells: [2, 2]\n---\nrun: {}\n",
              {"t.yaml:3:1: (top level): a second YAML document"});
  expectError("grid:\n  cells: [2, 2]\n  [a]: 1\n", {"t.yaml:3:3: grid: a key is a list"});
}

TEST(DeckErrors, AliasesAreExpanded) {
  auto const d =
      parseDeck("grid:\n  cells: &n [8, 8]\n  length: [1, 1]\nparallel:\n  decomposition: *n\n",
                "a.yaml", deckSchema());
  EXPECT_EQ(d.getIntList("parallel.decomposition"), (std::vector<std::int64_t>{8, 8}));
}

/// A model registers its own section: optional sections, nested sections, exclusive ranges.
TEST(Schema, ModelRegistersItsSection) {
  eddy::io::Schema s;
  s.add(
      Key::section("grid", "grid").add(Key::intList("cells", "cells").lengths({2, 3}).required()));
  s.add(
      Key::section("fluids", "Navier-Stokes.")
          .optional()
          .add(Key::real("cfl", "CFL number.").greaterThan(0).lessThan(1).defaultValue(0.5))
          .add(Key::realList("gravity", "g.")
                   .sameLengthAs("grid.cells")
                   .defaultEach(0.0)
                   .unit("m/s^2"))
          .add(Key::string("restart", "optional key without default"))
          .add(
              Key::section("solver", "Pressure solver.")
                  .add(Key::choice("kind", {"cg", "multigrid"}, "Solver.").defaultValue("cg"))
                  .add(Key::integer("iterations", "Max iterations.").atLeast(1).defaultValue(50))));
  auto const absent = parseDeck("grid: {cells: [2, 2]}\n", "m.yaml", s);
  EXPECT_FALSE(absent.has("fluids"));
  EXPECT_FALSE(absent.has("fluids.cfl"));
  auto const d =
      parseDeck("grid: {cells: [2, 2, 2]}\nfluids:\n  solver: {kind: multigrid}\n", "m.yaml", s);
  EXPECT_TRUE(d.has("fluids.solver"));
  EXPECT_FALSE(d.has("fluids.restart"));
  EXPECT_DOUBLE_EQ(d.getDouble("fluids.cfl"), 0.5);
  EXPECT_EQ(d.getDoubleList("fluids.gravity"), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(d.getString("fluids.solver.kind"), "multigrid");
  EXPECT_EQ(d.getInt("fluids.solver.iterations"), 50);
  EXPECT_NE(d.resolvedYaml().find("fluids:\n  cfl: 0.5\n  gravity: [0.0, 0.0, 0.0]\n  solver:\n"
                                  "    kind: \"multigrid\"\n    iterations: 50\n"),
            std::string::npos)
      << d.resolvedYaml();
  std::string const msg = deckError("grid: {cells: [2, 2]}\nfluids:\n  cfl: 1\n", s);
  EXPECT_EQ(msg.rfind("t.yaml:3:8: fluids.cfl: 1 is out of range; expected a number in (0, 1)", 0),
            0u)
      << msg;
  std::string const nested =
      deckError("grid: {cells: [2, 2]}\nfluids:\n  solver:\n    iters: 3\n", s);
  EXPECT_EQ(
      nested.rfind(
          "t.yaml:4:5: fluids.solver.iters: unknown key 'iters' (did you mean 'iterations'?)", 0),
      0u)
      << nested;
  EXPECT_NE(eddy::io::referenceMarkdown(s).find("## `fluids.solver`"), std::string::npos);
}

TEST(Schema, BuilderRejectsMisuse) {
  EXPECT_THROW(Key::integer("n", "").defaultValue("text"), eddy::Error);
  EXPECT_THROW(Key::string("s", "").atLeast(0), eddy::Error);
  EXPECT_THROW(Key::choice("c", {"a", "b"}, "").defaultValue("z"), eddy::Error);
  EXPECT_THROW(Key::integer("n", "").lengths({2}), eddy::Error);
  EXPECT_THROW(Key::section("s", "").add(Key::integer("n", "")).add(Key::real("n", "")),
               eddy::Error);
  eddy::io::Schema s;
  EXPECT_THROW(s.add(Key::integer("n", "")), eddy::Error);
  EXPECT_EQ(deckSchema().find("grid.cells")->type(), eddy::io::KeyType::IntList);
  EXPECT_EQ(deckSchema().find("grid.nope"), nullptr);
}

TEST(Deck, LoadDeckReadsAndBroadcasts) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string const path = "test_deck_load.yaml";
  if (rank == 0) std::ofstream(path) << kGood;
  MPI_Barrier(MPI_COMM_WORLD);
  auto const d = eddy::io::loadDeck(path, deckSchema(), MPI_COMM_WORLD);
  EXPECT_EQ(d.getInt("run.steps"), 20);
  EXPECT_EQ(d.path(), path);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(path.c_str());
  try {
    eddy::io::loadDeck("no/such/deck.yaml", deckSchema(), MPI_COMM_WORLD);
    FAIL() << "no IoError";
  } catch (eddy::IoError const& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_EQ(e.code(), eddy::ExitCode::Io);
    EXPECT_NE(std::string(e.what()).find(
                  "cannot read deck 'no/such/deck.yaml': No such file or directory"),
              std::string::npos)
        << e.what();
  }
}

/// The DeckError message of checking `text` beyond its schema (the models' rules) as "t.yaml".
std::string checkError(std::string const& text) {
  try {
    eddy::app::checkDeck(parseDeck(text, "t.yaml", deckSchema()));
  } catch (eddy::DeckError const& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_EQ(e.code(), eddy::ExitCode::Deck);
    return e.what();
  }
  return "";
}

TEST(Deck, ModelRulesAreLocatedDeckErrors) {
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\n")
                .rfind("t.yaml: (top level): the deck names no "
                       "model; expected a model section",
                       0),
            0u);
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\nfluids:\n  poisson: {pre_sweeps: 0, "
                       "post_sweeps: 0}\n")
                .rfind("t.yaml:3:13: fluids.poisson.pre_sweeps: pre_sweeps and post_sweeps are "
                       "both 0",
                       0),
            0u);
  EXPECT_EQ(checkError("grid: {cells: [8, 8], periodic: [true, false]}\nfluids:\n  boundary: "
                       "{x_low: wall}\n")
                .rfind("t.yaml:3:14: fluids.boundary.x_low: 'wall', but grid.periodic makes the "
                       "x axis periodic; expected 'periodic'",
                       0),
            0u);
  // A rule on a key the deck does not give is located at its nearest given section.
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\nfluids:\n  wall_velocity: {y_high: [0, 1]}\n")
                .rfind("t.yaml:3:19: fluids.wall_velocity.y_high: element 1 is 1, but "
                       "fluids.boundary.y_high is a fixed 'wall'",
                       0),
            0u);
  // grid.periodic is not given: its error is located at the grid section, so it comes first.
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\nmd: {}\n"),
            "t.yaml:1:1: grid.periodic: has a false entry; expected [true, true, true] for md (the "
            "md box is periodic)\nt.yaml:1:8: grid.cells: has 2 entries; expected 3 for md "
            "(lattice cells per axis of the 3D box)");
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\ndiffusion: {}\noutput: {fields: u v}\n")
                .rfind("t.yaml:3:10: output.fields: names 'v', which this run does not write; "
                       "expected names from: all, u",
                       0),
            0u);
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\ndiffusion: {}\nfluids: {}\n"), "");
}

TEST(Docs, DeckReferenceMatchesSchema) {
  std::string const docPath = std::string(EDDY_SOURCE_DIR) + "/docs/deck-reference.md";
  std::ifstream in(docPath);
  ASSERT_TRUE(in.good()) << "cannot read " << docPath;
  std::stringstream doc;
  doc << in.rdbuf();
  std::string const expected = eddy::io::referenceMarkdown(deckSchema());
  if (doc.str() != expected) {
    std::ofstream("deck-reference.md.expected") << expected;
    FAIL() << docPath << " disagrees with deckSchema(); the text generated from the schema is in "
           << "deck-reference.md.expected (in the test's working directory): review it and copy "
           << "it to docs/deck-reference.md";
  }
}

}  // namespace
