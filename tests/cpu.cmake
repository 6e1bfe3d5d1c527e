# The processor model (issue 23): CPU profiles, misses from reuse distances,
# the EXCIT burst time, predict/sweep/blocks --profile.
mc_add_test(test_cpu_predict_hand PkgConfig::JANSSON mc_format)
target_compile_definitions(test_cpu_predict_hand PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_cpu_predict_hand mpicast)
mc_add_test(test_cpu_profile_bad_refused mc_cpu mc_format)
target_compile_definitions(test_cpu_profile_bad_refused PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_cpu_profile_bad_refused mpicast)
mc_add_test(test_cpu_misses_match_lru mc_cpu mc_format)
mc_add_test(test_cpu_sweep_knee PkgConfig::JANSSON mc_format)
target_compile_definitions(test_cpu_sweep_knee PRIVATE MPICAST_BIN="$<TARGET_FILE:mpicast>")
add_dependencies(test_cpu_sweep_knee mpicast)
mc_add_test(test_cpu_bench_calibration mc_benchfit mc_platform)
