# Broken inputs (tests/bad, issue 9): each gets its one-line error and exit 1.
add_test(NAME test_bad_inputs
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_bad_inputs.py
          $<TARGET_FILE:mpicast> ${CMAKE_CURRENT_SOURCE_DIR}/bad)
# The generator of the broken trace directories must keep compiling.
add_executable(bad_mktraces ${CMAKE_CURRENT_SOURCE_DIR}/bad/mkbad.c)
target_include_directories(bad_mktraces PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(bad_mktraces PRIVATE mc_format mc_base)
# The simulator's livelock guard (no progress in simulated time for N events).
mc_add_test(test_sim_livelock_guard mc_test_mem mc_sim)
# Findings of the fuzzers that are not bad inputs of a command.
mc_add_test(test_fuzz_regressions mc_platform)
