// Checkpoint files (registered at 1, 2 and 4 ranks): every rank writes its block of known grid
// arrays (a face-centred shape with an extra entry at the high end, uneven splits) and its rows
// of particle arrays (one rank with none); the ranks read back their own blocks and rows, and
// blocks of another decomposition, in collective mode (parallel HDF5) and in gather mode with
// message limits that split blocks every way. Also: a file written by one rank read by all and
// the reverse (another rank count), the rotation that keeps the newest files, the snapshot
// index text, and the collective errors of a missing file, a snapshot, a missing directory and
// bad input on one rank. Checksums: the same on any rank count and mode; a byte flipped in any
// dataset is refused naming it, in every mode; a file without them reads unchecked.
#include "EddyTest.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Version.hpp"
#include "eddy/io/Checkpoint.hpp"
#include "eddy/io/Info.hpp"
#include "eddy/io/Snapshot.hpp"

#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

using eddy::CartDecomposition;
using eddy::Index3;
using eddy::str;
using eddy::test::worldRank;
using eddy::test::worldSize;
namespace io = eddy::io;

Index3 const kCells{5, 6, 3};

double gridValue(int array, int i, int j, int k) {
  return array * 1e6 + i + 100.0 * j + 10000.0 * k + 0.125;
}
// Rank r holds r + 2 particles, except rank 1 which holds none.
long long particleCount(int r) {
  return r == 1 ? 0 : r + 2;
}
std::int64_t particleId(int r, long long p) {
  return 1000 * r + p;
}

std::string freshDirectory(std::string const& name) {
  std::string const dir = name + "_np" + std::to_string(worldSize());
  if (worldRank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

/// The block of array `a` that decomposition `d` gives this rank: array 0 has one more entry
/// along x (like the x velocity between walls), owned by the ranks at the high x end.
io::CheckpointGrid block(CartDecomposition const& d, int a) {
  io::CheckpointGrid g;
  g.name = a == 0 ? "faces" : "cells";
  g.units = a == 0 ? "L/T" : "M/(L T^2)";
  g.global = kCells;
  g.offset = d.offset();
  g.count = d.localCells();
  if (a == 0) {
    g.global[0] += 1;
    if (d.isHighBoundary(0)) g.count[0] += 1;
  }
  for (int k = 0; k < g.count[2]; ++k)
    for (int j = 0; j < g.count[1]; ++j)
      for (int i = 0; i < g.count[0]; ++i)
        g.values.push_back(gridValue(a, g.offset[0] + i, g.offset[1] + j, g.offset[2] + k));
  return g;
}

io::CheckpointData makeData(CartDecomposition const& d, int rank, long long step) {
  io::CheckpointData data;
  data.model = "test";
  data.step = step;
  data.time = 0.1 * step;  // not a short binary fraction: must come back bit for bit
  data.attributes.reals["scale"] = {2.5};
  data.attributes.reals["box"] = {1.0 / 3.0, 2.0, 1e-300};
  data.attributes.integers["cells"] = {kCells[0], kCells[1], kCells[2]};
  data.attributes.integers["count"] = {-7};
  data.attributes.texts["note"] = "two\nlines";
  data.grids = {block(d, 0), block(d, 1)};
  data.hasParticles = true;
  io::CheckpointColumn x{"position", 3, "m", {}};
  io::CheckpointColumn q{"charge", 1, "C", {}};
  for (long long p = 0; p < particleCount(rank); ++p) {
    std::int64_t const id = particleId(rank, p);
    data.particles.id.push_back(id);
    data.particles.type.push_back(static_cast<std::int32_t>(id % 3));
    for (int a = 0; a < 3; ++a) x.values.push_back(3.0 * id + a + 0.1);
    q.values.push_back(-0.5 * id);
  }
  data.particles.columns = {x, q};
  return data;
}

struct Case {
  io::SnapshotMode mode;
  std::size_t maxMessageBytes;
  char const* name;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  if (io::hdf5Parallel())
    c.push_back({io::SnapshotMode::Collective, std::size_t(64) << 20, "collective"});
  c.push_back({io::SnapshotMode::Gather, std::size_t(64) << 20, "gather"});
  // Small limits: several planes per message, rows of a plane, pieces of a row.
  c.push_back({io::SnapshotMode::Gather, 8 * 40, "gather_planes"});
  c.push_back({io::SnapshotMode::Gather, 8 * 6, "gather_rows"});
  c.push_back({io::SnapshotMode::Gather, 8 * 2, "gather_pieces"});
  return c;
}

io::CheckpointWriter::Options options(std::string const& dir, Case const& c) {
  io::CheckpointWriter::Options o;
  o.directory = dir;
  o.runName = "run";
  o.deckYaml = "run:\n  name: run\n";
  o.mode = c.mode;
  o.maxMessageBytes = c.maxMessageBytes;
  return o;
}

/// Checks what `file` holds against makeData of a run on `ranks` ranks: attributes, the blocks
/// `d` gives this rank, and the rows [first, first + count).
void checkRead(io::CheckpointReader const& file, CartDecomposition const& d, long long step,
               int ranks, long long first, long long count) {
  EXPECT_TRUE(file.checked());
  EXPECT_EQ(file.model(), "test");
  EXPECT_EQ(file.step(), step);
  EXPECT_EQ(file.time(), 0.1 * step);
  EXPECT_EQ(file.ranks(), ranks);
  EXPECT_EQ(file.version(), std::string(eddy::kVersion));
  EXPECT_EQ(file.deck(), "run:\n  name: run\n");
  EXPECT_EQ(file.real("scale"), 2.5);
  EXPECT_EQ(file.reals("box"), (std::vector<double>{1.0 / 3.0, 2.0, 1e-300}));
  EXPECT_EQ(file.integers("cells"), (std::vector<std::int64_t>{5, 6, 3}));
  EXPECT_EQ(file.integer("count"), -7);
  EXPECT_EQ(file.text("note"), "two\nlines");
  EXPECT_THROW(file.real("no_such_attribute"), eddy::Error);
  for (int a = 0; a < 2; ++a) {
    io::CheckpointGrid const expect = block(d, a);
    EXPECT_EQ(file.gridShape(expect.name), expect.global);
    EXPECT_EQ(file.readGrid(expect.name, expect.offset, expect.count), expect.values)
        << expect.name;
  }
  long long total = 0;
  for (int r = 0; r < ranks; ++r) total += particleCount(r);
  ASSERT_EQ(file.particleCount(), total);
  ASSERT_EQ(file.rowsPerRank().size(), static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(file.rowsPerRank()[r], particleCount(r));
  EXPECT_EQ(file.particleColumns(), (std::vector<std::string>{"charge", "position"}));
  // The ids of all rows in rank order, as written.
  std::vector<std::int64_t> ids;
  for (int r = 0; r < ranks; ++r)
    for (long long p = 0; p < particleCount(r); ++p) ids.push_back(particleId(r, p));
  io::CheckpointParticles const p = file.readParticles(first, count);
  ASSERT_EQ(p.count(), static_cast<std::size_t>(count));
  auto const* x = p.column("position");
  auto const* q = p.column("charge");
  ASSERT_TRUE(x && q);
  EXPECT_EQ(x->width, 3);
  EXPECT_EQ(q->width, 1);
  for (long long i = 0; i < count; ++i) {
    std::int64_t const id = ids[static_cast<std::size_t>(first + i)];
    EXPECT_EQ(p.id[i], id);
    EXPECT_EQ(p.type[i], id % 3);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(x->values[3 * i + a], 3.0 * id + a + 0.1);
    EXPECT_EQ(q->values[i], -0.5 * id);
  }
}

TEST(Checkpoint, RoundTripOwnAndOtherBlocks) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false});
  for (auto const& c : cases()) {
    SCOPED_TRACE(c.name);
    std::string const dir = freshDirectory(str("checkpoint_", c.name));
    io::CheckpointWriter w(MPI_COMM_WORLD, options(dir, c));
    auto const written = w.write(makeData(d, worldRank(), 7));
    EXPECT_EQ(written.path, dir + "/run_000007.chk.h5");
    if (worldRank() == 0) {
      EXPECT_GT(written.bytes, 1000);
      EXPECT_FALSE(std::filesystem::exists(written.path + ".tmp"));
    }
    io::CheckpointReader const file(MPI_COMM_WORLD, written.path, c.mode, c.maxMessageBytes);
    // Own blocks and rows.
    long long first = 0;
    for (int r = 0; r < worldRank(); ++r) first += particleCount(r);
    checkRead(file, d, 7, worldSize(), first, particleCount(worldRank()));
    // Another decomposition of the same arrays (forced along z, then y) and everyone reading
    // all rows: what a restart on another layout does.
    auto const other = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false},
                                                   {1, worldSize() > 2 ? 2 : 1, 0});
    checkRead(file, other, 7, worldSize(), 0, file.particleCount());
  }
}

TEST(Checkpoint, OtherRankCounts) {
  for (auto const& c : cases()) {
    SCOPED_TRACE(c.name);
    std::string const dir = freshDirectory(str("checkpoint_ranks_", c.name));
    // Written by rank 0 alone, read by every rank.
    if (worldRank() == 0) {
      auto const one = CartDecomposition::fromComm(MPI_COMM_SELF, kCells, 3, {false, false, false});
      io::CheckpointWriter w(MPI_COMM_SELF, options(dir, c));
      w.write(makeData(one, 0, 3));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false});
    io::CheckpointReader const file(MPI_COMM_WORLD, dir + "/run_000003.chk.h5", c.mode,
                                    c.maxMessageBytes);
    checkRead(file, d, 3, 1, 0, particleCount(0));
    // Written by every rank, read by rank 0 alone.
    io::CheckpointWriter w(MPI_COMM_WORLD, options(dir, c));
    w.write(makeData(d, worldRank(), 4));
    if (worldRank() == 0) {
      auto const one = CartDecomposition::fromComm(MPI_COMM_SELF, kCells, 3, {false, false, false});
      io::CheckpointReader const all(MPI_COMM_SELF, dir + "/run_000004.chk.h5", c.mode,
                                     c.maxMessageBytes);
      checkRead(all, one, 4, worldSize(), 0, all.particleCount());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// Only the newest `keep` checkpoints stay, and only once the newer one is complete; a file of a
// later step (left by a run that went further) is not touched.
TEST(Checkpoint, KeepsTheNewest) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false});
  std::string const dir = freshDirectory("checkpoint_keep");
  Case const c{io::SnapshotMode::Gather, std::size_t(64) << 20, "gather"};
  auto o = options(dir, c);
  o.keep = 2;
  io::CheckpointWriter w(MPI_COMM_WORLD, o);
  w.write(makeData(d, worldRank(), 9));
  if (worldRank() == 0) {
    std::FILE* other = std::fopen((dir + "/other_000001.chk.h5").c_str(), "w");
    ASSERT_NE(other, nullptr);
    std::fclose(other);
  }
  for (long long step = 1; step <= 4; ++step) {
    auto const written = w.write(makeData(d, worldRank(), step));
    if (worldRank() == 0 && step == 3) {
      ASSERT_EQ(written.removed.size(), 1u);
      EXPECT_EQ(written.removed[0], dir + "/run_000001.chk.h5");
    }
  }
  auto const found = io::listCheckpoints(MPI_COMM_WORLD, dir, "run");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].first, 3);
  EXPECT_EQ(found[1].first, 4);
  EXPECT_EQ(found[2].first, 9);
  EXPECT_EQ(found[2].second, dir + "/run_000009.chk.h5");
  if (worldRank() == 0) {
    EXPECT_FALSE(std::filesystem::exists(dir + "/run_000002.chk.h5"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/other_000001.chk.h5"));
  }
  EXPECT_TRUE(io::listCheckpoints(MPI_COMM_WORLD, dir + "/no_such_directory", "run").empty());
}

TEST(Checkpoint, SnapshotIndexTextRoundTrip) {
  std::vector<io::SnapshotWriter::Entry> entries(2);
  entries[0].file = "run_000000.h5";
  entries[0].time = 0.1 + 0.2;
  entries[0].hasGrid = true;
  entries[0].dims = 2;
  entries[0].globalCells = {32, 16, 1};
  entries[0].origin = {0.0, -1.0 / 3.0, 0.0};
  entries[0].spacing = {1.0 / 32, 1.0 / 16, 1e-300};
  entries[0].fields = {"pressure", "u", "v"};
  entries[0].vectors = {{"velocity", {"u", "v"}}};
  entries[1].file = "run_000010.h5";
  entries[1].step = 10;
  entries[1].time = 1.0 / 7.0;
  entries[1].hasParticles = true;
  entries[1].particles = 500;
  auto const back = io::snapshotIndexFromText(io::snapshotIndexText(entries));
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(back[e].file, entries[e].file);
    EXPECT_EQ(back[e].step, entries[e].step);
    EXPECT_EQ(std::memcmp(&back[e].time, &entries[e].time, sizeof(double)), 0);
    EXPECT_EQ(back[e].hasGrid, entries[e].hasGrid);
    EXPECT_EQ(back[e].dims, entries[e].dims);
    EXPECT_EQ(back[e].globalCells, entries[e].globalCells);
    EXPECT_EQ(back[e].origin, entries[e].origin);
    EXPECT_EQ(back[e].spacing, entries[e].spacing);
    EXPECT_EQ(back[e].fields, entries[e].fields);
    ASSERT_EQ(back[e].vectors.size(), entries[e].vectors.size());
    for (std::size_t v = 0; v < back[e].vectors.size(); ++v) {
      EXPECT_EQ(back[e].vectors[v].name, entries[e].vectors[v].name);
      EXPECT_EQ(back[e].vectors[v].components, entries[e].vectors[v].components);
    }
    EXPECT_EQ(back[e].hasParticles, entries[e].hasParticles);
    EXPECT_EQ(back[e].particles, entries[e].particles);
  }
  // The text of the index is the same from the entries read back.
  EXPECT_EQ(io::xdmfText("run", back), io::xdmfText("run", entries));
  EXPECT_THROW(io::snapshotIndexFromText("run_000000.h5\t0\t0.5\n"), eddy::Error);
  // An index written before vectors were stored (11 columns) still reads, without vectors.
  std::string older = io::snapshotIndexText({entries[0]});
  older.erase(older.rfind('\t'));
  auto const old = io::snapshotIndexFromText(older + "\n");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].fields, entries[0].fields);
  EXPECT_TRUE(old[0].vectors.empty());
  // The XDMF joins a 2D vector's components with z = 0.
  EXPECT_NE(io::xdmfText("run", entries).find("Function=\"JOIN($0, $1, 0 * $0)\""),
            std::string::npos);
}

// Every failure is the same collective IoError on every rank, naming the file and the reason.
TEST(Checkpoint, ErrorsAreCollectiveAndNamed) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false});
  auto expectIoError = [](auto&& call, std::vector<std::string> const& parts) {
    try {
      call();
      ADD_FAILURE() << "no exception";
    } catch (eddy::IoError const& e) {
      EXPECT_TRUE(e.collective());
      for (auto const& part : parts)
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expectIoError([] { io::CheckpointReader r(MPI_COMM_WORLD, "checkpoint_no_such_file.chk.h5"); },
                {"cannot read checkpoint 'checkpoint_no_such_file.chk.h5'",
                 "errno 2: No such file or directory"});
  // A snapshot is an HDF5 file but no checkpoint.
  std::string const dir = freshDirectory("checkpoint_errors");
  io::SnapshotWriter::Options so;
  so.directory = dir;
  so.runName = "snap";
  io::SnapshotWriter snapshots(MPI_COMM_WORLD, so);
  io::SnapshotData s;
  s.hasGrid = true;
  s.grid.globalCells = d.globalCells();
  s.grid.offset = d.offset();
  s.grid.localCells = d.localCells();
  std::string const snap = snapshots.write(s);
  expectIoError([&] { io::CheckpointReader r(MPI_COMM_WORLD, snap); },
                {snap, "it is not an Eddy checkpoint"});
  Case const c{io::SnapshotMode::Auto, std::size_t(64) << 20, "auto"};
  io::CheckpointWriter missing(MPI_COMM_WORLD, options("checkpoint_no_such_dir/deeper", c));
  expectIoError([&] { missing.write(makeData(d, worldRank(), 1)); },
                {"cannot write checkpoint 'checkpoint_no_such_dir/deeper/run_000001.chk.h5'",
                 "No such file or directory"});
  io::CheckpointWriter w(MPI_COMM_WORLD, options(dir, c));
  auto bad = makeData(d, worldRank(), 2);
  if (worldRank() == worldSize() - 1) bad.grids[1].values.pop_back();
  expectIoError([&] { w.write(bad); }, {"checkpoint grid 'cells'"});
  if (worldRank() == 0) {
    EXPECT_FALSE(std::filesystem::exists(dir + "/run_000002.chk.h5"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/run_000002.chk.h5.tmp"));
  }
}

}  // namespace

namespace {

/// Rank 0: flips every bit of the middle byte of dataset `name`'s raw data in file `path`.
void flipByte(std::string const& path, std::string const& name) {
  hid_t const file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  hid_t const d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  ASSERT_GE(d, 0) << name;
  haddr_t const offset = H5Dget_offset(d);
  hsize_t const bytes = H5Dget_storage_size(d);
  H5Dclose(d);
  H5Fclose(file);
  ASSERT_NE(offset, HADDR_UNDEF) << name;
  ASSERT_GT(bytes, 0u) << name;
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  long const at = static_cast<long>(offset + bytes / 2);
  ASSERT_EQ(std::fseek(f, at, SEEK_SET), 0);
  int const c = std::fgetc(f);
  ASSERT_EQ(std::fseek(f, at, SEEK_SET), 0);
  ASSERT_NE(std::fputc(c ^ 0xff, f), EOF);
  ASSERT_EQ(std::fclose(f), 0);
}

/// Rank 0: deletes every checksum attribute of file `path` (a checkpoint as written before).
void stripChecksums(std::string const& path, std::vector<std::string> const& datasets) {
  hid_t const file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  EXPECT_GE(H5Adelete(file, "checksum_algorithm"), 0);
  for (auto const& name : datasets) {
    hid_t const d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    EXPECT_GE(H5Adelete(d, "checksum"), 0) << name;
    H5Dclose(d);
  }
  EXPECT_GE(H5Fclose(file), 0);
}

std::vector<std::string> const kDatasets = {
    "/fields/cells",      "/fields/faces",       "/particles/charge",   "/particles/id",
    "/particles/position", "/particles/rank_rows", "/particles/type"};

}  // namespace

// The checksums do not depend on how the file was written: the grid arrays of a file written
// by one rank and by all ranks, collectively or gathered in pieces of any size, carry the same.
TEST(Checkpoint, ChecksumsAreTheSameOnAnyRankCountAndMode) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false});
  std::map<std::string, std::string> first;  // of the first case on all ranks
  for (auto const& c : cases()) {
    SCOPED_TRACE(c.name);
    std::string const dir = freshDirectory(str("checkpoint_sums_", c.name));
    io::CheckpointWriter w(MPI_COMM_WORLD, options(dir, c));
    io::CheckpointReader const all(MPI_COMM_WORLD, w.write(makeData(d, worldRank(), 5)).path,
                                   c.mode, c.maxMessageBytes);
    ASSERT_EQ(all.checksums().size(), kDatasets.size());
    if (first.empty()) first = all.checksums();
    EXPECT_EQ(all.checksums(), first);  // every dataset: same ranks, same data
    if (worldRank() == 0) {
      auto const one = CartDecomposition::fromComm(MPI_COMM_SELF, kCells, 3, {false, false, false});
      io::CheckpointWriter w1(MPI_COMM_SELF, options(dir, c));
      io::CheckpointReader const single(MPI_COMM_SELF, w1.write(makeData(one, 0, 6)).path, c.mode,
                                        c.maxMessageBytes);
      for (char const* grid : {"/fields/cells", "/fields/faces"})
        EXPECT_EQ(single.checksums().at(grid), all.checksums().at(grid)) << grid;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// One byte flipped in the raw data of any dataset: a collective IoError naming the file and the
// dataset, read collectively or through rank 0 in pieces of any size.
TEST(Checkpoint, DamagedDataIsRefused) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false});
  for (auto const& c : cases()) {
    SCOPED_TRACE(c.name);
    std::string const dir = freshDirectory(str("checkpoint_damaged_", c.name));
    io::CheckpointWriter w(MPI_COMM_WORLD, options(dir, c));
    std::string const good = w.write(makeData(d, worldRank(), 8)).path;
    for (auto const& name : kDatasets) {
      SCOPED_TRACE(name);
      std::string const bad = dir + "/damaged.chk.h5";
      if (worldRank() == 0) {
        std::filesystem::copy_file(good, bad, std::filesystem::copy_options::overwrite_existing);
        flipByte(bad, name);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      try {
        io::CheckpointReader const r(MPI_COMM_WORLD, bad, c.mode, c.maxMessageBytes);
        ADD_FAILURE() << "no exception";
      } catch (eddy::IoError const& e) {
        std::string const what = e.what();
        EXPECT_TRUE(e.collective());
        EXPECT_NE(what.find("cannot read checkpoint '" + bad + "'"), std::string::npos) << what;
        EXPECT_NE(what.find("the data of dataset " + name + " (computed"), std::string::npos)
            << what;
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
}

// A checkpoint without checksums (written before they were added) reads as before, unchecked.
TEST(Checkpoint, WithoutChecksumsReadsUnchecked) {
  auto const d = CartDecomposition::fromComm(MPI_COMM_WORLD, kCells, 3, {false, false, false});
  Case const c{io::SnapshotMode::Auto, std::size_t(64) << 20, "auto"};
  std::string const dir = freshDirectory("checkpoint_unchecked");
  io::CheckpointWriter w(MPI_COMM_WORLD, options(dir, c));
  std::string const path = w.write(makeData(d, worldRank(), 2)).path;
  if (worldRank() == 0) stripChecksums(path, kDatasets);
  MPI_Barrier(MPI_COMM_WORLD);
  io::CheckpointReader const file(MPI_COMM_WORLD, path);
  EXPECT_FALSE(file.checked());
  EXPECT_TRUE(file.checksums().empty());
  EXPECT_EQ(file.step(), 2);
  for (int a = 0; a < 2; ++a) {
    io::CheckpointGrid const expect = block(d, a);
    EXPECT_EQ(file.readGrid(expect.name, expect.offset, expect.count), expect.values);
  }
}
