// deck_fuzz: a mutational fuzzer of deck reading. It makes mutants of the seed decks in the
// corpus directories (DeckMutator) and reads each one as `eddy validate` and `eddy run` do
// (io::parseDeck against app::deckSchema(), then app::checkDeck). It fails when a mutant
//   - raises anything but an eddy::DeckError (a crash ends the program with the mutant's
//     reproducer printed; std::bad_alloc, eddy::Error, ... are reported as failures),
//   - takes longer than --time-limit seconds (2 s; a watchdog ends a hang),
//   - raises a DeckError with a line that is not located (`file:line:col: ` or `file: `, the
//     last line may count the errors not shown) or longer than 2000 characters,
//   - is accepted, but its resolved deck (what `eddy validate` prints) is not accepted as the
//     same deck (unless quoting made it longer than a deck may be), or the run's decomposition
//     of it (as app::runDeck builds it, on as many ranks as parallel.decomposition asks for)
//     fails. Nothing after the decomposition in app::runDeck raises an eddy::DeckError, and the
//     models' constructors throw the first of the same violations() that their checks report;
//     the models themselves are not built (their fields are as large as grid.cells says).
// Every mutant is a function of (corpus, --seed, its index): the reproducer printed with a
// failure makes it again alone (--only I --write FILE).
//
//   deck_fuzz [--mutants N] [--seed S] [--only I] [--write FILE] [--time-limit SECONDS]
//             CORPUS_DIR...
#include "DeckMutator.hpp"

#include "ModelRegistry.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Schema.hpp"

#include <unistd.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

char const* const kFile = "fuzz.yaml";  // the path mutants are read as
std::size_t const kMaxLine = 2000;

/// What the signal handler and the watchdog print: the reproducer of the mutant being read.
char g_reproducer[4096] = "";
std::atomic<long long> g_startNs{-1};  // start of the current mutant; -1 between mutants

long long nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

void writeStderr(char const* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t const w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

extern "C" void onCrash(int sig) {
  writeStderr(sig == SIGSEGV   ? "deck_fuzz: FAILED: SIGSEGV reading a mutant; "
              : sig == SIGABRT ? "deck_fuzz: FAILED: SIGABRT reading a mutant; "
              : sig == SIGFPE  ? "deck_fuzz: FAILED: SIGFPE reading a mutant; "
                               : "deck_fuzz: FAILED: a signal while reading a mutant; ");
  writeStderr(g_reproducer);
  writeStderr("\n");
  std::_Exit(1);
}

struct Options {
  std::uint64_t mutants = 10000;
  std::uint64_t seed = 1;
  long long only = -1;
  std::string write;
  double timeLimit = 2.0;
  std::vector<std::string> dirs;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "deck_fuzz: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--mutants")
      o.mutants = std::stoull(value());
    else if (a == "--seed")
      o.seed = std::stoull(value());
    else if (a == "--only")
      o.only = std::stoll(value());
    else if (a == "--write")
      o.write = value();
    else if (a == "--time-limit")
      o.timeLimit = std::stod(value());
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "deck_fuzz: unknown option %s\n", a.c_str());
      std::exit(2);
    } else
      o.dirs.push_back(a);
  }
  if (o.dirs.empty()) {
    std::fprintf(stderr,
                 "usage: deck_fuzz [--mutants N] [--seed S] [--only I] [--write FILE] "
                 "[--time-limit SECONDS] CORPUS_DIR...\n");
    std::exit(2);
  }
  return o;
}

/// The seed decks: every regular *.yaml file of `dirs`, each directory in name order.
std::vector<std::string> readCorpus(std::vector<std::string> const& dirs,
                                    std::vector<std::string>& names) {
  std::vector<std::string> texts;
  for (auto const& d : dirs) {
    std::vector<fs::path> files;
    for (auto const& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (auto const& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      texts.push_back(ss.str());
      names.push_back(f.string());
    }
  }
  return texts;
}

/// The schema's section and key names and its choices.
void collectWords(eddy::io::Key const& k, std::vector<std::string>& out) {
  for (auto const& c : k.children()) {
    out.push_back(c.name());
    for (auto const& choice : c.choices()) out.push_back(choice);
    collectWords(c, out);
  }
}

/// "" when `message` is a well-formed deck error message, else what is wrong with it.
std::string malformed(std::string const& message) {
  if (message.empty()) return "an empty message";
  std::istringstream in(message);
  std::string const file = std::string(kFile) + ":";
  std::size_t n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    if (line.size() > kMaxLine)
      return eddy::str("line ", n + 1, " has ", line.size(), " characters (a value not elided?)");
    if (line.rfind("... and ", 0) == 0 && in.peek() == EOF && n > 0) continue;
    if (line.rfind(file, 0) != 0) return eddy::str("line ", n + 1, " is not located");
    std::size_t p = file.size();
    if (line.compare(p, 1, " ") == 0) continue;  // `file: ...`: a rule of the whole deck
    auto digits = [&] {
      std::size_t const b = p;
      while (p < line.size() && std::isdigit(static_cast<unsigned char>(line[p]))) ++p;
      return p > b;
    };
    if (!(digits() && line.compare(p++, 1, ":") == 0 && digits() && line.compare(p, 2, ": ") == 0))
      return eddy::str("line ", n + 1, " is not located as file:line:col");
  }
  if (n > eddy::io::DeckErrors::kShown + 1) return eddy::str(n, " lines, more than the cap");
  return "";
}

std::array<int, 3> toIndex3(std::vector<std::int64_t> const& v, int fill) {
  std::array<int, 3> r{fill, fill, fill};
  for (std::size_t a = 0; a < v.size() && a < 3; ++a) r[a] = static_cast<int>(v[a]);
  return r;
}

/// The run's decomposition of an accepted deck, as app::runDeck builds it, on as many ranks as
/// parallel.decomposition asks for (1 when it leaves them to Eddy); "" or why it failed.
std::string decompositionProblem(eddy::io::Deck const& deck) {
  auto const cells = deck.getIntList("grid.cells");
  auto const forcedList = deck.getIntList("parallel.decomposition");
  auto const periodicList = deck.getBoolList("grid.periodic");
  eddy::Periodic3 periodic{false, false, false};
  for (std::size_t a = 0; a < periodicList.size() && a < 3; ++a) periodic[a] = periodicList[a];
  std::int64_t ranks = 1;
  for (std::size_t a = 0; a < forcedList.size() && a < cells.size(); ++a)
    ranks *= std::max<std::int64_t>(1, std::min<std::int64_t>(forcedList[a], 1 << 20));
  if (ranks > 4096) return "";  // not a rank count this check builds
  try {
    eddy::CartDecomposition const d(toIndex3(cells, 1), static_cast<int>(cells.size()), periodic,
                                    static_cast<int>(ranks), 0, toIndex3(forcedList, 0));
    (void)d;
  } catch (eddy::ConfigError const& e) {
    return eddy::str("the run's decomposition on ", ranks, " rank(s) fails: ", e.what());
  }
  return "";
}

/// "" when the resolved deck of `deck` (what `eddy validate` prints) reads back as the same
/// deck, else what went wrong.
std::string roundTripProblem(eddy::io::Deck const& deck) {
  std::string const resolved = deck.resolvedYaml();
  // Quoting can make the resolved deck of a deck close to the size limit pass it.
  if (resolved.size() > eddy::io::DeckLimits::kBytes) return "";
  try {
    eddy::io::Deck const again = eddy::io::parseDeck(resolved, kFile, eddy::app::deckSchema());
    eddy::app::checkDeck(again);
    if (again.resolvedYaml() != resolved) return "the resolved deck reads back as another deck";
  } catch (eddy::DeckError const& e) {
    return eddy::str("the resolved deck is rejected: ", e.what());
  }
  return "";
}

enum class Outcome { Accepted, DeckError, Failure };

/// Reads `text` as `eddy validate` does and checks the properties above.
Outcome readMutant(std::string const& text, std::string& detail) {
  using eddy::app::deckSchema;
  try {
    eddy::io::Deck const deck = eddy::io::parseDeck(text, kFile, deckSchema());
    eddy::app::checkDeck(deck);
    detail = roundTripProblem(deck);
    if (detail.empty()) detail = decompositionProblem(deck);
    return detail.empty() ? Outcome::Accepted : Outcome::Failure;
  } catch (eddy::DeckError const& e) {
    std::string const why = malformed(e.what());
    if (why.empty()) {
      detail = e.what();
      return Outcome::DeckError;
    }
    detail = eddy::str("a malformed deck error (", why, "):\n", e.what());
    return Outcome::Failure;
  } catch (std::exception const& e) {
    detail =
        eddy::str("an exception other than eddy::DeckError: ", typeid(e).name(), ": ", e.what());
    return Outcome::Failure;
  } catch (...) {
    detail = "an exception that is not a std::exception";
    return Outcome::Failure;
  }
}

std::string reproducer(Options const& o, std::uint64_t index) {
  std::string s =
      eddy::str("reproduce: deck_fuzz --seed ", o.seed, " --only ", index, " --write mutant.yaml");
  for (auto const& d : o.dirs) s += " " + d;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options const o = parse(argc, argv);
  std::vector<std::string> names;
  std::vector<std::string> corpus = readCorpus(o.dirs, names);
  if (corpus.empty()) {
    std::fprintf(stderr, "deck_fuzz: no *.yaml seed decks in the corpus directories\n");
    return 2;
  }
  std::vector<std::string> words{"all", "true", "false", "auto", "on", "off"};
  collectWords(eddy::app::deckSchema().root(), words);
  eddy::fuzz::DeckMutator const mutator(corpus, words);

  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) std::signal(sig, onCrash);
  long long const limitNs = static_cast<long long>(o.timeLimit * 1e9);
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    while (!done) {
      long long const start = g_startNs.load();
      if (start >= 0 && nowNs() - start > limitNs) {
        writeStderr("deck_fuzz: FAILED: a mutant took longer than the time limit; ");
        writeStderr(g_reproducer);
        writeStderr("\n");
        std::_Exit(1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });

  std::uint64_t const first = o.only >= 0 ? static_cast<std::uint64_t>(o.only) : 0;
  std::uint64_t const end = o.only >= 0 ? first + 1 : o.mutants;
  std::size_t accepted = 0, rejected = 0, failures = 0;
  double slowest = 0, total = 0, mutating = 0;
  std::uint64_t slowestIndex = 0;
  std::size_t biggest = 0;
  auto const wall = Clock::now();
  for (std::uint64_t i = first; i < end && failures < 10; ++i) {
    long long const m0 = nowNs();
    eddy::fuzz::Mutant const m = mutator.make(o.seed, i);
    mutating += static_cast<double>(nowNs() - m0) * 1e-9;
    biggest = std::max(biggest, m.text.size());
    std::snprintf(g_reproducer, sizeof g_reproducer, "%s", reproducer(o, i).c_str());
    if (!o.write.empty()) std::ofstream(o.write, std::ios::binary) << m.text;
    std::string detail;
    long long const t0 = nowNs();
    g_startNs = t0;
    Outcome const outcome = readMutant(m.text, detail);
    g_startNs = -1;
    double const seconds = static_cast<double>(nowNs() - t0) * 1e-9;
    total += seconds;
    if (seconds > slowest) {
      slowest = seconds;
      slowestIndex = i;
    }
    if (seconds > o.timeLimit) {
      detail = eddy::str("took ", seconds, " s, more than the limit of ", o.timeLimit, " s");
    }
    std::string applied;
    for (auto const& a : m.applied) applied += (applied.empty() ? "" : ", ") + a;
    if (outcome == Outcome::Failure || seconds > o.timeLimit) {
      ++failures;
      std::fprintf(stderr, "deck_fuzz: FAILED: mutant %llu of %s (%s), %zu bytes: %s\n  %s\n",
                   static_cast<unsigned long long>(i), names[m.seedDeck].c_str(), applied.c_str(),
                   m.text.size(), detail.substr(0, 4000).c_str(), g_reproducer);
    } else if (outcome == Outcome::Accepted) {
      ++accepted;
    } else {
      ++rejected;
    }
    if (o.only >= 0)
      std::printf("mutant %llu of %s (%s), %zu bytes, %.3f s: %s\n%s\n",
                  static_cast<unsigned long long>(i), names[m.seedDeck].c_str(), applied.c_str(),
                  m.text.size(), seconds,
                  outcome == Outcome::Accepted    ? "accepted"
                  : outcome == Outcome::DeckError ? "deck error:"
                                                  : "FAILED",
                  outcome == Outcome::Accepted ? "" : detail.substr(0, 4000).c_str());
  }
  done = true;
  watchdog.join();
  double const elapsed = std::chrono::duration<double>(Clock::now() - wall).count();
  std::printf(
      "deck_fuzz: %llu mutants of %zu seed decks (seed %llu): %zu accepted, %zu deck "
      "errors, %zu failures; slowest mutant %.3f s (--only %llu), largest %zu bytes; "
      "%.1f s reading, %.1f s mutating, %.1f s in all\n",
      static_cast<unsigned long long>(end - first), corpus.size(),
      static_cast<unsigned long long>(o.seed), accepted, rejected, failures, slowest,
      static_cast<unsigned long long>(slowestIndex), biggest, total, mutating, elapsed);
  return failures == 0 ? 0 : 1;
}
