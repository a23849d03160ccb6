/// @file FftPoisson.hpp
/// @brief Direct solve of the pressure Poisson problem by fast transforms (fluids.poisson.method
/// fft): the eigen-decomposition of the discrete operator of PoissonKernels.hpp.
///
/// A = -lap_h on a uniform grid with periodic axes and walls (homogeneous Neumann) is a sum of
/// one 1D operator per axis, each diagonalised by a real transform along its lines
/// (LineTransforms.hpp: the real DFT along periodic axes, the DCT-II between walls). So
///   phi = T^-1 [ (T f) / (lambda_x + lambda_y + lambda_z) ],
/// with the exact discrete eigenvalues: phi solves A phi = f to round-off, not a spectral
/// approximation of the continuous problem. The zero mode (A's null space, the constants) is
/// set to 0: phi has zero mean, and the mean of f is ignored.
///
/// Over ranks, the data moves between the flow's blocks and pencils (full lines along one axis,
/// the other axes split over the ranks): block -> x pencils -> y pencils [-> z pencils] and back,
/// through the transport of Transport.hpp. A line's transform depends on its values only, and the
/// moves copy values, so phi is bitwise the same on any number of ranks.
///
/// Cost: two pencil arrays of the owned cells (16 bytes a cell; on GPUs rounded up to whole
/// batches of lines of n / 2 + 1 complex values) plus message buffers and the transforms' work
/// areas; per solve, one transform and one move per axis each way, the moves writing and
/// reading the lines in the order the transforms work in (LineTransforms::Lines).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

#include <mpi.h>

#include <array>
#include <memory>
#include <string>

namespace eddy::fluids {

class FftPoisson {
 public:
  /// Why `decomp`'s ranks cannot be laid out in pencils (more ranks than the lines of an axis
  /// can be split among), or "" when they can. The same answer on every rank.
  static std::string refusal(CartDecomposition const& decomp);

  /// Collective over `comm`. `h` is the cell size per axis. Throws eddy::ConfigError (saying
  /// refusal()) when the ranks cannot be laid out in pencils.
  FftPoisson(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
             std::array<double, 3> const& h);
  ~FftPoisson();
  FftPoisson(FftPoisson const&) = delete;
  FftPoisson& operator=(FftPoisson const&) = delete;

  /// Collective. phi's owned cells = A^-1 (sign f) (zero mean; the zero mode of f left out),
  /// sign 1 or -1 (the same bits as a solve of -f); f's owned cells are read and phi's written
  /// (ghosts untouched), and they may be the same field.
  void solve(ExecSpace const& space, GhostedView<MemSpace> const& f,
             GhostedView<MemSpace> const& phi, double sign = 1.0);

  /// Bytes of device memory held: pencil arrays, message buffers, transform work areas.
  std::size_t bytes() const;

  /// "x pencils 1x2x2, y pencils 2x1x2, z pencils 2x2x1 ranks; FFTW 3.3.10" (for the log).
  std::string describe() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace eddy::fluids
