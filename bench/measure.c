/*
 * bench/measure: run commands side by side and print their median wall
 * times and peak RSS, one line: "<rounds> <ms> <rss KiB> [<ms> <rss>]...".
 *
 *   measure [-n MAX] [-m MIN] [-t BUDGET_MS] [-s SETUP] [-c FROM:TO] [-W]
 *           [-E] -- CMD [ARGS...] [--vs CMD2 [ARGS...]]...
 *
 * A round runs every command once, the first command of each round in
 * turn (A B C, B C A, C A B, ...), so that load drift on a shared machine
 * hits all of them alike; the medians are taken over the rounds.  Rounds
 * go on until MAX (default 11), or, with -t, until BUDGET_MS of timed runs
 * have passed and at least MIN rounds (default 3) are done, always an odd
 * number of rounds then, so the median is one real run.  SETUP (a sh
 * command) runs before every run and is not timed; -c copies the file FROM
 * over TO before every run, without a shell (cheap enough for a 5 ms
 * command).  The commands' stdin, stdout and stderr are /dev/null (-E:
 * stderr left as it is, for a generator's progress); a
 * first, untimed run of each warms the caches (-W: none, for commands that
 * take seconds).  A command that fails makes measure fail, unless
 * MEASURE_ANY_EXIT is set (a merge with conflicts exits 1).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 8

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

static int keep_stderr;

static int run(char **argv, long *rss_kib)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		if (!keep_stderr)
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

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out, rc = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = -1;
			break;
		}
	if (n < 0)
		rc = -1;
	close(in);
	return close(out) < 0 ? -1 : rc;
}

struct cmd {
	char **argv;
	double *t;
	long rss;
};

static const char *setup, *copy_from, *copy_to;

/* One run of c (after SETUP and the copy), its time in c->t[i] if i >= 0. */
static int timed(struct cmd *c, int i)
{
	double start;

	if (setup && system(setup) != 0) {
		fprintf(stderr, "measure: setup failed: %s\n", setup);
		return -1;
	}
	if (copy_from && copy_file(copy_from, copy_to) < 0) {
		perror("measure: copy");
		return -1;
	}
	start = now_ms();
	if (run(c->argv, &c->rss) != 0 && !getenv("MEASURE_ANY_EXIT")) {
		fprintf(stderr, "measure: command failed: %s\n", c->argv[0]);
		return -1;
	}
	if (i >= 0)
		c->t[i] = now_ms() - start;
	return 0;
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int max = 11, min = 3, i, k, opt, ncmd = 1, warm = 1, rounds;
	double budget = 0, start;
	struct cmd c[MAX_CMDS];
	char *colon;

	while ((opt = getopt(argc, argv, "+n:m:t:s:c:WE")) != -1) {
		if (opt == 'W')
			warm = 0;
		else if (opt == 'E')
			keep_stderr = 1;
		else if (opt == 'n')
			max = atoi(optarg);
		else if (opt == 'm')
			min = atoi(optarg);
		else if (opt == 't')
			budget = atof(optarg);
		else if (opt == 's')
			setup = optarg;
		else if (opt == 'c' && (colon = strchr(optarg, ':'))) {
			*colon = '\0';
			copy_from = optarg;
			copy_to = colon + 1;
		} else
			return 2;
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc || max < 1 || min < 1) {
		fprintf(stderr,
			"usage: measure [-n MAX] [-m MIN] [-t BUDGET_MS] "
			"[-s SETUP] [-c FROM:TO] [-W] [-E] -- CMD... "
			"[--vs CMD...]...\n");
		return 2;
	}
	if (min > max)
		min = max;
	memset(c, 0, sizeof(c));
	c[0].argv = argv + optind;
	for (i = optind; i < argc; i++)
		if (!strcmp(argv[i], "--vs") && i + 1 < argc) {
			if (ncmd == MAX_CMDS) {
				fprintf(stderr,
					"measure: at most %d commands\n",
					MAX_CMDS);
				return 2;
			}
			argv[i] = NULL;
			c[ncmd++].argv = argv + i + 1;
		}
	for (k = 0; k < ncmd; k++) {
		c[k].t = calloc((size_t)max, sizeof(double));
		if (!c[k].t || (warm && timed(&c[k], -1) < 0))
			return 1;
		c[k].rss = 0;
	}
	start = now_ms();
	for (rounds = 0; rounds < max;) {
		for (k = 0; k < ncmd; k++)
			if (timed(&c[(rounds + k) % ncmd], rounds) < 0)
				return 1;
		rounds++;
		if (budget > 0 && rounds >= min && rounds % 2 &&
		    now_ms() - start >= budget)
			break;
	}
	printf("%d", rounds);
	for (k = 0; k < ncmd; k++) {
		printf(" %.3f %ld", median(c[k].t, rounds), c[k].rss);
		free(c[k].t);
	}
	putchar('\n');
	return 0;
}
