/// @file Checkpoint.hpp
/// @brief Checkpoint files: the complete state of a run at one step, written like snapshots
/// (collective MPI-IO or gathered to rank 0, `.tmp` + rename, room claimed first) and read back
/// on any number of ranks.
///
/// A checkpoint describes itself: root attributes name the format, the model, the step, the
/// time, the rank count it was written with, Eddy's version and the resolved deck, next to the
/// model's own scalars and short lists. Grid arrays are stored whole (each rank writes its
/// block, so any decomposition can read its own block back); particle arrays are rows in rank
/// order with the row count of every writing rank (`/particles/rank_rows`), so a run on the same
/// ranks takes back exactly its rows and any other rank count can select atoms by position or
/// id. Every dataset carries a checksum of its data (attribute `checksum`, the same on any rank
/// count and mode), which a restart checks before it uses anything. The models know nothing of
/// files: they hand over and take back host copies. Layout: docs/output.md.
#pragma once

#include "eddy/core/Decomposition.hpp"
#include "eddy/io/Snapshot.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace eddy::io {

/// One global grid array, dataset /fields/<name>: this rank's block of it, x fastest
/// (`values[i + nx * (j + ny * k)]`, n = count). 8 bytes per entry.
struct CheckpointGrid {
  std::string name;  ///< letters, digits and '_'
  std::string units = "1";
  Index3 global{1, 1, 1};  ///< entries of the whole array per axis (x, y, z; z = 1 in 2D)
  Index3 offset{0, 0, 0};  ///< global index of this rank's first entry
  Index3 count{0, 0, 0};   ///< this rank's entries per axis
  std::vector<double> values;
};

/// A per-particle float64 array, dataset /particles/<name> of shape (N, width).
struct CheckpointColumn {
  std::string name;
  int width = 3;
  std::string units = "1";
  std::vector<double> values;  ///< width per particle
};

/// This rank's particles, one row each: 12 bytes plus 8 per column value.
struct CheckpointParticles {
  std::vector<std::int64_t> id;    ///< global id
  std::vector<std::int32_t> type;  ///< species
  std::vector<CheckpointColumn> columns;
  std::size_t count() const { return id.size(); }
  /// The column named `name`, or nullptr.
  CheckpointColumn const* column(std::string const& name) const;
};

/// Named root attributes beyond the standard ones: scalars are lists of one element.
struct CheckpointAttributes {
  std::map<std::string, std::vector<double>> reals;
  std::map<std::string, std::vector<std::int64_t>> integers;
  std::map<std::string, std::string> texts;
};

/// What one checkpoint holds. Every rank gives the same model, step, time, attributes and
/// array names; blocks and rows are its own.
struct CheckpointData {
  std::string model;  ///< "fluids", "md", ...
  long long step = 0;
  double time = 0.0;
  CheckpointAttributes attributes;
  std::vector<CheckpointGrid> grids;
  bool hasParticles = false;
  CheckpointParticles particles;
};

/// Writes `<directory>/<runName>_<step>.chk.h5` and keeps the newest `keep` of them. Every call
/// is collective over `comm`.
class CheckpointWriter {
 public:
  struct Options {
    std::string directory = "output/checkpoints";  ///< must exist
    std::string runName = "eddy";
    std::string deckYaml;  ///< the resolved deck, stored as the root attribute `deck`
    SnapshotMode mode = SnapshotMode::Auto;
    int keep = 2;  ///< checkpoints kept (>= 1): older ones go once a newer one is complete
    /// Largest message a rank sends to rank 0 in Gather mode.
    std::size_t maxMessageBytes = std::size_t(64) << 20;
  };

  /// What write() did.
  struct Written {
    std::string path;
    long long bytes = 0;               ///< size of the file (rank 0; 0 elsewhere)
    std::vector<std::string> removed;  ///< older checkpoints deleted (rank 0)
    std::string removeFailure;         ///< why an older one could not be deleted (rank 0)
  };

  /// Resolves the mode (Collective without a parallel HDF5 throws eddy::ConfigError).
  CheckpointWriter(MPI_Comm comm, Options options);

  /// Collective. Writes `<name>.tmp`, closes it, renames it to the final name, and only then
  /// deletes checkpoints of this run with a smaller step beyond the newest `keep` (later steps,
  /// left by a run that went further, are not touched). On any failure on any rank every rank
  /// throws the same collective eddy::IoError naming the path and the reason (errno or HDF5
  /// message); earlier checkpoints are left as they were.
  Written write(CheckpointData const& data);

  /// Path of the checkpoint of `step`.
  std::string path(long long step) const;
  /// The mode in use (never Auto).
  SnapshotMode mode() const { return m_mode; }

 private:
  MPI_Comm m_comm;
  int m_rank = 0;
  int m_size = 1;
  Options m_options;
  SnapshotMode m_mode;
};

/// Collective: the checkpoints of run `runName` in `directory` (`<runName>_<step>.chk.h5`) as
/// (step, path), oldest first; empty when there are none or no such directory.
std::vector<std::pair<long long, std::string>> listCheckpoints(MPI_Comm comm,
                                                               std::string const& directory,
                                                               std::string const& runName);

/// A checkpoint opened for a restart. Rank 0 reads the attributes and array shapes and every
/// rank gets them; the arrays are read collectively (MPI-IO with a parallel HDF5) or by rank 0,
/// which sends each rank its part in bounded messages (any HDF5: rank 0 alone needs to see the
/// file, and nobody holds more than its own part plus one message).
class CheckpointReader {
 public:
  /// Collective. Throws a collective eddy::IoError naming `path` and the reason when the file
  /// cannot be read (errno), is not an HDF5 file, is not an Eddy checkpoint, or when the data of
  /// a dataset do not match the checksum stored with it (naming the dataset): every dataset is
  /// read once, split over the ranks as the arrays are, to check it.
  CheckpointReader(MPI_Comm comm, std::string path, SnapshotMode mode = SnapshotMode::Auto,
                   std::size_t maxMessageBytes = std::size_t(64) << 20);

  std::string const& path() const { return m_path; }
  std::string const& model() const { return m_model; }
  long long step() const { return m_step; }
  double time() const { return m_time; }
  /// Ranks of the run that wrote the file.
  int ranks() const { return m_ranks; }
  /// Eddy version that wrote the file.
  std::string const& version() const { return m_version; }
  /// The resolved deck of the run that wrote the file.
  std::string const& deck() const { return m_deck; }
  CheckpointAttributes const& attributes() const { return m_attributes; }
  /// True when every dataset's checksum was checked; false for a checkpoint written before
  /// checkpoints had checksums (root attribute `checksum_algorithm` absent), read unchecked.
  bool checked() const { return m_checked; }
  /// Dataset path ("/fields/u") -> its checksum as stored (16 hex digits).
  std::map<std::string, std::string> const& checksums() const { return m_checksums; }

  /// A root attribute; throws eddy::Error naming the file when it is missing or, for the
  /// scalars, not a single value.
  double real(std::string const& name) const;
  std::int64_t integer(std::string const& name) const;
  std::vector<double> const& reals(std::string const& name) const;
  std::vector<std::int64_t> const& integers(std::string const& name) const;
  std::string const& text(std::string const& name) const;
  bool hasText(std::string const& name) const { return m_attributes.texts.count(name) > 0; }

  /// True when grid array `name` exists; its shape per axis (x, y, z).
  bool hasGrid(std::string const& name) const;
  Index3 gridShape(std::string const& name) const;
  /// Collective: this rank's block [offset, offset + count) of grid array `name`, x fastest.
  /// Throws eddy::Error when the array is missing or the block lies outside it.
  std::vector<double> readGrid(std::string const& name, Index3 const& offset,
                               Index3 const& count) const;

  bool hasParticles() const { return m_hasParticles; }
  /// Particle rows in the file.
  long long particleCount() const { return m_particles; }
  /// Rows written by each rank of the writing run, in rank order.
  std::vector<std::int64_t> const& rowsPerRank() const { return m_rankRows; }
  /// Names of the float64 particle columns.
  std::vector<std::string> const& particleColumns() const { return m_columnNames; }
  /// Collective: rows [first, first + count) of ids, types and every column, on every rank
  /// that asks (each rank may ask for other rows; count 0 is allowed).
  CheckpointParticles readParticles(long long first, long long count) const;

 private:
  MPI_Comm m_comm;
  int m_rank = 0;
  std::string m_path;
  SnapshotMode m_mode;
  std::size_t m_maxMessageBytes;
  std::string m_model, m_version, m_deck;
  long long m_step = 0;
  double m_time = 0.0;
  int m_ranks = 0;
  CheckpointAttributes m_attributes;
  std::map<std::string, std::vector<long long>> m_shapes;  ///< dataset path -> HDF5 shape
  std::map<std::string, std::string> m_checksums;         ///< dataset path -> checksum
  bool m_checked = false;
  bool m_hasParticles = false;
  long long m_particles = 0;
  std::vector<std::int64_t> m_rankRows;
  std::vector<std::string> m_columnNames;
  std::vector<int> m_columnWidths;

  /// Collective: checks every dataset against its checksum (see CheckpointChecksum.hpp).
  void verify(std::string const& context);
};

}  // namespace eddy::io
