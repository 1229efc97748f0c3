/* The commands of git-threadmind: one cmd_<name> per cmd-<name>.c file. */
#ifndef TM_CLI_BUILTIN_H
#define TM_CLI_BUILTIN_H

#define CMD(name) int cmd_##name(int argc, const char **argv)

CMD(init);
CMD(status);
CMD(tree);
CMD(list);
CMD(show);
CMD(diff);
CMD(log);
CMD(new);
CMD(switch);
CMD(summary);
CMD(edit);
CMD(set);
CMD(touch);
CMD(move);
CMD(done);
CMD(abandon);
CMD(reopen);
CMD(merge);
CMD(rm);
CMD(project);
CMD(migrate);
CMD(doctor);
CMD(install);
CMD(uninstall);
CMD(prompt);
CMD(resolve);
CMD(stale);
CMD(hook);

#undef CMD
#endif
