/// @file FluidsCases.hpp
/// @brief Set-ups of the flow model shared by the fluids validation tests.
#pragma once

#include "eddy/core/Decomposition.hpp"
#include "fluids/NavierStokes.hpp"

#include <mpi.h>

#include <array>
#include <memory>

namespace eddy::test {

/// A flow problem: grid, domain and parameters.
struct FlowCase {
  Index3 cells{16, 16, 1};
  int dims = 2;
  Periodic3 periodic{false, false, false};
  std::array<double, 3> length{1.0, 1.0, 1.0};
  fluids::Parameters params;

  /// Builds the model on `comm`.
  std::unique_ptr<fluids::Model> make(MPI_Comm comm) const {
    auto const decomp = CartDecomposition::fromComm(comm, cells, dims, periodic);
    return std::make_unique<fluids::Model>(ExecSpace(), comm, decomp, length, params);
  }
};

/// Sets every face of the non-periodic axes to a fixed wall and the periodic ones to periodic.
inline void wallsWherePeriodicIsOff(FlowCase& c) {
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) {
      c.params.boundaries.at(a, s).kind =
          c.periodic[a] ? fluids::BoundaryKind::Periodic : fluids::BoundaryKind::Wall;
      c.params.boundaries.at(a, s).velocity = {0.0, 0.0, 0.0};
    }
}

/// The lid-driven unit cavity: walls, lid at y = 1 moving with u = 1, nu = 1 / Re.
inline FlowCase cavity(int n, double reynolds) {
  FlowCase c;
  c.cells = {n, n, 1};
  wallsWherePeriodicIsOff(c);
  c.params.boundaries.at(1, 1).kind = fluids::BoundaryKind::MovingWall;
  c.params.boundaries.at(1, 1).velocity = {1.0, 0.0, 0.0};
  c.params.viscosity = 1.0 / reynolds;
  return c;
}

/// The 2D (or 3D) Taylor-Green vortex on the periodic unit square (cube), U = 1.
inline FlowCase taylorGreen(int n, int dims, double viscosity) {
  FlowCase c;
  c.dims = dims;
  c.cells = {n, n, dims == 3 ? n : 1};
  c.periodic = {true, true, dims == 3};
  wallsWherePeriodicIsOff(c);
  c.params.initial = fluids::InitialCondition::TaylorGreen;
  c.params.viscosity = viscosity;
  return c;
}

/// A 3D box, periodic along x, walls elsewhere, the y-high wall moving at (1, 0, 0.4), a body
/// force (0.5, 0, 0.2), CG pressure solve: 11 x 9 x 8 cells, uneven on any rank count.
inline FlowCase box3DWithMovingWallAndForce() {
  FlowCase c;
  c.dims = 3;
  c.cells = {11, 9, 8};
  c.periodic = {true, false, false};
  c.length = {1.0, 0.8, 0.7};
  wallsWherePeriodicIsOff(c);
  c.params.boundaries.at(1, 1).kind = fluids::BoundaryKind::MovingWall;
  c.params.boundaries.at(1, 1).velocity = {1.0, 0.0, 0.4};
  c.params.bodyForce = {0.5, 0.0, 0.2};
  c.params.viscosity = 0.02;
  c.params.poisson.method = fluids::PoissonMethod::CG;
  return c;
}

/// A 2D channel of `length` x 1 with a parabolic inflow at x_low (peak `peak`), an outflow
/// (`outflow`) at x_high and fixed walls in y: the Poiseuille flow u = 4 peak y (1 - y).
inline FlowCase openChannel(int nx, int ny, double length, double peak,
                            fluids::OutflowCondition outflow) {
  FlowCase c;
  c.cells = {nx, ny, 1};
  c.length = {length, 1.0, 1.0};
  wallsWherePeriodicIsOff(c);
  c.params.boundaries.at(0, 0).kind = fluids::BoundaryKind::Inflow;
  c.params.boundaries.at(0, 0).inflow.profile = fluids::InflowProfile::Parabolic;
  c.params.boundaries.at(0, 0).inflow.speed = peak;
  c.params.boundaries.at(0, 1).kind = fluids::BoundaryKind::Outflow;
  c.params.boundaries.outflow = outflow;
  return c;
}

}  // namespace eddy::test
