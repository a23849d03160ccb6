#include "diffusion/Diffusion.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/FieldBoundary.hpp"
#include "eddy/core/FieldHost.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/StencilSweep.hpp"
#include "eddy/core/Timer.hpp"

#include <cmath>

namespace eddy::diffusion {

namespace {
constexpr double kPi = 3.14159265358979323846;

}  // namespace

double stabilityLimit(double diffusivity, int dims, std::array<double, 3> const& spacing) {
  double s = 0;
  for (int a = 0; a < dims; ++a) s += 1.0 / (spacing[a] * spacing[a]);
  return 0.5 / (diffusivity * s);
}

std::vector<Violation> violations(Parameters const& p, int dims,
                                  std::array<double, 3> const& spacing) {
  std::vector<Violation> out;
  for (int a = 0; a < dims; ++a)
    if (!(spacing[a] > 0))
      out.push_back({"grid.length", str("the cell size along axis ", a, " is ", spacing[a]),
                     "expected lengths > 0"});
  if (!(p.diffusivity > 0))
    out.push_back({"diffusion.diffusivity", str("got ", p.diffusivity), "expected > 0"});
  if (!out.empty()) return out;
  double const limit = stabilityLimit(p.diffusivity, dims, spacing);
  if (p.dt > limit * (1 + 1e-12))
    out.push_back({"diffusion.dt",
                   str(p.dt, " [T] exceeds the explicit stability limit ", limit, " [T]"),
                   "expected a smaller dt, or 0 to take diffusion.stability of the limit"});
  return out;
}

Model::Model(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
             std::array<double, 3> const& length, int ghost, Parameters const& params)
    : m_comm(comm), m_decomp(decomp), m_length(length), m_params(params) {
  int const dims = decomp.dims();
  for (int a = 0; a < 3; ++a) {
    m_h[a] = a < dims ? length[a] / decomp.globalCells()[a] : 1.0;
    double const base = decomp.isPeriodic(a) ? 2.0 * kPi : kPi;
    m_k[a] = a < dims ? base * params.mode[a] / length[a] : 0.0;
  }
  throwFirst(violations(params, dims, m_h));
  m_dt = params.dt > 0 ? params.dt : params.stability * stableDt();

  m_u = std::make_unique<Field<MemSpace>>(space, "eddy::diffusion::u", decomp, ghost);
  m_next = std::make_unique<Field<MemSpace>>(space, "eddy::diffusion::uNext", decomp, ghost);
  m_halo = std::make_unique<HaloExchange<ExecSpace>>(space, comm, decomp, m_u->layout());
  setInitialState(space);
}

Model::~Model() = default;

double Model::stableDt() const {
  return stabilityLimit(m_params.diffusivity, m_decomp.dims(), m_h);
}

double Model::decayRate() const {
  double k2 = 0;
  for (int a = 0; a < m_decomp.dims(); ++a) k2 += m_k[a] * m_k[a];
  return m_params.diffusivity * k2;
}

double Model::exact(int i, int j, int k, double t) const {
  int const g[3] = {i, j, k};
  double v = m_params.amplitude * std::exp(-decayRate() * t);
  for (int a = 0; a < m_decomp.dims(); ++a) v *= std::cos(m_k[a] * (g[a] + 0.5) * m_h[a]);
  return m_params.background + v;
}

void Model::setInitialState(ExecSpace const& space) {
  ScopedRegion region("eddy::diffusion::initialize");
  auto u = m_u->access();
  int const ox = m_decomp.offset()[0], oy = m_decomp.offset()[1], oz = m_decomp.offset()[2];
  auto const n = m_decomp.localCells();
  int const dims = m_decomp.dims();
  double const kx = m_k[0], ky = m_k[1], kz = m_k[2];
  double const hx = m_h[0], hy = m_h[1], hz = m_h[2];
  double const amp = m_params.amplitude;
  double const background = m_params.background;
  forEachCell(
      "eddy::diffusion::initialize", space, {0, 0, 0}, {n[0], n[1], n[2]},
      KOKKOS_LAMBDA(int i, int j, int k) {
        double v = amp * math::cos(kx * (ox + i + 0.5) * hx) * math::cos(ky * (oy + j + 0.5) * hy);
        if (dims == 3) v *= math::cos(kz * (oz + k + 0.5) * hz);
        u(i, j, k) = background + v;
      });
  m_time = 0;
  m_step = 0;
}

void Model::applyStencil(ExecSpace const& space, double dt, Field<MemSpace> const& field,
                         Field<MemSpace>& out) const {
  auto const n = m_decomp.localCells();
  int const dims = m_decomp.dims();
  double const cx = m_params.diffusivity * dt / (m_h[0] * m_h[0]);
  double const cy = m_params.diffusivity * dt / (m_h[1] * m_h[1]);
  double const cz = m_params.diffusivity * dt / (m_h[2] * m_h[2]);
  sweepSevenPoint(
      "eddy::diffusion::stencil", space, field, out, {0, 0, 0}, {n[0], n[1], n[2]},
      KOKKOS_LAMBDA(int, int, int, Neighbours7 const& u) {
        double d = cx * (u.xm - 2 * u.c + u.xp) + cy * (u.ym - 2 * u.c + u.yp);
        if (dims == 3) d += cz * (u.zm - 2 * u.c + u.zp);
        return u.c + d;
      });
}

void Model::step(ExecSpace const& space, double dt) {
  ScopedRegion region("eddy::diffusion::step");
  if (!(dt > 0 && dt <= stableDt() * (1 + 1e-12)))
    throw Error(str("diffusion: step ", m_step + 1, " asked for a time step of ", dt,
                    " [T]; expected one in (0, ", stableDt(), "] [T], the explicit stability limit"),
                ExitCode::Failure, true);
  m_halo->exchange(space, *m_u);
  mirrorWallGhosts(space, m_decomp, *m_u);
  applyStencil(space, dt, *m_u, *m_next);
  std::swap(m_u, m_next);
  m_step += 1;
  m_time += dt;
}

void Model::restoreState(ExecSpace const& space, std::vector<double> const& u, long long step,
                         double time) {
  setOwnedEntries(space, *m_u, u);
  m_step = step;
  m_time = time;
}

Diagnostics Model::diagnostics(ExecSpace const& space) const {
  ScopedRegion region("eddy::diffusion::diagnostics");
  Diagnostics d;
  auto u = m_u->access();
  int const ox = m_decomp.offset()[0], oy = m_decomp.offset()[1], oz = m_decomp.offset()[2];
  auto const n = m_decomp.localCells();
  auto const N = m_decomp.globalCells();
  int const dims = m_decomp.dims();
  double const kx = m_k[0], ky = m_k[1], kz = m_k[2];
  double const hx = m_h[0], hy = m_h[1], hz = m_h[2];
  double const amp = m_params.amplitude * std::exp(-decayRate() * m_time);
  double const background = m_params.background;
  double cellVolume = 1;
  double cells = 1;
  for (int a = 0; a < dims; ++a) cellVolume *= m_h[a], cells *= N[a];
  std::array<int, 3> const lo{0, 0, 0}, hi{n[0], n[1], n[2]};

  d.total = cellVolume *
            reproducibleSum(
                space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) { return u(i, j, k); });
  double const err2 = reproducibleSum(
      space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        double e = amp * math::cos(kx * (ox + i + 0.5) * hx) * math::cos(ky * (oy + j + 0.5) * hy);
        if (dims == 3) e *= math::cos(kz * (oz + k + 0.5) * hz);
        double const r = u(i, j, k) - (background + e);
        return r * r;
      });
  d.l2Error = std::sqrt(err2 / cells);
  // The weight depends on the global cell only, so the checksum tells apart fields that differ
  // anywhere, whatever the decomposition.
  d.checksum = reproducibleSum(
      space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        long long const gi = ox + i, gj = oy + j, gk = oz + k;
        double const w = 1.0 + static_cast<double>((gi * 7919 + gj * 104729 + gk * 1299709) % 1021);
        return w * u(i, j, k);
      });
  d.maxAbs = globalMax(
      space, m_comm, lo, hi, KOKKOS_LAMBDA(int i, int j, int k) { return math::fabs(u(i, j, k)); });
  return d;
}

}  // namespace eddy::diffusion
