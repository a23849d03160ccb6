/// @file Compat.hpp
/// @brief The one place that knows Kokkos versions and backends.
///
/// Eddy compiles unchanged against Kokkos 3.4 (Debian's Trilinos build, Serial only) and
/// Kokkos 4.x (CUDA + OpenMP/Serial). Every difference between them, and every backend test
/// (`KOKKOS_ENABLE_*`), lives in this header; no other file may test `KOKKOS_VERSION` or a
/// backend macro. A test greps the tree to keep it that way.
#pragma once

#include "eddy/core/Error.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

#if KOKKOS_VERSION >= 40000
#define EDDY_KOKKOS_4 1
#else
#define EDDY_KOKKOS_4 0
#endif

namespace eddy {

/// Default execution and memory spaces used by containers unless told otherwise.
using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostExecSpace = Kokkos::DefaultHostExecutionSpace;

/// Page-locked host memory for staging device buffers through a host-only MPI. On host-only
/// builds this is plain HostSpace.
#if defined(KOKKOS_ENABLE_CUDA)
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP) && EDDY_KOKKOS_4
using PinnedHostSpace = Kokkos::HIPHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

/// Every execution space compiled in, device first, for tests that run one body on each.
template <class... Spaces>
struct ExecSpaceList {};
using EnabledExecSpaces = ExecSpaceList<
#if defined(KOKKOS_ENABLE_CUDA)
    Kokkos::Cuda,
#endif
    Kokkos::DefaultHostExecutionSpace>;

/// True when a device (non host-accessible) backend is the default execution space.
inline constexpr bool kDeviceBackend =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

namespace compat {

/// Version of the Kokkos headers we were compiled against, as "major.minor.patch".
inline std::string kokkosVersion() {
  int const v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

/// Names of the execution-space backends compiled into Kokkos.
inline std::vector<std::string> enabledBackends() {
  std::vector<std::string> b;
#if defined(KOKKOS_ENABLE_CUDA)
  b.push_back("Cuda");
#endif
#if defined(KOKKOS_ENABLE_HIP)
  b.push_back("HIP");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  b.push_back("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  b.push_back("Threads");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  b.push_back("Serial");
#endif
  return b;
}

/// Number of GPUs visible to this process (0 on host-only builds).
inline int visibleDeviceCount() {
#if defined(KOKKOS_ENABLE_CUDA)
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

/// Description of the GPU this process uses (empty on host-only builds).
inline std::string deviceDescription(int deviceId) {
#if defined(KOKKOS_ENABLE_CUDA)
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, deviceId) != cudaSuccess) {
    (void)cudaGetLastError();
    return "unknown CUDA device " + std::to_string(deviceId);
  }
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ", " +
         std::to_string(prop.totalGlobalMem / (1024ull * 1024ull * 1024ull)) + " GiB, " +
         std::to_string(prop.multiProcessorCount) + " SMs)";
#else
  (void)deviceId;
  return {};
#endif
}

/// A unique id of GPU `deviceId` (its UUID bytes as hex; empty on host-only builds), to tell
/// whether ranks share a GPU whatever each rank's visible-device numbering.
inline std::string deviceUuid(int deviceId) {
#if defined(KOKKOS_ENABLE_CUDA)
  cudaDeviceProp prop{};
  if (deviceId < 0 || cudaGetDeviceProperties(&prop, deviceId) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  static char const* const hex = "0123456789abcdef";
  std::string s;
  for (int b = 0; b < 16; ++b) {
    auto const c = static_cast<unsigned char>(prop.uuid.bytes[b]);
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
#else
  (void)deviceId;
  return {};
#endif
}

/// Bytes of memory free on the GPU this process uses (cudaMemGetInfo), or -1 on host-only
/// builds (ask the host instead).
inline double freeDeviceBytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1.0;
  }
  return static_cast<double>(free);
#else
  return -1.0;
#endif
}

/// The GPU the running Kokkos uses (-1 on host-only builds).
inline int activeDeviceId() {
#if defined(KOKKOS_ENABLE_CUDA) && EDDY_KOKKOS_4
  return Kokkos::device_id();
#elif defined(KOKKOS_ENABLE_CUDA)
  return Kokkos::Cuda().cuda_device();
#else
  return -1;
#endif
}

/// True when the user chose the device mapping on the command line or in the environment, in
/// which case Kokkos' own mapping is left in charge.
inline bool userChoseDevice(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    std::string const a = argv[i];
    if (a.rfind("--kokkos-device-id", 0) == 0 || a.rfind("--kokkos-map-device-id-by", 0) == 0 ||
        a.rfind("--device-id", 0) == 0)
      return true;
  }
  return std::getenv("KOKKOS_DEVICE_ID") != nullptr ||
         std::getenv("KOKKOS_MAP_DEVICE_ID_BY") != nullptr;
}

/// Initialise Kokkos. Unless the user chose a device, rank `localRank` of a node takes GPU
/// `localRank % visibleDeviceCount()`, so one rank drives one GPU.
inline void initialize(int& argc, char** argv, int localRank) {
  int const ndev = visibleDeviceCount();
  bool const pick = ndev > 0 && !userChoseDevice(argc, argv);
#if EDDY_KOKKOS_4
  if (pick) {
    Kokkos::InitializationSettings settings;
    settings.set_device_id(localRank % ndev);
    settings.set_disable_warnings(true);
    Kokkos::initialize(settings);
  } else {
    Kokkos::initialize(argc, argv);
  }
#else
  if (pick) {
    Kokkos::InitArguments args;
    args.device_id = localRank % ndev;
    args.disable_warnings = true;
    Kokkos::initialize(args);
  } else {
    Kokkos::initialize(argc, argv);
  }
#endif
}

/// The native stream of an execution-space instance (a cudaStream_t for Kokkos::Cuda), for
/// libraries that enqueue work on it (NCCL); nullptr for host spaces.
template <class Exec>
void* nativeStream(Exec const&) {
  return nullptr;
}
#if defined(KOKKOS_ENABLE_CUDA)
inline void* nativeStream(Kokkos::Cuda const& space) {
  return space.cuda_stream();
}
#endif

/// A second instance of `space`'s execution space, for work that should run concurrently with
/// the work enqueued on `space` (a halo exchange beside an interior kernel). On device backends
/// with Kokkos 4 a new instance (its own stream) from Kokkos::Experimental::partition_space, on
/// CUDA of the greatest stream priority when `highPriority` (HaloTuning::streamHighPriority);
/// `space` itself on host backends (their kernels run on the calling thread; partitioning would
/// only split the thread pool) and with Kokkos 3.4 (no partition_space). Work on two instances is
/// ordered by orderAfter().
template <class Exec>
Exec secondInstance(Exec const& space, [[maybe_unused]] bool highPriority) {
#if EDDY_KOKKOS_4
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename Exec::memory_space>::accessible)
    return space;
  else
    return Kokkos::Experimental::partition_space(space, 1)[0];
#else
  return space;
#endif
}
#if defined(KOKKOS_ENABLE_CUDA) && EDDY_KOKKOS_4
inline Kokkos::Cuda secondInstance(Kokkos::Cuda const& space, bool highPriority) {
  if (!highPriority) return Kokkos::Experimental::partition_space(space, 1)[0];
  int least = 0, greatest = 0;
  cudaStream_t stream = nullptr;
  cudaError_t e = cudaSetDevice(space.cuda_device());
  if (e == cudaSuccess) e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
  if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&stream, cudaStreamDefault, greatest);
  if (e != cudaSuccess)
    throw Error(std::string("compat::secondInstance: a stream of priority ") +
                std::to_string(greatest) + " on GPU " + std::to_string(space.cuda_device()) +
                " could not be created: " + cudaGetErrorString(e));
  return Kokkos::Cuda(stream, Kokkos::Impl::ManageStream::yes);  // destroyed with the last copy
}
#endif

/// Makes the work enqueued on `waiter` from now on wait for the work enqueued on `signaller` so
/// far, without blocking the calling thread where the backend allows: on CUDA an event recorded
/// on the signaller's stream that the waiter's stream waits for; elsewhere a fence of
/// `signaller` (host kernels are done when they return: the fence costs nothing).
template <class Exec>
void orderAfter(Exec const&, Exec const& signaller) {
  signaller.fence();
}
#if defined(KOKKOS_ENABLE_CUDA)
inline void orderAfter(Kokkos::Cuda const& waiter, Kokkos::Cuda const& signaller) {
  cudaStream_t const w = waiter.cuda_stream(), s = signaller.cuda_stream();
  if (w == s) return;
  cudaEvent_t event = nullptr;
  bool const ok = cudaEventCreateWithFlags(&event, cudaEventDisableTiming) == cudaSuccess &&
                  cudaEventRecord(event, s) == cudaSuccess &&
                  cudaStreamWaitEvent(w, event, 0) == cudaSuccess;
  if (event) (void)cudaEventDestroy(event);  // released once the wait is satisfied
  if (!ok) {
    (void)cudaGetLastError();
    signaller.fence();
  }
}
#endif

/// True for the CUDA execution space: the backend query on which the tuning records (Tuning.hpp,
/// and the models' own) key their defaults.
template <class Exec>
constexpr bool isCuda() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<Exec, Kokkos::Cuda>;
#else
  return false;
#endif
}

/// Whether Exec is Kokkos::Serial (false in a build without the Serial backend): one host
/// thread, whose kernels may take host-only code paths.
template <class Exec>
constexpr bool isSerial() {
#if defined(KOKKOS_ENABLE_SERIAL)
  return std::is_same_v<Exec, Kokkos::Serial>;
#else
  return false;
#endif
}

/// Hardware concurrency of an execution space instance.
template <class Exec>
int concurrency(Exec const& space) {
#if EDDY_KOKKOS_4
  return space.concurrency();
#else
  (void)space;
  return Exec::concurrency();
#endif
}

/// Starts copying one value (a double or a float) from global memory into team scratch:
/// `cp.async` on GPUs of compute capability 8.0 and later (the copy bypasses the registers and
/// the thread does not wait for it), a plain copy elsewhere. The value may be read only after
/// asyncWait has covered the group it was committed in and the team has passed a barrier.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void asyncCopy(T* scratch, T const* global) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "asyncCopy: a 4- or 8-byte value");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  auto const s = static_cast<unsigned>(__cvta_generic_to_shared(scratch));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(global),
               "n"(static_cast<int>(sizeof(T)))
               : "memory");
#else
  *scratch = *global;
#endif
}

/// Closes the group of this thread's asyncCopy calls issued since the last commit.
KOKKOS_FORCEINLINE_FUNCTION void asyncCommit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
KOKKOS_FORCEINLINE_FUNCTION void asyncWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

/// Two doubles that move in one 16-byte access.
struct alignas(16) Double2 {
  double x, y;
};

/// Loads p[0], p[1] (p 16-byte aligned): one 16-byte load on GPUs, two loads elsewhere.
KOKKOS_FORCEINLINE_FUNCTION Double2 load2(double const* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<Double2 const*>(p);
#else
  return Double2{p[0], p[1]};
#endif
}

/// Stores p[0] = a, p[1] = b (p 16-byte aligned): one 16-byte store on GPUs, two elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void store2(double* p, double a, double b) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<Double2*>(p) = Double2{a, b};
#else
  p[0] = a;
  p[1] = b;
#endif
}

/// Two floats that move in one 8-byte access.
struct alignas(8) Float2 {
  float x, y;
};

/// Stores p[0] = a, p[1] = b rounded to float (p 8-byte aligned): one 8-byte store on GPUs, two
/// elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void store2(float* p, double a, double b) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<Float2*>(p) = Float2{static_cast<float>(a), static_cast<float>(b)};
#else
  p[0] = static_cast<float>(a);
  p[1] = static_cast<float>(b);
#endif
}

/// Four ints that move in one 16-byte access.
struct alignas(16) Int4 {
  int x, y, z, w;
};

/// Stores p[0 .. 3] = a, b, c, d (p 16-byte aligned): one 16-byte store on GPUs, four
/// elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void store4(int* p, int a, int b, int c, int d) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<Int4*>(p) = Int4{a, b, c, d};
#else
  p[0] = a;
  p[1] = b;
  p[2] = c;
  p[3] = d;
#endif
}

/// Marks a region for Kokkos profiling tools.
inline void pushRegion(std::string const& name) {
  Kokkos::Profiling::pushRegion(name);
}
inline void popRegion() {
  Kokkos::Profiling::popRegion();
}

}  // namespace compat

/// Math functions usable in kernels under either Kokkos generation.
namespace math {
#if EDDY_KOKKOS_4
using Kokkos::abs;
using Kokkos::cbrt;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::floor;
using Kokkos::fmax;
using Kokkos::fmin;
using Kokkos::isfinite;
using Kokkos::isnan;
using Kokkos::log;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::cbrt;
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::fmax;
using Kokkos::Experimental::fmin;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::isnan;
using Kokkos::Experimental::log;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
KOKKOS_INLINE_FUNCTION double abs(double x) {
  return Kokkos::Experimental::fabs(x);
}
#endif
}  // namespace math

}  // namespace eddy
