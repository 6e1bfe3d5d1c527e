# The one option grammar of every subcommand (issue 22, item 9): the parser
# on a table, and both spellings of every value option of every command.
add_executable(test_option_grammar test_option_grammar.c ${PROJECT_SOURCE_DIR}/src/cli/opts.c)
target_link_libraries(test_option_grammar PRIVATE mc_base)
target_include_directories(test_option_grammar PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/src/cli ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_option_grammar COMMAND test_option_grammar)
add_test(NAME test_option_spellings
         COMMAND env MPICAST=$<TARGET_FILE:mpicast> MKTRACE=$<TARGET_FILE:test_export_mktrace>
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/test_option_spellings.sh)
