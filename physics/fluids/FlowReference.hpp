/// @file FlowReference.hpp
/// @brief Closed-form flows used as initial states and references: the Taylor-Green vortex
/// (exact decaying solution in 2D, the classic initial state in 3D) plane Poiseuille flow and a
/// uniform flow (a steady solution in a periodic box).
/// sin and cos are the portable ones (PortableMath.hpp), so an initial state has the same bits
/// on every backend.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/PortableMath.hpp"

namespace eddy::fluids {

/// A closed-form velocity field, as plain data for kernels.
struct FlowReference {
  enum Kind { None = 0, TaylorGreen = 1, Poiseuille = 2, Uniform = 3 };
  int kind = None;
  int dims = 2;
  double U = 1.0;                 ///< Taylor-Green amplitude [L/T]
  double kx = 0, ky = 0, kz = 0;  ///< Taylor-Green wave numbers 2 pi / L [1/m]
  double decay = 1.0;             ///< Taylor-Green factor exp(-nu |k|^2 t) (2D)
  double curvature = 0.0;         ///< Poiseuille f / (2 nu) [1/(L T)]
  double height = 1.0;            ///< Poiseuille channel height (y extent) [L]
  double uniform[3] = {0, 0, 0};  ///< velocity of the uniform flow [L/T]

  /// Velocity component c at (x, y, z).
  KOKKOS_INLINE_FUNCTION double velocity(int c, double x, double y, double z) const {
    if (kind == TaylorGreen) {
      double const zf = dims == 3 ? math::portableCos(kz * z) : 1.0;
      if (c == 0) return U * decay * math::portableSin(kx * x) * math::portableCos(ky * y) * zf;
      if (c == 1)
        return -U * decay * (kx / ky) * math::portableCos(kx * x) * math::portableSin(ky * y) * zf;
      return 0.0;
    }
    if (kind == Poiseuille) return c == 0 ? curvature * y * (height - y) : 0.0;
    if (kind == Uniform) return uniform[c];
    return 0.0;
  }
  /// Kinematic pressure p / rho at (x, y, z) (Taylor-Green; 0 otherwise).
  KOKKOS_INLINE_FUNCTION double pressure(double x, double y, double z) const {
    if (kind != TaylorGreen) return 0.0;
    double const r = kx / ky;
    if (dims == 2)
      return 0.25 * U * U * decay * decay *
             (math::portableCos(2 * kx * x) + r * r * math::portableCos(2 * ky * y));
    return U * U / 16.0 * (math::portableCos(2 * kx * x) + math::portableCos(2 * ky * y)) *
           (math::portableCos(2 * kz * z) + 2.0);
  }
};

}  // namespace eddy::fluids
