/*
 * bad-measure REPORT SECONDS CMD [ARG...]: run CMD in its own process
 * group, kill the group when it runs past SECONDS, and write one line to
 * REPORT: "EXIT SIGNAL WALL CPU MAXRSS_KB" (EXIT -1 when killed by a
 * signal, SIGNAL 0 when not; WALL seconds of wall-clock time, CPU seconds
 * of user and system time, the peak resident set of CMD, from wait4), and
 * " timeout" when it was killed at the limit.  Exits 0 when the report is
 * written, 2 on usage or system errors.  Used by tests/bad/run to hold every
 * hostile input to the bounds of docs/SECURITY.md without GNU time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	struct timespec tick = {0, 5 * 1000 * 1000};
	double start, limit;
	int status = 0, killed = 0;
	pid_t pid, r;
	FILE *out;

	if (argc < 4) {
		fprintf(stderr, "usage: bad-measure REPORT SECONDS CMD...\n");
		return 2;
	}
	limit = atof(argv[2]);
	start = now();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	setpgid(pid, pid);
	for (;;) {
		r = wait4(pid, &status, WNOHANG, &ru);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			perror("wait4");
			return 2;
		}
		if (!killed && now() - start > limit) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			killed = 1;
		}
		nanosleep(&tick, NULL);
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 2;
	}
	fprintf(out, "%d %d %.3f %.3f %ld%s\n",
		WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		WIFSIGNALED(status) ? WTERMSIG(status) : 0, now() - start,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
				1e6,
		ru.ru_maxrss, killed ? " timeout" : "");
	return fclose(out) == 0 ? 0 : 2;
}
