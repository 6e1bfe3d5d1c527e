# Network model topo, sweeps and balance points (issue 5).
mc_add_test(test_topo_golden mc_test_mem mc_sim mc_net m)
mc_add_test(test_topo_equals_loggp mc_test_mem mc_sim mc_net m)
# mpicast sweep end to end (topology order, formats, balance points, errors)
add_test(NAME test_sweep_cli
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep_cli.py
          ${CMAKE_BINARY_DIR}/bin/mpicast)
# mpicast-sweep-mpi at 2 ranks prints what mpicast sweep prints
if(MPICAST_MPI_TESTS AND TARGET mpicast-sweep-mpi)
  add_test(NAME test_sweep_mpi_same_table
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep_cli.py
            ${CMAKE_BINARY_DIR}/bin/mpicast $<TARGET_FILE:mpicast-sweep-mpi>
            "mpirun --oversubscribe")
  set_tests_properties(test_sweep_mpi_same_table PROPERTIES
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1"
    TIMEOUT 300)
endif()
