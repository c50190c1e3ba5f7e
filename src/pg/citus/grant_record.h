/*
 * grant_record.h — each node's record of used (and, on the coordinator, issued) Citus grants
 * (grant_record.c; docs/citus.md §6).
 */
#ifndef DPAGG_GRANT_RECORD_H
#define DPAGG_GRANT_RECORD_H

#include "postgres.h"

#include "dpagg_core.h"

/* Microseconds since 1970, the clock grants are issued and expire by. */
extern int64 dpagg_unix_now_us(void);
/* On a node that releases a shard under a grant: record the use of the grant's shard (its index
 * in the grant), or refuse (42501) a second use, an expired grant, one issued before this node's
 * record began, and everything on a server that started in recovery until resumed; 53400 when
 * the record is full. */
extern void dpagg_grant_record_use(const dpagg_grant *g, int index);
/* On the coordinator, before the charge: record a grant about to be issued to the current role,
 * or refuse (53400) one past dpagg.citus_grants_per_role unexpired grants or a full record. */
extern void dpagg_grant_record_issue(const unsigned char *nonce, int64 expires_us);
/* ... and forget it if its charge failed. */
extern void dpagg_grant_record_forget_issued(const unsigned char *nonce);
/* The settings (dpagg.citus_grant_slots, dpagg.citus_grants_per_role) and, from
 * shared_preload_libraries, the shared memory. */
extern void dpagg_grant_record_init(void);

#endif
