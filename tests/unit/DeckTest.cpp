// Deck parsing and validation: defaults, getters, the resolved deck, one located message per kind
// of mistake, every mistake of a deck reported at once, the limits on what reading a deck may
// cost, and docs/deck-reference.md against the schema.
#include "ModelRegistry.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Schema.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
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

// A key given instead of a sibling (every_time instead of every) leaves the sibling out of the
// resolved deck, which therefore reads back; both given is one located error.
TEST(Deck, KeyInsteadOfSiblingLeavesItOut) {
  std::string const text = "grid:\n  cells: [4, 4]\noutput:\n  every_time: 0.5\n";
  auto const d = parseDeck(text, "t.yaml", deckSchema());
  EXPECT_FALSE(d.has("output.every"));
  EXPECT_EQ(d.getDouble("output.every_time"), 0.5);
  EXPECT_TRUE(d.has("diagnostics.every") || !d.has("diagnostics"));
  std::string const resolved = d.resolvedYaml();
  EXPECT_EQ(resolved.find("  every: "), std::string::npos) << resolved;
  auto const again = parseDeck(resolved, "resolved.yaml", deckSchema());
  EXPECT_EQ(again.resolvedYaml(), resolved);
  // Without every_time, every takes its default.
  EXPECT_EQ(parseDeck("grid:\n  cells: [4, 4]\noutput:\n  fields: all\n", "t.yaml",
                      deckSchema())
                .getInt("output.every"),
            100);
  expectError("grid:\n  cells: [4, 4]\noutput:\n  every: 5\n  every_time: 0.5\n",
              {"t.yaml:5:3: output.every_time: is given with output.every",
               "expected one of output.every and output.every_time"});
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

// A section of entries the deck names (Key::namedSections): each entry is checked as a section of
// the entry's keys and resolved with its defaults, in the deck's order; the resolved deck reads
// back the same.
TEST(Deck, NamedSectionsKeepTheDecksNamesAndOrder) {
  eddy::io::Schema schema;
  schema.add(Key::section("things", "A test section.")
                 .add(Key::namedSections(
                     "items", "Named items.",
                     Key::section("<name>", "One item.")
                         .add(Key::real("size", "Its size.").greaterThan(0).required())
                         .add(Key::choice("kind", {"round", "square"}, "Its kind.")
                                  .defaultValue("round")))));
  std::string const text = "things:\n  items:\n    post: {size: 2, kind: square}\n    cyl:\n"
                           "      size: 0.5\n";
  auto const d = parseDeck(text, "n.yaml", schema);
  EXPECT_EQ(d.names("things.items"), (std::vector<std::string>{"post", "cyl"}));
  EXPECT_EQ(d.getDouble("things.items.post.size"), 2.0);
  EXPECT_EQ(d.getString("things.items.post.kind"), "square");
  EXPECT_EQ(d.getString("things.items.cyl.kind"), "round");
  EXPECT_EQ(d.location("things.items.cyl.size"), "n.yaml:5:7");
  auto const again = parseDeck(d.resolvedYaml(), "resolved.yaml", schema);
  EXPECT_EQ(again.resolvedYaml(), d.resolvedYaml());
  EXPECT_EQ(again.names("things.items"), d.names("things.items"));
  // None given: the section is there and empty, and reads back so.
  auto const none = parseDeck("things: {}\n", "e.yaml", schema);
  EXPECT_TRUE(none.names("things.items").empty());
  EXPECT_TRUE(parseDeck(none.resolvedYaml(), "r.yaml", schema).names("things.items").empty());
  // Each entry is checked as a section: a bad name, a missing key, an unknown one, a bad value.
  std::string const bad = deckError(
      "things:\n  items:\n    2nd: {size: 1}\n    a: {kind: round}\n    b: {size: 1, sise: 2}\n"
      "    c: {size: -1}\n",
      schema);
  EXPECT_NE(bad.find("t.yaml:3:5: things.items.2nd: '2nd' is not a name"), std::string::npos)
      << bad;
  EXPECT_NE(bad.find("things.items.a.size: missing required key 'size'"), std::string::npos) << bad;
  EXPECT_NE(bad.find("things.items.b.sise: unknown key 'sise' (did you mean 'size'?)"),
            std::string::npos)
      << bad;
  EXPECT_NE(bad.find("t.yaml:6:15: things.items.c.size: -1 is out of range"), std::string::npos)
      << bad;
}

TEST(DeckErrors, UnknownKeySuggestsClosest) {
  expectError("run:\n  stpes: 3\ngrid:\n  cells: [2, 2]\n",
              {"t.yaml:2:3: run.stpes: unknown key 'stpes'", "did you mean 'steps'?",
               "allowed keys in run: name, steps, end_time, max_wall_time, output_dir, "
               "progress_every, debug_log"});
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

/// The lines of a message.
std::vector<std::string> linesOf(std::string const& msg) {
  std::vector<std::string> lines;
  std::istringstream in(msg);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(DeckErrors, EveryErrorIsReportedInFileOrder) {
  // Five mistakes in three sections. The unknown key is found before the keys of its section
  // are checked, yet it is listed at its place in the file.
  std::string const msg = deckError(
      "run:\n  steps: -1\n  stpes: 3\ngrid:\n  cells: [2, two]\n  ghost: 9\n"
      "parallel:\n  gpu_aware_mpi: maybe\n");
  auto const lines = linesOf(msg);
  ASSERT_EQ(lines.size(), 5u) << msg;
  EXPECT_EQ(lines[0], "t.yaml:2:10: run.steps: -1 is out of range; expected an integer >= 0");
  EXPECT_EQ(lines[1].rfind("t.yaml:3:3: run.stpes: unknown key 'stpes' (did you mean 'steps'?)", 0),
            0u)
      << lines[1];
  EXPECT_EQ(lines[2].rfind("t.yaml:5:14: grid.cells[1]: got 'two', which is not an integer", 0), 0u)
      << lines[2];
  EXPECT_EQ(lines[3], "t.yaml:6:10: grid.ghost: 9 is out of range; expected an integer in [1, 4]");
  EXPECT_EQ(lines[4],
            "t.yaml:8:3: parallel.gpu_aware_mpi: got 'maybe'; expected one of: auto, on, off");
}

TEST(DeckErrors, OneMistakeIsOneError) {
  // A wrong list is not also compared with the lists whose length follows it.
  EXPECT_EQ(deckError("grid:\n  cells: [2, 2, 2, 2]\n  length: [1, 1]\n"),
            "t.yaml:2:3: grid.cells: got a list of 4 elements; expected a list of 2 or 3 "
            "integers, each in [1, 1073741824]");
  // A section that is not a map is not also missing its required keys.
  EXPECT_EQ(linesOf(deckError("grid: 5\n")).size(), 1u);
  // But every wrong element of a list is its own error.
  auto const lines = linesOf(deckError("grid:\n  cells: [0, x, -3]\n"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("t.yaml:2:11: grid.cells[0]: 0 is out of range", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("t.yaml:2:14: grid.cells[1]: got 'x'", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("t.yaml:2:17: grid.cells[2]: -3 is out of range", 0), 0u) << lines[2];
}

TEST(DeckErrors, AtMostTwentyAreListedThenCounted) {
  std::string text = "grid: {cells: [2, 2]}\n";
  for (int i = 0; i < 25; ++i) text += eddy::str("extra", 10 + i, ": 1\n");
  auto const lines = linesOf(deckError(text));
  ASSERT_EQ(lines.size(), eddy::io::DeckErrors::kShown + 1);
  EXPECT_EQ(lines[0].rfind("t.yaml:2:1: extra10: unknown section 'extra10'", 0), 0u) << lines[0];
  EXPECT_EQ(lines[19].rfind("t.yaml:21:1: extra29: unknown section", 0), 0u) << lines[19];
  EXPECT_EQ(lines[20], "... and 5 more errors");
}

TEST(DeckErrors, CollectorSortsCountsAndThrowsOnce) {
  eddy::io::DeckErrors errors("f.yaml");
  EXPECT_TRUE(errors.empty());
  EXPECT_NO_THROW(errors.throwIfAny());
  errors.add(5, 2, "b", "second", "fix b");
  errors.add(0, 0, "", "of the whole file", "fix it");
  errors.add(5, 2, "c", "third", "fix c");  // the same place as b: after it
  errors.addText(3, 7, "YAML syntax error: x; fix a");
  std::string const expected =
      "f.yaml: (top level): of the whole file; fix it\n"
      "f.yaml:3:7: YAML syntax error: x; fix a\n"
      "f.yaml:5:2: b: second; fix b\n"
      "f.yaml:5:2: c: third; fix c";
  EXPECT_EQ(errors.message(), expected);
  EXPECT_EQ(errors.size(), 4u);
  try {
    errors.throwIfAny();
    FAIL() << "no DeckError";
  } catch (eddy::DeckError const& e) {
    EXPECT_EQ(e.what(), expected);
    EXPECT_TRUE(e.collective());
  }
  // Past the cap the earliest places are kept, whatever the order they come in.
  for (int line = 100; line > 70; --line) errors.add(line, 1, "k", "late", "x");
  errors.add(1, 1, "first", "early", "x");
  auto const lines = linesOf(errors.message());
  ASSERT_EQ(lines.size(), eddy::io::DeckErrors::kShown + 1);
  EXPECT_EQ(lines[0], "f.yaml: (top level): of the whole file; fix it");
  EXPECT_EQ(lines[1], "f.yaml:1:1: first: early; x");
  EXPECT_EQ(lines[19], "f.yaml:85:1: k: late; x");
  EXPECT_EQ(lines[20], "... and 15 more errors");
}

TEST(DeckErrors, ElidedValues) {
  using eddy::io::elided;
  EXPECT_EQ(elided("steps"), "steps");
  EXPECT_EQ(elided(std::string(60, 'x')), std::string(60, 'x'));
  EXPECT_EQ(elided(std::string(61, 'x')), std::string(60, 'x') + "... (61 characters)");
  EXPECT_EQ(elided("a\nb\tc\x01"), "a\\nb\\tc\\x01");
  EXPECT_EQ(elided("a\nb\tc\x01", 3), "a\\nb... (6 characters)");
  // Characters, not bytes: a UTF-8 character is never cut.
  std::string e;
  for (int i = 0; i < 61; ++i) e += "\xc3\xa9";
  std::string e60;
  for (int i = 0; i < 60; ++i) e60 += "\xc3\xa9";
  EXPECT_EQ(elided(e), e60 + "... (61 characters)");
}

TEST(DeckErrors, LongValuesAreElidedInMessages) {
  std::string const digits(1000000, '9');
  EXPECT_EQ(deckError("run:\n  steps: " + digits + "\ngrid:\n  cells: [2, 2]\n"),
            "t.yaml:2:10: run.steps: " + std::string(60, '9') +
                "... (1000000 characters) does not fit in a 64-bit integer; expected an integer "
                ">= 0");
  std::string const key(1000000, 'k');
  // (An implicit key is at most 1024 characters in YAML; an explicit one, `? key`, is not.)
  std::string const unknown = deckError("grid:\n  cells: [2, 2]\n? " + key + "\n: 1\n");
  EXPECT_EQ(unknown.rfind("t.yaml:3:3: " + std::string(60, 'k') +
                              "... (1000000 characters): unknown section '" + std::string(60, 'k') +
                              "... (1000000 characters)'; allowed sections",
                          0),
            0u)
      << unknown.substr(0, 300);
  EXPECT_LT(unknown.size(), 600u);
  std::string const word(1000000, 'y');
  std::string const choice =
      deckError("grid:\n  cells: [2, 2]\nparallel:\n  gpu_aware_mpi: \"" + word + "\"\n");
  EXPECT_EQ(choice, "t.yaml:4:3: parallel.gpu_aware_mpi: got the string \"" + std::string(60, 'y') +
                        "... (1000000 characters)\"; expected one of: auto, on, off");
  // A value with a line break stays on its line of the message.
  EXPECT_EQ(deckError("run:\n  steps: \"1\\n2\"\ngrid:\n  cells: [2, 2]\n"),
            "t.yaml:2:10: run.steps: got the string \"1\\n2\"; expected an integer >= 0");
}

TEST(DeckLimits, AliasBombIsRejectedBeforeItExpands) {
  // Nine lines that expand to 9^9 strings (gigabytes): the alias that would pass 10000 nodes is
  // the error, before it is copied.
  std::string const bomb =
      "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
      "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
      "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
  EXPECT_EQ(deckError(bomb),
            "t.yaml:5:8: e[0]: this alias makes the deck hold more than 10000 YAML nodes (keys, "
            "values, lists and maps); expected at most 10000 (a deck holds parameters: about a "
            "hundred values)");
  // Text counts at its full size too: eleven aliases of a 200 kB string pass 2 MiB.
  std::string const text = "a: &a " + std::string(200000, 'x') + "\nb: [" +
                           "*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
  std::string const msg = deckError(text);
  EXPECT_EQ(msg.rfind("t.yaml:2:41: b[9]: this alias makes the deck's keys and values come to "
                      "more than 2097152 bytes; expected at most 2097152",
                      0),
            0u)
      << msg;
}

TEST(DeckLimits, TooManyNodesWithoutAliases) {
  std::string list = "[1";
  for (int i = 1; i < 10000; ++i) list += ", 1";
  std::string const msg = deckError("grid:\n  cells: " + list + "]\n");
  EXPECT_EQ(msg.rfind("t.yaml:2:", 0), 0u) << msg;
  EXPECT_NE(msg.find(": grid.cells[9995]: the deck holds more than 10000 YAML nodes"),
            std::string::npos)
      << msg;
  // 10000 nodes are read (and the list is the schema's error).
  std::string const fits = deckError("grid:\n  cells: [1" + list.substr(2, 3 * 9994) + "]\n");
  EXPECT_EQ(fits.rfind("t.yaml:2:3: grid.cells: got a list of 9995 elements", 0), 0u) << fits;
}

/// How deep a deck of `k` nests maps and lists (a section is a map; a list key is a list).
int depthOf(Key const& k) {
  if (!k.isSection()) return k.isList() ? 1 : 0;
  int deepest = 0;
  for (auto const& c : k.children()) deepest = std::max(deepest, depthOf(c));
  return 1 + deepest;
}

TEST(DeckLimits, NestingDeeperThanTheLimitIsRejected) {
  // The message says the sections nest at most 6 deep; the limit leaves room beyond that.
  EXPECT_EQ(depthOf(deckSchema().root()), 6);
  EXPECT_LT(depthOf(deckSchema().root()) + 8, eddy::io::DeckLimits::kDepth);

  std::string const msg =
      deckError("grid:\n  cells: " + std::string(100, '[') + "8" + std::string(100, ']') + "\n");
  std::string path = "grid.cells";
  for (int i = 0; i < 14; ++i) path += "[0]";
  EXPECT_EQ(msg, "t.yaml:2:24: " + path +
                     ": maps and lists nested 17 deep; expected at most 16 (the sections of a "
                     "deck nest at most 6 deep)");
  // 16 deep is read; the schema then says what is wrong.
  std::string const fits =
      deckError("grid:\n  cells: " + std::string(14, '[') + "8" + std::string(14, ']') + "\n");
  EXPECT_EQ(fits.rfind("t.yaml:2:3: grid.cells: got a list of 1 elements", 0), 0u) << fits;
  // An alias counts at its full depth where it is placed.
  std::string const alias =
      deckError("a: &a [[[[[[[[[[1]]]]]]]]]]\ngrid:\n  cells: [[[[[[[*a]]]]]]]\n");
  EXPECT_EQ(alias.rfind("t.yaml:3:17: grid.cells[0][0][0][0][0][0][0]: this alias nests maps "
                        "and lists 19 deep; expected at most 16",
                        0),
            0u)
      << alias;
}

TEST(DeckLimits, LongDeckIsRejectedWhereItPassesTheLimit) {
  std::size_t const limit = eddy::io::DeckLimits::kBytes;
  std::string const head = "grid: {cells: [2, 2]}\n#";
  std::string const full = head + std::string(limit - head.size() - 1, 'c') + "\n";
  ASSERT_EQ(full.size(), limit);
  EXPECT_EQ(parseDeck(full, "t.yaml", deckSchema()).getIntList("grid.cells"),
            (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(deckError(full + "\n"),
            "t.yaml:3:1: (top level): the deck is longer than 1 MiB (1048576 bytes); byte "
            "1048577 is here; expected a deck of at most 1 MiB (a deck holds parameters, not "
            "data)");
  std::string const value = "run:\n  name: " + std::string(limit, 'x') + "\n";
  EXPECT_EQ(
      deckError(value).rfind("t.yaml:2:1048572: (top level): the deck is longer than 1 MiB", 0),
      0u);
}

TEST(DeckLimits, LoadDeckReadsNoMoreThanTheLimit) {
  // An endless file: read whole, it would never end.
  std::ifstream zero("/dev/zero");
  if (!zero.good()) GTEST_SKIP() << "no /dev/zero";
  try {
    eddy::io::loadDeck("/dev/zero", deckSchema(), MPI_COMM_WORLD);
    FAIL() << "no DeckError";
  } catch (eddy::DeckError const& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/dev/zero:1:1048577: (top level): the deck is longer "
                                          "than 1 MiB",
                                          0),
              0u)
        << e.what();
  }
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
                   .unit("L/T^2"))
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

TEST(Deck, DerivedFieldsAreNamedInOutputFields) {
  // The flow's derived fields are valid names, alone or with `all`, in 2D and 3D ...
  for (char const* cells : {"[8, 8]", "[8, 8, 8]"})
    EXPECT_EQ(checkError(std::string("grid: {cells: ") + cells +
                         "}\nfluids: {}\noutput: {fields: \"all, vorticity q_criterion speed\"}\n"),
              "")
        << cells;
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\nfluids: {}\ndiffusion: {}\n"
                       "output: {fields: fluids_vorticity fluids_speed diffusion_u}\n"),
            "");
  // ... an unknown one is refused with the derived names listed apart (not part of `all`) ...
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\nfluids: {}\noutput: {fields: u vortcity}\n"),
            "t.yaml:3:10: output.fields: names 'vortcity', which this run does not write; "
            "expected names from: all, pressure, u, v, divergence; and, written only when named: "
            "vorticity, q_criterion, speed");
  // ... and so are they for a model that does not derive them, or without the prefix of a run
  // of several models.
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\ndiffusion: {}\noutput: {fields: vorticity}\n"),
            "t.yaml:3:10: output.fields: names 'vorticity', which this run does not write; "
            "expected names from: all, u");
  EXPECT_EQ(checkError("grid: {cells: [8, 8]}\nfluids: {}\ndiffusion: {}\n"
                       "output: {fields: speed}\n")
                .rfind("t.yaml:4:10: output.fields: names 'speed', which this run does not write",
                       0),
            0u);
}

TEST(Deck, EveryModelRuleBrokenIsReported) {
  // Three rules of one model and of the output, each located, in file order.
  std::string const fluids = checkError(
      "grid: {cells: [8, 8], periodic: [true, false]}\nfluids:\n  boundary: {x_low: wall}\n"
      "  wall_velocity: {y_high: [0, 1]}\noutput: {fields: u q}\n");
  auto const lines = linesOf(fluids);
  ASSERT_EQ(lines.size(), 3u) << fluids;
  EXPECT_EQ(lines[0].rfind("t.yaml:3:14: fluids.boundary.x_low: 'wall', but grid.periodic", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("t.yaml:4:19: fluids.wall_velocity.y_high: element 1 is 1", 0), 0u)
      << lines[1];
  EXPECT_EQ(
      lines[2].rfind("t.yaml:5:10: output.fields: names 'q', which this run does not write", 0), 0u)
      << lines[2];
  // Rules of two models and of the registry at once.
  auto const mixed = linesOf(checkError("grid: {cells: [8, 8]}\nfluids: {}\nmd: {}\n"));
  ASSERT_EQ(mixed.size(), 3u);
  EXPECT_EQ(mixed[0].rfind("t.yaml:1:1: grid.periodic: has a false entry", 0), 0u) << mixed[0];
  EXPECT_EQ(mixed[1].rfind("t.yaml:1:8: grid.cells: has 2 entries; expected 3 for md", 0), 0u)
      << mixed[1];
  EXPECT_EQ(mixed[2].rfind("t.yaml:3:1: md: the md model reads grid.cells its own way and runs "
                           "alone, but the deck also has fluids",
                           0),
            0u)
      << mixed[2];
  // A name in output.fields is elided like any value.
  std::string const longName(100000, 'f');
  EXPECT_EQ(
      checkError("grid: {cells: [8, 8]}\ndiffusion: {}\noutput: {fields: " + longName + "}\n"),
      "t.yaml:3:10: output.fields: names '" + std::string(60, 'f') +
          "... (100000 characters)', which this run does not write; expected names from: "
          "all, u");
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
