# Trace extrapolation (issue 6): synthetic SCAMP examples, and the examples traced at
# small P, extrapolated and compared with real traces at the larger P (label mpi).
mc_add_test(test_extrap_scamp mc_extrap mc_format)
mc_add_test(test_extrap_fold mc_extrap mc_format)
# compute bursts (rule compute=fit) and sizes by model families of P (issue 20)
mc_add_test(test_extrap_fitted_laws mc_extrap mc_format)
# the comparison of the leave-one-out check on in-memory streams (issue 20)
mc_add_test(test_extrap_compare_first_difference mc_extrap mc_test_mem)
# a refusal names the rank, the event and its call site (issue 20)
mc_add_test(test_extrap_refusals_name_sites mc_extrap mc_format)

if(NOT MPICAST_MPI_TESTS OR MPICAST_SANITIZE OR NOT OMPI_FOUND)
  return()
endif()
add_executable(test_extrap_allreduce_loop ${CMAKE_CURRENT_SOURCE_DIR}/test_extrap_allreduce_loop.c)
target_link_libraries(test_extrap_allreduce_loop PRIVATE PkgConfig::OMPI m)
add_test(NAME test_extrap_examples
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_extrap_examples.py
    --mpicast $<TARGET_FILE:mpicast> --examples ${CMAKE_BINARY_DIR}/examples
    --allreduce-loop $<TARGET_FILE:test_extrap_allreduce_loop>)
set_tests_properties(test_extrap_examples PROPERTIES LABELS mpi TIMEOUT 900)
# the same cases with each rank's main loop folded (docs/extrapolation.md, "Large inputs")
add_test(NAME test_extrap_examples_folded
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_extrap_examples.py
    --mpicast $<TARGET_FILE:mpicast> --examples ${CMAKE_BINARY_DIR}/examples
    --allreduce-loop $<TARGET_FILE:test_extrap_allreduce_loop> --fold)
set_tests_properties(test_extrap_examples_folded PROPERTIES LABELS mpi TIMEOUT 900)
# the leave-one-out check refuses a wrong `repeat` rule on the cg_log2 mini-app (issue 20)
if(TARGET example_cg_log2)
  add_test(NAME test_extrap_loo_repeat
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_extrap_loo_repeat.sh $<TARGET_FILE:mpicast>
      ${CMAKE_BINARY_DIR}/examples/cg_log2)
  set_tests_properties(test_extrap_loo_repeat PROPERTIES LABELS mpi TIMEOUT 600)
endif()
# extrapolate, predict --ranks and sweep --ranks each say on stderr when their
# input was folded (issue 26), and stay silent when it was not.
add_test(NAME test_folded_extrapolation_warns
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_folded_extrapolation_warns.sh
                 $<TARGET_FILE:mpicast> $<TARGET_FILE:bench_bigtrace>)
