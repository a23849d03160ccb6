/// @file ScalarsCases.hpp
/// @brief A flow and its scalars coupled as `eddy run` couples them (the scalars advance in the
/// flow's RK stages), for the scalars' validation tests.
#pragma once

#include "FluidsCases.hpp"
#include "scalars/Scalars.hpp"

#include <cmath>
#include <memory>

namespace eddy::test {

/// The flow of `flow` carrying the scalars of `params`, on `comm`.
class CoupledScalars final : public fluids::StageCoupling {
 public:
  CoupledScalars(MPI_Comm comm, FlowCase const& flow, scalars::Parameters const& params)
      : m_flow(flow.make(comm)) {
    auto const decomp = CartDecomposition::fromComm(comm, flow.cells, flow.dims, flow.periodic);
    m_scalars = std::make_unique<scalars::Model>(ExecSpace(), comm, decomp, flow.length, params);
    m_flow->couple(*this);
  }
  // The flow keeps a pointer to this coupling.
  CoupledScalars(CoupledScalars const&) = delete;
  CoupledScalars& operator=(CoupledScalars const&) = delete;
  fluids::LinearForce force(fluids::RkStage const&) const override {
    return m_scalars->buoyancy();
  }
  void advance(ExecSpace const& space, std::array<GhostedView<MemSpace>, 3> const& u,
               fluids::RkStage const& stage) override {
    m_scalars->stage(space, u, stage.dt, stage.a, stage.b);
  }
  /// One step of `dt`, or of the smaller of the two models' limits when dt is 0.
  void step(ExecSpace const& space, double dt = 0.0) {
    if (dt == 0.0) dt = std::fmin(m_flow->stableDt(space), m_scalars->stableDt());
    m_flow->step(space, dt);
    m_scalars->finishStep(dt);
  }
  fluids::Model& flow() { return *m_flow; }
  scalars::Model& scalars() { return *m_scalars; }

 private:
  std::unique_ptr<fluids::Model> m_flow;
  std::unique_ptr<scalars::Model> m_scalars;
};

/// A scalar with `kappa` and `advection`, periodic or insulated per the flow's axes.
inline scalars::ScalarParameters scalarOn(FlowCase const& flow, double kappa,
                                          scalars::Advection advection) {
  scalars::ScalarParameters s;
  s.diffusivity = kappa;
  s.advection = advection;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      s.faces[2 * a + side].kind =
          flow.periodic[a] ? scalars::BoundaryKind::Periodic : scalars::BoundaryKind::Flux;
  return s;
}

/// The temperature of a layer heated across `axis` (kappa = 1, central): 1/2 on the low face,
/// -1/2 on the high one, the other faces as scalarOn gives them; with `conduction`, the linear
/// conduction profile between the two as its initial field (else 0).
inline scalars::ScalarParameters heatedAcross(FlowCase const& flow, int axis, bool conduction) {
  scalars::ScalarParameters t = scalarOn(flow, 1.0, scalars::Advection::Central);
  t.faces[2 * axis] = {scalars::BoundaryKind::Value, 0.5};
  t.faces[2 * axis + 1] = {scalars::BoundaryKind::Value, -0.5};
  if (conduction) {
    t.initial.profile = scalars::Profile::Linear;
    t.initial.axis = axis;
    t.initial.value = 0.5;
    t.initial.highValue = -0.5;
  }
  return t;
}

/// Boussinesq buoyancy of scalar 0 at Rayleigh number `rayleigh` in units where g = dT = L =
/// kappa = 1 (so nu = Pr and beta = Ra Pr), gravity along -`gravityAxis`.
inline scalars::Buoyancy boussinesq(double rayleigh, double prandtl, int gravityAxis) {
  scalars::Buoyancy b;
  b.scalar = 0;
  b.expansion = rayleigh * prandtl;
  b.gravity = {0.0, 0.0, 0.0};
  b.gravity[gravityAxis] = -1.0;
  return b;
}

}  // namespace eddy::test
