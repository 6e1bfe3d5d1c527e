# topo speed passes (issue 5, session 3): every result identical to the bit.
mc_add_test(test_topo_bitexact mc_topo_case m)
# network.sharing=bottleneck (session 5) and route (session 9): near exact, pinned like the above.
mc_add_test(test_topo_sharing_near_exact mc_topo_case m)
# The sharing solver alone (topo_solver.h) on hand-solved systems (issue 22).
mc_add_test(test_topo_sharing_solver mc_net m)
