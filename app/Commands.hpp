/// @file Commands.hpp
/// @brief The sub-commands of `eddy`. Each runs inside an initialised eddy::Runtime and returns
/// the process exit code.
#pragma once

#include "eddy/core/Runtime.hpp"

#include <string>
#include <vector>

namespace eddy::app {

/// `eddy info`: versions, backends, devices, ranks, GPU-awareness of MPI.
int info(Runtime const& rt);
/// `eddy validate DECK [--set key.path=value]...`: checks the deck and prints it resolved,
/// defaults filled in and overrides applied.
int validate(Runtime const& rt, std::vector<std::string> const& args);
/// `eddy run DECK [--set key.path=value]... [--restart FILE|latest] [--quiet]`: runs the deck.
int run(Runtime const& rt, std::vector<std::string> const& args);

/// The version line printed by `eddy --version`.
std::string versionLine();
/// The text printed by `eddy --help`.
std::string helpText();
/// The text printed by `eddy <command> --help` (usage, options, exit codes); "" for a command
/// that is not one of run, validate, info.
std::string commandHelpText(std::string const& command);

}  // namespace eddy::app
