# mpicast model / scaling (issue 7): model families, selection, inputs, the
# processing-time model, and the two subcommands end to end.
mc_add_test(test_model_families mc_model)
mc_add_test(test_model_normal_form mc_model)
mc_add_test(test_model_inputs mc_model)
target_compile_definitions(test_model_inputs PRIVATE MODEL_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/model")
mc_add_test(test_scaling_recover mc_model)
# --extrap-json: Extra-P's JSON input of a known CSV, parsed back (issue 25 item 4)
mc_add_test(test_model_extrap_json mc_model)
target_compile_definitions(test_model_extrap_json PRIVATE MODEL_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/model")
# ... and as Extra-P's JSON reader requires it, from the command line
add_test(NAME test_model_extrap_json_cli
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_model_extrap_json_cli.py
          ${CMAKE_BINARY_DIR}/bin/mpicast ${CMAKE_CURRENT_SOURCE_DIR}/data/model/calls.csv)
# scaling input from traces with MPI_Pcontrol markers (synthetic rank files)
mc_add_test(test_scaling_pcontrol mc_model mc_format)
add_test(NAME test_model_cli
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/cli_test.py
          ${CMAKE_BINARY_DIR}/bin/mpicast ${CMAKE_CURRENT_SOURCE_DIR}/data/model
          $<TARGET_FILE:test_scaling_pcontrol>)
# Issue 7's end-to-end figure: the examples' call counts traced at p = 1..8
# predict those traced at p = 16 and 32 (Open MPI, oversubscribed; ~15 s).
if(MPICAST_MPI_TESTS AND OMPI_FOUND AND NOT MPICAST_SANITIZE)
  add_test(NAME test_model_examples
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/examples_test.py
            ${CMAKE_BINARY_DIR}/bin/mpicast ${CMAKE_BINARY_DIR}/examples)
  set_tests_properties(test_model_examples PROPERTIES TIMEOUT 900)
  # per-iteration models from the main loop stats finds (issue 27 item 3)
  add_test(NAME test_model_per_iteration_from_main_loop
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/loop_iters_test.py
            ${CMAKE_BINARY_DIR}/bin/mpicast ${CMAKE_BINARY_DIR}/examples)
  set_tests_properties(test_model_per_iteration_from_main_loop PROPERTIES LABELS mpi
                       RESOURCE_LOCK mpi TIMEOUT 300)
endif()
# scaling from real traces: a small MPI program marking its parallel part
# with MPI_Pcontrol, traced at 2 and 4 ranks (Open MPI, oversubscribed; ~15 s).
if(MPICAST_MPI_TESTS AND OMPI_FOUND AND NOT MPICAST_SANITIZE)
  add_executable(scaling_pcontrol_prog data/model/pcontrol_prog.c)
  target_link_libraries(scaling_pcontrol_prog PRIVATE PkgConfig::OMPI)
  add_test(NAME test_scaling_traced
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/pcontrol_test.py
            ${CMAKE_BINARY_DIR}/bin/mpicast $<TARGET_FILE:scaling_pcontrol_prog>)
  set_tests_properties(test_scaling_traced PROPERTIES LABELS mpi RESOURCE_LOCK mpi TIMEOUT 300)
endif()
# selection with few points, zero as a value, iters and --per-iteration (issue 27)
add_test(NAME test_model_selection
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/selection_test.py
          ${CMAKE_BINARY_DIR}/bin/mpicast)
# TAU profiles as input and --extrap-out (issue 25 item 4)
add_test(NAME test_model_tau
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/tau_test.py
          ${CMAKE_BINARY_DIR}/bin/mpicast ${CMAKE_CURRENT_SOURCE_DIR}/data/model/tau)
# --per-iteration: per run or per iteration, whichever explains the runs better (issue 27)
add_test(NAME test_model_per_iteration_normalised
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/normalised_test.py
          ${CMAKE_BINARY_DIR}/bin/mpicast)
# --per-iteration with the calls stats counted inside the main loop (issue 27)
add_test(NAME test_model_per_iteration_measured_split
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/loop_split_test.py
          ${CMAKE_BINARY_DIR}/bin/mpicast)
# the grid-split family from the runs' process grids (issue 27)
add_test(NAME test_model_grid_split_family
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/grid_test.py
          ${CMAKE_BINARY_DIR}/bin/mpicast)
