// Command-line deck values (`--set key.path=value`): parsed from the argument, set in the YAML
// tree before the schema checks it, located at the argument when wrong, listed in the resolved
// deck, and the same on every rank.
#include "ModelRegistry.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/Deck.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using eddy::app::deckSchema;
using eddy::io::DeckOverride;
using eddy::io::parseDeck;
using eddy::io::parseOverride;

std::string const kDeck = R"(run:
  steps: 20
grid:
  cells: [64, 32]
fluids:
  viscosity: 0.01
)";

std::vector<DeckOverride> sets(std::vector<std::string> const& args) {
  std::vector<DeckOverride> out;
  for (auto const& a : args) out.push_back(parseOverride(a));
  return out;
}

/// The DeckError message of `kDeck` with `args` ("" if it parsed).
std::string deckError(std::vector<std::string> const& args, std::string const& text = kDeck) {
  try {
    parseDeck(text, "t.yaml", deckSchema(), sets(args));
  } catch (eddy::DeckError const& e) {
    return e.what();
  }
  return "";
}

TEST(DeckOverride, ParsesKeyPathAndValue) {
  DeckOverride const o = parseOverride("grid.cells=[8, 8]");
  EXPECT_EQ(o.keyPath, "grid.cells");
  EXPECT_EQ(o.value, "[8, 8]");
  EXPECT_EQ(o.argument(), "--set grid.cells=[8, 8]");
  // The first '=' ends the key path; the value may hold more, or nothing.
  EXPECT_EQ(parseOverride("run.name=a=b").value, "a=b");
  EXPECT_EQ(parseOverride("run.name=").value, "");
  EXPECT_EQ(parseOverride(" run.steps =3").keyPath, "run.steps");
  // Control characters stay on one line where the override is listed.
  EXPECT_EQ(parseOverride("run.name=a\nb").text(), "run.name=a\\nb");
}

TEST(DeckOverride, MalformedArgumentIsAUsageError) {
  for (std::string const bad : {"run.steps", "=3", " =3", ".steps=3", "run.=3", "run..steps=3"}) {
    try {
      parseOverride(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (eddy::UsageError const& e) {
      EXPECT_EQ(e.code(), eddy::ExitCode::Usage);
      EXPECT_NE(std::string(e.what()).find("expected --set key.path=value"), std::string::npos)
          << e.what();
    }
  }
}

TEST(DeckOverride, ReplacesAddsAndCreatesSections) {
  auto const d =
      parseDeck(kDeck, "t.yaml", deckSchema(),
                sets({"run.steps=3", "grid.cells=[16,8]", "run.name=short", "diagnostics.every=5",
                      "fluids.boundary.y_high=moving_wall", "run.steps=4"}));
  EXPECT_EQ(d.getInt("run.steps"), 4);  // the later of two wins
  EXPECT_EQ(d.getIntList("grid.cells"), (std::vector<std::int64_t>{16, 8}));
  EXPECT_EQ(d.getString("run.name"), "short");  // a key the deck leaves to its default
  ASSERT_TRUE(d.has("diagnostics"));            // a section the deck does not have
  EXPECT_EQ(d.getInt("diagnostics.every"), 5);
  EXPECT_EQ(d.getString("diagnostics.file"), "diagnostics.csv");  // its other keys: defaults
  EXPECT_EQ(d.getString("fluids.boundary.y_high"), "moving_wall");
  EXPECT_TRUE(d.given("run.name"));
  EXPECT_FALSE(d.given("run.output_dir"));
  EXPECT_EQ(d.location("run.steps"), "--set run.steps=4");
  EXPECT_EQ(d.location("grid.cells"), "--set grid.cells=[16,8]");
  EXPECT_EQ(d.location("grid.ghost"), "t.yaml:3:1");  // the section the deck gives
  EXPECT_EQ(d.overrides().size(), 6u);
}

TEST(DeckOverride, EmptySectionAndEmptyDeckTakeOverrides) {
  auto const d =
      parseDeck("run:\ngrid:\n  cells: [4, 4]\n", "t.yaml", deckSchema(), sets({"run.steps=7"}));
  EXPECT_EQ(d.getInt("run.steps"), 7);
  auto const e = parseDeck("", "e.yaml", deckSchema(), sets({"grid.cells=[4,4]"}));
  EXPECT_EQ(e.getIntList("grid.cells"), (std::vector<std::int64_t>{4, 4}));
}

TEST(DeckOverride, ValuesAreCheckedAsTheDecksAndLocatedAtTheArgument) {
  EXPECT_EQ(deckError({"run.steps=abc"}),
            "--set run.steps=abc: run.steps: got 'abc', which is not an integer; expected an "
            "integer >= 0");
  EXPECT_EQ(
      deckError({"grid.ghost=9"}).rfind("--set grid.ghost=9: grid.ghost: 9 is out of range", 0),
      0u);
  // A quoted number is a string, as in a deck.
  EXPECT_EQ(
      deckError({"run.steps=\"3\""}).rfind("--set run.steps=\"3\": run.steps: got the string", 0),
      0u);
  std::string const unknown = deckError({"run.stpes=3"});
  EXPECT_EQ(unknown.rfind("--set run.stpes=3: run.stpes: unknown key 'stpes' (did you mean "
                          "'steps'?)",
                          0),
            0u)
      << unknown;
  EXPECT_EQ(deckError({"solver.x=1"}).rfind("--set solver.x=1: solver: unknown section", 0), 0u);
  EXPECT_EQ(deckError({"run.steps.x=1"}),
            "--set run.steps.x=1: run.steps: holds '20', not a section, so run.steps.x cannot be "
            "set; expected a key path through sections, such as run.steps");
  std::string const syntax = deckError({"grid.cells=[64,"});
  EXPECT_EQ(syntax.rfind("--set grid.cells=[64,: YAML syntax error", 0), 0u) << syntax;
  // A new section's missing required key is located at the argument that made the section.
  std::string const missing = deckError({"grid.length=[1,1]"}, "fluids:\n  viscosity: 0.1\n");
  EXPECT_EQ(missing.rfind("--set grid.length=[1,1]: grid.cells: missing required key", 0), 0u)
      << missing;
}

TEST(DeckOverride, ErrorsOfFileAndArgumentsComeTogetherFileFirst) {
  std::string const msg =
      deckError({"grid.ghost=9", "run.steps=-1"}, "run:\n  stpes: 1\ngrid:\n  cells: [4, 4]\n");
  EXPECT_EQ(msg,
            "t.yaml:2:3: run.stpes: unknown key 'stpes' (did you mean 'steps'?); allowed keys in "
            "run: name, steps, end_time, max_wall_time, output_dir, progress_every, debug_log, "
            "restart\n"
            "--set grid.ghost=9: grid.ghost: 9 is out of range; expected an integer in [1, 4]\n"
            "--set run.steps=-1: run.steps: -1 is out of range; expected an integer >= 0");
}

TEST(DeckOverride, ModelRulesLocateAnOverriddenKeyAtItsArgument) {
  auto const d = parseDeck(kDeck, "t.yaml", deckSchema(),
                           sets({"grid.periodic=[true,false]", "fluids.boundary.x_low=wall"}));
  try {
    eddy::app::checkDeck(d);
    FAIL() << "checkDeck accepted a wall on a periodic axis";
  } catch (eddy::DeckError const& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("--set fluids.boundary.x_low=wall: fluids.boundary.x_low: "
                                    "'wall', but grid.periodic",
                                    0),
        0u)
        << e.what();
  }
}

TEST(DeckOverride, ResolvedYamlListsOverridesAndReadsBack) {
  auto const d =
      parseDeck(kDeck, "t.yaml", deckSchema(), sets({"run.steps=3", "grid.cells=[8, 8]"}));
  std::string const resolved = d.resolvedYaml();
  EXPECT_EQ(resolved.rfind("# deck overrides: run.steps=3, grid.cells=[8, 8]\nrun:\n", 0), 0u)
      << resolved;
  EXPECT_NE(resolved.find("\n  steps: 3\n"), std::string::npos) << resolved;
  auto const again = parseDeck(resolved, "resolved.yaml", deckSchema());
  EXPECT_EQ(again.getInt("run.steps"), 3);
  EXPECT_EQ(again.getIntList("grid.cells"), (std::vector<std::int64_t>{8, 8}));
  // Without the comment line, the same text.
  EXPECT_EQ("# deck overrides: run.steps=3, grid.cells=[8, 8]\n" + again.resolvedYaml(), resolved);
  // Without overrides, no comment.
  EXPECT_EQ(parseDeck(kDeck, "t.yaml", deckSchema()).resolvedYaml().rfind("run:\n", 0), 0u);
}

TEST(DeckOverride, LoadDeckGivesEveryRankRankZerosOverrides) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // One file per rank count: the serial and MPI instances of this test may run at once.
  std::string const path = "deck_override_test." + std::to_string(size) + ".yaml";
  if (rank == 0) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(kDeck.c_str(), f);
    std::fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // Only rank 0 is given the overrides: the others must still run rank 0's deck.
  auto const mine = rank == 0 ? sets({"run.steps=5", "run.name=x=y"}) : sets({"run.steps=9"});
  auto const d = eddy::io::loadDeck(path, deckSchema(), MPI_COMM_WORLD, mine);
  EXPECT_EQ(d.getInt("run.steps"), 5);
  EXPECT_EQ(d.getString("run.name"), "x=y");
  ASSERT_EQ(d.overrides().size(), 2u);
  EXPECT_EQ(d.overrides()[1].argument(), "--set run.name=x=y");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(path.c_str());
}

}  // namespace
