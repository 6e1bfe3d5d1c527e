# The source tree's conventions (issue 22, item 5): one include-guard
# spelling for every internal header.
add_test(NAME test_internal_header_guards
         COMMAND env SRC=${PROJECT_SOURCE_DIR}
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/test_internal_header_guards.sh)
