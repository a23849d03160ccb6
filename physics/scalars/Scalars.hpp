/// @file Scalars.hpp
/// @brief Cell-centred scalars carried by a flow: dq/dt + div(u q) = kappa lap q, each with its
/// own diffusivity, advection scheme, boundary conditions and initial field; one of them may be
/// a Boussinesq temperature whose buoyancy -beta (T - T_ref) g drives the flow.
///
/// Discretisation: q at cell centres, the face velocity u of the MAC grid (given each stage by
/// the flow, fluids/StageCoupling.hpp). Advection in conservative form, the flux u_f q_f through
/// each face with q_f either the central average (second order; in a periodic box the integral
/// of q is conserved to round-off, since each face's flux leaves one cell and enters the other)
/// or a TVD face value, the upwind cell plus van Leer's limited half-slope (q_up + d0 d1 /
/// (d0 + d1) when the upwind and downwind differences d0, d1 agree in sign, q_up otherwise),
/// which keeps a blob within its bounds. Diffusion by the (2d+1)-point Laplacian. Time: the
/// flow's low-storage RK3 stages, dq = a dq + dt L(q), q += b dq, with the stage-start velocity,
/// one pass a stage that writes the new q to a second buffer (the old one is read around each
/// cell) and recovers the previous dq from the two buffers.
///
/// Boundaries per domain face and scalar: periodic, a fixed value q_b (ghost layer m takes
/// 2 q_b - q(m), the value on the face is q_b) or a fixed flux F into the domain (ghost layer m
/// takes q(m) + (2m + 1) h F / kappa, so kappa dq/dn = F; F = 0 insulates). At walls the normal
/// face velocity is 0, so the wall flux is diffusive only.
///
/// Every kernel computes each cell from its neighbours with the same arithmetic on any
/// decomposition, initial noise is counter-based on the global cell, and the diagnostics are
/// reproducible sums and exact extrema: the fields and numbers are bitwise the same on any rank
/// count.
///
/// Memory: per scalar two cell fields (q and the stages' second buffer), 16 bytes a cell plus
/// ghosts (two layers for a TVD scalar, one for a central one), and its halo buffers.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/ForcedPoints.hpp"
#include "eddy/core/HaloExchange.hpp"
#include "fluids/StageCoupling.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace eddy::scalars {

/// How the face value of the advective flux is formed.
enum class Advection { Central, Tvd };
/// "central", "tvd".
char const* toString(Advection a);

/// What bounds a scalar at one domain face.
enum class BoundaryKind { Periodic, Value, Flux };
/// "periodic", "value", "flux".
char const* toString(BoundaryKind k);

/// One domain face of one scalar: its kind and the fixed value, or the flux into the domain
/// kappa dq/dn (n the inward normal).
struct FaceCondition {
  BoundaryKind kind = BoundaryKind::Flux;
  double value = 0.0;
};

/// The initial profile: a constant, linear along an axis, or given per cell (a file's values);
/// a Gaussian blob and a uniform random perturbation add to it.
enum class Profile { Constant, Linear, Given };
char const* toString(Profile p);

struct Initial {
  Profile profile = Profile::Constant;
  double value = 0.0;        ///< the constant, or the profile's value at x_axis = 0
  int axis = 1;              ///< linear: along this axis ...
  double highValue = 0.0;    ///< ... reaching this value at x_axis = L_axis
  double blobAmplitude = 0;  ///< A of A exp(-|x - c|^2 / (2 w^2)) (nearest periodic image)
  std::array<double, 3> blobCentre{0, 0, 0};
  double blobWidth = 0.1;
  double noise = 0.0;      ///< amplitude of the uniform perturbation in [-noise, noise)
  std::uint64_t seed = 1;  ///< of the perturbation, a pure function of the global cell
  /// Given: the value of each cell of this rank's block, x fastest.
  std::shared_ptr<std::vector<double> const> given;
};

/// One scalar.
struct ScalarParameters {
  std::string name = "q";
  std::string units = "1";
  double diffusivity = 0.0;  ///< kappa [L^2/T]
  Advection advection = Advection::Central;
  std::array<FaceCondition, 6> faces;  ///< index 2 axis + side
  Initial initial;
  /// Deck section of the scalar, for the keys of violations ("scalars.temperature").
  std::string key = "scalars";
};

/// The buoyancy of one scalar (a temperature): force per unit mass -beta (T - T_ref) g on the
/// faces of each component with g_c != 0 (T averaged from the two cells of the face).
struct Buoyancy {
  int scalar = -1;                         ///< index of the temperature; -1: none
  double expansion = 0.0;                  ///< beta [1/Theta]
  std::array<double, 3> gravity{0, 0, 0};  ///< g [L/T^2]
  double reference = 0.0;                  ///< T_ref
};

struct Parameters {
  std::vector<ScalarParameters> scalars;
  Buoyancy buoyancy;
  /// The flow has bodies (setBodies follows): two ghost layers, for the cells the forcing reads.
  bool bodies = false;
};

/// Every reason the scalars cannot run with `params` on a `dims`-D grid periodic along
/// `periodic`, each naming its deck key (empty: they can).
std::vector<Violation> violations(Parameters const& params, int dims,
                                  std::array<bool, 3> const& periodic);

/// Largest explicit step of diffusion with diffusivity `kappa` in the RK3 stages: 1 / (2 kappa
/// sum 1/h_a^2) (the operator's most negative eigenvalue is -4 kappa sum 1/h_a^2, RK3 is stable
/// on the negative real axis to -2.51; the flow's viscous limit has the same form).
double diffusionLimit(double kappa, int dims, std::array<double, 3> const& spacing);

/// Diagnostics of one scalar, identical on every rank and decomposition.
struct Diagnostics {
  double mean = 0.0, min = 0.0, max = 0.0, variance = 0.0;  ///< over the cells
  double integral = 0.0;                                    ///< sum of q times the cell volume
  /// Nusselt number of each face (2 axis + side) that an axis with fixed values at both ends
  /// bounds: the mean inward normal gradient at the face, times L_axis / |q_low - q_high|,
  /// signed so that heat flowing from the low face to the high face counts positive at both
  /// (conduction gives 1); NaN for other faces. The wall gradient is second order, from the face
  /// value and the first two cells.
  std::array<double, 6> nusselt;
  double checksum = 0.0;  ///< sum of q weighted by a fixed function of the global cell
};

/// A solid body in the flow that holds each scalar at a fixed value on its surface: its signed
/// distance (negative inside; host only), the box around it, and its value for each scalar (in
/// the order of Parameters::scalars).
struct SolidBody {
  std::function<double(double, double, double)> distance;
  std::array<double, 3> lower{0, 0, 0}, upper{0, 0, 0};
  std::vector<double> values;
};

/// The scalars on this rank's block of a decomposition.
class Model {
 public:
  /// Allocates the fields and halo exchanges on `decomp` (collective over `comm`) and sets the
  /// initial fields. Throws eddy::ConfigError for the first violation.
  Model(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
        std::array<double, 3> const& length, Parameters const& params);
  ~Model();
  Model(Model const&) = delete;
  Model& operator=(Model const&) = delete;

  /// The buoyancy -beta (T - T_ref) g on the flow, from the temperature as it is now (no force
  /// without a Boussinesq temperature).
  fluids::LinearForce buoyancy() const;
  /// One RK stage (dq = a dq + dt L(q), q += b dq) of every scalar with the face velocity `u`
  /// (ghosts current); ends with every ghost current.
  void stage(ExecSpace const& space, std::array<GhostedView<MemSpace>, 3> const& u, double dt,
             double a, double b);
  /// Holds every scalar at its value inside `bodies` and, in the cells next to their surfaces,
  /// at the value that interpolation along a grid line puts on the surface (direct forcing,
  /// ForcedPoints.hpp, as the flow's velocity); now, and after every stage. Needs
  /// Parameters::bodies. Throws eddy::ConfigError when a body gives a number of values other
  /// than the scalars'.
  void setBodies(ExecSpace const& space, std::vector<SolidBody> const& bodies);
  /// Closes a step of `dt` whose stages ran.
  void finishStep(double dt);
  /// The largest step diffusion allows (the smallest over the scalars; infinity without
  /// diffusion).
  double stableDt() const;

  /// Collective: the diagnostics of scalar `s`.
  Diagnostics diagnostics(ExecSpace const& space, int s) const;
  /// Continues from saved fields (this rank's owned cells, x fastest, one vector per scalar).
  void restoreState(ExecSpace const& space, std::vector<std::vector<double>> const& q,
                    long long step, double time, double lastDt);

  int count() const { return static_cast<int>(m_params.scalars.size()); }
  Parameters const& parameters() const { return m_params; }
  Field<MemSpace> const& field(int s) const { return *m_q[s]; }
  double time() const { return m_time; }
  long long stepCount() const { return m_step; }
  double lastDt() const { return m_lastDt; }
  std::array<double, 3> const& spacing() const { return m_h; }
  std::size_t bytes() const;

  // Kernels; public only because CUDA lambdas may not live in private member functions.
  void setInitialState(ExecSpace const& space);
  /// Halo exchange and the boundary ghosts of scalar s.
  void fillGhosts(ExecSpace const& space, int s);
  /// Sets the cells of the bodies of scalar s (ghosts current before; current after).
  void forceBodies(ExecSpace const& space, int s);

 private:
  MPI_Comm m_comm;
  CartDecomposition m_decomp;
  std::array<double, 3> m_length;
  std::array<double, 3> m_h;
  Parameters m_params;
  /// q, and the other buffer of the stages (the previous stage's q, from which a stage recovers
  /// its predecessor's increment, then its own q).
  std::vector<std::unique_ptr<Field<MemSpace>>> m_q, m_previous;
  std::vector<std::unique_ptr<HaloExchange<ExecSpace>>> m_halo;
  Kokkos::View<ForcedPoint*, MemSpace> m_solid;   ///< the cells the bodies set (none: no bodies)
  Kokkos::View<double**, MemSpace> m_solidValue;  ///< (scalar, body)
  bool m_bodies = false;
  double m_time = 0.0;
  double m_lastDt = 0.0;
  double m_bPrevious = 1.0;  ///< b of the last stage
  long long m_step = 0;
};

}  // namespace eddy::scalars
