/* Colour and line drawing of the CLI's human-readable output. */
#ifndef TM_CLI_COLOR_H
#define TM_CLI_COLOR_H

#include <stdbool.h>

/* Colour: decided once from --color / --no-color, NO_COLOR,
 * color.threadmind, color.ui (a bad value is fatal, naming the key) and,
 * for auto, whether stdout is a terminal whose TERM is not "dumb". */
bool cli_color(void);
/* The escape sequence for a colour name ("red", "green", "yellow", "dim",
 * "bold", "cyan", "reset") or "" when colour is off. */
const char *cli_c(const char *name);
/* Draw trees with box-drawing characters (UTF-8 locale and no --ascii)? */
bool cli_unicode(void);

#endif
