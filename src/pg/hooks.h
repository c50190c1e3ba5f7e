/*
 * hooks.h — the entry points of the glue (docs/architecture.md): _PG_init (dpagg.c) sets up each
 * layer, lowest first; the hooks (hooks.c) run the layers in order for every statement.
 */
#ifndef DPAGG_HOOKS_H
#define DPAGG_HOOKS_H

#include "citus/citus.h"

extern void dpagg_hooks_init(void);

#endif							/* DPAGG_HOOKS_H */
