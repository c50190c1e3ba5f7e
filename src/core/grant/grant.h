// grant.h — the grant by which a Citus coordinator lets its workers release (docs/citus.md,
// "Worker-side releases").
//
// The coordinator charges a query's releases in its ledger, then seals a grant: a random nonce,
// an expiry, the database, the role and the distributed table, and for each release the charge
// exactly as the ledger recorded it (aggregate, epsilon, delta and each part's mechanism, epsilon,
// delta and rho).  The seal is HMAC-SHA256 under a key the nodes share.  A worker opens the grant
// (the MAC checked in constant time before anything is parsed, the format parsed strictly, the
// expiry checked), and releases only what it lists, once per shard (src/pg/citus/citus_grant.c).
//
// Pure data and OpenSSL's HMAC; no PostgreSQL.  The text forms are ASCII: a grant,
// "dpagg-grant-1:<hex payload>:<hex mac>", and an unsealed template of the same payload,
// "dpagg-template-1:<hex payload>", which the coordinator keeps in its plan.
#pragma once

#include <cstdint>
#include <string>

#include "dpagg_core.h"

namespace dpagg {

std::string grant_encode(const dpagg_grant& g);  // the payload, binary
dpagg_grant grant_decode(const std::string& payload);
std::string grant_template(const dpagg_grant& g);
dpagg_grant grant_from_template(const std::string& text);
std::string grant_seal(const unsigned char* key, const dpagg_grant& g);
dpagg_grant grant_open(const unsigned char* key, const std::string& text, int64_t now_us);
void grant_parse_key(const std::string& text, unsigned char* key);

}  // namespace dpagg
