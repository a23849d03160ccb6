# Spack recipe for Eddy (Spack 0.23 or later, including 1.x). To use it, put it in a Spack
# package repository of your own as packages/eddy/package.py:
#
#   spack repo create ~/eddy-spack eddy           # once
#   cp scripts/packaging/package.py <that repository's packages folder>/eddy/package.py
#   spack repo add ~/eddy-spack
#   spack install eddy                            # host build (Kokkos Serial/OpenMP)
#   spack install eddy +cuda cuda_arch=90         # H100/H200
#   spack install --test=root eddy +tests         # and run the test suite (ctest -LE slow)
#
# or build a checkout in place: `spack dev-build -d /path/to/eddy eddy@main`.
# docs/building.md describes the options this recipe sets.

from spack.package import *

try:  # Spack 1.x: the build systems live in the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
except ImportError:  # Spack 0.x: spack.package provides them
    pass


class Eddy(CMakePackage, CudaPackage):
    """Eddy: particles (neighbour lists, Lennard-Jones molecular dynamics), atomic reductions and
    incompressible Navier-Stokes on staggered grids, on CPUs and GPUs through Kokkos and over MPI
    ranks, run from YAML decks."""

    # Eddy has no public repository or home page yet: set `git` (and `homepage`) to them once it
    # has, or build a checkout with `spack dev-build` as above.
    git = "https://example.invalid/eddy.git"

    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("tests", default=False, description="Build the test suite (EDDY_ENABLE_TESTS)")
    variant("perf", default=False, when="+tests",
            description="Build the benchmarks in tests/perf (EDDY_ENABLE_PERF)")
    variant("nccl", default=True, when="+cuda",
            description="NCCL transport between GPUs (EDDY_ENABLE_NCCL)")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.21:", type="build")

    # Kokkos 3.4 to 4.x (Kokkos 5 requires C++20; Eddy is C++17). The GPU build takes a Kokkos
    # 4.x with CUDA for the same architecture, compiled through nvcc_wrapper.
    depends_on("kokkos@3.4:4")
    depends_on("kokkos@4:4 +cuda +wrapper", when="+cuda")
    depends_on("kokkos ~cuda", when="~cuda")
    depends_on("kokkos-nvcc-wrapper", type="build", when="+cuda")
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    # Kokkos compiles for one architecture, so Eddy does too.
    conflicts("cuda_arch=none", when="+cuda", msg="Eddy's CUDA build needs one cuda_arch")

    depends_on("mpi")
    depends_on("hdf5@1.10: +mpi")
    depends_on("yaml-cpp@0.7:")
    # The fft pressure solve: FFTW on CPU builds, cuFFT (the CUDA toolkit) on GPU builds.
    depends_on("fftw@3 precision=double", when="~cuda")
    depends_on("cuda", when="+cuda")
    depends_on("nccl", when="+nccl")
    depends_on("googletest@1.10:", type=("build", "link"), when="+tests")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("EDDY_ENABLE_TESTS", "tests"),
            self.define("EDDY_ENABLE_PERF", spec.satisfies("+perf")),
            self.define("EDDY_ENABLE_NCCL", "ON" if spec.satisfies("+nccl") else "OFF"),
            self.define("EDDY_PREFER_PARALLEL_HDF5", True),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("HDF5_ROOT", spec["hdf5"].prefix),
            self.define("MPI_CXX_COMPILER", spec["mpi"].mpicxx),
        ]
        if spec.satisfies("+cuda"):
            nvcc_wrapper = join_path(spec["kokkos-nvcc-wrapper"].prefix.bin, "nvcc_wrapper")
            args.append(self.define("CMAKE_CXX_COMPILER", nvcc_wrapper))
            cuda_arch = spec.variants["cuda_arch"].value
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(cuda_arch)))
        return args

    def setup_build_environment(self, env):
        # core/CMakeLists.txt looks for NCCL under $NCCL_ROOT.
        if self.spec.satisfies("+nccl"):
            env.set("NCCL_ROOT", self.spec["nccl"].prefix)

    def check(self):
        # The suite without the `slow` label, one test at a time (MPI tests oversubscribe).
        if self.spec.satisfies("~tests"):
            return
        ctest = Executable(join_path(self.spec["cmake"].prefix.bin, "ctest"))
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "-LE", "slow", "-j", "1")
