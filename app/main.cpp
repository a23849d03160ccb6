// eddy: the command-line entry point. MPI and Kokkos start here (eddy::Runtime) and every error
// that escapes a command is reported once and turned into a documented exit code.
#include "Commands.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Runtime.hpp"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  // A write past the file-size limit (ulimit -f) must fail with EFBIG and be reported with the
  // file's name, not kill the process with SIGXFSZ and leave a truncated file behind.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  // --help and --version need neither MPI nor Kokkos.
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << eddy::app::helpText();
    return args.empty() ? static_cast<int>(eddy::ExitCode::Usage) : 0;
  }
  if (args[0] == "--version" || args[0] == "-V" || args[0] == "version") {
    std::cout << eddy::app::versionLine() << '\n';
    return 0;
  }
  // `eddy <command> --help` too, before Kokkos, which would take --help for its own options.
  // The value after --set or --restart is not an option.
  std::string const commandHelp = eddy::app::commandHelpText(args[0]);
  for (std::size_t i = 1; i < args.size() && !commandHelp.empty(); ++i) {
    if (args[i] == "--set" || args[i] == "--restart") {
      ++i;
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::cout << commandHelp;
      return 0;
    }
  }

  int code = 0;
  try {
    eddy::Runtime runtime(argc, argv);
    // Kokkos removes the --kokkos-* arguments it consumed from argv.
    std::vector<std::string> rest;
    for (int i = 2; i < argc; ++i) rest.emplace_back(argv[i]);
    try {
      std::string const cmd = args[0];
      if (cmd == "info") {
        code = eddy::app::info(runtime);
      } else if (cmd == "validate") {
        code = eddy::app::validate(runtime, rest);
      } else if (cmd == "run") {
        code = eddy::app::run(runtime, rest);
      } else {
        throw eddy::UsageError(eddy::str("unknown command '", cmd,
                                         "'; expected one of: run, validate, info, --help, "
                                         "--version"));
      }
    } catch (std::exception const& e) {
      // Report while Kokkos and MPI are still up; the runtime then shuts down in order.
      code = eddy::reportFatal(e, runtime.comm());
    }
  } catch (std::exception const& e) {
    code = eddy::reportFatal(e, MPI_COMM_WORLD);
  }
  return code;
}
