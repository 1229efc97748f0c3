/* The commands of git-threadmind: one cmd_<name> per cmd-<name>.c file. */
#ifndef TM_CLI_BUILTIN_H
#define TM_CLI_BUILTIN_H

#define CMD(name) int cmd_##name(int argc, const char **argv)

CMD(init);
CMD(status);
CMD(tree);
CMD(list);
CMD(show);
CMD(new);
CMD(switch);
CMD(install);
CMD(uninstall);
CMD(hook);

#undef CMD
#endif
