/*
 * git threadmind edit: edit a thread's summary in the editor git would run
 * (GIT_EDITOR, core.editor, VISUAL, EDITOR, vi); an empty summary starts
 * from a template, as `git commit` does.
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/fs.h"
#include "threadmind/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EDIT_FILE "THREADMIND_SUMMARY.md"

static const char *const edit_usage[] = {
	"git threadmind edit [<thread>]",
	NULL,
};

/* Where the summary is edited, and what to remove afterwards. */
struct edit_file {
	char *path;   /* the file handed to the editor */
	char *tmpdir; /* a folder of ours holding it (outside git), or NULL */
};

static void edit_file_init(struct edit_file *f)
{
	struct tm_git *g = tm_store_git(cli.store);
	const char *tmp = getenv("TMPDIR");
	tm_buf b = TM_BUF_INIT;

	f->tmpdir = NULL;
	if (g && tm_git_gitdir(g)) {
		tm_buf_printf(&b, "%s%s", tm_git_gitdir(g), EDIT_FILE);
		f->path = tm_buf_detach(&b);
		return;
	}
	tm_buf_printf(&b, "%s/threadmind-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b.ptr))
		die("cannot create a temporary folder in '%s': %s",
		    tmp && *tmp ? tmp : "/tmp", strerror(errno));
	f->tmpdir = tm_buf_detach(&b);
	tm_buf_printf(&b, "%s/%s", f->tmpdir, EDIT_FILE);
	f->path = tm_buf_detach(&b);
}

/* Remove the file (and our folder); done when nothing would be lost. */
static void edit_file_remove(struct edit_file *f)
{
	unlink(f->path);
	if (f->tmpdir)
		rmdir(f->tmpdir);
}

static void edit_file_release(struct edit_file *f)
{
	free(f->path);
	free(f->tmpdir);
}

static void write_edit_file(const char *path, const char *text)
{
	int fd;

	if (unlink(path) < 0 && errno != ENOENT)
		die("cannot remove '%s': %s", path, strerror(errno));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0666);
	if (fd < 0)
		die("cannot create '%s': %s", path, strerror(errno));
	if (tm_fs_write_all(fd, text, strlen(text)) < 0)
		die("cannot write '%s': %s", path, strerror(errno));
	if (close(fd) < 0)
		die("cannot write '%s': %s", path, strerror(errno));
}

/* Read what the editor left, at most TM_MAX_FILE_SIZE + 1 bytes (more is
 * refused by tm_summary_check). */
static void read_edit_file(tm_buf *out, const char *path)
{
	char chunk[8192];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("cannot read '%s': %s", path, strerror(errno));
	while (out->size <= TM_MAX_FILE_SIZE) {
		got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			die("cannot read '%s': %s", path, strerror(errno));
		if (got == 0)
			break;
		tm_buf_put(out, chunk, (size_t)got);
	}
	close(fd);
}

static const char *choose_editor(void)
{
	static char *core_editor;
	const char *term = getenv("TERM"), *editor;

	if (tm_git_config_string(&core_editor, tm_store_git(cli.store),
				 "core.editor") < 0)
		core_editor = NULL;
	tm_error_clear();
	editor = tm_summary_editor(getenv("GIT_EDITOR"), core_editor,
				   getenv("VISUAL"), getenv("EDITOR"), term);
	if (!editor)
		die("terminal is dumb, but EDITOR unset: set GIT_EDITOR, "
		    "core.editor or EDITOR, or use 'git threadmind summary'");
	return editor;
}

/*
 * Run `editor` on `path` as git does: through the shell, so that an editor
 * with arguments works.  Returns true when it exited with status 0.
 */
static bool run_editor(const char *editor, const char *path)
{
	const char *term = getenv("TERM");
	bool dumb = !term || !strcmp(term, "dumb");
	bool hint = isatty(STDERR_FILENO) && !global_opts.quiet;
	struct sigaction ign, old_int, old_quit;
	tm_buf cmd = TM_BUF_INIT;
	pid_t pid;
	int status = -1;

	tm_buf_printf(&cmd, "%s \"$@\"", editor);
	if (hint)
		fprintf(stderr,
			"hint: Waiting for your editor to close the file...%c",
			dumb ? '\n' : ' ');
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		cli_exec_signals();
		execlp("sh", "sh", "-c", tm_buf_cstr(&cmd), editor, path,
		       (char *)NULL);
		_exit(127);
	}
	tm_buf_release(&cmd);
	if (pid < 0)
		return false;
	/* Like git: ^C goes to the editor, not to us. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (hint && !dumb)
		fputs("\r\033[K", stderr);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * die() naming where the edited text was kept.  With `id`, the message is
 * about thread `id`.
 */
static void die_kept(const char *path, const char *msg, const char *id)
	__attribute__((noreturn));
static void die_kept(const char *path, const char *msg, const char *id)
{
	char *copy = tm_xstrdup(msg);

	if (id)
		die("thread '%s': %s; your text is kept in '%s'", id, copy,
		    path);
	die("%s; your text is kept in '%s'", copy, path);
}

/* Does `b` hold nothing but spaces, tabs and line ends? */
static bool blank(const tm_buf *b)
{
	size_t i;

	for (i = 0; i < b->size; i++)
		if (b->ptr[i] != ' ' && b->ptr[i] != '\t' &&
		    b->ptr[i] != '\r' && b->ptr[i] != '\n')
			return false;
	return true;
}

int cmd_edit(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_THREADS_(), OPT_END_()};
	tm_summary_options o = TM_SUMMARY_OPTIONS_INIT;
	tm_summary_outcome outcome;
	struct edit_file file;
	tm_buf text = TM_BUF_INIT, start = TM_BUF_INIT;
	tm_thread *t;
	const char *editor;
	char *id, *summary;
	bool template;
	int n = parse_options(argc, argv, opts, edit_usage);

	if (n > 1)
		usage_msg(edit_usage, opts, "edit takes one thread");
	cli_open();
	id = cli_thread_arg(n, argv);
	t = cli_load_thread(id);
	editor = choose_editor();

	edit_file_init(&file);
	summary = tm_thread_summary(t);
	template = !*summary;
	if (template)
		tm_summary_template(&start, t, cli.project);
	else
		tm_buf_puts(&start, summary);
	free(summary);
	write_edit_file(file.path, tm_buf_cstr(&start));
	if (!run_editor(editor, file.path))
		die("there was a problem with the editor '%s'; the summary of "
		    "'%s' was not changed (your text is in '%s')",
		    editor, id, file.path);
	read_edit_file(&text, file.path);
	if (template) {
		tm_buf edited = text;

		tm_buf_init(&text);
		tm_summary_strip_template(&text, t, cli.project,
					  tm_buf_cstr(&edited), edited.size);
		/* an emptied file says "summary empty", as without one */
		template = !blank(&edited);
		tm_buf_release(&edited);
	}
	if (tm_summary_check(&outcome, t, tm_buf_cstr(&text), text.size) < 0) {
		tm_thread_free(t);
		tm_buf_release(&text);
		tm_buf_release(&start);
		die_kept(file.path, tm_error_last(), NULL);
	}
	if (outcome != TM_SUMMARY_CHANGED) {
		edit_file_remove(&file);
		fprintf(stderr, "Aborting: %s; '%s' was not changed\n",
			outcome != TM_SUMMARY_EMPTY ? "summary unchanged"
			: template                  ? "template left empty"
						    : "summary empty",
			cli_safe(id));
		exit(EXIT_NEGATIVE);
	}

	/* The editor ran without the lock: the write checks that nobody
	 * changed the summary meanwhile, and keeps the other fields as they
	 * are now. */
	o.expect_body = t->body ? t->body : "";
	o.expect_len = t->body_len;
	if (tm_ops_write_summary(&outcome, cli.store, cli.project, id,
				 tm_buf_cstr(&text), text.size, &o) < 0) {
		bool conflict = tm_error_last_code() == TM_ECONFLICT;

		/* o points into t: freed only now, so that the exit leaks
		   nothing whatever the compiler keeps alive */
		tm_thread_free(t);
		tm_buf_release(&text);
		tm_buf_release(&start);
		die_kept(file.path, tm_error_last(), conflict ? id : NULL);
	}

	edit_file_remove(&file);
	note("Updated the summary of '%s'", id);
	edit_file_release(&file);
	tm_thread_free(t);
	tm_buf_release(&text);
	tm_buf_release(&start);
	free(id);
	return 0;
}
