# mpicast model / scaling (issue 7): model families, selection, inputs, the
# processing-time model, and the two subcommands end to end.
mc_add_test(test_model_families mc_model)
mc_add_test(test_model_normal_form mc_model)
mc_add_test(test_model_inputs mc_model)
target_compile_definitions(test_model_inputs PRIVATE MODEL_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/model")
mc_add_test(test_scaling_recover mc_model)
add_test(NAME test_model_cli
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/cli_test.py
          ${CMAKE_BINARY_DIR}/bin/mpicast ${CMAKE_CURRENT_SOURCE_DIR}/data/model)
# Issue 7's end-to-end figure: the examples' call counts traced at p = 1..8
# predict those traced at p = 16 and 32 (Open MPI, oversubscribed; ~15 s).
if(MPICAST_MPI_TESTS AND OMPI_FOUND AND NOT MPICAST_SANITIZE)
  add_test(NAME test_model_examples
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/data/model/examples_test.py
            ${CMAKE_BINARY_DIR}/bin/mpicast ${CMAKE_BINARY_DIR}/examples)
  set_tests_properties(test_model_examples PROPERTIES TIMEOUT 900)
endif()
