/*
 * bench/measure: run a command several times and print its median wall
 * time and peak RSS, one line: "<median ms> <max rss KiB>".
 *
 *   measure [-n RUNS] [-s SETUP] [-W] -- COMMAND [ARGS...] [--vs REF...]
 *
 * With --vs, the reference command REF runs alternately with COMMAND (one
 * run of each, RUNS times), so that both see the same load on a shared
 * machine, and the line has its figures too: "<ms> <rss> <ref ms> <ref
 * rss>".  SETUP (a sh command) runs before every run and is not timed.
 * The commands' stdout and stderr go to /dev/null; a first, untimed run of
 * each warms the caches (-W: no such run, for a long command timed once).  A
 * command that fails makes measure fail (unless MEASURE_ANY_EXIT is set: a
 * merge with conflicts exits 1).
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

struct cmd {
	char **argv;
	double *t;
	long rss;
};

/* One run of c (after SETUP), its time in c->t[i] when i >= 0. */
static int timed(struct cmd *c, const char *setup, int i)
{
	double start;

	if (setup && system(setup) != 0)
		return -1;
	start = now_ms();
	if (run(c->argv, &c->rss) != 0 && !getenv("MEASURE_ANY_EXIT")) {
		fprintf(stderr, "measure: command failed: %s\n", c->argv[0]);
		return -1;
	}
	if (i >= 0)
		c->t[i] = now_ms() - start;
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 11, i, k, opt, ncmd = 1, warm = 1;
	const char *setup = NULL;
	struct cmd c[2];

	while ((opt = getopt(argc, argv, "+n:s:W")) != -1) {
		if (opt == 'W')
			warm = 0;
		else if (opt == 'n')
			runs = atoi(optarg);
		else if (opt == 's')
			setup = optarg;
		else
			return 2;
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc || runs < 1) {
		fprintf(stderr, "usage: measure [-n RUNS] [-s SETUP] [-W] -- "
				"CMD... [--vs REF...]\n");
		return 2;
	}
	memset(c, 0, sizeof(c));
	c[0].argv = argv + optind;
	for (i = optind; i < argc; i++)
		if (!strcmp(argv[i], "--vs") && i + 1 < argc) {
			argv[i] = NULL;
			c[1].argv = argv + i + 1;
			ncmd = 2;
			break;
		}
	for (k = 0; k < ncmd; k++) {
		c[k].t = calloc((size_t)runs, sizeof(double));
		if (warm && timed(&c[k], setup, -1) < 0)
			return 1;
		c[k].rss = 0;
	}
	for (i = 0; i < runs; i++)
		for (k = 0; k < ncmd; k++)
			if (timed(&c[k], setup, i) < 0)
				return 1;
	for (k = 0; k < ncmd; k++) {
		qsort(c[k].t, (size_t)runs, sizeof(double), cmp_double);
		printf("%s%.3f %ld", k ? " " : "", c[k].t[runs / 2], c[k].rss);
		free(c[k].t);
	}
	putchar('\n');
	return 0;
}
