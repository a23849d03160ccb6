// eddy_damage_checkpoint: what the damaged-checkpoint tests (DamagedCheckpoint.cmake) do to a
// checkpoint file.
//   list FILE          prints the datasets under /fields and /particles that hold data, one a
//                      line
//   flip FILE DATASET  flips every bit of one byte in the middle of DATASET's raw data, found
//                      with H5Dget_offset (contiguous datasets), as a disk or a copy would
//   strip FILE         deletes every checksum attribute: a checkpoint as Eddy wrote them
//                      before checkpoints had checksums
// Exit 0 on success, 1 on failure, 2 on a bad command line.
#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Walk {
  std::string group;
  std::vector<std::string>* names;
};

herr_t collect(hid_t group, char const* name, H5L_info_t const*, void* client) {
  auto* walk = static_cast<Walk*>(client);
  hid_t const d = H5Dopen2(group, name, H5P_DEFAULT);
  if (d < 0) return 0;
  if (H5Dget_storage_size(d) > 0) walk->names->push_back(walk->group + "/" + name);
  H5Dclose(d);
  return 0;
}

std::vector<std::string> datasets(hid_t file) {
  std::vector<std::string> names;
  for (char const* group : {"/fields", "/particles"}) {
    if (H5Lexists(file, group, H5P_DEFAULT) <= 0) continue;
    hid_t const g = H5Gopen2(file, group, H5P_DEFAULT);
    Walk walk{group, &names};
    hsize_t idx = 0;
    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &walk);
    H5Gclose(g);
  }
  return names;
}

int flip(char const* path, char const* dataset) {
  hid_t const file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    std::printf("cannot open '%s'\n", path);
    return 1;
  }
  hid_t const d = H5Dopen2(file, dataset, H5P_DEFAULT);
  haddr_t const offset = d >= 0 ? H5Dget_offset(d) : HADDR_UNDEF;
  hsize_t const bytes = d >= 0 ? H5Dget_storage_size(d) : 0;
  if (d >= 0) H5Dclose(d);
  H5Fclose(file);
  if (offset == HADDR_UNDEF || bytes == 0) {
    std::printf("'%s' in '%s': no contiguous raw data to damage\n", dataset, path);
    return 1;
  }
  long const at = static_cast<long>(offset + bytes / 2);
  std::FILE* f = std::fopen(path, "r+b");
  if (!f) {
    std::printf("cannot open '%s' for writing\n", path);
    return 1;
  }
  int const before = std::fseek(f, at, SEEK_SET) == 0 ? std::fgetc(f) : EOF;
  bool const good = before != EOF && std::fseek(f, at, SEEK_SET) == 0 &&
                    std::fputc(before ^ 0xff, f) != EOF;
  if (std::fclose(f) != 0 || !good) {
    std::printf("cannot rewrite byte %ld of '%s'\n", at, path);
    return 1;
  }
  std::printf("%s: byte %llu of %llu of %s (file offset %ld) 0x%02x -> 0x%02x\n", path,
              static_cast<unsigned long long>(bytes / 2), static_cast<unsigned long long>(bytes),
              dataset, at, before, before ^ 0xff);
  return 0;
}

int strip(char const* path) {
  hid_t const file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) {
    std::printf("cannot open '%s' for writing\n", path);
    return 1;
  }
  bool good = H5Aexists(file, "checksum_algorithm") <= 0 ||
              H5Adelete(file, "checksum_algorithm") >= 0;
  int removed = 0;
  for (auto const& name : datasets(file)) {
    hid_t const d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    if (d >= 0 && H5Aexists(d, "checksum") > 0) {
      good = good && H5Adelete(d, "checksum") >= 0;
      ++removed;
    }
    if (d >= 0) H5Dclose(d);
  }
  good = H5Fclose(file) >= 0 && good;
  std::printf("%s: %d checksum attributes removed\n", path, removed);
  return good ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::string const cmd = argc > 1 ? argv[1] : "";
  if (cmd == "list" && argc == 3) {
    hid_t const file = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
      std::printf("cannot open '%s'\n", argv[2]);
      return 1;
    }
    for (auto const& name : datasets(file)) std::printf("%s\n", name.c_str());
    H5Fclose(file);
    return 0;
  }
  if (cmd == "flip" && argc == 4) return flip(argv[2], argv[3]);
  if (cmd == "strip" && argc == 3) return strip(argv[2]);
  std::printf("usage: eddy_damage_checkpoint list FILE | flip FILE DATASET | strip FILE\n");
  return 2;
}
