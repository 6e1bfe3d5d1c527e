# Tracer safety (issue 9, docs/tracer-safety.md): threads, signals and
# MPI_Abort, killed runs at 1, 2 and 8 ranks, bounded buffers, the tracer's
# own failures (unwritable directory, full disk, no memory).
if(NOT MPICAST_MPI_TESTS OR MPICAST_SANITIZE OR NOT (OMPI_FOUND OR MPICH_FOUND))
  return()
endif()

find_package(Threads REQUIRED)
set(MCS_DIR ${CMAKE_CURRENT_SOURCE_DIR})

function(mc_trace_safety_tests fl mpi)
  foreach(prog trace_threads trace_victim)
    add_executable(${prog}_${fl} mpi/${prog}.c)
    target_link_libraries(${prog}_${fl} PRIVATE ${mpi} Threads::Threads)
    target_compile_options(${prog}_${fl} PRIVATE -g -Wno-stringop-overflow)
  endforeach()
  set(names)
  foreach(np 1 2 8)
    foreach(kind sigkill sigterm segv raise abort)
      set(t test_trace_safety_kill_${kind}_${np}_${fl})
      add_test(NAME ${t} COMMAND bash ${MCS_DIR}/test_trace_safety_kill.sh
               $<TARGET_FILE:mpicast> ${fl} $<TARGET_FILE:trace_victim_${fl}> ${np} ${kind})
      list(APPEND names ${t})
    endforeach()
  endforeach()
  foreach(mode multiple funneled)
    set(t test_trace_safety_threads_${mode}_${fl})
    add_test(NAME ${t} COMMAND python3 ${MCS_DIR}/test_trace_safety_threads.py
             $<TARGET_FILE:mpicast> ${fl} $<TARGET_FILE:trace_threads_${fl}> ${mode})
    list(APPEND names ${t})
  endforeach()
  set_tests_properties(${names} PROPERTIES TIMEOUT 300 RESOURCE_LOCK mpi SKIP_RETURN_CODE 77)
endfunction()

if(OMPI_FOUND)
  mc_trace_safety_tests(ompi PkgConfig::OMPI)
endif()
if(MPICH_FOUND)
  mc_trace_safety_tests(mpich PkgConfig::MPICH)
endif()

# The tracer's own failures: an LD_PRELOAD shim fails its allocations (and
# its writes where a small tmpfs cannot be mounted).
add_library(test_trace_safety_shim SHARED test_trace_safety_shim.c)
target_link_libraries(test_trace_safety_shim PRIVATE ${CMAKE_DL_LIBS})
foreach(fl ompi mpich)
  if((fl STREQUAL ompi AND OMPI_FOUND) OR (fl STREQUAL mpich AND MPICH_FOUND))
    foreach(kind unwritable diskfull nomem)
      add_test(NAME test_trace_safety_fail_${kind}_${fl}
               COMMAND bash ${MCS_DIR}/test_trace_safety_failures.sh $<TARGET_FILE:mpicast> ${fl}
                       $<TARGET_FILE:trace_victim_${fl}>
                       $<TARGET_FILE:test_trace_safety_shim> ${kind})
      set_tests_properties(test_trace_safety_fail_${kind}_${fl} PROPERTIES TIMEOUT 300
                           RESOURCE_LOCK mpi)
    endforeach()
  endif()
endforeach()

# Bounded buffers, incremental flushing.
foreach(fl ompi mpich)
  if((fl STREQUAL ompi AND OMPI_FOUND) OR (fl STREQUAL mpich AND MPICH_FOUND))
    if(fl STREQUAL ompi)
      set(lib mpicast-trace)
    else()
      set(lib mpicast-trace-mpich)
    endif()
    add_test(NAME test_trace_safety_memory_${fl}
             COMMAND bash ${MCS_DIR}/test_trace_safety_memory.sh ${fl}
                     $<TARGET_FILE:trace_victim_${fl}> $<TARGET_FILE:${lib}>)
    set_tests_properties(test_trace_safety_memory_${fl} PROPERTIES TIMEOUT 300 RESOURCE_LOCK mpi)
  endif()
endforeach()
