// Model::bytes(), the figure behind the bytes per cell that `eddy run` prints at start-up,
// against what the model really holds: the device allocations labelled eddy::... that are live
// once it is built, counted by Kokkos Tools allocation callbacks, and that stepping holds no
// more. Registered at 1, 2 and 4 ranks (halo buffers, a multigrid level gathered onto every
// rank).
#include "EddyTest.hpp"
#include "FluidsCases.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

using eddy::test::FlowCase;

/// Bytes of the eddy:: allocations of the device memory space: live now, the most that were
/// live, how many allocations were made and how many of them were reported as 128 bytes or less.
struct Allocations {
  long long live = 0;
  long long peak = 0;
  long long count = 0;
  long long small = 0;
};
Allocations g_allocations;

bool counted(Kokkos::Tools::SpaceHandle const handle, char const* label) {
  return std::strcmp(handle.name, eddy::MemSpace::name()) == 0 &&
         std::strncmp(label, "eddy::", 6) == 0;
}

void onAllocate(Kokkos::Tools::SpaceHandle const handle, char const* label, void const*,
                std::uint64_t const size) {
  if (!counted(handle, label)) return;
  g_allocations.live += static_cast<long long>(size);
  g_allocations.peak = std::max(g_allocations.peak, g_allocations.live);
  ++g_allocations.count;
  if (size <= 128) ++g_allocations.small;
}

void onDeallocate(Kokkos::Tools::SpaceHandle const handle, char const* label, void const*,
                  std::uint64_t const size) {
  if (counted(handle, label)) g_allocations.live -= static_cast<long long>(size);
}

/// Installs the callbacks for its lifetime.
struct AllocationCounter {
  AllocationCounter() {
    g_allocations = Allocations{};
    Kokkos::Tools::Experimental::set_allocate_data_callback(onAllocate);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(onDeallocate);
  }
  ~AllocationCounter() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  }
};

void expectBytesAreTheAllocations(FlowCase const& c, char const* name) {
  SCOPED_TRACE(name);
  AllocationCounter counter;
  std::size_t reported = 0;
  long long built = 0, allocations = 0, small = 0;
  {
    auto model = c.make(MPI_COMM_WORLD);
    built = g_allocations.live;
    allocations = g_allocations.count;
    small = g_allocations.small;
    reported = model->bytes();
    g_allocations.peak = g_allocations.live;
    eddy::ExecSpace space;
    for (int s = 0; s < 2; ++s) model->step(space);
    model->diagnostics(space);
  }
  EXPECT_GT(allocations, 10);
  // Kokkos rounds each allocation up to a multiple of 8 bytes (a View of ints may be 4 short),
  // and reports an empty View (a halo buffer of a rank without peers) as its 128-byte header.
  long long const gap = built - static_cast<long long>(reported);
  EXPECT_TRUE(gap >= 0 && gap <= 8 * allocations + 128 * small)
      << "Model::bytes() reports " << reported << " bytes; the allocations live after "
      << "construction hold " << built << " in " << allocations << " allocations";
  EXPECT_EQ(g_allocations.peak, built) << "stepping allocated more than construction";
  EXPECT_EQ(g_allocations.live, 0) << "bytes left allocated after the model is gone";
}

TEST(FluidsMemory, TaylorGreen3DMultigrid) {
  FlowCase c = eddy::test::taylorGreen(16, 3, 0.01);
  expectBytesAreTheAllocations(c, "Taylor-Green 3D, mgcg");
}

TEST(FluidsMemory, Cavity2DEveryMethod) {
  for (auto const m : {eddy::fluids::PoissonMethod::MultigridCG, eddy::fluids::PoissonMethod::CG,
                       eddy::fluids::PoissonMethod::Jacobi}) {
    FlowCase c = eddy::test::cavity(16, 100.0);
    c.params.poisson.method = m;
    c.params.poisson.maxIterations = m == eddy::fluids::PoissonMethod::Jacobi ? 20000 : 500;
    c.params.poisson.tolerance = m == eddy::fluids::PoissonMethod::Jacobi ? 1e-6 : 1e-10;
    expectBytesAreTheAllocations(c, (std::string("cavity 2D, ") + toString(m)).c_str());
  }
}

}  // namespace
