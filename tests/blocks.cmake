# Compute data (issue 4, items 3-4): blocks, compute tables, predict --compute,
# token execution.
mc_add_test(test_blocks_table mc_format)

mc_add_test(test_blocks_predict_cli PkgConfig::JANSSON mc_format)
target_compile_definitions(test_blocks_predict_cli PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_blocks_predict_cli mpicast)

# Token execution: the examples traced in wall and token mode give the same
# output and the same calls; test_token_calls covers the rewritten blocking
# calls and spinning on tests (and its Fortran twin, the Fortran entry points);
# test_token_refuse (one-sided) is refused.
if(NOT MPICAST_MPI_TESTS OR MPICAST_SANITIZE)
  return()
endif()
# The Fortran twin of test_token_calls (issue 20 item 4) is compiled by the
# flavour's own wrapper, as the Fortran example is (examples/CMakeLists.txt).
function(mc_token_tests fl mpi suffix exdir fwrapper)
  if(NOT TARGET example_cg${suffix})
    return()
  endif()
  foreach(prog calls refuse)
    add_executable(token_${prog}_${fl} test_token_${prog}.c)
    target_link_libraries(token_${prog}_${fl} PRIVATE ${mpi})
    target_compile_options(token_${prog}_${fl} PRIVATE -g)
  endforeach()
  set(fargs)
  if(fwrapper AND MC_GFORTRAN)
    foreach(prog calls refuse)
      set(fout ${CMAKE_CURRENT_BINARY_DIR}/token_${prog}_f_${fl})
      set(fsrc ${CMAKE_CURRENT_SOURCE_DIR}/test_token_${prog}_f.f90)
      set(fwork ${CMAKE_CURRENT_BINARY_DIR}/token_${prog}_f_${fl}.dir)
      file(MAKE_DIRECTORY ${fwork})
      add_custom_command(OUTPUT ${fout}
        COMMAND ${fwrapper} -O2 -g -Wall -o ${fout} ${fsrc}
        DEPENDS ${fsrc}
        WORKING_DIRECTORY ${fwork}
        COMMENT "Building Fortran test token_${prog}_f_${fl}"
        VERBATIM)
      add_custom_target(token_${prog}_f_${fl} ALL DEPENDS ${fout})
      list(APPEND fargs --${prog}-f ${fout})
    endforeach()
  endif()
  add_test(NAME test_token_examples_${fl}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_token_examples.py
      --mpicast $<TARGET_FILE:mpicast> --flavour ${fl} --examples ${exdir}
      --calls $<TARGET_FILE:token_calls_${fl}> --refuse $<TARGET_FILE:token_refuse_${fl}>
      ${fargs})
  set_tests_properties(test_token_examples_${fl} PROPERTIES LABELS mpi TIMEOUT 900)
endfunction()
if(OMPI_FOUND)
  mc_token_tests(openmpi PkgConfig::OMPI "" ${CMAKE_BINARY_DIR}/examples "${MC_MPIF90_OPENMPI}")
endif()
if(MPICH_FOUND)
  mc_token_tests(mpich PkgConfig::MPICH "_mpich" ${CMAKE_BINARY_DIR}/examples/mpich
    "${MC_MPIF90_MPICH}")
endif()

# A compute table from a -O0 build applied to the trace of a -O2 build (keys
# are file:line, so they match although the site ids differ): the predicted
# computation changes by exactly the ratio of the block times.
find_program(MC_MPICC_OPENMPI mpicc.openmpi)
if(OMPI_FOUND AND MC_MPICC_OPENMPI)
  add_test(NAME test_blocks_swap_O0_O2
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bench/compute_table_swap.py
      --mpicast $<TARGET_FILE:mpicast> --mpicc ${MC_MPICC_OPENMPI}
      --source ${PROJECT_SOURCE_DIR}/examples/cg.c --args "-s 128 -i 10")
  set_tests_properties(test_blocks_swap_O0_O2 PROPERTIES LABELS mpi TIMEOUT 300)
endif()
mc_add_test(test_predict_compute_table_scales PkgConfig::JANSSON mc_format)
target_compile_definitions(test_predict_compute_table_scales PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_predict_compute_table_scales mpicast)
# mpicast validate: measured against predicted (src/predict/validate.c).
mc_add_test(test_validate_exact PkgConfig::JANSSON mc_format)
target_compile_definitions(test_validate_exact PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_validate_exact mpicast)
