/// @file Snapshot.hpp
/// @brief HDF5 snapshots (one file per output step) and the XDMF 3 time series that indexes them.
///
/// Every rank passes host-side copies of what it owns: the owned block of each cell-centred grid
/// array (with its place in the global grid) and its rows of the particle arrays. The writer
/// knows nothing of the models. With a parallel HDF5 all ranks write collectively into one file
/// (MPI-IO hyperslabs); with a serial HDF5 (or mode Gather) the ranks send their data to rank 0
/// in messages of bounded size and rank 0 writes the same hyperslabs. The file is the same either
/// way. Layout and units: docs/output.md.
#pragma once

#include "eddy/core/Decomposition.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace eddy::io {

/// Where this rank's block sits in the global grid of cells, and the grid's geometry.
struct GridGeometry {
  int dims = 3;                            ///< 2 or 3
  Index3 globalCells{1, 1, 1};             ///< cells per axis (z = 1 in 2D)
  Index3 offset{0, 0, 0};                  ///< global index of this rank's first owned cell
  Index3 localCells{0, 0, 0};              ///< owned cells per axis on this rank
  std::array<double, 3> origin{0, 0, 0};   ///< position of the low corner of cell (0, 0, 0)
  std::array<double, 3> spacing{1, 1, 1};  ///< cell size per axis
};

/// One cell-centred scalar array: this rank's owned block, x fastest
/// (`values[i + nx * (j + ny * k)]` with n = localCells). 8 bytes per owned cell.
struct GridArray {
  std::string name;   ///< dataset name under /fields (letters, digits, '_')
  std::string units;  ///< stored as the dataset's `units` attribute
  std::vector<double> values;
};

/// A vector of grid arrays: its name and the arrays of its 2 or 3 components, in x, y(, z)
/// order. The file stores the components only; the XDMF index joins them into one vector
/// attribute (a 2D vector gets z = 0), so ParaView has glyphs and streamlines at no extra storage.
struct GridVector {
  std::string name;
  std::vector<std::string> components;
};

/// This rank's particles, one row each. 64 bytes per particle (+ 4 for the type, + 12 with
/// images).
struct ParticleArrays {
  std::vector<double> position;     ///< 3 per particle (x, y, z)
  std::vector<double> velocity;     ///< 3 per particle
  std::vector<std::int64_t> id;     ///< global id
  std::vector<std::int32_t> type;   ///< species
  std::string positionUnits = "1";  ///< e.g. md's "sigma"; "1" for dimensionless
  std::string velocityUnits = "1";  ///< e.g. md's "sigma/tau"
  /// Periodic image counts (ix, iy, iz), 3 per particle, written when `hasImages` (the same on
  /// every rank): the unwrapped position is position + image * boxLength.
  bool hasImages = false;
  std::vector<std::int32_t> image;
  /// The periodic box [boxLow, boxLow + boxLength) per axis (x, y, z), written as attributes of
  /// /particles when `hasBox`.
  bool hasBox = false;
  std::array<double, 3> boxLow{0, 0, 0};
  std::array<double, 3> boxLength{1, 1, 1};
  std::size_t count() const { return id.size(); }
};

/// What one snapshot holds. Either part may be absent (`hasGrid`, `hasParticles`); every rank
/// must give the same step, time, dt, geometry (except offset and localCells) and array names.
struct SnapshotData {
  long long step = 0;
  double time = 0.0;
  double dt = 0.0;
  std::string timeUnits = "T";  ///< "T" (the deck's own time unit), "tau" (md) or "1"
  bool hasGrid = false;
  GridGeometry grid;
  std::vector<GridArray> fields;
  std::vector<GridVector> vectors;  ///< of arrays in `fields`
  bool hasParticles = false;
  ParticleArrays particles;
};

/// How the ranks get their data into the file.
enum class SnapshotMode {
  Auto,        ///< Collective with a parallel HDF5, else Gather
  Collective,  ///< MPI-IO collective hyperslab writes (parallel HDF5 only)
  Gather,      ///< bounded messages to rank 0, which writes (any HDF5)
};

/// "auto", "collective" or "gather" -> SnapshotMode; throws eddy::ConfigError otherwise.
SnapshotMode snapshotModeFromString(std::string const& s);

/// Writes `<directory>/<runName>_<step>.h5` per snapshot and keeps `<directory>/<runName>.xmf`
/// listing every snapshot written so far. Every call is collective over `comm`.
class SnapshotWriter {
 public:
  struct Options {
    std::string directory = "output";  ///< must exist
    std::string runName = "eddy";
    std::string deckYaml;  ///< the resolved deck, stored as the root attribute `deck`
    SnapshotMode mode = SnapshotMode::Auto;
    /// Largest message a rank sends to rank 0 in Gather mode (and so rank 0's receive buffer).
    std::size_t maxMessageBytes = std::size_t(64) << 20;
  };

  /// Resolves the mode (Collective without a parallel HDF5 throws eddy::ConfigError).
  SnapshotWriter(MPI_Comm comm, Options options);

  /// Collective. Writes `<name>.h5.tmp`, closes it, renames it to `<name>.h5`, then rewrites the
  /// .xmf the same way. Returns the path of the snapshot. On any failure on any rank every rank
  /// throws the same collective eddy::IoError naming the path and the reason (errno or HDF5
  /// message); files of earlier snapshots and the .xmf listing them are left as they were.
  std::string write(SnapshotData const& data);

  /// Path of the snapshot file for `step`.
  std::string snapshotPath(long long step) const;
  /// Path of the XDMF index.
  std::string xdmfPath() const;
  /// The mode in use (never Auto).
  SnapshotMode mode() const { return m_mode; }
  /// Snapshots written so far.
  int count() const { return static_cast<int>(m_entries.size()); }

  /// What the XDMF index needs to know of one snapshot.
  struct Entry {
    std::string file;  ///< file name relative to the .xmf
    long long step = 0;
    double time = 0.0;
    bool hasGrid = false;
    int dims = 3;
    Index3 globalCells{1, 1, 1};
    std::array<double, 3> origin{0, 0, 0}, spacing{1, 1, 1};
    std::vector<std::string> fields;
    std::vector<GridVector> vectors;
    bool hasParticles = false;
    long long particles = 0;
  };

  /// The snapshots written so far (or taken over by resume()), oldest first.
  std::vector<Entry> const& entries() const { return m_entries; }
  /// Collective, for a restart: takes `entries` (those of the run up to the restart step) as
  /// the snapshots written so far and rewrites the index to list exactly them, so that entries
  /// a crashed run added after that step are dropped. Throws like write().
  void resume(std::vector<Entry> entries);

 private:
  /// Collective: rewrites the .xmf (tmp + rename) to list `entries`.
  void writeIndex(std::vector<Entry> const& entries);

  MPI_Comm m_comm;
  int m_rank = 0;
  int m_size = 1;
  Options m_options;
  SnapshotMode m_mode;
  std::vector<Entry> m_entries;
};

/// The XDMF 3 text of a temporal collection of `entries` (exposed for tests).
std::string xdmfText(std::string const& runName, std::vector<SnapshotWriter::Entry> const& entries);

/// `entries` as plain text, one line each (times with 17 digits, so they read back exactly);
/// checkpoints store it so that a restarted run continues the index.
std::string snapshotIndexText(std::vector<SnapshotWriter::Entry> const& entries);
/// The entries of snapshotIndexText() text. Throws eddy::Error naming the line that does not
/// parse.
std::vector<SnapshotWriter::Entry> snapshotIndexFromText(std::string const& text);

}  // namespace eddy::io
