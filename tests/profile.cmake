# CPU profiles (issue 23, item 1): the stack-distance analyser and
# `mpicast trace --mode profile` under Valgrind lackey.
mc_add_test(test_profile_stack_distances mc_profile)

# Real runs under Valgrind (slow: lackey traces every access, MPI_Init
# included; a 1-rank run takes about a minute). Open MPI at 1-2 ranks,
# MPICH at 1.
if(NOT MPICAST_MPI_TESTS OR MPICAST_SANITIZE OR NOT OMPI_FOUND)
  return()
endif()
find_program(MC_VALGRIND valgrind)
if(NOT MC_VALGRIND)
  return()
endif()
# -O1 -g: the sweeps stay loops over the array (no vectorised reductions
# that would change the access count), call sites get their file:line.
add_executable(profile_kernel_openmpi mpi/profile_kernel.c)
target_link_libraries(profile_kernel_openmpi PRIVATE PkgConfig::OMPI)
target_compile_options(profile_kernel_openmpi PRIVATE -O1 -g)
set(MC_PROF_RUN ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_profile_run.py)
set(MC_PROF_ARGS --mpicast $<TARGET_FILE:mpicast> --kernel $<TARGET_FILE:profile_kernel_openmpi>
    --kernel-source ${CMAKE_CURRENT_SOURCE_DIR}/mpi/profile_kernel.c)
add_test(NAME test_profile_kernels_match_cachegrind COMMAND ${MC_PROF_RUN} kernels ${MC_PROF_ARGS})
add_test(NAME test_profile_examples_keys_and_instructions
         COMMAND ${MC_PROF_RUN} examples ${MC_PROF_ARGS} --examples ${CMAKE_BINARY_DIR}/examples
         --tracer $<TARGET_FILE:mpicast-trace>)
add_test(NAME test_profile_failed_run_no_profile COMMAND ${MC_PROF_RUN} failed ${MC_PROF_ARGS})
set(MC_PROF_TESTS test_profile_kernels_match_cachegrind
    test_profile_examples_keys_and_instructions test_profile_failed_run_no_profile)
if(MPICH_FOUND)
  add_executable(profile_kernel_mpich mpi/profile_kernel.c)
  target_link_libraries(profile_kernel_mpich PRIVATE PkgConfig::MPICH)
  target_compile_options(profile_kernel_mpich PRIVATE -O1 -g)
  set(MC_PROF_FORTRAN "")
  if(TARGET example_halo1d_f)
    set(MC_PROF_FORTRAN --fortran ${CMAKE_BINARY_DIR}/examples/halo1d_f)
  endif()
  add_test(NAME test_profile_mpich_and_fortran
           COMMAND ${MC_PROF_RUN} other ${MC_PROF_ARGS}
           --kernel-mpich $<TARGET_FILE:profile_kernel_mpich> ${MC_PROF_FORTRAN})
  list(APPEND MC_PROF_TESTS test_profile_mpich_and_fortran)
endif()
# Serial: Valgrind runs are long and CPU-bound on a shared machine.
set_tests_properties(${MC_PROF_TESTS} PROPERTIES LABELS mpi TIMEOUT 1800
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
