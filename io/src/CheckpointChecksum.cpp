// Checkpoint checksums (see CheckpointChecksum.hpp): the sums the writer adds up per rank, and
// the pass of a restart that reads every dataset once and checks its sum.
#include "CheckpointChecksum.hpp"

#include "eddy/core/Error.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace eddy::io::detail {

std::uint64_t checksumRange(void const* data, std::size_t elemBytes, std::uint64_t first,
                            std::size_t n) {
  auto const* p = static_cast<unsigned char const*>(data);
  std::uint64_t sum = 0;
  if (elemBytes == 8) {
    for (std::size_t e = 0; e < n; ++e) {
      std::uint64_t bits;
      std::memcpy(&bits, p + 8 * e, 8);
      sum += checksumTerm(first + e, bits);
    }
  } else {
    EDDY_REQUIRE(elemBytes == 4, "checksumRange: elements of ", elemBytes,
                 " bytes; expected 4 or 8");
    for (std::size_t e = 0; e < n; ++e) {
      std::uint32_t bits;
      std::memcpy(&bits, p + 4 * e, 4);
      sum += checksumTerm(first + e, bits);
    }
  }
  return sum;
}

std::uint64_t checksumBlock(GridBox const& box, double const* values) {
  Index3 const& g = box.global;
  Index3 const& o = box.offset;
  Index3 const& n = box.count;
  std::uint64_t sum = 0;
  if (product(n) == 0) return sum;
  // Each x row of the block is contiguous in the file's (z, y, x) order too.
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j) {
      std::uint64_t const at =
          (static_cast<std::uint64_t>(o[2] + k) * g[1] + static_cast<std::uint64_t>(o[1] + j)) *
              g[0] +
          static_cast<std::uint64_t>(o[0]);
      sum += checksumRange(values + static_cast<std::size_t>(n[0]) * (j + std::size_t(n[1]) * k),
                           8, at, static_cast<std::size_t>(n[0]));
    }
  return sum;
}

std::string checksumText(std::uint64_t sum) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(sum));
  return buf;
}

namespace {

/// A dataset's shape as a box, x fastest ((N) -> {N, 1, 1}, (N, w) -> {w, N, 1}).
Index3 asBox(std::vector<long long> const& dims) {
  Index3 n{1, 1, 1};
  for (std::size_t a = 0; a < dims.size(); ++a)
    n[a] = static_cast<int>(dims[dims.size() - 1 - a]);
  return n;
}

/// The first `rank` entries of fileOrder(v) counted from the end: the HDF5 offset or count of
/// a box in a dataset of `rank` dimensions.
std::vector<hsize_t> inFile(Index3 const& v, std::size_t rank) {
  std::vector<hsize_t> const all = fileOrder(v);
  return std::vector<hsize_t>(all.end() - static_cast<std::ptrdiff_t>(rank), all.end());
}

/// One rank's share of a dataset of box `n` split over `parts`: a range of the slowest axis
/// longer than one entry (the axes slower than it have one entry, so the share and every slab
/// of it that splitBlock makes are contiguous in the file's order).
struct Share {
  Index3 offset{0, 0, 0};
  Index3 count{0, 0, 0};
};
Share shareOf(Index3 const& n, int part, int parts) {
  int axis = 0;
  for (int a = 2; a > 0; --a)
    if (n[a] > 1) {
      axis = a;
      break;
    }
  int const base = n[axis] / parts, extra = n[axis] % parts;
  Share s;
  s.count = n;
  s.count[axis] = base + (part < extra ? 1 : 0);
  s.offset[axis] = part * base + std::min(part, extra);
  return s;
}

}  // namespace

std::vector<std::string> verifyChecksums(MPI_Comm comm, std::string const& path, bool collective,
                                         std::map<std::string, std::vector<long long>> const& shapes,
                                         std::map<std::string, std::string> const& expected,
                                         std::size_t maxMessageBytes, std::string const& context) {
  int rank = 0, size = 1;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  Hdf5Quiet quiet;
  Failure failure;
  std::vector<std::uint64_t> sums(shapes.size(), 0);
  {
    std::unique_ptr<Hdf5Input> in;
    if (collective || rank == 0)
      in = std::make_unique<Hdf5Input>(path, collective ? comm : MPI_COMM_NULL, failure);
    // Gathered: rank 0 reads all of every dataset; collective: every rank its share.
    int const parts = collective ? size : 1;
    int const part = collective ? rank : 0;
    std::vector<unsigned char> buffer;
    std::size_t d = 0;
    for (auto const& s : shapes) {
      std::size_t const index = d++;
      if (!in) continue;
      in->openDataset(s.first);
      // The element size from the file: float64 and int64 8 bytes, int32 4.
      hid_t memType = H5T_NATIVE_DOUBLE;
      std::size_t elemBytes = 8;
      if (in->ok()) {
        hid_t const type = H5Dget_type(in->dataset());
        H5T_class_t const cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
        std::size_t const bytes = type >= 0 ? H5Tget_size(type) : 0;
        if (type >= 0) H5Tclose(type);
        if (cls == H5T_INTEGER && (bytes == 8 || bytes == 4)) {
          memType = bytes == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32;
          elemBytes = bytes;
        } else if (!(cls == H5T_FLOAT && bytes == 8)) {
          failure.set(str("dataset ", s.first, " holds elements of class ", int(cls), " and ",
                          bytes, " bytes; expected float64, int64 or int32"));
        }
      }
      if (s.second.empty() || s.second.size() > 3)
        failure.set(str("dataset ", s.first, " has ", s.second.size(),
                        " dimensions; expected 1 to 3"));
      // A failure seen here is the file's, the same on every rank: all skip the reads alike.
      if (!in->ok()) continue;
      Index3 const n = asBox(s.second);
      long long const maxElems =
          std::max<long long>(1, static_cast<long long>(maxMessageBytes / elemBytes));
      // Collective reads: every rank makes as many as the largest share (part 0) needs.
      Share const mine = shareOf(n, part, parts);
      std::vector<Slab> const slabs = splitBlock(mine.count, maxElems);
      std::size_t const calls = splitBlock(shareOf(n, 0, parts).count, maxElems).size();
      for (std::size_t c = 0; c < calls; ++c) {
        Index3 at{0, 0, 0}, e{0, 0, 0};
        if (c < slabs.size()) {
          for (int a = 0; a < 3; ++a) at[a] = mine.offset[a] + slabs[c].lo[a];
          e = slabs[c].extent();
        }
        std::size_t const count = static_cast<std::size_t>(product(e));
        buffer.resize(std::max<std::size_t>(1, count) * elemBytes);
        in->readBlock(memType, inFile(at, s.second.size()), inFile(e, s.second.size()),
                      buffer.data());
        if (count == 0 || !in->ok()) continue;
        std::uint64_t const first =
            (static_cast<std::uint64_t>(at[2]) * n[1] + static_cast<std::uint64_t>(at[1])) * n[0] +
            static_cast<std::uint64_t>(at[0]);
        sums[index] += checksumRange(buffer.data(), elemBytes, first, count);
      }
      in->closeDataset();
    }
    if (in) in->close();
  }
  agree(comm, failure, context);
  if (!sums.empty())
    checkMpi(MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_UINT64_T,
                           MPI_SUM, comm),
             "MPI_Allreduce(checkpoint checksums)");
  std::vector<std::string> damaged;
  std::size_t d = 0;
  for (auto const& s : shapes) {
    std::string const computed = checksumText(sums[d++]);
    auto const it = expected.find(s.first);
    if (it != expected.end() && it->second != computed)
      damaged.push_back(str(s.first, " (computed ", computed, ", stored ", it->second, ")"));
  }
  return damaged;
}

}  // namespace eddy::io::detail
