/* Slugs, id validation and id prefix resolution (see slug.h). */
#include "slug.h"
#include "error.h"

#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

/*
 * Letters that Unicode does not decompose into a base letter and a mark,
 * with the spelling the seed's rules give them.
 */
static const struct {
	int32_t cp;
	const char *ascii;
} letters[] = {
	{0x00C6, "ae"}, /* Æ */
	{0x00E6, "ae"}, /* æ */
	{0x00D8, "o"},  /* Ø */
	{0x00F8, "o"},  /* ø */
	{0x00DE, "th"}, /* Þ */
	{0x00FE, "th"}, /* þ */
	{0x00DF, "ss"}, /* ß */
	{0x1E9E, "ss"}, /* ẞ */
	{0x0110, "d"},  /* Đ */
	{0x0111, "d"},  /* đ */
	{0x0141, "l"},  /* Ł */
	{0x0142, "l"},  /* ł */
	{0x0152, "oe"}, /* Œ */
	{0x0153, "oe"}, /* œ */
};

/*
 * NFKD never produces more than 18 code points for one character
 * (U+FDFA); characters past this size would be dropped.
 */
#define DECOMPOSE_MAX 32

/* How much of an id or argument an error message shows. */
#define QUOTE_MAX 64

/* The slug being built: dashes are held back until a letter follows. */
struct slug {
	tm_buf out;
	bool dash;
};

/* The Unicode White_Space property. */
static bool is_white_space(int32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 ||
	       cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
	       cp == 0x3000;
}

static void put_char(struct slug *s, char c)
{
	if (c == '-') {
		/* leading dashes are never written, runs collapse */
		s->dash = s->out.size > 0;
		return;
	}
	if (s->dash) {
		tm_buf_putc(&s->out, '-');
		s->dash = false;
	}
	tm_buf_putc(&s->out, c);
}

/* One code point of the decomposition (marks already removed). */
static void put_decomposed(struct slug *s, int32_t cp)
{
	size_t i;

	cp = utf8proc_tolower(cp);
	if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')) {
		put_char(s, (char)cp);
		return;
	}
	if (cp == '-' || cp == '_' || is_white_space(cp)) {
		put_char(s, '-');
		return;
	}
	for (i = 0; i < sizeof(letters) / sizeof(letters[0]); i++) {
		if (letters[i].cp == cp) {
			const char *a;

			for (a = letters[i].ascii; *a; a++)
				put_char(s, *a);
			return;
		}
	}
}

static void put_code_point(struct slug *s, int32_t cp)
{
	int32_t dec[DECOMPOSE_MAX];
	utf8proc_ssize_t n, i;
	int boundclass = 0;

	n = utf8proc_decompose_char(cp, dec, DECOMPOSE_MAX,
				    UTF8PROC_COMPAT | UTF8PROC_DECOMPOSE |
					    UTF8PROC_STRIPMARK,
				    &boundclass);
	if (n < 0 || n > DECOMPOSE_MAX)
		return;
	for (i = 0; i < n; i++)
		put_decomposed(s, dec[i]);
}

/* Cut `len` to at most `max` bytes, then trim trailing dashes. */
static size_t cut_length(const char *s, size_t len, size_t max)
{
	if (len > max)
		len = max;
	while (len > 0 && s[len - 1] == '-')
		len--;
	return len;
}

char *tm_slugify_or(const char *title, const char *fallback)
{
	struct slug s = {TM_BUF_INIT, false};
	const unsigned char *p = (const unsigned char *)(title ? title : "");
	size_t left = strlen((const char *)p);

	/* once past the limit, more input cannot change the cut result */
	while (left > 0 && s.out.size <= TM_SLUG_MAX) {
		int32_t cp;
		utf8proc_ssize_t n =
			utf8proc_iterate(p, (utf8proc_ssize_t)left, &cp);

		if (n <= 0) {
			/* not UTF-8: drop the byte */
			p++, left--;
			continue;
		}
		put_code_point(&s, cp);
		p += n, left -= (size_t)n;
	}
	tm_buf_truncate(&s.out, cut_length(tm_buf_cstr(&s.out), s.out.size,
					   TM_SLUG_MAX));
	if (s.out.size == 0 && fallback)
		tm_buf_puts(&s.out, fallback);
	return tm_buf_detach(&s.out);
}

char *tm_slugify(const char *title, tm_slug_kind kind)
{
	return tm_slugify_or(title,
			     kind == TM_SLUG_PROJECT ? "project" : "thread");
}

int tm_slug_unique(char **out, const char *base, tm_id_taken_fn taken,
		   void *payload)
{
	tm_buf id = TM_BUF_INIT;
	size_t base_len, len;
	unsigned long n;
	int r;

	if (!base)
		base = "";
	base_len = strlen(base);
	len = cut_length(base, base_len, TM_SLUG_MAX);
	tm_buf_put(&id, base, len);
	for (n = 1; n <= TM_SLUG_MAX_TRIES; n++) {
		if (n > 1) {
			char suffix[24];
			int slen = snprintf(suffix, sizeof(suffix), "-%lu", n);

			len = cut_length(base, base_len,
					 TM_SLUG_MAX - (size_t)slen);
			tm_buf_clear(&id);
			tm_buf_put(&id, base, len);
			/* an empty base would give "-2": keep the digits */
			tm_buf_puts(&id, len > 0 ? suffix : suffix + 1);
		}
		r = taken ? taken(tm_buf_cstr(&id), payload) : 0;
		if (r < 0) {
			tm_buf_release(&id);
			return r;
		}
		if (r == 0) {
			*out = tm_buf_detach(&id);
			return 0;
		}
	}
	r = tm_error_set(TM_EEXISTS,
			 "every id from '%.*s' to '%s' is taken; give a "
			 "different title",
			 (int)cut_length(base, base_len, TM_SLUG_MAX), base,
			 tm_buf_cstr(&id));
	tm_buf_release(&id);
	return r;
}

/*
 * Copy `s` into `dst` for quoting in a one-line message: control characters
 * and bytes that are not UTF-8 become '?', and a long string is cut at a
 * character boundary, with "..." added.
 */
static void quote_into(char dst[QUOTE_MAX + 4], const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), used = 0;

	while (left > 0) {
		int32_t cp = 0;
		utf8proc_ssize_t n =
			utf8proc_iterate(p, (utf8proc_ssize_t)left, &cp);
		bool shown = n > 0 && cp >= 0x20 && cp != 0x7f &&
			     !(cp >= 0x80 && cp < 0xa0);
		size_t take;

		if (n <= 0)
			n = 1;
		take = shown ? (size_t)n : 1;
		if (used + take > QUOTE_MAX) {
			memcpy(dst + used, "...", 3);
			used += 3;
			break;
		}
		if (shown)
			memcpy(dst + used, p, take);
		else
			dst[used] = '?';
		used += take;
		p += n, left -= (size_t)n;
	}
	dst[used] = '\0';
}

int tm_id_validate(const char *id, const char *what)
{
	char quoted[QUOTE_MAX + 4];
	size_t len, i;

	if (!what)
		what = "thread";
	if (!id || !*id)
		return tm_error_set(TM_EINVALID,
				    "empty %s id: ids are lower-case letters, "
				    "digits and dashes",
				    what);
	len = strlen(id);
	for (i = 0; i < len; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-')) {
			quote_into(quoted, id);
			return tm_error_set(TM_EINVALID,
					    "invalid %s id '%s': ids are "
					    "lower-case letters, digits and "
					    "dashes",
					    what, quoted);
		}
	}
	if (len > TM_ID_MAX) {
		quote_into(quoted, id);
		return tm_error_set(TM_EINVALID,
				    "invalid %s id '%s': ids are at most %d "
				    "bytes, this one has %zu",
				    what, quoted, TM_ID_MAX, len);
	}
	return 0;
}

int tm_id_resolve(char **out, const char *arg, const tm_strv *ids,
		  const char *what)
{
	tm_strv found = TM_STRV_INIT;
	tm_buf list = TM_BUF_INIT;
	char quoted[QUOTE_MAX + 4];
	size_t alen, i, n = ids ? ids->n : 0;
	int error;

	if (!what)
		what = "thread";
	if (!arg)
		arg = "";
	alen = strlen(arg);
	for (i = 0; i < n; i++) {
		if (strcmp(ids->items[i], arg) == 0) {
			*out = tm_xstrdup(arg);
			return 0;
		}
	}
	for (i = 0; alen > 0 && i < n; i++) {
		const char *id = ids->items[i];

		if (strncmp(id, arg, alen) == 0 &&
		    !tm_strv_contains(&found, id))
			tm_strv_push(&found, id);
	}
	if (found.n == 1) {
		*out = tm_xstrdup(found.items[0]);
		tm_strv_clear(&found);
		return 0;
	}
	quote_into(quoted, arg);
	if (found.n == 0)
		return tm_error_set(TM_ENOTFOUND, "no %s matches '%s'", what,
				    quoted);
	tm_strv_sort(&found);
	for (i = 0; i < found.n; i++) {
		if (i > 0)
			tm_buf_puts(&list, ", ");
		tm_buf_puts(&list, found.items[i]);
	}
	error = tm_error_set(TM_EAMBIGUOUS,
			     "'%s' is ambiguous: %s (give more characters)",
			     quoted, tm_buf_cstr(&list));
	tm_buf_release(&list);
	tm_strv_clear(&found);
	return error;
}
