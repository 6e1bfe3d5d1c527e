# CPU profiles (issue 23, item 1): the stack-distance analyser and
# `mpicast trace --mode profile` under Valgrind lackey.
mc_add_test(test_profile_stack_distances mc_profile)
