# Platform description (src/platform) and the time-independent trace reader
# (src/format/tit.c).
mc_add_test(test_platform_units mc_platform)
mc_add_test(test_platform_load mc_platform)
mc_add_test(test_platform_roundtrip mc_platform)

foreach(t test_tit_pingpong test_tit_collectives test_tit_errors test_tit_garbage
          test_tit_fast_lines)
  mc_add_test(${t} mc_format)
  target_compile_definitions(${t} PRIVATE MC_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
endforeach()

# A key the chosen network model ignores is named in a warning (issue 21).
mc_add_test(test_net_ignored_key_warning mc_net mc_platform mc_format)
target_compile_definitions(test_net_ignored_key_warning PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_net_ignored_key_warning mpicast)
mc_add_test(test_platform_origin mc_platform mc_format)
mc_add_test(test_error_long_message_keeps_reason mc_base)
# a signal leaves no temporary output: files, directories filled aside, imports (issue 26)
mc_add_test(test_signal_removes_temporaries mc_base)
