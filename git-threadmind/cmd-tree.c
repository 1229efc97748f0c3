/* git threadmind tree: the thread tree, drawn, as JSON or as Graphviz. */
#include "builtin.h"
#include "view.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const tree_usage[] = {
	"git threadmind tree [--all] [--json | --dot]",
	NULL,
};

/* The last shown child of each node, so that lines end with └──. */
static long *last_shown_children(const tm_view *v)
{
	long *last = tm_xcalloc(v->tree->n + 1, sizeof(long));
	size_t i, c;

	for (i = 0; i < v->tree->n; i++) {
		const tm_tree_node *n = &v->tree->nodes[i];

		last[i] = -1;
		for (c = 0; c < n->nchildren; c++)
			if (v->shown[n->children[c]])
				last[i] = (long)n->children[c];
	}
	last[v->tree->n] = -1; /* the virtual parent of the roots */
	for (c = 0; c < v->tree->nroots; c++)
		if (v->shown[v->tree->roots[c]])
			last[v->tree->n] = (long)v->tree->roots[c];
	return last;
}

static void print_flags(unsigned flags, const tm_thread *t)
{
	if (t->status)
		printf(" %s[%s]%s", cli_c("dim"), cli_safe(t->status),
		       cli_c("reset"));
	/* a parent whose file is there but does not parse is no orphan's
	 * missing parent: the warning above names its file */
	if (flags & TM_TREE_ORPHAN)
		printf(" %s(orphan: parent '%s' %s)%s", cli_c("red"),
		       cli_safe(t->parent_id),
		       tm_store_thread_exists(cli.store, cli.project,
					      t->parent_id)
			       ? "unreadable"
			       : "missing",
		       cli_c("reset"));
	if (flags & TM_TREE_CYCLE)
		printf(" %s(cycle: parent '%s')%s", cli_c("red"),
		       cli_safe(t->parent_id), cli_c("reset"));
	if (flags & TM_VIEW_STALE)
		printf(" %s(stale)%s", cli_c("yellow"), cli_c("reset"));
	if (flags & TM_VIEW_NO_SUMMARY)
		printf(" %s(no summary yet)%s", cli_c("dim"), cli_c("reset"));
	if (flags & TM_VIEW_UNINTEGRATED)
		printf(" %s(holds lines '%s' lacks: git threadmind merge "
		       "--again %s)%s",
		       cli_c("yellow"), cli_safe(t->merged_into), t->id,
		       cli_c("reset"));
}

/*
 * Each line's prefix is its parent's plus one column; from VIEW_MAX_DEPTH
 * on the prefix stops growing and the line shows its depth instead
 * (`└── [depth 31] id  title`): output and memory stay linear in the
 * number of threads however deep the chain.
 */
static void draw(const tm_view *v)
{
	const bool uni = cli_unicode();
	const char *tee = uni ? "├── " : "|-- ", *elbow = uni ? "└── " : "`-- ";
	const char *pipe = uni ? "│   " : "|   ";
	long *last = last_shown_children(v);
	tm_buf prefix = TM_BUF_INIT;
	size_t *plen = tm_xcalloc(v->tree->n + 1, sizeof(size_t));
	size_t k;

	for (k = 0; k < v->norder; k++) {
		size_t i = v->order[k];
		const tm_tree_node *n = &v->tree->nodes[i];
		const tm_thread *t = n->thread;
		long parent_slot = n->parent < 0 ? (long)v->tree->n : n->parent;
		bool is_last = last[parent_slot] == (long)i;
		bool active = tm_view_is_active(v, i);
		bool dim = tm_thread_is_finished(t);

		if (!v->shown[i])
			continue;
		tm_buf_truncate(&prefix, n->parent < 0 ? 0 : plen[n->parent]);
		printf("%s%s%s", active ? cli_c("green") : "",
		       active ? "* " : "  ", active ? cli_c("reset") : "");
		if (n->parent >= 0)
			printf("%s%s", tm_buf_cstr(&prefix),
			       is_last ? elbow : tee);
		if (n->depth > VIEW_MAX_DEPTH)
			printf("%s[depth %zu]%s ", cli_c("dim"), n->depth,
			       cli_c("reset"));
		printf("%s%s%s%s  %s%s", dim ? cli_c("dim") : "",
		       active ? cli_c("bold") : cli_c("yellow"), t->id,
		       cli_c("reset"), dim ? cli_c("dim") : "",
		       cli_safe(t->title));
		if (dim)
			printf("%s", cli_c("reset"));
		print_flags(v->flags[i], t);
		putchar('\n');
		if (n->parent >= 0 && n->depth < VIEW_MAX_DEPTH)
			tm_buf_puts(&prefix, is_last ? "    " : pipe);
		plen[i] = prefix.size;
	}
	free(plen);
	free(last);
	tm_buf_release(&prefix);
}

static void dot_id(tm_buf *out, const char *s)
{
	tm_json_put_string(out, s, strlen(s));
}

static void dot(const tm_view *v)
{
	tm_buf out = TM_BUF_INIT;
	size_t k;

	tm_buf_puts(&out, "digraph threadmind {\n"
			  "  rankdir=LR;\n  node [shape=box];\n");
	for (k = 0; k < v->norder; k++) {
		const tm_tree_node *n = &v->tree->nodes[v->order[k]];
		tm_buf label = TM_BUF_INIT;

		if (!v->shown[v->order[k]])
			continue;
		tm_buf_printf(&label, "%s\n%s", n->thread->id,
			      n->thread->title ? n->thread->title : "");
		tm_buf_puts(&out, "  ");
		dot_id(&out, n->thread->id);
		tm_buf_puts(&out, " [label=");
		dot_id(&out, tm_buf_cstr(&label));
		if (tm_view_is_active(v, v->order[k]))
			tm_buf_puts(&out, ", penwidth=2");
		if (tm_thread_is_finished(n->thread))
			tm_buf_puts(&out, ", style=dashed");
		if (n->flags & (TM_TREE_ORPHAN | TM_TREE_CYCLE))
			tm_buf_puts(&out, ", color=red");
		else if (v->flags[v->order[k]] & TM_VIEW_STALE)
			tm_buf_puts(&out, ", color=orange");
		tm_buf_puts(&out, "];\n");
		if (n->parent >= 0) {
			tm_buf_puts(&out, "  ");
			dot_id(&out, v->tree->nodes[n->parent].thread->id);
			tm_buf_puts(&out, " -> ");
			dot_id(&out, n->thread->id);
			tm_buf_puts(&out, ";\n");
		}
		tm_buf_release(&label);
	}
	tm_buf_puts(&out, "}\n");
	fwrite(out.ptr, 1, out.size, stdout);
	tm_buf_release(&out);
}

/*
 * The indentation levels `tree --json` leaves out from a thread object of
 * the given depth on: each level of threads is two levels of JSON (the
 * object, its "children" array), indented up to VIEW_MAX_DEPTH only.
 */
static size_t json_outdent(size_t depth)
{
	return depth > VIEW_MAX_DEPTH ? 2 * (depth - VIEW_MAX_DEPTH) : 0;
}

/* Close the object of `node` (its "children" array still open). */
static void json_close(tm_json_writer *w, const tm_view *v, size_t node)
{
	w->outdent = json_outdent(v->tree->nodes[node].depth);
	tm_json_close(w, ']');
	tm_json_close(w, '}');
}

/*
 * Streamed as the pre-order walk goes, without recursion: each thread
 * object is written as JSON.stringify(…, null, 2) would place it, its
 * "children" array left open until the walk leaves it.  Memory is one
 * object at a time plus the chain of open ancestors; the indentation stops
 * growing at VIEW_MAX_DEPTH (whitespace only: the document is the same).
 */
static void json(const tm_view *v)
{
	tm_json_writer *w = cli_json_begin();
	size_t *open = tm_xcalloc(v->tree->n + 1, sizeof(size_t));
	size_t k, nopen = 0;

	tm_json_open(w, '{');
	tm_json_key(w, "project");
	tm_json_string(w, cli.project);
	if (v->active) {
		tm_json_key(w, "activeThreadId");
		tm_json_string(w, v->active);
	}
	tm_json_key(w, "roots");
	tm_json_open(w, '[');
	for (k = 0; k < v->norder; k++) {
		size_t i = v->order[k];
		const tm_tree_node *n = &v->tree->nodes[i];
		cJSON *o;

		if (!v->shown[i])
			continue;
		while (nopen > n->depth)
			json_close(w, v, open[--nopen]);
		o = cli_thread_json(n->thread, tm_view_is_active(v, i),
				    v->flags[i]);
		cJSON_AddNumberToObject(o, "depth", (double)n->depth);
		w->outdent = json_outdent(n->depth);
		tm_json_open(w, '{');
		cli_json_members(w, o);
		cJSON_Delete(o);
		tm_json_key(w, "children");
		tm_json_open(w, '[');
		cli_json_flush();
		open[nopen++] = i;
	}
	while (nopen > 0)
		json_close(w, v, open[--nopen]);
	w->outdent = 0;
	tm_json_close(w, ']');
	tm_json_close(w, '}');
	cli_json_end();
	free(open);
}

int cmd_tree(int argc, const char **argv)
{
	bool all = false, as_json = false, as_dot = false;
	const struct option opts[] = {
		OPT_BOOL_('a', "all", &all, "also show done and abandoned"),
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_BOOL_(0, "dot", &as_dot, "print a Graphviz graph"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_view v;

	if (parse_options(argc, argv, opts, tree_usage) != 0)
		usage_msg(tree_usage, opts, "tree takes no arguments");
	if (as_json && as_dot)
		usage_msg(tree_usage, opts,
			  "--json and --dot exclude each other");
	cli_open();
	view_load(&v, all);
	if (as_json)
		json(&v);
	else if (as_dot)
		dot(&v);
	else
		draw(&v);
	tm_view_free(&v);
	return 0;
}
