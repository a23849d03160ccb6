#include "Commands.hpp"

#include "ModelRegistry.hpp"
#include "Simulation.hpp"

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"
#include "eddy/core/Transport.hpp"
#include "eddy/core/Version.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Info.hpp"

#include <iostream>
#include <sstream>

namespace eddy::app {

std::string versionLine() {
  return str("eddy ", kVersion, " (", gitDescribe(), "), Kokkos ", compat::kokkosVersion());
}

namespace {
std::string const kExitCodes =
    R"(Exit codes: 0 success, 1 run-time error, 2 bad command line, 3 invalid deck,
            4 file or I/O error, 70 error on some ranks only (job aborted),
            75 stopped early with a checkpoint (SIGTERM, SIGUSR1, SIGINT or
            run.max_wall_time): continue with --restart latest.
)";
}  // namespace

std::string helpText() {
  return R"(Usage: eddy <command> [arguments]

Commands:
  run DECK                    run the simulation described by the YAML deck DECK
      --set KEY.PATH=VALUE    override one deck value (repeatable), e.g. --set run.steps=200
      --restart FILE          continue from checkpoint FILE (bitwise as if never stopped;
                              `latest`: the newest checkpoint of the run, if any)
      --quiet, -q             print only warnings, errors and the final lines (the log file
                              <output_dir>/eddy.log still gets everything)
  validate DECK               check DECK against the schema and print it resolved (defaults
                              filled in); exit code 3 and every error, one located line each,
                              if it is wrong
      --set KEY.PATH=VALUE    as for run: check and print the deck with the override
  info                        versions (Eddy, Kokkos, MPI, HDF5, yaml-cpp), backends, devices,
                              ranks and whether MPI is GPU-aware
  --help, -h                  this text; `eddy <command> --help`: that command's options
  --version, -V               the version

Launch in parallel with:  mpirun -n N eddy run DECK   (one rank per GPU on GPU nodes)
Kokkos options (--kokkos-device-id, --kokkos-num-threads, ...) may follow the command;
`eddy info --kokkos-help` lists them.

Environment:
  EDDY_GPU_AWARE_MPI=0|1      override the probe of MPI's GPU awareness
  EDDY_TRANSPORT=NAME         nccl, mpi or mpi-staged when the deck says auto
  EDDY_DEBUG_LOG=DIR          write a per-rank debug log DIR/eddy.debug.<rank>.log
  EDDY_ERROR_TIMEOUT=SECONDS  how long ranks wait for each other after an error (default 30)

)" + kExitCodes;
}

std::string commandHelpText(std::string const& command) {
  std::string const set =
      R"(  --set KEY.PATH=VALUE    override one deck value without editing the deck (repeatable;
                          also --set=KEY.PATH=VALUE). VALUE is YAML: 200, 0.5, [64, 64],
                          moving_wall. The key may be one the deck leaves to its default,
                          or in a section the deck does not have (--set output.every=50
                          adds an output section). Checked as the deck is: an error is
                          located at the argument (exit 3). A later --set of a key wins.
)";
  std::string const help = "  --help, -h              this text\n";
  if (command == "run")
    return R"(Usage: eddy run DECK [options]
       mpirun -n N eddy run DECK [options]

Runs the simulation described by the YAML deck DECK: checks it as `eddy validate` does, then
steps it to run.steps, writing the log, diagnostics, snapshots and checkpoints the deck asks for
under run.output_dir.

Options:
)" + set +
           R"(  --restart FILE          continue from checkpoint FILE (bitwise as if never stopped);
                          `latest`: the newest checkpoint of the run, if any (else step 0).
                          run.steps is the total, counted from step 0
  --quiet, -q             print only warnings, errors, the final lines and the closing
                          line; <output_dir>/eddy.log still gets every line
)" + help + "Kokkos options (--kokkos-num-threads=N, --kokkos-device-id=N, ...) may follow.\n\n" +
           kExitCodes;
  if (command == "validate")
    return R"(Usage: eddy validate DECK [options]
       mpirun -n N eddy validate DECK [options]

Checks DECK as `eddy run` would on N ranks (schema, the models' rules, the decomposition and
memory) and prints it resolved, defaults filled in. Every error is printed, one located line
each (file:line:col, or the --set argument), with exit code 3.

Options:
)" + set + help +
           "\n" + kExitCodes;
  if (command == "info")
    return R"(Usage: eddy info
       mpirun -n N eddy info

Prints the versions of Eddy, Kokkos, MPI, HDF5 and yaml-cpp, the Kokkos backends, the devices,
the ranks and which GPU each rank drives, and whether MPI is GPU-aware.

Options:
)" + help + "\n" +
           kExitCodes;
  return "";
}

int info(Runtime const& rt) {
  std::string how;
  bool const aware = mpi::gpuAware(&how);
  // Gather every rank's device so the table shows the rank-to-GPU mapping.
  int const dev = rt.deviceId();
  std::vector<int> devs(rt.size()), local(rt.size());
  checkMpi(MPI_Gather(&dev, 1, MPI_INT, devs.data(), 1, MPI_INT, 0, rt.comm()), "MPI_Gather");
  int const lr = rt.localRank();
  checkMpi(MPI_Gather(&lr, 1, MPI_INT, local.data(), 1, MPI_INT, 0, rt.comm()), "MPI_Gather");
  if (rt.rank() != 0) return 0;

  std::ostringstream os;
  os << "eddy      " << kVersion << " (" << gitDescribe() << ")\n";
  os << "Kokkos    " << compat::kokkosVersion() << ", backends:";
  for (auto const& b : compat::enabledBackends()) os << ' ' << b;
  os << "; default execution space " << ExecSpace::name() << '\n';
  os << "MPI       " << mpi::libraryVersion() << " (" << mpi::standardVersion() << ")\n";
  os << "GPU-aware MPI: " << (aware ? "yes" : "no") << " (" << how << ")\n";
  os << "transport " << transport::describe() << '\n';
  os << "I/O       " << io::hdf5Description() << ", yaml-cpp " << io::yamlCppVersion() << '\n';
  os << "ranks     " << rt.size() << " (" << rt.localSize() << " on this node)\n";
  os << "host threads per rank: " << compat::concurrency(HostExecSpace()) << '\n';
  int const ndev = compat::visibleDeviceCount();
  os << "devices   " << ndev << " visible";
  if (ndev == 0) os << " (host-only build or no GPU)";
  os << '\n';
  for (int d = 0; d < ndev; ++d)
    os << "  GPU " << d << ": " << compat::deviceDescription(d) << '\n';
  if (ndev > 0)
    for (int r = 0; r < rt.size(); ++r)
      os << "  rank " << r << " (node-local " << local[r] << ") -> GPU " << devs[r] << '\n';
  std::cout << os.str() << std::flush;
  return 0;
}

namespace {

/// The arguments of `eddy run` and `eddy validate`: one deck and options, in any order.
struct DeckCommand {
  std::string deck;
  std::vector<io::DeckOverride> overrides;
  std::string restart;  ///< run only
  bool quiet = false;   ///< run only
};

DeckCommand parseDeckCommand(std::vector<std::string> const& args, std::string const& command) {
  bool const run = command == "run";
  std::string const synopsis =
      run ? "eddy run DECK [--set key.path=value]... [--restart FILE|latest] [--quiet]"
          : "eddy validate DECK [--set key.path=value]...";
  DeckCommand c;
  auto optionValue = [&](std::size_t& i, std::string const& option, char const* what) {
    if (i + 1 >= args.size() || args[i + 1].empty())
      throw UsageError(str("'eddy ", command, "' option ", option, " needs ", what));
    return args[++i];
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string const& a = args[i];
    if (a == "--set") {
      c.overrides.push_back(io::parseOverride(optionValue(i, a, "key.path=value")));
    } else if (a.rfind("--set=", 0) == 0) {
      c.overrides.push_back(io::parseOverride(a.substr(6)));
    } else if (run && a == "--restart") {
      c.restart = optionValue(i, a, "a checkpoint file (or 'latest')");
    } else if (run && a.rfind("--restart=", 0) == 0 && a.size() > 10) {
      c.restart = a.substr(10);
    } else if (run && (a == "--quiet" || a == "-q")) {
      c.quiet = true;
    } else if (c.deck.empty() && !a.empty() && a[0] != '-') {
      c.deck = a;
    } else {
      throw UsageError(str("'eddy ", command, "' got an unexpected argument '", a,
                           "'; expected: ", synopsis, " (eddy ", command, " --help)"));
    }
  }
  if (c.deck.empty()) throw UsageError(str("'eddy ", command, "' needs a deck: ", synopsis));
  return c;
}

}  // namespace

int validate(Runtime const& rt, std::vector<std::string> const& args) {
  DeckCommand const c = parseDeckCommand(args, "validate");
  io::Deck const deck = loadDeck(c.deck, rt.comm(), c.overrides);
  if (rt.rank() == 0) {
    std::cout << "# " << c.deck << ": valid. Resolved deck (defaults filled in"
              << (c.overrides.empty() ? "" : ", overrides applied") << "):\n"
              << deck.resolvedYaml() << std::flush;
  }
  return 0;
}

int run(Runtime const& rt, std::vector<std::string> const& args) {
  DeckCommand const c = parseDeckCommand(args, "run");
  // Quiet before the deck is read: what the run prints from here on goes to the log file too.
  log::setQuiet(c.quiet);
  io::Deck const deck = loadDeck(c.deck, rt.comm(), c.overrides);
  return runDeck(rt, deck, c.restart);
}

}  // namespace eddy::app
