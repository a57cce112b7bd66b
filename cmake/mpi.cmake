# MPI (Debian's Open MPI, libopenmpi-dev), included by the top-level CMakeLists.txt after nbody_core
# exists. Optional, like the GPU back ends: without it the build runs on one process and says so
# (`nbody --build-info`, build.mpi); `--engine mpi:<engine>` then runs as one rank.
option(NBODY_ENABLE_MPI "Build the MPI-distributed force engines when MPI is found" ON)
set(NBODY_WITH_MPI OFF)
if(NBODY_ENABLE_MPI)
  # The C API (libmpi alone): Open MPI's C++ bindings are deprecated. FindMPI's C component
  # needs the C language.
  enable_language(C)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    target_link_libraries(nbody_core PUBLIC MPI::MPI_C)
    target_compile_definitions(nbody_core PUBLIC NBODY_WITH_MPI=1)
    set(NBODY_WITH_MPI ON)
  endif()
endif()
message(STATUS "nbody-lab: MPI: ${NBODY_WITH_MPI} ${MPI_C_LIBRARIES}")
