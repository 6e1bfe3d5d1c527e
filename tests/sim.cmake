# Replay simulator and network model tests (issue 3). mem_source is an
# in-memory event source for building golden traces in C.
add_library(mc_test_mem STATIC ${CMAKE_CURRENT_SOURCE_DIR}/mem_source.c)
target_include_directories(mc_test_mem PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(mc_test_mem PUBLIC mc_sim mc_platform mc_format mc_base)

mc_add_test(test_net_loggp mc_net mc_platform)
mc_add_test(test_net_prices_by_leg mc_net mc_platform)
mc_add_test(test_sim_p2p_golden mc_test_mem mc_sim)
mc_add_test(test_sim_free_network mc_test_mem mc_sim)
mc_add_test(test_sim_free_network_bounded mc_test_mem mc_sim)
mc_add_test(test_sim_free_sync_collectives mc_test_mem mc_sim)
target_include_directories(test_sim_free_sync_collectives PRIVATE ${PROJECT_SOURCE_DIR}/src)
mc_add_test(test_sim_measured_coll_timing mc_test_mem mc_sim)
mc_add_test(test_sim_errors mc_test_mem mc_sim)
mc_add_test(test_sim_accounting mc_test_mem mc_sim)
mc_add_test(test_sim_garbage_never_crashes mc_test_mem mc_sim)

# End to end through the CLI (time-independent text traces written by the test).
mc_add_test(test_sim_predict_cli PkgConfig::JANSSON m)
target_compile_definitions(test_sim_predict_cli PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_sim_predict_cli mpicast)

# Issue 9: bad input never hangs, Ctrl-C gives a partial result.
mc_add_test(test_sim_stuck_report_linear mc_test_mem mc_sim)
set_tests_properties(test_sim_stuck_report_linear PROPERTIES TIMEOUT 120)
mc_add_test(test_sim_interrupt_partial mc_test_mem mc_sim)
add_test(NAME test_predict_interrupt
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_predict_interrupt.py
                 $<TARGET_FILE:mpicast>)
set_tests_properties(test_predict_interrupt PROPERTIES TIMEOUT 300)
mc_add_test(test_net_check_owns_names mc_net mc_platform)
add_test(NAME test_predict_jobs_same_result
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_predict_jobs_same_result.sh
                 $<TARGET_FILE:mpicast> ${CMAKE_CURRENT_SOURCE_DIR}/bad)
# The stats module counts exactly or refuses (src/stats).
mc_add_test(test_stats_exact_totals mc_test_mem mc_stats)
