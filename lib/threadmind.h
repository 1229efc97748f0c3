/*
 * threadmind-git's storage library: the one place that reads and writes
 * `.threadmind/`.  Include this umbrella header, or the module headers.
 */
#ifndef TM_THREADMIND_H
#define TM_THREADMIND_H

#include "error.h"
#include "buf.h"
#include "timestamp.h"
#include "slug.h"
#include "model.h"
#include "frontmatter.h"
#include "json.h"
#include "config.h"
#include "fs.h"
#include "lock.h"
#include "git.h"
#include "store.h"
#include "tree.h"
#include "active.h"
#include "migrate.h"

#endif
