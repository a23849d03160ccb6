#include "eddy/core/Transport.hpp"

#include "eddy/core/Environment.hpp"
#include "eddy/core/Runtime.hpp"

#include <algorithm>
#include <optional>

namespace eddy {
namespace transport {
namespace {

std::optional<TransportKind>& chosen() {
  static std::optional<TransportKind> c;
  return c;
}
bool& sharedFlag() {
  static bool shared = false;
  return shared;
}
std::string& chosenWhy() {
  static std::string w;
  return w;
}

TransportKind best() {
  auto const a = available();
  return a.front();
}

std::string list(std::vector<TransportKind> const& kinds) {
  std::string s;
  for (auto k : kinds) s += (s.empty() ? "" : ", ") + std::string(name(k));
  return s;
}

}  // namespace

char const* name(TransportKind kind) {
  switch (kind) {
    case TransportKind::Mpi:
      return "mpi";
    case TransportKind::MpiStaged:
      return "mpi-staged";
    case TransportKind::Nccl:
      return "nccl";
  }
  return "unknown";
}

TransportKind parse(std::string const& text) {
  for (auto k : {TransportKind::Nccl, TransportKind::Mpi, TransportKind::MpiStaged})
    if (text == name(k)) return k;
  throw ConfigError(str("transport '", text, "' is not one of auto, nccl, mpi, mpi-staged"));
}

bool ncclBuilt(std::string* version) {
  return detail::nccl::built(version);
}

std::vector<TransportKind> available() {
  std::vector<TransportKind> a;
  if (!kDeviceBackend) {
    // Host memory: MPI reads the buffers directly. Staging is offered for tests of that path.
    a = {TransportKind::Mpi, TransportKind::MpiStaged};
    return a;
  }
  if (ncclBuilt() && !gpuShared()) a.push_back(TransportKind::Nccl);
  if (mpi::gpuAware()) a.push_back(TransportKind::Mpi);
  a.push_back(TransportKind::MpiStaged);
  return a;
}

void select(std::string const& choice) {
  if (choice == "auto") {
    std::string const env =
        choiceFromEnvironment("EDDY_TRANSPORT", "auto", {"auto", "nccl", "mpi", "mpi-staged"},
                              "one of auto, nccl, mpi, mpi-staged (the transport of rank-to-rank "
                              "buffers where the deck says auto)");
    if (env != "auto") {
      select(env);
      chosenWhy() = str("EDDY_TRANSPORT=", env);
      return;
    }
    chosen() = best();
    chosenWhy() = "auto";
    return;
  }
  TransportKind const k = parse(choice);
  auto const a = available();
  if (std::find(a.begin(), a.end(), k) == a.end()) {
    std::string why;
    if (usesNccl(k))
      why = !kDeviceBackend ? "the default execution space is on the host"
            : gpuShared()   ? "ranks of one node share a GPU (NCCL needs one GPU per rank)"
                            : "this build has no NCCL (configure with EDDY_ENABLE_NCCL=ON)";
    else if (k == TransportKind::Mpi) {
      std::string how;
      mpi::gpuAware(&how);
      why = str("the MPI library does not accept device pointers (", how,
                "; parallel.gpu_aware_mpi: on overrides)");
    }
    throw ConfigError(str("transport '", choice, "' is not available: ", why,
                          "; available here: auto, ", list(a)));
  }
  chosen() = k;
  chosenWhy() = "chosen";
}

TransportKind current() {
  if (!chosen()) select("auto");
  return *chosen();
}

std::string describe() {
  TransportKind const k = current();
  std::string s = str(name(k), " (", chosenWhy());
  if (usesNccl(k)) {
    std::string v;
    ncclBuilt(&v);
    s += ", NCCL " + v;
  }
  s += str("; available: ", list(available()));
  if (gpuShared() && ncclBuilt()) s += "; nccl not offered: ranks share a GPU";
  s += ")";
  return s;
}

void finalize() {
  detail::nccl::finalize();
}

void setGpuShared(bool shared) {
  sharedFlag() = shared;
}
bool gpuShared() {
  return sharedFlag();
}

}  // namespace transport

void verifyMessageCounts(MPI_Comm comm, std::vector<PeerMessage> const& sends,
                         std::vector<PeerMessage> const& recvs, char const* what) {
  std::vector<unsigned long long> out, in;
  std::vector<MPI_Request> req;
  std::vector<PeerMessage const*> r;
  for (auto const& m : sends)
    if (m.peer != MPI_PROC_NULL) out.push_back(m.count);
  for (auto const& m : recvs)
    if (m.peer != MPI_PROC_NULL) r.push_back(&m);
  in.assign(r.size(), 0);
  req.reserve(out.size() + in.size());
  for (std::size_t q = 0; q < r.size(); ++q) {
    req.emplace_back();
    checkMpi(MPI_Irecv(&in[q], 1, MPI_UNSIGNED_LONG_LONG, r[q]->peer, r[q]->tag, comm, &req.back()),
             "MPI_Irecv (eddy::transport::verify)");
  }
  std::size_t q = 0;
  for (auto const& m : sends) {
    if (m.peer == MPI_PROC_NULL) continue;
    req.emplace_back();
    checkMpi(MPI_Isend(&out[q++], 1, MPI_UNSIGNED_LONG_LONG, m.peer, m.tag, comm, &req.back()),
             "MPI_Isend (eddy::transport::verify)");
  }
  checkMpi(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE),
           "MPI_Waitall (eddy::transport::verify)");
  for (std::size_t k = 0; k < r.size(); ++k)
    if (in[k] != r[k]->count)
      throw Error(str(what, ": rank ", r[k]->peer, " sends ", in[k], " values with tag ", r[k]->tag,
                      ", this rank expects ", r[k]->count, " (inconsistent decompositions?)"));
}

}  // namespace eddy
