/// @file H5md.hpp
/// @brief Particle trajectories in H5MD 1.1 (HDF5 for molecular data,
/// https://www.nongnu.org/h5md/h5md.html), as MDAnalysis and VMD's h5md plugin read them.
///
/// Layout (one particle group, `trajectory`, the name MDAnalysis looks for):
///
///     /h5md                 +version [1, 1]; author +name; creator +name "Eddy" +version
///     /particles/trajectory
///         box               +dimension 3; +boundary "periodic" / "none" per axis
///             edges/        value [T][3][3] (the edge vectors as rows), step [T], time [T]
///             lower/, upper/  value [T][3]: the box's corners (an Eddy extension: H5MD gives
///                           no origin; positions are in the frame where the box spans
///                           [lower, upper))
///         position/         value [T][N][3], step, time
///         image/            value [T][N][3] (integers: R = r + L image per axis)
///         velocity/         value [T][N][3], step, time (when written)
///         id, species, mass [N] (fixed in time: plain datasets)
///
/// Every `step` and `time` is one dataset, hard-linked into each element, as H5MD asks. Values
/// are doubles, written and read back exactly. Eddy's units are reduced (Lennard-Jones), which
/// H5MD's unit strings do not name, so no `unit` attribute is written: open a file in MDAnalysis
/// with `convert_units=False`.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace eddy::io {

/// What does not change between frames: per particle (in the file's order) its id, species
/// (atom type) and mass; which box axes are periodic; whether frames carry velocities.
struct H5mdParticles {
  std::vector<long long> id;
  std::vector<int> species;
  std::vector<double> mass;
  std::array<bool, 3> periodic{true, true, true};
  bool velocities = true;
};

/// One frame: the box [lower, upper), and per particle its position, image and velocity (when
/// the file has velocities).
struct H5mdFrame {
  long long step = 0;
  double time = 0.0;
  std::array<double, 3> lower{0, 0, 0}, upper{0, 0, 0};
  std::vector<std::array<double, 3>> position;
  std::vector<std::array<int, 3>> image;
  std::vector<std::array<double, 3>> velocity;
};

/// Creates (or truncates) the trajectory file `path` for `particles` and appends frames to it,
/// flushing each; the file is complete after every append. Throws eddy::IoError naming the path
/// and what failed.
class H5mdWriter {
 public:
  H5mdWriter(std::string const& path, H5mdParticles const& particles);
  /// Continues the trajectory file `path` this writer wrote for `particles` (a restart): the
  /// frames after step `lastStep` are dropped (a run that wrote past its checkpoint) and frames
  /// are appended after the others. Throws eddy::IoError naming the path when the file cannot be
  /// opened for writing or holds other particles (ids in another order, another count, or
  /// velocities where `particles` has none or the other way round).
  H5mdWriter(std::string const& path, H5mdParticles const& particles, long long lastStep);
  ~H5mdWriter();
  H5mdWriter(H5mdWriter const&) = delete;
  H5mdWriter& operator=(H5mdWriter const&) = delete;

  /// Appends `frame`; its lists must hold one entry per particle (velocity: when the file has
  /// velocities) and its step must be greater than the last frame's (eddy::Error otherwise).
  void append(H5mdFrame const& frame);
  long long frames() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The particles of H5MD file `path` and how many frames it holds (in `frames`). Throws
/// eddy::IoError naming the path and what is missing or malformed.
H5mdParticles readH5mdParticles(std::string const& path, long long& frames);

/// Frame `frame` (0 .. frames - 1) of H5MD file `path`. Throws eddy::IoError as above, or for a
/// frame the file does not hold.
H5mdFrame readH5mdFrame(std::string const& path, long long frame);

}  // namespace eddy::io
