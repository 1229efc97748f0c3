/* How diff and log print what changed in the threads (see diffview.h). */
#include "diffview.h"

#include "threadmind/text.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- colours ---- */

static const char *const slot_names[DV_NSLOTS] = {"meta", "frag",   "old",
						  "new",  "commit", NULL};
static const char *const slot_defaults[DV_NSLOTS] = {
	"\033[1m", "\033[36m", "\033[31m", "\033[32m", "\033[33m", "\033[m"};
static char *slots[DV_NSLOTS];
static bool colors_loaded, colors_on;

/* A colour word of git's syntax written to `c` as the SGR parameters of a
 * foreground (or background) colour ("" for normal); false when `w` is
 * not a colour. */
static bool color_value(tm_buf *c, bool bg, const char *w)
{
	static const char *const names[] = {"black",  "red",  "green",
					    "yellow", "blue", "magenta",
					    "cyan",   "white"};
	size_t i;
	char *end;
	long n;

	if (!strcasecmp(w, "normal"))
		return true;
	if (!strcasecmp(w, "default")) {
		tm_buf_puts(c, bg ? "49" : "39");
		return true;
	}
	for (i = 0; i < 8; i++) {
		if (!strcasecmp(w, names[i])) {
			tm_buf_printf(c, "%d", (bg ? 40 : 30) + (int)i);
			return true;
		}
		if (!strncasecmp(w, "bright", 6) &&
		    !strcasecmp(w + 6, names[i])) {
			tm_buf_printf(c, "%d", (bg ? 100 : 90) + (int)i);
			return true;
		}
	}
	if (w[0] == '#' && strlen(w) == 7 &&
	    strspn(w + 1, "0123456789abcdefABCDEF") == 6) {
		unsigned long rgb = strtoul(w + 1, NULL, 16);

		tm_buf_printf(c, "%d;2;%lu;%lu;%lu", bg ? 48 : 38,
			      (rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255);
		return true;
	}
	n = strtol(w, &end, 10);
	if (*w && !*end && n >= -1 && n <= 255) {
		if (n >= 0)
			tm_buf_printf(c, "%d;5;%ld", bg ? 48 : 38, n);
		return true;
	}
	return false;
}

/* An attribute word ("bold", "no-ul", "nobold") appended to `attrs`;
 * false when `w` is none. */
static bool color_attr(tm_buf *attrs, const char *w)
{
	static const struct {
		const char *name;
		int on, off;
	} attr[] = {{"bold", 1, 22},  {"dim", 2, 22},   {"italic", 3, 23},
		    {"ul", 4, 24},    {"blink", 5, 25}, {"reverse", 7, 27},
		    {"strike", 9, 29}};
	bool neg = false;
	size_t i;

	if (!strncasecmp(w, "no", 2)) {
		neg = true;
		w += w[2] == '-' ? 3 : 2;
	}
	for (i = 0; i < sizeof(attr) / sizeof(*attr); i++)
		if (!strcasecmp(w, attr[i].name)) {
			tm_buf_printf(attrs, "%s%d", attrs->size ? ";" : "",
				      neg ? attr[i].off : attr[i].on);
			return true;
		}
	return false;
}

/* A colour value in git's syntax ("bold red", "#ff0000 ul", "reverse
 * 214 0") as an escape sequence (malloc'd; "" for "normal"), or NULL
 * when it is not one. */
static char *parse_color(const char *value)
{
	tm_buf attrs = TM_BUF_INIT, col[2] = {TM_BUF_INIT, TM_BUF_INIT};
	tm_buf out = TM_BUF_INIT;
	char *copy = tm_xstrdup(value), *w, *save = NULL;
	int ncolors = 0;
	bool ok = true;

	if (!strcasecmp(value, "reset")) {
		free(copy);
		return tm_xstrdup("\033[m");
	}
	for (w = strtok_r(copy, " \t", &save); w && ok;
	     w = strtok_r(NULL, " \t", &save)) {
		if (ncolors < 2 && color_value(&col[ncolors], ncolors, w))
			ncolors++;
		else
			ok = color_attr(&attrs, w);
	}
	free(copy);
	if (ok) {
		const char *parts[3] = {tm_buf_cstr(&attrs),
					tm_buf_cstr(&col[0]),
					tm_buf_cstr(&col[1])};
		bool any = false;
		size_t i;

		for (i = 0; i < 3; i++) {
			if (!*parts[i])
				continue;
			tm_buf_printf(&out, "%s%s", any ? ";" : "\033[",
				      parts[i]);
			any = true;
		}
		if (any)
			tm_buf_putc(&out, 'm');
	}
	tm_buf_release(&attrs);
	tm_buf_release(&col[0]);
	tm_buf_release(&col[1]);
	if (!ok) {
		tm_buf_release(&out);
		return NULL;
	}
	return tm_buf_detach(&out);
}

/* color.diff as git reads it: 1 on, 0 off, -1 auto, -2 unset. */
static int diff_color_config(tm_git *g)
{
	char *v = NULL;
	bool b;
	int w, error = tm_git_config_string(&v, g, "color.diff");

	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return -2;
	}
	if (error < 0)
		die_lib();
	w = !strcasecmp(v, "always")  ? 1
	    : !strcasecmp(v, "never") ? 0
	    : !strcasecmp(v, "auto")  ? -1
				      : -2;
	free(v);
	if (w != -2)
		return w;
	if (tm_git_config_bool(&b, g, "color.diff", false) < 0)
		die_lib();
	return b ? -1 : 0;
}

void dv_colors_load(void)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	tm_git *g = cli.store ? tm_store_git(cli.store) : NULL;
	size_t i;
	int on;

	if (colors_loaded)
		return;
	colors_loaded = true;
	if (global_opts.color || (nc && *nc) || !g ||
	    (on = diff_color_config(g)) == -2)
		on = cli_color();
	else if (on == -1)
		on = isatty(STDOUT_FILENO) && term && *term &&
		     strcmp(term, "dumb");
	colors_on = on;
	for (i = 0; i < DV_NSLOTS; i++) {
		tm_buf key = TM_BUF_INIT;
		char *v = NULL;

		slots[i] = NULL;
		if (!colors_on || !slot_names[i] || !g)
			continue;
		tm_buf_printf(&key, "color.diff.%s", slot_names[i]);
		if (tm_git_config_string(&v, g, tm_buf_cstr(&key)) == 0) {
			slots[i] = parse_color(v);
			if (!slots[i])
				die("invalid color value: %s (%s)", v,
				    tm_buf_cstr(&key));
		}
		tm_error_clear();
		free(v);
		tm_buf_release(&key);
	}
}

const char *dv_c(enum dv_slot slot)
{
	if (!colors_loaded)
		dv_colors_load();
	if (!colors_on)
		return "";
	return slots[slot] ? slots[slot] : slot_defaults[slot];
}

/* ---- words ---- */

static const char *or_none(const char *s)
{
	return s ? s : "(none)";
}

static const char *status_name(const char *s)
{
	return s ? s : "active";
}

static bool finished(const char *s)
{
	return s &&
	       (!strcmp(s, TM_STATUS_DONE) || !strcmp(s, TM_STATUS_ABANDONED));
}

/* The words for a status change: "done", "reopened (was done)". */
static void status_words(tm_buf *out, const tm_tdiff_field *f)
{
	if (!f->new_value && finished(f->old_value))
		tm_buf_printf(out, "reopened (was %s)", f->old_value);
	else if (finished(f->new_value) && !f->old_value)
		tm_buf_puts(out, f->new_value);
	else if (finished(f->new_value))
		tm_buf_printf(out, "%s (was %s)", f->new_value,
			      status_name(f->old_value));
	else
		tm_buf_printf(out, "status: %s (was %s)",
			      status_name(f->new_value),
			      status_name(f->old_value));
}

static void merged_words(tm_buf *out, const tm_tdiff_field *f)
{
	if (!f->new_value)
		tm_buf_printf(out, "no longer merged into %s", f->old_value);
	else if (!f->old_value)
		tm_buf_printf(out, "merged into %s", f->new_value);
	else
		tm_buf_printf(out, "merged into %s (was %s)", f->new_value,
			      f->old_value);
}

static void short_hex(tm_buf *out, const char *hex)
{
	tm_buf_put(out, hex, strlen(hex) < 7 ? strlen(hex) : 7);
}

/* One field's line (without indent): "moved: a -> b". */
static void field_words(tm_buf *out, const tm_tdiff_field *f)
{
	size_t i;

	if (!strcmp(f->name, "parentId")) {
		tm_buf_printf(out, "moved: %s -> %s",
			      f->old_value ? f->old_value : "(root)",
			      f->new_value ? f->new_value : "(root)");
	} else if (!strcmp(f->name, "status")) {
		status_words(out, f);
	} else if (!strcmp(f->name, "mergedInto")) {
		merged_words(out, f);
	} else if (!strcmp(f->name, "paths")) {
		tm_buf_puts(out, "paths:");
		for (i = 0; i < f->added.n; i++)
			tm_buf_printf(out, " +%s", f->added.items[i]);
		for (i = 0; i < f->removed.n; i++)
			tm_buf_printf(out, " -%s", f->removed.items[i]);
	} else if (!strcmp(f->name, "commit")) {
		if (!f->new_value) {
			tm_buf_puts(out, "review point removed");
		} else {
			tm_buf_puts(out, "reviewed at ");
			short_hex(out, f->new_value);
		}
	} else {
		tm_buf_printf(out, "%s: %s -> %s", f->name,
			      or_none(f->old_value), or_none(f->new_value));
	}
}

static const char *title_of(const tm_tdiff_entry *e)
{
	const tm_thread *t = e->after ? e->after : e->before;

	return t ? t->title : NULL;
}

char dv_letter(const tm_tdiff_entry *e)
{
	switch (e->kind) {
	case TM_TDIFF_ADDED:
		return 'A';
	case TM_TDIFF_REMOVED:
		return 'D';
	case TM_TDIFF_RENAMED:
		return 'R';
	case TM_TDIFF_CONFLICTED:
		return 'U';
	case TM_TDIFF_UNREADABLE:
		return 'X';
	case TM_TDIFF_MODIFIED:
		break;
	}
	return tm_tdiff_field_get(e, "status") ? 'S' : 'M';
}

static void counts(tm_buf *out, size_t a, size_t r, size_t w, size_t m)
{
	const char *sep = "";

	if (a) {
		tm_buf_printf(out, "+%zu", a);
		sep = " ";
	}
	if (r) {
		tm_buf_printf(out, "%s-%zu", sep, r);
		sep = " ";
	}
	if (w) {
		tm_buf_printf(out, "%s~%zu", sep, w);
		sep = " ";
	}
	if (m)
		tm_buf_printf(out, "%s=%zu", sep, m);
}

static void part(tm_buf *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void part(tm_buf *out, const char *fmt, ...)
{
	va_list ap;

	if (out->size)
		tm_buf_puts(out, ", ");
	va_start(ap, fmt);
	tm_buf_vprintf(out, fmt, ap);
	va_end(ap);
}

void dv_stat_parts(tm_buf *out, const tm_tdiff_entry *e)
{
	size_t a, r, w, m, i, sa = 0, sr = 0, smoved = 0;

	switch (e->kind) {
	case TM_TDIFF_ADDED:
		part(out, "added");
		break;
	case TM_TDIFF_REMOVED:
		part(out, "removed");
		break;
	case TM_TDIFF_RENAMED:
		part(out, "renamed from %s", e->old_id);
		break;
	case TM_TDIFF_CONFLICTED:
		part(out, "conflicted");
		return;
	case TM_TDIFF_UNREADABLE:
		part(out, "unreadable");
		return;
	case TM_TDIFF_MODIFIED:
		break;
	}
	tm_sdiff_totals(&e->summary, &a, &r, &w, &m);
	if (a + r + w + m) {
		tm_buf c = TM_BUF_INIT;

		counts(&c, a, r, w, m);
		part(out, "%s items", tm_buf_cstr(&c));
		tm_buf_release(&c);
	}
	for (i = 0; i < e->summary.n; i++) {
		const tm_sdiff_section *s = &e->summary.items[i];

		if (s->preamble)
			continue;
		sa += s->change == TM_SDIFF_SECTION_ADDED;
		sr += s->change == TM_SDIFF_SECTION_REMOVED;
		smoved += s->moved || s->renamed;
	}
	if (e->kind != TM_TDIFF_ADDED && e->kind != TM_TDIFF_REMOVED &&
	    (sa || sr)) {
		tm_buf c = TM_BUF_INIT;

		counts(&c, sa, sr, 0, 0);
		part(out, "%s sections", tm_buf_cstr(&c));
		tm_buf_release(&c);
	}
	if (smoved)
		part(out, "%zu section%s moved or renamed", smoved,
		     smoved == 1 ? "" : "s");
	for (i = 0; i < e->nfields; i++) {
		const tm_tdiff_field *f = &e->fields[i];
		tm_buf wds = TM_BUF_INIT;

		if (!strcmp(f->name, "parentId"))
			part(out, "moved");
		else if (!strcmp(f->name, "status")) {
			if (!f->new_value && finished(f->old_value))
				part(out, "reopened");
			else
				part(out, "%s", status_name(f->new_value));
		} else if (!strcmp(f->name, "mergedInto")) {
			merged_words(&wds, f);
			part(out, "%s", tm_buf_cstr(&wds));
		} else if (!strcmp(f->name, "commit"))
			part(out, "reviewed");
		else
			part(out, "%s", f->name);
		tm_buf_release(&wds);
	}
}

size_t dv_count(const tm_store_diff *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->items[i].diff.n;
	return n;
}

/* ---- text ---- */

/* `len` bytes of text on stdout, control characters as '?' (tabs kept). */
static void put_text(const char *text, size_t len)
{
	static tm_buf safe;

	if (!tm_text_needs_sanitize(text, len, TM_TEXT_KEEP_TAB)) {
		fwrite(text, 1, len, stdout);
		return;
	}
	tm_buf_clear(&safe);
	tm_text_sanitize(&safe, text, len, TM_TEXT_KEEP_TAB);
	fwrite(safe.ptr, 1, safe.size, stdout);
}

/* A line: indent, colour, `mark` and a space (when not 0), the text,
 * reset, newline.  No printf: a diff of 10,000 threads prints 100,000
 * lines (callgrind: printf was a quarter of it). */
static void put_marked(const char *indent, enum dv_slot slot, char mark,
		       const char *text, size_t len)
{
	const char *c = slot == DV_RESET ? "" : dv_c(slot);

	fputs(indent, stdout);
	fputs(c, stdout);
	if (mark) {
		putchar(mark);
		putchar(' ');
	}
	put_text(text, len);
	if (*c)
		fputs(dv_c(DV_RESET), stdout);
	putchar('\n');
}

static void put_line(const char *indent, enum dv_slot slot, const char *text)
{
	put_marked(indent, slot, 0, text, strlen(text));
}

static void put_linef(const char *indent, enum dv_slot slot, const char *fmt,
		      ...) __attribute__((format(printf, 3, 4)));
static void put_linef(const char *indent, enum dv_slot slot, const char *fmt,
		      ...)
{
	tm_buf b = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	put_line(indent, slot, tm_buf_cstr(&b));
	tm_buf_release(&b);
}

/* Each line of a unit's text after `mark`. */
static void put_unit_lines(const char *indent, enum dv_slot slot, char mark,
			   const char *text)
{
	const char *p = text;

	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		put_marked(indent, slot, mark, p, len);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void section_title(tm_buf *out, const tm_sdiff_section *s)
{
	const char *h = s->new_heading ? s->new_heading : s->old_heading;

	if (s->preamble) {
		tm_buf_puts(out, "(preamble)");
	} else {
		tm_buf_puts(out, "## ");
		tm_buf_puts(out, h);
	}
}

/* A section's first line: "## Notes (added)", "## B (moved)". */
static void section_line(tm_buf *out, const tm_sdiff_section *s,
			 bool with_counts)
{
	tm_buf notes = TM_BUF_INIT;

	section_title(out, s);
	if (s->change == TM_SDIFF_SECTION_ADDED)
		tm_buf_puts(&notes, "added");
	else if (s->change == TM_SDIFF_SECTION_REMOVED)
		tm_buf_puts(&notes, "removed");
	if (s->moved)
		tm_buf_puts(&notes, notes.size ? ", moved" : "moved");
	if (s->renamed) {
		tm_buf_puts(&notes, notes.size ? ", renamed from ## "
					       : "renamed from ## ");
		tm_buf_puts(&notes, s->old_heading);
	}
	if (notes.size) {
		tm_buf_puts(out, " (");
		tm_buf_puts(out, tm_buf_cstr(&notes));
		tm_buf_putc(out, ')');
	}
	if (with_counts && s->nunits) {
		tm_buf_puts(out, ": ");
		counts(out, s->added, s->removed, s->reworded, s->moved_units);
	}
	tm_buf_release(&notes);
}

static void print_units(const char *indent, const tm_sdiff_section *s)
{
	size_t k;

	for (k = 0; k < s->nunits; k++) {
		const tm_sdiff_unit *u = &s->units[k];

		switch (u->change) {
		case TM_SDIFF_ADDED:
			put_unit_lines(indent, DV_NEW, '+', u->new_text);
			break;
		case TM_SDIFF_REMOVED:
			put_unit_lines(indent, DV_OLD, '-', u->old_text);
			break;
		case TM_SDIFF_REWORDED:
			put_unit_lines(indent, DV_OLD, '~', u->old_text);
			put_unit_lines(indent, DV_NEW, '>', u->new_text);
			break;
		case TM_SDIFF_MOVED:
			put_unit_lines(indent, DV_NEW, '=', u->old_text);
			break;
		}
	}
}

static void print_entry(const tm_tdiff_entry *e, enum dv_mode mode,
			const char *indent)
{
	tm_buf ind4 = TM_BUF_INIT, ind6 = TM_BUF_INIT, b = TM_BUF_INIT;
	const char *title = title_of(e);
	size_t i;

	tm_buf_puts(&ind4, indent);
	tm_buf_puts(&ind4, "    ");
	tm_buf_puts(&ind6, indent);
	tm_buf_puts(&ind6, "      ");
	tm_buf_putc(&b, dv_letter(e));
	tm_buf_putc(&b, ' ');
	if (e->kind == TM_TDIFF_RENAMED) {
		tm_buf_puts(&b, e->old_id);
		tm_buf_puts(&b, " -> ");
	}
	tm_buf_puts(&b, e->id);
	if (title) {
		tm_buf_puts(&b, "  ");
		tm_buf_puts(&b, title);
	}
	put_line(indent, DV_META, tm_buf_cstr(&b));
	if (e->kind == TM_TDIFF_ADDED || e->kind == TM_TDIFF_REMOVED) {
		const tm_thread *t = e->after ? e->after : e->before;
		const char *verb = e->after ? "under" : "was under";

		tm_buf_clear(&b);
		if (t->parent_id) {
			tm_buf_puts(&b, verb);
			tm_buf_putc(&b, ' ');
			tm_buf_puts(&b, t->parent_id);
		} else {
			tm_buf_puts(&b, e->after ? "a root" : "was a root");
		}
		put_line(ind4.ptr, DV_RESET, tm_buf_cstr(&b));
	}
	if (e->message)
		put_line(ind4.ptr, DV_RESET, e->message);
	for (i = 0; i < e->nfields; i++) {
		tm_buf_clear(&b);
		field_words(&b, &e->fields[i]);
		put_line(ind4.ptr, DV_RESET, tm_buf_cstr(&b));
	}
	for (i = 0; i < e->summary.n; i++) {
		const tm_sdiff_section *s = &e->summary.items[i];

		tm_buf_clear(&b);
		section_line(&b, s, mode == DV_SUMMARY);
		put_line(ind4.ptr, DV_FRAG, tm_buf_cstr(&b));
		if (mode == DV_PATCH)
			print_units(ind6.ptr, s);
	}
	tm_buf_release(&ind4);
	tm_buf_release(&ind6);
	tm_buf_release(&b);
}

/* With several projects, or one renamed, each is headed by its id. */
static bool project_headers(const tm_store_diff *d)
{
	return d->n > 1 ||
	       (d->n == 1 && d->items[0].old_project &&
		strcmp(d->items[0].old_project, d->items[0].project));
}

static void project_header(const tm_store_diff_project *p, const char *indent)
{
	if (p->old_project && strcmp(p->old_project, p->project))
		put_linef(indent, DV_META, "project %s (renamed from %s)",
			  p->project, p->old_project);
	else if (!p->old_project)
		put_linef(indent, DV_META, "project %s (added)", p->project);
	else
		put_linef(indent, DV_META, "project %s", p->project);
}

static void print_stat(const tm_store_diff *d, const char *indent, bool headers)
{
	size_t i, k, width = 0, n = 0, added = 0, removed = 0;

	for (i = 0; i < d->n; i++)
		for (k = 0; k < d->items[i].diff.n; k++) {
			size_t len = strlen(d->items[i].diff.items[k].id);

			if (headers)
				len += strlen(d->items[i].project) + 1;
			if (len > width)
				width = len;
		}
	for (i = 0; i < d->n; i++)
		for (k = 0; k < d->items[i].diff.n; k++) {
			const tm_tdiff_entry *e = &d->items[i].diff.items[k];
			tm_buf name = TM_BUF_INIT, parts = TM_BUF_INIT;

			if (headers)
				tm_buf_printf(&name, "%s/",
					      d->items[i].project);
			tm_buf_puts(&name, e->id);
			dv_stat_parts(&parts, e);
			put_linef(indent, DV_RESET, " %-*s | %s", (int)width,
				  name.ptr, tm_buf_cstr(&parts));
			tm_buf_release(&name);
			tm_buf_release(&parts);
			n++;
			added += e->kind == TM_TDIFF_ADDED;
			removed += e->kind == TM_TDIFF_REMOVED;
		}
	if (n) {
		tm_buf b = TM_BUF_INIT;

		tm_buf_printf(&b, " %zu thread%s changed", n,
			      n == 1 ? "" : "s");
		if (added)
			tm_buf_printf(&b, ", %zu added", added);
		if (removed)
			tm_buf_printf(&b, ", %zu removed", removed);
		put_line(indent, DV_RESET, tm_buf_cstr(&b));
		tm_buf_release(&b);
	}
}

void dv_print(const tm_store_diff *d, enum dv_mode mode, const char *indent)
{
	bool headers = project_headers(d);
	size_t i, k;

	if (mode == DV_STAT) {
		print_stat(d, indent, headers);
		return;
	}
	for (i = 0; i < d->n; i++) {
		const tm_store_diff_project *p = &d->items[i];

		if (headers && mode != DV_NAME_STATUS)
			project_header(p, indent);
		for (k = 0; k < p->diff.n; k++) {
			const tm_tdiff_entry *e = &p->diff.items[k];
			tm_buf b = TM_BUF_INIT;

			if (mode != DV_NAME_STATUS) {
				print_entry(e, mode, indent);
				continue;
			}
			tm_buf_printf(&b, "%c\t", dv_letter(e));
			if (headers)
				tm_buf_printf(&b, "%s/", p->project);
			if (e->kind == TM_TDIFF_RENAMED) {
				tm_buf_printf(&b, "%s\t", e->old_id);
				if (headers)
					tm_buf_printf(&b, "%s/", p->project);
			}
			tm_buf_puts(&b, e->id);
			put_line(indent, DV_RESET, tm_buf_cstr(&b));
			tm_buf_release(&b);
		}
	}
}

/* ---- markdown ---- */

/* Sections longer than this many lines are folded in <details>. */
#define MD_FOLD_LINES 10

static size_t longest_backticks(const tm_sdiff_section *s)
{
	size_t k, best = 0;

	for (k = 0; k < s->nunits; k++) {
		const char *t[2] = {s->units[k].old_text, s->units[k].new_text};
		int j;

		for (j = 0; j < 2; j++) {
			const char *p = t[j];
			size_t run = 0;

			for (; p && *p; p++) {
				run = *p == '`' ? run + 1 : 0;
				if (run > best)
					best = run;
			}
		}
	}
	return best;
}

static size_t unit_lines(const char *t)
{
	size_t n = 1;

	for (; t && *t; t++)
		n += *t == '\n';
	return n;
}

static void md_unit_lines(char mark, const char *text)
{
	const char *p = text;

	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		tm_buf b = TM_BUF_INIT;

		tm_text_sanitize(&b, p, len, TM_TEXT_KEEP_TAB);
		printf("%c %s\n", mark, tm_buf_cstr(&b));
		tm_buf_release(&b);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void md_section(const tm_sdiff_section *s)
{
	tm_buf line = TM_BUF_INIT;
	size_t k, lines = 0, fence = longest_backticks(s) + 1;
	bool fold;

	for (k = 0; k < s->nunits; k++)
		lines += unit_lines(s->units[k].old_text) +
			 (s->units[k].change == TM_SDIFF_REWORDED
				  ? unit_lines(s->units[k].new_text)
				  : 0);
	fold = lines > MD_FOLD_LINES;
	section_line(&line, s, true);
	if (fold)
		printf("<details><summary>%s</summary>\n",
		       cli_safe(tm_buf_cstr(&line)));
	else
		printf("**%s**\n", cli_safe(tm_buf_cstr(&line)));
	tm_buf_release(&line);
	if (s->nunits) {
		if (fence < 3)
			fence = 3;
		printf("\n%.*sdiff\n", (int)fence,
		       "````````````````````````````````````````````````");
		for (k = 0; k < s->nunits; k++) {
			const tm_sdiff_unit *u = &s->units[k];

			if (u->change == TM_SDIFF_ADDED)
				md_unit_lines('+', u->new_text);
			else if (u->change == TM_SDIFF_REMOVED)
				md_unit_lines('-', u->old_text);
			else if (u->change == TM_SDIFF_MOVED)
				md_unit_lines('!', u->old_text);
			else {
				md_unit_lines('-', u->old_text);
				md_unit_lines('+', u->new_text);
			}
		}
		printf("%.*s\n", (int)fence,
		       "````````````````````````````````````````````````");
	}
	printf(fold ? "\n</details>\n\n" : "\n");
}

static void md_entry(const tm_tdiff_entry *e, const char *project)
{
	const char *title = title_of(e);
	tm_buf b = TM_BUF_INIT;
	size_t i;

	printf("#### %c `%s`", dv_letter(e), cli_safe(e->id));
	if (project)
		printf(" (%s)", cli_safe(project));
	if (title)
		printf(" %s", cli_safe(title));
	printf("\n\n");
	dv_stat_parts(&b, e);
	printf("*%s*\n\n", cli_safe(tm_buf_cstr(&b)));
	if (e->message)
		printf("%s\n\n", cli_safe(e->message));
	if (e->kind == TM_TDIFF_ADDED || e->kind == TM_TDIFF_REMOVED) {
		const tm_thread *t = e->after ? e->after : e->before;

		if (t->parent_id)
			printf("- %s `%s`\n", e->after ? "under" : "was under",
			       cli_safe(t->parent_id));
	}
	for (i = 0; i < e->nfields; i++) {
		tm_buf_clear(&b);
		field_words(&b, &e->fields[i]);
		printf("- %s\n", cli_safe(tm_buf_cstr(&b)));
	}
	if (e->nfields || e->kind == TM_TDIFF_ADDED ||
	    e->kind == TM_TDIFF_REMOVED)
		putchar('\n');
	for (i = 0; i < e->summary.n; i++)
		md_section(&e->summary.items[i]);
	tm_buf_release(&b);
}

void dv_print_markdown(const tm_store_diff *d, const char *title)
{
	bool headers = project_headers(d);
	size_t i, k, n = dv_count(d);

	printf("### %s\n\n", cli_safe(title));
	if (!n) {
		printf("No thread changed.\n");
		return;
	}
	printf("%zu thread%s changed.\n\n", n, n == 1 ? "" : "s");
	for (i = 0; i < d->n; i++)
		for (k = 0; k < d->items[i].diff.n; k++)
			md_entry(&d->items[i].diff.items[k],
				 headers ? d->items[i].project : NULL);
}

/* ---- JSON ---- */

static void add_str(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *strv_json(const tm_strv *v)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < v->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->items[i]));
	return a;
}

static cJSON *version_json(const tm_thread *t)
{
	cJSON *o;

	if (!t)
		return cJSON_CreateNull();
	o = cli_thread_json(t, false, 0);
	cJSON_DeleteItemFromObject(o, "active");
	cJSON_DeleteItemFromObject(o, "flags");
	return o;
}

static const char *kind_name(tm_tdiff_kind k)
{
	static const char *const names[] = {"added",      "removed",
					    "modified",   "renamed",
					    "conflicted", "unreadable"};

	return names[k];
}

static cJSON *section_json(const tm_sdiff_section *s)
{
	static const char *const changes[] = {"added", "removed", "changed",
					      "kept"};
	static const char *const unit_changes[] = {"added", "removed",
						   "reworded", "moved"};
	cJSON *o = cJSON_CreateObject(), *items;
	size_t k;

	cJSON_AddStringToObject(o, "change", changes[s->change]);
	cJSON_AddBoolToObject(o, "preamble", s->preamble);
	add_str(o, "heading", s->new_heading);
	add_str(o, "oldHeading", s->old_heading);
	cJSON_AddBoolToObject(o, "moved", s->moved);
	cJSON_AddBoolToObject(o, "renamed", s->renamed);
	cJSON_AddNumberToObject(o, "added", (double)s->added);
	cJSON_AddNumberToObject(o, "removed", (double)s->removed);
	cJSON_AddNumberToObject(o, "reworded", (double)s->reworded);
	cJSON_AddNumberToObject(o, "movedItems", (double)s->moved_units);
	items = cJSON_AddArrayToObject(o, "items");
	for (k = 0; k < s->nunits; k++) {
		const tm_sdiff_unit *u = &s->units[k];
		cJSON *i = cJSON_CreateObject();

		cJSON_AddStringToObject(i, "change", unit_changes[u->change]);
		cJSON_AddBoolToObject(i, "listItem", u->item);
		add_str(i, "old", u->old_text);
		add_str(i, "new", u->new_text);
		cJSON_AddItemToArray(items, i);
	}
	return o;
}

static cJSON *entry_json(const tm_tdiff_entry *e)
{
	cJSON *o = cJSON_CreateObject(), *fields, *sections;
	tm_buf b = TM_BUF_INIT;
	char letter[2] = {dv_letter(e), 0};
	size_t i;

	cJSON_AddStringToObject(o, "status", kind_name(e->kind));
	cJSON_AddStringToObject(o, "letter", letter);
	cJSON_AddStringToObject(o, "id", e->id);
	add_str(o, "oldId", e->old_id);
	add_str(o, "title", title_of(e));
	dv_stat_parts(&b, e);
	cJSON_AddStringToObject(o, "stat", tm_buf_cstr(&b));
	tm_buf_release(&b);
	add_str(o, "message", e->message);
	cJSON_AddItemToObject(o, "before", version_json(e->before));
	cJSON_AddItemToObject(o, "after", version_json(e->after));
	fields = cJSON_AddArrayToObject(o, "fields");
	for (i = 0; i < e->nfields; i++) {
		const tm_tdiff_field *f = &e->fields[i];
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "field", f->name);
		if (!strcmp(f->name, "paths")) {
			cJSON_AddItemToObject(x, "added", strv_json(&f->added));
			cJSON_AddItemToObject(x, "removed",
					      strv_json(&f->removed));
		} else {
			add_str(x, "old", f->old_value);
			add_str(x, "new", f->new_value);
		}
		cJSON_AddItemToArray(fields, x);
	}
	sections = cJSON_AddArrayToObject(o, "sections");
	for (i = 0; i < e->summary.n; i++)
		cJSON_AddItemToArray(sections,
				     section_json(&e->summary.items[i]));
	return o;
}

cJSON *dv_json_projects(const tm_store_diff *d)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		const tm_store_diff_project *p = &d->items[i];
		cJSON *o = cJSON_CreateObject(), *threads;

		cJSON_AddStringToObject(o, "project", p->project);
		add_str(o, "oldProject", p->old_project);
		threads = cJSON_AddArrayToObject(o, "threads");
		for (k = 0; k < p->diff.n; k++)
			cJSON_AddItemToArray(threads,
					     entry_json(&p->diff.items[k]));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
