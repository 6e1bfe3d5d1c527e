# topo speed passes (issue 5, session 3): every result identical to the bit.
mc_add_test(test_topo_bitexact mc_topo_case m)
