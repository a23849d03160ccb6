/// @file StageCoupling.hpp
/// @brief The seam through which a model the flow carries (transported scalars, particles)
/// advances in the flow's own Runge-Kutta stages and pushes back on it: with a body force in the
/// stages, or with an impulse before them.
///
/// Each of the three stages of a step goes: force(), the momentum stage (which adds that force),
/// advance(), then the velocity buffers trade places. Both halves of a stage read the previous
/// stage's values only: the body force of stage k is computed from the coupled fields of stage k -
/// 1, and the coupled fields of stage k from the velocity of stage k - 1 (the velocity at the start
/// of the stage, every ghost current). So the pair is one Runge-Kutta method on the joint state, of
/// the flow's order. The projection at the end of the step touches the velocity only.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Field.hpp"

#include <array>

namespace eddy::fluids {

/// One stage of Williamson's low-storage RK3 as the flow takes it: dq = a dq + dt L(q),
/// q += b dq (a = 0 in the first stage, whose dq is not read).
struct RkStage {
  int index = 0;  ///< 0, 1, 2
  double dt = 0.0;
  double a = 0.0, b = 1.0;
};

/// A body force per unit mass [L/T^2] on the flow, linear in one cell-centred field s of the
/// coupled model: at each face of component c, coefficient[c] (s_f - reference), s_f the mean of
/// the two cells the face parts (a Boussinesq buoyancy). The flow adds it inside its momentum
/// stage: no force field and no pass of its own.
struct LinearForce {
  GhostedView<MemSpace> field;                 ///< s; not read where every coefficient is 0
  std::array<double, 3> coefficient{0, 0, 0};  ///< per component; 0: no force on it
  double reference = 0.0;
  bool acts() const { return coefficient[0] != 0 || coefficient[1] != 0 || coefficient[2] != 0; }
};

/// A change of the flow's velocity per face [L/T] that a coupled model hands over before the
/// stages of the flow's next step: the momentum it exchanged with the fluid over its last step
/// (the particles' drag, two-way coupling), as an impulse. It comes as the model summed it, a
/// fixed-point integer per face (eddy::FixedPoint): du = -(sum unit) perVolume, which the flow
/// forms as it adds it, with no pass of its own. Read at the faces the flow computes
/// (momentumFaces); the projection of that step makes the result divergence-free again.
struct FaceImpulse {
  std::array<GhostedView<MemSpace, long long>, 3> sum;  ///< per component (>= dims unused)
  double unit = 0.0;       ///< the value of integer 1 of the sums [M L/T]
  double perVolume = 0.0;  ///< 1 / (rho_f V) [1/M]
  bool acts = false;       ///< false: nothing to add
  /// The velocity change of a face whose sum is q.
  KOKKOS_INLINE_FUNCTION double du(long long q) const {
    return -(static_cast<double>(q) * unit) * perVolume;
  }
};

/// A model advanced inside the flow's stages. The flow holds several, advanced in the order
/// they were coupled; at most one of them forces the flow.
class StageCoupling {
 public:
  virtual ~StageCoupling() = default;
  /// The body force of this stage on the flow, from the coupled fields as the last stage left
  /// them (the field's ghosts current, the low domain face of a wall not read). None (every
  /// coefficient 0) by default.
  virtual LinearForce force(RkStage const& stage) const {
    (void)stage;
    return {};
  }
  /// The impulse the flow adds before its next step's stages; none by default.
  virtual FaceImpulse impulse() const { return {}; }
  /// Advances the coupled fields by `stage` with the face velocity `u` (components >= dims
  /// unused) of the start of the stage, whose ghosts are current; leaves the coupled fields'
  /// ghosts current for the next stage.
  virtual void advance(ExecSpace const& space, std::array<GhostedView<MemSpace>, 3> const& u,
                       RkStage const& stage) = 0;
};

}  // namespace eddy::fluids
