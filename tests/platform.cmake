# Platform description (src/platform) and the time-independent trace reader
# (src/format/tit.c).
mc_add_test(test_platform_units mc_platform)
mc_add_test(test_platform_load mc_platform)
mc_add_test(test_platform_roundtrip mc_platform)

foreach(t test_tit_pingpong test_tit_collectives test_tit_errors test_tit_garbage)
  mc_add_test(${t} mc_format)
  target_compile_definitions(${t} PRIVATE MC_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
endforeach()
