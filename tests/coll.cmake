# Collective algorithms (src/sim/coll*.c). Built from the sources directly so
# these tests do not depend on the rest of the simulator.
file(GLOB MC_COLL_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/sim/coll*.c)
foreach(name test_coll_schedules_consistent test_coll_known_schedules test_coll_select
             test_coll_rounds_equal_whole_schedule)
  add_executable(${name} ${name}.c ${MC_COLL_SOURCES})
  target_link_libraries(${name} PRIVATE mc_format mc_base)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src
                             ${PROJECT_SOURCE_DIR}/src/sim ${CMAKE_CURRENT_SOURCE_DIR})
  add_test(NAME ${name} COMMAND ${name})
endforeach()

# End-to-end golden replays of collectives (needs the simulator and the
# in-memory source of tests/sim.cmake).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/mem_source.h)
  mc_add_test(test_coll_golden mc_test_mem mc_sim)
endif()
