/*
 * threadmind-git's storage library: the one place that reads and writes
 * `.threadmind/`.  Include this umbrella header, or the module headers.
 * Every public header is here (the *_internal.h ones and
 * lib/format/json_cjson.h, which keeps cJSON inside the library, are not
 * public); treediff.h brings in <git2.h>.
 */
#ifndef TM_THREADMIND_H
#define TM_THREADMIND_H

/* basics */
#include "error.h"
#include "buf.h"
#include "hashmap.h"
#include "timestamp.h"
#include "slug.h"

/* the formats */
#include "model.h"
#include "yaml.h"
#include "frontmatter.h"
#include "json.h"
#include "config.h"
#include "section.h"
#include "conflict.h"
#include "reintegrate.h"
#include "summary_diff.h"
#include "thread_diff.h"
#include "assign.h"

/* files, the lock, git */
#include "fs.h"
#include "lock.h"
#include "git.h"

/* the store and what is built on it */
#include "store.h"
#include "ops.h"
#include "tree.h"
#include "active.h"
#include "summary.h"
#include "pathspec.h"
#include "treediff.h"
#include "stale.h"
#include "git_threads.h"
#include "thread_log.h"
#include "hooks.h"
#include "doctor.h"
#include "migrate.h"
#include "install.h"

/* merging */
#include "merge.h"
#include "resolve.h"
#include "view.h"

#endif
