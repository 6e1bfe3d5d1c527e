# The command line's terminal manners (issue 8, item 6): docs/commands.md
# generated from every --help (with an example each), and the progress
# lines of sweep and extrapolate (predict's: tests/export.cmake).
add_test(NAME test_command_docs
         COMMAND env MPICAST=$<TARGET_FILE:mpicast> SRC=${PROJECT_SOURCE_DIR}
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/test_command_docs.sh)
add_test(NAME test_progress_sweep_extrapolate
         COMMAND env MPICAST=$<TARGET_FILE:mpicast> MKTRACE=$<TARGET_FILE:test_export_mktrace>
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/test_progress_sweep_extrapolate.sh)
# No script(1) for a pty: skipped (77), not passed.
set_tests_properties(test_progress_sweep_extrapolate PROPERTIES SKIP_RETURN_CODE 77)
