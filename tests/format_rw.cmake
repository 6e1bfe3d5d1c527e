# Rank file writer/reader and the trace-directory source.
mc_add_test(test_rank_file_roundtrip mc_format)
mc_add_test(test_rank_file_truncated_prefix mc_format)
mc_add_test(test_rank_file_corruption_never_crashes mc_format)
mc_add_test(test_trace_source_resolves_wildcards mc_format)
mc_add_test(test_reader_memory_budget mc_format)
# the compressor thread writes the same bytes (issue 24 item 2)
mc_add_test(test_writer_thread_same_bytes mc_format)
mc_add_test(test_writer_fold_polls mc_format)
