/*
 * git threadmind summary: replace a thread's summary from a file or stdin,
 * or append to it by sections (--append).
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const summary_usage[] = {
	"git threadmind summary [<thread>] [-F <file> | -F -] [--allow-empty]",
	"git threadmind summary [<thread>] --append [--section <heading>] "
	"[-F <file> | -F -]",
	NULL,
};

/*
 * Read all of `fd` into `out`, at most TM_MAX_FILE_SIZE + 1 bytes (more is
 * refused later anyway).  Returns 0 or -1 with errno set.
 */
static int read_input(tm_buf *out, int fd)
{
	char chunk[8192];
	ssize_t got;

	while (out->size <= TM_MAX_FILE_SIZE) {
		got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		tm_buf_put(out, chunk, (size_t)got);
	}
	return 0;
}

static void read_summary(tm_buf *out, const char *file)
{
	int fd;

	if (!file || !strcmp(file, "-")) {
		if (isatty(STDIN_FILENO))
			note("(reading the summary from standard input)");
		if (read_input(out, STDIN_FILENO) < 0)
			die("cannot read the summary from standard input: %s",
			    strerror(errno));
		return;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot read '%s': %s", file, strerror(errno));
	if (read_input(out, fd) < 0)
		die("cannot read '%s': %s", file, strerror(errno));
	close(fd);
}

int cmd_summary(int argc, const char **argv)
{
	const char *file = NULL, *section = NULL;
	bool allow_empty = false, append = false;
	const struct option opts[] = {
		OPT_STRING_('F', "file", &file, "file",
			    "read the summary from <file> ('-': stdin)"),
		OPT_BOOL_(0, "allow-empty", &allow_empty,
			  "accept an empty summary (erases it)"),
		OPT_BOOL_(0, "append", &append,
			  "add the text by sections, keep the rest"),
		OPT_STRING_(0, "section", &section, "heading",
			    "--append: lines before any heading go under "
			    "'## <heading>'"),
		OPT_GLOBALS,
		OPT_THREADS_(),
		OPT_END_(),
	};
	tm_summary_options o = TM_SUMMARY_OPTIONS_INIT;
	tm_summary_outcome outcome;
	tm_buf text = TM_BUF_INIT;
	char *id;
	int n = parse_options(argc, argv, opts, summary_usage);

	if (n > 1)
		usage_msg(summary_usage, opts, "summary takes one thread");
	if (section && !append)
		usage_msg(summary_usage, opts, "--section needs --append");
	if (append && allow_empty)
		usage_msg(summary_usage, opts,
			  "--append and --allow-empty cannot be used together");
	cli_open();
	id = cli_thread_arg(n, argv);
	read_summary(&text, file);

	o.allow_empty = allow_empty;
	o.append = append;
	o.section = section;
	if (tm_ops_write_summary(&outcome, cli.store, cli.project, id,
				 tm_buf_cstr(&text), text.size, &o) < 0)
		die_lib();

	note(append                        ? "Appended to the summary of '%s'"
	     : outcome == TM_SUMMARY_EMPTY ? "Erased the summary of '%s'"
					   : "Updated the summary of '%s'",
	     id);
	tm_buf_release(&text);
	free(id);
	return 0;
}
