#include "builtin.h"
#include "cli.h"
int cmd_log(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	return 0;
}
