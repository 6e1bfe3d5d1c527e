# Simulator internals tuned for speed (issue 3 benchmarks): the event queue
# must keep the exact (time, insertion) order the golden tests rely on.
mc_add_test(test_sim_queue_order mc_sim)
# The same with emptied buckets released at 64 entries instead of 65536, so
# that the release path runs on small queues too.
add_executable(test_sim_queue_release test_sim_queue_order.c ${PROJECT_SOURCE_DIR}/src/sim/queue.c
               ${PROJECT_SOURCE_DIR}/src/sim/mem.c)
target_compile_definitions(test_sim_queue_release PRIVATE BUCKET_KEEP=64)
target_include_directories(test_sim_queue_release PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_sim_queue_release PRIVATE mc_base)
add_test(NAME test_sim_queue_release COMMAND test_sim_queue_release)
# The queue's memory follows the entries it holds (issue 9: 10^9-event replays
# in bounded memory).
mc_add_test(test_sim_queue_bounded mc_sim)
# The run loop's prefetches are in the binary (GCC dropped them silently once).
add_test(NAME test_sim_prefetch_in_binary
         COMMAND env MPICAST=$<TARGET_FILE:mpicast>
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/test_sim_prefetch_in_binary.sh)
set_tests_properties(test_sim_prefetch_in_binary PROPERTIES SKIP_RETURN_CODE 77)
# Fetching ahead is a hint: forced on and off, every result is the same.
mc_add_test(test_sim_prefetch_same_results mc_test_mem mc_sim)
