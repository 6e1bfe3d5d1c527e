# The PMPI tracer (src/trace) and `mpicast trace`: tiny MPI programs traced
# at 2 ranks under each MPI flavour found, C and Fortran; checks in
# test_trace_check.c and test_trace_run.sh. Not with sanitizers (the tracer
# is not built then: ASan and LD_PRELOAD do not mix).

# The tracer's clock (src/trace/clock.c, no MPI): also under the sanitizers.
add_executable(test_trace_clock test_trace_clock.c ${PROJECT_SOURCE_DIR}/src/trace/clock.c)
target_include_directories(test_trace_clock PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_trace_clock COMMAND test_trace_clock)
set_tests_properties(test_trace_clock PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

if(NOT MPICAST_MPI_TESTS OR MPICAST_SANITIZE OR NOT (OMPI_FOUND OR MPICH_FOUND))
  return()
endif()

add_executable(test_trace_check test_trace_check.c)
target_link_libraries(test_trace_check PRIVATE mc_format mc_base)
target_include_directories(test_trace_check PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                           ${PROJECT_SOURCE_DIR}/src)

add_test(NAME test_trace_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_trace_cli.sh
         $<TARGET_FILE:mpicast>)

find_program(MPICAST_MPIF90_OMPI mpif90.openmpi)
find_program(MPICAST_MPIF90_MPICH mpif90.mpich)
set(MCT_RUN bash ${CMAKE_CURRENT_SOURCE_DIR}/test_trace_run.sh)

function(mc_trace_tests fl mpi fc)
  foreach(prog trace_known trace_spin trace_all trace_poll)
    add_executable(${prog}_${fl} mpi/${prog}.c)
    target_link_libraries(${prog}_${fl} PRIVATE ${mpi})
    # MPI_STATUSES_IGNORE, MPI_UNWEIGHTED are small constants cast to
    # pointers: gcc takes them for empty arrays.
    # -g: the tests check that call sites get their file:line.
    target_compile_options(${prog}_${fl} PRIVATE -g -Wno-stringop-overflow
                           -Wno-stringop-overread)
  endforeach()
  set(args $<TARGET_FILE:mpicast> $<TARGET_FILE:test_trace_check> ${fl})
  add_test(NAME test_trace_known_c_${fl} COMMAND ${MCT_RUN} known ${args}
           $<TARGET_FILE:trace_known_${fl}>)
  add_test(NAME test_trace_exit_code_${fl} COMMAND ${MCT_RUN} exit ${args}
           $<TARGET_FILE:trace_known_${fl}>)
  add_test(NAME test_trace_sigkill_prefix_${fl} COMMAND ${MCT_RUN} sigkill ${args}
           $<TARGET_FILE:trace_spin_${fl}>)
  add_test(NAME test_trace_polls_folded_${fl} COMMAND ${MCT_RUN} poll ${args}
           $<TARGET_FILE:trace_poll_${fl}>)
  add_test(NAME test_trace_compress_thread_same_${fl} COMMAND ${MCT_RUN} thread ${args}
           $<TARGET_FILE:trace_known_${fl}>)
  add_test(NAME test_trace_all_calls_2_${fl} COMMAND ${MCT_RUN} all ${args}
           $<TARGET_FILE:trace_all_${fl}> 2)
  add_test(NAME test_trace_all_calls_4_${fl} COMMAND ${MCT_RUN} all ${args}
           $<TARGET_FILE:trace_all_${fl}> 4)
  set(names test_trace_known_c_${fl} test_trace_exit_code_${fl} test_trace_sigkill_prefix_${fl}
      test_trace_polls_folded_${fl} test_trace_compress_thread_same_${fl}
      test_trace_all_calls_2_${fl} test_trace_all_calls_4_${fl})
  # Fortran twins: mpif.h (trace_known.f90) and mpi_f08 (trace_known_f08.f90),
  # compiled by the flavour's own wrapper in their own directory (module files).
  if(fc)
    foreach(src trace_known trace_known_f08 trace_poll)
      set(mode known)
      if(src STREQUAL trace_known)
        set(bin trace_known_f_${fl})
        set(test test_trace_known_fortran_${fl})
      elseif(src STREQUAL trace_poll)
        set(bin trace_poll_f_${fl})
        set(test test_trace_polls_folded_fortran_${fl})
        set(mode poll_f)
      else()
        set(bin trace_known_f08_${fl})
        set(test test_trace_known_fortran_f08_${fl})
      endif()
      set(fdir ${CMAKE_CURRENT_BINARY_DIR}/${bin}.dir)
      file(MAKE_DIRECTORY ${fdir})
      add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${bin}
        COMMAND ${fc} -g -o ${CMAKE_CURRENT_BINARY_DIR}/${bin}
                ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${src}.f90
        DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${src}.f90
        WORKING_DIRECTORY ${fdir}
        COMMENT "Building the Fortran test program ${bin}" VERBATIM)
      add_custom_target(${bin}_bin ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/${bin})
      add_test(NAME ${test} COMMAND ${MCT_RUN} ${mode} ${args} ${CMAKE_CURRENT_BINARY_DIR}/${bin})
      list(APPEND names ${test})
    endforeach()
  endif()
  set_tests_properties(${names} PROPERTIES TIMEOUT 150 RESOURCE_LOCK mpi)
endfunction()

if(OMPI_FOUND)
  mc_trace_tests(ompi PkgConfig::OMPI "${MPICAST_MPIF90_OMPI}")
  add_test(NAME test_trace_cpu_mode_ompi COMMAND ${MCT_RUN} cpu $<TARGET_FILE:mpicast>
           $<TARGET_FILE:test_trace_check> ompi $<TARGET_FILE:trace_known_ompi>)
  set_tests_properties(test_trace_cpu_mode_ompi PROPERTIES TIMEOUT 150 RESOURCE_LOCK mpi)
endif()
if(MPICH_FOUND)
  mc_trace_tests(mpich PkgConfig::MPICH "${MPICAST_MPIF90_MPICH}")
endif()

# C++ call sites reach meta.json demangled (issue 21 item 6), built by the
# flavour's own wrapper (-O0: the functions stay functions).
find_program(MPICAST_MPICXX_OMPI mpicxx.openmpi)
if(OMPI_FOUND AND MPICAST_MPICXX_OMPI)
  set(cxxbin ${CMAKE_CURRENT_BINARY_DIR}/trace_cxx_ompi)
  add_custom_command(OUTPUT ${cxxbin}
    COMMAND ${MPICAST_MPICXX_OMPI} -g -O0 -o ${cxxbin} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/trace_cxx.cpp
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mpi/trace_cxx.cpp
    COMMENT "Building the C++ test program trace_cxx_ompi" VERBATIM)
  add_custom_target(trace_cxx_ompi_bin ALL DEPENDS ${cxxbin})
  add_test(NAME test_trace_cxx_sites_demangled_ompi COMMAND ${MCT_RUN} cxx $<TARGET_FILE:mpicast>
           $<TARGET_FILE:test_trace_check> ompi ${cxxbin})
  set_tests_properties(test_trace_cxx_sites_demangled_ompi PROPERTIES TIMEOUT 150 RESOURCE_LOCK mpi)
endif()

# The clock source: TSC by default where safe, MPICAST_CLOCK=monotonic.
foreach(fl ompi mpich)
  if((fl STREQUAL ompi AND OMPI_FOUND) OR (fl STREQUAL mpich AND MPICH_FOUND))
    add_test(NAME test_trace_clock_source_${fl}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_trace_clock_run.sh
                     $<TARGET_FILE:mpicast> $<TARGET_FILE:test_trace_check> ${fl}
                     $<TARGET_FILE:trace_known_${fl}>)
    set_tests_properties(test_trace_clock_source_${fl} PROPERTIES TIMEOUT 300 RESOURCE_LOCK mpi)
  endif()
endforeach()

# Shared request handles (MPI_PROC_NULL) keep one id per request.
foreach(fl ompi mpich)
  if((fl STREQUAL ompi AND OMPI_FOUND) OR (fl STREQUAL mpich AND MPICH_FOUND))
    if(fl STREQUAL ompi)
      set(mpi PkgConfig::OMPI)
    else()
      set(mpi PkgConfig::MPICH)
    endif()
    add_executable(trace_procnull_${fl} mpi/trace_procnull.c)
    target_link_libraries(trace_procnull_${fl} PRIVATE ${mpi})
    target_compile_options(trace_procnull_${fl} PRIVATE -Wno-stringop-overflow)
    add_test(NAME test_trace_shared_handles_${fl}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_trace_shared_handles.sh
                     $<TARGET_FILE:mpicast> ${fl} $<TARGET_FILE:trace_procnull_${fl}>)
    set_tests_properties(test_trace_shared_handles_${fl} PROPERTIES TIMEOUT 120 RESOURCE_LOCK mpi)
  endif()
endforeach()

# Safe writing (issue 26): non-empty -o, --force, planted symlinks, modes,
# a command with no MPI program, a rank that forks, a signal to the wrapper.
if(OMPI_FOUND)
  add_executable(trace_fork_ompi mpi/trace_fork.c)
  target_link_libraries(trace_fork_ompi PRIVATE PkgConfig::OMPI)
  add_test(NAME test_trace_safe_writing_ompi
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_trace_safety.sh
                   $<TARGET_FILE:mpicast> $<TARGET_FILE:test_trace_check>
                   $<TARGET_FILE:trace_known_ompi> $<TARGET_FILE:trace_fork_ompi>
                   $<TARGET_FILE:trace_spin_ompi>)
  set_tests_properties(test_trace_safe_writing_ompi PROPERTIES TIMEOUT 300 RESOURCE_LOCK mpi)
endif()
