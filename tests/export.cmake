# Imports and exports (src/export): OTF2, SimGrid time-independent text,
# Chrome trace-event JSON, gnuplot plots, the HTML report.
add_executable(test_export_mktrace test_export_mktrace.c)
target_link_libraries(test_export_mktrace PRIVATE mc_format mc_base)

mc_add_test(test_otf2_scorep_reference mc_export)
# an archive open twice is imported once (no fork beside a thread: CI hang on 65ac9e5)
add_test(NAME test_imported_input_imported_once COMMAND test_otf2_scorep_reference shared)
# wrapped collective sizes refused by export otf2|tit (issue 26 item 4)
mc_add_test(test_export_sizes_never_wrap mc_export mc_format)

set(MCX_ENV MPICAST=$<TARGET_FILE:mpicast> MKTRACE=$<TARGET_FILE:test_export_mktrace>
    TESTS=${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_export_tit_predict
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_export_tit_predict.sh)
add_test(NAME test_export_chrome
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_export_chrome.sh)
add_test(NAME test_otf2_roundtrip
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_otf2_roundtrip.sh)
# A corrupt anchor file makes the OTF2 library ask for huge allocations; under
# ASan that must fail like malloc does (NULL), not abort the process.
add_test(NAME test_otf2_corrupt
         COMMAND env ${MCX_ENV} ASAN_OPTIONS=allocator_may_return_null=1
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/test_otf2_corrupt.sh)
add_test(NAME test_export_progress
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_export_progress.sh)
add_test(NAME test_export_plots
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_export_plots.sh)
add_test(NAME test_report_chromium
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_report_chromium.sh)
# A test that finds a tool missing prints why and exits 77: skipped, not passed.
set_tests_properties(test_export_tit_predict test_otf2_roundtrip test_export_plots
                     test_report_chromium test_export_progress PROPERTIES SKIP_RETURN_CODE 77)
# Every subcommand reads every input kind (the input registry, input.h).
add_test(NAME test_input_every_command
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_input_every_command.sh)
# --opt=value is --opt value for every subcommand (src/cli/main.c).
add_test(NAME test_cli_opt_equals
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_opt_equals.sh)
# The report's timeline covers the whole run at any size (aggregated past
# 20,000 slices, and said so): src/export/tl_view.c.
add_test(NAME test_report_timeline_whole_run
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_report_timeline_whole_run.sh)
# Outputs over inputs, symlinks at the output, non-empty output directories.
add_test(NAME test_output_safety
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_output_safety.sh)
# FIFO and device inputs refused, rank files checked against their names.
add_test(NAME test_input_safety
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_input_safety.sh)
# report shows stats' figures and fails on an unreadable input (src/stats).
add_test(NAME test_report_same_figures
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_report_same_figures.sh)
# More rank files than the process may open (ulimit -n 256, 1,000 ranks):
# pooled readers (src/format/reader.c, tit.c).
add_test(NAME test_rank_files_past_open_limit
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_files_past_open_limit.sh)
# MPICAST_* variables checked before any command (include/mpicast/env.h).
add_test(NAME test_env_checked
         COMMAND env ${MCX_ENV} bash ${CMAKE_CURRENT_SOURCE_DIR}/test_env_checked.sh)
# A 2*10^7-event trace through report, export chrome --window and export otf2
# under a 1 GiB address-space limit (issue 21 item 3; not under the sanitizers,
# whose shadow memory needs more address space than that).
if(NOT MPICAST_SANITIZE)
  add_test(NAME test_commands_bounded
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_commands_bounded.sh
                   $<TARGET_FILE:mpicast> $<TARGET_FILE:bench_bigtrace>)
  set_tests_properties(test_commands_bounded PROPERTIES TIMEOUT 600)
endif()
