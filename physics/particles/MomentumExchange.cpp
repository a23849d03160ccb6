#include "particles/MomentumExchange.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

#include <climits>
#include <cmath>

namespace eddy::particles {

MomentumExchange::MomentumExchange(ExecSpace const& space, MPI_Comm comm,
                                   CartDecomposition const& decomp,
                                   std::array<double, 3> const& length, int ghost,
                                   double fluidDensity)
    : m_comm(comm), m_dims(decomp.dims()) {
  EDDY_REQUIRE(fluidDensity > 0, "MomentumExchange: fluid density ", fluidDensity,
               "; expected > 0");
  m_rule.stencil = MacStencil::make(decomp, length, ghost);
  double volume = 1.0;
  for (int a = 0; a < m_dims; ++a) volume *= length[a] / decomp.globalCells()[a];
  m_rule.perVolume = 1.0 / (fluidDensity * volume);
  for (int c = 0; c < 3; ++c)
    for (int a = 0; a < 3; ++a) {
      int const n = decomp.globalCells()[a];
      bool const bounded = a < m_dims && !decomp.isPeriodic(a);
      // Along its own axis a component's boundary faces (0 and n) are the boundary's.
      m_rule.first[c][a] = bounded ? (a == c ? 1 : 0) : INT_MIN / 2;
      m_rule.last[c][a] = bounded ? n - 1 : INT_MAX / 2;
    }
  Centering const faces[3] = {Centering::FaceX, Centering::FaceY, Centering::FaceZ};
  char const* const sumLabel[3] = {"eddy::particles::exchange_x", "eddy::particles::exchange_y",
                                   "eddy::particles::exchange_z"};
  for (int c = 0; c < m_dims; ++c) {
    m_sum[c] =
        std::make_unique<Field<MemSpace, long long>>(space, sumLabel[c], decomp, ghost, faces[c]);
    m_halo[c] =
        std::make_unique<HaloExchange<ExecSpace, long long>>(space, comm, decomp, *m_sum[c]);
  }
}

void MomentumExchange::deposit(ExecSpace const& space, Positions<MemSpace> const& x,
                               ParticleVectors<MemSpace> const& j, int n, long long count) {
  ScopedRegion region("eddy::particles::exchange");
  int const dims = m_dims;
  double largest = 0.0;
  Kokkos::parallel_reduce(
      "eddy::particles::largestImpulse", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int p, double& most) {
        for (int c = 0; c < dims; ++c) most = math::fmax(most, math::fabs(j(p, c)));
      },
      Kokkos::Max<double>(largest));
  double global = 0.0;
  largest = std::fmax(largest, 0.0);
  checkMpi(MPI_Allreduce(&largest, &global, 1, MPI_DOUBLE, MPI_MAX, m_comm),
           "MPI_Allreduce(largest impulse)");
  if (!std::isfinite(global))
    throw Error(str("particles: a drag impulse of ", global,
                    " (not finite): the particles or the flow blew up"),
                ExitCode::Failure, true);
  m_acts = global > 0;
  if (!m_acts) return;
  // 2 count x largest bounds every face's sum with the rounding of its terms included.
  m_rule.scale = FixedPoint::forBound(global, 2 * std::max(count, 1ll));
  DepositRule const rule = m_rule;
  for (int c = 0; c < dims; ++c) Kokkos::deep_copy(space, m_sum[c]->view(), 0ll);
  auto const s0 = m_sum[0]->access();
  auto const s1 = dims > 1 ? m_sum[1]->access() : s0;
  auto const s2 = dims > 2 ? m_sum[2]->access() : s0;
  // On GPUs a thread per corner of a particle, the corners of one particle in adjacent
  // threads: they lie in a few cache lines, so a warp's atomic adds touch fewer lines than with
  // a thread per particle. On host cores a thread per particle locates it once.
  int const corners = 1 << dims;
  int const lanes = kDeviceBackend ? corners : 1;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>;
  Kokkos::parallel_for(
      "eddy::particles::depositImpulse", Policy(space, 0, static_cast<long long>(n) * lanes),
      KOKKOS_LAMBDA(const long long t) {
        int const p = static_cast<int>(t / lanes), lane = static_cast<int>(t % lanes);
        double const at[3] = {x(p, 0), x(p, 1), x(p, 2)};
        for (int c = 0; c < dims; ++c) {
          double const jc = j(p, c);
          if (jc == 0.0) continue;
          int lo[3] = {0, 0, 0};
          double w[3] = {0.0, 0.0, 0.0};
          for (int a = 0; a < dims; ++a) rule.stencil.locate(a, c, at[a], lo[a], w[a]);
          auto const sum = c == 0 ? s0 : (c == 1 ? s1 : s2);
          for (int corner = lane; corner < corners; corner += lanes) {
            int e[3] = {0, 0, 0};
            double weight = 1.0;
            for (int a = 0; a < dims; ++a) {
              int const up = (corner >> a) & 1;
              e[a] = rule.onComputed(c, a, lo[a] + up);
              weight *= up ? w[a] : 1.0 - w[a];
            }
            addExactly(&sum(e[0], e[1], e[2]), rule.scale.quantize(weight * jc));
          }
        }
      });
  for (int c = 0; c < dims; ++c) m_halo[c]->sumIntoOwners(space, *m_sum[c]);
}

fluids::FaceImpulse MomentumExchange::impulse() const {
  fluids::FaceImpulse f;
  f.acts = m_acts;
  for (int c = 0; c < 3; ++c) f.sum[c] = m_sum[c < m_dims ? c : 0]->access();
  f.unit = m_rule.scale.unit;
  f.perVolume = m_rule.perVolume;
  return f;
}

std::size_t MomentumExchange::bytes() const {
  std::size_t b = 0;
  for (int c = 0; c < m_dims; ++c) b += m_sum[c]->bytes() + m_halo[c]->bytes();
  return b;
}

}  // namespace eddy::particles
