# DUMPI in and out (issue 25): the reference traces of tests/data/dumpi/ (SST's
# libdumpi under Open MPI, with dumpi2ascii's text) imported and compared with
# the text's times and with `mpicast trace` of the same example and arguments.
set(MC_DUMPI_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/dumpi)
set(MC_DUMPI_FIXTURES ring cg fft halo2d halo3d master_worker)
foreach(name ${MC_DUMPI_FIXTURES})
  add_test(NAME test_dumpi_import_times_${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_dumpi_check.py
      --mpicast $<TARGET_FILE:mpicast> times ${MC_DUMPI_DATA}/${name})
  add_test(NAME test_dumpi_export_roundtrip_${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_dumpi_export_check.py
      --mpicast $<TARGET_FILE:mpicast> roundtrip ${MC_DUMPI_DATA}/${name})
endforeach()
# The exported bytes against the fixture's own (ring: the same calls, call by call).
add_test(NAME test_dumpi_export_bytes_follow_fixture
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_dumpi_export_check.py
    --mpicast $<TARGET_FILE:mpicast> bytes ${MC_DUMPI_DATA}/ring)
# Pseudo-traces to DUMPI (issue 25 item 2): extrapolate --format dumpi at P = 64 and
# 4096 reads back as extrapolate to mpicast format (and as export + import dumpi of
# it); cg (1-D, point-to-point) and fft (Comm_split); the outputs' refusals.
foreach(name cg fft)
  add_test(NAME test_dumpi_extrapolate_stream_${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_dumpi_extrapolate_check.py
      --mpicast $<TARGET_FILE:mpicast> stream ${MC_DUMPI_DATA}/${name} 64 4096)
  set_tests_properties(test_dumpi_extrapolate_stream_${name} PROPERTIES TIMEOUT 600)
endforeach()
add_test(NAME test_dumpi_extrapolate_refusals
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_dumpi_extrapolate_check.py
    --mpicast $<TARGET_FILE:mpicast> --tit ${CMAKE_CURRENT_SOURCE_DIR}/data/tit/coll.txt
    refuse ${MC_DUMPI_DATA}/fft)

if(NOT MPICAST_MPI_TESTS OR MPICAST_SANITIZE OR NOT TARGET example_ring)
  return()
endif()
# The fixtures' commands (tests/data/dumpi/README.md).
set(MC_DUMPI_RUN_ring 3 -s 1024 -i 10)
set(MC_DUMPI_RUN_cg 4 -s 64 -i 10)
set(MC_DUMPI_RUN_fft 4 -s 64 -i 5)
set(MC_DUMPI_RUN_halo2d 4 -s 32 -i 20)
set(MC_DUMPI_RUN_halo3d 8 -s 8 -i 5)
set(MC_DUMPI_RUN_master_worker 3 -s 256 -i 20)
foreach(name ${MC_DUMPI_FIXTURES})
  list(GET MC_DUMPI_RUN_${name} 0 np)
  list(SUBLIST MC_DUMPI_RUN_${name} 1 -1 args)
  add_test(NAME test_dumpi_import_equals_trace_${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_dumpi_check.py
      --mpicast $<TARGET_FILE:mpicast> trace ${MC_DUMPI_DATA}/${name}
      --exe $<TARGET_FILE:example_${name}> --np ${np} -- ${args})
  set_tests_properties(test_dumpi_import_equals_trace_${name} PROPERTIES LABELS mpi TIMEOUT 300)
endforeach()
