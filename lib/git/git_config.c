/* git config values as git reads them: `git -c` (GIT_CONFIG_PARAMETERS,
 * GIT_CONFIG_COUNT), then the repository's config through libgit2, with
 * the keys of tm_git_config_fast answered without libgit2 when no file
 * names them. */
#include "git.h"
#include "git_libgit2.h"
#include "git_priv.h"
#include "buf.h"
#include "error.h"

#include <git2.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Section and name compare without case, a subsection exactly. */
static bool key_equal(const char *a, const char *b)
{
	const char *a1 = strchr(a, '.'), *b1 = strchr(b, '.');
	const char *a2 = strrchr(a, '.'), *b2 = strrchr(b, '.');

	if (!a1 || !b1 || a1 - a != b1 - b || a2 - a1 != b2 - b1)
		return false;
	return !strncasecmp(a, b, (size_t)(a1 - a)) &&
	       !strncmp(a1, b1, (size_t)(a2 - a1)) && !strcasecmp(a2, b2);
}

/* Read one sh single-quoted word ('it'\''s') at *p into out. */
static bool sq_word(const char **p, tm_buf *out)
{
	const char *s = *p;

	tm_buf_clear(out);
	if (*s != '\'')
		return false;
	for (;;) {
		const char *end = strchr(s + 1, '\'');

		if (!end)
			return false;
		tm_buf_put(out, s + 1, (size_t)(end - s - 1));
		s = end + 1;
		if (s[0] == '\\' && s[1] == '\'' && s[2] == '\'') {
			tm_buf_putc(out, '\'');
			s += 2;
			continue;
		}
		break;
	}
	*p = s;
	return true;
}

static void take(char **out, bool *valueless, bool *found, const char *value)
{
	free(*out);
	*out = tm_xstrdup(value ? value : "");
	*valueless = value == NULL;
	*found = true;
}

static bool command_line_value(char **out, bool *valueless, const char *key)
{
	const char *p = getenv("GIT_CONFIG_PARAMETERS"), *count;
	tm_buf k = TM_BUF_INIT, v = TM_BUF_INIT;
	bool found = false;

	*out = NULL;
	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!*p || !sq_word(&p, &k))
			break;
		if (p[0] == '=' && p[1] == '\'') {
			p++;
			if (!sq_word(&p, &v))
				break;
			if (key_equal(tm_buf_cstr(&k), key))
				take(out, valueless, &found, tm_buf_cstr(&v));
		} else {
			char *eq = strchr(k.ptr ? k.ptr : "", '=');

			if (eq)
				*eq = '\0';
			if (key_equal(tm_buf_cstr(&k), key))
				take(out, valueless, &found,
				     eq ? eq + 1 : NULL);
		}
	}
	count = getenv("GIT_CONFIG_COUNT");
	if (count) {
		long i, n = strtol(count, NULL, 10);

		for (i = 0; i < n && i < 1000; i++) {
			char name[40];
			const char *ki, *vi;

			snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
			ki = getenv(name);
			snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
			vi = getenv(name);
			if (ki && key_equal(ki, key))
				take(out, valueless, &found, vi ? vi : "");
		}
	}
	tm_buf_release(&k);
	tm_buf_release(&v);
	return found;
}

bool tm_git_config_on_command_line(const char *key)
{
	char *value = NULL;
	bool valueless, found = command_line_value(&value, &valueless, key);

	free(value);
	return found;
}

/* A "<section>.<name>" key (no subsection). */
static bool section_key(const char *key, const char *section)
{
	size_t n = strlen(section);
	const char *p;

	if (strncasecmp(key, section, n) || key[n] != '.' ||
	    !isalpha((unsigned char)key[n + 1]))
		return false;
	for (p = key + n + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-')
			return false;
	return true;
}

/*
 * The keys tm_git_config_fast answers without libgit2: a section ("color")
 * or a whole key ("merge.conflictStyle"), and the word a config file must
 * hold to perhaps set it (lower-cased: the section, or the key's name).
 * The library's own come first: threadmind.* (every command asks) and
 * merge.conflictStyle (the merge driver asks on a conflict).
 */
#define FAST_KEYS_MAX 16
#define FAST_KEY_LEN  64

static struct {
	char spec[FAST_KEY_LEN], word[FAST_KEY_LEN];
} fast_keys[FAST_KEYS_MAX] = {
	{"threadmind", "threadmind"},
	{"merge.conflictStyle", "conflictstyle"},
};
static unsigned nfast = 2;

int tm_git_config_fast(const char *spec)
{
	const char *dot = strrchr(spec ? spec : "", '.');
	const char *word = dot ? dot + 1 : spec;
	unsigned i;
	size_t k;

	if (!spec || !*spec || !*word || strlen(spec) >= FAST_KEY_LEN ||
	    strchr(spec, '.') != dot)
		return tm_error_set(TM_EINVALID,
				    "'%s' is no config section or "
				    "section.name key",
				    spec ? spec : "");
	for (i = 0; i < nfast; i++)
		if (!strcasecmp(fast_keys[i].spec, spec))
			return 0;
	if (nfast == FAST_KEYS_MAX)
		return tm_error_set(TM_EINVALID,
				    "too many fast config keys (at most %d)",
				    FAST_KEYS_MAX);
	strcpy(fast_keys[nfast].spec, spec);
	for (k = 0; word[k]; k++)
		fast_keys[nfast].word[k] =
			(char)tolower((unsigned char)word[k]);
	fast_keys[nfast].word[k] = '\0';
	nfast++;
	return 0;
}

void tm_git__note_mentions(tm_git *g, const char *lower)
{
	unsigned i;

	g->fast_scanned = nfast;
	for (i = 0; i < nfast; i++)
		if (strstr(lower, fast_keys[i].word))
			g->fast_mentioned |= 1u << i;
}

/* Unset for sure: the fast path scanned every file libgit2 reads and
 * none mentions this key of tm_git_config_fast. */
static bool surely_unset(const tm_git *g, const char *key)
{
	unsigned i;

	if (!g || g->repo)
		return false;
	for (i = 0; i < g->fast_scanned; i++) {
		const char *spec = fast_keys[i].spec;

		if (g->fast_mentioned & (1u << i))
			continue;
		if (strchr(spec, '.') ? !strcasecmp(key, spec)
				      : section_key(key, spec))
			return true;
	}
	return false;
}

static int config_value(char **out, bool *valueless, tm_git *g, const char *key)
{
	git_config *cfg = NULL;
	git_config_entry *entry = NULL;
	int error;

	if (!key || !*key)
		return tm_error_set(TM_EINVALID, "empty config key");
	if (command_line_value(out, valueless, key))
		return 0;
	if (surely_unset(g, key))
		return tm_error_set(TM_ENOTFOUND, "config '%s' is not set",
				    key);
	if (g && (error = tm_git__need_repo(g)) < 0)
		return error;
	if ((error = tm_git_init()) < 0)
		return error;
	if (g)
		error = git_repository_config(&cfg, g->repo);
	else
		error = git_config_open_default(&cfg);
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot read the git config");
	error = git_config_get_entry(&entry, cfg, key);
	if (error == GIT_ENOTFOUND) {
		error = tm_error_set(TM_ENOTFOUND, "config '%s' is not set",
				     key);
	} else if (error == GIT_EINVALIDSPEC) {
		error = tm_error_set(TM_EINVALID,
				     "invalid config key '%s': use "
				     "section.name",
				     key);
	} else if (error < 0) {
		error = tm_git_error(TM_ERROR, "cannot read the git config");
	} else {
		*valueless = entry->value == NULL;
		*out = tm_xstrdup(entry->value ? entry->value : "");
		error = 0;
	}
	git_config_entry_free(entry);
	git_config_free(cfg);
	return error;
}

int tm_git_config_string(char **out, tm_git *g, const char *key)
{
	bool valueless;

	return config_value(out, &valueless, g, key);
}

int tm_git_config_is_set(bool *out, tm_git *g, const char *key)
{
	char *value = NULL;
	bool valueless;
	int error;

	*out = false;
	/* the fast path's scan knows this one: no libgit2 (2.4 M
	 * instructions) for the hint every command checks */
	if (g && !g->repo && key_equal(key, "merge.threadmind.driver") &&
	    !command_line_value(&value, &valueless, key)) {
		*out = g->config_merge_driver;
		return 0;
	}
	free(value);
	value = NULL;
	error = config_value(&value, &valueless, g, key);
	free(value);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return 0;
	}
	if (error == 0)
		*out = true;
	return error;
}

/* config_value, or 1 (no error left) when `key` is not set: the caller
 * uses its default. */
static int value_or_unset(char **out, bool *valueless, tm_git *g,
			  const char *key)
{
	int error = config_value(out, valueless, g, key);

	if (error != TM_ENOTFOUND)
		return error;
	tm_error_clear();
	return 1;
}

int tm_git_config_bool(bool *out, tm_git *g, const char *key, bool dflt)
{
	char *value = NULL;
	bool valueless = false;
	int b = 0, error;

	if ((error = value_or_unset(&value, &valueless, g, key)) != 0) {
		if (error > 0)
			*out = dflt;
		return error < 0 ? error : 0;
	}
	if (valueless)
		b = 1;
	else if ((error = tm_git_init()) == 0 && /* nothing may have yet */
		 git_config_parse_bool(&b, value) < 0)
		error = tm_error_set(TM_EINVALID,
				     "bad boolean config value '%s' for '%s'",
				     value, key);
	free(value);
	if (error < 0)
		return error;
	*out = b != 0;
	return 0;
}

int tm_git_config_seconds(double *out, tm_git *g, const char *key, double dflt)
{
	char *value = NULL, *end = NULL;
	bool valueless = false;
	double v = 0;
	int error;

	if ((error = value_or_unset(&value, &valueless, g, key)) != 0) {
		if (error > 0)
			*out = dflt;
		return error < 0 ? error : 0;
	}
	errno = 0;
	if (!valueless && *value)
		v = strtod(value, &end);
	if (valueless || !*value || *end || errno || !(v >= 0) || v > 1e9)
		error = tm_error_set(TM_EINVALID,
				     "bad numeric config value '%s' for '%s': "
				     "expected a number of seconds (such as "
				     "15 or 0.5); fix it with 'git config %s "
				     "<seconds>'",
				     value, key, key);
	free(value);
	if (error < 0)
		return error;
	*out = v;
	return 0;
}
