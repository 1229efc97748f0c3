/*
 * The temp files of interrupted writes (recover.h): the pure rule that
 * tells a recovery from a stray, then the restore, the removal of a safe
 * stray and the upgrade's read of a trees/ index around it.
 */
#include "recover.h"

#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "json_cjson.h"
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_END    ".tmp"
#define BROKEN_END ".broken"
/* ".{8 hex}.tmp" and ".{uuid}.tmp" */
#define HEX8_LEN 8

/* ---- the rule ---- */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static bool all_hex(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!is_hex(p[i]))
			return false;
	return true;
}

/* 8-4-4-4-12 hex digits. */
static bool is_uuid(const char *p)
{
	size_t i;

	for (i = 0; i < TM_UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? p[i] != '-' : !is_hex(p[i]))
			return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

char *tm_recover_target_name(const char *name)
{
	size_t len = strlen(name), end, keep;

	if (!ends_with(name, TMP_END))
		return NULL;
	end = len - strlen(TMP_END);
	if (end > HEX8_LEN + 1 && name[end - HEX8_LEN - 1] == '.' &&
	    all_hex(name + end - HEX8_LEN, HEX8_LEN))
		keep = end - HEX8_LEN - 1;
	else if (end > TM_UUID_LEN + 1 && name[end - TM_UUID_LEN - 1] == '.' &&
		 is_uuid(name + end - TM_UUID_LEN))
		keep = end - TM_UUID_LEN - 1;
	else
		return NULL;
	return tm_xstrndup(name, keep);
}

tm_recover_format tm_recover_format_of(const char *rel_dir, const char *target)
{
	const char *threads = "threads/";

	if (!*rel_dir)
		return strcmp(target, "config.json") ? TM_RECOVER_OTHER
						     : TM_RECOVER_OBJECT;
	if (!strcmp(rel_dir, "projects") && ends_with(target, ".json"))
		return TM_RECOVER_OBJECT;
	if (!strcmp(rel_dir, "trees") && ends_with(target, ".json"))
		return TM_RECOVER_INDEX;
	if (!strncmp(rel_dir, threads, strlen(threads)) &&
	    rel_dir[strlen(threads)] &&
	    !strchr(rel_dir + strlen(threads), '/') && ends_with(target, ".md"))
		return TM_RECOVER_THREAD;
	return TM_RECOVER_OTHER;
}

bool tm_recover_parses(tm_recover_format format, const char *target,
		       const char *data, size_t len)
{
	tm_thread *t = NULL;
	cJSON *json = NULL;
	char *id;
	bool ok = false;

	switch (format) {
	case TM_RECOVER_THREAD:
		id = tm_xstrndup(target, strlen(target) - strlen(".md"));
		ok = tm_frontmatter_parse(&t, data, len, id, target) == 0;
		tm_thread_free(t);
		free(id);
		break;
	case TM_RECOVER_OBJECT:
		ok = tm_json_parse_object(&json, data, len, target) == 0;
		break;
	case TM_RECOVER_INDEX:
		ok = tm_json_parse(&json, data, len, target) == 0;
		break;
	case TM_RECOVER_OTHER:
		break;
	}
	cJSON_Delete(json);
	tm_error_clear();
	return ok;
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static tm_recover_state target_state(tm_recover_format format,
				     const char *target,
				     const tm_recover_file *tmp,
				     const tm_recover_file *t)
{
	if (!t->exists)
		return TM_RECOVER_TARGET_MISSING;
	if (!t->data)
		return TM_RECOVER_TARGET_UNREAD;
	if (format == TM_RECOVER_OTHER)
		return TM_RECOVER_TARGET_FINE; /* no rule to judge it by */
	if (t->size == 0)
		return TM_RECOVER_TARGET_EMPTY;
	if (!tm_recover_parses(format, target, t->data, t->size))
		return TM_RECOVER_TARGET_BROKEN;
	if (t->size < tmp->size)
		return TM_RECOVER_TARGET_SHORTER;
	return TM_RECOVER_TARGET_FINE;
}

tm_recover_verdict tm_recover_classify(tm_recover_state *state,
				       tm_recover_format format,
				       const char *target,
				       const tm_recover_file *tmp,
				       const tm_recover_file *target_file)
{
	tm_recover_state st = target_state(format, target, tmp, target_file);

	if (state)
		*state = st;
	if (st != TM_RECOVER_TARGET_FINE && st != TM_RECOVER_TARGET_UNREAD &&
	    tmp->exists && tmp->data &&
	    tm_recover_parses(format, target, tmp->data, tmp->size))
		return TM_RECOVER_RESTORE;
	if (tmp->exists && target_file->exists &&
	    before(&tmp->mtime, &target_file->mtime) &&
	    tmp->size <= target_file->size)
		return TM_RECOVER_STRAY_OLD;
	return TM_RECOVER_STRAY;
}

const char *tm_recover_state_text(tm_recover_state state)
{
	switch (state) {
	case TM_RECOVER_TARGET_FINE:
		return "is complete";
	case TM_RECOVER_TARGET_MISSING:
		return "is missing";
	case TM_RECOVER_TARGET_EMPTY:
		return "is empty";
	case TM_RECOVER_TARGET_SHORTER:
		return "is cut short";
	case TM_RECOVER_TARGET_BROKEN:
		return "does not parse";
	case TM_RECOVER_TARGET_UNREAD:
		return "cannot be read";
	}
	return "?";
}

bool tm_recover_is_broken_name(char **out, const char *name)
{
	const char *end = strstr(name, BROKEN_END), *next;
	const char *p;

	/* the last ".broken" of the name */
	while (end && (next = strstr(end + 1, BROKEN_END)))
		end = next;
	if (!end || end == name)
		return false;
	p = end + strlen(BROKEN_END);
	if (*p == '-') {
		/* "-N", N from 2 on, written without leading zeros */
		const char *digits = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == digits || *digits == '0' ||
		    (p - digits == 1 && *digits == '1'))
			return false;
	}
	if (*p)
		return false;
	if (out)
		*out = tm_xstrndup(name, (size_t)(end - name));
	return true;
}

/* ---- on disk ---- */

/* ".threadmind/REL_DIR/NAME" (malloc'd). */
static char *display_of(const char *rel_dir, const char *name)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_printf(&b, "%s/%s%s%s", TM_STORE_DIRNAME, rel_dir,
		      *rel_dir ? "/" : "", name);
	return tm_buf_detach(&b);
}

static double age_of(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* *f (its bytes in `buf`) for `name` in `dirfd`; not there: !f->exists. */
static int look(tm_recover_file *f, tm_buf *buf, int dirfd, const char *name,
		const char *display)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return tm_error_set_errno(TM_ERROR, "cannot look at '%s'",
					  display);
	}
	f->exists = true;
	f->size = (size_t)st.st_size;
	f->mtime = st.st_mtim;
	if (S_ISREG(st.st_mode) &&
	    tm_fs_read_at(buf, dirfd, name, display, TM_MAX_FILE_SIZE) == 0) {
		f->data = tm_buf_cstr(buf);
		f->size = buf->size;
	}
	tm_error_clear();
	return 0;
}

int tm_recover_check_at(tm_recover_item *out, int dirfd, const char *rel_dir,
			const char *name)
{
	tm_buf tmp_data = TM_BUF_INIT, target_data = TM_BUF_INIT;
	tm_recover_file tmp, target;
	char *tmp_display = display_of(rel_dir, name), *target_display = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = look(&tmp, &tmp_data, dirfd, name, tmp_display)) < 0)
		goto done;
	if (!tmp.exists) {
		error = tm_error_set(TM_ENOTFOUND, "'%s' is gone", tmp_display);
		goto done;
	}
	out->age = age_of(&tmp.mtime);
	out->verdict = TM_RECOVER_STRAY;
	out->state = TM_RECOVER_TARGET_MISSING;
	if (!(out->target = tm_recover_target_name(name)))
		goto done;
	target_display = display_of(rel_dir, out->target);
	if ((error = look(&target, &target_data, dirfd, out->target,
			  target_display)) < 0)
		goto done;
	out->newer = target.exists && !before(&tmp.mtime, &target.mtime);
	out->larger = target.exists && tmp.size > target.size;
	out->format = tm_recover_format_of(rel_dir, out->target);
	out->verdict = tm_recover_classify(&out->state, out->format,
					   out->target, &tmp, &target);
done:
	if (error < 0)
		tm_recover_item_clear(out);
	tm_buf_release(&tmp_data);
	tm_buf_release(&target_data);
	free(tmp_display);
	free(target_display);
	return error;
}

void tm_recover_item_clear(tm_recover_item *it)
{
	free(it->target);
	memset(it, 0, sizeof(*it));
}

static int fsync_retry(int fd)
{
	int rc;

	do
		rc = fsync(fd);
	while (rc < 0 && errno == EINTR);
	return rc;
}

/* Link `target` to a free "{target}.broken[-N]" name: *out gets it. */
static int keep_broken(char **out, int dirfd, const char *rel_dir,
		       const char *target)
{
	tm_buf name = TM_BUF_INIT, base = TM_BUF_INIT;
	char *display;
	int error = 0, saved;

	tm_buf_printf(&base, "%s%s", target, BROKEN_END);
	if (tm_fs_link_aside(&name, dirfd, target, tm_buf_cstr(&base))) {
		*out = tm_buf_detach(&name);
		goto done;
	}
	saved = errno;
	display = display_of(rel_dir, target);
	errno = saved;
	error = tm_error_set_errno(TM_ERROR,
				   "cannot keep the old '%s' as '%s%s' before "
				   "replacing it; nothing was changed",
				   display, display, BROKEN_END);
	free(display);
done:
	tm_buf_release(&name);
	tm_buf_release(&base);
	return error;
}

int tm_recover_restore_at(bool *restored, char **out_broken, int dirfd,
			  const char *rel_dir, const char *name, double min_age)
{
	tm_recover_item it;
	char *broken = NULL, *display = NULL;
	int fd, error;

	*restored = false;
	if (out_broken)
		*out_broken = NULL;
	if ((error = tm_recover_check_at(&it, dirfd, rel_dir, name)) < 0) {
		if (error != TM_ENOTFOUND)
			return error;
		tm_error_clear();
		return 0;
	}
	if (it.verdict != TM_RECOVER_RESTORE || it.format == TM_RECOVER_INDEX ||
	    it.age <= min_age)
		goto done;
	display = display_of(rel_dir, name);
	if (it.state != TM_RECOVER_TARGET_MISSING &&
	    it.state != TM_RECOVER_TARGET_EMPTY &&
	    (error = keep_broken(&broken, dirfd, rel_dir, it.target)) < 0)
		goto done;
	/* 0.4 never synced its tmp: make its bytes durable first. */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fsync_retry(fd) < 0 ||
	    renameat(dirfd, name, dirfd, it.target) < 0) {
		error = tm_error_set_errno(TM_ERROR,
					   "cannot put '%s' in place of its "
					   "target; nothing was changed",
					   display);
		tm_fs_close(fd);
		if (broken)
			unlinkat(dirfd, broken, 0);
		goto done;
	}
	close(fd);
	if (fsync_retry(dirfd) < 0 && errno != EINVAL && errno != EROFS) {
		error = tm_error_set_errno(
			TM_ERROR, "cannot sync the folder of '%s'", display);
		goto done;
	}
	*restored = true;
	if (out_broken)
		TM_MOVE(out_broken, broken);
done:
	free(broken);
	free(display);
	tm_recover_item_clear(&it);
	return error;
}

int tm_recover_remove_at(bool *removed, int dirfd, const char *rel_dir,
			 const char *name, double min_age)
{
	tm_recover_item it;
	char *display;
	int error;

	*removed = false;
	if ((error = tm_recover_check_at(&it, dirfd, rel_dir, name)) < 0) {
		if (error != TM_ENOTFOUND)
			return error;
		tm_error_clear();
		return 0;
	}
	if (it.verdict == TM_RECOVER_STRAY_OLD && it.age > min_age) {
		display = display_of(rel_dir, name);
		error = tm_fs_unlink_at(dirfd, name, display);
		*removed = error == 0;
		free(display);
	}
	tm_recover_item_clear(&it);
	return error;
}

int tm_recover_index_read(tm_buf *out, tm_strv *report, int dirfd,
			  const char *name, const char *display, bool dry_run)
{
	tm_strv names = TM_STRV_INIT;
	tm_recover_item it, best;
	tm_buf data = TM_BUF_INIT, line = TM_BUF_INIT;
	char *best_name = NULL, *tmp_display;
	size_t i, start = out->size;
	int error;

	if ((error = tm_fs_read_at(out, dirfd, name, display,
				   TM_MAX_FILE_SIZE)) < 0)
		return error;
	if (out->size > start &&
	    tm_recover_parses(TM_RECOVER_INDEX, name, out->ptr + start,
			      out->size - start))
		return 0;
	memset(&best, 0, sizeof(best));
	if (tm_fs_list_dir(&names, dirfd, display) < 0)
		goto done; /* no tmp to look at: the index as it is */
	for (i = 0; i < names.n; i++) {
		char *target = tm_recover_target_name(names.items[i]);
		bool mine = target && !strcmp(target, name);

		free(target);
		if (!mine || tm_recover_check_at(&it, dirfd, "trees",
						 names.items[i]) < 0)
			continue;
		/* the newest complete one: 0.4's last write */
		if (it.verdict == TM_RECOVER_RESTORE &&
		    (!best_name || it.age < best.age)) {
			tm_recover_item_clear(&best);
			best = it;
			best_name = names.items[i];
		} else {
			tm_recover_item_clear(&it);
		}
	}
	if (!best_name)
		goto done;
	tmp_display = display_of("trees", best_name);
	error = tm_fs_read_at(&data, dirfd, best_name, tmp_display,
			      TM_MAX_FILE_SIZE);
	free(tmp_display);
	if (error < 0) {
		error = 0; /* gone meanwhile: the index as it is */
		goto done;
	}
	tm_buf_truncate(out, start);
	tm_buf_put(out, data.ptr, data.size);
	tm_buf_printf(&line,
		      "trees/%s %s: %s the complete index an interrupted 0.4 "
		      "write left in trees/%s (kept: delete it once the "
		      "parents look right)",
		      name, tm_recover_state_text(best.state),
		      dry_run ? "would use" : "used", best_name);
	tm_strv_push_owned(report, tm_buf_detach(&line));
done:
	tm_error_clear();
	tm_recover_item_clear(&best);
	tm_strv_clear(&names);
	tm_buf_release(&data);
	return error;
}
