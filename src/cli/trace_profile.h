/* `mpicast trace --mode profile` (trace_profile.c). */
#ifndef MPICAST_CLI_TRACE_PROFILE_H
#define MPICAST_CLI_TRACE_PROFILE_H

/* The command with `mpicast _profile-rank DIR RATE` inserted before the
 * program word (launcher: the first later executable file; else word 0).
 * NULL (message printed) when no program word is found. Free with free(). */
char **trace_profile_command(char **cmd, int launcher, const char *dir, const char *rate);
/* Joins DIR/cpu-profile-rank-N.txt into DIR/cpu-profile.txt when the run
 * succeeded on every rank; removes the rank files. 0 or CLI_BAD_INPUT. */
int trace_profile_join(const char *dir, int run_rc, const char *rate, char **cmd);

#endif
