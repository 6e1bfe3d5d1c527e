# Simulator tables tuned for 10^5-10^6 ranks (issue 6 benchmark): the
# matching table and the request map against brute-force references.
# The tables alone (as test_sim_queue_release does): no engine needed.
add_executable(test_sim_match_table test_sim_match_table.c ${PROJECT_SOURCE_DIR}/src/sim/match.c
               ${PROJECT_SOURCE_DIR}/src/sim/map.c ${PROJECT_SOURCE_DIR}/src/sim/mem.c)
target_include_directories(test_sim_match_table PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_sim_match_table PRIVATE mc_base)
add_test(NAME test_sim_match_table COMMAND test_sim_match_table)
