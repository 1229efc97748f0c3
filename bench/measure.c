/*
 * bench/measure: run a command several times and print its median wall
 * time and peak RSS, one line: "<median ms> <max rss KiB>".
 *
 *   measure [-n RUNS] [-s SETUP] -- COMMAND [ARGS...]
 *
 * SETUP (a sh command) runs before every run and is not timed.  The
 * command's stdout and stderr go to /dev/null; a first, untimed run warms
 * the caches.  A command that fails makes measure fail (unless
 * MEASURE_ANY_EXIT is set: a merge with conflicts exits 1).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int run(char **argv, long *rss_kib)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return -1;
	if (ru.ru_maxrss > *rss_kib)
		*rss_kib = ru.ru_maxrss;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
	int runs = 11, i, opt;
	const char *setup = NULL;
	double *t;
	long rss = 0;

	while ((opt = getopt(argc, argv, "+n:s:")) != -1) {
		if (opt == 'n')
			runs = atoi(optarg);
		else if (opt == 's')
			setup = optarg;
		else
			return 2;
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc || runs < 1) {
		fprintf(stderr,
			"usage: measure [-n RUNS] [-s SETUP] -- CMD...\n");
		return 2;
	}
	t = calloc((size_t)runs, sizeof(double));
	if (setup && system(setup) != 0)
		return 1;
	if (run(argv + optind, &rss) != 0 && !getenv("MEASURE_ANY_EXIT")) {
		fprintf(stderr, "measure: command failed: %s\n", argv[optind]);
		return 1;
	}
	rss = 0;
	for (i = 0; i < runs; i++) {
		double start;

		if (setup && system(setup) != 0)
			return 1;
		start = now_ms();
		if (run(argv + optind, &rss) != 0 &&
		    !getenv("MEASURE_ANY_EXIT")) {
			fprintf(stderr, "measure: command failed: %s\n",
				argv[optind]);
			return 1;
		}
		t[i] = now_ms() - start;
	}
	qsort(t, (size_t)runs, sizeof(double), cmp_double);
	printf("%.3f %ld\n", t[runs / 2], rss);
	free(t);
	return 0;
}
