# Accuracy of real runs (issue 3): the handshake rendezvous protocol
# (network.rendezvous) and the cost of communicator management calls
# (cpu.comm_setup), with golden times computed by hand.
mc_add_test(test_sim_rendezvous_handshake mc_test_mem mc_sim)
mc_add_test(test_sim_commsetup_recorded mc_test_mem mc_sim)
mc_add_test(test_sim_commsetup_tit mc_export mc_sim mc_format)
mc_add_test(test_sim_polling_as_wait mc_test_mem mc_sim)
# polling loops folded at the source replay like the unfolded ones (issue 24 item 2)
mc_add_test(test_poll_fold_replays_like_unfolded mc_test_mem mc_sim mc_stats mc_format)
