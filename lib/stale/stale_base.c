/*
 * The bottom of the staleness engine (stale_internal.h): what every other
 * stale file uses and nothing here calls back into them: warnings,
 * which threads can be stale, identities, the report's memory, the
 * shallow boundary.
 */
#include "stale_internal.h"
#include "deadline.h"
#include "error.h"
#include "frontmatter.h"
#include "git.h"
#include "hashmap.h"
#include "timestamp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the report ---- */

void tm_stale__warn(tm_strv *w, const char *fmt, ...)
{
	tm_buf line = TM_BUF_INIT;
	va_list ap;

	if (!w || w->n > TM_STALE_MAX_WARNINGS)
		return;
	if (w->n == TM_STALE_MAX_WARNINGS) {
		tm_strv_push(w, "more objects of the history cannot be read "
				"('git fsck' lists them)");
		return;
	}
	va_start(ap, fmt);
	tm_buf_vprintf(&line, fmt, ap);
	va_end(ap);
	if (!tm_strv_contains(w, tm_buf_cstr(&line)))
		tm_strv_push(w, tm_buf_cstr(&line));
	tm_buf_release(&line);
}

/* 40 hex digits (tm_git_is_hex_oid); NULL is not. */
bool tm_stale__is_hex40(const char *s)
{
	return s && tm_git_is_hex_oid(s, strlen(s));
}

bool tm_stale__candidate(const tm_thread *t)
{
	return t && t->has_paths && t->paths.n && t->commit &&
	       !tm_thread_is_finished(t) && !tm_thread_summary_blank(t);
}

bool tm_stale_awaits_summary(const tm_thread *t)
{
	return t && t->has_paths && t->paths.n && !tm_thread_is_finished(t) &&
	       tm_thread_summary_blank(t);
}

/* h with `n` bytes at p mixed in (their hash, and their count). */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	return (h ^ tm_hash_bytes(p, n)) * 0x100000001b3ULL + n;
}

/* Whether t's createdAt is an instant (into *ms). */
static bool created_ms(const tm_thread *t, int64_t *ms)
{
	bool ok = t->created_at && tm_time_parse(ms, t->created_at) == 0;

	tm_error_clear();
	return ok;
}

uint64_t tm_stale__identity(const tm_thread *t, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int64_t ms;

	/* the instant when createdAt parses; else its text, and the file's
	   name: a thread without a creation time is its own file's only */
	if (created_ms(t, &ms)) {
		h = mix(h, "t", 1);
		h = mix(h, &ms, sizeof(ms));
	} else {
		h = mix(h, "f", 1);
		h = mix(h, name, strlen(name));
		h = mix(h, t->created_at ? "c" : "n", 1);
		if (t->created_at)
			h = mix(h, t->created_at, strlen(t->created_at));
	}
	h = mix(h, t->author ? "a" : "n", 1);
	if (t->author)
		h = mix(h, t->author, strlen(t->author));
	return h ? h : 1;
}

void tm_stale_report_clear(tm_stale_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		free(r->stale[i].id);
		free(r->stale[i].commit);
		tm_strv_clear(&r->stale[i].paths);
		tm_strv_clear(&r->stale[i].changed);
	}
	free(r->stale);
	tm_strv_clear(&r->unknown_base);
	tm_strv_clear(&r->warnings);
	r->stale = NULL;
	r->n = 0;
}

/* A thread's identity, with its own file's name. */
uint64_t tm_stale__thread_identity(const tm_thread *t)
{
	tm_buf name = TM_BUF_INIT;
	uint64_t h;
	int64_t ms;

	if (created_ms(t, &ms)) /* the name plays no part */
		return tm_stale__identity(t, "");
	tm_buf_puts(&name, t->id);
	tm_buf_puts(&name, ".md");
	h = tm_stale__identity(t, tm_buf_cstr(&name));
	tm_buf_release(&name);
	return h;
}

/* ---- shallow clones ---- */

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

void tm_stale__read_shallow(git_oid **out, size_t *n, git_repository *repo)
{
	tm_buf path = TM_BUF_INIT;
	char line[128];
	size_t alloc = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	if (git_repository_is_shallow(repo) != 1)
		return;
	tm_buf_printf(&path, "%sshallow", git_repository_commondir(repo));
	f = fopen(tm_buf_cstr(&path), "re");
	tm_buf_release(&path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		tm_xgrow((void **)out, &alloc, *n + 1, sizeof(git_oid));
		if (strlen(line) >= GIT_OID_HEXSZ &&
		    git_oid_fromstrn(&(*out)[*n], line, GIT_OID_HEXSZ) == 0)
			(*n)++;
	}
	fclose(f);
	if (*n)
		qsort(*out, *n, sizeof(git_oid), oid_cmp);
}

bool tm_stale__shallow_has(const git_oid *list, size_t n, const git_oid *oid)
{
	return n && bsearch(oid, list, n, sizeof(git_oid), oid_cmp);
}

/* ---- the shallow boundary's checksum ---- */

void tm_stale__shallow_sum(uint64_t out[2], const char *commondir)
{
	tm_buf path = TM_BUF_INIT, data = TM_BUF_INIT;
	char chunk[4096];
	size_t got;
	FILE *f;

	out[0] = out[1] = 0;
	tm_buf_printf(&path, "%sshallow", commondir);
	f = fopen(tm_buf_cstr(&path), "rbe");
	if (f) {
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			tm_buf_put(&data, chunk, got);
		fclose(f);
		out[0] = tm_hash_bytes(data.ptr, data.size);
		out[1] = data.size + 1;
	}
	tm_buf_release(&path);
	tm_buf_release(&data);
}

const struct tm_stale_blob_version *
tm_stale__blob_version(struct tm_stale_blobs *b, git_repository *repo,
		       const git_oid *id, const char *name)
{
	tm_buf key = TM_BUF_INIT;
	size_t *at;
	struct tm_stale_blob_version out;
	git_blob *blob = NULL;
	tm_thread *v = NULL;
	const tm_thread *parsed; /* the work tree's, or v */

	tm_buf_put(&key, id->id, GIT_OID_RAWSZ);
	tm_buf_puts(&key, name);
	at = tm_hashmap_put(&b->map, key.ptr, key.size, 0);
	tm_buf_release(&key);
	if (*at)
		return &b->v[*at - 1];
	memset(&out, 0, sizeof(out));
	if ((parsed = tm_stale__worktree_thread(b->wt, id, name)) ||
	    (git_blob_lookup(&blob, repo, id) == 0 &&
	     tm_frontmatter_parse_checked(&v, git_blob_rawcontent(blob),
					  (size_t)git_blob_rawsize(blob), "x",
					  "(history)",
					  tm_deadline_check) == 0)) {
		if (!parsed)
			parsed = v;
		out.ident = tm_stale__identity(parsed, name);
		if (parsed->commit &&
		    tm_git_is_hex_oid(parsed->commit, strlen(parsed->commit)) &&
		    git_oid_fromstr(&out.review, parsed->commit) < 0)
			memset(&out.review, 0, sizeof(out.review));
	}
	tm_error_clear();
	tm_thread_free(v);
	git_blob_free(blob);
	tm_xgrow((void **)&b->v, &b->alloc, b->n + 1, sizeof(*b->v));
	b->v[b->n++] = out;
	*at = b->n;
	return &b->v[*at - 1];
}

void tm_stale__blobs_release(struct tm_stale_blobs *b)
{
	tm_hashmap_release(&b->map);
	free(b->v);
	memset(b, 0, sizeof(*b));
}
