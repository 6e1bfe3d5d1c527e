# Example-based verification of tracing (issue 2): every example of examples/ is traced
# with `mpicast trace` at 1, 2, 4 and 8 ranks under each MPI flavour, and
# tests/examples_check.py checks `mpicast dump` and `mpicast stats --json` against the
# exact per-rank calls, bytes, peers and messages of examples/README.md.
# One test per (example, flavour); label "mpi".
if(NOT MPICAST_MPI_TESTS OR MPICAST_SANITIZE)
  return()
endif()

set(MC_EXAMPLE_TESTS ring halo1d halo2d halo3d cg fft master_worker halo1d_f wavefront cg2d mg mg_f)

# mc_add_example_tests(FLAVOUR TARGET_SUFFIX EXAMPLE_DIR)
function(mc_add_example_tests flavour suffix dir)
  foreach(name ${MC_EXAMPLE_TESTS})
    if(NOT TARGET example_${name}${suffix})
      continue()   # e.g. the Fortran twin without a Fortran compiler
    endif()
    set(twin)
    if(name MATCHES "^(.*)_f$")
      set(twin --twin ${dir}/${CMAKE_MATCH_1})   # counts and output must equal the C twin's
    endif()
    add_test(NAME examples_${name}_${flavour}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/examples_check.py
        --mpicast $<TARGET_FILE:mpicast> --example ${name} --exe ${dir}/${name}
        --flavour ${flavour} --ranks 1,2,4,8 ${twin})
    set_tests_properties(examples_${name}_${flavour} PROPERTIES LABELS mpi TIMEOUT 600)
  endforeach()
endfunction()

if(OMPI_FOUND)
  mc_add_example_tests(openmpi "" ${CMAKE_BINARY_DIR}/examples)
endif()
# OTF2 round trip of communicator calls (Comm_split, Cart_create, Comm_free)
if(OMPI_FOUND AND TARGET example_fft AND TARGET example_halo2d)
  add_test(NAME test_otf2_roundtrip_comms COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_otf2_roundtrip_comms.sh
           $<TARGET_FILE:mpicast> ${CMAKE_BINARY_DIR}/examples/fft ${CMAKE_BINARY_DIR}/examples/halo2d)
  set_tests_properties(test_otf2_roundtrip_comms PROPERTIES LABELS mpi TIMEOUT 300)
endif()
if(MPICH_FOUND)
  mc_add_example_tests(mpich "_mpich" ${CMAKE_BINARY_DIR}/examples/mpich)
endif()
# The tracer of the program's MPI; a launcher of the other MPI refused.
if(OMPI_FOUND AND MPICH_FOUND AND TARGET example_ring AND TARGET example_ring_mpich)
  add_test(NAME test_trace_wrong_mpi COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_trace_wrong_mpi.sh
           $<TARGET_FILE:mpicast> $<TARGET_FILE:example_ring> $<TARGET_FILE:example_ring_mpich>)
  set_tests_properties(test_trace_wrong_mpi PROPERTIES LABELS mpi TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
