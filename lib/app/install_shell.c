/*
 * install's reading of a user's shell hook (install_internal.h): where its
 * commands start and whether one ends the script, so that our block goes
 * where it runs and doctor can tell when it would not.  A scanner, not a
 * shell: quotes, `\`, `$(…)`, `${…}`, back quotes, comments, here-documents
 * and the compound commands (if, case, for, while, until, `{`, `(`) are
 * followed; aliases, functions called and `eval` are not.
 */
#include "install_internal.h"

#include <string.h>

/* What the scanner learns of a script. */
struct tm_install__sh {
	bool code;    /* it has a command */
	size_t first; /* where the line of its first command starts */
	size_t last;  /* where the line of its last top-level command starts */
	size_t end;   /* where that command's last token ends */
	bool last_ends; /* `exit` or `exec` in command position in it */
};

/* Folders of compound commands followed; deeper ones are counted only. */
#define NEST_MAX 64
/* Here-documents opened on one line. */
#define HEREDOC_MAX 8
#define DELIM_MAX   64

struct scan {
	const char *d;
	size_t len, i;
	char stack[NEST_MAX];
	size_t depth, over;
	bool cmdpos; /* the next word is a command name */
	bool redir;  /* the next word is a redirection's target */
	bool fresh;  /* a new top-level command starts at the next token */
	bool joined; /* the last token was `&&`, `||` or `|`: a line end
			after it does not end the command */
	size_t line; /* where the current line starts */
	struct {
		char text[DELIM_MAX];
		size_t n;
		bool strip;
	} hd[HEREDOC_MAX];
	size_t nhd;
	struct tm_install__sh *out;
};

static void push(struct scan *s, char c)
{
	if (s->depth < NEST_MAX && !s->over)
		s->stack[s->depth++] = c;
	else
		s->over++;
}

static void pop(struct scan *s, char c)
{
	if (s->over)
		s->over--;
	else if (s->depth && s->stack[s->depth - 1] == c)
		s->depth--;
}

static bool top_level(const struct scan *s)
{
	return !s->depth && !s->over;
}

/* A token starts: the first of a new top-level command? */
static void token(struct scan *s)
{
	if (!s->fresh)
		return;
	s->fresh = false;
	s->out->last = s->line;
	s->out->last_ends = false;
	if (!s->out->code) {
		s->out->code = true;
		s->out->first = s->line;
	}
}

/* Skip to the byte after the quote closing the one at s->i. */
static void skip_quoted(struct scan *s, char q)
{
	for (s->i++; s->i < s->len && s->d[s->i] != q; s->i++)
		if (q != '\'' && s->d[s->i] == '\\')
			s->i++;
	if (s->i < s->len)
		s->i++;
}

/* Skip `$(…)` or `${…}` from its opening bracket, nested ones included. */
static void skip_group(struct scan *s, char open, char close)
{
	size_t n = 0;

	while (s->i < s->len) {
		char c = s->d[s->i];

		if (c == '\\') {
			s->i += 2;
			continue;
		}
		if (c == '\'' || c == '"' || c == '`') {
			skip_quoted(s, c);
			continue;
		}
		s->i++;
		if (c == open)
			n++;
		else if (c == close && --n == 0)
			return;
	}
}

static bool is_break(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' ||
	       c == '&' || c == '|' || c == '(' || c == ')' || c == '<' ||
	       c == '>';
}

/* Read one word from s->i; *plain: no quote or escape in it. */
static void read_word(struct scan *s, size_t *start, size_t *end, bool *plain)
{
	*start = s->i;
	*plain = true;
	while (s->i < s->len && !is_break(s->d[s->i])) {
		char c = s->d[s->i];

		if (c == '\\') {
			*plain = false;
			s->i += 2;
		} else if (c == '\'' || c == '"' || c == '`') {
			*plain = false;
			skip_quoted(s, c);
		} else if (c == '$' && s->i + 1 < s->len &&
			   (s->d[s->i + 1] == '(' || s->d[s->i + 1] == '{')) {
			*plain = false;
			s->i++;
			skip_group(s, s->d[s->i],
				   s->d[s->i] == '(' ? ')' : '}');
		} else {
			s->i++;
		}
	}
	if (s->i > s->len)
		s->i = s->len;
	*end = s->i;
}

static bool word_is(const struct scan *s, size_t a, size_t b, const char *w)
{
	size_t n = strlen(w);

	return b - a == n && !memcmp(s->d + a, w, n);
}

/* After `exec` at s->i: does a command follow (not only redirections)? */
static bool exec_runs(const struct scan *s)
{
	size_t i = s->i;

	while (i < s->len && tm_install__is_blank(s->d[i]))
		i++;
	while (i < s->len && s->d[i] >= '0' && s->d[i] <= '9')
		i++;
	return i < s->len && !is_break(s->d[i]) && s->d[i] != '#';
}

/* The here-document operator `<<` at s->i: note its delimiter. */
static void heredoc(struct scan *s)
{
	size_t a, b, k;
	bool plain, strip = false;

	s->i += 2;
	if (s->i < s->len && s->d[s->i] == '-') {
		strip = true;
		s->i++;
	}
	while (s->i < s->len && tm_install__is_blank(s->d[s->i]))
		s->i++;
	read_word(s, &a, &b, &plain);
	if (s->nhd == HEREDOC_MAX)
		return;
	s->hd[s->nhd].n = 0;
	s->hd[s->nhd].strip = strip;
	for (k = a; k < b; k++) {
		char c = s->d[k];

		if (c == '\'' || c == '"' || c == '\\')
			continue;
		if (s->hd[s->nhd].n < DELIM_MAX)
			s->hd[s->nhd].text[s->hd[s->nhd].n++] = c;
	}
	s->nhd++;
}

/* At the start of a line after here-document operators: skip the bodies. */
static void skip_bodies(struct scan *s)
{
	size_t h;
	struct tm_install__line l;

	for (h = 0; h < s->nhd; h++) {
		size_t pos = s->i;

		while (tm_install__next_line(s->d, s->len, &pos, &l)) {
			size_t a = l.start;

			if (s->hd[h].strip)
				while (a < l.end && s->d[a] == '\t')
					a++;
			s->i = pos;
			if (l.end - a == s->hd[h].n &&
			    !memcmp(s->d + a, s->hd[h].text, s->hd[h].n))
				break;
		}
	}
	s->nhd = 0;
	s->line = s->i;
}

/*
 * The reserved words that open or close a compound command: the mark
 * they push on the stack or pop from it, and whether a command name may
 * follow them (`if true`, but `for i in`, `case x in`, `fi;`).
 */
static const struct {
	const char *word;
	char mark;
	bool opens;
	bool cmd_follows;
} compound[] = {
	{"if", 'i', true, true},      {"while", 'l', true, true},
	{"until", 'l', true, true},   {"for", 'l', true, false},
	{"select", 'l', true, false}, {"case", 'c', true, false},
	{"{", '{', true, true},       {"fi", 'i', false, false},
	{"done", 'l', false, false},  {"esac", 'c', false, false},
	{"}", '{', false, false},
};

static void word(struct scan *s)
{
	size_t a, b, i;
	bool plain, was_cmd = s->cmdpos && !s->redir;

	read_word(s, &a, &b, &plain);
	if (s->redir) {
		s->redir = false;
		return;
	}
	if (!was_cmd || !plain) {
		s->cmdpos = false;
		return;
	}
	for (i = 0; i < sizeof(compound) / sizeof(*compound); i++) {
		if (!word_is(s, a, b, compound[i].word))
			continue;
		if (compound[i].opens)
			push(s, compound[i].mark);
		else
			pop(s, compound[i].mark);
		if (!compound[i].cmd_follows)
			s->cmdpos = false;
		return;
	}
	if (word_is(s, a, b, "then") || word_is(s, a, b, "do") ||
	    word_is(s, a, b, "else") || word_is(s, a, b, "elif") ||
	    word_is(s, a, b, "!")) {
		/* a command name follows */
	} else if (word_is(s, a, b, "exit") ||
		   (word_is(s, a, b, "exec") && exec_runs(s))) {
		s->out->last_ends = true;
		s->cmdpos = false;
	} else if (!memchr(s->d + a, '=', b - a)) {
		s->cmdpos = false; /* an assignment keeps the command to come */
	}
}

static void scan_sh(struct tm_install__sh *out, const char *d, size_t len)
{
	struct scan s;

	memset(&s, 0, sizeof(s));
	memset(out, 0, sizeof(*out));
	s.d = d;
	s.len = len;
	s.cmdpos = true;
	s.fresh = true;
	s.out = out;
	while (s.i < len) {
		char c = d[s.i];
		char n = s.i + 1 < len ? d[s.i + 1] : '\0';
		bool joins = false;

		if (c == ' ' || c == '\t' || c == '\r') {
			s.i++;
		} else if (c == '\\' && n == '\n') {
			s.i += 2; /* the command goes on */
			s.line = s.i;
		} else if (c == '\n') {
			s.i++;
			s.line = s.i;
			if (s.nhd)
				skip_bodies(&s);
			if (top_level(&s) && !s.joined)
				s.fresh = true;
			s.cmdpos = true;
			s.redir = false;
		} else if (c == '#') {
			while (s.i < len && d[s.i] != '\n')
				s.i++;
		} else if (c == ';' || c == '&' || c == '|') {
			token(&s);
			s.i += (n == c || (c == ';' && n == '&')) ? 2 : 1;
			s.cmdpos = true;
			joins = c == '|' || (c == '&' && n == '&');
		} else if (c == '(') {
			token(&s);
			s.i++;
			if (!s.cmdpos && n == ')') {
				s.i++; /* a function's `()` */
			} else {
				push(&s, '(');
			}
			s.cmdpos = true;
		} else if (c == ')') {
			token(&s);
			s.i++;
			if (s.depth && s.stack[s.depth - 1] == '(' && !s.over)
				s.depth--;
			else if (s.over)
				s.over--;
			s.cmdpos = true; /* or a case pattern's end */
		} else if (c == '<' && n == '<' &&
			   !(s.i + 2 < len && d[s.i + 2] == '<')) {
			token(&s);
			heredoc(&s);
		} else if (c == '<' || c == '>') {
			token(&s);
			while (s.i < len && (d[s.i] == '<' || d[s.i] == '>' ||
					     d[s.i] == '&' || d[s.i] == '|'))
				s.i++;
			s.redir = true;
		} else {
			token(&s);
			word(&s);
		}
		if (c == '\n' || c == '#' || (c == '\\' && n == '\n') ||
		    c == ' ' || c == '\t' || c == '\r')
			continue;
		/* a token: `&&`, `||` or `|` at a line's end joins the next */
		s.joined = joins;
		if (!s.fresh && s.i > out->end)
			out->end = s.i;
	}
}

bool tm_install__last_command(const char *d, size_t len, size_t *start,
			      size_t *end, bool *ends)
{
	struct tm_install__sh sh;

	scan_sh(&sh, d, len);
	if (!sh.code)
		return false;
	*start = sh.last;
	*end = sh.end;
	*ends = sh.last_ends;
	return true;
}
