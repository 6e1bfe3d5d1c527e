# meta.json, the text form of events, `mpicast dump` and `mpicast stats`.
mc_add_test(test_meta_roundtrip mc_format)
mc_add_test(test_meta_errors mc_format)
mc_add_test(test_print_golden mc_format)

# The synthetic trace the CLI tests check by hand (not a test by itself).
add_executable(test_stats_mktrace test_stats_mktrace.c)
target_link_libraries(test_stats_mktrace PRIVATE mc_format mc_base)
foreach(mode values text dump truncated exits)
  add_test(NAME test_stats_cli_${mode}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_stats_cli.py
                   ${CMAKE_BINARY_DIR}/bin/mpicast $<TARGET_FILE:test_stats_mktrace>
                   ${CMAKE_CURRENT_SOURCE_DIR}/data ${mode})
endforeach()

# stats: polls and the bytes of collectives with per-rank counts (issue 21)
mc_add_test(test_stats_polls_and_coll_bytes PkgConfig::JANSSON mc_format)
# the main loop: the longest run of identical iterations (issues 24, 27)
mc_add_test(test_stats_main_loop mc_stats mc_test_mem)
target_compile_definitions(test_stats_polls_and_coll_bytes PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_stats_polls_and_coll_bytes mpicast)
# loop-compressed traces expand to the same events (issue 24 item 3)
mc_add_test(test_compress_expands_exactly mc_compress mc_sim mc_platform)
mc_add_test(test_compress_aligned_loops mc_compress)
mc_add_test(test_compress_sizes_mean mc_compress)
# arrays of a communicator's members at many ranks: differences, one copy, chunks released
mc_add_test(test_format_large_vals mc_format)
# predict --iterations: loop-compressed traces sampled and extended (issue 24 item 4)
mc_add_test(test_predict_sampled_loops mc_predict mc_compress)
